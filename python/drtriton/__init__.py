"""drtriton: PyTorch programs to Triton kernels (Python side: frontend, workers, training).

The API (drtriton.api) runs the `drtriton` binary: ``convert`` compiles a KernelBench-format
program into a verified Triton solution, ``verify`` judges a candidate. Nothing here imports
torch until it is used, so ``import drtriton`` stays fast.
"""

# The one place the version is written: CMakeLists.txt and pyproject.toml read this line.
__version__ = "0.1.0"

__all__ = ["DrtritonError", "convert", "trace_file", "verify", "__version__"]

_API_NAMES = ("DrtritonError", "convert", "verify")


def __getattr__(name):
    # PEP 562: drtriton.api (subprocess, json, tempfile) loads on first use.
    if name in _API_NAMES:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'drtriton' has no attribute {name!r}")


def trace_file(path):
    """Trace a KernelBench-format file into a ``drtriton.traced/1`` dict (see drtriton.frontend)."""
    from .frontend import trace_file as _trace_file

    return _trace_file(path)
