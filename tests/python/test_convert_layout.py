"""The channels-last layout knob (CodegenKnobs::layout, issue 16): 2-d and 3-d convolutions
and transposed convolutions run on NHWC (NDHWC) input, weight and output, the kernels after
them read that layout through its strides, and the program's output is contiguous NCHW.
Each program of tests/python/programs/convert/conv_*.py and conv3d_batchnorm.py (ragged sizes:
odd maps, channel counts that are no power of two, a depthwise and a transposed convolution)
is converted with the knob on (`convert --knob layout=channels_last`) and
judged by the verifier on the CPU (Triton's interpreter); one is run next to the reference
across a load_state_dict into its channels-last weights.
"""
import os
import subprocess

import pytest

import converted

ROOT, BIN = converted.ROOT, converted.BIN
NAMES = ["conv_bias_relu", "conv_groupnorm_gelu", "conv3d_batchnorm", "conv_transpose_tanh",
         "conv_depthwise_chain"]
PROGRAMS = {name: os.path.join(ROOT, "tests", "python", "programs", "convert", f"{name}.py")
            for name in NAMES}


def convert(program, out, layout):
    r = subprocess.run([BIN, "convert", program, "--no-verify", "--knob", f"layout={layout}",
                        "-o", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return out.read_text()


@pytest.fixture(scope="module")
def solutions(tmp_path_factory):
    """{name: (solution path, its source)} with layout=channels_last."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    work = tmp_path_factory.mktemp("layout")
    paths = converted.convert(list(PROGRAMS.values()), work, ["--knob", "layout=channels_last"])
    return {name: (paths[path], open(paths[path]).read()) for name, path in PROGRAMS.items()}


def test_convolutions_run_channels_last(solutions):
    for name, (_, source) in solutions.items():
        conv_lines = [line for line in source.splitlines() if "F.conv" in line]
        assert conv_lines, name
        for line in conv_lines:
            fmt = "torch.channels_last_3d" if "conv3d" in line else "torch.channels_last"
            assert line.endswith(f".contiguous(memory_format={fmt})"), (name, line)
        # __init__ stores each convolution's weight channels-last, once.
        assert source.count("conv.weight = nn.Parameter(conv.weight.detach().contiguous(") == len(conv_lines), name
        # The output is written by a kernel into a contiguous (NCHW) buffer.
        returned = source.rstrip().splitlines()[-1].split()[-1]
        alloc = next(line for line in source.splitlines() if line.strip().startswith(returned + " = torch.empty("))
        assert "memory_format" not in alloc, (name, alloc)


def test_a_kernel_feeding_a_convolution_writes_channels_last(solutions):
    source = solutions["conv_depthwise_chain"][1]
    # the program's input, transposed in tiles, and the first convolution's activation, which
    # cuDNN's depthwise convolution reads channels-last
    assert source.count("device=device, dtype=torch.float32, memory_format=torch.channels_last)") == 2
    assert source.count(", 6).contiguous(memory_format=torch.channels_last)") == 1
    assert "tl.store(buf0_ptr + (n * S + s) * C + c, " in source
    assert "tl.load(lib0_ptr + offs, mask=mask" in source  # the activation runs in memory order


def test_default_layout_is_nchw(tmp_path):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    source = convert(PROGRAMS["conv_bias_relu"], tmp_path / "nchw.py", "nchw")
    assert "channels_last" not in source


def test_verified_channels_last(solutions):
    from drtriton.service_client import Service
    items = [{"task": open(PROGRAMS[name]).read(), "candidate": source,
              "options": {"device": "cpu", "compile": False, "seed": 7}}
             for name, (_, source) in solutions.items()]
    with Service(BIN, "--device", "cpu", "--workers-per-gpu", "2", "--run-timeout", "900",
                 cwd=ROOT, ready_s=120) as service:
        verdicts = service.post("/verify_batch", {"items": items})["verdicts"]
    failed = {name: f"{v.get('failed_stage')}: {v.get('reason')}"
              for name, v in zip(solutions, verdicts) if not v["passed"]}
    assert not failed, failed


# load_state_dict copies into the channels-last weights: the next forward sees the new values
# (and the weights keep their layout).
NEW_WEIGHTS = r"""
torch.manual_seed(0)
model = task.Model(*task.get_init_inputs())
new = solution.ModelNew(*task.get_init_inputs())
new.load_state_dict(model.state_dict())
with torch.no_grad():
    x = task.get_inputs()
    torch.testing.assert_close(new(*x), model(*x), rtol=1e-4, atol=1e-4)
    for p in model.parameters():
        p.mul_(-1.5)
    new.load_state_dict(model.state_dict())
    out = new(*x)
    assert out.is_contiguous()
    assert new.depthwise.weight.is_contiguous(memory_format=torch.channels_last)
    torch.testing.assert_close(out, model(*x), rtol=1e-4, atol=1e-4)
print("ok")
"""


def test_weights_follow_load_state_dict(solutions):
    converted.side_by_side(NEW_WEIGHTS, PROGRAMS["conv_depthwise_chain"],
                           solutions["conv_depthwise_chain"][0])
