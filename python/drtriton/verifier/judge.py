"""Judge one candidate against one task: the stages of docs/verifier.md, in order.

    static    the candidate's source, read with ast (static_checks)
    load      task and candidate executed as fresh modules; Model and ModelNew built
              with the task's get_init_inputs and one state_dict (strict=True)
    compile   the candidate's first forward (Triton compiles its kernels on first launch)
    faithful  at least one kernel launched; every jit function launched (in this mode or,
              on a fresh ModelNew, the other one) or called by a launched kernel; no refused
              torch op; removing any one launched kernel (launch skipped, on a fresh
              ModelNew) changes the output or the module's buffers
    correct   the input sets of inputs.DISTRIBUTIONS, then sizes varied down and up; the
              output, and the buffers after the forward, against the reference's; for a
              task whose training mode is random (dropout: the stages run in eval mode),
              that mode by the distribution of its results (random_compare)
    timed     eager, torch.compile, candidate; fresh input values before every timed run,
              and the outputs of randomly chosen timed runs checked like the others

One call path for every candidate forward. A stage is a generator that yields a Call
and gets back a Forward; `_Judgement.drive` runs each Call through `_Judgement.forward`,
so a candidate's forward sees the same stack, the same hooks (launch counting, the op
recorder, the span around it) and the same input buffers whether it is compiled,
checked, no-op tested or timed. Each Forward is checked the same way too: every launched
kernel launched again, no refused op, no module state assigned (state kept on `self`
would let a later call return an earlier answer). Only the memory handed out differs:
checked forwards run on NaN-poisoned memory, timed ones cannot afford it and are
protected by their fresh inputs and checked outputs instead.

A stage that fails raises Reject(stage, reason); the verdict's `stage` is then the last
stage passed ("none" when static failed) and `failed_stage` the one that failed.

Input buffers keep their storage from one set to the next and only their values change,
so a candidate that caches results by data pointer or by shape returns a stale answer
on the second set and fails there (docs/verifier.md, Correct, the second-call check).
"""

from __future__ import annotations

import contextlib
import copy
import gc
import itertools
import math
import os
import random
import signal
import sys
import time
import traceback
import types
from concurrent.futures import ThreadPoolExecutor

import torch

from . import compare, inputs as inputs_mod, launch_hook, random_compare, static_checks, task_cache, timing, torch_ops

STAGES = ["static", "load", "compile", "faithful", "correct", "timed"]
CPU_COMPILE_DEADLINE_S = 30.0
CANDIDATE_FILE = "candidate.py"  # in the request's folder; the audit hook knows it by this name
SAMPLED_RUNS = 3  # timed runs whose outputs are checked, besides the last one
# Timing loops per measurement: a loop that other GPU work overlapped (timing_noisy) is run
# again, once; still noisy, the verdict says so.
TIMING_ATTEMPTS = 2
CONDITION_LIMIT = 1e-5  # structured sets where the task is worse conditioned are not judged
CONSTANT_TOLERANCE = 1e-4  # KernelBench's: outputs this close on two input sets are one constant
# Seeds of the reference's random-forward probe (load) and of the training-mode runs of a
# random task (correct), offsets from the request's seed.
PROBE_SEED, RANDOM_RUNS_SEED = 1000, 2000
# A judgement's peak GPU memory, in bytes per byte of the task's inputs, outputs and largest
# tensor of its forward (the input buffers, a set's draw and its copies, float64 copies of
# inputs and outputs, the comparisons, the forward's intermediates at sizes varied up). The
# peaks (memory the allocator reserved) of 79 real programs on an H100 were 0.59 of this
# estimate at the median and 1.46 at most (14 over it, all under 5.1 GB); 16 bytes a byte of
# the inputs alone was below all 79, up to 44 times, and 8 of them ran out of memory beside
# others.
PEAK_PER_BYTE = 32
# Threads compiling a candidate's kernels ahead of its first forward (precompile; CUDA, unless
# DRTRITON_PRECOMPILE=0): Triton's compiler releases the GIL for most of its work (28 sm_90
# compiles took 5.9 s in one thread, 3.1 s in two, on 2 cores: bench/compile_threads.py).
PRECOMPILE_THREADS = 4


class Reject(Exception):
    def __init__(self, stage, reason, flags=(), detail=None):
        super().__init__(reason)
        self.stage = stage
        self.reason = reason
        self.flags = list(flags)
        self.detail = detail


class _CompileDeadline(BaseException):
    """Raised by SIGALRM while torch.compile runs on the CPU (BaseException: inductor's own
    `except Exception` must not swallow it)."""


class Context:
    """What one worker knows about itself; built once at start-up."""

    def __init__(self, device, device_name, versions, guard, tamper, progress):
        self.device = device
        self.device_name = device_name
        self.versions = versions
        self.guard = guard
        self.tamper = tamper
        self.progress = progress
        self.timer = timing.CudaTimer(device) if device.type == "cuda" else timing.CpuTimer()
        self.memory = timing.MemoryGate(device.index or 0) if device.type == "cuda" else None
        self.cuda_poisoned = False
        self.requests = 0
        self.task_cache = task_cache.TaskCache()
        # Test harnesses only (read once at start-up, never from a request): run candidates
        # that the static checks would refuse, to show that the layers behind them hold.
        self.skip_static = os.environ.get("DRTRITON_TEST_SKIP_STATIC") == "1"


def new_verdict(ctx, options):
    return {
        "passed": False, "stage": "none", "failed_stage": None, "reason": "",
        "checks": {"static_violations": [], "launches": {}, "noop_changed_output": {},
                   "strict_torch_ops": [], "output_bytes": 0, "seeds": [],
                   "shape_variation": None, "inputs_shrunk": None, "buffers_differ": [],
                   "reference_library_ops": None, "timed_runs_checked": []},
        "err": [],
        "timing_ms": {"eager": None, "compile": None, "candidate": None,
                      "device_kind": "cuda-events" if ctx.device.type == "cuda" else "cpu-wallclock"},
        "speedup_eager": None, "speedup_compile": None, "own_kernel_share": None,
        "kernelbench_native": None,
        "flags": [], "reward": {"correct": 0, "speed": None},
        "device": ctx.device_name, "versions": ctx.versions, "reference_timing": None,
        "mode": {"strict": bool(options.get("strict")), "eval_mode": bool(options.get("eval_mode")),
                 "judged": "train"},
        "random": None,
        "detail": None,
        "seconds": {},
    }


def describe(exc, cand_path=None):
    """One line for a verdict's reason: type, message, and the candidate's line if any."""
    msg = " ".join(str(exc).split()) or repr(exc)
    if len(msg) > 400:
        msg = msg[:400] + "..."
    text = f"{type(exc).__name__}: {msg}"
    lower = text.lower()
    if (isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError"
            or "out of memory" in lower or "can't allocate memory" in lower):
        text = "out of memory: " + text
    if cand_path:
        line = None
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == cand_path:
                line = frame.lineno
        if line:
            text += f" (candidate line {line})"
    return text


def _load_module(name, path, source):
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def _clone(obj):
    return inputs_mod.map_tensors(obj, lambda t: t.detach().clone())


def _tensor_attributes(model):
    """(path, module, name, tensor) for each plain tensor attribute of `model`'s modules
    (self.h0 = torch.randn(...): in no state_dict)."""
    return [(path, module, name, value)
            for path, module in model.named_modules()
            for name, value in vars(module).items() if isinstance(value, torch.Tensor)]


def _double_attributes(model):
    """`model` (already .double()) with its plain floating-point tensor attributes in float64
    too: .double() converts parameters and buffers only, and a state a program keeps as
    `self.h0 = torch.randn(...)` would meet float64 weights in float32 (a truth that fails)."""
    for _, module, name, value in _tensor_attributes(model):
        if value.is_floating_point():
            setattr(module, name, value.double())
    return model


@contextlib.contextmanager
def _float64_made():
    """The float64 truth's forward: tensors it makes without a dtype (an attention mask from
    torch.full, a torch.zeros state) are float64 too, or they would meet float64 weights in
    float32 (a truth that fails: baddbmm refuses mixed dtypes)."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def _to(obj, device, dtype64=False):
    def move(t):
        t = t.to(device)
        return t.double() if dtype64 and t.is_floating_point() else t
    return inputs_mod.map_tensors(obj, move)


class Call:
    """One forward of the candidate that a stage asks for."""

    def __init__(self, model, args, check=True, noop=(), around=None, sleep_ms=None, apart=True,
                 dry=False):
        self.model, self.args, self.check = model, args, check
        self.noop, self.around, self.sleep_ms = noop, around, sleep_ms
        self.apart = apart  # a checked run kept apart from timed runs (quiet timing)
        self.dry = dry  # launches only compile their kernels (precompile)


class Forward:
    """What one forward gave: its output or the exception it raised, launches by kernel key,
    torch ops by name, GPU (or wall) milliseconds, and module state it assigned."""

    def __init__(self):
        self.out = None
        self.error = None
        self.counts = {}
        self.ops = {}
        self.ms = None
        self.host_ms = None
        self.state_changes = []


def _module_state(model):
    """What forward may not change: the identity of every attribute of every submodule, and
    the contents of containers kept on them (a dict filled in forward is a cache too)."""
    state = {}
    for prefix, m in model.named_modules():
        for key, value in m.__dict__.items():
            if isinstance(value, dict):
                state[prefix, key] = (id(value), *map(id, value), *map(id, value.values()))
            elif isinstance(value, (list, set, frozenset, tuple)):
                state[prefix, key] = (id(value), *map(id, value))
            else:
                state[prefix, key] = id(value)
    return state


def _state_changes(before, after):
    """Names of the module attributes whose identity or contents changed."""
    keys = set(before) | set(after)
    return sorted(f"{p + '.' if p else ''}{k}" for p, k in keys if before.get((p, k)) != after.get((p, k)))


def _exception_detail(e):
    return "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-8))


class _Judgement:
    """State of one request, stage by stage."""

    def __init__(self, ctx, task_src, cand_src, options, workdir, verdict):
        self.ctx = ctx
        self.task_src = task_src
        self.cand_src = cand_src
        self.options = options
        self.workdir = workdir
        self.v = verdict
        self.device = ctx.device
        self.cand_path = os.path.join(workdir, CANDIDATE_FILE)
        self.task_path = os.path.join(workdir, "task.py")
        self.module_names = []
        self.compiled = False
        self.ops_total = {}
        self.launch_total = {}
        self.sleep_ms = 0.05       # GPU sleep before each forward; set from host time when timed
        self.reference_library = None
        self.work = None  # the task cache's entry for this task (task_cache.py), if any
        self.random = random.Random(os.urandom(16))  # the candidate cannot predict its choices

    # ---- helpers
    def flag(self, name):
        if name not in self.v["flags"]:
            self.v["flags"].append(name)

    def guarded(self):
        return self.ctx.guard.active()

    def check_tamper(self, stage):
        changed = self.ctx.tamper.restore()
        if changed:
            raise Reject(stage, f"candidate changed {', '.join(changed)} at run time")

    def sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize()

    def build_candidate(self):
        torch.manual_seed(self.init_seed)
        with self.guarded():
            cand = self.ModelNew(*self.init_inputs)
            if not isinstance(cand, torch.nn.Module):
                raise Reject("load", f"ModelNew is a {type(cand).__name__}, not a torch.nn.Module")
            # KernelBench's own harness seeds, builds Model, seeds again, builds ModelNew and
            # never copies weights: it passes only a ModelNew that builds the same state.
            built = cand.state_dict()
            self.v["kernelbench_native"] = built.keys() == self.state.keys() and all(
                built[k].shape == v.shape and built[k].dtype == v.dtype and torch.equal(built[k], v)
                for k, v in self.state.items())
            try:
                cand.load_state_dict(self.state, strict=True)
            except RuntimeError as e:
                message = " ".join(str(e).split())[:400]
                raise Reject("load", "state_dict mismatch with the reference: " + message)
            cand = cand.to(self.device)
            cand.train(not self.eval)
        return cand

    # ---- the one call path of every candidate forward
    def drive(self, steps):
        """Run a stage: it yields Calls, each runs here and its Forward is sent back."""
        reply = None
        while True:
            try:
                call = steps.send(reply)
            except StopIteration:
                return
            reply = self.forward(call)

    def forward(self, call):
        f = Forward()
        if call.check and not call.dry:
            inputs_mod.poison_free_memory(self.device)
        # Timed runs leave the op recorder out (its Python dispatch would slow every op they
        # time); nothing the candidate can see tells the two apart, and a torch op it ran
        # only sometimes would show in the checked forwards.
        recorder = torch_ops.OpRecorder() if call.check else contextlib.nullcontext()
        before = _module_state(call.model)
        sleep_ms = self.sleep_ms if call.sleep_ms is None else call.sleep_ms
        with self.guarded(), torch.no_grad(), inputs_mod.nan_uninitialized_memory(call.check), \
                launch_hook.counting(call.noop, call.around, call.dry) as counts:
            try:
                with self.ctx.timer.span(sleep_ms, exclusive=not call.check, apart=call.apart) as run:
                    t0 = time.perf_counter()
                    with recorder:
                        f.out = call.model(*call.args)
                    f.host_ms = (time.perf_counter() - t0) * 1e3  # enqueueing, not the GPU's work
                f.ms = run.get("ms")
            except BaseException as e:  # the candidate's exception, reported by the stage
                f.error = e
        f.counts = dict(counts)
        f.ops = recorder.counts if call.check else {}
        f.state_changes = _state_changes(before, _module_state(call.model))
        return f

    def check_state(self, f, stage, where):
        if f.state_changes:
            raise Reject(stage, f"ModelNew.forward assigned module state ({', '.join(f.state_changes[:3])}) "
                                f"{where}: state kept across calls is refused")

    def check_forward(self, f, stage, where, launched=None, values=None):
        """What every forward must satisfy, whatever the stage asked it for. `launched`: the
        kernels it must launch (default: those of the first forward)."""
        self.check_state(f, stage, where)
        missing = [name for name in (self.launched if launched is None else launched)
                   if f.counts.get(self.keys[name], 0) == 0]
        if missing:
            raise Reject(stage, f"kernel {missing[0]} was not launched in the forward {where} "
                                f"(every kernel must run in every forward)")
        bad = self.op_violation(f.ops, values)
        if bad:
            raise Reject(stage, f"{bad} {where}")
        for name, n in self.launches_by_name(f.counts).items():
            self.launch_total[name] = self.launch_total.get(name, 0) + n
        self.add_ops(f.ops)

    def launches_by_name(self, counts):
        return {k.name: counts.get(self.keys[k.name], 0) for k in self.kernels}

    def op_violation(self, ops, values=None):
        """`values`: the forward's inputs, where they are not input set 1's sizes; past the
        reference's library calls on set 1, the candidate is held to the reference's own count
        on those inputs (a loop over x.shape[1] calls cuBLAS once a step at any length)."""
        strict = self.options.get("strict", False)
        bad = torch_ops.violations(ops, strict, self.reference_library)
        if bad and not strict and values is not None:
            here = torch_ops.library_counts(self.record_reference_ops(values))
            bad = torch_ops.violations(ops, strict, here)
        if not bad:
            return None
        if strict:
            return (f"torch op(s) {', '.join(bad)} ran inside ModelNew.forward "
                    f"(--strict allows no torch compute or library op)")
        return (f"torch op(s) {', '.join(bad)} ran inside ModelNew.forward "
                f"(only the reference's own matmul/convolution library calls are allowed)")

    def add_ops(self, ops):
        for name, n in ops.items():
            self.ops_total[name] = self.ops_total.get(name, 0) + n

    def reference(self, inputs):
        """Eager fp32 and float64 truth of the reference on `inputs` (fresh copies each),
        and the copy eager ran on (to see whether the reference writes its inputs)."""
        self.model.load_state_dict(self.state)
        self.model64.load_state_dict(self.state64)
        with torch.no_grad(), self.gpu_work():
            eager_args = _clone(inputs)
            eager = self.model(*eager_args)
            with _float64_made():
                truth = self.model64(*_to(inputs, self.device, dtype64=True))
        return eager, truth, eager_args

    # ---- stages
    def static(self):
        self.ctx.progress("static")
        self.task_info = static_checks.analyze_task(self.task_src)
        if self.task_info.error:
            raise Reject("static", self.task_info.error, flags=["task_error"])
        report = static_checks.check_candidate(self.cand_src, self.task_info)
        if report.error:
            raise Reject("static", report.error)
        self.kernels = report.kernels
        if self.ctx.skip_static:
            self.flag("static_skipped_for_test")
            return
        self.v["checks"]["static_violations"] = [x.as_json() for x in report.violations]
        if report.violations:
            shown = [f"line {x.line}: {x.message}" if x.line else x.message for x in report.violations[:3]]
            more = len(report.violations) - 3
            raise Reject("static", "; ".join(shown) + (f" (+{more} more)" if more > 0 else ""))

    def load(self):
        self.ctx.progress("load")
        n = self.ctx.requests
        for path, src in ((self.task_path, self.task_src), (self.cand_path, self.cand_src)):
            with open(path, "w") as f:
                f.write(src)
        try:
            name = f"drtriton_task_{n}"
            self.module_names.append(name)
            self.task = _load_module(name, self.task_path, self.task_src)
            for attr in ("Model", "get_inputs", "get_init_inputs"):
                if not hasattr(self.task, attr):
                    raise Reject("load", f"task: no {attr}", flags=["task_error"])
        except Reject:
            raise
        except BaseException as e:
            raise Reject("load", "task: " + describe(e), flags=["task_error"],
                         detail=traceback.format_exc(limit=-8))
        try:
            name = f"drtriton_candidate_{n}"
            self.module_names.append(name)
            with self.guarded():
                self.cand = _load_module(name, self.cand_path, self.cand_src)
        except BaseException as e:
            raise Reject("load", "candidate failed to import: " + describe(e, self.cand_path),
                         detail=traceback.format_exc(limit=-8))
        self.ModelNew = getattr(self.cand, "ModelNew", None)
        if not isinstance(self.ModelNew, type):
            raise Reject("load", "ModelNew is not a class")
        self.Model = self.task.Model

        if self.device.type == "cpu":
            shrunk = inputs_mod.shrink_constants(self.task, [self.Model, self.ModelNew], [self.cand])
            if shrunk:
                self.v["checks"]["inputs_shrunk"] = shrunk
                self.flag("inputs_shrunk")

        seed = self.options.get("seed")
        cache = self.ctx.task_cache
        key = cache.key(self.task_src, self.device, self.options) if cache.enabled else None
        entry = cache.get(key) if key else None
        if seed is not None:
            self.base_seed = int(seed)
        else:  # a task's candidates share its cache entry's own random seed (task_cache.py)
            self.base_seed = entry.seed if entry else int.from_bytes(os.urandom(3), "little")
        self.init_seed = self.base_seed
        try:
            torch.manual_seed(self.init_seed)
            self.init_inputs = list(self.task.get_init_inputs())
            torch.manual_seed(self.init_seed)
            self.model = self.Model(*self.init_inputs)
        except BaseException as e:
            raise Reject("load", "task: " + describe(e), flags=["task_error"])

        self.state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        digest = task_cache.state_digest(self.state) if key else None
        if entry and (entry.shrunk != self.v["checks"]["inputs_shrunk"] or entry.state_digest != digest):
            entry = None  # this request built another task (its shrink, or a nondeterministic init)
        self.reserve_memory()
        self.model = self.model.to(self.device)
        self.task_get_inputs, self.task_sizes = self.task.get_inputs, inputs_mod.size_constants(self.task)
        seeds = [self.base_seed + 1 + i for i in range(len(inputs_mod.DISTRIBUTIONS))]
        self.v["checks"]["seeds"] = seeds
        try:
            self.sets = entry.sets if entry and entry.sets else inputs_mod.InputSets(
                self.task, seeds, self.device, before_redraw=self.inputs_untouched)
        except BaseException as e:
            raise Reject("load", "task: get_inputs() failed: " + describe(e), flags=["task_error"])
        self.choose_mode()
        self.model.train(not self.eval)
        self.model64 = _double_attributes(copy.deepcopy(self.model).double())
        self.state64 = {k: v.detach().clone() for k, v in self.model64.state_dict().items()}

        self.keys = {k.name: (self.cand_path, k.line, k.name) for k in self.kernels}
        # The candidate's input buffers: one storage per input for the whole request.
        self.buffers = _to(_clone(self.sets[1]), self.device)
        self.check_tamper("load")
        if key:  # the task's work, before ModelNew is built and runs
            self.work = entry or self.prepare(key, digest)
        if self.work:
            self.work.uses += 1
        self.v["checks"]["task_cache"] = (
            {"entry": "hit" if entry else "new", "sets": self.work.references is not None}
            if self.work else {"entry": "off" if not key else "failed", "sets": False})
        try:
            self.cand_model = self.build_candidate()
        except Reject:
            raise
        except BaseException as e:
            raise Reject("load", "ModelNew(*get_init_inputs()) failed: " + describe(e, self.cand_path),
                         detail=traceback.format_exc(limit=-8))
        self.check_tamper("load")

    def inputs_untouched(self):
        """Before an input set is drawn again (inputs.InputSets): what the draw relies on is as
        it was at load: torch's functions (the tamper check, which also restores them), the
        task's get_inputs and its size constants."""
        changed = self.ctx.tamper.restore()
        if self.task.get_inputs is not self.task_get_inputs:
            changed.append("the task's get_inputs")
        changed += [f"the task's {k}" for k, v in self.task_sizes.items() if getattr(self.task, k, None) != v]
        if changed:
            raise inputs_mod.InputsChanged(f"candidate changed {', '.join(changed)} at run time")

    def reserve_memory(self):
        """Hold the share of the GPU's memory that judging this task may take (PEAK_PER_BYTE
        times its inputs, outputs and largest intermediate, from a forward on the meta
        device, plus three times its state: the state and its float64 copy), waiting for it
        (timing.MemoryGate); a task that needs the whole GPU is judged alone."""
        gate = self.ctx.memory
        if gate is None:
            return
        try:
            inputs, outputs, largest = inputs_mod.meta_footprint(self.task, self.Model,
                                                                 self.init_inputs)
        except Exception:
            return  # get_inputs() fails: the sets' draw says so
        state = inputs_mod.nbytes(list(self.state.values()))
        estimate = PEAK_PER_BYTE * (inputs + outputs + largest) + 3 * state
        t0 = time.perf_counter()
        parts = gate.need(estimate)
        self.v["seconds"]["memory_wait"] = time.perf_counter() - t0  # within load's time
        self.v["checks"]["gpu_memory"] = {"input_bytes": inputs, "output_bytes": outputs,
                                          "largest_bytes": largest, "estimate_bytes": estimate,
                                          "parts": f"{parts}/{len(gate.parts)}"}
        if parts == len(gate.parts):  # not a second judgement after running out of memory
            self.flag("judged_alone")

    def prepare(self, key, digest):
        """A new task cache entry (task_cache.py): the reference's work on every input set and
        varied size, done now, before any candidate forward. Without its per-set work when that
        would not fit the cache; None where the reference fails on the way (the stages then
        meet that failure where they would without the cache)."""
        cache = self.ctx.task_cache
        entry = task_cache.Entry(key, self.base_seed, self.options.get("seed") is None,
                                 self.v["checks"]["inputs_shrunk"], digest)
        room = cache.max_bytes - inputs_mod.nbytes(self.sets[0]) * len(self.sets)
        try:
            entry.reference_ops = self.reference_ops = self.record_reference_ops()
            references = []
            for index, (label, _, _) in enumerate(inputs_mod.DISTRIBUTIONS):
                if room < 0:
                    break
                saved = _clone(self.fill_buffers(self.sets[index]))
                ref = self.set_reference(self.reference(saved), saved, label,
                                         index >= inputs_mod.STRUCTURED_FROM).to("cpu")
                references.append(ref)
                room -= inputs_mod.nbytes(ref.tensors())
            if room >= 0:
                variations = [(direction, varied, inputs_mod.map_tensors(values, lambda t: t.to("cpu")),
                               ref and ref.to("cpu"), why)
                              for direction, varied, values, ref, why in self.variations()]
        except Exception:
            return None
        if room >= 0:
            entry.sets = self.sets if isinstance(self.sets, list) else self.sets.materialized()
            entry.references, entry.variations = references, variations
        if entry.nbytes() > cache.max_bytes:
            entry.sets = entry.references = entry.variations = None
        entry.seal()
        cache.put(entry)
        return entry

    def choose_mode(self):
        """Training mode unless eval_mode is asked. A task whose training-mode forward is random
        (dropout) is judged in both modes: by every stage in eval mode, where it is
        deterministic, and by the distribution of its results in training mode (random_runs);
        with eval_mode asked, in eval mode alone (flag eval_mode_forced_by_dropout). A task
        random in eval mode too cannot be checked at all."""
        asked = bool(self.options.get("eval_mode"))
        self.eval = asked
        if self.reference_is_random(training=True):
            if self.reference_is_random(training=False):
                kept = [f"{path}.{name}" if path else name
                        for path, _, name, _ in _tensor_attributes(self.model)]
                why = "a dropout call without training=self.training" + (
                    f", or a state it keeps as a plain attribute and updates: {', '.join(kept)}"
                    if kept else "") + "?"
                raise Reject("load", "task: its forward gives other results on the same inputs in "
                                     f"eval mode too ({why}): no result of it can be checked",
                             flags=["task_error", "random_in_eval_mode"])
            self.eval = True
            self.v["random"] = {"judged": "eval_mode_only" if asked else "statistics"}
            if asked:
                self.flag("eval_mode_forced_by_dropout")
        if self.eval:
            self.flag("judged_in_eval_mode")
        self.v["mode"]["judged"] = "eval" if self.eval else "train"

    def reference_is_random(self, training):
        """Whether the reference's forward in this mode is random: in training mode, a Dropout
        module with p > 0 (certain, however few elements it drops: two runs of a small
        output can agree); in either mode, two forwards from one state on input set 1 under
        two seeds that differ in an output or a buffer by more than CONSTANT_TOLERANCE
        (rounding of atomics on a GPU is not randomness). A reference that fails here is
        left to the stages that run it."""
        if training and any(isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p > 0
                            for m in self.model.modules()):
            return True
        self.model.train(training)
        runs = []
        try:
            for k in range(2):
                runs.append(self.reference_run(self.sets[1], self.base_seed + PROBE_SEED + k))
        except Exception:
            return False
        finally:
            self.model.load_state_dict(self.state)
        return not compare.same_within(runs[0], runs[1], CONSTANT_TOLERANCE)

    def reference_run(self, values, seed):
        """One forward of the reference, in its current mode, on copies of `values` from the
        request's state under `seed`: its output's tensors, then its buffers (copies)."""
        self.model.load_state_dict(self.state)
        torch.manual_seed(seed)
        with torch.no_grad():
            out = self.model(*_to(_clone(values), self.device))
        return [t.detach().clone() for t in compare.leaves(out)] + [
            b.detach().clone() for _, b in self.model.named_buffers()]

    def fill_buffers(self, values):
        """Copy `values` into the input buffers (same storage, new values) when shapes allow."""
        bufs = inputs_mod.tensors_of(self.buffers)
        vals = inputs_mod.tensors_of(values)
        same = len(bufs) == len(vals) and all(b.shape == v.shape and b.dtype == v.dtype
                                              for b, v in zip(bufs, vals))
        if same:
            it = iter(bufs)

            def put(v):
                b = next(it)
                b.copy_(v)
                return b
            return inputs_mod.map_tensors(values, put)
        return _to(_clone(values), self.device)

    def record_reference_ops(self, values=None):
        """The torch ops of one reference forward on `values` (input set 1's by default)."""
        recorder = torch_ops.OpRecorder()
        self.model.load_state_dict(self.state)
        with torch.no_grad(), recorder:
            self.model(*_clone(self.fill_buffers(self.sets[1] if values is None else values)))
        return recorder.counts

    def compile_stage(self):
        self.ctx.progress("compile")
        self.reference_ops = self.work.reference_ops if self.work else self.record_reference_ops()
        self.reference_library = torch_ops.library_counts(self.reference_ops)
        self.v["checks"]["reference_library_ops"] = self.reference_library
        yield from self.precompile()
        args = self.fill_buffers(self.sets[1])
        # Not kept apart from timed runs: Triton compiles the kernels meanwhile, for seconds.
        f = yield Call(self.cand_model, args, apart=False)
        if f.error is not None:
            raise Reject("compile", "forward failed: " + describe(f.error, self.cand_path),
                         detail=_exception_detail(f.error))
        self.first = f
        self.first_out = _clone(f.out)
        self.first_buffers = _buffers(self.cand_model, self.model)
        self.v["checks"]["launches"] = self.launches_by_name(f.counts)

    def precompile(self):
        """Compile the candidate's kernels for every input shape the judgement runs, before its
        first forward, PRECOMPILE_THREADS at a time (a generator step of `compile`). A forward
        compiles its kernels one after another, and the varied sizes compile them again
        (Triton specializes on sizes divisible by 16); here one dry forward per shape (the
        sets', each varied size's) hands each launch's compile to Triton's AsyncCompileMode
        and runs nothing; the model's state is loaded again after them. Only on CUDA, not
        where DRTRITON_PRECOMPILE=0, and not past an autotuned kernel (an autotuner would
        benchmark the dry launches and keep a config chosen from nothing). Whatever fails
        here (a forward that needs its kernels' values, a kernel that does not compile) stops
        it and is met again by the stages.
        A dry forward is the candidate's code like any other: it gets fresh values, never a
        checked set's (nothing it sees there answers a later check), and its torch ops and
        module state are held to the same rules (a violation rejects)."""
        try:
            from triton.runtime._async_compile import AsyncCompileMode
            from triton.runtime.autotuner import Autotuner
        except ImportError:  # a Triton before 3.4
            return
        if not self.precompiles() or any(isinstance(v, Autotuner) for v in vars(self.cand).values()):
            return
        if self.work and self.work.variations is not None:
            varied = (values for _, _, values, _, _ in self.work.variations if values is not None)
        else:
            varied = (values for _, _, values in self.varied_inputs())
        generator = torch.Generator(device=self.device).manual_seed(self.random.getrandbits(62))
        shapes = 0
        with ThreadPoolExecutor(PRECOMPILE_THREADS) as pool, AsyncCompileMode(pool, ignore_errors=True):
            try:
                for values in itertools.chain([self.sets[1]], varied):
                    args = _to(_clone(values), self.device)
                    inputs_mod.redraw_(args, inputs_mod.domains(values), generator, shapes)
                    f = yield Call(self.cand_model, args, apart=False, dry=True)
                    where = "in a forward compiling the kernels ahead"
                    self.check_state(f, "compile", where)
                    bad = self.op_violation(f.ops)
                    if bad:
                        raise Reject("compile", f"{bad} {where}")
                    if f.error is not None:
                        break
                    shapes += 1
            except Reject:
                raise
            except Exception:  # a varied size's draw failed: the correct stage meets it again
                pass
        self.cand_model.load_state_dict(self.state)
        self.v["checks"]["precompiled_shapes"] = shapes

    def precompiles(self):
        """Whether kernels are compiled ahead (precompile): on CUDA, unless DRTRITON_PRECOMPILE=0
        (on an H200 it took the worker-seconds of 37 models' verdicts from 960 to 754)."""
        return self.device.type == "cuda" and os.environ.get("DRTRITON_PRECOMPILE", "1") != "0"

    def faithful(self):
        self.ctx.progress("faithful")
        counts = self.first.counts
        launched = [k for k in self.kernels if counts.get(self.keys[k.name], 0) > 0]
        if not launched:
            raise Reject("faithful", "no Triton kernel was launched in forward")
        never = [k.name for k in self.kernels if k.host_launched and k not in launched]
        other_mode = []  # kernels only the other mode runs (BatchNorm's running statistics)
        if never:
            other = yield from self.other_mode_launches()
            other_mode = [name for name in never if other.get(self.keys[name], 0) > 0]
            never = [name for name in never if name not in other_mode]
        if never:
            raise Reject("faithful", f"kernel {never[0]} is defined but never launched in forward"
                         + (f" (also {', '.join(never[1:])})" if never[1:] else ""))
        unused = unused_kernels(self.kernels, [k.name for k in launched] + other_mode)
        if unused:
            raise Reject("faithful", f"jit function {unused[0]} is neither launched nor called by a "
                                     f"launched kernel (a kernel counts only if it runs)")
        self.launched = [k.name for k in launched]
        self.check_forward(self.first, "faithful", "on the first call")
        self.check_tamper("faithful")
        for kernel in launched:
            key = self.keys[kernel.name]
            fresh = self.build_candidate()
            args = self.fill_buffers(self.sets[1])
            f = yield Call(fresh, args, noop={key})
            if f.error is not None:
                if self.device.type == "cuda" and not _cuda_healthy():
                    raise Reject("faithful", f"forward with kernel {kernel.name} skipped broke the GPU: "
                                 + describe(f.error, self.cand_path))
                changed = True  # the forward cannot even finish without this kernel
            else:  # the output, or the module's buffers (a running-statistics update)
                changed = not (compare.outputs_equal(f.out, self.first_out)
                               and compare.outputs_equal(_buffers(fresh, self.model), self.first_buffers))
            self.v["checks"]["noop_changed_output"][kernel.name] = changed
            if not changed:
                raise Reject("faithful", f"kernel {kernel.name}: replacing it with a no-op leaves the output "
                                         f"unchanged, and the buffers too (its work is not used)")
        self.check_tamper("faithful")

    def other_mode_launches(self):
        """Launches by kernel key of one forward of a fresh ModelNew in the mode not judged
        (a generator step of `faithful`): a solution that follows self.training has kernels
        that only the other mode runs. Nothing else of that forward counts."""
        fresh = self.build_candidate()
        fresh.train(self.eval)
        f = yield Call(fresh, self.fill_buffers(self.sets[1]))
        return f.counts if f.error is None else {}

    def set_reference(self, ran, inputs, label, structured):
        """What the checks of one set need from the reference, where `ran` is
        self.reference(inputs) just now (its buffers are read before the models run again)."""
        eager, truth, eager_args = ran
        writes = not compare.outputs_equal(inputs_mod.tensors_of(eager_args), inputs_mod.tensors_of(inputs))
        ref = task_cache.SetReference(eager, truth, _clone(dict(self.model.named_buffers())),
                                      _clone(dict(self.model64.named_buffers())), writes)
        if structured:
            ref.skipped = self.uninformative(eager, truth, inputs, label)
        return ref

    def run_set(self, index, label, values, reference=None):
        """One checked forward on one input set (a generator step of `correct`); `reference`:
        the SetReference of these values where it is known already."""
        self.cand_model.load_state_dict(self.state)
        args = self.fill_buffers(values)
        saved = _clone(args)
        where = f"on input set {index} ({label})"
        f = yield Call(self.cand_model, args)
        if f.error is not None:
            raise Reject("correct", f"forward failed {where}: " + describe(f.error, self.cand_path),
                         detail=_exception_detail(f.error))
        # set 1's shapes from its first draw: a draw again here, while the sizes may be varied, is refused
        shapes = [tuple(t.shape) for t in inputs_mod.tensors_of(saved)]
        resized = shapes != inputs_mod.set_shapes(self.sets, 1)
        self.check_forward(f, "correct", where, values=saved if resized else None)
        out = f.out
        try:
            out_leaves = compare.leaves(out)
        except compare.Mismatch as e:
            raise Reject("correct", f"{where}: {e}")
        if reference is None and self.work and self.work.references:
            reference = self.work.references[index].to(self.device)
        ref = reference or self.set_reference(self.reference(saved), saved, label,
                                              index >= inputs_mod.STRUCTURED_FROM)
        eager, truth = ref.eager, ref.truth
        if index in (1, 2):
            self.eager_outputs[index] = eager
        if ref.skipped:  # the buffers too: they come from the same uninformative values
            self.v["err"].append({"set": index, "dist": label, "skipped": ref.skipped})
            return
        self.compare_buffers(where, ref, saved)
        arg_tensors = inputs_mod.tensors_of(args)
        saved_tensors = inputs_mod.tensors_of(saved)
        # Writing into an input is the candidate's only if the reference does not do it too.
        if not compare.outputs_equal(arg_tensors, saved_tensors) and not ref.writes_input:
            raise Reject("correct", f"ModelNew.forward modified its input {where}")
        if compare.overlaps(compare.storages(out_leaves), compare.storages(arg_tensors)):
            raise Reject("correct", f"the output aliases an input's memory {where}")
        if compare.overlaps(compare.storages(out_leaves), compare.storages(compare.leaves(eager))):
            raise Reject("correct", f"the output aliases the reference's output {where}")
        self.judge_output(out, eager, truth, index, label, "correct", f"wrong output {where}", saved)

    def random_runs(self):
        """The training mode of a task whose training-mode forward is random (a generator step
        of `correct`): random_compare.RUNS forwards of the candidate and as many of the
        reference, each from the request's state on input set 1 under its own seed, judged
        by the distribution of their outputs and of the reference's buffers they leave
        (random_compare.judge_runs). Every forward is held to the rules on every forward;
        the kernels it must launch are those of the first training-mode one."""
        values = self.sets[1]
        self.model.train(True)
        self.cand_model.train(True)
        try:
            ref_runs = [self.reference_run(values, self.base_seed + RANDOM_RUNS_SEED + k)
                        for k in range(random_compare.RUNS)]
            outputs = len(ref_runs[0]) - len(list(self.model.buffers()))
            names = [f"output {i}" for i in range(outputs)] + [
                f"buffer {name}" for name, _ in self.model.named_buffers()]
            cand_runs, launched = [], None
            for k in range(random_compare.RUNS):
                where = f"in training-mode run {k + 1}"
                self.cand_model.load_state_dict(self.state)
                args = self.fill_buffers(values)
                torch.manual_seed(self.base_seed + RANDOM_RUNS_SEED + random_compare.RUNS + k)
                f = yield Call(self.cand_model, args)
                if f.error is not None:
                    raise Reject("correct", f"forward failed {where}: " + describe(f.error, self.cand_path),
                                 detail=_exception_detail(f.error))
                if launched is None:
                    launched = [x.name for x in self.kernels if f.counts.get(self.keys[x.name], 0) > 0]
                self.check_forward(f, "correct", where, launched)
                try:
                    out = [t.detach().clone() for t in compare.leaves(f.out)]
                except compare.Mismatch as e:
                    raise Reject("correct", f"{where}: {e}")
                if len(out) != outputs:
                    raise Reject("correct", f"{where}: {len(out)} output tensors, the reference {outputs}")
                buffers = dict(self.cand_model.named_buffers())
                cand_runs.append(out + [buffers[name[len("buffer "):]].detach().clone()
                                        if name[len("buffer "):] in buffers else None
                                        for name in names[outputs:]])
        finally:
            self.model.train(not self.eval)
            self.cand_model.train(not self.eval)
            self.model.load_state_dict(self.state)
            self.cand_model.load_state_dict(self.state)
        # A buffer of the reference's that the candidate does not have (not in the state_dict)
        # is left out, as compare_buffers leaves it.
        kept = [i for i in range(len(names)) if all(run[i] is not None for run in cand_runs)]
        try:
            result = random_compare.judge_runs([[run[i] for i in kept] for run in cand_runs],
                                               [[run[i] for i in kept] for run in ref_runs],
                                               [names[i] for i in kept])
        except random_compare.Mismatch as e:
            raise Reject("correct", f"in training mode: {e}")
        self.v["random"].update(result)
        if not result["passed"]:
            zeros = result["zero_share"]
            raise Reject("correct", f"training-mode results are not distributed as the reference's: "
                                    f"the split of {2 * result['runs']} runs into the candidate's and the "
                                    f"reference's is extreme (p = {result['p_value']:.2g} <= {result['alpha']:g}; "
                                    f"most off: {result['worst']}; zeros {zeros['candidate']:.1%}, "
                                    f"the reference {zeros['reference']:.1%})"
                         + ("; every candidate run gave the same result (one random draw for every call?)"
                            if result["candidate_runs_identical"] else ""))

    def uninformative(self, eager, truth, inputs, label):
        """Why a large-magnitude or structured set says nothing about a candidate, or None.
        Either the reference's own output is not finite there, or the task is ill-conditioned
        at these values: inputs moved by one part in 10^7 (fp32 rounding) move the float64
        truth by more than CONDITION_LIMIT (all-equal values through a normalization give
        0/sqrt(eps), rounding noise that no two fp32 kernels reproduce alike)."""
        if not _all_finite(eager):
            return "the reference's output is not finite"
        if label == "all equal" and any(torch_ops.normalizes(op) for op in self.reference_ops):
            # x - mean(x) is then exactly 0 in PyTorch and rounding noise in an honest fp32
            # kernel, which the normalization scales up by 1/sqrt(eps): no bound can judge it
            # (a mean of the normalized values hides it from the test below).
            return "all-equal values through a normalization (rounding noise, not a result)"
        self.model64.load_state_dict(self.state64)
        with torch.no_grad():
            with _float64_made():
                nudged = self.model64(*self.nudged(inputs, lambda dtype: 1e-7, torch.float64))
        worst = 0.0
        for a, b in zip(compare.leaves(truth), compare.leaves(nudged)):
            if a.is_floating_point() and a.numel():
                finite = torch.isfinite(a) & torch.isfinite(b)
                worst = max(worst, compare.rel_err(b, a, finite))
        if worst > CONDITION_LIMIT:
            return f"ill-conditioned at these values (a 1e-7 change of the inputs moves the output by {worst:.1e})"
        return None

    def nudged(self, inputs, relative, dtype=None, draw=0):
        """Copies of `inputs` on the device, every floating tensor moved by a random relative
        amount up to relative(its dtype), in `dtype` (default: its own); `draw` picks the
        random directions."""
        generator = torch.Generator(device=self.device).manual_seed(self.base_seed + draw)

        def nudge(t):
            t = t.to(self.device)
            if not t.is_floating_point():
                return t.clone()
            u = torch.rand(t.shape, generator=generator, dtype=torch.float64, device=self.device)
            return (t.double() * (1 + relative(t.dtype) * (2 * u - 1))).to(dtype or t.dtype)
        return inputs_mod.map_tensors(inputs, nudge)

    def other_eager(self, inputs, draw):
        """Another honest fp32 answer: eager on the inputs moved by one rounding of their
        dtype (what a backward-stable kernel computes exactly), to be judged against the
        truth at the unmoved inputs."""
        self.model.load_state_dict(self.state)
        with torch.no_grad():
            return self.model(*self.nudged(inputs, lambda dtype: torch.finfo(dtype).eps, draw=draw))

    def judge_output(self, out, eager, truth, index, label, stage, what, inputs=None):
        """`inputs`: what the forward ran on; where the candidate misses the bound, eager on
        them moved by one rounding gives more samples of fp32's error (compare.py)."""
        with self.gpu_work():
            self._judge_output(out, eager, truth, index, label, stage, what, inputs)

    def gpu_work(self):
        """GPU work that is not timed, kept apart from other workers' timed runs under quiet
        timing (timing.GpuLock.shared)."""
        lock = self.ctx.timer.lock
        return lock.shared() if lock is not None else contextlib.nullcontext()

    def _judge_output(self, out, eager, truth, index, label, stage, what, inputs):
        try:
            rows, others = compare.check_output(out, eager, truth), []
            while (inputs is not None and len(others) < compare.SECOND_SAMPLES
                   and any(not err_c <= bound for err_c, _, bound in rows)):
                others.append(self.other_eager(inputs, draw=len(others) + 1))
                rows = compare.check_output(out, eager, truth, others)
        except compare.Mismatch as e:
            raise Reject(stage, f"{what}: {e}")
        def over(row):  # how far past its bound; an integer output's bound may be 0
            err_c, _, bound = row
            return err_c / bound if bound > 0 else (math.inf if err_c > 0 else 0.0)

        worst = max(range(len(rows)), key=lambda i: over(rows[i])) if rows else None
        entry = {"set": index, "dist": label}
        if worst is not None:
            entry.update(candidate=rows[worst][0], eager=rows[worst][1], bound=rows[worst][2])
            if len(rows) > 1:
                entry["output"] = worst
        self.v["err"].append(entry)
        for i, (err_c, _, bound) in enumerate(rows):
            if not err_c <= bound:
                raise Reject(stage, f"{what}: err {err_c:.3g} > bound {bound:.3g}"
                             + (f" (output {i})" if len(rows) > 1 else ""))

    def compare_buffers(self, where, reference, inputs=None):
        """The module's buffers after the same forward from the same state (`reference`, a
        SetReference): a drop-in replacement updates them as the reference does (BatchNorm's
        running statistics in training mode) and leaves them alone where it does not (eval
        mode). Floating buffers are judged like outputs, against the float64 reference's,
        with as many samples of fp32's error: where one misses its bound, the reference's
        buffers after eager on `inputs` moved by one rounding (drawn once for all the
        buffers of the set). Others (a batch count) must be equal."""
        ref, truth = reference.buffers, reference.buffers64
        others = []  # the reference's buffers after each moved forward
        for name, buf in self.cand_model.named_buffers():
            if name not in ref or ref[name].shape != buf.shape:
                continue  # not the reference's (the state_dict check covers persistent ones)
            try:
                if buf.is_floating_point():
                    def within(samples):
                        rows = compare.check_output(buf, ref[name], truth[name],
                                                    [s[name] for s in samples if name in s])
                        return all(err_c <= bound for err_c, _, bound in rows)
                    # the samples drawn for an earlier buffer first, then more
                    ok = within([]) or (bool(others) and within(others))
                    while not ok and inputs is not None and len(others) < compare.SECOND_SAMPLES:
                        with self.gpu_work():
                            self.other_eager(inputs, draw=len(others) + 1)
                        others.append({n: b.detach().clone() for n, b in self.model.named_buffers()})
                        ok = within(others)
                else:
                    ok = buf.dtype == ref[name].dtype and torch.equal(buf, ref[name])
            except compare.Mismatch:
                ok = False
            if not ok:
                self.v["checks"]["buffers_differ"].append(name)
                self.flag("buffers_differ")
                raise Reject("correct", f"buffer {name} differs from the reference's after the "
                                        f"forward {where} (running statistics not updated as "
                                        f"the reference updates them?)")

    def correct(self):
        self.ctx.progress("correct")
        self.eager_outputs = {}
        for index, (label, _, _) in enumerate(inputs_mod.DISTRIBUTIONS):
            yield from self.run_set(index, label, self.sets[index])
        if compare.same_within(self.eager_outputs[1], self.eager_outputs[2], CONSTANT_TOLERANCE):
            # Normal and uniform values gave the same answer: the task computes a constant (a
            # mean of normalized values is 0), so a speedup on it says nothing of the kernels.
            self.flag("task_output_constant")
        variations = self.v["checks"]["shape_variation"] = {}
        for direction, varied, values, reference, failed in self.variations():
            if reference is None:
                self.v["checks"].setdefault("shape_variation_skipped", {})[direction] = failed
                continue
            variations[direction] = varied
            label = f"sizes varied: {_varied_text(varied)}"
            yield from self.run_set(len(self.v["err"]), label, values, reference)
        if self.v["random"] and self.v["random"]["judged"] == "statistics":
            yield from self.random_runs()
        self.v["checks"]["launches"] = self.launch_total
        self.check_tamper("correct")

    def variations(self):
        """(direction, {name: [old, new]}, input set, SetReference or None, why not) for each
        direction whose sizes vary, down then up: the task cache's, or computed now (a
        generator, so the task's constants stay varied while its caller runs the set)."""
        if self.work and self.work.variations is not None:
            for direction, varied, values, ref, failed in self.work.variations:
                yield direction, varied, values, ref and ref.to(self.device), failed
            return
        seen = set()
        for direction, varied, values in self.varied_inputs():
            seen.add(direction)
            text = _varied_text(varied)
            # The meta device skips some of PyTorch's checks (a transposed convolution's
            # channel count, an index's bounds): the reference itself runs first, and where it
            # fails the variation says nothing about the candidate.
            inputs = _to(_clone(values), self.device)
            try:
                with inputs_mod.IndexBounds():
                    ran = self.reference(inputs)
            except Exception as e:
                yield direction, varied, values, None, f"{text}: the reference fails ({type(e).__name__})"
                continue
            reference = self.set_reference(ran, inputs, f"sizes varied: {text}", True)
            yield direction, varied, values, reference, None
        limit = inputs_mod.GROWTH_LIMIT[self.device.type]
        for direction in ("down", "up"):  # said, not left out silently
            if direction not in seen:
                yield direction, {}, None, None, (
                    f"no size constant varies {direction}: none changes the inputs alone, or "
                    f"none does with the inputs within {limit}x their size and shapes the "
                    f"reference accepts")

    def varied_inputs(self):
        """(direction, {name: [old, new]}, input set) for each direction whose sizes vary, down
        then up (a generator: the task's constants stay varied while its caller runs the set)."""
        for direction, up, seed in (("down", False, 99), ("up", True, 98)):
            with inputs_mod.varied_constants(self.task, [self.Model, self.ModelNew], up=up,
                                             growth_limit=inputs_mod.GROWTH_LIMIT[self.device.type]) as varied:
                if varied:
                    yield direction, varied, inputs_mod.make_input_set(
                        self.task, self.base_seed + seed, 1, self.device)

    def timed(self):
        self.ctx.progress("timed")
        t_inputs = _to(_clone(self.sets[0]), self.device)
        self.model.load_state_dict(self.state)
        self.cand_model.load_state_dict(self.state)
        reference = self.usable_reference(t_inputs)

        def eager_fn():
            return self.model(*t_inputs)

        compiled_fn, compile_note = None, None
        if reference is None and not self.options.get("compile", True):
            compile_note = "torch.compile not timed (options.compile is false)"
        elif reference is None:
            compiled_fn, compile_note = self.compile_reference(t_inputs)
            self.ctx.tamper.refresh()  # inductor's own imports and settings are not the candidate's

        # The candidate's timed runs use its own input buffers, with fresh values each run.
        args = self.fill_buffers(self.sets[0])
        kept = inputs_mod.domains(self.sets[0])
        generator = torch.Generator(device=self.device).manual_seed(self.random.getrandbits(62))
        samples = []  # (run, inputs, output) of SAMPLED_RUNS runs drawn uniformly (reservoir)
        lock = self.ctx.timer.lock
        lock_before = (lock.wait_s, lock.held_s) if lock else None
        try:  # the timing loops keep the GPU lock over a few runs; never past this stage
            with torch.no_grad():
                if reference is None:
                    eager_stats = self.bench_retried("eager", eager_fn)
                    compile_stats = self.bench_retried("compile", compiled_fn) if compiled_fn else None
                    reference = {
                        "eager": eager_stats, "compile": compile_stats, "compile_note": compile_note,
                        "device": self.ctx.device_name, "versions": self.ctx.versions,
                        "inputs": inputs_mod.signature(self.sets[0]), "mode": self.v["mode"]["judged"],
                        "inputs_shrunk": self.v["checks"]["inputs_shrunk"],
                        "compile_first_call_ms": getattr(self, "compile_ms", None),
                    }
                    if self.work and not self.timing_noisy(eager_stats):
                        self.work.timing = reference
                times, run, start = None, 0, time.perf_counter()
                warmup = timing.WARMUP_RUNS if self.device.type == "cuda" else timing.CPU_WARMUP_RUNS
                host_ms = 0.0
                attempt = 1
                while True:
                    if run >= warmup and self.ctx.timer.enough(times, time.perf_counter() - start):
                        if not self.time_again("candidate", times.stats(), attempt):
                            break
                        times, start, attempt = timing.Runs(self.sleep_ms), time.perf_counter(), attempt + 1
                    inputs_mod.redraw_(args, kept, generator, run)
                    f = yield Call(self.cand_model, args, check=False)
                    where = f"in timed run {run + 1}"
                    if f.error is not None:
                        raise Reject("timed", f"forward failed {where}: " + describe(f.error, self.cand_path),
                                     detail=_exception_detail(f.error))
                    self.check_forward(f, "timed", where)
                    if run < warmup:
                        if run > 0:  # the first call may still compile or autotune
                            host_ms = max(host_ms, f.host_ms)
                        self.sleep_ms = self.ctx.timer.sleep_ms_for(host_ms)
                        times = timing.Runs(self.sleep_ms)
                    else:
                        times.add(f.ms, f.host_ms)
                        k = times.taken() - 1  # every run may be sampled, late ones too
                        slot = k if k < SAMPLED_RUNS else self.random.randrange(k + 1)
                        if slot < SAMPLED_RUNS:
                            sample = (run + 1, _clone(args), _clone(f.out))
                            samples[slot:slot + 1] = [sample]
                    run += 1
                last = [] if samples and samples[-1][0] == run else [(run, _clone(args), _clone(f.out))]
                cand_stats = times.stats()
                if self.device.type == "cuda":
                    share = timing.KernelShare(set(self.keys.values()))
                    f = yield Call(self.cand_model, args, check=False, around=(share.before, share.after),
                                   sleep_ms=min(4 * self.sleep_ms + 1.0, 60.0))
                    if f.error is None and f.ms:
                        self.v["own_kernel_share"] = share.share(f.ms)
        finally:
            if lock:
                lock.release()
        if lock:
            self.v["seconds"]["lock_wait"] = lock.wait_s - lock_before[0]
            self.v["seconds"]["lock_held"] = lock.held_s - lock_before[1]
        self.check_tamper("timed")
        self.v["reference_timing"] = reference
        self.v["checks"]["timed_runs_checked"] = sorted(s[0] for s in samples + last)
        for run, inputs, out in samples + last:
            eager, truth, _ = self.reference(inputs)
            self.judge_output(out, eager, truth, f"timed run {run}", "fresh values", "timed",
                              f"output of timed run {run} is wrong (right only when checked?)", inputs)
        tm = self.v["timing_ms"]
        tm["eager"], tm["compile"], tm["candidate"] = reference["eager"], reference["compile"], cand_stats
        if reference.get("compile_note"):
            tm["compile_note"] = reference["compile_note"]
        t_cand = cand_stats["median"]
        if t_cand > 0:
            self.v["speedup_eager"] = reference["eager"]["median"] / t_cand
            if reference["compile"]:
                self.v["speedup_compile"] = reference["compile"]["median"] / t_cand
        if self.v["speedup_eager"] is not None and self.v["speedup_eager"] > 10:
            self.flag("speedup_over_10x")
        noisy = [name for name, stats in (("eager", reference["eager"]), ("candidate", cand_stats))
                 if self.timing_noisy(stats)]
        if noisy:  # a lowered speed reward, and a noisy reference timing is never reused
            self.flag("timing_noisy")
            self.v["checks"]["timing_noisy"] = noisy
            if "eager" in noisy:
                self.v["reference_timing"] = None
        if self.device.type == "cpu":
            self.flag("cpu_timing")

    def usable_reference(self, t_inputs):
        """The reference timing to reuse: the request's (from the service's cache), else the
        task cache's, measured the same way by this worker for an earlier candidate; None
        when it is to be measured now."""
        ref = self.options.get("reference")
        if ref:
            ok = self.timing_fits(ref)
            self.flag("reference_timing_reused" if ok else "reference_timing_mismatch")
            if ok:
                return ref
        if self.work and self.work.timing and self.timing_fits(self.work.timing):
            self.flag("reference_timing_reused")
            return self.work.timing
        return None

    def timing_noisy(self, stats):
        """GPU timings only: the interpreter's few wall-clock runs are reported as such."""
        return self.device.type == "cuda" and timing.noisy(stats)

    def time_again(self, what, stats, attempt):
        """Is a finished timing loop of `what` (its stats) to be run again (noisy, attempts
        left)? Counts the attempts in checks.timing_attempts when it is."""
        if attempt >= TIMING_ATTEMPTS or not self.timing_noisy(stats):
            return False
        self.v["checks"].setdefault("timing_attempts", {})[what] = attempt + 1
        return True

    def bench_retried(self, what, fn):
        """timer.bench's stats of `fn`, timed again where other GPU work overlapped the runs."""
        attempt = 1
        stats, _ = self.ctx.timer.bench(fn)
        while self.time_again(what, stats, attempt):
            attempt += 1
            stats, _ = self.ctx.timer.bench(fn)
        return stats

    def timing_fits(self, ref):
        return (isinstance(ref, dict) and isinstance(ref.get("eager"), dict)
                and isinstance(ref["eager"].get("median"), (int, float))
                and not self.timing_noisy(ref["eager"])
                and ref.get("device") == self.ctx.device_name and ref.get("versions") == self.ctx.versions
                and ref.get("inputs") == inputs_mod.signature(self.sets[0])
                and ref.get("mode") == self.v["mode"]["judged"]
                and not (self.options.get("compile", True) and ref.get("compile") is None
                         and "not timed" in (ref.get("compile_note") or "")))

    def compile_reference(self, t_inputs):
        """torch.compile (default mode) of a copy of the reference; compile time excluded."""
        try:
            compiled = torch.compile(copy.deepcopy(self.model))
        except Exception as e:
            return None, "torch.compile failed: " + describe(e)
        self.compiled = True
        t0 = time.perf_counter()
        try:
            with torch.no_grad():
                if self.device.type == "cpu":
                    _with_deadline(CPU_COMPILE_DEADLINE_S, lambda: compiled(*t_inputs))
                else:
                    compiled(*t_inputs)
                    torch.cuda.synchronize()
        except _CompileDeadline:
            return None, f"torch.compile skipped: it took over {CPU_COMPILE_DEADLINE_S:.0f} s on the CPU"
        except Exception as e:
            return None, "torch.compile failed: " + describe(e)
        self.compile_ms = (time.perf_counter() - t0) * 1e3
        return (lambda: compiled(*t_inputs)), None

    def cleanup(self):
        if self.ctx.timer.lock:  # a stage that ended in a way its own release missed
            self.ctx.timer.lock.release()
        for name in self.module_names:
            sys.modules.pop(name, None)
        if self.compiled:
            try:
                torch._dynamo.reset()
            except Exception:
                pass
        try:
            from triton.runtime.interpreter import InterpretedFunction
            InterpretedFunction.rewritten_fn.clear()
        except (ImportError, AttributeError):
            pass


def _varied_text(varied):
    return ", ".join(f"{k} {a}->{b}" for k, (a, b) in varied.items())


def _with_deadline(seconds, fn):
    def on_alarm(signum, frame):
        raise _CompileDeadline()
    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _buffers(model, reference):
    """Copies of the module's buffers that the reference also has, in named_buffers order.
    Only those count as work in the no-op test: a kernel that updates a buffer of the
    candidate's own changes nothing the task asks for."""
    names = {name for name, _ in reference.named_buffers()}
    return [b.detach().clone() for name, b in model.named_buffers() if name in names]


def unused_kernels(kernels, launched):
    """Jit functions neither launched nor reachable through calls from a launched kernel."""
    by_name = {k.name: k for k in kernels}
    reached, todo = set(), list(launched)
    while todo:
        name = todo.pop()
        if name in reached or name not in by_name:
            continue
        reached.add(name)
        todo += by_name[name].callees
    return [k.name for k in kernels if k.name not in reached]


def _all_finite(out):
    try:
        return all(bool(torch.isfinite(t).all()) for t in compare.leaves(out) if t.is_floating_point())
    except compare.Mismatch:
        return True


def _cuda_healthy():
    try:
        torch.cuda.synchronize()
        torch.ones(1, device="cuda").add_(1)
        torch.cuda.synchronize()
        return True
    except Exception:
        return False


def judge(ctx, task_src, cand_src, options, workdir):
    """Run every stage; always returns a verdict dict (never raises for a bad candidate).
    On a GPU, under its memory gate (timing.MemoryGate): a request that ran out of memory
    while sharing the GPU is judged again alone, since another worker's task may have
    taken the memory; the second verdict is the one given."""
    gate = ctx.memory
    if gate is None:
        return _released(ctx, _judge_once(ctx, task_src, cand_src, options, workdir))
    ooms = torch.cuda.memory_stats(ctx.device).get("num_ooms", 0)
    t0 = time.perf_counter()
    gate.enter()
    entered_s = time.perf_counter() - t0  # before any stage: the turnstile, one part
    try:
        verdict = _judged_on_gpu(ctx, task_src, cand_src, options, workdir)
        ran_out = torch.cuda.memory_stats(ctx.device).get("num_ooms", 0) > ooms
        if ran_out and not verdict["passed"] and not gate.holds_all and not ctx.cuda_poisoned:
            gate.alone()
            ctx.requests += 1  # fresh module names for the second judgement
            verdict = _judged_on_gpu(ctx, task_src, cand_src, options, workdir)
            verdict["flags"].append("judged_alone_after_out_of_memory")
    finally:
        gate.leave()
    waits = verdict["seconds"]
    waits["memory_wait"] = round(waits.get("memory_wait", 0.0) + entered_s, 4)
    return verdict


def _judged_on_gpu(ctx, task_src, cand_src, options, workdir):
    """One judgement with the most GPU memory its process reserved meanwhile: what the memory
    gate's estimate (checks.gpu_memory) is to be measured against."""
    if not ctx.cuda_poisoned:
        torch.cuda.reset_peak_memory_stats(ctx.device)
    verdict = _released(ctx, _judge_once(ctx, task_src, cand_src, options, workdir))
    if not ctx.cuda_poisoned:
        verdict["checks"].setdefault("gpu_memory", {})["peak_bytes"] = torch.cuda.max_memory_reserved(ctx.device)
    return verdict


def _judge_once(ctx, task_src, cand_src, options, workdir):
    verdict = new_verdict(ctx, options)
    ctx.tamper.begin_request()
    j = _Judgement(ctx, task_src, cand_src, options, workdir, verdict)
    seconds = verdict["seconds"]  # wall time by stage: where a worker's time goes
    lock = ctx.timer.lock
    if lock is not None and lock.quiet:  # waits for shared holds, within the stages' times
        shared_before = lock.shared_wait_s
    try:
        for stage, run in zip(STAGES, (j.static, j.load, j.compile_stage, j.faithful, j.correct, j.timed)):
            t0 = time.perf_counter()
            try:
                steps = run()
                if steps is not None:  # a stage that runs the candidate: a generator of Calls
                    j.drive(steps)
            except inputs_mod.InputsChanged as e:
                raise Reject(stage, str(e), flags=["inputs_changed"])
            finally:
                seconds[stage] = time.perf_counter() - t0
                if lock is not None and lock.quiet:
                    seconds["shared_wait"] = lock.shared_wait_s - shared_before
            verdict["stage"] = stage
        verdict["passed"] = True
    except Reject as r:
        i = STAGES.index(r.stage)
        verdict["stage"] = STAGES[i - 1] if i > 0 else "none"
        verdict["failed_stage"] = r.stage
        verdict["reason"] = r.reason
        verdict["detail"] = r.detail
        for f in r.flags:
            j.flag(f)
    except BaseException as e:  # an exception in the judge itself, or one it did not expect
        verdict["reason"] = "verifier error: " + describe(e)
        verdict["detail"] = traceback.format_exc(limit=-12)
        j.flag("verifier_error")
    finally:
        verdict["checks"]["strict_torch_ops"] = torch_ops.summarize(j.ops_total)
        t_cleanup = time.perf_counter()
        changed = ctx.tamper.restore()
        if changed and verdict["passed"]:
            verdict["passed"] = False
            verdict["reason"] = f"candidate changed {', '.join(changed)} at run time"
        if j.work is not None and not j.work.intact():  # never reused after such a request
            ctx.task_cache.drop(j.work)
            j.flag("task_cache_changed")
            if verdict["passed"]:
                verdict["passed"] = False
                verdict["reason"] = "the task cache's values changed while the candidate ran"
        j.cleanup()
    if ctx.device.type == "cuda" and not verdict["passed"] and not _cuda_healthy():
        ctx.cuda_poisoned = True
        j.flag("worker_restart_required")
        verdict["reason"] += " (the CUDA context is broken: this worker exits after this verdict)"
    if verdict["passed"]:
        verdict["reward"]["correct"] = 1
        t_eager = verdict["timing_ms"]["eager"]["median"]
        t_cand = verdict["timing_ms"]["candidate"]["median"]
        if t_cand > 0 and t_eager > 0:
            speed = math.log(t_eager / t_cand)
            if "timing_noisy" in verdict["flags"]:  # noise never pays: each spread lowers it
                for stats in (verdict["timing_ms"]["eager"], verdict["timing_ms"]["candidate"]):
                    speed -= math.log1p(stats["iqr"] / stats["median"])
            verdict["reward"]["speed"] = max(-2.0, min(2.0, speed))
    seconds["cleanup"] = time.perf_counter() - t_cleanup
    return verdict


def _released(ctx, verdict):
    """`verdict`, after what its judgement made is freed: called on _judge_once's result, when
    none of its frames (whose locals still reach the judgement) is alive. What survives the
    collection is the worker's own (imports, inductor's caches): frozen, it is no longer
    scanned, so the next collection looks only at what the next request made (a full one
    takes 0.2 s once torch.compile has loaded inductor). Frozen objects are still freed by
    reference counting, but a cycle among them never is: a judgement frozen while a frame
    still held it would keep its model and GPU tensors for the worker's life."""
    t0 = time.perf_counter()
    gc.collect()
    gc.freeze()
    if ctx.device.type == "cuda" and not ctx.cuda_poisoned:
        torch.cuda.empty_cache()
    seconds = verdict["seconds"]
    seconds["cleanup"] = seconds.get("cleanup", 0.0) + time.perf_counter() - t0
    for key in seconds:
        seconds[key] = round(seconds[key], 4)
    return verdict
