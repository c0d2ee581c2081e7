"""The built-in compiler on half-precision programs: the operator cases of tests/ir/op_cases/
with every f32 of their IR made f16 or bf16, emitted as KernelBench-format programs (`drtriton
emit`: modules move to the inputs' precision, as `model.half()` would), converted and judged
by the verifier at that precision's tolerance, all in one service batch.

Triton's interpreter runs fp16 but is slow: the CPU tier (CI) judges CPU_CASES in fp16. The
GPU tier (DRTRITON_TEST_DEVICE=cuda, `bash scripts/gpu_convert.sh`) judges every case in fp16
and bf16.
"""
import glob
import os
import re

import pytest

from converted import BIN, ROOT, verifier_service

DEVICE = os.environ.get("DRTRITON_TEST_DEVICE", "cpu")
OP_CASES = sorted(glob.glob(os.path.join(ROOT, "tests", "ir", "op_cases", "*.ir")))
# Elementwise, reductions, normalizations and a GEMM: what fp16 changes in the kernels
# (loads widened to fp32, stores rounded, accumulation in fp32).
CPU_CASES = ["abs", "add", "exp", "gelu", "sigmoid", "tanh", "softplus", "mish", "softmax",
             "log_softmax", "logsumexp", "layer_norm", "rms_norm", "group_norm", "sum", "mean",
             "amax", "var", "linear", "where", "full", "cast_mask", "batch_norm1d"]
DTYPES = ["f16", "bf16"] if DEVICE == "cuda" else ["f16"]
# Cases known to be rejected at a precision, with why; each must still be rejected. (The
# LSTM's half-precision final states, once traced with an extra dim by torch 2.11, pass
# there since the static export traces recurrent layers by their shape rule.)
KNOWN_REJECTED: dict[str, str] = {}


def cases():
    names = [os.path.basename(c)[:-3] for c in OP_CASES]
    if DEVICE != "cuda":
        missing = sorted(set(CPU_CASES) - set(names))
        assert not missing, f"CPU_CASES names no op case: {missing}"
        names = CPU_CASES
    return [(name, dtype) for dtype in DTYPES for name in names]


def in_precision(ir, dtype):
    """The case with every f32 made `dtype`: the casts and factories whose dtype is f32 by
    default (`cast(%1)`, `full()`) say so first, so that they follow."""
    ir = re.sub(r"= (cast|full)\((.*)\)[ \t]*$", r'= \1(\2) {dtype="f32"}', ir, flags=re.M)
    ir = re.sub(r"= (cast|full)\((.*)\) \{(?!.*dtype=)(.*)\}[ \t]*$", r'= \1(\2) {\3, dtype="f32"}', ir,
                flags=re.M)
    return ir.replace("f32", dtype)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """{"name.dtype": (task source, solution source or None, why not)} for every case with a
    floating input (the others have nothing to change)."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    import subprocess
    from drtriton import frontend
    work = tmp_path_factory.mktemp("half")
    result = {}
    for name, dtype in cases():
        ir = open(os.path.join(ROOT, "tests", "ir", "op_cases", name + ".ir")).read()
        if " f32[" not in ir:
            continue
        key = f"{name}.{dtype}"
        case = work / f"{key}.ir"
        case.write_text(in_precision(ir, dtype))
        program, solution = work / f"{name}_{dtype}.py", work / f"{name}_{dtype}_triton.py"
        r = subprocess.run([BIN, "emit", str(case), "-o", str(program)], capture_output=True, text=True)
        assert r.returncode == 0, f"{key}: {r.stderr}"
        traced = work / f"{key}.traced.json"
        traced.write_text(frontend.to_json(frontend.trace_file(str(program), dynamic=True)))
        r = subprocess.run([BIN, "convert", str(traced), "--no-verify", "-o", str(solution)],
                           capture_output=True, text=True, cwd=ROOT)
        result[key] = (program.read_text(), solution.read_text() if r.returncode == 0 else None,
                       r.stderr.strip())
    return result


def test_every_case_emits_in_both_precisions(tmp_path):
    """The GPU tier's cases, fp16 and bf16, emitted here (fast) so that a case the GPU tier
    cannot even build fails in CI."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    import subprocess
    failed = []
    for path in OP_CASES:
        ir = open(path).read()
        for dtype in ("f16", "bf16"):
            case = tmp_path / f"{dtype}.ir"
            case.write_text(in_precision(ir, dtype))
            r = subprocess.run([BIN, "emit", str(case), "-o", str(tmp_path / "p.py")],
                               capture_output=True, text=True)
            if r.returncode != 0:
                failed.append(f"{os.path.basename(path)} {dtype}: {r.stderr.strip()}")
    assert not failed, "\n".join(failed)


def test_the_programs_are_in_half_precision(compiled):
    assert compiled, "no case has a floating input"
    for key, (task, _, _) in compiled.items():
        torch_dtype = {"f16": "torch.float16", "bf16": "torch.bfloat16"}[key.split(".")[1]]
        assert f"dtype={torch_dtype}" in task, key


def test_every_half_case_passes_the_verifier(compiled):
    failed = {key: f"convert: {err}" for key, (_, sol, err) in compiled.items() if sol is None}
    items, keys = [], []
    for key, (task, sol, _) in compiled.items():
        if sol is not None:
            keys.append(key)
            items.append({"task": task, "candidate": sol,
                          "options": {"device": DEVICE, "compile": False, "seed": 7}})
    with verifier_service(DEVICE) as service:
        verdicts = service.post("/verify_batch", {"items": items})["verdicts"]
    for key, v in zip(keys, verdicts):
        if not v["passed"]:
            failed[key] = f"{v.get('failed_stage')}: {v.get('reason')}"
    print(f"\n{len(compiled) - len(failed)}/{len(compiled)} half-precision cases passed on {DEVICE}")
    unexpected = {k: v for k, v in failed.items() if k not in KNOWN_REJECTED}
    assert not unexpected, f"{len(unexpected)} of {len(compiled)} rejected:\n" + "\n".join(
        f"  {k}: {v}" for k, v in sorted(unexpected.items()))
    stale = sorted(set(KNOWN_REJECTED) & set(compiled) - set(failed))
    assert not stale, f"now passing, remove from KNOWN_REJECTED: {stale}"
