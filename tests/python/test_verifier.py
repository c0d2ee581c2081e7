"""The verifier worker on the CPU (Triton's interpreter), driven through its JSON-lines protocol
exactly as the C++ service drives it: honest candidates pass with sane errors, every cheat of
tests/eval/candidates is rejected at the stage and for the reason its header names, faults the
worker handles give a clean verdict and the next request is served, and faults that kill or
hang the worker do so at the expected stage. The GPU tier is bench/verify_gpu.py (same suite)."""
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from drtriton.verifier import client, inputs, judge, static_checks

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SUITE = os.path.join(ROOT, "tests", "eval", "candidates")
CASES = client.load_suite(SUITE)
BY_NAME = {c.name: c for c in CASES}
HANDLED = [c for c in CASES if c.expect.outcome in ("passed", "rejected")]
FATAL = [c for c in CASES if c.expect.outcome in ("crash", "hang")]
# The static checks refuse most cheats and faults before they run; `layer: runtime` cases run
# on a worker with the static checks off, to show the layers behind them hold on their own.
HANG_SECONDS = 8
ESCAPED_FILE = "/tmp/drtriton_escaped_from_scratch.npy"


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    w = client.WorkerClient("cpu", scratch=str(tmp_path_factory.mktemp("scratch")))
    w.start()
    yield w
    w.close()


@pytest.fixture(scope="module")
def runtime_worker(tmp_path_factory):
    w = client.WorkerClient("cpu", scratch=str(tmp_path_factory.mktemp("scratch_runtime")),
                            extra_env=client.RUNTIME_ENV)
    w.start()
    yield w
    w.close()


def run(worker, case, **extra):
    task, candidate = case.sources()
    options = {"compile": False, **case.options, **extra}
    return worker.request(task, candidate, options, timeout=180)


def test_suite_is_complete():
    names = set(BY_NAME)
    cheats = ("calls_reference try_except_fallback kernel_never_launched kernel_one_branch subclass_model "
              "reuse_output_memory modifies_input cache_by_pointer cache_global cache_by_shape side_stream "
              "thread patch_timer patch_event lazy_subclass returns_zeros returns_constant shape_hardcoded "
              "tf32 fp16 nan_output torch_ops_strict "
              # the classes of the outside review (issue 8), one case or more each
              "work_in_grid custom_op_named_clone numpy_compute host_read_branch edit_verifier_tables "
              "edit_verifier_tables_runtime self_named_kernel cache_on_self detects_timed_runs "
              "matmul_with_ones fused_activation_gemm stack_inspection rows_capped dynamic_names "
              "wrong_when_large wrong_when_equal "
              # recurrent layers are library ops: one that the reference does not make
              "rnn_as_relu rnn_via_aten "
              # library calls counted against the reference's own on the same inputs' sizes
              "extra_matmul_a_step "
              # a drop-in updates what the reference updates: BatchNorm's running statistics
              "batchnorm_stale_running_stats batchnorm_running_stats_off "
              # the no-op test counts only the reference's buffers as work
              "noop_private_buffer "
              # dropout judged by statistics in training mode, exactly in eval mode (issue 14)
              "dropout_drops_nothing dropout_wrong_p dropout_unscaled dropout_same_mask "
              "dropout_wrong_in_eval").split()
    faults = ("syntax_error import_error kernel_compile_error illegal_memory_access segfault "
              "kernel_infinite_loop host_infinite_loop oom prints_megabytes network "
              "write_outside_scratch").split()
    assert not [c for c in cheats if f"cheat_{c}" not in names]
    assert not [f for f in faults if f"fault_{f}" not in names]
    assert sum(n.startswith("honest_") for n in names) >= 5
    for case in CASES:
        assert os.path.exists(case.task_path), case.name


def test_ready_line_names_device_and_versions(worker):
    assert worker.ready["ready"] is True and worker.ready["device"] == "cpu"
    assert set(worker.ready["versions"]) >= {"torch", "triton", "python", "cuda", "verifier"}
    # the judge's own sources are a version: a changed rule expires cached verdicts
    assert re.fullmatch(r"[0-9a-f]{16}", worker.ready["versions"]["verifier"])


@pytest.mark.parametrize("case", HANDLED, ids=[c.name for c in HANDLED])
def test_case(request, case):
    if case.name == "fault_write_outside_scratch" and os.path.exists(ESCAPED_FILE):
        os.remove(ESCAPED_FILE)
    worker = request.getfixturevalue("runtime_worker" if case.runtime_only else "worker")
    result = run(worker, case)
    assert result.outcome == "verdict", (result.outcome, result.progress)
    v = result.verdict
    ok, got = client.judge_case(case, result, "cpu")
    assert ok, f"expected {case.expect}, got {got}\n{json.dumps(v, indent=1)[:3000]}"
    stages = ["static", "load", "compile", "faithful", "correct", "timed"]
    assert result.progress == stages[:len(result.progress)]
    if v["passed"]:
        assert v["stage"] == "timed" and v["reward"]["correct"] == 1
        assert -2 <= v["reward"]["speed"] <= 2
        assert len(v["err"]) >= 5 and {e["dist"] for e in v["err"]} >= {"normal*1", "uniform[-1,1]"}
        structured = {label for label, _, _ in inputs.DISTRIBUTIONS[inputs.STRUCTURED_FROM:]}
        for e in v["err"]:
            if "skipped" in e:
                continue
            assert 0 <= e["candidate"] <= e["bound"], e
            # structured values may be ill-conditioned; a constant output is rounding noise
            if e["dist"] not in structured and "task_output_constant" not in v["flags"]:
                assert e["candidate"] < 1e-5, e
        assert v["checks"]["launches"] and all(n > 0 for n in v["checks"]["launches"].values())
        assert ("task_output_constant" in v["flags"]) == (case.name == "honest_constant_output")
        assert v["checks"]["noop_changed_output"] and all(v["checks"]["noop_changed_output"].values())
        assert v["timing_ms"]["device_kind"] == "cpu-wallclock" and "cpu_timing" in v["flags"]
        assert v["timing_ms"]["candidate"]["median"] > 0 and v["reference_timing"]["eager"]["median"] > 0
        # each size variation ran, or the verdict says why not
        varied, skipped = v["checks"]["shape_variation"], v["checks"].get("shape_variation_skipped", {})
        assert sorted([*varied, *skipped]) == ["down", "up"], v["checks"]
        if case.name == "honest_tiny_square":
            assert list(skipped) == ["up"] and "within 1.5x their size" in skipped["up"], skipped
    else:
        assert v["reward"] == {"correct": 0, "speed": None}
        failed = stages.index(v["failed_stage"])
        assert v["stage"] == (stages[failed - 1] if failed else "none")
        assert "\n" not in v["reason"]
    if case.name == "fault_prints_megabytes":
        assert v["checks"]["output_bytes"] >= 3 << 20
        assert len(v["checks"]["output_tail"]) <= 4096
    if case.name == "fault_write_outside_scratch":
        assert not os.path.exists(ESCAPED_FILE)


def test_worker_serves_the_next_request_after_each_handled_fault(worker):
    honest = BY_NAME["honest_relu_scale"]
    for name in ("fault_syntax_error", "fault_import_error", "fault_kernel_compile_error", "fault_oom",
                 "fault_prints_megabytes", "fault_network", "fault_write_outside_scratch"):
        pid = worker.proc.pid
        assert run(worker, BY_NAME[name]).outcome == "verdict"
        after = run(worker, honest)
        assert after.verdict["passed"], (name, after.verdict["reason"])
        assert worker.proc.pid == pid, f"the worker restarted after {name}"


def test_reference_timing_is_reused(worker):
    case = BY_NAME["honest_relu_scale"]
    first = run(worker, case).verdict
    ref = first["reference_timing"]
    assert ref["device"] == "cpu" and ref["inputs"] == [[[8, 64], "float32"]]
    second = run(worker, case, reference=ref).verdict
    assert "reference_timing_reused" in second["flags"]
    assert second["timing_ms"]["eager"] == ref["eager"]
    stale = dict(ref, inputs=[[[1, 1], "float32"]])
    third = run(worker, case, reference=stale).verdict
    assert "reference_timing_mismatch" in third["flags"] and third["passed"]


def test_strict_and_default_modes_on_a_library_matmul(worker):
    case = BY_NAME["honest_linear_gelu_torch_mm"]
    default = run(worker, case).verdict
    assert default["passed"]
    assert {"op": "aten.mm", "count": default["checks"]["strict_torch_ops"][0]["count"], "kind": "library"} \
        in default["checks"]["strict_torch_ops"]
    strict = run(worker, case, strict=True).verdict
    assert not strict["passed"] and strict["failed_stage"] == "faithful" and "aten.mm" in strict["reason"]
    pure = run(worker, BY_NAME["honest_linear_gelu"], strict=True).verdict
    assert pure["passed"] and pure["checks"]["strict_torch_ops"] == []


def test_a_recurrent_layer_is_one_library_op():
    """nn.LSTM/GRU/RNN count as one `rnn` library op each, whatever they run below (on the
    CPU: matmuls and activations, or oneDNN's per-layer kernel); a second call is refused."""
    import torch
    from drtriton.verifier import torch_ops
    x, y = torch.randn(2, 5, 3), torch.randn(3)
    for layer in (torch.nn.LSTM(3, 4, 2, batch_first=True), torch.nn.GRU(3, 4, bidirectional=True),
                  torch.nn.RNN(3, 4, nonlinearity="relu")):
        recorder = torch_ops.OpRecorder()
        with torch.no_grad(), recorder:
            layer(x)
        assert torch_ops.library_counts(recorder.counts) == {"rnn": 1}, dict(recorder.counts)
        assert torch_ops.violations(recorder.counts, False, {"rnn": 1}) == []
        assert torch_ops.violations(recorder.counts, True, {"rnn": 1})  # --strict refuses it
        twice = torch_ops.OpRecorder()
        with torch.no_grad(), twice:
            layer(x)
            torch.relu(y)
            layer(x)
        assert twice.counts["relu"] == 1
        assert torch_ops.violations(twice.counts, False, {"rnn": 1})


def test_protocol_errors_are_answered_and_the_worker_continues(worker):
    proc = worker.proc
    proc.stdin.write(b"this is not json\n")
    proc.stdin.flush()
    import time
    reply = json.loads(worker._read_line(time.monotonic() + 30))
    assert reply["id"] is None and "bad request" in reply["error"]
    bad = worker.request("x = 1", None, {})
    assert bad.outcome == "verdict" and "bad_request" in bad.verdict["flags"]
    wrong_device = worker.request("x = 1", "y = 2", {"device": "cuda"})
    assert "bad_request" in wrong_device.verdict["flags"] and "cpu" in wrong_device.verdict["reason"]
    task_broken = worker.request("class Model(:\n", BY_NAME["honest_relu_scale"].sources()[1], {})
    assert "task_error" in task_broken.verdict["flags"] and task_broken.verdict["stage"] == "none"
    assert worker.proc.pid == proc.pid


def test_torch_compile_reference_on_cpu(worker):
    """The default options time torch.compile too (once per task; under 30 s here or skipped, and said)."""
    case = BY_NAME["honest_relu_scale"]
    task, candidate = case.sources()
    v = worker.request(task, candidate, {}, timeout=300).verdict
    assert v["passed"]
    if v["timing_ms"]["compile"] is None:
        assert "30 s" in v["timing_ms"]["compile_note"] and v["speedup_compile"] is None
    else:
        assert v["timing_ms"]["compile"]["median"] > 0 and v["speedup_compile"] > 0


def _fatal(case, scratch):
    w = client.WorkerClient("cpu", scratch=scratch, extra_env=client.RUNTIME_ENV if case.runtime_only else None)
    try:
        w.start()
        task, candidate = case.sources()
        return w.request(task, candidate, {"compile": False}, timeout=HANG_SECONDS)
    finally:
        w.close()


def test_faults_that_kill_or_hang_the_worker(tmp_path):
    """Crashes and hangs are the C++ service's to turn into verdicts: here the worker must die (or
    stay silent) at the stage the header names, after reporting that stage as progress."""
    with ThreadPoolExecutor(len(FATAL)) as pool:
        scratches = [str(tmp_path / case.name) for case in FATAL]
        results = list(pool.map(_fatal, FATAL, scratches))
    for case, result in zip(FATAL, results):
        ok, got = client.judge_case(case, result, "cpu")
        assert ok, f"{case.name}: expected {case.expect}, got {got}"
        if result.outcome == "crash":
            assert result.returncode is not None and result.returncode < 0, (case.name, result.returncode)


def test_worker_rejects_a_bad_device():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    run_ = subprocess.run([sys.executable, "-m", "drtriton.worker", "--device", "tpu"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert run_.returncode == 2 and "cuda:N" in run_.stderr


# ---- the static checks alone, on small sources

TASK = static_checks.analyze_task(open(os.path.join(SUITE, "tasks", "relu_scale.py")).read())
KERNEL = '''
import triton
import triton.language as tl
import torch
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
class ModelNew(torch.nn.Module):
    def __init__(self, scale):
        super().__init__()
'''


def rules(source, task=TASK):
    report = static_checks.check_candidate(KERNEL + source, task)
    return sorted({v.rule for v in report.violations})


@pytest.mark.parametrize("source,rule", [
    ("import torch as T\ns = T.cuda.Stream()\n", "streams"),
    ("from torch.cuda import Event as E\nimport torch\ntorch.cuda.Event = E\n", "monkeypatch"),
    ("import torch\nsetattr(torch.cuda, 'synchronize', print)\n", "monkeypatch"),
    ("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", "precision"),
    ("import torch\ntorch.set_float32_matmul_precision('high')\n", "precision"),
    ("import triton.language as tl\ndef f(a, b):\n    return tl.dot(a, b, allow_tf32=True)\n", "precision"),
    ("from triton.tools.tensor_descriptor import TensorDescriptor as T\n"
     "def f(x):\n    return T(x, [4, 4], [4, 1], [4, 4], round_f32_to_tf32=True)\n", "precision"),
    ("from triton.tools.tensor_descriptor import TensorDescriptor\n"
     "def f(x):\n    return TensorDescriptor(x, [4, 4], [4, 1], [4, 4], 'zero', True)\n", "precision"),
    ("from triton.tools.tensor_descriptor import TensorDescriptor\n"
     "def f(x):\n    return TensorDescriptor.from_tensor(x, [4, 4], 'zero', True)\n", "precision"),
    ("from triton.tools import tensor_descriptor as td\n"
     "def f(x):\n    return td.TensorDescriptor(x, [4, 4], [4, 1], [4, 4], **{'round_f32_to_tf32': 1})\n",
     "precision"),
    ("def f(x):\n    return x.half()\n", "precision"),
    ("import functools\n@functools.lru_cache\ndef f(x):\n    return x\n", "cache"),
    ("C = []\ndef f(x):\n    C.append(x)\n", "cache"),
    ("def f(x):\n    global Y\n    Y = x\n", "cache"),
    ("import subprocess\n", "import"),
    ("import os\nos.system('ls')\n", "import"),
    ("def f():\n    open('/tmp/x', 'w')\n", "dynamic"),
    ("import torch\ntorch.os.environ['TRITON_F32_DEFAULT'] = 'tf32'\n", "module"),
    ("import importlib\nm = importlib.import_module('threading')\n", "import"),
    ("def f():\n    return eval('1')\n", "dynamic"),
    ("def f(x):\n    return x.__class__.__bases__\n", "introspection"),
    ("import torch\nf = torch.compile(torch.relu)\n", "torch_internals"),
    ("from torch.utils._python_dispatch import TorchDispatchMode\n", "torch_internals"),
])
def test_static_rule(source, rule):
    assert rule in rules(source)


@pytest.mark.parametrize("source", [
    "import triton.language as tl\ndef f(a, b):\n    return tl.dot(a, b, input_precision='ieee')\n",
    "import triton.language as tl\ndef f(a, b):\n    return tl.dot(a, b, input_precision='tf32x3')\n",
    "from triton.tools.tensor_descriptor import TensorDescriptor\n"
    "def f(x):\n    return TensorDescriptor.from_tensor(x, [16, 16])\n",
    "from triton.tools.tensor_descriptor import TensorDescriptor\n"
    "def f(x):\n    return TensorDescriptor(x, [4, 4], [4, 1], [4, 4], 'zero')\n",
    "import torch\ntorch.set_float32_matmul_precision('highest')\n",
    "TABLE = {}\nTABLE['a'] = 1\ndef f(x):\n    return TABLE['a'] + x\n",
    "import math\ndef f(x):\n    return math.prod(x.shape)\n",
    "def f(x, input):\n    return getattr(x, 'shape')[0] + input\n",
    "class M:\n    def __init__(self):\n        for i in range(2):\n            setattr(self, f'w{i}', i)\n"
    "    def g(self, i):\n        return getattr(self, f'w{i}')\n",
    "import torch\ndef f(x):\n    super().__init__()\n    return x.shape[0]\n",
])
def test_static_allows(source):
    assert rules(source) == []


def test_sizes_vary_only_where_the_built_reference_still_runs():
    """`features` sizes both the inputs and, read as a global by __init__, the Linear: the
    models are built once, so only `rows` may vary (varying both made the reference itself
    fail, and the verdict blamed the candidate)."""
    import types
    task = types.ModuleType("task")
    exec("""
import torch
import torch.nn as nn
rows = 8
features = 32
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(features, features)
    def forward(self, x):
        return self.fc(x)
def get_inputs():
    return [torch.randn(rows, features)]
def get_init_inputs():
    return []
""", task.__dict__)
    for up, rows in ((False, 7), (True, None)):
        with inputs.varied_constants(task, [task.Model], up=up) as varied:
            assert list(varied) == ["rows"], varied
            assert rows is None or varied["rows"] == [8, rows]
    assert (task.rows, task.features) == (8, 32)


def test_redraws_keep_the_domain_the_task_drew():
    """A tensor drawn within [0, 1] (torch.rand: probabilities, BCE targets) stays there in
    every set and every timed run's fresh values, one drawn non-negative stays non-negative,
    +-1 labels stay +-1 (both of them where the draw is random), and the others take both
    signs; the structured sets keep their structure inside [0, 1]."""
    g = torch.Generator().manual_seed(0)
    unit, positive, real = torch.rand(64, 32), torch.randn(64, 32).abs() * 5, torch.randn(64, 32)
    labels = torch.randint(0, 2, (64,)).float() * 2 - 1
    assert [inputs.domain_of(t) for t in (unit, positive, real, labels)] == [
        "unit", "nonneg", "real", (-1.0, 1.0)]
    assert inputs.domain_of(torch.tensor([-1.0, 1.0])) == "real"  # two values of two draws
    for index, (label, kind, scale) in enumerate(inputs.DISTRIBUTIONS[1:], start=1):
        u, p, r = (inputs._redraw(t, kind, scale, g) for t in (unit, positive, real))
        assert 0 <= u.min() and u.max() <= 1, label
        assert p.min() >= 0, label
        if kind in ("normal", "uniform"):
            assert r.min() < 0 < r.max() and u.max() > u.min(), label
        if kind == "sorted_one_sign":
            assert bool((u.flatten().diff() >= 0).all()), label
        if kind == "all_equal":
            assert u.unique().numel() == 1, label
        y = inputs._redraw(labels, kind, scale, g)
        assert set(y.unique().tolist()) <= {-1.0, 1.0}, label
        if kind in ("normal", "uniform"):
            assert y.unique().numel() == 2, label
    buffers = [unit.clone(), positive.clone(), real.clone()]
    for run in range(4):
        inputs.redraw_(buffers, inputs.domains([unit, positive, real]), g, run)
        assert 0 <= buffers[0].min() and buffers[0].max() <= 1
        assert buffers[1].min() >= 0 and buffers[2].min() < 0


def test_index_bounds_are_checked_before_the_op_runs():
    """inputs.IndexBounds raises its own IndexError before an indexing op reads or writes out
    of bounds (on a GPU the op would trip a device-side assert that breaks the worker's CUDA
    context), for each way a task indexes; in bounds, results are the op's own. The messages
    are the mode's, not PyTorch's: the check ran first."""
    import torch
    import torch.nn.functional as F
    x = torch.arange(24.0).reshape(2, 3, 4)
    out_of_bounds = {
        "index_select": lambda: x.index_select(1, torch.tensor([0, 3])),
        "gather": lambda: x.gather(2, torch.full((2, 3, 1), 4)),
        "advanced index": lambda: x[:, torch.arange(1, 4, 2)],
        "negative index": lambda: x[torch.tensor([-3])],
        "index_put_": lambda: x.clone().index_put_((torch.tensor([2]),), torch.tensor(0.0)),
        "scatter_": lambda: x.clone().scatter_(0, torch.full((1, 3, 4), 2), 1.0),
        "index_add": lambda: x.index_add(2, torch.tensor([5]), torch.ones(2, 3, 1)),
        "embedding": lambda: F.embedding(torch.tensor([[0, 7]]), torch.ones(7, 2)),
        "take": lambda: x.take(torch.tensor([24])),
    }
    for name, run in out_of_bounds.items():
        with pytest.raises(IndexError, match=r"out of bounds .* before the op ran"), inputs.IndexBounds():
            run()
        with pytest.raises((IndexError, RuntimeError)):  # PyTorch's own check, on the CPU
            run()
    with inputs.IndexBounds():
        picked = x[:, torch.arange(0, 3, 2), torch.tensor([[-1]])]
        rows = F.embedding(torch.tensor([6]), torch.eye(7))
        masked = x[x > 20]
    assert torch.equal(picked, x[:, torch.arange(0, 3, 2), torch.tensor([[-1]])])
    assert torch.equal(rows, torch.eye(7)[6:]) and torch.equal(masked, torch.tensor([21.0, 22.0, 23.0]))


def test_reduced_precision_is_allowed_when_the_task_is_half():
    half_task = static_checks.analyze_task(
        "import torch\nclass Model(torch.nn.Module):\n    def __init__(self, scale):\n        pass\n"
        "def get_inputs():\n    return [torch.randn(4).half()]\n")
    assert rules("def f(x):\n    return x.half()\n", half_task) == []


def test_init_signature_and_kernel_presence():
    no_scale = KERNEL.replace("def __init__(self, scale)", "def __init__(self)")
    report = static_checks.check_candidate(no_scale, TASK)
    assert [v.rule for v in report.violations] == ["signature"]
    report = static_checks.check_candidate("import torch\nclass ModelNew(torch.nn.Module):\n"
                                           "    def __init__(self, scale):\n        pass\n", TASK)
    assert [v.rule for v in report.violations] == ["no_kernel"]


def test_device_helpers_are_not_required_to_launch():
    source = KERNEL + '''
@triton.jit
def helper(x):
    return x * 2

@triton.jit
def main(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs)))

def launch(x):
    main[(1,)](x, BLOCK=16)
'''
    kernels = static_checks.check_candidate(source, TASK).kernels
    assert {k.name: k.host_launched for k in kernels} == {"k": False, "helper": False, "main": True}
    assert judge.unused_kernels(kernels, ["main"]) == ["k"]
    assert judge.unused_kernels(kernels, ["main", "k"]) == []


# ---- class 7 of the review: the call stack does not tell the stages apart

STACK_SPY = r'''
import contextlib, json, os, sys, tempfile, types
import torch
from drtriton.verifier import judge, launch_hook, timing

spy = types.ModuleType("drtriton_test_spy")
spy.stacks = []
sys.modules["drtriton_test_spy"] = spy


class Guard:
    def active(self):
        return contextlib.nullcontext()


class Tamper:
    def restore(self):
        return []
    refresh = begin_request = lambda self: None


launch_hook.install()
ctx = judge.Context(torch.device("cpu"), "cpu", {}, Guard(), Tamper(), lambda stage: None)
task, candidate = open(sys.argv[1]).read(), open(sys.argv[2]).read()
candidate = candidate.replace("    def forward(self, x):\n", """    def forward(self, x):
        import traceback, drtriton_test_spy
        drtriton_test_spy.stacks.append([f.name for f in traceback.extract_stack()])
""")
verdict = judge.judge(ctx, task, candidate, {"compile": False}, tempfile.mkdtemp())
print(json.dumps({"passed": verdict["passed"], "reason": verdict["reason"], "stacks": spy.stacks}))
'''


def test_every_forward_sees_the_same_stack():
    """A candidate that reads the call stack (traceback.extract_stack, with the static checks
    out of the way) sees the same frames in the compile, no-op, checked and timed forwards."""
    case = BY_NAME["honest_relu_scale"]
    env = dict(os.environ, TRITON_INTERPRET="1", DRTRITON_TEST_SKIP_STATIC="1",
               PYTHONPATH=os.path.join(ROOT, "python"))
    run_ = subprocess.run([sys.executable, "-c", STACK_SPY, case.task_path, case.path], env=env,
                          capture_output=True, text=True, timeout=300)
    assert run_.returncode == 0, run_.stderr[-3000:]
    report = json.loads(run_.stdout.strip().splitlines()[-1])
    assert report["passed"], report["reason"]
    stacks = {tuple(s) for s in report["stacks"]}
    # compile, one no-op run, 9 input sets, 2 size variations, warm-up and 3 timed runs
    assert len(report["stacks"]) >= 17
    assert len(stacks) == 1, stacks
    names = next(iter(stacks))
    assert not {"faithful", "correct", "timed", "bench", "run_set", "compile_stage"} & set(names)


@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="GPU tier: needs CUDA")
def test_poison_reaches_every_free_cuda_block():
    """Values freed by one forward (the reference's, say) are NaN when the allocator hands
    the memory out again after poisoning, whatever the block sizes."""
    import torch
    dev = torch.device("cuda")
    sizes = [700, 1 << 16, 3 << 20, 25 << 20]  # small pool, large pool, split large segments
    stale = [torch.full((n,), 1.5, device=dev) for n in sizes]
    del stale
    inputs.poison_free_memory(dev)
    again = [torch.empty(n, device=dev) for n in sizes]
    torch.cuda.synchronize()
    for n, t in zip(sizes, again):
        assert torch.isnan(t).all(), f"{n} floats: {int((~torch.isnan(t)).sum())} stale values left"


def test_gpu_lock_is_kept_over_a_few_runs_then_handed_over(tmp_path, monkeypatch):
    """GpuLock is plain flock: two instances stand for two workers on one GPU."""
    import fcntl
    from drtriton.verifier import timing
    path = tmp_path / "gpu.lock"
    path.touch()
    monkeypatch.setenv("DRTRITON_GPU_LOCK", str(path))
    mine, other = timing.GpuLock(0), timing.GpuLock(0)

    def other_can_take():
        try:
            fcntl.flock(other.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(other.fd, fcntl.LOCK_UN)
        return True

    for run in range(timing.GpuLock.RUNS_PER_HOLD):
        with mine.held():
            assert not other_can_take()
        assert other_can_take() == (run == timing.GpuLock.RUNS_PER_HOLD - 1)
    with mine.held():
        pass
    assert not other_can_take()  # kept between runs of one loop
    mine.release()  # the loop's end
    assert other_can_take()
    mine.release()  # twice is harmless
    assert mine.held_s > 0 and mine.wait_s >= 0


def test_rounding_noise_is_judged_against_more_than_one_sample_of_it():
    """A mean of normalized rows is mathematically zero: eager's output and an honest
    kernel's are both rounding noise, and one sample of eager's is no bound (the candidate
    below, the same math summed in another order, misses 8 times it on some draws). Eager
    on inputs moved by one rounding gives more samples; a wrong answer to a
    well-conditioned output still fails with them."""
    import torch
    from drtriton.verifier import compare

    def normalized_mean(x):
        return ((x - x.mean(1, keepdim=True)) / x.std(1, keepdim=True)).mean(1)

    def other_order(x):
        n = x.shape[1]
        d = x - x.flip(1).cumsum(1)[:, -1:] / n
        return (d / d.pow(2).sum(1, keepdim=True).div(n - 1).sqrt()).flip(1).cumsum(1)[:, -1] / n

    def nudged_answers(fn, x, generator):
        eps = torch.finfo(x.dtype).eps
        return [fn((x.double() * (1 + eps * (2 * torch.rand(x.shape, generator=generator, dtype=torch.float64) - 1)))
                   .float()) for _ in range(compare.SECOND_SAMPLES)]

    generator = torch.Generator().manual_seed(0)
    missed_one, missed_all = 0, 0
    for _ in range(300):
        x = torch.randn(2, 64, generator=generator)
        truth, eager, cand = normalized_mean(x.double()), normalized_mean(x), other_order(x)
        (err, _, bound), = compare.check_output(cand, eager, truth)
        (_, _, bound_all), = compare.check_output(cand, eager, truth, nudged_answers(normalized_mean, x, generator))
        missed_one += err > bound
        missed_all += err > bound_all
    assert missed_one > 0 and missed_all == 0, (missed_one, missed_all)

    x = torch.randn(2, 64, generator=generator)
    sums = lambda x: x.sum(1)  # noqa: E731
    wrong = sums(x) * (1 + 1e-5)
    others = nudged_answers(sums, x, generator)
    (err, _, bound), = compare.check_output(wrong, sums(x), sums(x.double()), others)
    assert err > bound


def test_a_hand_started_worker_names_the_gpu_lock_as_the_service_does(monkeypatch):
    # src/eval/pool_devices.h physical_gpu_name: tests/eval/pool_devices_test.cpp has the cases
    from drtriton.verifier.timing import physical_gpu_name
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert physical_gpu_name(1) == "1"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,1")
    assert (physical_gpu_name(0), physical_gpu_name(1)) == ("3", "1")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-5f25/../x,2")
    assert physical_gpu_name(0) == "GPU-5f25x"


def test_integer_outputs_are_judged_exactly():
    """A count or a sum of int64 ids has no rounding to forgive: off by one fails, even in
    2**53 (relative 1e-16, far under the float floor of 1e-6); where eager's own integers
    differ from the truth (an argmax of floats that round alike), 8 times its error bounds."""
    import torch
    from drtriton.verifier import compare

    total = torch.tensor([2**53 + 1, 7])
    (err, _, bound), = compare.check_output(total, total.clone(), total.clone())
    assert err == 0 <= bound
    (err, _, bound), = compare.check_output(total + torch.tensor([1, 0]), total, total.clone())
    assert bound == 0 and err > bound
    mask = torch.tensor([True, False, True])
    (err, _, bound), = compare.check_output(~mask, mask, mask.clone())
    assert err > bound == 0
    truth, eager = torch.tensor([3, 5]), torch.tensor([3, 4])
    (err, _, bound), = compare.check_output(eager.clone(), eager, truth)
    assert 0 < err <= bound


def test_quiet_timing_keeps_checked_work_off_timed_runs(tmp_path, monkeypatch):
    """GpuLock under quiet timing, three workers as three instances (flock holds belong to an
    open file): a timed run waits for a worker's checked GPU work to end; while it waits, new
    checked work waits behind it (the turnstile), so timing is not starved; without quiet
    timing, checked work takes nothing."""
    import threading
    import time
    from drtriton.verifier import timing
    path = tmp_path / "gpu.lock"
    for name in (path, tmp_path / "gpu.lock.timing_turnstile"):
        name.write_text("")
    monkeypatch.setenv("DRTRITON_GPU_LOCK", str(path))
    checker, timer, late = (timing.GpuLock(0, quiet=True) for _ in range(3))
    events = []

    def timed_run():
        with timer.held():
            events.append("timed")
        timer.release()

    def late_check():
        with late.shared():
            events.append("late check")

    with checker.shared():
        first = threading.Thread(target=timed_run)
        first.start()
        time.sleep(0.3)
        second = threading.Thread(target=late_check)
        second.start()
        time.sleep(0.3)
        assert events == []  # the timed run waits for the check; the late check waits for it
        events.append("check done")
    first.join(5)
    second.join(5)
    assert events == ["check done", "timed", "late check"]
    loud = timing.GpuLock(0, quiet=False)
    with loud.shared():  # nothing taken: a timed run goes ahead
        with timer.held():
            pass
        timer.release()


def test_noisy_timings_are_told_apart():
    """timing.noisy on timings the H200 gave for one solution of the corpus in two runs: its
    runs alone, and the same runs while other workers' checked runs shared the GPU."""
    from drtriton.verifier import timing
    alone = timing.summarize([0.962, 0.961, 0.963, 0.962, 0.965, 0.960, 0.962])
    shared = timing.summarize([1.30, 7.20, 9.80, 1.28, 8.90, 6.10, 9.20])
    assert not timing.noisy(alone) and timing.noisy(shared)
    assert not timing.noisy(None) and not timing.noisy({"median": 0.0, "iqr": 0.0, "runs": 0})


def test_late_runs_are_left_out_while_they_are_the_exception():
    """timing.Runs: a run whose host enqueueing outlasted the GPU's sleep (1 ms here) timed the
    host's stall too; it is left out while late runs are no more than the punctual ones, and
    counted once they are the rule (the forward's own host time); without a sleep, none is."""
    from drtriton.verifier import timing
    runs = timing.Runs(1.0)
    for ms, host_ms in ((0.50, 0.4), (0.51, 0.5), (6.0, 5.5), (0.49, 0.3), (7.5, 2.0)):
        runs.add(ms, host_ms)
    assert len(runs) == 3 and runs.stats() == {**timing.summarize([0.50, 0.51, 0.49]), "late": 2}
    runs.add(9.0, 3.0)  # as many late runs as punctual ones: still left out
    assert len(runs) == 3
    runs.add(8.0, 2.5)  # late runs now outnumber the punctual ones: every run counts
    assert len(runs) == 7 and runs.stats() == {
        **timing.summarize([0.50, 0.51, 6.0, 0.49, 7.5, 9.0, 8.0]), "late": 4}
    wall_clock = timing.Runs(0.0)
    wall_clock.add(3.0, 50.0)
    assert len(wall_clock) == 1 and wall_clock.stats()["late"] == 0


def test_timing_stops_early_only_on_steady_runs():
    """CudaTimer.enough: STEADY_RUNS runs within STEADY_SPREAD of their median are enough;
    as many that spread more run on to MIN_RUNS (or MIN_SECONDS); fewer are never enough."""
    from drtriton.verifier import timing

    def loop(times):
        runs = timing.Runs(1.0)
        for ms in times:
            runs.add(ms, 0.1)
        return runs

    steady = [1.0 + 0.001 * (i % 5) for i in range(timing.STEADY_RUNS)]
    spread = [1.0 + 0.05 * (i % 5) for i in range(timing.STEADY_RUNS)]
    assert timing.CudaTimer.enough(loop(steady), 0.1)
    assert not timing.CudaTimer.enough(loop(steady[:-1]), 0.1)
    assert not timing.CudaTimer.enough(loop(spread), 0.1)
    assert timing.CudaTimer.enough(loop(spread), timing.MIN_SECONDS)
    assert timing.CudaTimer.enough(loop(spread * 4), 0.1)  # MIN_RUNS
    assert timing.CpuTimer.enough(loop(spread[:timing.CPU_RUNS]), 0.0)


def test_memory_estimate_counts_outputs_and_the_largest_intermediate():
    """inputs.meta_footprint: get_inputs() and a forward on the meta device give the bytes
    of the inputs, of the outputs and of the largest tensor an op makes (an upsampling makes
    far more than its input); the random state is left as it was; a data-dependent shape
    gives the inputs' bytes alone."""
    import types
    import torch.nn as nn
    from drtriton.verifier import inputs

    class Upsample(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.up = nn.Linear(features, 64 * features)

        def forward(self, x):
            return self.up(x).sum(dim=1)

    class Nonzero(nn.Module):
        def forward(self, x):
            return x.nonzero()

    task = types.SimpleNamespace(get_inputs=lambda: [torch.randn(8, 16)])
    torch.manual_seed(3)
    state = torch.random.get_rng_state()
    assert inputs.meta_footprint(task, Upsample, [16]) == (8 * 16 * 4, 8 * 4, 8 * 64 * 16 * 4)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert inputs.meta_footprint(task, Nonzero, []) == (8 * 16 * 4, 0, 0)


def test_memory_gate_shares_the_gpu_by_parts(tmp_path, monkeypatch):
    """timing.MemoryGate, across processes as the workers of one GPU use it: a task that needs
    two of the four parts runs beside one that holds one; a request going alone waits until
    both have left, and one arriving meanwhile waits for it."""
    import fcntl
    import multiprocessing
    import time

    from drtriton.verifier import timing

    base = tmp_path / "gpu.lock"
    for suffix in ["", ".turnstile"] + [f".memory.{i}" for i in range(4)]:
        (tmp_path / f"gpu.lock{suffix}").touch()
    monkeypatch.setenv("DRTRITON_GPU_LOCK", str(base))
    monkeypatch.setenv("DRTRITON_GPU_MEMORY_PARTS", "4")
    ctx = multiprocessing.get_context("fork")
    events = ctx.Queue()

    def request(name, hold_s, peak_bytes=0, alone=False):
        gate = timing.MemoryGate(0, total_bytes=8 << 30)  # parts of 0.85 * 2 GiB
        gate.enter()
        if peak_bytes:
            assert gate.need(peak_bytes) == 2 and len(gate.held) == 2
        if alone:
            gate.alone()
            assert gate.holds_all
        events.put((time.monotonic(), name, "in"))
        time.sleep(hold_s)
        events.put((time.monotonic(), name, "out"))
        gate.leave()

    gate = timing.MemoryGate(0, total_bytes=8 << 30)
    assert [gate.parts_for(b) for b in (0, 512 << 20, 3 << 30, 100 << 30)] == [1, 1, 2, 4]

    def start(*args, **kwargs):
        p = ctx.Process(target=request, args=args, kwargs=kwargs)
        p.start()
        return p

    first = start("first", 1.5)
    assert events.get(timeout=10)[1:] == ("first", "in")
    mid = start("mid", 0.2, peak_bytes=3 << 30)  # two parts: fits beside `first`
    assert events.get(timeout=10)[1:] == ("mid", "in")
    large = start("large", 0.5, alone=True)
    # Start `late` only once the large request holds the turnstile (waiting for the others):
    # a fixed sleep lost that race on a busy machine.

    def turnstile_closed():
        fd = os.open(f"{base}.turnstile", os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)

    deadline = time.monotonic() + 10
    while not turnstile_closed():
        assert time.monotonic() < deadline, "the large request never closed the turnstile"
        time.sleep(0.01)
    late = start("late", 0.1)
    # Ordered by the moment each happened: a Queue's feeder threads may deliver the events
    # of different processes out of order.
    order = [event[1:] for event in sorted(events.get(timeout=10) for _ in range(6))]
    for p in (first, mid, large, late):
        p.join(10)
        assert p.exitcode == 0
    assert order == [("mid", "out"), ("first", "out"), ("large", "in"), ("large", "out"),
                     ("late", "in"), ("late", "out")]
