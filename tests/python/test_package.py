"""drtriton as a Python package: the API (drtriton.convert, drtriton.verify) on the CPU,
`python -m drtriton`, one version for binary and package, and `pip install` of the package
into a folder, reusing the built build/ so that nothing is compiled again."""
import os
import subprocess
import sys
import time

import pytest

import drtriton
from drtriton.api import find_binary

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CANDIDATES = os.path.join(ROOT, "tests", "eval", "candidates")
TASK = os.path.join(CANDIDATES, "tasks", "relu_scale.py")
EXAMPLE = os.path.join(ROOT, "examples", "conv_block.py")


@pytest.fixture(autouse=True)
def built_binary():
    try:
        find_binary()
    except drtriton.DrtritonError as e:
        pytest.skip(str(e))


def test_import_drtriton_loads_neither_torch_nor_the_api():
    code = ("import sys, drtriton; "
            "print(sorted(m for m in ('torch', 'triton', 'drtriton.api') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_convert_without_verifying_returns_the_solution_text(tmp_path):
    out = tmp_path / "solution.py"
    solution = drtriton.convert(EXAMPLE, verify=False, out=out)
    assert "class ModelNew" in solution and "@triton.jit" in solution
    assert out.read_text() == solution


def test_convert_refuses_what_is_not_a_program():
    with pytest.raises(TypeError, match="KernelBench-format"):
        drtriton.convert(object(), verify=False)


def test_verify_passes_an_honest_candidate_and_rejects_a_cheat():
    # Without timing torch.compile, whose first call takes tens of seconds on the CPU.
    verdict = drtriton.verify(TASK, os.path.join(CANDIDATES, "honest_relu_scale.py"),
                              device="cpu", compile_timing=False)
    assert verdict["passed"] is True, verdict.get("reason")
    # Source text, rejected by the static rules before anything runs (the quick rejection).
    with open(os.path.join(CANDIDATES, "cheat_try_except_fallback.py")) as f:
        cheat = f.read()
    verdict = drtriton.verify(TASK, cheat, device="cpu", compile_timing=False)
    assert verdict["passed"] is False and verdict["failed_stage"] == "static"


def test_a_missing_file_raises_drtriton_error_naming_it():
    with pytest.raises(drtriton.DrtritonError, match="no/such/model.py") as e:
        drtriton.convert("no/such/model.py", verify=False)
    assert e.value.returncode == 1 and "no such file" in str(e.value)
    with pytest.raises(drtriton.DrtritonError, match="no/such/task.py"):
        drtriton.verify("no/such/task.py", TASK, device="cpu")


def test_a_bad_option_raises_drtriton_error():
    with pytest.raises(drtriton.DrtritonError, match="--device"):
        drtriton.convert(EXAMPLE, verify=False, device="tpu")


def test_binary_and_package_agree_on_the_version():
    binary = subprocess.run([find_binary(), "--version"], capture_output=True,
                            text=True)
    module = subprocess.run([sys.executable, "-m", "drtriton", "--version"], capture_output=True,
                            text=True, env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert binary.returncode == 0 and module.returncode == 0, binary.stderr + module.stderr
    assert binary.stdout.strip() == module.stdout.strip() == f"drtriton {drtriton.__version__}"


def test_python_m_drtriton_passes_the_exit_code_through():
    run = subprocess.run([sys.executable, "-m", "drtriton", "frobnicate"], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert run.returncode == 2 and "unknown command 'frobnicate'" in run.stderr


def test_pip_install_reuses_build_and_the_installed_package_runs(tmp_path):
    """The CI path: `pip install --target` builds the wheel in the configured build/ (tests
    kept on, so the checkout's build stays as setup.sh made it): nothing is compiled again."""
    pytest.importorskip("scikit_build_core")
    if not os.path.exists(os.path.join(ROOT, "build", "build.ninja")):
        pytest.skip("build/ is not configured (make build)")
    target = tmp_path / "site"
    start = time.monotonic()
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-v", "--no-build-isolation", "--no-deps",
         "--disable-pip-version-check", "--no-cache-dir", "--target", str(target),
         "--config-settings=cmake.define.DRTRITON_BUILD_TESTS=ON", ROOT],
        capture_output=True, text=True, timeout=600)
    seconds = time.monotonic() - start
    assert pip.returncode == 0, pip.stdout[-4000:] + pip.stderr[-4000:]
    print(f"pip install --target: {seconds:.1f} s")
    # ninja ran, and had nothing to compile: build/ was reused.
    assert "ninja: no work to do" in pip.stdout + pip.stderr, pip.stdout[-4000:]
    assert (target / "drtriton" / "_bin" / "drtriton").is_file()
    assert (target / "drtriton" / "_bin" / "real_dist.json").is_file()

    # Run from outside the checkout, with the installed package first on the path (the
    # checkout's .pth, if any, comes after PYTHONPATH).
    code = ("import drtriton; print(drtriton.__file__); "
            "s = drtriton.convert(%r, verify=False); print('class ModelNew' in s)" % EXAMPLE)
    env = {**os.environ, "PYTHONPATH": str(target)}
    env.pop("DRTRITON_BIN", None)
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    where, found = run.stdout.split()
    assert where.startswith(str(target)) and found == "True"
    script = subprocess.run([str(target / "bin" / "drtriton"), "--version"], cwd=tmp_path,
                            env=env, capture_output=True, text=True)
    assert script.stdout.strip() == f"drtriton {drtriton.__version__}", script.stderr
