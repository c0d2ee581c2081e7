"""One table from several scripts/gpu_corpus.sh reports (gpu_corpus.json) of one session, where
the corpus took more than one device call: per folder, the programs judged, accepted, timed
(verdicts not flagged timing_noisy), how many beat eager and torch.compile, and the geometric
means. A program judged in several reports counts once, from the last; a folder name ending
in `_rest` (a copy of some of a folder's programs) counts as that folder.

    python3 bench/corpus_combine.py REPORT.json [REPORT.json ...]
"""
import json
import math
import sys


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main(paths):
    programs = {}
    for path in paths:
        for name, p in json.load(open(path))["programs"].items():
            if p.get("verdict"):
                folder, rest = name.split("/", 1)
                programs[folder.removesuffix("_rest") + "/" + rest] = p
    folders = sorted({n.split("/")[0] for n in programs})
    print("| folder | judged | accepted | timed | faster than eager | geomean vs eager "
          "| faster than torch.compile | geomean vs torch.compile |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for folder in folders + [None]:
        judged = [p["verdict"] for n, p in programs.items()
                  if folder is None or n.startswith(folder + "/")]
        accepted = [v for v in judged if v["passed"]]
        timed = [v for v in accepted
                 if "timing_noisy" not in (v.get("flags") or []) and v.get("speedup_compile")]
        eager = [v["speedup_eager"] for v in timed]
        compiled = [v["speedup_compile"] for v in timed]
        share = lambda xs: f"{sum(x > 1 for x in xs)} ({100 * sum(x > 1 for x in xs) / max(1, len(xs)):.0f}%)"
        print(f"| {folder or 'all'} | {len(judged)} | {len(accepted)} | {len(timed)} | {share(eager)} "
              f"| {geomean(eager):.2f}x | {share(compiled)} | {geomean(compiled):.3f}x |")


if __name__ == "__main__":
    main(sys.argv[1:])
