"""Every operator through PyTorch and back: the declarative cases of tests/ir/op_cases.

For each case (one small IR graph per operator of ops.def):
  1. `drtriton emit CASE -o model.py` writes a KernelBench-format program;
  2. the program runs on the CPU, and each output has the shape and dtype that the IR
     declares (`drtriton check CASE --json`) and, if floating, only finite values;
  3. the frontend traces it with torch.export (in this process) and `drtriton import
     traced.json -o back.ir` lifts it (the two steps of `drtriton import model.py`); the graph that
     comes back is the case's graph: the same operators in the same order, the same
     wiring, attributes, modules, shapes and dtypes (value names aside).

A case may open with directives in its first comment lines:
  # expect-import: OP OP ...   the import gives back exactly these operators, in order
                               (for ops that torch.export does not keep, such as
                               contiguous and identity); only they and the outputs'
                               types are compared.

DRTRITON_BIN names the binary (default: build/drtriton under the repository root).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from drtriton import frontend

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
CASE_DIR = ROOT / "tests" / "ir" / "op_cases"
CASES = sorted(CASE_DIR.glob("*.ir"))
BIN = Path(os.environ.get("DRTRITON_BIN") or ROOT / "build" / "drtriton")

TORCH_DTYPES = {
    "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
    "f64": torch.float64, "i64": torch.int64, "i32": torch.int32, "bool": torch.bool,
}


def run_drtriton(*args: str | Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # `drtriton import` starts a Python with torch: the one running these tests.
    env.setdefault("DRTRITON_PYTHON", sys.executable)
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=ROOT)


def succeeded(r: subprocess.CompletedProcess) -> str:
    if r.returncode != 0:
        pytest.fail(f"{' '.join(r.args)} exited {r.returncode}:\n{r.stderr}{r.stdout}",
                    pytrace=False)
    return r.stdout


@pytest.fixture(scope="module")
def drtriton():
    if not BIN.exists():
        pytest.skip(f"{BIN} is not built yet (make build, or set DRTRITON_BIN)")
    return lambda *args: succeeded(run_drtriton(*args))


def directives(case: Path) -> dict[str, str]:
    """The `# key: value` lines at the top of a case."""
    found = {}
    for line in case.read_text().splitlines():
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].partition(":")
        if sep and key.strip() in ("expect-import",):
            found[key.strip()] = value.strip()
    return found


def load_program(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def graph_json(drtriton, path: Path) -> dict:
    return json.loads(drtriton("check", path, "--json"))


def output_types(graph: dict) -> list[tuple[str, list[int]]]:
    types = {v["name"]: (v["dtype"], v["shape"]) for v in graph["inputs"] + graph["params"]}
    types.update({n["name"]: (n["dtype"], n["shape"]) for n in graph["nodes"]})
    return [types[name] for name in graph["outputs"]]


def canonical(graph: dict) -> dict:
    """The graph with values named by position (inputs in0.., nodes n0..; params keep
    their names, which are the model's attribute names)."""
    names = {v["name"]: f"in{i}" for i, v in enumerate(graph["inputs"])}
    names.update({v["name"]: "param:" + v["name"] for v in graph["params"]})
    names.update({n["name"]: f"n{k}" for k, n in enumerate(graph["nodes"])})
    return {
        "inputs": [(v["dtype"], v["shape"]) for v in graph["inputs"]],
        "params": sorted((v["name"], v["dtype"], v["shape"]) for v in graph["params"]),
        "nodes": [
            {"op": n["op"], "inputs": [names[i] for i in n["inputs"]], "attrs": n["attrs"],
             "module": n.get("module") or "", "dtype": n["dtype"], "shape": n["shape"]}
            for n in graph["nodes"]
        ],
        "outputs": [names[o] for o in graph["outputs"]],
    }


def emit(drtriton, case: Path, tmp_path: Path) -> tuple[Path, str]:
    program = tmp_path / f"{case.stem}_model.py"
    drtriton("emit", case, "-o", program)
    return program, program.read_text()


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_emitted_program_runs(drtriton, case: Path, tmp_path: Path):
    program, source = emit(drtriton, case, tmp_path)
    for required in ("class Model(nn.Module)", "def get_inputs", "def get_init_inputs"):
        assert required in source, f"emitted program lacks `{required}`:\n{source}"
    module = load_program(program, f"drtriton_case_{case.stem}")
    torch.manual_seed(0)
    model = module.Model(*module.get_init_inputs())
    with torch.no_grad():
        outputs = model(*module.get_inputs())
    if not isinstance(outputs, tuple):
        outputs = (outputs,)
    expected = output_types(graph_json(drtriton, case))
    assert len(outputs) == len(expected), source
    for i, (out, (dtype, shape)) in enumerate(zip(outputs, expected)):
        assert list(out.shape) == shape, f"output {i}: shape {list(out.shape)}, IR says {shape}"
        assert out.dtype == TORCH_DTYPES[dtype], f"output {i}: {out.dtype}, IR says {dtype}"
        if out.is_floating_point():
            assert torch.isfinite(out).all(), f"output {i} has non-finite values:\n{source}"


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_import_gives_the_graph_back(drtriton, case: Path, tmp_path: Path):
    # Trace in this process (torch is loaded once for the whole suite), then let the C++
    # side lift the traced graph: the same two steps `drtriton import model.py` runs.
    program, source = emit(drtriton, case, tmp_path)
    traced, back_path = tmp_path / "traced.json", tmp_path / "back.ir"
    traced.write_text(frontend.to_json(frontend.trace_file(str(program))))
    drtriton("import", traced, "-o", back_path)
    original, back = graph_json(drtriton, case), graph_json(drtriton, back_path)
    context = f"\n--- emitted program:\n{source}\n--- imported graph:\n{back_path.read_text()}"
    assert output_types(back) == output_types(original), context
    expect = directives(case).get("expect-import")
    if expect is not None:
        assert [n["op"] for n in back["nodes"]] == expect.split(), context
        return
    want, got = canonical(original), canonical(back)
    assert got["inputs"] == want["inputs"], context
    assert got["params"] == want["params"], context
    for k, (g, w) in enumerate(zip(got["nodes"], want["nodes"])):
        assert g == w, f"node {k} differs: got {g}, want {w}{context}"
    assert len(got["nodes"]) == len(want["nodes"]), context
    assert got["outputs"] == want["outputs"], context


def test_every_operator_has_a_case(drtriton):
    ops = [op["name"] for op in json.loads(drtriton("ops", "--json"))]
    cases = [c.stem for c in CASES]
    missing = sorted(set(ops) - set(cases))
    # A second case of an operator is named after it: batch_norm1d_cumulative.
    unknown = sorted(c for c in cases if c not in ops and not any(c.startswith(op + "_") for op in ops))
    assert not missing, f"operators without a case in {CASE_DIR}: {missing}"
    assert not unknown, f"cases that name no operator: {unknown}"
