"""Each solution's share of its program's limit, computed again with the current rule
(drtriton.ceilings.limit_fraction) in results written before it: a scripts/gpu_corpus.sh report
(its `ceilings` and each program's `work`) or drtriton bench rows (with the ceilings.json of
their run). Rewrites limit_fraction in place and prints each change.

    python3 bench/limit_shares.py REPORT.json
    python3 bench/limit_shares.py ROWS.jsonl --ceilings CEILINGS.json [--run RUN]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from drtriton.ceilings import limit_fraction  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--ceilings", help="the bench run's ceilings.json (rows only)")
    parser.add_argument("--run", help="only the rows of this run (rows only)")
    args = parser.parse_args()
    changed = []
    if args.results.endswith(".jsonl"):
        ceilings = json.load(open(args.ceilings))
        rows = [json.loads(line) for line in open(args.results)]
        for r in rows:
            if (not args.run or r.get("run") == args.run) and r.get("flops") is not None:
                new = limit_fraction(r, ceilings, r)
                changed.append((r["id"], r.get("limit_fraction"), new))
                r["limit_fraction"] = new
        text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    else:
        report = json.load(open(args.results))
        for name, p in report["programs"].items():
            if p.get("work") and report.get("ceilings"):
                new = limit_fraction(p["work"], report["ceilings"], p.get("verdict") or {})
                changed.append((name, p.get("limit_fraction"), new))
                p["limit_fraction"] = new
        text = json.dumps(report, indent=1) + "\n"
    with open(args.results + ".tmp", "w") as f:
        f.write(text)
    os.replace(args.results + ".tmp", args.results)
    for name, old, new in changed:
        if old != new:
            print(f"{name}: {old if old is None else f'{old:.4g}'} -> {new if new is None else f'{new:.4g}'}")


if __name__ == "__main__":
    main()
