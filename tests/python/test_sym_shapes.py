"""Symbolic shapes, end to end: the frontend's dynamic export (trace_file(..., dynamic=True))
annotates each input and node with its shape over the input sizes, and `drtriton import
--sym` shows what the IR keeps of it. The programs are tests/python/programs/sym/*.py.

The check that matters: each sym_shape, evaluated with the symbols bound to the traced input
and parameter sizes, is exactly the static shape; and every symbol is bound by a dim of an
input, a parameter or a buffer."""

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from drtriton import frontend

ROOT = Path(__file__).resolve().parents[2]
FOLDER = Path("tests/python/programs/sym")
PROGRAMS = sorted((ROOT / FOLDER).glob("*.py"))
BIN = Path(os.environ.get("DRTRITON_BIN") or ROOT / "build" / "drtriton")

# The functions a sym_shape string may call (frontend.py's docstring lists them).
FUNCTIONS = {
    "Mod": lambda a, b: a % b, "PythonMod": lambda a, b: a % b,
    "CeilDiv": lambda a, b: -(-a // b), "ModularIndexing": lambda a, b, c: (a // b) % c,
    "CeilToInt": math.ceil, "FloorToInt": math.floor, "TruncToInt": math.trunc,
    "RoundToInt": round, "ToFloat": float, "TruncToFloat": lambda x: float(math.trunc(x)),
    "IntTrueDiv": lambda a, b: a / b, "FloatTrueDiv": lambda a, b: a / b,
    "PowByNatural": lambda a, b: a ** b, "FloatPow": lambda a, b: a ** b,
    "Max": max, "Min": min, "floor": math.floor, "ceiling": math.ceil,
}
NAME = re.compile(r"[A-Za-z_]\w*")


def symbols(expr: str) -> set[str]:
    """The size symbols of an expression: its names that are not function calls."""
    return {m.group() for m in NAME.finditer(expr)
            if not expr[m.end():].lstrip().startswith("(")}


def evaluate(expr: str, sizes: dict[str, int]) -> int:
    value = eval(expr, {"__builtins__": {}}, {**FUNCTIONS, **sizes})
    assert value == int(value), (expr, value)
    return int(value)


def bind(inputs) -> dict[str, int]:
    """{symbol: traced size} from (sym_shape, shape) pairs of the inputs (and parameters).
    Such a dim is a bare symbol or an int that must be the traced size; one symbol, one
    size."""
    sizes = {}
    for sym, shape in inputs:
        assert len(sym) == len(shape)
        for s, n in zip(sym, shape):
            if NAME.fullmatch(s):
                assert sizes.setdefault(s, n) == n, f"{s} is bound to two sizes"
            else:
                assert s == str(n), f"input dim {s!r} is neither a symbol nor {n}"
    return sizes


_cache = {}


def traced(program: Path) -> dict:
    if program not in _cache:
        _cache[program] = frontend.trace_file(str(program), dynamic=True)
    return _cache[program]


def bound_sizes(doc: dict) -> dict[str, int]:
    """The symbols the inputs, parameters and buffers bind, with their traced sizes."""
    return bind((e["sym_shape"], e["shape"]) for e in doc["inputs"] + doc["params"])


def shaped_entries(doc: dict):
    """(name, entry) for every node entry with a tensor shape, tuple elements included."""
    for n in doc["nodes"]:
        if "shape" in n:
            yield n["name"], n
        for k, out in enumerate(n.get("outputs") or []):
            if out and "shape" in out:
                yield f"{n['name']}[{k}]", out


# --------------------------------------------------------------------------- frontend

def test_cases_exist():
    assert [p.stem for p in PROGRAMS] == [
        "batch_mean_by_hand", "cat_two", "conv_pool_fc", "divide_by_size", "einsum_three",
        "kl_div_batchmean",
        "linear_relu", "max_pool1d", "permute", "softmax_dim1", "sum_over_numel"]


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_frontend_annotates_every_value(program):
    d = traced(program)
    assert d["dynamic"] is True and "dynamic_error" not in d
    for e in d["inputs"]:
        assert len(e["sym_shape"]) == len(e["shape"]) and all(isinstance(s, str)
                                                               for s in e["sym_shape"])
    for name, e in shaped_entries(d):
        assert len(e["sym_shape"]) == len(e["shape"]), name
    for p in d["params"]:
        assert len(p["sym_shape"]) == len(p["shape"]), p["target"]


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_sym_shapes_evaluate_to_the_traced_shapes(program):
    d = traced(program)
    sizes = bound_sizes(d)
    assert sizes, "no input dim is dynamic"
    for name, e in shaped_entries(d):
        assert symbols(" ".join(e["sym_shape"])) <= set(sizes), (name, e["sym_shape"])
        assert [evaluate(s, sizes) for s in e["sym_shape"]] == e["shape"], (name, e)


def by_name(program: str) -> dict:
    d = traced(ROOT / FOLDER / f"{program}.py")
    nodes = {n["name"]: n["sym_shape"] for n in d["nodes"] if "sym_shape" in n}
    nodes.update({e["name"]: e["sym_shape"] for e in d["inputs"]})
    nodes.update({p["target"]: p["sym_shape"] for p in d["params"]})
    return nodes


def test_linear_reads_its_features_from_its_weight():
    s = by_name("linear_relu")
    batch, features = s["x"]
    out_features, in_features = s["fc.weight"]
    assert len({batch, features, out_features}) == 3
    assert in_features == features  # what the product makes equal
    assert s["fc.bias"] == [out_features]
    assert s["linear"] == s["relu"] == [batch, out_features]


def test_conv_pool_flatten_follow_the_spatial_and_channel_sizes():
    s = by_name("conv_pool_fc")
    b, c, h, w = s["x"]
    co, ci, kh, kw = s["conv.weight"]
    assert ci == c and len({b, c, h, w, co}) == 5
    assert all(NAME.fullmatch(v) for v in (b, c, h, w, co))
    assert kh == kw == "3"  # a kernel size is a number, like the stride and the padding
    # 3x3, padding 1: h + 2 - 3 + 1
    assert s["conv2d"] == s["relu"] == [b, co, h, w]
    assert s["max_pool2d"][:2] == [b, co] and symbols(s["max_pool2d"][2]) == {h}
    assert s["flatten"][0] == b and symbols(s["flatten"][1]) == {co, h, w}
    assert s["linear"] == [b, s["fc.weight"][0]]


def test_max_pool1d_follows_the_length():
    # aten's own max_pool1d kernel would fix the length to the traced 64
    s = by_name("max_pool1d")
    b, c, length = s["x"]
    assert all(NAME.fullmatch(v) for v in (b, c, length))
    assert s["max_pool1d"][:2] == [b, c] and symbols(s["max_pool1d"][2]) == {length}
    assert evaluate(s["max_pool1d"][2], {length: 63}) == 30  # (63 + 2 - 6 - 1) // 2 + 1


def test_einsum_of_three_operands_keeps_its_sizes():
    # opt_einsum's contraction order (python/requirements.txt installs it) reads every size
    import torch

    assert torch.backends.opt_einsum.is_available()
    s = by_name("einsum_three")
    assert all(NAME.fullmatch(v) for name in ("cb", "decay", "x") for v in s[name])
    assert s["einsum"][0] == s["x"][0]


def test_softmax_cat_permute():
    s = by_name("softmax_dim1")
    assert s["softmax"] == s["x"] and all(NAME.fullmatch(v) for v in s["x"])
    s = by_name("cat_two")
    assert s["a"][0] == s["b"][0] and s["a"][2] == s["b"][2]  # what cat makes equal
    assert symbols(s["cat"][1]) == {s["a"][1], s["b"][1]}
    assert [s["cat"][0], s["cat"][2]] == [s["a"][0], s["a"][2]]
    s = by_name("permute")
    x = s["x"]
    assert s["permute"] == [x[0], x[2], x[1], x[3]] == s["mul"]


def sym_args(program: str) -> dict:
    """{node name: sym_args} of a program's trace."""
    return {n["name"]: n["sym_args"] for n in traced(ROOT / FOLDER / f"{program}.py")["nodes"]
            if "sym_args" in n}


def test_numbers_computed_from_sizes_are_expressions():
    # x / x.size(0), and F.kl_div's batchmean (its sum divided by the batch)
    for program in ("divide_by_size", "kl_div_batchmean"):
        batch = by_name(program)[next(iter(by_name(program)))][0]
        assert sym_args(program) == {"div": {"other": batch}}, program
    b, n = by_name("sum_over_numel")["x"]
    (expr,) = sym_args("sum_over_numel")["div"].values()
    assert symbols(expr) == {b, n} and evaluate(expr, {b: 5, n: 7}) == 35
    args = sym_args("batch_mean_by_hand")
    b, n = by_name("batch_mean_by_hand")["x"]
    assert args["div"] == {"other": b}
    (expr,) = args["mul"].values()
    assert eval(expr, {"__builtins__": {}}, {**FUNCTIONS, n: 20}) == 1 / 20
    # A number the program writes stays a number: no node of the others has sym_args.
    assert not sym_args("softmax_dim1") and not sym_args("conv_pool_fc")


def test_without_dynamic_nothing_changes():
    d = frontend.trace_file(str(ROOT / FOLDER / "linear_relu.py"))
    assert d["dynamic"] is False and "dynamic_error" not in d
    assert "sym_shape" not in repr(d)


def strip_sym(v):
    """The traced document without what dynamic=True adds."""
    if isinstance(v, dict):
        return {k: strip_sym(x) for k, x in v.items()
                if k not in ("sym_shape", "sym_args", "dynamic", "dynamic_error")}
    if isinstance(v, list):
        return [strip_sym(x) for x in v]
    return v


def test_the_static_fields_are_the_static_export():
    path = str(ROOT / FOLDER / "conv_pool_fc.py")
    assert strip_sym(traced(Path(path))) == strip_sym(frontend.trace_file(path))


def test_a_failing_dynamic_export_leaves_the_trace_static(monkeypatch):
    def fail(model, inputs, decompose=()):
        raise RuntimeError("no dynamic shapes today\nsecond line")

    monkeypatch.setattr(frontend, "_export_dynamic", fail)
    path = str(ROOT / FOLDER / "linear_relu.py")
    d = frontend.trace_file(path, dynamic=True)
    assert d["dynamic"] is False
    assert d["dynamic_error"] == "dynamic export failed: RuntimeError: no dynamic shapes today"
    assert "sym_shape" not in repr(d)
    assert strip_sym(d) == strip_sym(frontend.trace_file(path))


def test_graphs_that_do_not_line_up_leave_the_trace_static(monkeypatch):
    import torch

    real = frontend._export_dynamic
    # The dynamic export sees one more operation than the static one.
    def one_more(model, inputs, decompose=()):
        forward = model.forward
        model.forward = lambda *args: torch.tanh(forward(*args))
        return real(model, inputs, decompose)

    monkeypatch.setattr(frontend, "_export_dynamic", one_more)
    d = frontend.trace_file(str(ROOT / FOLDER / "linear_relu.py"), dynamic=True)
    assert d["dynamic"] is False
    assert d["dynamic_error"].startswith("dynamic export does not line up with the static one: ")
    assert "tanh" in d["dynamic_error"]
    assert "sym_shape" not in repr(d)


# --------------------------------------------------------------------------- drtriton import --sym

def drtriton(*args):
    if not BIN.exists():
        pytest.skip(f"{BIN} is not built (run make build)")
    env = dict(os.environ)
    env.setdefault("DRTRITON_PYTHON", sys.executable)
    return subprocess.run([str(BIN), *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=300)


IR_VALUE = re.compile(r"^(?:input |param )?%(\w+) : \w+\[([\d,]*)\]", re.M)
SYM_LINE = re.compile(r"^# sym %(\w+): \[(.*)\]$")
SYM_ATTR_LINE = re.compile(r"^# sym %(\w+)\.(\w+) = (.*)$")
IR_ATTRS = re.compile(r"^%(\w+) : .*\{(.*)\}$", re.M)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_import_sym_prints_shapes_over_the_input_sizes(program):
    run = drtriton("import", "--sym", FOLDER / program.name)
    assert run.returncode == 0, run.stderr
    ir, _, sym_text = run.stdout.partition("# sym ")
    sym_lines = ("# sym " + sym_text).splitlines()
    shapes = {m[1]: [int(x) for x in m[2].split(",") if x] for m in IR_VALUE.finditer(ir)}
    sym, sym_attrs = {}, {}
    for line in sym_lines:
        m = SYM_LINE.match(line)
        if m:
            sym[m[1]] = [s.strip() for s in re.split(r",(?![^()]*\))", m[2])]
            continue
        m = SYM_ATTR_LINE.match(line)
        assert m, line
        sym_attrs[(m[1], m[2])] = m[3]
    # Every input, parameter and node of rank > 0 has one.
    assert set(sym) == {v for v, s in shapes.items() if s}
    # The symbols of the modules' own parameters (a Linear's out_features) are in the
    # traced document, not in the IR.
    sizes = bound_sizes(traced(program))
    for v, dims in sym.items():
        assert symbols(" ".join(dims)) <= set(sizes), (v, dims)
        assert [evaluate(s, sizes) for s in dims] == shapes[v], (v, dims)
    # A number attribute computed from sizes is, at the traced sizes, the traced number.
    attrs = {m[1]: dict(kv.split("=", 1) for kv in m[2].split(", ")) for m in IR_ATTRS.finditer(ir)}
    for (v, attr), expr in sym_attrs.items():
        value = eval(expr, {"__builtins__": {}}, {**FUNCTIONS, **sizes})
        assert math.isclose(value, float(attrs[v][attr])), (v, attr, expr)
    traced_args = [n for n in traced(program)["nodes"] if "sym_args" in n]
    assert len(sym_attrs) == sum(len(n["sym_args"]) for n in traced_args)


def test_import_sym_leaves_the_ir_text_alone():
    with_sym = drtriton("import", "--sym", FOLDER / "conv_pool_fc.py")
    plain = drtriton("import", FOLDER / "conv_pool_fc.py")
    assert with_sym.returncode == plain.returncode == 0, with_sym.stderr + plain.stderr
    assert "# sym " not in plain.stdout
    ir, _, _ = with_sym.stdout.partition("# sym ")
    assert ir == plain.stdout


def test_import_sym_is_for_the_text_form():
    run = drtriton("import", "--sym", "--json", FOLDER / "linear_relu.py")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == "drtriton: --sym adds comment lines to the IR text, not to the JSON form\n"


# --------------------------------------------------------------------------- size-generic solutions

def test_solution_text_does_not_depend_on_the_sizes(tmp_path):
    """Two programs that differ only in their sizes (batch, channels, classes, image size)
    get the same kernels and the same forward: every size, a weight's included, is read at
    run time (`s4 = self.conv.weight.shape[0]`), none is written into the text."""
    source = (ROOT / FOLDER / "conv_pool_fc.py").read_text()
    bodies = []
    for sizes in ({}, {"batch_size = 8": "batch_size = 5", "in_channels = 3": "in_channels = 7",
                       "height = 16": "height = 24", "num_classes = 10": "num_classes = 33"}):
        program = source
        for old, new in sizes.items():
            assert old in program
            program = program.replace(old, new)
        path = tmp_path / f"p{len(bodies)}.py"
        path.write_text(program)
        run = drtriton("convert", "--no-verify", path, "-o", tmp_path / f"s{len(bodies)}.py")
        assert run.returncode == 0, run.stderr
        text = (tmp_path / f"s{len(bodies)}.py").read_text()
        bodies.append(text[text.index("@triton.jit"):text.index("class ModelNew")] +
                      text[text.index("    def forward"):])
    assert bodies[0] == bodies[1]
    assert "        s4 = self.conv.weight.shape[0]\n" in bodies[0]
    assert "self.fc.weight.shape[0]\n" in bodies[0]


def test_numbers_computed_from_sizes_follow_the_sizes(tmp_path):
    """The solutions of the programs that divide by a size, run on other sizes than the
    traced ones, compute what the programs compute there (with the traced size burned in,
    kl_div's batchmean on a batch of 5 divides by 8)."""
    from converted import convert, side_by_side

    names = ["divide_by_size", "sum_over_numel", "batch_mean_by_hand", "kl_div_batchmean"]
    solutions = convert([str(ROOT / FOLDER / f"{n}.py") for n in names], tmp_path)
    script = """
task.batch_size, task.dim = 5, 12
torch.manual_seed(0)
inputs = task.get_inputs()
want = task.Model()(*inputs)
got = solution.ModelNew()(*inputs)
assert got.shape == want.shape, (got.shape, want.shape)
torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
print("ok")
"""
    for program, solution in solutions.items():
        side_by_side(script, program, solution)
