"""Where a solution's GPU time goes, kernel by kernel, beside eager's and torch.compile's:
each program (KernelBench format) and its solutions (ModelNew, e.g. from `drtriton convert
--no-verify`; several, comma-separated, to compare codegen knobs) run under torch.profiler
on CUDA, and the GPU time of each kernel is summed
over the profiled forwards. Prints, per program, the three totals and each one's kernels
(milliseconds a forward, the largest first), so that a gap to torch.compile can be put on
the kernel that makes it. No L2 flush between forwards: the totals are a little under the
verifier's timings.

    python3 bench/kernel_profile.py PROGRAM.py SOLUTION.py[,SOLUTION2.py] [PROGRAM.py ...]
        [--runs 20] [--top 6] [--no-compile] [--out FILE.md]

The report ends with a table of the totals, a program a row, and each solution against the
first (with --no-compile, torch.compile is left out: a layout comparison over many programs
then costs seconds a program, not an Inductor compile each).
    (scripts/gpu_profile.sh converts programs under two layouts and runs this on them)
"""
import argparse
import importlib.util
import math
import os
import sys

import torch


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_times(fn, runs):
    """{kernel name: GPU ms a forward}, from `runs` profiled forwards after three warm ones."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    times = {}
    for event in prof.key_averages():
        us = getattr(event, "self_device_time_total", 0) or 0
        if us > 0:
            times[event.key] = times.get(event.key, 0.0) + us / 1e3 / runs
    return times


def profile(program, solutions, runs, compile=True):
    """{"eager" | "compile" | a solution's file name: kernel_times}."""
    task = load(program, "task")
    torch.manual_seed(0)
    model = task.Model(*task.get_init_inputs()).cuda()
    models = [("eager", model)] + ([("compile", torch.compile(model))] if compile else [])
    for i, solution in enumerate(solutions):
        new = load(solution, f"solution{i}").ModelNew(*task.get_init_inputs()).cuda()
        new.load_state_dict(model.state_dict())
        models.append((os.path.basename(solution), new))
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in task.get_inputs()]
    with torch.no_grad():
        return {name: kernel_times(lambda m=m: m(*inputs), runs) for name, m in models}


def totals_table(summary):
    """Markdown: a program a row, each run's total ms, each later solution against the first,
    and the geometric mean of those ratios over the programs."""
    if not summary:
        return []
    runs = list(summary[0][1])
    solutions = [r for r in runs if r not in ("eager", "compile")]
    head = runs + [f"{s} vs {solutions[0]}" for s in solutions[1:]]
    rows = ["| program | " + " | ".join(head) + " |", "|" + " --- |" * (len(head) + 1)]
    logs = {s: [] for s in solutions[1:]}
    for name, totals in summary:
        cells = [f"{totals[r]:.3f}" if r in totals else "-" for r in runs]
        for s in solutions[1:]:
            if s in totals and solutions[0] in totals:
                ratio = totals[solutions[0]] / max(totals[s], 1e-9)
                logs[s].append(math.log(ratio))
                cells.append(f"{ratio:.2f}x")
            else:
                cells.append("-")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    means = [f"{s} vs {solutions[0]}: {math.exp(sum(v) / len(v)):.3f}x over {len(v)}"
             for s, v in logs.items() if v]
    return ["", "## Totals (ms a forward)", ""] + rows + ([""] + ["geomean " + m for m in means]
                                                        if means else [])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", help="PROGRAM.py SOLUTION.py[,SOLUTION2.py], repeated")
    parser.add_argument("--runs", type=int, default=20, help="profiled forwards (default 20)")
    parser.add_argument("--top", type=int, default=6, help="kernels listed per run (default 6)")
    parser.add_argument("--no-compile", action="store_true", help="leave torch.compile out")
    parser.add_argument("--out", default=None, help="also write the report (markdown) here")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("expected PROGRAM.py SOLUTION.py pairs")
    if not torch.cuda.is_available():
        sys.exit("kernel_profile: needs a CUDA GPU")
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, {args.runs} forwards\n"]
    base = "eager" if args.no_compile else "compile"
    summary = []  # (program, {run: total ms})
    for program, solution in zip(args.pairs[::2], args.pairs[1::2]):
        name = os.path.basename(program)[:-3]
        try:
            runs = profile(program, solution.split(","), args.runs, not args.no_compile)
        except Exception as e:  # noqa: BLE001 - one failing program must not stop the rest
            lines.append(f"## {name}\nfailed: {type(e).__name__}: {e}\n")
            continue
        totals = {k: sum(v.values()) for k, v in runs.items()}
        # Columns by what a solution is (NAME.baseline.py: "baseline"), the same in every row.
        label = lambda k: k[len(name) + 1:-3] if k.startswith(name + ".") and k.endswith(".py") else k
        summary.append((name, {label(k): t for k, t in totals.items()}))
        block = [f"## {name}", ", ".join(
            f"{k} {t:.3f} ms" + ("" if k in ("eager", "compile") else
                                 f" ({totals[base] / max(t, 1e-9):.2f}x {base})")
            for k, t in totals.items())]
        for kind, times in runs.items():
            block.append(f"- {kind}:")
            block += [f"  - {ms:.3f} ms  {kernel[:110]}"
                      for kernel, ms in sorted(times.items(), key=lambda kv: -kv[1])[:args.top]]
        print("\n".join(block) + "\n", flush=True)
        lines += block + [""]
    table = totals_table(summary)
    print("\n".join(table), flush=True)
    lines += table
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
