"""Timing (DESIGN.md section 3.4): median and interquartile range of many runs.

CUDA: each run is preceded by an L2 flush (a 256 MB buffer written) and a GPU sleep that
outlasts the host's enqueueing, bracketed by CUDA events on the current stream and
followed by torch.cuda.synchronize(), which waits for every stream, so no work leaks
from one run into the next. The events then measure GPU time, as Triton's do_bench
does: Python launch overhead (tens of microseconds under gVisor) would otherwise swamp
microsecond kernels and make every figure depend on the host's load. Runs continue until there
are MIN_RUNS of them or MIN_SECONDS have passed (at least 10). Two workers on one GPU
never time at once: timing holds an exclusive flock on /tmp/drtriton-gpu-<index>.lock.

CPU: time.perf_counter around each run, CPU_RUNS runs; reported as such
("device_kind": "cpu-wallclock", flag cpu_timing).

The clocks and event class are bound when this module is imported, before any
candidate code runs, so a candidate that rebinds time.perf_counter or
torch.cuda.Event does not reach them (the static checks refuse that anyway).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time

import torch

from . import launch_hook

MIN_RUNS = 100
MIN_SECONDS = 1.0
WARMUP_RUNS = 3
CPU_RUNS = 5
CPU_WARMUP_RUNS = 1
FLUSH_BYTES = 256 << 20

_perf_counter = time.perf_counter
_Event = torch.cuda.Event
_synchronize = torch.cuda.synchronize


def summarize(times_ms):
    xs = sorted(times_ms)

    def q(p):
        k = (len(xs) - 1) * p
        lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
        return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)

    return {"median": q(0.5), "iqr": q(0.75) - q(0.25), "runs": len(xs)}


class CudaTimer:
    def __init__(self, device):
        self.device = device
        self.flush_buffer = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device=device)
        # torch.cuda._sleep spins for a number of clock cycles: measure how many make a millisecond.
        torch.cuda._sleep(1000)
        begin, end = _Event(enable_timing=True), _Event(enable_timing=True)
        begin.record()
        torch.cuda._sleep(10_000_000)
        end.record()
        _synchronize()
        self.cycles_per_ms = 10_000_000 / max(begin.elapsed_time(end), 1e-3)

    def bench(self, fn):
        """Returns (stats, output of the last timed run).

        Each run: L2 flush, then the GPU is held busy (torch.cuda._sleep) for twice the
        host time one call takes to enqueue, so the events bracket the GPU's work and not
        Python's launch overhead (as do_bench does by running ahead); then all streams are
        synchronized. Host work that needs the inputs' values must synchronize first and is
        therefore inside the events."""
        out = None
        host_ms = 0.0
        for i in range(WARMUP_RUNS):
            t0 = _perf_counter()
            out = fn()
            if i > 0:  # the first call may still compile or autotune
                host_ms = max(host_ms, (_perf_counter() - t0) * 1e3)
            _synchronize()
        sleep_cycles = int(self.cycles_per_ms * min(max(2 * host_ms, 0.02), 50.0))
        events = []
        start = _perf_counter()
        while True:
            self.flush_buffer.zero_()
            torch.cuda._sleep(sleep_cycles)
            begin, end = _Event(enable_timing=True), _Event(enable_timing=True)
            begin.record()
            out = fn()
            end.record()
            _synchronize()
            events.append((begin, end))
            n = len(events)
            if n >= MIN_RUNS or (n >= 10 and _perf_counter() - start >= MIN_SECONDS):
                break
        return summarize([b.elapsed_time(e) for b, e in events]), out

    def own_kernel_share(self, fn, own_keys):
        """Share of one forward's GPU time spent in the candidate's own Triton kernels.

        Not torch.profiler: once CUPTI has run in a process, every later launch there is
        slower (6.5 us eager launches became about 20 us on an H200), which would skew every
        later timing of the worker. Instead the GPU is kept busy (torch.cuda._sleep) while the
        host enqueues the whole forward, with CUDA events recorded around each of the
        candidate's own launches (launch_hook's `around`; `own_keys` are the candidate's
        kernel keys); the events then measure GPU execution only. A forward that synchronizes
        inside defeats the sleep and reads as a lower share. Approximate for kernels of a few
        microseconds, where the events' own granularity (about a microsecond) shows.
        """
        pairs = []

        def before(key):
            if key in own_keys:
                e = _Event(enable_timing=True)
                e.record()
                pairs.append([e, None])

        def after(key):
            if key in own_keys:
                e = _Event(enable_timing=True)
                e.record()
                pairs[-1][1] = e

        _synchronize()
        t0 = _perf_counter()
        fn()
        host_ms = (_perf_counter() - t0) * 1e3
        _synchronize()
        begin, end = _Event(enable_timing=True), _Event(enable_timing=True)
        torch.cuda._sleep(int(self.cycles_per_ms * (4 * host_ms + 1.0)))
        begin.record()
        with launch_hook.counting(around=(before, after)):
            fn()
        end.record()
        _synchronize()
        total = begin.elapsed_time(end)
        own = sum(b.elapsed_time(a) for b, a in pairs if a is not None)
        if total <= 0:
            return None
        return min(1.0, own / total)


class CpuTimer:
    def bench(self, fn):
        out = None
        for _ in range(CPU_WARMUP_RUNS):
            out = fn()
        times = []
        for _ in range(CPU_RUNS):
            t0 = _perf_counter()
            out = fn()
            times.append((_perf_counter() - t0) * 1e3)
        return summarize(times), out


@contextlib.contextmanager
def gpu_lock(index):
    """Exclusive lock on one GPU's timing, shared by every worker on the machine."""
    path = f"/tmp/drtriton-gpu-{index}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
