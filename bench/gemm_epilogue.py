"""Triton GEMMs with the epilogue inside against cuBLAS plus an epilogue kernel, on the GPU.

Each GEMM program (Linear, matmul, bmm of tests/programs/real/fused/, and the large ones of
bench/programs/gemm/) is converted twice, `drtriton convert --knob gemm=library` and
`--knob gemm=triton`, and both solutions are judged on CUDA by one verifier service (one
worker, so that no two timings share the GPU): correctness on every input set, the largest
error against the float64 truth, and the median ms of eager PyTorch, torch.compile (timed
once, with the triton solution), and each solution. The default route, `gemm=auto`, is
converted too: the table says which of the two it took (its text is one of theirs) and what
that is against eager; one that mixes them (a product each way) is judged as well. Prints
one table (markdown); a program whose judging runs past --timeout seconds is rejected as
such, and programs not started within --budget seconds are left out (said so under the
table).

    source scripts/gpu_build.sh && python3 bench/gemm_epilogue.py --out results/gemm_epilogue.md
    (or CONV_S=0 HALF_S=0 bash scripts/gpu_compiler.sh; a CPU smoke test: --device cpu --programs SMALL.py)
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
FUSED = "tests/programs/real/fused"
# The GEMM programs, from large to small (where the Triton GEMM's tiles may leave SMs idle
# and cuBLAS win), then the corpus's; --programs picks others.
PROGRAMS = [
    "bench/programs/gemm/linear_8192_bias_relu.py",
    "bench/programs/gemm/linear_4096_gelu.py",
    "bench/programs/gemm/linear_1024x1024x1024.py",
    "bench/programs/gemm/linear_784x840x506.py",
    "bench/programs/gemm/linear_24x2048x2048.py",
    f"{FUSED}/linear_relu.py",
    f"{FUSED}/linear_gelu_scale_residual.py",
    f"{FUSED}/linear_swish_scale_clamp.py",
    f"{FUSED}/matmul_bias_param_relu.py",
    f"{FUSED}/matmul_gelu_softmax.py",
    f"{FUSED}/two_linear_sigmoid_logsumexp.py",
    f"{FUSED}/bmm_scale_softmax_bmm.py",
]
KNOBS = ["library", "triton"]  # judged; "auto" is converted too and judged only when it mixes them


def max_error(v):
    """The largest error of the solution against the float64 truth, over the input sets."""
    errs = [e.get("candidate") for e in v.get("err") or [] if isinstance(e, dict)]
    errs = [e for e in errs if isinstance(e, (int, float))]
    return max(errs) if errs else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", nargs="*", default=PROGRAMS,
                        help="program paths (default: the GEMM programs listed in this script)")
    judging_options(parser, timeout_s=60, budget_s=180)
    args = parser.parse_args()

    start = time.time()
    work = tempfile.mkdtemp(prefix="drtriton-gemm-")
    rows, skipped, table = [], [], ""
    header = ["program", "correct library (max err)", "correct triton (max err)", "eager ms",
              "compile ms", "library ms", "triton ms", "triton vs eager", "triton vs compile",
              "auto takes", "auto vs eager"]
    # The table is rewritten after each program, so a run stopped at its deadline keeps
    # what it judged.
    with judging_service(args) as service:
        for program, name in within_budget(args.programs, args.budget, start, skipped):
            task = open(os.path.join(ROOT, program)).read()
            verdicts = {}
            solutions = convert_variants(os.path.join(ROOT, program), work, "gemm", KNOBS + ["auto"])
            auto = solutions["auto"][0]
            taken = next((g for g in KNOBS if auto is not None and solutions[g][0] == auto),
                         "mixed" if auto is not None else "no solution")
            for gemm in KNOBS + (["auto"] if taken == "mixed" else []):
                sol, error = solutions[gemm]
                if sol is None:
                    print(f"  convert gemm={gemm}: {error}", flush=True)
                    continue
                item = {"task": task, "candidate": sol,
                        "options": {"device": args.device, "compile": gemm == "triton"}}
                verdicts[gemm] = service.post("/verify_batch", {"items": [item]})["verdicts"][0]
            rows.append(row(name, verdicts, taken))
            table = with_skipped(markdown_table(header, rows), skipped, args.budget)
            write_text(args.out, table + "\n")
    print(f"\ngemm_epilogue ({time.time() - start:.0f} s)\n{table}")


def row(name, verdicts, taken):
    """One program's cells: each solution's verdict and time, eager's and torch.compile's, and
    the route gemm=auto took (`taken`: "library", "triton" or "mixed") with its speedup."""
    def verdict(v):
        if v is None:
            return "no solution"
        if v.get("passed"):
            return f"yes ({fmt(max_error(v), '{:.1e}')})"
        return f"no: {v.get('failed_stage')}: {(v.get('reason') or '')[:80]}"

    lib, tri = verdicts.get("library"), verdicts.get("triton")
    eager, comp = median_ms(tri, "eager") or median_ms(lib, "eager"), median_ms(tri, "compile")
    t_lib = median_ms(lib, "candidate") if lib and lib.get("passed") else None
    t_tri = median_ms(tri, "candidate") if tri and tri.get("passed") else None
    ratio = lambda a, b: f"{a / b:.2f}x" if a and b else "-"
    auto = verdicts.get("auto" if taken == "mixed" else taken)
    t_auto = median_ms(auto, "candidate") if auto and auto.get("passed") else None
    return [name, verdict(lib), verdict(tri), fmt(eager), fmt(comp), fmt(t_lib), fmt(t_tri),
            ratio(eager, t_tri), ratio(comp, t_tri), taken, ratio(eager, t_auto)]

if __name__ == "__main__":
    main()
