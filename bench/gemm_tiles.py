"""The Triton GEMM's tile (the gemm_tile knob) on the GPU: each large GEMM program converted
with `--knob gemm=triton` under every tile of --tiles, every solution judged on CUDA by one
verifier service (one worker, so that no two timings share the GPU). Prints one table
(markdown): per program, eager's median ms and each tile's speedup against eager (x: not
accepted), the fastest marked *. Programs not started within --budget seconds are left out
(said so under the table).

    source scripts/gpu_build.sh && python3 bench/gemm_tiles.py --out results/gemm_tiles.md
    (a CPU smoke test: --device cpu --programs tests/python/programs/convert/gemm_tile_knob.py
     --tiles auto,16x32x16)
"""
import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from knob_variants import (convert_variants, fmt, judging_options, judging_service,  # noqa: E402
                           markdown_table, median_ms, with_skipped, within_budget, write_text)
# The products where the Triton GEMM is the default route (gemm=auto), largest first.
PROGRAMS = [
    "bench/programs/gemm/linear_8192_bias_relu.py",
    "bench/programs/gemm/linear_4096_gelu.py",
    "bench/programs/gemm/linear_1024x1024x1024.py",
]
# auto is 128x128x32 for fp32; the others are Triton's usual Hopper shapes and their K steps.
TILES = "auto,128x256x32,256x128x32,128x128x64,64x256x32,128x64x32"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", nargs="*", default=PROGRAMS,
                        help="program paths (default: the large GEMM programs of bench/programs/gemm/)")
    parser.add_argument("--tiles", default=TILES, help=f"gemm_tile values, comma-separated (default {TILES})")
    judging_options(parser, timeout_s=60, budget_s=300)
    args = parser.parse_args()

    tiles = args.tiles.split(",")
    start = time.time()
    work = tempfile.mkdtemp(prefix="drtriton-tiles-")
    rows, skipped = [], []
    header = ["program", "eager ms"] + tiles
    with judging_service(args) as service:
        for program, name in within_budget(args.programs, args.budget, start, skipped):
            task = open(os.path.join(ROOT, program)).read()
            solutions = convert_variants(os.path.join(ROOT, program), work, "gemm_tile", tiles,
                                         fixed=["gemm=triton"])
            speedups, eager = {}, None
            for tile in tiles:
                sol, error = solutions[tile]
                if sol is None:
                    print(f"  convert gemm_tile={tile}: {error}", flush=True)
                    continue
                item = {"task": task, "candidate": sol, "options": {"device": args.device, "compile": False}}
                v = service.post("/verify_batch", {"items": [item]})["verdicts"][0]
                eager = eager or median_ms(v, "eager")
                if v.get("passed") and median_ms(v, "candidate"):
                    speedups[tile] = median_ms(v, "eager") / median_ms(v, "candidate")
                else:
                    print(f"  {name} gemm_tile={tile}: {v.get('failed_stage')}: {(v.get('reason') or '')[:120]}",
                          flush=True)
            best = max(speedups, key=speedups.get) if speedups else None
            rows.append([name, fmt(eager)] + [
                f"{speedups[t]:.2f}x" + ("*" if t == best else "") if t in speedups else "x" for t in tiles])
            write_text(args.out, markdown_table(header, rows) + "\n")  # a run cut short keeps these
    table = with_skipped(markdown_table(header, rows), skipped, args.budget)
    write_text(args.out, table + "\n")
    print(f"\ngemm_tiles ({time.time() - start:.0f} s)\n{table}")


if __name__ == "__main__":
    main()
