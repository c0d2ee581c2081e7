"""A worker keeps nothing of a judgement once its verdict is out: the model, the input sets and
the outputs of one request (on a GPU, its device memory) must be freed before the next, else a
worker judging GPU-sized programs one after another fills the GPU. The judge freezes what
survives each request (gc.freeze, for fast collections), so a judgement that outlives its
request even briefly, inside a reference cycle, would never be freed: this test counts the
judgements alive after each of several requests, in a process that judges as a worker does."""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CASE = os.path.join(ROOT, "tests", "eval", "candidates", "honest_relu_scale.py")

# Judges CASE three times with other seeds (so that no request takes the last one's cached
# input sets) after setting up as python/drtriton/worker.py does; prints the judgements alive.
SCRIPT = r"""
import gc, json, os, sys, weakref
import torch
from drtriton.verifier import client, inputs, judge, launch_hook, sandbox
alive = weakref.WeakSet()
init = judge._Judgement.__init__
def tracked(self, *args, **kwargs):
    alive.add(self)
    init(self, *args, **kwargs)
judge._Judgement.__init__ = tracked
[case] = [c for c in client.load_suite(os.path.dirname(sys.argv[1])) if c.path == sys.argv[1]]
task, candidate = case.sources()
scratch = sys.argv[2]
guard, _ = sandbox.install(scratch)
launch_hook.install()
with inputs.nan_uninitialized_memory():
    torch.empty(1)
ctx = judge.Context(torch.device("cpu"), "cpu", {}, guard, sandbox.TamperCheck(), lambda *a, **k: None)
gc.collect()
gc.freeze()
counts = []
for seed in (1, 2, 3):
    ctx.requests += 1
    workdir = os.path.join(scratch, f"req-{seed}")
    os.makedirs(workdir)
    os.chdir(workdir)
    verdict = judge.judge(ctx, task, candidate, {**case.options, "compile": False, "seed": seed}, workdir)
    counts.append([verdict["passed"], verdict["reason"], len(alive)])
print(json.dumps(counts))
"""


def test_no_judgement_outlives_its_request(tmp_path):
    env = {**os.environ, "TRITON_INTERPRET": "1",
           "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "python"), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-c", SCRIPT, CASE, str(tmp_path)], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    counts = json.loads(r.stdout.strip().splitlines()[-1])
    assert all(passed for passed, _, _ in counts), counts  # the requests were judged in full
    assert [n for _, _, n in counts] == [0, 0, 0], counts
