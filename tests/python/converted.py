"""Converted solutions run next to their programs, for the tests that hold a solution's modes
against PyTorch's (test_convert_batch_norm.py, test_convert_dropout.py); and the tracing and
converting of many programs at once, over the machine's cores (test_convert.py,
test_corpus.py)."""
import multiprocessing
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

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


def convert(programs, out, args=()):
    """{program path: the path of its solution in the folder `out`}: each program traced (in
    the pool of trace_and_convert_all) and converted with `convert --no-verify` and `args`
    (codegen knobs: ["--knob", "gemm=library"])."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    paths = {program: str(out / os.path.basename(program)) for program in programs}
    jobs = [(program, out / (os.path.basename(program)[:-3] + ".traced.json"), paths[program],
             tuple(args)) for program in programs]
    for (program, *_), (trace_error, rc, stderr) in zip(jobs, trace_and_convert_all(BIN, jobs)):
        assert trace_error is None and rc == 0, f"{program}: {trace_error or stderr}"
    return paths


def run_all(commands, **kwargs):
    """subprocess.run(command, capture_output=True, text=True, cwd=ROOT, **kwargs) for each
    command, os.cpu_count() at a time (a `drtriton convert PROGRAM.py` traces in its own
    Python, a CPU-bound second or more): the completed processes, in order."""
    def one(command):
        return subprocess.run(command, capture_output=True, text=True,
                              **{"cwd": ROOT, **kwargs})

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(one, commands))


def trace_and_convert(binary, program, traced, solution, args=()):
    """Traces `program` (frontend.trace_file, dynamic) into the file `traced`, then compiles
    that with `binary convert --no-verify -o solution` and `args`; where that fails, converts
    the program itself (convert traces it again through torch's decompositions of the calls
    import could not map). So the solution is the one `convert program` writes, without a
    Python start-up (torch's import and first export, about 5 s) for each program. Returns
    (the trace's error or None, convert's exit status, convert's stderr); None and "" for
    convert when the trace failed."""
    from drtriton import frontend
    try:
        text = frontend.to_json(frontend.trace_file(str(program), dynamic=True))
    except frontend.FrontendError as e:
        return f"trace: {e}", None, ""
    with open(traced, "w") as f:
        f.write(text)
    command = [binary, "convert", str(traced), "--no-verify", "-o", str(solution), *args]
    r = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:  # as a user would: from the program, which convert may trace again
        command[2] = str(program)
        r = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    return None, r.returncode, r.stderr


def trace_and_convert_all(binary, jobs):
    """trace_and_convert(binary, *job) for each job (program, traced, solution[, args]) of
    `jobs`, their results in order. Tracing is CPU-bound Python (torch.export, 0.3 to 3 s a
    program once torch is loaded), so it runs in a pool of os.cpu_count() fresh processes
    (spawned: each imports torch once); a trace depends only on its program, so the results
    are those of tracing them one by one here. The longest programs go first, so that no
    process is left with a long one at the end."""
    jobs = list(jobs)
    workers = min(os.cpu_count() or 1, len(jobs))
    if workers <= 1:
        return [trace_and_convert(binary, *job) for job in jobs]
    order = sorted(range(len(jobs)), key=lambda i: -os.path.getsize(jobs[i][0]))
    results = [None] * len(jobs)
    with ProcessPoolExecutor(max_workers=workers,
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(trace_and_convert, binary, *jobs[i]): i for i in order}
        for future, i in futures.items():
            results[i] = future.result()
    return results


def side_by_side(script, program, solution):
    """Runs PRELUDE + `script` in a fresh interpreter with TRITON_INTERPRET=1 (set before
    triton is imported); the script prints "ok" when the solution behaves."""
    check_side_by_side(side_by_side_all(script, {program: solution})[program])


def side_by_side_all(script, solutions):
    """{program: the completed run of side_by_side(script, program, solutions[program])}, the
    runs os.cpu_count() at a time; check_side_by_side(run) asserts what side_by_side does."""
    env = dict(os.environ, TRITON_INTERPRET="1")
    runs = run_all([[sys.executable, "-c", PRELUDE + script, program, solution]
                    for program, solution in solutions.items()], env=env)
    return dict(zip(solutions, runs))


def check_side_by_side(r):
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


def verifier_service(device):
    """One verifier service on `device` for a batch of tests' candidates; on the CPU up to four
    workers with a long run timeout (Triton's interpreter takes minutes on a long program)."""
    from drtriton.service_client import Service
    workers = [] if device == "cuda" else ["--workers-per-gpu", str(max(1, min(4, os.cpu_count() or 1))),
                                           "--run-timeout", "900"]
    return Service(BIN, "--device", device, *workers, cwd=ROOT, ready_s=120)
