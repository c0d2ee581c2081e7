"""Runtime guards inside the worker (docs/verifier.md, Isolation and the sandbox; the threat model is in
src/eval/README.md).

The first layer is the operating system's (src/eval/sandbox.cpp): a read-only file system
but for the scratch folder, no network, a PID namespace. This module is the second: an
audit hook (`sys.addaudithook`, which cannot be removed once installed) that refuses what
candidate code has no business doing, while candidate code runs:
- network: every socket.* event ("network access blocked");
- processes: os.system, os.exec*, os.spawn*, os.posix_spawn, subprocess.Popen, os.fork,
  os.forkpty, os.kill, os.killpg;
- files: opening for writing outside the scratch directory (the `open` event covers
  builtins.open, io.FileIO, os.open), or inside its compiler caches; reading
  /proc/*/environ, cmdline or mem;
- sqlite3.connect, ctypes.*, code.__new__ (code.replace), marshal.load(s);
- introspection that reaches the worker's own frames and objects: sys._getframe,
  sys._current_frames, gc.get_objects/get_referrers/get_referents, sys.settrace/setprofile,
  sys.addaudithook, and the tb_frame/gi_frame/cr_frame/ag_frame attributes.
Python 3.11 raises no event for os.mkfifo, os.mknod, signal.signal, thread starts or C code
that opens files itself (torch.save's writer): those are left to the first layer and to the
static checks.

"While candidate code runs" is decided from the call stack, not from a flag candidate code
could reach: walking out from the innermost frame, a frame of the candidate's code (a file
<scratch>/req-*/candidate.py, or source the candidate compiled; the task's code is the
client's, trusted like the judge) met before a shield frame means the
candidate is the one asking. Shields are the launch hook's wrapper around a Triton launch
(Triton's compiler legitimately runs ptxas and writes its cache while the candidate's launch
is on the stack) and the import system (a module the candidate imports runs its own code).
Processes, sockets and secrets in /proc stay refused behind a shield too: Triton never needs
them. Frames are refused only to the candidate's own code (or through inspect/traceback,
which hand them on): libraries look at their caller's frame all the time (namedtuple,
torch.library), and keep it. The policy's state lives in the hook's closure.

The tamper check records the objects a judge relies on (clocks, events, synchronize,
the launch hook, numeric flags) and, after candidate code ran, restores any that
changed and reports them.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import resource
import socket
import sys
import time

import torch

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class Guard:
    """Marks where the judge runs candidate code (judge.py's `guard.active()`). The audit
    policy does not rely on it: it reads the call stack."""

    @contextlib.contextmanager
    def active(self):
        yield

    def suspend(self):
        pass

    def resume(self):
        pass


# Refused whenever candidate code is anywhere on the stack, shielded or not.
_ALWAYS = frozenset({
    "os.system", "os.exec", "os.spawn", "os.fork", "os.forkpty", "os.kill", "os.killpg",
    "sqlite3.connect", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "sys._current_frames", "sys._current_exceptions", "sys.settrace", "sys.setprofile",
    "sys.addaudithook",
})
# Refused when candidate code asks, not behind a shield.
_DIRECT = frozenset({
    "subprocess.Popen", "os.posix_spawn", "code.__new__", "marshal.load", "marshal.loads",
})
# Refused when the candidate's own frame asks: ways to a frame object.
_FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
_PROC_SECRETS = ("environ", "cmdline", "mem")


def install_audit_hook(scratch_root):
    """Install the policy for a worker whose scratch directory is `scratch_root`; returns
    take_report(): what it refused, and how many processes trusted code started, since the
    last call."""
    import _thread
    from . import launch_hook

    from .judge import CANDIDATE_FILE
    scratch = os.path.realpath(scratch_root)
    untrusted_prefix = os.path.join(scratch, "req-")  # the judge's per-request folders
    untrusted_suffix = os.sep + CANDIDATE_FILE  # the candidate's source there (not the task's)
    caches = os.path.join(scratch, "cache") + os.sep
    shields = frozenset(cls.__dict__["run"].__code__ for cls in launch_hook.install())
    tainted = set()  # file names of source compiled by candidate code
    refused = []
    spawned = []
    busy = set()  # threads inside the hook: its own frame walk raises events too
    import inspect
    import traceback
    frame_helpers = (inspect.__file__, traceback.__file__)  # they hand frames to their caller
    get_ident, getframe, realpath, fsdecode = _thread.get_ident, sys._getframe, os.path.realpath, os.fsdecode

    def candidate_on_stack():
        """(anywhere, direct, own): candidate code on the stack at all; met before a shield;
        the frame asking (past inspect and traceback) is the candidate's."""
        frame = getframe(2)
        shielded = False
        own = True
        while frame is not None:
            code = frame.f_code
            name = code.co_filename
            if code in shields or name.startswith("<frozen importlib"):
                shielded = True
            elif (name.startswith(untrusted_prefix) and name.endswith(untrusted_suffix)) or name in tainted:
                return True, not shielded, own
            own = own and name in frame_helpers
            frame = frame.f_back
        return False, False, False

    def refuse(message):
        refused.append(message)
        raise PermissionError("drtriton: " + message)

    def writes_outside(path, flags):
        if not flags & _WRITE_FLAGS:
            return False
        path = realpath(path)
        return not (path == os.devnull or path.startswith(scratch + os.sep)) or path.startswith(caches)

    def hook(event, args):
        # Most events (builtins.id, import, exec, ...) are none of our business: leave fast.
        if event == "open":
            path, flags = args[0], args[2]
            if isinstance(path, int):
                return
            path = fsdecode(path)
            secret = path.startswith("/proc/") and path.rsplit("/", 1)[-1] in _PROC_SECRETS
            if not secret and not (flags & _WRITE_FLAGS):
                return
            kind = "always" if secret else "direct"
        elif event == "object.__getattr__":
            if args[1] not in _FRAME_ATTRS:
                return
            kind = "own"
        elif event == "sys._getframe":
            kind = "own"
        elif event == "compile":
            kind = "taint"
        elif event in _ALWAYS or event.startswith("socket."):
            kind = "always"
        elif event in _DIRECT or event.startswith("ctypes."):
            kind = "direct"
        else:
            return
        me = get_ident()
        if me in busy:
            return
        busy.add(me)
        try:
            anywhere, direct, own = candidate_on_stack()
        finally:
            busy.discard(me)
        if not anywhere:
            if event in ("subprocess.Popen", "os.posix_spawn"):
                spawned.append(event)  # the judge's own (torch.compile's compiler)
            return
        if kind == "taint":
            # Code the candidate compiles is the candidate's, whatever file name it claims.
            if isinstance(args[1], (str, bytes)):
                tainted.add(fsdecode(args[1]))
            return
        if event.startswith("socket."):
            refuse("network access blocked")
        if event == "open":
            if kind == "always":
                refuse(f"reading {path} blocked")
            if direct and writes_outside(path, flags):
                refuse(f"write outside the scratch directory blocked: {path}")
            return
        if kind == "always" or (kind == "direct" and direct) or (kind == "own" and own):
            refuse(f"{event} blocked while candidate code runs")

    sys.addaudithook(hook)

    def take_report():
        """(what was refused, how many processes trusted code started) since the last call."""
        out = list(refused), len(spawned)
        refused.clear()
        spawned.clear()
        tainted.clear()
        return out

    return take_report


def install(scratch_root):
    """The worker's guards: returns (Guard for the judge, take_report)."""
    return Guard(), install_audit_hook(scratch_root)


def set_rlimits(cpu_device: bool, mem_limit_mb: int | None, fsize_mb: int = 1024):
    def lower(which, value):
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, hard))

    lower(resource.RLIMIT_CORE, 0)
    lower(resource.RLIMIT_FSIZE, fsize_mb << 20)
    if cpu_device and mem_limit_mb:
        lower(resource.RLIMIT_AS, mem_limit_mb << 20)
    # A write over RLIMIT_FSIZE then fails with EFBIG instead of killing the worker.
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _watched():
    """(owner, attribute) pairs whose identity must not change while a candidate runs."""
    import triton
    from . import launch_hook
    pairs = [(time, n) for n in ("time", "perf_counter", "perf_counter_ns", "monotonic",
                                 "monotonic_ns", "process_time", "time_ns")]
    pairs += [(torch.cuda, n) for n in ("synchronize", "Event", "current_stream", "Stream", "set_stream")]
    pairs += [(torch.cuda.Event, n) for n in ("record", "elapsed_time", "synchronize", "query")]
    pairs += [(torch, n) for n in ("equal", "allclose", "isfinite", "isnan", "manual_seed",
                                   "use_deterministic_algorithms", "empty", "empty_like")]
    pairs += [(torch.Tensor, n) for n in ("data_ptr", "double", "clone", "copy_", "__eq__",
                                          "untyped_storage", "to", "float", "cpu")]
    # What drawing an input set again uses (inputs.InputSets, after candidate code ran).
    pairs += [(torch, n) for n in ("randn", "rand", "randint", "sort", "nan_to_num", "Generator", "device")]
    pairs += [(torch.Tensor, n) for n in ("abs", "abs_", "sort", "sum", "detach", "expand", "reshape",
                                          "flatten", "normal_", "uniform_")]
    pairs += [(torch.nn.Module, n) for n in ("__call__", "_call_impl", "load_state_dict",
                                             "state_dict", "train", "eval", "to")]
    pairs += [(builtins, "open"), (io, "open"), (os, "open"), (socket, "socket")]
    pairs += [(cls, "run") for cls, _, _ in launch_hook.hooked_runs()]
    knobs = getattr(triton, "knobs", None)
    if knobs is not None and hasattr(knobs, "runtime"):
        pairs += [(knobs.runtime, n) for n in ("launch_enter_hook", "launch_exit_hook", "interpret")
                  if hasattr(knobs.runtime, n)]
    # The verifier's own modules: every global (the op recorder's tables, the launch hook's
    # state, the judge's functions), so an edit by candidate code is named and undone.
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "drtriton" or name.startswith("drtriton.")):
            pairs += [(module, n) for n in list(vars(module)) if not n.startswith("__")]
    return pairs


def _numeric_flags():
    flags = {
        "float32_matmul_precision": (torch.get_float32_matmul_precision,
                                     torch.set_float32_matmul_precision),
        "cuda.matmul.allow_tf32": (lambda: torch.backends.cuda.matmul.allow_tf32,
                                   lambda v: setattr(torch.backends.cuda.matmul, "allow_tf32", v)),
        "cudnn.allow_tf32": (lambda: torch.backends.cudnn.allow_tf32,
                             lambda v: setattr(torch.backends.cudnn, "allow_tf32", v)),
        "default_dtype": (torch.get_default_dtype, torch.set_default_dtype),
        "fp16_reduction": (
            lambda: torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
            lambda v: setattr(torch.backends.cuda.matmul, "allow_fp16_reduced_precision_reduction", v)),
        "bf16_reduction": (
            lambda: torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
            lambda v: setattr(torch.backends.cuda.matmul, "allow_bf16_reduced_precision_reduction", v)),
    }
    return flags


class TamperCheck:
    """Snapshot at worker start; `restore()` puts back whatever changed and names it."""

    def __init__(self):
        self.snapshot()

    def snapshot(self):
        self.pairs = [(owner, name, owner.__dict__.get(name, getattr(owner, name, None))
                       if isinstance(owner, type) else getattr(owner, name, None))
                      for owner, name in _watched()]
        self.flags = {k: get() for k, (get, _) in _numeric_flags().items()}
        self.environ = dict(os.environ)

    def refresh(self):
        """After the judge's own code changed things (torch.compile imports and sets up
        inductor): take those as the new baseline. Only between candidate checks."""
        self.snapshot()

    def begin_request(self):
        """The environment may legitimately change between requests (torch.compile sets
        variables); what counts is what candidate code changes within one."""
        self.environ = dict(os.environ)

    def restore(self):
        changed = []
        for owner, name, value in self.pairs:
            now = owner.__dict__.get(name, getattr(owner, name, None)) if isinstance(owner, type) \
                else getattr(owner, name, None)
            if now is not value:
                changed.append(f"{getattr(owner, '__name__', type(owner).__name__)}.{name}")
                try:
                    setattr(owner, name, value)
                except (AttributeError, TypeError):
                    pass
        for key, (get, set_) in _numeric_flags().items():
            if get() != self.flags[key]:
                changed.append(key)
                set_(self.flags[key])
        if dict(os.environ) != self.environ:
            changed.append("os.environ")
            os.environ.clear()
            os.environ.update(self.environ)
        return changed
