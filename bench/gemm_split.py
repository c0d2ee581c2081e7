"""fp32 GEMM on tensor cores at fp32 accuracy, four ways, on the GPU: Triton's tf32x3 (the
compiler's Triton GEMM today), the same with TMA loads, and the operands split once into
TF32 hi and lo parts in memory (a pass before the product) so the K loop feeds three plain
TF32 products from shared memory without re-splitting every tile, with pointer loads and
with TMA loads. Prints one table (markdown): per shape and way, ms (median of
triton.testing.do_bench), TFLOP/s, and the largest error against the float64 truth relative
to the truth's largest value; cuBLAS fp32 and cuBLAS TF32 (one pass, inaccurate) beside.

    python3 bench/gemm_split.py [--shapes 8192x8192x8192,2048x8192x4096] [--out FILE]
"""
import argparse
import sys

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def _split_kernel(x_ptr, hi_ptr, lo_ptr, n, BLOCK: tl.constexpr):
    # hi keeps TF32's 10 mantissa bits (truncated: never overflows), lo = x - hi exactly.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    hi = (x.to(tl.uint32, bitcast=True) & 0xFFFFE000).to(tl.float32, bitcast=True)
    tl.store(hi_ptr + offs, hi, mask=mask)
    tl.store(lo_ptr + offs, x - hi, mask=mask)


def split(x):
    hi, lo = torch.empty_like(x), torch.empty_like(x)
    n = x.numel()
    _split_kernel[(triton.cdiv(n, 4096),)](x, hi, lo, n, BLOCK=4096)
    return hi, lo


@triton.jit
def _tile(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    blocks_m = tl.cdiv(M, BLOCK_M)
    group = GROUP_M * tl.cdiv(N, BLOCK_N)
    first_m = pid // group * GROUP_M
    group_m = tl.minimum(blocks_m - first_m, GROUP_M)
    return (first_m + pid % group % group_m) * BLOCK_M, (pid % group // group_m) * BLOCK_N


@triton.jit
def _gemm_x3(a_ptr, w_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    m0, n0 = _tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rows = m0 + tl.arange(0, BLOCK_M)[:, None]
    cols = n0 + tl.arange(0, BLOCK_N)[None, :]
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        a = tl.load(a_ptr + rows * K + ka, mask=(rows < M) & (ka < K), other=0.0)
        b = tl.load(w_ptr + cols * K + kb, mask=(kb < K) & (cols < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="tf32x3")
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


@triton.jit
def _gemm_x3_tma(a_desc, w_desc, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    m0, n0 = _tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = a_desc.load([m0, k0])
        b = w_desc.load([n0, k0])
        acc = tl.dot(a, b.T, acc, input_precision="tf32x3")
    rows = m0 + tl.arange(0, BLOCK_M)[:, None]
    cols = n0 + tl.arange(0, BLOCK_N)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


@triton.jit
def _gemm_split(ah_ptr, al_ptr, wh_ptr, wl_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    m0, n0 = _tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rows = m0 + tl.arange(0, BLOCK_M)[:, None]
    cols = n0 + tl.arange(0, BLOCK_N)[None, :]
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ka = k0 + tl.arange(0, BLOCK_K)[None, :]
        kb = k0 + tl.arange(0, BLOCK_K)[:, None]
        a_mask = (rows < M) & (ka < K)
        b_mask = (kb < K) & (cols < N)
        ah = tl.load(ah_ptr + rows * K + ka, mask=a_mask, other=0.0)
        al = tl.load(al_ptr + rows * K + ka, mask=a_mask, other=0.0)
        bh = tl.load(wh_ptr + cols * K + kb, mask=b_mask, other=0.0)
        bl = tl.load(wl_ptr + cols * K + kb, mask=b_mask, other=0.0)
        acc = tl.dot(al, bh, acc, input_precision="tf32")
        acc = tl.dot(ah, bl, acc, input_precision="tf32")
        acc = tl.dot(ah, bh, acc, input_precision="tf32")
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


@triton.jit
def _gemm_split_tma(ah_desc, al_desc, wh_desc, wl_desc, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    m0, n0 = _tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ah = ah_desc.load([m0, k0])
        al = al_desc.load([m0, k0])
        bh = wh_desc.load([n0, k0])
        bl = wl_desc.load([n0, k0])
        acc = tl.dot(al, bh.T, acc, input_precision="tf32")
        acc = tl.dot(ah, bl.T, acc, input_precision="tf32")
        acc = tl.dot(ah, bh.T, acc, input_precision="tf32")
    rows = m0 + tl.arange(0, BLOCK_M)[:, None]
    cols = n0 + tl.arange(0, BLOCK_N)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


def launch(way, a, w, c, bm, bn, bk, warps, stages):
    M, K = a.shape
    N = w.shape[0]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    meta = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=stages)
    if way == "x3":
        _gemm_x3[grid](a, w, c, M, N, K, **meta)
    elif way == "x3_tma":
        _gemm_x3_tma[grid](TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(w, [bn, bk]),
                           c, M, N, K, **meta)
    else:
        (ah, al), (wh, wl) = split(a), split(w)
        if way == "split":
            _gemm_split[grid](ah, al, wh, wl, c, M, N, K, **meta)
        else:
            d = lambda t, rows: TensorDescriptor.from_tensor(t, [rows, bk])  # noqa: E731
            _gemm_split_tma[grid](d(ah, bm), d(al, bm), d(wh, bn), d(wl, bn), c, M, N, K, **meta)


CONFIGS = {  # way: (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages) tried; the fastest is reported
    "x3": [(128, 128, 32, 8, 3), (128, 128, 64, 8, 2)],
    "x3_tma": [(128, 128, 32, 8, 3), (128, 128, 64, 8, 3), (128, 256, 32, 8, 3)],
    "split": [(128, 128, 32, 8, 3), (128, 128, 16, 8, 4), (128, 256, 16, 8, 3)],
    "split_tma": [(128, 128, 32, 8, 3), (128, 128, 16, 8, 4), (128, 256, 16, 8, 3), (128, 256, 32, 8, 2),
                  (256, 128, 16, 8, 3)],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="8192x8192x8192,2048x8192x4096,1024x1024x1024",
                        help="MxNxK products x @ W.T (W stored N x K, as nn.Linear's), comma-separated")
    parser.add_argument("--out", help="also write the table here")
    args = parser.parse_args()
    rows = ["| shape | way | config | ms | TFLOP/s | max err |", "| --- | --- | --- | --- | --- | --- |"]
    for shape in args.shapes.split(","):
        M, N, K = map(int, shape.split("x"))
        torch.manual_seed(0)
        a = torch.randn(M, K, device="cuda")
        w = torch.randn(N, K, device="cuda")
        truth = a.double() @ w.double().T
        scale = truth.abs().max().item()
        flops = 2 * M * N * K

        def report(way, config, fn):
            out = fn()
            err = (out.double() - truth).abs().max().item() / scale
            ms = triton.testing.do_bench(fn, warmup=50, rep=300)
            rows.append(f"| {shape} | {way} | {config} | {ms:.3f} | {flops / ms / 1e9:.1f} | {err:.1e} |")
            print(rows[-1], flush=True)

        for allow in (False, True):
            torch.backends.cuda.matmul.allow_tf32 = allow
            report("cublas tf32" if allow else "cublas fp32", "-", lambda: a @ w.T)
        torch.backends.cuda.matmul.allow_tf32 = False
        for way, configs in CONFIGS.items():
            for config in configs:
                c = torch.empty(M, N, device="cuda")
                try:
                    report(way, "x".join(map(str, config)), lambda: (launch(way, a, w, c, *config), c)[1])
                except Exception as e:  # a config that does not fit (shared memory) or compile
                    print(f"| {shape} | {way} | {config} | failed: {str(e).splitlines()[0][:100]} |", flush=True)
    table = "\n".join(rows)
    if args.out:
        open(args.out, "w").write(table + "\n")
    print("\n" + table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
