"""Converted solutions run next to their programs, for the tests that hold a solution's modes
against PyTorch's (test_convert_batch_norm.py, test_convert_dropout.py)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))

# What every side-by-side script starts with: the program as `task`, its solution as
# `solution` (argv 1 and 2), and torch.
PRELUDE = r"""
import importlib.util, sys
import torch

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

task, solution = load("task", sys.argv[1]), load("solution", sys.argv[2])
"""


def convert(programs, out):
    """{program path: the path of its solution in the folder `out`} (convert --no-verify)."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    paths = {}
    for program in programs:
        paths[program] = str(out / os.path.basename(program))
        r = subprocess.run([BIN, "convert", program, "--no-verify", "-o", paths[program]],
                           capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0, r.stderr
    return paths


def side_by_side(script, program, solution):
    """Runs PRELUDE + `script` in a fresh interpreter with TRITON_INTERPRET=1 (set before
    triton is imported); the script prints "ok" when the solution behaves."""
    env = dict(os.environ, TRITON_INTERPRET="1")
    r = subprocess.run([sys.executable, "-c", PRELUDE + script, program, solution],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


def verifier_service(device):
    """One verifier service on `device` for a batch of tests' candidates; on the CPU up to four
    workers with a long run timeout (Triton's interpreter takes minutes on a long program)."""
    from drtriton.service_client import Service
    workers = [] if device == "cuda" else ["--workers-per-gpu", str(max(1, min(4, os.cpu_count() or 1))),
                                           "--run-timeout", "900"]
    return Service(BIN, "--device", device, *workers, cwd=ROOT, ready_s=120)
