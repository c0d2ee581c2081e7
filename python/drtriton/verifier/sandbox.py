"""Runtime guards inside the worker (DESIGN.md section 3.5), best effort.

The real isolation is the C++ side's: a process per worker, timeouts, a new worker
after a crash. Inside the worker, while candidate code runs (`guard.active()`):
- network: socket.socket refuses to be created ("network access blocked");
- files: builtins.open / io.open and os.open refuse to open for writing outside the
  scratch directory. C code that opens files itself (torch.save's writer, numpy's
  tofile) is not seen; the static checks refuse those names, and RLIMIT_FSIZE bounds
  what any write can do.
- rlimits: RLIMIT_CORE 0 everywhere; RLIMIT_FSIZE (1 GiB) everywhere, so a runaway
  print cannot fill the disk; RLIMIT_AS only on the CPU device (CUDA maps far more
  virtual memory than it uses).
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
import time

import torch

_open = builtins.open
_os_open = os.open
_socket = socket.socket
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class Guard:
    def __init__(self, scratch_root):
        self.scratch_root = os.path.realpath(scratch_root)
        self.depth = 0
        self.suspended = 0

    def on(self):
        return self.depth > 0 and self.suspended == 0

    @contextlib.contextmanager
    def active(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def suspend(self):
        self.suspended += 1

    def resume(self):
        self.suspended -= 1

    def check_write(self, file):
        if not self.on() or isinstance(file, int):
            return
        path = os.path.realpath(os.fsdecode(file))
        if path == os.devnull or path == self.scratch_root or path.startswith(self.scratch_root + os.sep):
            return
        raise PermissionError(f"drtriton: write outside the scratch directory blocked: {os.fsdecode(file)}")


_GUARD: Guard | None = None


def _guarded_open(file, mode="r", *args, **kwargs):
    if _GUARD is not None and isinstance(mode, str) and set(mode) & set("wax+"):
        _GUARD.check_write(file)
    return _open(file, mode, *args, **kwargs)


def _guarded_os_open(path, flags, *args, **kwargs):
    if _GUARD is not None and flags & _WRITE_FLAGS:
        _GUARD.check_write(path)
    return _os_open(path, flags, *args, **kwargs)


class _BlockedSocket(_socket):
    def __init__(self, *args, **kwargs):
        if _GUARD is not None and _GUARD.on():
            raise PermissionError("drtriton: network access blocked")
        super().__init__(*args, **kwargs)


def install(scratch_root) -> Guard:
    global _GUARD
    _GUARD = Guard(scratch_root)
    builtins.open = _guarded_open
    io.open = _guarded_open
    os.open = _guarded_os_open
    socket.socket = _BlockedSocket
    return _GUARD


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
    pairs += [(torch.nn.Module, n) for n in ("__call__", "_call_impl", "load_state_dict",
                                             "state_dict", "train", "eval", "to")]
    pairs += [(builtins, "open"), (io, "open"), (os, "open"), (socket, "socket")]
    pairs += [(cls, "run") for cls, _, _ in launch_hook.hooked_runs()]
    knobs = getattr(triton, "knobs", None)
    if knobs is not None and hasattr(knobs, "runtime"):
        pairs += [(knobs.runtime, n) for n in ("launch_enter_hook", "launch_exit_hook", "interpret")
                  if hasattr(knobs.runtime, n)]
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
