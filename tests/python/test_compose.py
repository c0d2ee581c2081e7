"""drtriton.compose: fragment solutions composed into one solution of the whole program.

Unit tests compose small hand-written sources (two fragments that both define `_tile`, a
kernel `k0_relu` and a constant `BLOCK`) and check the renaming, the pruning of base, the
deduplicated imports and every error. The end-to-end test converts examples/conv_block.py
and two fragments of it (conv + batch norm; ReLU, pooling, mean, head, log-softmax) with
`drtriton convert`, composes the fragments' solutions on the whole program's, runs the
composed ModelNew next to the Model (Triton's interpreter, training and eval mode) and
has the verifier judge it.
"""
import ast
import json
import os
import subprocess
import sys
import textwrap

import pytest

from drtriton.compose import ComposeError, compose, main

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))

BASE = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl

HIDDEN = 4
UNUSED = 7


def unused_helper():
    return UNUSED


@triton.jit
def k0_whole(x_ptr, BLOCK: tl.constexpr):
    pass


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, HIDDEN)

    def forward(self, x):
        return k0_whole
'''

# A fragment: `_tile`, `k0_relu` and `BLOCK` as every fragment of the compiler names
# them; `BLOCK` is also k0_relu's parameter (which must keep its name). SCALE tells the
# fragments apart when run; forward only calls plain helpers, so it runs without a GPU.
FRAGMENT = '''
import torch
import triton
import triton.language as tl{extra_import}

BLOCK = 128
SCALE = {scale}


def _tile(n):
    return min(BLOCK, n)


@triton.jit
def k0_relu(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < N), 0.0), mask=offs < N)


def never_called():
    return k0_relu


class ModelNew(torch.nn.Module):
    def __init__(self, n):
        super().__init__()

    def forward(self, {params}):
        if False:
            k0_relu[(1,)](x, x, 1, BLOCK=BLOCK)
        return {body}
'''


def fragment(params="x", body="x * SCALE + _tile(3)", scale=2, extra_import=""):
    return FRAGMENT.format(params=params, body=body, scale=scale, extra_import=extra_import)


def two_step_spec(**overrides):
    spec = {"base": BASE, "inputs": ["x"], "outputs": ["b", "c"],
            "steps": [{"source": fragment(extra_import="\nimport torch.nn as nn"),
                       "inputs": ["x"], "outputs": ["a"]},
                      {"source": fragment("a", "(a * SCALE, a - _tile(1))", scale=10),
                       "inputs": ["a"], "outputs": ["b", "c"]}]}
    spec.update(overrides)
    return spec


def top_level_names(tree):
    return [n.name if hasattr(n, "name") else ast.unparse(n) for n in tree.body
            if not isinstance(n, (ast.Import, ast.ImportFrom))]


def test_fragments_renamed_apart_and_base_pruned():
    text = compose(two_step_spec())
    tree = ast.parse(text)
    assert top_level_names(tree) == [
        "_f0_BLOCK = 128", "_f0_SCALE = 2", "_f0__tile", "_f0_k0_relu", "_f0_forward",
        "_f1_BLOCK = 128", "_f1_SCALE = 10", "_f1__tile", "_f1_k0_relu", "_f1_forward",
        "HIDDEN = 4", "ModelNew"]
    # The kernel's own parameter BLOCK is not a top-level name there: it stays BLOCK, so the
    # launch's keyword still matches; the value passed is the fragment's constant.
    assert "def _f0_k0_relu(x_ptr, y_ptr, N, BLOCK: tl.constexpr):" in text
    assert "offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)" in text
    assert "_f1_k0_relu[1,](x, x, 1, BLOCK=_f1_BLOCK)" in text
    assert "return min(_f0_BLOCK, n)" in text
    # Imports: one of each, in first-seen order, the fragment's `as` form kept.
    imports = [ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert imports == ["import torch", "import torch.nn as nn", "import triton",
                       "import triton.language as tl"]
    model = next(n for n in tree.body if getattr(n, "name", "") == "ModelNew")
    assert [m.name for m in model.body] == ["__init__", "forward"]
    assert ast.unparse(model.body[1]) == textwrap.dedent("""\
        def forward(self, x):
            a = _f0_forward(self, x)
            b, c = _f1_forward(self, a)
            return (b, c)""")
    assert text.startswith("# Composed by drtriton search from 2 fragment solutions")
    assert "#   step 1: b, c = _f1_forward(self, a)" in text
    assert "\n\n\ndef _f0__tile(n):" in text and "_f0_BLOCK = 128\n_f0_SCALE = 2\n" in text


def test_composed_module_runs(tmp_path):
    import importlib.util
    import torch
    path = tmp_path / "composed.py"  # @triton.jit reads its function's source from a file
    path.write_text(compose(two_step_spec()))
    spec = importlib.util.spec_from_file_location("composed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.ModelNew(3)
    assert list(model.state_dict()) == ["lin.weight", "lin.bias"]
    b, c = model(torch.ones(2))
    # a = x * 2 + 3 = 5; b = a * 10, c = a - 1
    assert b.tolist() == [50.0, 50.0] and c.tolist() == [4.0, 4.0]


def test_single_output_returned_as_is():
    spec = two_step_spec(outputs=["a"], steps=two_step_spec()["steps"][:1])
    assert "        return a\n" in compose(spec)


def bad(spec_change, step_change=None, step=1):
    spec = two_step_spec(**spec_change)
    if step_change:
        spec["steps"][step].update(step_change)
    with pytest.raises(ComposeError) as e:
        compose(spec)
    return str(e.value)


@pytest.mark.parametrize("change, expected", [
    ({"source": "def forward(:"}, "step 1: source does not parse"),
    ({"source": "import torch\nclass Other:\n    pass\n"}, "step 1: no class ModelNew"),
    ({"source": "class ModelNew:\n    def __init__(self):\n        pass\n"}, "step 1: ModelNew has no forward"),
    ({"source": fragment("a, extra")}, "step 1: ModelNew.forward takes 2 inputs, the step gives 1"),
    ({"source": fragment().replace("    def forward", "    def helper(self):\n        pass\n\n    def forward")},
     "step 1: ModelNew has more than __init__ and forward (def helper(self):)"),
    ({"inputs": ["z"]}, "step 1: input z is neither a forward input nor an output of an earlier step"),
    ({"inputs": ["_f0_a"]}, "step 1: inputs name '_f0_a' is not a usable variable name"),
    ({"outputs": ["1b"]}, "step 1: outputs name '1b' is not a usable variable name"),
    ({"outputs": ["self"]}, "step 1: outputs name 'self' is not a usable variable name"),
    ({"outputs": []}, "step 1: no outputs"),
    ({"source": fragment(extra_import="\nimport numpy as torch")}, "step 1: `import numpy as torch` binds torch"),
])
def test_step_errors_name_the_step(change, expected):
    assert bad({}, change).startswith(expected)


def test_spec_and_base_errors():
    assert bad({"base": BASE.replace("def __init__", "def build")}) == "base: ModelNew has no __init__"
    assert bad({"base": "class ModelNew(:"}).startswith("base: source does not parse")
    assert bad({"base": "import torch\n"}) == "base: no class ModelNew"
    assert bad({"inputs": ["lambda"]}) == "spec: inputs name 'lambda' is not a usable variable name"
    assert bad({"inputs": ["x", "x"]}) == "spec: an input name is given twice"
    assert bad({"outputs": ["nowhere"]}) == "spec: output nowhere is computed by no step"
    assert bad({"steps": []}) == "spec: steps must be a non-empty list"


def test_cli(tmp_path, capsys):
    spec, out = tmp_path / "spec.json", tmp_path / "out.py"
    spec.write_text(json.dumps(two_step_spec()))
    assert main([str(spec), "-o", str(out)]) == 0
    assert out.read_text() == compose(two_step_spec())
    assert sorted(os.listdir(tmp_path)) == ["out.py", "spec.json"]  # no temp file left
    broken = two_step_spec()
    broken["steps"][1]["inputs"] = ["z"]
    spec.write_text(json.dumps(broken))
    capsys.readouterr()
    assert main([str(spec), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"drtriton compose: {spec}: step 1: input z is neither a forward input "
                   f"nor an output of an earlier step"]
    assert out.read_text() == compose(two_step_spec())  # the old file is left as it was


# ---- end to end: examples/conv_block.py from two fragments

EXAMPLE = os.path.join(ROOT, "examples", "conv_block.py")


def conv_block_fragment(model_body, input_shape):
    """examples/conv_block.py (its sizes, get_init_inputs) with another Model and inputs."""
    text = open(EXAMPLE).read()
    return (text[:text.index("class Model")] + "class Model(nn.Module):"
            + textwrap.indent(model_body, " " * 4) + "\n\ndef get_inputs():\n"
            + f"    return [torch.randn(batch_size, {input_shape})]\n\n\n"
            + text[text.index("def get_init_inputs"):])


# Conv + batch norm; then ReLU, max pooling, mean, head and log-softmax: the modules built
# as examples/conv_block.py builds them, under the same names.
FRAGMENT_A = conv_block_fragment("""
def __init__(self, in_channels, channels, classes):
    super().__init__()
    self.conv = nn.Conv2d(in_channels, channels, kernel_size=3, padding=1)
    self.bn = nn.BatchNorm2d(channels)

def forward(self, x):
    return self.bn(self.conv(x))
""", "in_channels, height, width")
FRAGMENT_B = conv_block_fragment("""
def __init__(self, in_channels, channels, classes):
    super().__init__()
    self.pool = nn.MaxPool2d(2)
    self.head = nn.Linear(channels, classes)

def forward(self, y):
    y = self.pool(torch.relu(y))
    y = y.mean(dim=(2, 3))
    return torch.log_softmax(self.head(y), dim=1)
""", "channels, height, width")

# Runs in a fresh interpreter with TRITON_INTERPRET=1 (set before triton is imported).
SIDE_BY_SIDE = r"""
import importlib.util, sys
import torch

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

task, composed = load("task", sys.argv[1]), load("composed", sys.argv[2])
torch.manual_seed(0)
model = task.Model(*task.get_init_inputs())
new = composed.ModelNew(*task.get_init_inputs())
assert list(new.state_dict()) == list(model.state_dict()), (list(new.state_dict()), list(model.state_dict()))
new.load_state_dict(model.state_dict())
with torch.no_grad():
    for step in range(2):  # training mode: batch statistics, running buffers updated
        x = [t * (1 + step) + step for t in task.get_inputs()]
        torch.testing.assert_close(new(*x), model(*x), rtol=1e-4, atol=1e-4)
    for (name, ours), (_, theirs) in zip(new.named_buffers(), model.named_buffers()):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6, msg=name)
    model.eval(), new.eval()
    x = task.get_inputs()
    torch.testing.assert_close(new(*x), model(*x), rtol=1e-4, atol=1e-4)
print("ok")
"""


@pytest.fixture(scope="module")
def composed(tmp_path_factory):
    """(task path, composed solution path) for examples/conv_block.py."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    work = tmp_path_factory.mktemp("compose")
    task = EXAMPLE
    (work / "frag_a.py").write_text(FRAGMENT_A)
    (work / "frag_b.py").write_text(FRAGMENT_B)
    solutions = {}
    for name, program in [("whole", task), ("a", work / "frag_a.py"), ("b", work / "frag_b.py")]:
        out = work / f"solution_{name}.py"
        r = subprocess.run([BIN, "convert", str(program), "--no-verify", "-o", str(out)],
                           capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        solutions[name] = out.read_text()
    spec = {"base": solutions["whole"], "inputs": ["x"], "outputs": ["v2"],
            "steps": [{"source": solutions["a"], "inputs": ["x"], "outputs": ["v1"]},
                      {"source": solutions["b"], "inputs": ["v1"], "outputs": ["v2"]}]}
    (work / "spec.json").write_text(json.dumps(spec))
    r = subprocess.run([sys.executable, "-m", "drtriton.compose", str(work / "spec.json"),
                        "-o", str(work / "composed.py")], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    assert r.returncode == 0, r.stderr
    return task, str(work / "composed.py")


def test_composed_conv_block_matches_model(composed):
    env = dict(os.environ, TRITON_INTERPRET="1")
    r = subprocess.run([sys.executable, "-c", SIDE_BY_SIDE, *composed],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


@pytest.mark.parametrize("eval_mode", [False, True], ids=["train", "eval"])
def test_composed_conv_block_verified(composed, eval_mode):
    mode = ["--eval-mode"] if eval_mode else []
    r = subprocess.run([BIN, "verify", *composed, "--device", "cpu", "--no-compile-timing",
                        "--json", *mode], capture_output=True, text=True, cwd=ROOT)
    assert r.stdout.strip().startswith("{"), r.stderr[-3000:]
    verdict = json.loads(r.stdout)
    assert verdict["passed"] and r.returncode == 0, verdict["reason"]
    assert verdict["checks"]["static_violations"] == []
