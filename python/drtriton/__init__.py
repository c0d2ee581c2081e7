"""drtriton: PyTorch programs to Triton kernels (Python side: frontend, workers, training)."""

# The one place the version is written: CMakeLists.txt and pyproject.toml read this line.
__version__ = "0.1.0"

__all__ = ["trace_file", "__version__"]


def trace_file(path):
    """Trace a KernelBench-format file into a ``drtriton.traced/1`` dict (see drtriton.frontend)."""
    from .frontend import trace_file as _trace_file

    return _trace_file(path)
