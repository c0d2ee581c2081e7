"""drtriton: PyTorch programs to Triton kernels (Python side: frontend, workers, training)."""

__all__ = ["trace_file"]


def trace_file(path):
    """Trace a KernelBench-format file into a ``drtriton.traced/1`` dict (see drtriton.frontend)."""
    from .frontend import trace_file as _trace_file

    return _trace_file(path)
