"""`python -m drtriton ARGS` and the `drtriton` console script: the binary with ARGS.

The binary is found as drtriton.api.find_binary says (the packaged one first) and replaces
this process, with this interpreter as the Python it starts (DRTRITON_PYTHON), so exit
codes, signals and the terminal pass through untouched.
"""
import os
import sys

from .api import DrtritonError, binary_env, find_binary


def main(argv=None):
    try:
        binary = find_binary()
    except DrtritonError as e:
        print(f"drtriton: {e}", file=sys.stderr)
        return 2
    args = sys.argv[1:] if argv is None else list(argv)
    os.execve(binary, ["drtriton", *args], binary_env())


if __name__ == "__main__":
    sys.exit(main())
