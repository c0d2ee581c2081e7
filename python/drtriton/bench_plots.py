"""Plots of a `drtriton bench` folder, from its rows alone (OUT/results.jsonl) and the
ceilings it measured (OUT/ceilings.json): the C++ side judges and counts, this file draws.

    python -m drtriton.bench_plots OUT     ->  OUT/plots/{speedups,per_program,roofline}.png

- speedups.png: the distribution of speedups of the correct programs, against eager and
  against torch.compile (log scale; 1x marked).
- per_program.png: every program's speedup against both baselines, one bar pair each;
  programs that are not correct, or whose timing was noisy, show no bar; degenerate ones
  are left out.
- roofline.png: each correct program at its arithmetic intensity (FLOPs over the bytes it
  must move) and its achieved FLOP/s, under the measured roofs.
"""
from __future__ import annotations

import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from drtriton.ceilings import product_rate  # noqa: E402

BASELINES = [("speedup_eager", "eager", "#2e86c1"), ("speedup_compile", "torch.compile", "#e67e22")]


def load_rows(out):
    """The rows to draw: degenerate programs left out; a noisy timing's (timing_noisy: other
    GPU work overlapped it) speedups and times dropped, as the summary does not count them."""
    path = os.path.join(out, "results.jsonl")
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    for r in rows:
        if r.get("timing_noisy"):
            r.update(speedup_eager=None, speedup_compile=None, timing_ms=None)
    return sorted((r for r in rows if not r.get("degenerate")), key=lambda r: r["id"])


def speedups(rows, key):
    return [r[key] for r in rows if r.get("passed") and isinstance(r.get(key), (int, float)) and r[key] > 0]


def plot_distribution(rows, path):
    fig, ax = plt.subplots(figsize=(7, 4))
    every = [s for key, _, _ in BASELINES for s in speedups(rows, key)]
    if every:
        lo, hi = math.log10(min(every)), math.log10(max(every))
        bins = [10 ** (lo + (hi - lo + 1e-9) * i / 20) for i in range(21)]
        for key, name, color in BASELINES:
            values = speedups(rows, key)
            if values:
                ax.hist(values, bins=bins, alpha=0.6, color=color, label=f"against {name} ({len(values)})")
        ax.set_xscale("log")
        ax.legend()
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xlabel("speedup (higher is better)")
    ax.set_ylabel("correct programs")
    ax.set_title("Speedups of the correct programs")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_per_program(rows, path):
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(rows) + 2), 4.5))
    width = 0.4
    for k, (key, name, color) in enumerate(BASELINES):
        xs, ys = [], []
        for i, r in enumerate(rows):
            if r.get("passed") and isinstance(r.get(key), (int, float)) and r[key] > 0:
                xs.append(i + (k - 0.5) * width)
                ys.append(r[key])
        ax.bar(xs, ys, width=width, color=color, label=f"against {name}")
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["id"] for r in rows], rotation=70, ha="right", fontsize=7)
    ax.set_ylabel("speedup")
    ax.set_title("Per program (no bar: not correct)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_roofline(rows, ceilings, path):
    fig, ax = plt.subplots(figsize=(7, 5))
    points = []
    for r in rows:
        t = ((r.get("timing_ms") or {}).get("candidate") or {}).get("median")
        if r.get("passed") and t and r.get("flops") and r.get("io_bytes"):
            points.append((r["flops"] / r["io_bytes"], r["flops"] / (t / 1e3)))
    if ceilings and points:
        bw, peak = ceilings["bytes_per_s"], product_rate(ceilings)
        lo = min(p[0] for p in points + [(peak / bw / 100, 0)]) / 2
        hi = max(p[0] for p in points + [(peak / bw * 10, 0)]) * 2
        xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
        ax.plot(xs, [min(peak, bw * x) for x in xs], color="black",
                label=f"roof: {bw / 1e12:.2f} TB/s, {peak / 1e12:.1f} TFLOP/s fp32-accurate ({ceilings['device']})")
        conv = ceilings.get("conv_flops_per_s", peak)
        if conv > peak:  # cuDNN's TF32: the roof of programs that are mostly convolutions
            ax.plot(xs, [min(conv, bw * x) for x in xs], color="black", linestyle="--",
                    label=f"roof of convolutions: {conv / 1e12:.1f} TFLOP/s (TF32)")
    if points:
        ax.scatter([p[0] for p in points], [p[1] for p in points], color="#27ae60", s=18,
                   label=f"correct programs ({len(points)})")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.legend(fontsize=8)
    ax.set_xlabel("arithmetic intensity (FLOP per byte that must move)")
    ax.set_ylabel("achieved FLOP/s")
    ax.set_title("Roofline")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        sys.exit("usage: python -m drtriton.bench_plots OUT")
    out = argv[0]
    try:
        rows = load_rows(out)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"drtriton bench_plots: {out}: {e}")
    ceilings = None
    if os.path.exists(os.path.join(out, "ceilings.json")):
        with open(os.path.join(out, "ceilings.json")) as f:
            ceilings = json.load(f)
    plots = os.path.join(out, "plots")
    os.makedirs(plots, exist_ok=True)
    plot_distribution(rows, os.path.join(plots, "speedups.png"))
    plot_per_program(rows, os.path.join(plots, "per_program.png"))
    plot_roofline(rows, ceilings, os.path.join(plots, "roofline.png"))
    print(f"drtriton bench_plots: {plots}/speedups.png, per_program.png, roofline.png")


if __name__ == "__main__":
    main()
