"""The machine's measured ceilings, for the roofline of `drtriton bench`: memory bandwidth (a
large copy: each byte read once and written once), fp32 FLOP/s (a large torch.mm with
TF32 off, the accuracy the verifier asks of matrix products) and TF32 FLOP/s (the same
product with TF32 on: cuDNN runs PyTorch's fp32 convolutions on TF32 tensor cores by
default, in eager and in a solution alike, so their FLOPs are bounded by that ceiling while
cudnn.allow_tf32 is on). A product can keep fp32's accuracy on TF32 tensor cores in three
passes (`tl.dot(..., input_precision="tf32x3")`, the verifier's fp32 bound holds), so the
other FLOPs are bounded by the faster of fp32 and a third of TF32 (`product_flops_per_s`). A
program's limit is then max(other_flops / product rate + conv_flops / conv ceiling,
io_bytes / bandwidth): the time no kernel can beat, with every input, parameter and output
moved exactly once (Graph::io_bytes); `limit_seconds` computes it and `limit_fraction` a
solution's share of it, as src/cli/bench_commands.cpp's `limit_fraction` does.

    python -m drtriton.ceilings --device cuda|cpu --out ceilings.json
"""
from __future__ import annotations

import argparse
import json
import os
import time

import torch


def _timed(fn, device, repeat):
    fn()  # warm-up: allocation, cuBLAS heuristics
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeat):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3
    t = time.perf_counter()
    for _ in range(repeat):
        fn()
    return time.perf_counter() - t


def measure(device_name: str) -> dict:
    device = torch.device(device_name)
    gpu = device.type == "cuda"
    n_copy = (1 << 28) if gpu else (1 << 24)  # fp32 elements: 1 GiB on a GPU, 64 MiB here
    src = torch.empty(n_copy, device=device).normal_()
    dst = torch.empty_like(src)
    seconds = _timed(lambda: dst.copy_(src), device, 20 if gpu else 5)
    bandwidth = 2 * src.numel() * src.element_size() * (20 if gpu else 5) / seconds
    del src, dst
    n = 8192 if gpu else 1024
    a = torch.randn(n, n, device=device)
    b = torch.randn(n, n, device=device)
    tf32 = torch.backends.cuda.matmul.allow_tf32
    repeat = 10 if gpu else 3
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        flops = 2 * n ** 3 * repeat / _timed(lambda: torch.mm(a, b), device, repeat)
        torch.backends.cuda.matmul.allow_tf32 = True
        tf32_flops = 2 * n ** 3 * repeat / _timed(lambda: torch.mm(a, b), device, repeat)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    conv_tf32 = gpu and torch.backends.cudnn.allow_tf32
    name = torch.cuda.get_device_name(device) if gpu else "cpu"
    return {"device": name, "bytes_per_s": bandwidth, "flops_per_s": flops,
            "tf32_flops_per_s": tf32_flops, "product_flops_per_s": max(flops, tf32_flops / 3),
            "conv_flops_per_s": tf32_flops if conv_tf32 else flops,
            "how": f"copy of {n_copy * 4 >> 20} MiB; fp32 mm {n}x{n}x{n}, TF32 off and on; "
                   f"convolutions on TF32: {conv_tf32} (torch.backends.cudnn.allow_tf32)"}


def product_rate(ceilings: dict) -> float:
    """FLOP/s of an fp32-accurate product: fp32's, or three-pass TF32's where that is faster
    (ceilings written before this key: from their TF32 rate)."""
    return ceilings.get("product_flops_per_s") or max(
        ceilings["flops_per_s"], ceilings.get("tf32_flops_per_s", 0) / 3)


def limit_seconds(work: dict, ceilings: dict) -> float:
    """The time no kernel can beat on `work` (drtriton check --work: flops, conv_flops,
    io_bytes) on the machine of `ceilings`."""
    conv = work["conv_flops"]
    compute = ((work["flops"] - conv) / product_rate(ceilings)
               + conv / ceilings.get("conv_flops_per_s", ceilings["flops_per_s"]))
    return max(compute, work["io_bytes"] / ceilings["bytes_per_s"])


def limit_fraction(work: dict, ceilings: dict, verdict: dict):
    """An accepted solution's share of its program's limit: limit_seconds over the median time
    of its verdict's timed runs; None where it was not accepted or not timed."""
    ms = ((verdict.get("timing_ms") or {}).get("candidate") or {}).get("median")
    return limit_seconds(work, ceilings) / (ms / 1e3) if verdict.get("passed") and ms else None


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m drtriton.ceilings", description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    c = measure(a.device)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(c, f, indent=1)
    os.replace(tmp, a.out)
    print(f"{c['device']}: {c['bytes_per_s'] / 1e12:.2f} TB/s, {c['flops_per_s'] / 1e12:.2f} TFLOP/s fp32, "
          f"{c['product_flops_per_s'] / 1e12:.2f} for fp32-accurate products, "
          f"{c['conv_flops_per_s'] / 1e12:.2f} for convolutions")


if __name__ == "__main__":
    main()
