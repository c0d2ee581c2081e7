"""What `drtriton convert --tune` buys on the GPU: for each program, the solution under the
compiler's default knobs against the tuned one (the fastest accepted of the settings that
change one knob, and the winners together), both against eager and torch.compile, and what
tuning costs: the cold convert (every setting judged) and the warm one (the same command
again: every verdict from the tuning cache, nothing judged). Prints one table (markdown),
rewritten in --out after every program; programs not started within --budget seconds are
listed under it.

    source scripts/gpu_build.sh && python3 bench/tune.py --out results/tune.md [--dir DIR] [--limit N]
    (or GEMM_S=0 CONV_S=0 HALF_S=0 TUNE_S=400 bash scripts/gpu_compiler.sh)
    smoke test here: TRITON_INTERPRET=1 .venv/bin/python bench/tune.py --device cpu \\
        --programs tests/python/programs/convert/gemm_linear_bias_gelu.py
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from knob_variants import (fmt, geomean, markdown_table, median_ms,  # noqa: E402 (bench/)
                           with_skipped, within_budget, write_text)
BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")
ROW = re.compile(r"^  (\S.*?)\s+([\d.]+) ms(  <- chosen)?$", re.M)


def tune(program, device, cache, timeout, out):
    """(seconds, the winner's verdict or None, {setting: ms}, chosen setting, error)."""
    start = time.time()
    r = subprocess.run([BIN, "convert", program, "--tune", "--device", device, "--json",
                        "--cache", cache, "--timeout", str(timeout), "-o", out],
                       capture_output=True, text=True, cwd=ROOT)
    seconds = time.time() - start
    times = {label: float(ms) for label, ms, _ in ROW.findall(r.stderr)}
    chosen = next((label for label, _, mark in ROW.findall(r.stderr) if mark), None)
    if r.returncode != 0:
        return seconds, None, times, chosen, (r.stderr.strip().splitlines() or ["?"])[-1]
    return seconds, json.loads(r.stdout), times, chosen, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="also write the table (markdown) here")
    parser.add_argument("--dir", default=os.path.join(ROOT, "tests", "programs", "real", "fused"),
                        help="the programs' folder (default: the real fused-block corpus)")
    parser.add_argument("--programs", nargs="*", default=None, help="program paths instead of --dir")
    parser.add_argument("--limit", type=int, default=8, help="programs at most (default 8)")
    parser.add_argument("--skip", type=int, default=0, help="skip the first N programs")
    parser.add_argument("--timeout", type=float, default=150,
                        help="seconds one solution's judging may take (default 150)")
    parser.add_argument("--budget", type=float, default=10**9,
                        help="start no program after this many seconds")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                        help="cpu: a smoke test in Triton's interpreter")
    args = parser.parse_args()
    paths = args.programs or sorted(glob.glob(os.path.join(args.dir, "*.py")))
    paths = paths[args.skip:args.skip + args.limit]
    work = tempfile.mkdtemp(prefix="drtriton-tune-")
    cache = os.path.join(work, "tune.sqlite")  # fresh: the first convert is cold
    header = ["program", "chosen", "eager ms", "compile ms", "default ms", "tuned ms",
              "default vs compile", "tuned vs compile", "cold convert s", "warm convert s"]
    rows, ratios, skipped, start = [], {"default": [], "tuned": []}, [], time.time()
    table = markdown_table(header, [])
    for path, name in within_budget(paths, args.budget, start, skipped):
        out = os.path.join(work, name + "_tuned.py")
        cold_s, verdict, times, chosen, error = tune(path, args.device, cache, args.timeout, out)
        warm_s = tune(path, args.device, cache, args.timeout, out)[0] if verdict else None
        eager, comp = median_ms(verdict, "eager"), median_ms(verdict, "compile")
        default, tuned = times.get("as given"), median_ms(verdict, "candidate")
        vs = lambda ms: comp / ms if comp and ms else None
        if vs(default) and vs(tuned):
            ratios["default"].append(vs(default))
            ratios["tuned"].append(vs(tuned))
        rows.append([name, chosen or ("failed: " + error[:80]), fmt(eager, "{:.4f}"),
                     fmt(comp, "{:.4f}"), fmt(default, "{:.4f}"), fmt(tuned, "{:.4f}"),
                     fmt(vs(default), "{:.2f}x"), fmt(vs(tuned), "{:.2f}x"),
                     fmt(cold_s, "{:.0f}"), fmt(warm_s, "{:.1f}")])
        table = markdown_table(header, rows)
        table += (f"\n\ngeometric mean vs torch.compile over {len(ratios['tuned'])} programs: "
                  f"default knobs {geomean(ratios['default']):.3f}x, tuned "
                  f"{geomean(ratios['tuned']):.3f}x ({time.time() - start:.0f} s in all)")
        table = with_skipped(table, skipped, args.budget)
        write_text(args.out, table + "\n")
    print(f"\ntune\n{table}")


if __name__ == "__main__":
    main()
