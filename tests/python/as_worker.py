"""Runs a script in a process set up as a verifier worker is (python/drtriton/worker.py): the
sandbox, the launch hook, NaN-filled fresh memory, a judge.Context on the CPU, and the case's
task and candidate loaded. The script then has `judge`, `ctx`, `case`, `task`, `candidate`
and `scratch` (its scratch folder) and prints one JSON line last, which `run` returns."""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

SETUP = r"""
import json, os, sys
import torch
from drtriton.verifier import client, inputs, judge, launch_hook, sandbox
[case] = [c for c in client.load_suite(os.path.dirname(sys.argv[1])) if c.path == sys.argv[1]]
task, candidate = case.sources()
scratch = sys.argv[2]
guard, _ = sandbox.install(scratch)
launch_hook.install()
with inputs.nan_uninitialized_memory():
    torch.empty(1)
ctx = judge.Context(torch.device("cpu"), "cpu", {}, guard, sandbox.TamperCheck(), lambda *a, **k: None)
"""


def run(script, case, scratch):
    env = {**os.environ, "TRITON_INTERPRET": "1",
           "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "python"), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-c", SETUP + script, case, str(scratch)], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])
