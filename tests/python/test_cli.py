"""The drtriton command end to end: the operator table against OPS.md, and the full
`drtriton import model.py` path (C++ starting the Python frontend) on the bundled example."""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))

# Every operator OPS.md names, as `drtriton ops` spells it, with its OPS.md section.
OPS_MD = {
    "anchor": "linear matmul bmm addmm conv1d conv2d conv3d conv_transpose1d conv_transpose2d "
              "conv_transpose3d",
    "unary": "relu sigmoid tanh gelu mish hardswish hardsigmoid hardtanh leaky_relu elu selu "
             "softplus silu exp log abs sqrt rsqrt neg reciprocal square pow clamp clamp_min "
             "clamp_max erf sin cos sign round floor ceil trunc",
    "binary": "add sub mul div maximum minimum where",
    "reduction": "sum mean max min amax amin logsumexp var std norm prod argmax argmin cumsum",
    "normalization": "batch_norm1d batch_norm2d batch_norm3d group_norm layer_norm "
                     "instance_norm2d instance_norm3d rms_norm softmax log_softmax",
    "pooling": "max_pool1d max_pool2d max_pool3d avg_pool1d avg_pool2d avg_pool3d "
               "adaptive_avg_pool2d adaptive_avg_pool3d",
    "layout": "reshape flatten permute transpose unsqueeze squeeze cat clone contiguous dropout "
              "identity",
}


def drtriton(*args, check=True):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    env = dict(os.environ)
    env.setdefault("DRTRITON_PYTHON", sys.executable)
    run = subprocess.run([BIN, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                         env=env, timeout=300)
    if check:
        assert run.returncode == 0, run.stderr
    return run


def test_ops_json_lists_every_ops_md_operator_with_category_and_arity():
    table = {op["name"]: op for op in json.loads(drtriton("ops", "--json").stdout)}
    named = {name: cat for cat, names in OPS_MD.items() for name in names.split()}
    assert len(named) >= 66
    for name, category in named.items():
        assert name in table, f"OPS.md operator {name} is missing"
        assert table[name]["category"] == category, name
        assert isinstance(table[name]["arity"], int), name
    assert table["where"]["arity"] == 3 and table["cat"]["arity"] == -1
    assert table["conv2d"]["has_params"] and table["conv2d"]["torch_module"].startswith("nn.Conv2d(")


def test_import_of_an_emitted_program_gives_the_graph_back(tmp_path):
    program, back = tmp_path / "model.py", tmp_path / "back.ir"
    drtriton("emit", "examples/conv_relu_scale.ir", "-o", program)
    drtriton("import", program, "-o", back)
    assert back.read_text() == (
        "input %x : f32[128,3,32,32]\n"
        "param %scale : f32[16,1,1]\n"
        '%conv2d : f32[128,16,30,30] = conv2d(%x) {module="conv", in_channels=3, '
        "out_channels=16, kernel_size=[3,3]}\n"
        "%relu : f32[128,16,30,30] = relu(%conv2d)\n"
        "%mul : f32[128,16,30,30] = mul(%relu, %scale)\n"
        "return %mul\n")
    # The JSON form carries the same graph.
    graph = json.loads(drtriton("import", program, "--json").stdout)
    assert [n["op"] for n in graph["nodes"]] == ["conv2d", "relu", "mul"]
    assert graph["nodes"][0]["attrs"]["stride"] == [1, 1]


def test_check_summarizes_the_graph():
    out = drtriton("check", "examples/conv_relu_scale.ir").stdout
    assert out.splitlines()[-1].startswith("# ok: 1 inputs, 1 params, 3 nodes (3 compute)")


def test_quiet_and_verbose(tmp_path):
    """--quiet leaves stderr empty, --verbose adds each step's time; either goes before or
    after the command's name, and they exclude each other."""
    program = os.path.join("examples", "mlp_layernorm.py")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # each traces in its own Python
        quiet, normal, loud = pool.map(lambda args: drtriton(*args), [
            ("convert", program, "-o", tmp_path / "q.py", "--no-verify", "--quiet"),
            ("convert", program, "-o", tmp_path / "n.py", "--no-verify"),
            ("-v", "convert", program, "-o", tmp_path / "v.py", "--no-verify")])
    assert quiet.stderr == "" and (tmp_path / "q.py").exists()
    assert "drtriton convert: " in normal.stderr and "trace " not in normal.stderr
    assert "  trace and import " in loud.stderr and ", compile " in loud.stderr
    assert (tmp_path / "q.py").read_text() == (tmp_path / "v.py").read_text()
    both = drtriton("-q", "convert", program, "-v", check=False)
    assert both.returncode == 2 and "excludes" in both.stderr
