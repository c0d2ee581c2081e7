"""One table from several scripts/gpu_corpus.sh reports (gpu_corpus.json) of one session, where
the corpus took more than one device call: per folder, the programs judged, accepted, timed
(verdicts not flagged timing_noisy, nor degenerate: an output that does not depend on the
inputs, or a program random as written, reported apart), how many beat eager and torch.compile, and the geometric
means. A program judged in several reports counts once, from the last; a folder name ending
in `_rest` (a copy of some of a folder's programs) counts as that folder. `--bench ROWS.jsonl`
adds the plain rows of `drtriton bench` (scripts/gpu_search.sh) as folders named by suite (d02,
d05, ...); `--set NAME=F1,F2,...` adds a row over those folders together. `--kinds` adds a table
by kind of program (a ConvTranspose "convT", else a convolution "conv", else a Linear, matmul,
bmm, einsum or @ "gemm", else "other", read from tests/programs/real/FOLDER/NAME.py),
`--against OLD.json` compares, over the programs timed in both, with an earlier report, and
`--programs` lists every program: its speedups and its share of the machine's limit (the
reports' limit_fraction: the roofline's time over the solution's). The folder tables give the
median share over the accepted solutions that have one.

    python3 bench/corpus_combine.py REPORT.json [REPORT.json ...] [--bench ROWS.jsonl]
        [--set bench=fused,models,d02,d05] [--kinds] [--against OLD.json] [--programs]
"""
import argparse
import json
import math
import os
import re
import statistics
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from drtriton.verifier import DEGENERATE_FLAGS  # noqa: E402


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def verdicts(paths):
    """{folder/name: verdict} of the corpus reports, the last one winning."""
    programs = {}
    for path in paths:
        for name, p in json.load(open(path))["programs"].items():
            if p.get("verdict"):
                folder, rest = name.split("/", 1)
                programs[folder.removesuffix("_rest") + "/" + rest] = {
                    **p["verdict"], "limit_fraction": p.get("limit_fraction")}
    return programs


def bench_verdicts(path):
    """{suite/id: verdict-like dict} of the plain rows of drtriton bench's results."""
    rows = {}
    for line in open(path):
        r = json.loads(line)
        if r.get("run", "").endswith("_plain"):
            rows[r["id"][:3] + "/" + r["id"]] = {
                "passed": bool(r["passed"]), "speedup_eager": r.get("speedup_eager"),
                "speedup_compile": r.get("speedup_compile"), "limit_fraction": r.get("limit_fraction"),
                "flags": (["timing_noisy"] if r.get("timing_noisy") else [])
                + (["degenerate"] if r.get("degenerate") else [])}
    return rows


# Flags of a program whose verdict says nothing of its kernels' speed, the verifier's and drtriton
# bench's `degenerate`: never counted as a win.
DEGENERATE = DEGENERATE_FLAGS | {"degenerate"}


def degenerate(v):
    return bool(DEGENERATE & set(v.get("flags") or []))


def timed(judged):
    return [v for v in judged if v["passed"] and "timing_noisy" not in (v.get("flags") or [])
            and not degenerate(v) and v.get("speedup_compile")]


def row(label, judged):
    t = timed(judged)
    eager = [v["speedup_eager"] for v in t]
    compiled = [v["speedup_compile"] for v in t]
    share = lambda xs: f"{sum(x > 1 for x in xs)} ({100 * sum(x > 1 for x in xs) / max(1, len(xs)):.0f}%)"
    limits = [v["limit_fraction"] for v in judged if v["passed"] and v.get("limit_fraction")]
    limit = f"{100 * statistics.median(limits):.3g}%" if limits else "-"
    print(f"| {label} | {len(judged)} | {sum(v['passed'] for v in judged)} | {len(t)} | {share(eager)} "
          f"| {geomean(eager):.2f}x | {share(compiled)} | {geomean(compiled):.3f}x | {limit} |")


def kind(name):
    source = open(os.path.join(ROOT, "tests", "programs", "real", name + ".py")).read()
    if re.search(r"ConvTranspose|conv_transpose", source):
        return "convT"
    if re.search(r"Conv[123]d|conv[123]d", source):
        return "conv"
    return "gemm" if re.search(r"Linear|matmul|bmm|einsum|@", source) else "other"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--bench", action="append", default=[])
    parser.add_argument("--set", action="append", default=[], metavar="NAME=F1,F2")
    parser.add_argument("--kinds", action="store_true")
    parser.add_argument("--against")
    parser.add_argument("--programs", action="store_true")
    args = parser.parse_args()
    programs = verdicts(args.reports)
    corpus = dict(programs)
    for path in args.bench:
        programs.update(bench_verdicts(path))
    in_folder = lambda folders: [v for n, v in programs.items() if n.split("/")[0] in folders]
    print("| folder | judged | accepted | timed | faster than eager | geomean vs eager "
          "| faster than torch.compile | geomean vs torch.compile | share of the limit (median) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    folders = sorted({n.split("/")[0] for n in programs})
    for folder in folders:
        row(folder, in_folder({folder}))
    for spec in args.set:
        label, members = spec.split("=", 1)
        row(label, in_folder(set(members.split(","))))
    row("all", list(programs.values()))
    apart = sorted(n for n, v in programs.items() if v["passed"] and degenerate(v))
    if apart:
        print(f"\ndegenerate, left out of the timed columns: {', '.join(apart)}")
    if args.kinds:
        by_kind = {}
        for name, v in corpus.items():
            by_kind.setdefault(kind(name), []).append(v)
        print("\n| kind | programs timed | faster than torch.compile | geomean vs torch.compile "
              "| geomean vs eager |")
        print("| --- | --- | --- | --- | --- |")
        for k in sorted(by_kind):
            t = timed(by_kind[k])
            print(f"| {k} | {len(t)} | {sum(v['speedup_compile'] > 1 for v in t)} "
                  f"| {geomean([v['speedup_compile'] for v in t]):.2f}x "
                  f"| {geomean([v['speedup_eager'] for v in t]):.2f}x |")
    if args.against:
        old = verdicts([args.against])
        now = {n: v for n, v in corpus.items() if v in timed([v])}
        before = {n: v for n, v in old.items() if v in timed([v])}
        both = sorted(set(now) & set(before))
        faster = lambda d: sum(d[n]["speedup_compile"] > 1 for n in both)
        ratio = lambda n: now[n]["speedup_compile"] / before[n]["speedup_compile"]
        print(f"\nagainst {os.path.basename(args.against)}, {len(both)} programs timed in both: "
              f"faster than torch.compile {faster(now)} (before {faster(before)}), geomean vs "
              f"torch.compile {geomean([now[n]['speedup_compile'] for n in both]):.3f}x "
              f"(before {geomean([before[n]['speedup_compile'] for n in both]):.3f}x)")
        for n in sorted(both, key=ratio):
            if abs(math.log(ratio(n))) > math.log(1.25):
                print(f"  {n}: {before[n]['speedup_compile']:.2f}x -> {now[n]['speedup_compile']:.2f}x")
    if args.programs:
        speedup = lambda x: f"{x:.2f}x" if isinstance(x, (int, float)) else "-"  # noqa: E731
        print("\n| program | accepted | vs eager | vs torch.compile | share of the limit |")
        print("| --- | --- | --- | --- | --- |")
        for name, v in sorted(programs.items()):
            noisy = (" (noisy)" if "timing_noisy" in (v.get("flags") or []) else "") + \
                (" (degenerate)" if degenerate(v) else "")
            limit = v.get("limit_fraction")
            print(f"| {name} | {'yes' if v['passed'] else 'no'} | {speedup(v.get('speedup_eager'))}{noisy} "
                  f"| {speedup(v.get('speedup_compile'))} "
                  f"| {f'{100 * limit:.3g}%' if limit else '-'} |")


if __name__ == "__main__":
    main()
