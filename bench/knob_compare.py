"""Two or more values of one codegen knob on the GPU: each program of --dir matching --glob is
converted once per value (`drtriton convert --no-verify --knob NAME=VALUE`), and every
solution is judged by one `drtriton serve --device cuda` (one worker, so timings do not
overlap; the task cache times each reference once). Prints a table, rewritten in --out after
every program: program, verdict per value, median ms of eager, torch.compile and each
solution, each against torch.compile, and the geometric means over the programs every value
passed. Programs not started within --budget seconds are listed under the table.

    source scripts/gpu_build.sh
    python3 bench/knob_compare.py --knob sizes --values dynamic static --glob 'conv*.py' --out FILE.md
        [--limit N] [--skip N] [--match conv3d] [--timeout 120] [--budget SECONDS]
    (bench/conv_layout.py: --knob layout --values nchw channels_last --glob 'conv*.py')
    smoke test here: TRITON_INTERPRET=1 .venv/bin/python bench/knob_compare.py --device cpu \
        --knob sizes --values dynamic static --dir tests/python/programs/convert \
        --glob 'conv_bias*.py' --timeout 600
"""
import argparse
import glob
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from knob_variants import (convert_variants, fmt, geomean, judging_service,  # noqa: E402 (bench/)
                           markdown_table, median_ms, with_skipped, within_budget, write_text)


def main(knob=None, values=None, pattern="*.py"):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--knob", default=knob, required=knob is None, help="the codegen knob")
    parser.add_argument("--values", nargs="+", default=values, required=values is None,
                        help="its values, the first the baseline")
    parser.add_argument("--glob", default=pattern, help=f"programs of --dir (default {pattern})")
    parser.add_argument("--out", default=None, help="also write the table (markdown) here")
    parser.add_argument("--limit", type=int, default=12, help="programs at most (default 12)")
    parser.add_argument("--skip", type=int, default=0, help="skip the first N programs")
    parser.add_argument("--match", default="", help="only programs whose name contains this")
    parser.add_argument("--dir", default=os.path.join(ROOT, "tests", "programs", "real", "fused"),
                        help="where the programs are (default tests/programs/real/fused)")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                        help="cpu: a smoke test in Triton's interpreter (small programs only)")
    parser.add_argument("--timeout", type=int, default=120,
                        help="seconds per judged solution (the service's run timeout)")
    parser.add_argument("--budget", type=float, default=10**9,
                        help="start no program after this many seconds")
    args = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(args.dir, args.glob)))
    paths = [p for p in paths if args.match in os.path.basename(p)][args.skip:args.skip + args.limit]
    work = os.path.join("/tmp", f"drtriton-knob-{args.knob}-{os.getpid()}")
    os.makedirs(work, exist_ok=True)

    start = time.time()
    rows, ratios, skipped = [], {value: [] for value in args.values}, []
    header = (["program", f"correct ({' / '.join(args.values)})", "eager ms", "compile ms"]
              + [f"{value} ms" for value in args.values]
              + [f"{value} vs compile" for value in args.values])
    table, summary = markdown_table(header, []), "no program"
    # The table is rewritten after each program, so a run stopped at its deadline keeps
    # what it judged.
    with judging_service(args, ready_s=300) as service:
        for path, name in within_budget(paths, args.budget, start, skipped):
            task = open(path).read()
            solutions = convert_variants(path, work, args.knob, args.values)
            verdict, eager, comp, ms, speed = [], None, None, {}, {}
            for value in args.values:
                source, error = solutions[value]
                if source is None:
                    verdict.append("convert failed: " + error)
                    continue
                # torch.compile is timed once, with the first value's solution.
                item = {"task": task, "candidate": source,
                        "options": {"device": args.device, "compile": comp is None}}
                v = service.post("/verify_batch", {"items": [item]})["verdicts"][0]
                verdict.append("ok" if v["passed"] else
                               f"rejected at {v.get('failed_stage')}: {(v.get('reason') or '')[:80]}")
                eager = eager or median_ms(v, "eager")
                comp = comp or median_ms(v, "compile")
                ms[value] = median_ms(v, "candidate") if v["passed"] else None
            for value in args.values:
                speed[value] = comp / ms[value] if comp and ms.get(value) else None
            if all(speed[value] for value in args.values):
                for value in args.values:
                    ratios[value].append(speed[value])
            rows.append([name, " / ".join(verdict), fmt(eager, "{:.4f}"), fmt(comp, "{:.4f}"),
                         *(fmt(ms.get(value), "{:.4f}") for value in args.values),
                         *(fmt(speed[value], "{:.2f}x") for value in args.values)])
            done = len(ratios[args.values[0]])
            summary = (f"geometric mean vs torch.compile over {done} programs every value passed: "
                       + ", ".join(f"{value} {geomean(ratios[value]):.3f}x" for value in args.values)
                       + f" ({time.time() - start:.0f} s in all)")
            summary = with_skipped(summary, skipped, args.budget)
            table = markdown_table(header, rows)
            write_text(args.out, table + "\n\n" + summary + "\n")
    print(f"\nknob_compare {args.knob}\n{table}\n\n{summary}")


if __name__ == "__main__":
    main()
