"""Tests for drtriton.frontend (KernelBench file -> drtriton.traced/1 JSON)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from drtriton.frontend import FORMAT, FrontendError, main, trace_file

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
PYDIR = os.path.abspath(os.path.join(HERE, "..", "..", "python"))


def prog(name):
    return os.path.join(PROGRAMS, name)


def linenos(path, code):
    """1-based numbers of the lines whose stripped text is `code`."""
    with open(path) as f:
        return [i + 1 for i, line in enumerate(f) if line.strip() == code]


def lineno(path, code):
    hits = linenos(path, code)
    assert len(hits) == 1, (code, hits)
    return hits[0]


_cache = {}


def traced(name):
    if name not in _cache:
        _cache[name] = trace_file(prog(name))
    return _cache[name]


def nodes_by_name(doc):
    return {n["name"]: n for n in doc["nodes"]}


def args_of(node):
    return {a["name"]: a for a in node["args"]}


def run_cli(*argv):
    env = dict(os.environ, PYTHONPATH=PYDIR)
    return subprocess.run([sys.executable, "-m", "drtriton.frontend", *argv],
                          capture_output=True, text=True, env=env, timeout=120)


# --------------------------------------------------------------------------- content

def test_conv_bn_relu():
    path = prog("conv_bn_relu.py")
    d = traced("conv_bn_relu.py")
    assert d["format"] == FORMAT
    assert d["source"] == path
    assert d["inputs"] == [{"name": "x", "dtype": "f32", "shape": [128, 3, 32, 32]}]
    assert d["constant_inputs"] == []
    # BatchNorm in training mode: num_batches_tracked += 1, then batch_norm(training=True).
    assert [n["target"] for n in d["nodes"]] == [
        "aten::conv2d", "aten::add_", "aten::batch_norm", "aten::relu"]
    n = nodes_by_name(d)
    conv = n["conv2d"]
    assert conv["overload"] == "default"
    assert conv["dtype"] == "f32" and conv["shape"] == [128, 16, 32, 32]
    assert [a["name"] for a in conv["args"]] == [
        "input", "weight", "bias", "stride", "padding", "dilation", "groups"]
    a = args_of(conv)
    assert a["input"] == {"name": "input", "value": {"ref": "x"}}  # no default key
    assert a["weight"]["value"] == {"ref": "p_conv_weight"}
    assert a["bias"] == {"name": "bias", "value": {"ref": "p_conv_bias"}, "default": None}
    assert a["padding"] == {"name": "padding", "value": [1, 1], "default": [0, 0]}
    assert a["stride"] == {"name": "stride", "value": [1, 1], "default": [1, 1]}
    assert a["groups"]["value"] == 1
    assert conv["module"] == "conv" and conv["module_class"] == "Conv2d"
    assert conv["module_call"] == "L__self__conv"
    assert conv["line"] == f"{path}:{lineno(path, 'x = self.conv(x)')}"
    assert conv["code"] == "x = self.conv(x)"

    bn = n["batch_norm"]
    b = args_of(bn)
    assert b["training"]["value"] is True
    assert b["eps"]["value"] == 0.001 and b["momentum"]["value"] == 0.1
    assert b["running_mean"]["value"] == {"ref": "b_bn_running_mean"}
    assert bn["module"] == "bn" and bn["module_class"] == "BatchNorm2d"
    assert n["add_"]["mutates"] == ["self"]
    assert n["add_"]["dtype"] == "i64" and n["add_"]["shape"] == []

    relu = n["relu"]
    assert relu["module"] == "" and relu["module_class"] == "Model"
    assert relu["line"] == f"{path}:{lineno(path, 'return torch.relu(x)')}"
    assert d["outputs"] == [{"ref": "relu"}]
    assert d["mutations"] == [{"ref": "add_", "target": "bn.num_batches_tracked",
                               "kind": "buffer", "arg": "self"}]

    params = {p["target"]: p for p in d["params"]}
    assert params["conv.weight"] == {"placeholder": "p_conv_weight", "target": "conv.weight",
                                     "kind": "parameter", "dtype": "f32",
                                     "shape": [16, 3, 3, 3]}
    assert params["bn.running_var"]["kind"] == "buffer"
    assert params["bn.num_batches_tracked"]["dtype"] == "i64"

    mods = d["modules"]
    assert mods["conv"]["type"] == "torch.nn.modules.conv.Conv2d"
    assert mods["conv"]["attrs"]["kernel_size"] == [3, 3]
    assert mods["conv"]["attrs"]["padding"] == [1, 1]
    assert "training" not in mods["conv"]["attrs"]
    assert mods["conv"]["params"] == ["weight", "bias"]
    assert mods["bn"]["attrs"]["eps"] == 0.001
    assert mods["bn"]["buffers"] == ["running_mean", "running_var", "num_batches_tracked"]
    assert mods[""]["class"] == "Model"


def test_linear_gelu():
    path = prog("linear_gelu.py")
    d = traced("linear_gelu.py")
    lin, gelu = d["nodes"]
    assert lin["target"] == "aten::linear" and lin["shape"] == [64, 512]
    assert args_of(lin)["weight"]["value"] == {"ref": "p_linear_weight"}
    assert args_of(lin)["bias"]["value"] == {"ref": "p_linear_bias"}
    assert lin["module"] == "linear" and lin["module_class"] == "Linear"
    assert gelu["target"] == "aten::gelu"
    # kwarg-only schema argument, passed by keyword: value and schema default.
    assert args_of(gelu)["approximate"] == {"name": "approximate", "value": "tanh",
                                            "default": "none"}
    assert gelu["module"] == ""
    gelu_line = lineno(path, 'x = F.gelu(x, approximate="tanh")')
    assert gelu["line"] == f"{path}:{gelu_line}"
    assert d["modules"]["linear"]["attrs"] == {"in_features": 256, "out_features": 512}
    assert {p["target"]: p["shape"] for p in d["params"]} == {
        "linear.weight": [512, 256], "linear.bias": [512]}


def test_residual_two_inputs_and_constants():
    d = traced("residual_two_inputs.py")
    assert d["inputs"] == [{"name": "x", "dtype": "f32", "shape": [32, 128]},
                           {"name": "y", "dtype": "f32", "shape": [32, 128]}]
    assert d["constant_inputs"] == [{"name": "k", "value": 3}, {"name": "scale", "value": 0.5}]
    assert [x["target"] for x in d["nodes"]] == [
        "aten::linear", "aten::add", "aten::mul", "aten::add", "aten::clamp"]
    n = nodes_by_name(d)
    assert args_of(n["linear"])["bias"]["value"] is None
    add = args_of(n["add"])
    assert add["self"]["value"] == {"ref": "linear"} and add["other"]["value"] == {"ref": "y"}
    assert add["alpha"] == {"name": "alpha", "value": 1, "default": 1}
    assert args_of(n["mul"])["other"]["value"] == 0.5          # constant input burned in
    assert args_of(n["add_1"])["other"]["value"] == {"ref": "p_bias"}
    c = args_of(n["clamp"])
    assert c["min"]["value"] == {"float": "-inf"} and c["max"]["value"] == 3.0
    assert d["modules"][""]["params"] == ["bias"]
    assert d["modules"]["proj"]["params"] == ["weight"]  # bias=False: absent
    assert d["outputs"] == [{"ref": "clamp"}]
    assert d["mutations"] == []


def test_nested_modules():
    path = prog("nested_modules.py")
    d = traced("nested_modules.py")
    n = nodes_by_name(d)
    targets = [x["target"] for x in d["nodes"]]
    # nn.Identity and an already-contiguous .contiguous() leave no node.
    assert "aten::contiguous" not in targets
    assert not any(x["module_class"] == "Identity" for x in d["nodes"])
    assert targets.count("aten::conv2d") == 2 and targets.count("aten::relu_") == 2

    assert n["conv2d"]["module"] == "blocks.0.conv"
    assert n["conv2d_1"]["module"] == "blocks.1.conv"
    assert args_of(n["conv2d_1"])["input"]["value"] == {"ref": "add"}
    assert n["relu_"]["module"] == "blocks.0.act" and n["relu_"]["mutates"] == ["self"]
    assert n["add"]["module"] == "blocks.0" and n["add"]["module_class"] == "Block"
    assert [(m["path"], m["class"]) for m in n["relu_"]["module_stack"]] == [
        ("", "Model"), ("blocks.0", "Block"), ("blocks.0.act", "ReLU")]
    assert args_of(n["add"])["self"]["value"] == {"ref": "relu_"}
    assert args_of(n["add"])["other"]["value"] == {"ref": "x"}

    # x.view(x.size(0), -1): the size is a constant; torch.flatten / nn.Flatten: flatten.using_ints
    assert n["view"]["target"] == "aten::view"
    assert args_of(n["view"])["size"]["value"] == [8, -1]
    assert n["flatten"]["overload"] == "using_ints" and n["flatten"]["module"] == ""
    assert n["flatten_1"]["module"] == "head.0"
    assert args_of(n["flatten"])["start_dim"] == {"name": "start_dim", "value": 1, "default": 0}

    # Dropout: kept as aten::dropout with train=True (module and functional spellings).
    assert n["dropout"]["module"] == "head.2"
    assert args_of(n["dropout"])["p"]["value"] == 0.25
    assert args_of(n["dropout"])["train"]["value"] is True
    assert n["dropout_1"]["module"] == "" and args_of(n["dropout_1"])["p"]["value"] == 0.5
    assert d["modules"]["head.2"]["attrs"] == {"p": 0.25, "inplace": False}

    # The same module called twice: one path, two call keys.
    assert n["layer_norm"]["module"] == n["layer_norm_1"]["module"] == "norm"
    assert n["layer_norm"]["module_call"] == "L__self__norm"
    assert n["layer_norm_1"]["module_call"] == "L__self__norm@1"
    assert [n["layer_norm"]["line"], n["layer_norm_1"]["line"]] == [
        f"{path}:{i}" for i in linenos(path, "x = self.norm(x)")]
    # Nodes inside a user-defined submodule point at the innermost line in the file.
    block_line = lineno(path, "return self.act(self.conv(x)) + self.skip(x)")
    assert n["add"]["line"] == n["relu_"]["line"] == f"{path}:{block_line}"

    # Tuple-valued node and getitem.
    mx = n["max_1"]
    assert mx["target"] == "aten::max" and mx["overload"] == "dim"
    assert mx["outputs"] == [{"dtype": "f32", "shape": [8]}, {"dtype": "i64", "shape": [8]}]
    assert "shape" not in mx
    assert n["getitem_1"]["target"] == "getitem"
    assert n["getitem_1"]["args"] == [{"name": "input", "value": {"ref": "max_1"}},
                                      {"name": "index", "value": 1}]
    assert n["getitem_1"]["dtype"] == "i64"
    assert d["outputs"] == [{"ref": "getitem"}, {"ref": "getitem_1"}]

    mods = d["modules"]
    for p in ("blocks", "blocks.0", "blocks.0.conv", "blocks.1.skip", "head", "head.1", "norm"):
        assert p in mods
    assert mods["blocks.0"]["type"].endswith(".Block")
    assert mods["blocks.0.conv"]["params"] == ["weight"]
    assert mods["norm"]["attrs"]["normalized_shape"] == [10]
    assert mods["blocks.0.act"]["attrs"] == {"inplace": True}
    assert [p["target"] for p in d["params"]][:2] == ["blocks.0.conv.weight",
                                                       "blocks.1.conv.weight"]


def test_cuda_calls_stay_on_meta_and_prints_are_swallowed(capsys):
    d = traced("cuda_calls.py")
    out = capsys.readouterr().out
    assert "loading cuda_calls" not in out and "in forward" not in out
    assert d["inputs"] == [{"name": "x", "dtype": "f32", "shape": [4, 16]}]
    p = {x["target"]: x for x in d["params"]}
    assert p["w"]["kind"] == "parameter" and p["m"]["kind"] == "buffer"
    assert p["m"]["persistent"] is False
    n = nodes_by_name(d)
    assert args_of(n["zeros"])["size"]["value"] == [4, 16]
    to = [x for x in d["nodes"] if x["target"] == "aten::to"]
    assert len(to) == 1 and to[0]["dtype"] == "f16"
    assert args_of(to[0])["dtype"]["value"] == "float16"


def test_every_schema_argument_is_listed():
    import torch

    for name in ("conv_bn_relu.py", "linear_gelu.py", "residual_two_inputs.py",
                 "nested_modules.py"):
        for node in traced(name)["nodes"]:
            if node["target"] == "getitem":
                continue
            ns, op = node["target"].split("::")
            overload = getattr(getattr(getattr(torch.ops, ns), op), node["overload"])
            assert [a["name"] for a in node["args"]] == \
                [a.name for a in overload._schema.arguments]
            assert node["schema"] == str(overload._schema)


# --------------------------------------------------------------------------- size

def test_gpu_sized_program_is_never_materialized():
    # Materialized, this program holds 3 x 256 MiB of weights and a 32 MiB input. The
    # first export in a process pays for torch.export's own imports (seconds, about
    # 180 MiB), so warm up on a small program first, then measure the big one alone.
    # Peak memory is VmHWM (reset through /proc/self/clear_refs): ru_maxrss survives
    # exec and would report pytest's own peak.
    code = textwrap.dedent(f"""
        import json, sys, time
        sys.path.insert(0, {PYDIR!r})
        from drtriton.frontend import trace_file

        def status(key):
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith(key + ":"):
                        return int(line.split()[1]) // 1024
        t0 = time.time()
        trace_file({prog('linear_gelu.py')!r})
        first_s = time.time() - t0
        rss0 = status("VmRSS")
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            base = rss0
        except OSError:
            base = status("VmHWM")
        t0 = time.time()
        d = trace_file({prog('gpu_sized.py')!r})
        big_s = time.time() - t0
        print(json.dumps(dict(first_s=first_s, big_s=big_s, peak_mb=status("VmHWM") - base,
                              nodes=[(n["target"], n["shape"]) for n in d["nodes"]],
                              params=[(p["target"], p["shape"]) for p in d["params"]],
                              inputs=d["inputs"])))
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["big_s"] < 5.0, res
    assert res["peak_mb"] < 64, res   # the weights alone would be 768 MiB
    assert res["inputs"] == [{"name": "x", "dtype": "f32", "shape": [1024, 8192]}]
    assert res["params"][:2] == [["fc1.weight", [8192, 8192]], ["fc1.bias", [8192]]]
    assert res["nodes"] == [["aten::linear", [1024, 8192]], ["aten::relu", [1024, 8192]],
                            ["aten::linear", [1024, 8192]], ["aten::sigmoid", [1024, 8192]],
                            ["aten::linear", [1024, 8192]], ["aten::mul", [1024, 8192]]]


# --------------------------------------------------------------------------- CLI and errors

def test_cli_writes_json_atomically(tmp_path):
    out = tmp_path / "out.json"
    r = run_cli(prog("linear_gelu.py"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    doc = json.loads(out.read_text())
    assert doc == json.loads(json.dumps(traced("linear_gelu.py")))
    assert os.listdir(tmp_path) == ["out.json"]  # no temp file left behind


def test_cli_stdout():
    r = run_cli(prog("residual_two_inputs.py"))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["constant_inputs"][0] == {"name": "k", "value": 3}


def _cli_error(capsys, tmp_path, path):
    out = tmp_path / "out.json"
    rc = main([path, "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 1
    assert not out.exists() and os.listdir(tmp_path) == []
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert lines[0].startswith(path + ": ")
    return lines[0]


def test_error_missing_file(capsys, tmp_path):
    path = str(tmp_path / "nope.py")
    out = tmp_path / "o.json"
    rc = main([path, "-o", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and err == f"{path}: no such file" and not out.exists()


def test_error_no_model(capsys, tmp_path):
    msg = _cli_error(capsys, tmp_path, prog("no_model.py"))
    assert "not a KernelBench program" in msg
    assert "no class Model(nn.Module)" in msg and "no get_init_inputs()" in msg
    assert "get_inputs()" not in msg.replace("get_init_inputs()", "")


def test_error_syntax(capsys, tmp_path):
    path = prog("syntax_error.py")
    msg = _cli_error(capsys, tmp_path, path)
    assert f"syntax error at line {lineno(path, 'def forward(self, x)')}" in msg


def test_error_export_names_user_line(capsys, tmp_path):
    path = prog("export_fails.py")
    msg = _cli_error(capsys, tmp_path, path)
    line = lineno(path, "return y.view(7, -1)")
    assert f"export failed at {path}:{line} (return y.view(7, -1))" in msg
    assert "shape '[7, -1]' is invalid" in msg


def test_error_keeps_existing_output(tmp_path):
    out = tmp_path / "out.json"
    out.write_text("previous")
    r = run_cli(prog("syntax_error.py"), "-o", str(out))
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "syntax error at line" in r.stderr
    assert out.read_text() == "previous" and os.listdir(tmp_path) == ["out.json"]


def test_trace_file_raises_frontend_error():
    with pytest.raises(FrontendError, match=r"syntax error at line \d+"):
        trace_file(prog("syntax_error.py"))


@pytest.mark.parametrize("body,expect", [
    ("import torch\nraise ValueError('boom')\n", "error while loading at {p}:2"),
    ("import torch\nclass Model(torch.nn.Module):\n    def __init__(self, n):\n"
     "        super().__init__()\n        self.k = int(torch.randn(n).sum().item())\n"
     "def get_inputs():\n    return [torch.randn(2)]\n"
     "def get_init_inputs():\n    return [3]\n",
     "Model(*get_init_inputs()) failed at {p}:5"),
    ("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
     "        if x.sum() > 0:\n            return x\n        return -x\n"
     "def get_inputs():\n    return [torch.randn(2)]\n"
     "def get_init_inputs():\n    return []\n",
     "export failed at {p}:4 (if x.sum() > 0:)"),
    ("import torch\nclass Model(torch.nn.Module):\n    pass\n"
     "def get_inputs():\n    return torch.randn(2)\n"
     "def get_init_inputs():\n    return []\n",
     "get_inputs() must return a list or tuple"),
])
def test_error_messages(tmp_path, capsys, body, expect):
    p = tmp_path / "prog.py"
    p.write_text(body)
    out = tmp_path / "o.json"
    rc = main([str(p), "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 1 and not out.exists()
    assert err.count("\n") == 1 and err.startswith(f"{p}: ")
    assert expect.format(p=p) in err, err
