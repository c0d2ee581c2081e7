"""Plots of a synthetic dataset from the numbers `drtriton synth-stats` computed (the C++
side counts; this file only draws). Usage: python -m drtriton.synth_plots stats.json DIR"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(stats_path: str, out_dir: str) -> None:
    stats = json.load(open(stats_path))
    ops = stats["ops"]
    n = stats["programs"]

    fig, ax = plt.subplots(figsize=(18, 5))
    counts = [stats["programs_with"].get(op, 0) for op in ops]
    ax.bar(range(len(ops)), counts, color=["#c0392b" if c == 0 else "#2e86c1" for c in counts])
    ax.set_xticks(range(len(ops)), ops, rotation=90, fontsize=7)
    ax.set_ylabel("programs containing the operator")
    ax.set_title(f"Operator coverage of {n} programs (red: absent)")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "coverage.png"), dpi=110)

    fig, ax = plt.subplots(figsize=(6, 4))
    ks = sorted(int(k) for k in stats["difficulty"])
    ax.bar(ks, [stats["difficulty"][str(k)] for k in ks], color="#2e86c1")
    ax.set_xlabel("difficulty (compute operators)")
    ax.set_ylabel("programs")
    ax.set_title("Difficulty histogram")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "difficulty.png"), dpi=110)

    present = [op for op in ops if stats["programs_with"].get(op, 0) > 0]
    index = {op: i for i, op in enumerate(present)}
    grid = [[0] * len(present) for _ in present]
    for a, b, c in stats["pairs"]:
        if a in index and b in index:
            grid[index[a]][index[b]] = grid[index[b]][index[a]] = c
    fig, ax = plt.subplots(figsize=(14, 12))
    im = ax.imshow(grid, cmap="viridis")
    ax.set_xticks(range(len(present)), present, rotation=90, fontsize=6)
    ax.set_yticks(range(len(present)), present, fontsize=6)
    ax.set_title("Operator co-occurrence (programs containing both)")
    fig.colorbar(im, ax=ax, shrink=0.7)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "cooccurrence.png"), dpi=110)
    print(f"plots: {', '.join(os.path.join(out_dir, f) for f in ('coverage.png', 'difficulty.png', 'cooccurrence.png'))}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m drtriton.synth_plots stats.json DIR")
    main(sys.argv[1], sys.argv[2])
