import os
import sys

# Make `import drtriton` work without PYTHONPATH=python.
_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if os.path.abspath(_PY) not in [os.path.abspath(p) for p in sys.path]:
    sys.path.insert(0, os.path.abspath(_PY))
