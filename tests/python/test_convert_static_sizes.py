"""The `sizes` codegen knob: `--knob sizes=static` passes every size a kernel reads as a
tl.constexpr (a compile per shape; index arithmetic then divides by constants), where the
default, dynamic, passes them as arguments. Programs covering the kernel kinds (a
convolution's BatchNorm statistics and epilogue, a long split reduction, pooling windows,
a Triton GEMM, attention) are converted both ways; the static solutions are judged by the
verifier in Triton's interpreter with every check, the varied sizes included (each shape its
own kernels there), and compiled for sm_90 like the default ones
(test_convert.py::test_every_kernel_compiles_for_hopper). Whether it is faster is the GPU's
to say (bench/knob_compare.py)."""
import os
import re
import sys

import pytest

import converted
import hopper_compile

ROOT = converted.ROOT
DEVICE = os.environ.get("DRTRITON_TEST_DEVICE", "cpu")
PROGRAMS = [os.path.join(ROOT, "tests", "python", "programs", "convert", name + ".py") for name in
            ("batch_norm_modes", "long_reductions", "stacked_pools", "gemm_linear_bias_gelu", "attention")]


@pytest.fixture(scope="module")
def solutions(tmp_path_factory):
    """{(program, sizes): solution path}."""
    work = tmp_path_factory.mktemp("sizes")
    result = {}
    for sizes in ("dynamic", "static"):
        out = work / sizes
        out.mkdir()
        knobs = ["--knob", f"sizes={sizes}", "--knob", "gemm=triton"]  # the GEMM a kernel too
        for program, path in converted.convert(PROGRAMS, out, knobs).items():
            result[(program, sizes)] = path
    return result


def size_params(source):
    """Each kernel's size parameters (s0, d3, ...) as written in its signature."""
    return [p.strip() for sig in re.findall(r"^def k\d+_\w+\((.*)\):$", source, re.M)
            for p in sig.split(",") if re.fullmatch(r"[sd]\d+(: tl.constexpr)?", p.strip())]


def test_static_sizes_are_constexpr_parameters(solutions):
    for program in PROGRAMS:
        dynamic = size_params(open(solutions[(program, "dynamic")]).read())
        static = size_params(open(solutions[(program, "static")]).read())
        assert dynamic and all(not p.endswith("constexpr") for p in dynamic), program
        assert static == [p + ": tl.constexpr" for p in dynamic], program


def test_static_solutions_pass_the_verifier(solutions):
    items = [{"task": open(program).read(), "candidate": open(solutions[(program, "static")]).read(),
              "options": {"device": DEVICE, "compile": False, "seed": 11}} for program in PROGRAMS]
    with converted.verifier_service(DEVICE) as service:
        verdicts = service.post("/verify_batch", {"items": items})["verdicts"]
    failed = {os.path.basename(p): f"{v.get('failed_stage')}: {v.get('reason')}"
              for p, v in zip(PROGRAMS, verdicts) if not v["passed"]}
    assert not failed, failed
    varied = [v["checks"].get("shape_variation") for v in verdicts]
    assert sum(bool(s) for s in varied) >= 3, varied  # the sizes did vary, so shapes recompiled


def test_static_solutions_compile_for_hopper(solutions):
    pairs = [[program, solutions[(program, "static")]] for program in PROGRAMS]
    results = hopper_compile.compile_for_hopper(pairs)
    failed = {os.path.basename(p): r["failed"] for (p, _), r in zip(pairs, results) if r["failed"]}
    assert not failed and all(r["kernels"] for r in results), (failed, results)
