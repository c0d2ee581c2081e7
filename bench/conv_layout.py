"""Convolutions in the NCHW and the channels-last layout on the GPU (issue 16): each conv
program of tests/programs/real/fused (conv*, convtranspose*) is converted twice by
`drtriton convert --no-verify` (CodegenKnobs::layout nchw and channels_last, set through
`--knob layout=...`), and both solutions are judged by one
`drtriton serve --device cuda` batch (one worker per GPU, so timings do not overlap; the
task cache times each reference once). Prints a table: program, verdict per layout, median
ms of eager, torch.compile, the nchw and the channels-last solution, speedups vs compile,
and the geometric means over the programs both layouts passed.

    source scripts/gpu_build.sh
    python3 bench/conv_layout.py --out FILE.md [--limit N] [--skip N] [--match conv3d]
        [--timeout 120]
    smoke test here: TRITON_INTERPRET=1 .venv/bin/python bench/conv_layout.py --device cpu \
        --dir tests/python/programs/convert --match conv_bias --timeout 600
"""
import argparse
import glob
import json
import math
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")
sys.path.insert(0, os.path.join(ROOT, "python"))
from knob_variants import convert_variants  # noqa: E402 (bench/, the script's folder)
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
    args = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(args.dir, "conv*.py")))
    paths = [p for p in paths if args.match in os.path.basename(p)][args.skip:args.skip + args.limit]
    work = os.path.join("/tmp", f"drtriton-conv-layout-{os.getpid()}")
    os.makedirs(work, exist_ok=True)
    items, where, errors = [], [], {}
    start = time.time()
    for path in paths:
        name = os.path.basename(path)[:-3]
        task = open(path).read()
        solutions = convert_variants(path, work, "layout", LAYOUTS)
        for layout in LAYOUTS:
            source, error = solutions[layout]
            if source is None:
                errors[(name, layout)] = "convert failed: " + error
                continue
            items.append({"task": task, "candidate": source, "options": {"device": args.device}})
            where.append((name, layout))
    print(f"conv_layout: {len(items)} solutions of {len(paths)} programs converted in "
          f"{time.time() - start:.0f} s; judging", file=sys.stderr)
    from drtriton.service_client import Service
    with Service(BIN, "--device", args.device, "--workers-per-gpu", "1", "--run-timeout",
                 str(args.timeout), "--compile-timeout", str(args.timeout), cwd=ROOT,
                 ready_s=300) as service:
        verdicts = service.post("/verify_batch", {"items": items})["verdicts"] if items else []
    by = dict(zip(where, verdicts))

    def median(v, key):
        t = (v or {}).get("timing_ms") or {}
        return t[key]["median"] if isinstance(t.get(key), dict) else None

    fmt = lambda x: "-" if x is None else f"{x:.4f}"
    rows, ratios = [], {layout: [] for layout in LAYOUTS}
    for path in paths:
        name = os.path.basename(path)[:-3]
        verdict, eager, comp, ms, speed = [], None, None, {}, {}
        for layout in LAYOUTS:
            v = by.get((name, layout))
            if v is None:
                verdict.append(errors.get((name, layout), "not judged"))
                continue
            verdict.append("ok" if v["passed"] else
                           f"rejected at {v.get('failed_stage')}: {(v.get('reason') or '')[:80]}")
            eager = eager or median(v, "eager")
            comp = comp or median(v, "compile")
            ms[layout] = median(v, "candidate") if v["passed"] else None
        for layout in LAYOUTS:
            speed[layout] = comp / ms[layout] if comp and ms.get(layout) else None
        if all(speed[layout] for layout in LAYOUTS):
            for layout in LAYOUTS:
                ratios[layout].append(speed[layout])
        rows.append((name, " / ".join(verdict), fmt(eager), fmt(comp), fmt(ms.get("nchw")),
                     fmt(ms.get("channels_last")),
                     *("-" if speed[layout] is None else f"{speed[layout]:.2f}x" for layout in LAYOUTS)))
    header = ("| program | correct (nchw / cl) | eager ms | compile ms | nchw ms | channels_last ms "
              "| nchw vs compile | cl vs compile |\n| --- | --- | --- | --- | --- | --- | --- | --- |")
    table = header + "\n" + "\n".join("| " + " | ".join(r) + " |" for r in rows)
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
    summary = (f"geometric mean vs torch.compile over {len(ratios['nchw'])} programs both passed: "
               f"nchw {geo(ratios['nchw']):.3f}x, channels_last {geo(ratios['channels_last']):.3f}x "
               f"({time.time() - start:.0f} s in all)")
    print(f"\nconv_layout\n{table}\n\n{summary}")
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n\n" + summary + "\n")


if __name__ == "__main__":
    main()
