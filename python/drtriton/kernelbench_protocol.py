"""Correctness as KernelBench's own harness judges it, beside drtriton's verifier.

The harness seeds the RNG with 42 and builds `Model`, seeds again and builds `ModelNew`
(weights are never copied: a solution must build the reference's parameters itself), then
runs 5 trials, each on fresh inputs from `get_inputs()` under a trial seed drawn from seed
42, with the modules in their default (training) mode and autograd off, and compares the
outputs' shapes and values with `torch.allclose`. It is a weaker test than the verifier's
(one input family, one tolerance, no anti-cheating checks), but it is the one the field
reports, so `drtriton bench` shows both.

    python -m drtriton.kernelbench_protocol TASK.py SOLUTION.py [TASK.py SOLUTION.py ...]
        [--device cuda] [--trials 5] [--atol 1e-4] [--rtol 1e-4] [--out FILE]

prints (or writes to FILE) one JSON line per pair: {"task", "solution", "correct", "trials_passed", "reason",
"max_abs_diff"}. The solution runs in this process: use it on trusted solutions (the
compiler's), not on untrusted ones (the verifier isolates those).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import traceback

SEED = 42


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Triton's jit reads a kernel's source through its module
    spec.loader.exec_module(module)
    return module


def _seed(seed: int) -> None:
    import torch

    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(seed)


def _to(x, device):
    import torch

    return x.to(device) if isinstance(x, torch.Tensor) else x


def _outputs(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def check(task_path: str, solution_path: str, device: str = "cuda", trials: int = 5,
          atol: float = 1e-4, rtol: float = 1e-4) -> dict:
    """The harness's verdict on one solution: correct when every trial's outputs match."""
    import torch

    row = {"task": task_path, "solution": solution_path, "correct": False, "trials_passed": 0,
           "reason": "", "max_abs_diff": None}
    try:
        task = _load(task_path, "kernelbench_task")
        solution = _load(solution_path, "kernelbench_solution")
        _seed(SEED)
        init_inputs = [_to(x, device) for x in task.get_init_inputs()]
        with torch.no_grad():
            _seed(SEED)
            reference = task.Model(*init_inputs).to(device)
            _seed(SEED)
            candidate = solution.ModelNew(*init_inputs).to(device)
        _seed(SEED)
        trial_seeds = [int(torch.randint(0, 2**32 - 1, (1,)).item()) for _ in range(trials)]
        worst = 0.0
        with torch.no_grad():
            for k, trial_seed in enumerate(trial_seeds):
                _seed(trial_seed)
                inputs = [_to(x, device) for x in task.get_inputs()]
                _seed(trial_seed)
                expected = _outputs(reference(*inputs))
                _seed(trial_seed)
                got = _outputs(candidate(*inputs))
                if len(got) != len(expected):
                    row["reason"] = (f"trial {k}: {len(got)} outputs, the reference has "
                                     f"{len(expected)}")
                    return row
                for i, (e, g) in enumerate(zip(expected, got)):
                    if not isinstance(e, torch.Tensor):
                        continue
                    if not isinstance(g, torch.Tensor) or g.shape != e.shape:
                        shape = tuple(g.shape) if isinstance(g, torch.Tensor) else type(g).__name__
                        row["reason"] = (f"trial {k}: output {i} has shape {shape}, the "
                                         f"reference {tuple(e.shape)}")
                        return row
                    if e.numel():
                        diff = (g.double() - e.double()).abs().max().item()
                        worst = max(worst, diff) if diff == diff else float("nan")
                    if not torch.allclose(g, e, atol=atol, rtol=rtol):
                        row["max_abs_diff"] = worst
                        row["reason"] = (f"trial {k}: output {i} differs (max abs diff "
                                         f"{worst:.3g}, atol {atol:g}, rtol {rtol:g})")
                        return row
                row["trials_passed"] = k + 1
        row.update(correct=True, max_abs_diff=worst)
    except Exception as e:  # the harness counts any failure as incorrect
        where = traceback.extract_tb(e.__traceback__)[-1]
        row["reason"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''} " \
                        f"({where.filename.rsplit('/', 1)[-1]}:{where.lineno})"
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m drtriton.kernelbench_protocol",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="TASK.py SOLUTION.py pairs")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--out", default="-", help="JSONL file for the rows (default: stdout)")
    args = parser.parse_args(argv)
    if len(args.paths) % 2:
        parser.error("give TASK.py SOLUTION.py pairs: an odd number of paths")
    out = sys.stdout if args.out == "-" else open(args.out, "w")
    try:
        for task, solution in zip(args.paths[::2], args.paths[1::2]):
            row = check(task, solution, args.device, args.trials, args.atol, args.rtol)
            out.write(json.dumps(row) + "\n")
            out.flush()
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
