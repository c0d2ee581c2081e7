import os
import sys

# Make `import drtriton` work without PYTHONPATH=python.
_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if os.path.abspath(_PY) not in [os.path.abspath(p) for p in sys.path]:
    sys.path.insert(0, os.path.abspath(_PY))


import pytest  # noqa: E402


@pytest.fixture
def fake_gpus(tmp_path):
    """The environment of a machine whose `nvidia-smi -L` lists two GPUs: an nvidia-smi on
    PATH that prints them. For what drtriton decides from the GPUs it sees (the devices of
    its verifier's workers, which GPUs --gpus may name); nothing can run on them."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'GPU 0: Fake GPU (UUID: GPU-0)'\n"
                   "echo 'GPU 1: Fake GPU (UUID: GPU-1)'\n")
    smi.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '')}"
    return env
