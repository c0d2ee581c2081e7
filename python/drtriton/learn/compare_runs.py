"""Several RL runs on one figure: the twins of a comparison, or seeds of one rule.

    python -m drtriton.learn.compare_runs RUN [RUN ...] --out runs.png

Each RUN is an output folder of `drtriton.learn.rl` (its metrics.jsonl). The panels, against
the step: the training samples' pass rate, their faster-than-eager share, the development
pass rate (the curriculum's measure), the KL to the warm-up, and the level; a run is labelled
by its folder's name.
"""

import argparse
import json
import os
import sys

PANELS = [("pass_rate", "training pass rate"), ("faster_than_eager", "faster than eager"),
          ("dev_pass", "development pass rate\n(each level its own line)"),
          ("kl", "KL to warm-up"), ("level", "level")]


def read_metrics(run: str) -> list[dict]:
    path = os.path.join(run, "metrics.jsonl")
    if not os.path.isfile(path):
        raise SystemExit(f"{path}: no such file (is {run} an RL run folder?)")
    records = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise SystemExit(f"{path}:{number}: not JSON ({e.msg})")
    return records


def plot(runs: dict[str, list[dict]], out: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(len(PANELS), 1, figsize=(8, 2.2 * len(PANELS)), sharex=True)
    for ax, (key, label) in zip(axes, PANELS):
        for index, (name, records) in enumerate(runs.items()):
            points = [(r["step"], r[key], r.get("level")) for r in records
                      if r.get(key) is not None]
            # development rates of different levels are not one curve: a line per level
            for level in sorted({p[2] for p in points}, key=str) if key == "dev_pass" else [None]:
                line = [p[:2] for p in points if key != "dev_pass" or p[2] == level]
                ax.plot(*zip(*line), color=f"C{index}", marker="o" if key == "dev_pass" else ".",
                        label=name if key == PANELS[0][0] else None,
                        drawstyle="steps-post" if key == "level" else "default")
        ax.set_ylabel(label, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, ncol=min(4, len(runs)))
    axes[-1].set_xlabel("step")
    fig.tight_layout()
    tmp = out + ".tmp.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, out)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m drtriton.learn.compare_runs",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="RL run folders")
    parser.add_argument("--out", required=True, help="the PNG to write")
    args = parser.parse_args(argv)
    runs = {os.path.basename(os.path.normpath(run)): read_metrics(run) for run in args.runs}
    if len(runs) < len(args.runs):
        raise SystemExit("two runs share a folder name: their lines could not be told apart")
    plot(runs, args.out)
    print(f"wrote {args.out} ({len(runs)} runs)")


if __name__ == "__main__":
    sys.exit(main())
