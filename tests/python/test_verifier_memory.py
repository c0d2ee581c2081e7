"""A worker keeps nothing of a judgement once its verdict is out: the model, the input sets and
the outputs of one request (on a GPU, its device memory) must be freed before the next, else a
worker judging GPU-sized programs one after another fills the GPU. The judge freezes what
survives each request (gc.freeze, for fast collections), so a judgement that outlives its
request even briefly, inside a reference cycle, would never be freed: this test counts the
judgements alive after each of several requests, in a process that judges as a worker does."""
import os

import as_worker

CASE = os.path.join(as_worker.ROOT, "tests", "eval", "candidates", "honest_relu_scale.py")

# Judges CASE three times with other seeds (so that no request takes the last one's cached
# input sets) after setting up as python/drtriton/worker.py does; prints the judgements alive.
SCRIPT = r"""
import gc, weakref
alive = weakref.WeakSet()
init = judge._Judgement.__init__
def tracked(self, *args, **kwargs):
    alive.add(self)
    init(self, *args, **kwargs)
judge._Judgement.__init__ = tracked
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
    counts = as_worker.run(SCRIPT, CASE, tmp_path)
    assert all(passed for passed, _, _ in counts), counts  # the requests were judged in full
    assert [n for _, _, n in counts] == [0, 0, 0], counts
