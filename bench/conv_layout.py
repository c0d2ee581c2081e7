"""Convolutions in the NCHW and the channels-last layout on the GPU (issue 16): each conv
program of tests/programs/real/fused (conv*, convtranspose*) is converted twice by
`drtriton convert --no-verify` (CodegenKnobs::layout nchw and channels_last, set through
`--knob layout=...`), and both solutions are judged by one `drtriton serve --device cuda`
(one worker, so timings do not overlap; the task cache times each reference once). Prints a
table, rewritten in --out after every program: program, verdict per layout, median ms of
eager, torch.compile, the nchw and the channels-last solution, speedups vs compile, and the
geometric means over the programs both layouts passed. Programs not started within
--budget seconds are listed under the table.

    source scripts/gpu_build.sh
    python3 bench/conv_layout.py --out FILE.md [--limit N] [--skip N] [--match conv3d]
        [--timeout 120] [--budget SECONDS]
    smoke test here: TRITON_INTERPRET=1 .venv/bin/python bench/conv_layout.py --device cpu \
        --dir tests/python/programs/convert --match conv_bias --timeout 600
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
LAYOUTS = ("nchw", "channels_last")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="also write the table (markdown) here")
    parser.add_argument("--limit", type=int, default=12, help="programs at most (default 12)")
    parser.add_argument("--skip", type=int, default=0, help="skip the first N programs")
    parser.add_argument("--match", default="", help="only programs whose name contains this")
    parser.add_argument("--dir", default=os.path.join(ROOT, "tests", "programs", "real", "fused"),
                        help="where the conv*.py programs are")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                        help="cpu: a smoke test in Triton's interpreter (small programs only)")
    parser.add_argument("--timeout", type=int, default=120,
                        help="seconds per judged solution (the service's run timeout)")
    parser.add_argument("--budget", type=float, default=10**9,
                        help="start no program after this many seconds")
    args = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(args.dir, "conv*.py")))
    paths = [p for p in paths if args.match in os.path.basename(p)][args.skip:args.skip + args.limit]
    work = os.path.join("/tmp", f"drtriton-conv-layout-{os.getpid()}")
    os.makedirs(work, exist_ok=True)

    start = time.time()
    rows, ratios, skipped = [], {layout: [] for layout in LAYOUTS}, []
    header = ["program", "correct (nchw / cl)", "eager ms", "compile ms", "nchw ms",
              "channels_last ms", "nchw vs compile", "cl vs compile"]
    table, summary = markdown_table(header, []), "no program"
    # The table is rewritten after each program, so a run stopped at its deadline keeps
    # what it judged.
    with judging_service(args, ready_s=300) as service:
        for path, name in within_budget(paths, args.budget, start, skipped):
            task = open(path).read()
            solutions = convert_variants(path, work, "layout", LAYOUTS)
            verdict, eager, comp, ms, speed = [], None, None, {}, {}
            for layout in LAYOUTS:
                source, error = solutions[layout]
                if source is None:
                    verdict.append("convert failed: " + error)
                    continue
                # torch.compile is timed once, with the first layout's solution.
                item = {"task": task, "candidate": source,
                        "options": {"device": args.device, "compile": comp is None}}
                v = service.post("/verify_batch", {"items": [item]})["verdicts"][0]
                verdict.append("ok" if v["passed"] else
                               f"rejected at {v.get('failed_stage')}: {(v.get('reason') or '')[:80]}")
                eager = eager or median_ms(v, "eager")
                comp = comp or median_ms(v, "compile")
                ms[layout] = median_ms(v, "candidate") if v["passed"] else None
            for layout in LAYOUTS:
                speed[layout] = comp / ms[layout] if comp and ms.get(layout) else None
            if all(speed[layout] for layout in LAYOUTS):
                for layout in LAYOUTS:
                    ratios[layout].append(speed[layout])
            rows.append([name, " / ".join(verdict), fmt(eager, "{:.4f}"), fmt(comp, "{:.4f}"),
                         fmt(ms.get("nchw"), "{:.4f}"), fmt(ms.get("channels_last"), "{:.4f}"),
                         *(fmt(speed[layout], "{:.2f}x") for layout in LAYOUTS)])
            summary = (f"geometric mean vs torch.compile over {len(ratios['nchw'])} programs both "
                       f"passed: nchw {geomean(ratios['nchw']):.3f}x, channels_last "
                       f"{geomean(ratios['channels_last']):.3f}x ({time.time() - start:.0f} s in all)")
            summary = with_skipped(summary, skipped, args.budget)
            table = markdown_table(header, rows)
            write_text(args.out, table + "\n\n" + summary + "\n")
    print(f"\nconv_layout\n{table}\n\n{summary}")

if __name__ == "__main__":
    main()
