"""Judge one candidate against one task: the stages of DESIGN.md section 3, in order.

    static    the candidate's source, read with ast (static_checks)
    load      task and candidate executed as fresh modules; Model and ModelNew built
              with the task's get_init_inputs and one state_dict (strict=True)
    compile   the candidate's first forward (Triton compiles its kernels on first launch)
    faithful  every kernel launched; no refused torch op; removing any one kernel
              (launch skipped, on a fresh ModelNew) changes the output
    correct   >= 5 input sets (launch and op checks repeated in every forward), plus one
              set with varied sizes when the task allows it
    timed     eager, torch.compile, candidate; the last timed output is checked too

A stage that fails raises Reject(stage, reason); the verdict's `stage` is then the last
stage passed ("none" when static failed) and `failed_stage` the one that failed.

Input buffers keep their storage from one set to the next and only their values change,
so a candidate that caches results by data pointer or by shape returns a stale answer
on the second set and fails there (DESIGN.md 3.3, the second-call check).
"""

from __future__ import annotations

import copy
import gc
import math
import os
import signal
import sys
import time
import traceback
import types

import torch

from . import compare, inputs as inputs_mod, launch_hook, static_checks, timing, torch_ops

STAGES = ["static", "load", "compile", "faithful", "correct", "timed"]
CPU_COMPILE_DEADLINE_S = 30.0


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
        self.cuda_poisoned = False
        self.requests = 0


def new_verdict(ctx, options):
    return {
        "passed": False, "stage": "none", "failed_stage": None, "reason": "",
        "checks": {"static_violations": [], "launches": {}, "noop_changed_output": {},
                   "strict_torch_ops": [], "output_bytes": 0, "seeds": [],
                   "shape_variation": None, "inputs_shrunk": None},
        "err": [],
        "timing_ms": {"eager": None, "compile": None, "candidate": None,
                      "device_kind": "cuda-events" if ctx.device.type == "cuda" else "cpu-wallclock"},
        "speedup_eager": None, "speedup_compile": None, "own_kernel_share": None,
        "flags": [], "reward": {"correct": 0, "speed": None},
        "device": ctx.device_name, "versions": ctx.versions, "reference_timing": None,
        "mode": {"strict": bool(options.get("strict")), "eval_mode": bool(options.get("eval_mode")),
                 "judged": "train"},
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


def _to(obj, device, dtype64=False):
    def move(t):
        t = t.to(device)
        return t.double() if dtype64 and t.is_floating_point() else t
    return inputs_mod.map_tensors(obj, move)


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
        self.cand_path = os.path.join(workdir, "candidate.py")
        self.task_path = os.path.join(workdir, "task.py")
        self.module_names = []
        self.compiled = False
        self.ops_total = {}
        self.launch_total = {}

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
            try:
                cand.load_state_dict(self.state, strict=True)
            except RuntimeError as e:
                message = " ".join(str(e).split())[:400]
                raise Reject("load", "state_dict mismatch with the reference: " + message)
            cand = cand.to(self.device)
            cand.train(not self.eval)
        return cand

    def call_candidate(self, cand, args, noop=()):
        inputs_mod.poison_free_memory(self.device)
        recorder = torch_ops.OpRecorder()
        with self.guarded(), inputs_mod.nan_uninitialized_memory(), \
                launch_hook.counting(noop) as counts, torch.no_grad():
            with recorder:
                out = cand(*args)
            self.sync()
        return out, counts, recorder.counts

    def launches_by_name(self, counts):
        return {k.name: counts.get(self.keys[k.name], 0) for k in self.kernels}

    def missing_kernels(self, counts):
        return [k.name for k in self.kernels if k.host_launched and counts.get(self.keys[k.name], 0) == 0]

    def op_violation(self, ops):
        bad = torch_ops.violations(ops, self.options.get("strict", False))
        if not bad:
            return None
        if self.options.get("strict"):
            return (f"torch op(s) {', '.join(bad)} ran inside ModelNew.forward "
                    f"(--strict allows no torch compute or library op)")
        return (f"torch compute op(s) {', '.join(bad)} ran inside ModelNew.forward "
                f"(only matmul/convolution library calls are allowed)")

    def add_ops(self, ops):
        for name, n in ops.items():
            self.ops_total[name] = self.ops_total.get(name, 0) + n
        self.v["checks"]["strict_torch_ops"] = torch_ops.summarize(self.ops_total)

    # ---- stages
    def static(self):
        self.ctx.progress("static")
        self.task_info = static_checks.analyze_task(self.task_src)
        if self.task_info.error:
            raise Reject("static", self.task_info.error, flags=["task_error"])
        report = static_checks.check_candidate(self.cand_src, self.task_info)
        if report.error:
            raise Reject("static", report.error)
        self.v["checks"]["static_violations"] = [x.as_json() for x in report.violations]
        if report.violations:
            shown = [f"line {x.line}: {x.message}" if x.line else x.message for x in report.violations[:3]]
            more = len(report.violations) - 3
            raise Reject("static", "; ".join(shown) + (f" (+{more} more)" if more > 0 else ""))
        self.kernels = report.kernels

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
        self.base_seed = int(seed) if seed is not None else int.from_bytes(os.urandom(3), "little")
        self.init_seed = self.base_seed
        try:
            torch.manual_seed(self.init_seed)
            self.init_inputs = list(self.task.get_init_inputs())
            torch.manual_seed(self.init_seed)
            self.model = self.Model(*self.init_inputs)
        except BaseException as e:
            raise Reject("load", "task: " + describe(e), flags=["task_error"])

        self.eval = bool(self.options.get("eval_mode"))
        dropout = self.task_info.uses_dropout_function or any(
            isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p > 0 for m in self.model.modules())
        if dropout and not self.eval:
            self.eval = True
            self.flag("eval_mode_forced_by_dropout")
        if self.eval:
            self.flag("judged_in_eval_mode")
        self.v["mode"]["judged"] = "eval" if self.eval else "train"

        self.state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        try:
            self.cand_model = self.build_candidate()
        except Reject:
            raise
        except BaseException as e:
            raise Reject("load", "ModelNew(*get_init_inputs()) failed: " + describe(e, self.cand_path),
                         detail=traceback.format_exc(limit=-8))
        self.model = self.model.to(self.device).train(not self.eval)
        self.model64 = copy.deepcopy(self.model).double()
        self.state64 = {k: v.detach().clone() for k, v in self.model64.state_dict().items()}

        self.keys = {k.name: (self.cand_path, k.line, k.name) for k in self.kernels}
        seeds = [self.base_seed + 1 + i for i in range(len(inputs_mod.DISTRIBUTIONS))]
        self.v["checks"]["seeds"] = seeds
        try:
            self.sets = [inputs_mod.make_input_set(self.task, s, i) for i, s in enumerate(seeds)]
        except BaseException as e:
            raise Reject("load", "task: get_inputs() failed: " + describe(e), flags=["task_error"])
        # The candidate's input buffers: one storage per input for the whole request.
        self.buffers = _to(_clone(self.sets[1]), self.device)
        self.check_tamper("load")

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

    def compile_stage(self):
        self.ctx.progress("compile")
        args = self.fill_buffers(self.sets[1])
        try:
            out, counts, ops = self.call_candidate(self.cand_model, args)
        except BaseException as e:
            raise Reject("compile", "forward failed: " + describe(e, self.cand_path),
                         detail=traceback.format_exc(limit=-8))
        self.first_out = _clone(out)
        self.first_counts = counts
        self.first_ops = ops
        self.v["checks"]["launches"] = self.launches_by_name(counts)
        self.add_ops(ops)

    def faithful(self):
        self.ctx.progress("faithful")
        missing = self.missing_kernels(self.first_counts)
        if missing:
            raise Reject("faithful", f"kernel {missing[0]} is defined but never launched in forward"
                         + (f" (also {', '.join(missing[1:])})" if missing[1:] else ""))
        bad = self.op_violation(self.first_ops)
        if bad:
            raise Reject("faithful", bad)
        self.check_tamper("faithful")
        for kernel in self.kernels:
            if not kernel.host_launched:
                continue
            key = self.keys[kernel.name]
            try:
                fresh = self.build_candidate()
                args = self.fill_buffers(self.sets[1])
                out, _, _ = self.call_candidate(fresh, args, noop={key})
                changed = not compare.outputs_equal(out, self.first_out)
            except Reject:
                raise
            except BaseException as e:
                if self.device.type == "cuda" and not _cuda_healthy():
                    raise Reject("faithful", f"forward with kernel {kernel.name} skipped broke the GPU: "
                                 + describe(e, self.cand_path))
                changed = True  # the forward cannot even finish without this kernel
            self.v["checks"]["noop_changed_output"][kernel.name] = changed
            if not changed:
                raise Reject("faithful", f"kernel {kernel.name}: replacing it with a no-op leaves the output "
                                         f"unchanged (its work is not used)")
        self.check_tamper("faithful")

    def run_set(self, index, label, values):
        self.cand_model.load_state_dict(self.state)
        self.model.load_state_dict(self.state)
        self.model64.load_state_dict(self.state64)
        args = self.fill_buffers(values)
        saved = _clone(args)
        where = f"input set {index} ({label})"
        try:
            out, counts, ops = self.call_candidate(self.cand_model, args)
        except BaseException as e:
            raise Reject("correct", f"forward failed on {where}: " + describe(e, self.cand_path),
                         detail=traceback.format_exc(limit=-8))
        for name, n in self.launches_by_name(counts).items():
            self.launch_total[name] = self.launch_total.get(name, 0) + n
        self.add_ops(ops)
        try:
            out_leaves = compare.leaves(out)
        except compare.Mismatch as e:
            raise Reject("correct", f"{where}: {e}")
        with torch.no_grad():
            eager_args = _clone(saved)
            eager = self.model(*eager_args)
            truth = self.model64(*_to(saved, self.device, dtype64=True))
        arg_tensors = inputs_mod.tensors_of(args)
        saved_tensors = inputs_mod.tensors_of(saved)
        # Writing into an input is the candidate's only if the reference does not do it too.
        if (not compare.outputs_equal(arg_tensors, saved_tensors)
                and compare.outputs_equal(inputs_mod.tensors_of(eager_args), saved_tensors)):
            raise Reject("correct", f"ModelNew.forward modified its input on {where}")
        if compare.overlaps(compare.storages(out_leaves), compare.storages(arg_tensors)):
            raise Reject("correct", f"the output aliases an input's memory on {where}")
        if compare.overlaps(compare.storages(out_leaves), compare.storages(compare.leaves(eager))):
            raise Reject("correct", f"the output aliases the reference's output on {where}")
        try:
            rows = compare.check_output(out, eager, truth)
        except compare.Mismatch as e:
            raise Reject("correct", f"wrong output on {where}: {e}")
        worst = max(range(len(rows)), key=lambda i: rows[i][0] / rows[i][2]) if rows else None
        entry = {"set": index, "dist": label}
        if worst is not None:
            entry.update(candidate=rows[worst][0], eager=rows[worst][1], bound=rows[worst][2])
            if len(rows) > 1:
                entry["output"] = worst
        self.v["err"].append(entry)
        for i, (err_c, _, bound) in enumerate(rows):
            if not err_c <= bound:
                raise Reject("correct", f"wrong output on {where}: err {err_c:.3g} > bound {bound:.3g}"
                             + (f" (output {i})" if len(rows) > 1 else ""))
        missing = self.missing_kernels(counts)
        if missing:
            raise Reject("correct", f"kernel {missing[0]} was not launched in the forward on {where} "
                                    f"(every kernel must run in every forward)")
        bad = self.op_violation(ops)
        if bad:
            raise Reject("correct", f"{bad} on {where}")
        return eager, truth

    def correct(self):
        self.ctx.progress("correct")
        self.reference0 = None
        for index, (label, _, _) in enumerate(inputs_mod.DISTRIBUTIONS):
            eager, truth = self.run_set(index, label, self.sets[index])
            if index == 0:
                self.reference0 = (_clone(eager), _clone(truth))
        with inputs_mod.varied_constants(self.task, [self.Model, self.ModelNew]) as varied:
            if varied:
                self.v["checks"]["shape_variation"] = varied
                text = ", ".join(f"{k} {a}->{b}" for k, (a, b) in varied.items())
                values = inputs_mod.make_input_set(self.task, self.base_seed + 99, 1)
                self.run_set(len(inputs_mod.DISTRIBUTIONS), f"sizes varied: {text}", values)
        self.v["checks"]["launches"] = self.launch_total
        self.check_tamper("correct")

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

        def cand_fn():
            return self.cand_model(*t_inputs)

        lock = timing.gpu_lock(self.device.index or 0) if self.device.type == "cuda" else _nullcontext()
        seconds = self.v["seconds"]
        t_wait = time.perf_counter()
        with torch.no_grad(), lock:
            t_held = time.perf_counter()
            seconds["lock_wait"] = t_held - t_wait
            if reference is None:
                eager_stats, _ = self.ctx.timer.bench(eager_fn)
                compile_stats = self.ctx.timer.bench(compiled_fn)[0] if compiled_fn else None
                reference = {
                    "eager": eager_stats, "compile": compile_stats, "compile_note": compile_note,
                    "device": self.ctx.device_name, "versions": self.ctx.versions,
                    "inputs": inputs_mod.signature(self.sets[0]), "mode": self.v["mode"]["judged"],
                    "inputs_shrunk": self.v["checks"]["inputs_shrunk"],
                    "compile_first_call_ms": getattr(self, "compile_ms", None),
                }
            try:
                with self.guarded():
                    cand_stats, last = self.ctx.timer.bench(cand_fn)
                    self.sync()
            except BaseException as e:
                raise Reject("timed", "forward failed while timed: " + describe(e, self.cand_path),
                             detail=traceback.format_exc(limit=-8))
            if self.device.type == "cuda":
                try:
                    with self.guarded():
                        self.v["own_kernel_share"] = self.ctx.timer.own_kernel_share(
                            cand_fn, set(self.keys.values()))
                except Exception as e:  # an extra, never a reason to fail
                    print(f"drtriton worker: own_kernel_share failed: {describe(e)}", file=sys.stderr)
            seconds["lock_held"] = time.perf_counter() - t_held
        self.check_tamper("timed")
        self.v["reference_timing"] = reference
        eager0, truth0 = self.reference0
        try:
            rows = compare.check_output(last, eager0, truth0)
        except compare.Mismatch as e:
            raise Reject("timed", f"output of a timed run is wrong: {e}")
        for err_c, _, bound in rows:
            if not err_c <= bound:
                raise Reject("timed", f"output of a timed run is wrong: err {err_c:.3g} > bound {bound:.3g} "
                                      f"(right only on earlier calls?)")
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
        if self.device.type == "cpu":
            self.flag("cpu_timing")

    def usable_reference(self, t_inputs):
        ref = self.options.get("reference")
        if not ref:
            return None
        ok = (isinstance(ref, dict) and isinstance(ref.get("eager"), dict)
              and isinstance(ref["eager"].get("median"), (int, float))
              and ref.get("device") == self.ctx.device_name and ref.get("versions") == self.ctx.versions
              and ref.get("inputs") == inputs_mod.signature(self.sets[0])
              and ref.get("mode") == self.v["mode"]["judged"]
              and not (self.options.get("compile", True) and ref.get("compile") is None
                       and "not timed" in (ref.get("compile_note") or "")))
        self.flag("reference_timing_reused" if ok else "reference_timing_mismatch")
        return ref if ok else None

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


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


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


def _cuda_healthy():
    try:
        torch.cuda.synchronize()
        torch.ones(1, device="cuda").add_(1)
        torch.cuda.synchronize()
        return True
    except Exception:
        return False


def judge(ctx, task_src, cand_src, options, workdir):
    """Run every stage; always returns a verdict dict (never raises for a bad candidate)."""
    verdict = new_verdict(ctx, options)
    ctx.tamper.begin_request()
    j = _Judgement(ctx, task_src, cand_src, options, workdir, verdict)
    seconds = verdict["seconds"]  # wall time by stage: where a worker's time goes
    try:
        for stage, run in zip(STAGES, (j.static, j.load, j.compile_stage, j.faithful, j.correct, j.timed)):
            t0 = time.perf_counter()
            try:
                run()
            finally:
                seconds[stage] = time.perf_counter() - t0
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
        t_cleanup = time.perf_counter()
        changed = ctx.tamper.restore()
        if changed and verdict["passed"]:
            verdict["passed"] = False
            verdict["reason"] = f"candidate changed {', '.join(changed)} at run time"
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
            verdict["reward"]["speed"] = max(-2.0, min(2.0, math.log(t_eager / t_cand)))
    del j
    gc.collect()
    # What survives a request's collection is the worker's own (imports, inductor's caches):
    # frozen, it is no longer scanned, so the next collection looks only at what the next
    # request made (a full one takes 0.2 s once torch.compile has loaded inductor). Frozen
    # objects are still freed by reference counting; only cycles among them would stay.
    gc.freeze()
    if ctx.device.type == "cuda" and not ctx.cuda_poisoned:
        torch.cuda.empty_cache()
    seconds["cleanup"] = time.perf_counter() - t_cleanup
    for key in seconds:
        seconds[key] = round(seconds[key], 4)
    return verdict
