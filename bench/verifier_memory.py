"""The verifier's GPU memory against what each task's own forward needs: reads a corpus report
(scripts/gpu_corpus.sh's gpu_corpus.json, whose verdicts carry checks.gpu_memory.peak_bytes),
runs every program's reference on the meta device (nothing allocated) to measure its inputs,
output, state and the forward's working set (the most bytes its intermediate tensors hold at
once), and prints how many times those the judgement's peak was, and how many judgements
a peak estimate of K times the working set would have under-counted. Runs on the CPU.

    python3 bench/verifier_memory.py docs/results/corpus_gpu_h200_tma.json
"""
import argparse
import glob
import importlib.util
import json
import os
import sys
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CORPUS = os.path.join(ROOT, "tests", "programs", "real")


def nbytes(values):
    return sum(t.numel() * t.element_size() for t in tree_leaves(values) if isinstance(t, torch.Tensor))


class LiveBytes(TorchDispatchMode):
    """Bytes of the tensors ops make that are still alive, and their most at once."""

    def __init__(self):
        super().__init__()
        self.live = self.peak = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if not func.is_view:
            for t in tree_leaves(out):
                if isinstance(t, torch.Tensor):
                    size = t.numel() * t.element_size()
                    self.live += size
                    self.peak = max(self.peak, self.live)
                    weakref.finalize(t, self.freed, size)
        return out

    def freed(self, size):
        self.live -= size


def meta_forward(path):
    """Inputs, output, state and working-set bytes of one program's reference, at full size."""
    spec = importlib.util.spec_from_file_location("program", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    with torch.device("meta"), torch.no_grad():
        model = module.Model(*module.get_init_inputs())
        inputs = list(module.get_inputs())
        live = LiveBytes()
        with live:
            out = model(*inputs)
    return {"inputs": nbytes(inputs), "output": nbytes(out), "state": nbytes(list(model.state_dict().values())),
            "working_set": live.peak}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="a gpu_corpus.json of scripts/gpu_corpus.sh")
    parser.add_argument("--factors", default="16,24,32,40", help="K values to try (working set + inputs)")
    args = parser.parse_args()
    programs = json.load(open(args.report))["programs"]
    rows = []
    for path in sorted(glob.glob(os.path.join(CORPUS, "*", "*.py"))):
        name = os.path.relpath(path, CORPUS)[:-3]
        memory = ((programs.get(name) or {}).get("verdict") or {}).get("gpu_memory") or {}
        if not memory.get("peak_bytes"):
            continue
        try:
            sizes = meta_forward(path)
        except Exception as e:  # an op without a meta kernel
            print(f"{name}: no meta forward ({type(e).__name__})", file=sys.stderr)
            continue
        rows.append((name, memory["peak_bytes"], sizes))

    def spread(key):
        ratios = sorted(peak / max(1, key(s)) for _, peak, s in rows if peak > 4e9)
        n = len(ratios)
        return f"median {ratios[n // 2]:.1f}, 90th percentile {ratios[int(n * .9)]:.1f}, most {ratios[-1]:.1f}"

    print(f"{len(rows)} judgements with a measured peak; over 4 GB, the peak was, in times:")
    print(f"  the inputs: {spread(lambda s: s['inputs'])}")
    print(f"  the inputs and the output: {spread(lambda s: s['inputs'] + s['output'])}")
    print(f"  the inputs and the forward's working set: {spread(lambda s: s['inputs'] + s['working_set'])}")
    part = 0.85 * 141e9 / 16
    print("\n| K | judgements over their estimate (K x (inputs + working set) + 3 x state + 1 GB) | parts of 16 summed |")
    print("| --- | --- | --- |")
    for k in map(int, args.factors.split(",")):
        estimates = [k * (s["inputs"] + s["working_set"]) + 3 * s["state"] + 1e9 for _, _, s in rows]
        under = sum(peak > e and peak > part for (_, peak, _), e in zip(rows, estimates))
        parts = sum(min(16, max(1, -(-e // part))) for e in estimates)
        print(f"| {k} | {under} | {parts:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
