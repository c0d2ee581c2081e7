"""Plots of one or more synthetic datasets, side by side, from the numbers `drtriton
synth-stats` computed (the C++ side counts; this file only draws).
Usage: python -m drtriton.synth_plots stats.json DIR"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = ["#2e86c1", "#e67e22", "#27ae60", "#8e44ad"]


def label(d, i):
    return f"[{i + 1}] {os.path.basename(d['source'])}"


def histogram(ax, datasets, key, xlabel):
    """Share of programs per bucket, one line per dataset."""
    for i, d in enumerate(datasets):
        xs = sorted(int(k) for k in d[key])
        n = max(d["programs"], 1)
        ax.plot(xs, [d[key][str(x)] / n for x in xs], marker="o", color=COLORS[i % 4], label=label(d, i))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of programs")
    ax.legend(fontsize=8)


def main(stats_path: str, out_dir: str) -> None:
    stats = json.load(open(stats_path))
    ops, datasets = stats["ops"], stats["datasets"]
    k = len(datasets)
    written = []

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, name), dpi=110)
        plt.close(fig)
        written.append(os.path.join(out_dir, name))

    fig, ax = plt.subplots(figsize=(6, 4))
    names = ["anchor", "layout op", "degenerate"]
    width = 0.8 / k
    for i, d in enumerate(datasets):
        n = max(d["programs"], 1)
        shares = [d["with_anchor"] / n, d["with_layout"] / n, d["degenerate"] / n]
        ax.bar([j + i * width for j in range(3)], shares, width, color=COLORS[i % 4], label=label(d, i))
    ax.set_xticks([j + width * (k - 1) / 2 for j in range(3)], names)
    ax.set_ylabel("share of programs containing one")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("Anchor, layout-op and degenerate shares")
    save(fig, "shares.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    histogram(ax, datasets, "length", "ops per program (compute and layout)")
    ax.set_title("Program length")
    save(fig, "length.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    histogram(ax, datasets, "output_log2", "log2 of the output's element count")
    ax.set_title("Output size")
    save(fig, "output_size.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    histogram(ax, datasets, "difficulty", "difficulty (compute operators)")
    ax.set_title("Difficulty")
    save(fig, "difficulty.png")

    fig, ax = plt.subplots(figsize=(18, 5))
    width = 0.8 / k
    for i, d in enumerate(datasets):
        n = max(d["programs"], 1)
        shares = [d["programs_with"].get(op, 0) / n for op in ops]
        ax.bar([j + i * width for j in range(len(ops))], shares, width, color=COLORS[i % 4], label=label(d, i))
    ax.set_xticks([j + width * (k - 1) / 2 for j in range(len(ops))], ops, rotation=90, fontsize=7)
    ax.set_ylabel("share of programs containing the operator")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.set_title("Operator coverage (a missing bar: absent)")
    save(fig, "coverage.png")

    first = datasets[0]
    present = [op for op in ops if first["programs_with"].get(op, 0) > 0]
    index = {op: i for i, op in enumerate(present)}
    grid = [[0] * len(present) for _ in present]
    for a, b, c in first["pairs"]:
        if a in index and b in index:
            grid[index[a]][index[b]] = grid[index[b]][index[a]] = c
    fig, ax = plt.subplots(figsize=(14, 12))
    im = ax.imshow(grid, cmap="viridis")
    ax.set_xticks(range(len(present)), present, rotation=90, fontsize=6)
    ax.set_yticks(range(len(present)), present, fontsize=6)
    ax.set_title(f"Operator co-occurrence in {label(first, 0)} (programs containing both)")
    fig.colorbar(im, ax=ax, shrink=0.7)
    save(fig, "cooccurrence.png")
    print(f"plots: {', '.join(written)}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m drtriton.synth_plots stats.json DIR")
    main(sys.argv[1], sys.argv[2])
