import os
import sys

# Make `import drtriton` work without PYTHONPATH=python.
_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if os.path.abspath(_PY) not in [os.path.abspath(p) for p in sys.path]:
    sys.path.insert(0, os.path.abspath(_PY))


# Each pytest-xdist worker (make test: one more than the cores) gets its share of the cores for
# torch's thread pools, and so does every process it starts (they inherit it): N workers with
# a thread per core each oversubscribe the machine N times, and OpenMP threads that wait for
# a descheduled sibling burn the cores the other workers need (on 2 busy cores, 60 steps of
# `drtriton train sft --model tiny` took 175 s with 2 threads, 42 s with 1). The verifier's
# worker pool does the same for its workers (src/eval/worker_pool.cpp).
_XDIST_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _XDIST_WORKERS > 1 and "OMP_NUM_THREADS" not in os.environ:
    os.environ["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // _XDIST_WORKERS))

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
