"""Timing (docs/verifier.md, Timed): median and interquartile range of many runs.

Every candidate forward, checked or timed, runs inside one `span` (judge.py), so a candidate
cannot tell a timed run from a checked one by what surrounds it.

CUDA: each run is preceded by an L2 flush (a 256 MB buffer written) and a GPU sleep that
outlasts the host's enqueueing, bracketed by CUDA events on the current stream and
followed by torch.cuda.synchronize(), which waits for every stream, so no work leaks
from one run into the next. The events then measure GPU time, as Triton's do_bench
does: Python launch overhead (tens of microseconds under gVisor) would otherwise swamp
microsecond kernels and make every figure depend on the host's load. A run whose enqueueing
outlasted the sleep is late (Runs): the GPU idled inside the events, waiting for a host that
other work had descheduled, and such runs are left out while they are the exception. Runs
continue until there are MIN_RUNS counted, or STEADY_RUNS whose spread is under STEADY_SPREAD
(the median is then known to about half a percent), or MIN_SECONDS have passed (at least 10). Two
workers on one GPU never time a run at once: timed runs hold an exclusive flock (GpuLock) on
the file the service names in DRTRITON_GPU_LOCK, a few runs of one loop at a time.

CPU: time.perf_counter around each run, CPU_RUNS runs; reported as such
("device_kind": "cpu-wallclock", flag cpu_timing).

The clocks, the host's sleep and the event class are bound when this module is imported,
before any candidate code runs, so a candidate that rebinds time.perf_counter, time.sleep or
torch.cuda.Event does not reach them (the static checks refuse that anyway).
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import time

import torch


MIN_RUNS = 100
MIN_SECONDS = 1.0
# Quiet runs need fewer: 25 runs whose interquartile range is within 2% of their median put
# the median's standard error near 0.4% (1.25 sigma / sqrt(n), sigma about IQR / 1.35). The
# GPU lock is what bounds the verifier's throughput; most of the real corpus stops here.
# DRTRITON_STEADY_RUNS=0 turns the rule off (to measure what it saves: bench/, scripts/).
STEADY_RUNS = int(os.environ.get("DRTRITON_STEADY_RUNS", "25")) or MIN_RUNS
STEADY_SPREAD = 0.02
WARMUP_RUNS = 3
CPU_RUNS = 3  # the interpreter is slow, and CPU timings are reported as such (cpu_timing)
CPU_WARMUP_RUNS = 1
FLUSH_BYTES = 256 << 20

_perf_counter = time.perf_counter
_host_sleep = time.sleep
_Event = torch.cuda.Event
_synchronize = torch.cuda.synchronize


# Runs alone on the GPU spread little: the interquartile range of 800 timings of the real-program
# corpus on an H200 was under 1% of the median for most and 3% at most where nothing else ran;
# runs that other workers' checked runs overlapped (those do not hold the GPU lock) spread by
# 10% to 70%, and their medians moved up to 7x. Over this share the timing is noisy.
NOISY_SPREAD = 0.1


def noisy(stats):
    """Did other GPU work overlap these timed runs (their spread is past NOISY_SPREAD)?"""
    return bool(stats) and stats["median"] > 0 and stats["iqr"] > NOISY_SPREAD * stats["median"]


class Runs:
    """The timed runs of one loop. A run is late when the host's enqueueing of the forward
    took longer than the GPU's sleep before it: the GPU then idled inside the events, waiting
    for the host (descheduled by other workers' compiles, say), and the run's time counts that
    stall. Late runs are left out while they are the exception (no more than the punctual
    ones); where they are the rule, the forward's own host time is part of its cost, and all
    count. Without a sleep (the CPU's wall clock) no run is late."""

    def __init__(self, sleep_ms):
        self.sleep_ms = sleep_ms
        self.punctual, self.late = [], []

    def add(self, ms, host_ms):
        late = self.sleep_ms > 0 and host_ms > self.sleep_ms
        (self.late if late else self.punctual).append(ms)

    def counted(self):
        return self.punctual if len(self.late) <= len(self.punctual) else self.punctual + self.late

    def __len__(self):
        return len(self.counted())

    def taken(self):
        """Every run added, late ones too."""
        return len(self.punctual) + len(self.late)

    def stats(self):
        return {**summarize(self.counted()), "late": len(self.late)}


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
        self.lock = GpuLock(device.index or 0)
        self.flush_buffer = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device=device)
        # torch.cuda._sleep spins for a number of clock cycles: measure how many make a millisecond.
        torch.cuda._sleep(1000)
        begin, end = _Event(enable_timing=True), _Event(enable_timing=True)
        begin.record()
        torch.cuda._sleep(10_000_000)
        end.record()
        _synchronize()
        self.cycles_per_ms = 10_000_000 / max(begin.elapsed_time(end), 1e-3)

    def sleep_ms_for(self, host_ms):
        """GPU sleep that outlasts the host's enqueueing of one call taking host_ms."""
        return min(max(2 * host_ms, 0.02), 50.0)

    @contextlib.contextmanager
    def span(self, sleep_ms, exclusive=False, apart=True):
        """One run: L2 flush, then the GPU held busy (torch.cuda._sleep) for sleep_ms while the
        host enqueues, CUDA events around the run, all streams synchronized after. Yields a
        dict whose "ms" holds the run's GPU time once the block is left. Every candidate
        forward runs inside one, checked or timed alike (judge.py), so the two cannot be told
        apart; host work that needs the inputs' values must synchronize first and is
        therefore inside the events. `exclusive`: a timed run, under the GPU's lock; else,
        with `apart`, kept apart from other workers' timed runs (GpuLock.shared)."""
        with self.lock.held() if exclusive else self.lock.shared() if apart else contextlib.nullcontext():
            self.flush_buffer.zero_()
            torch.cuda._sleep(int(self.cycles_per_ms * sleep_ms))
            begin, end = _Event(enable_timing=True), _Event(enable_timing=True)
            result = {}
            begin.record()
            yield result
            end.record()
            _synchronize()
            result["ms"] = begin.elapsed_time(end)

    def bench(self, fn):
        """Times the reference (eager, torch.compile): (stats, output of the last run).
        Warm-up runs measure the host's time per call, which sets the sleep; then runs
        until `enough` (late runs left out)."""
        out = None
        host_ms = 0.0
        for i in range(WARMUP_RUNS):
            t0 = _perf_counter()
            out = fn()
            if i > 0:  # the first call may still compile or autotune
                host_ms = max(host_ms, (_perf_counter() - t0) * 1e3)
            _synchronize()
        sleep_ms = self.sleep_ms_for(host_ms)
        runs = Runs(sleep_ms)
        start = _perf_counter()
        try:
            while not self.enough(runs, _perf_counter() - start):
                with self.span(sleep_ms, exclusive=True) as run:
                    t0 = _perf_counter()
                    out = fn()
                    host_ms = (_perf_counter() - t0) * 1e3
                runs.add(run["ms"], host_ms)
        finally:
            self.lock.release()
        return runs.stats(), out

    @staticmethod
    def enough(runs, seconds):
        """Are these Runs, `seconds` into their loop, enough: MIN_RUNS counted, STEADY_RUNS
        spread under STEADY_SPREAD, or at least 10 once MIN_SECONDS have passed."""
        n = len(runs)
        if n >= MIN_RUNS or (n >= 10 and seconds >= MIN_SECONDS):
            return True
        if n < STEADY_RUNS:
            return False
        stats = runs.stats()
        return stats["iqr"] <= STEADY_SPREAD * stats["median"]


class KernelShare:
    """Share of one forward's GPU time spent in the candidate's own Triton kernels.

    Not torch.profiler: once CUPTI has run in a process, every later launch there is
    slower (6.5 us eager launches became about 20 us on an H200), which would skew every
    later timing of the worker. Instead the forward runs in a span whose GPU sleep outlasts
    the host's whole enqueueing, with CUDA events recorded around each of the candidate's
    own launches (launch_hook's `around`; `own_keys` are the candidate's kernel keys); the
    events then measure GPU execution only. A forward that synchronizes inside defeats the
    sleep and reads as a lower share. Approximate for kernels of a few microseconds, where
    the events' own granularity (about a microsecond) shows.
    """

    def __init__(self, own_keys):
        self.own_keys = own_keys
        self.pairs = []

    def before(self, key):
        if key in self.own_keys:
            e = _Event(enable_timing=True)
            e.record()
            self.pairs.append([e, None])

    def after(self, key):
        if key in self.own_keys:
            e = _Event(enable_timing=True)
            e.record()
            self.pairs[-1][1] = e

    def share(self, total_ms):
        own = sum(b.elapsed_time(a) for b, a in self.pairs if a is not None)
        return min(1.0, own / total_ms) if total_ms and total_ms > 0 else None


class CpuTimer:
    """Wall-clock time on the CPU (reported as such: device_kind cpu-wallclock)."""

    lock = None

    def sleep_ms_for(self, host_ms):
        return 0.0

    @contextlib.contextmanager
    def span(self, sleep_ms, exclusive=False, apart=True):
        result = {}
        t0 = _perf_counter()
        yield result
        result["ms"] = (_perf_counter() - t0) * 1e3

    def bench(self, fn):
        out = None
        for _ in range(CPU_WARMUP_RUNS):
            out = fn()
        times = []
        for _ in range(CPU_RUNS):
            with self.span(0.0) as run:
                out = fn()
            times.append(run["ms"])
        return summarize(times), out

    @staticmethod
    def enough(runs, seconds):
        return len(runs) >= CPU_RUNS


def physical_gpu_name(index):
    """The physical GPU behind CUDA index `index`, as src/eval/pool_devices.h's
    physical_gpu_name names it: CUDA_VISIBLE_DEVICES's entry for it, else the index."""
    entries = os.environ.get("CUDA_VISIBLE_DEVICES")
    entries = entries.split(",") if entries is not None else []
    name = entries[index] if index < len(entries) else str(index)
    return "".join(c for c in name if c.isascii() and (c.isalnum() or c == "-")) or "0"


def _lock_files(index):
    """The path of one GPU's timing lock, PATH (the lock files of GpuLock and MemoryGate are
    PATH and PATH.<suffix>), and how to open them: the service makes them and names PATH in
    DRTRITON_GPU_LOCK (flock needs only a read-only descriptor); a worker started by hand
    (verifier/client.py) makes them under the service's names."""
    path = os.environ.get("DRTRITON_GPU_LOCK")
    if path:
        return path, lambda name: os.open(name, os.O_RDONLY | os.O_CLOEXEC)
    path = f"/tmp/drtriton-gpu-{physical_gpu_name(index)}.lock"
    return path, lambda name: os.open(name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)


def _pass(turnstile):
    """Through a turnstile, waiting while another holds it closed."""
    fcntl.flock(turnstile, fcntl.LOCK_EX)
    fcntl.flock(turnstile, fcntl.LOCK_UN)


class GpuLock:
    """Exclusive lock on one GPU's timed runs, shared by every worker on the machine (its
    file: _lock_files; the service makes it, as a sandboxed worker cannot create files
    outside its scratch folder).

    A worker keeps the lock over RUNS_PER_HOLD runs of one timing loop, then hands it over:
    one hand-over per run cost more than the host work between runs that it let other
    workers overlap. A loop calls release() when it ends, so the lock is never kept across
    the checks between stages. `wait_s` and `held_s` add up the time spent waiting for it
    and holding it.

    Quiet timing (DRTRITON_QUIET_TIMING=1; off by default: on the real corpus on an H200 it
    halved the verifier's throughput, docs/verifier.md): the workers' other GPU work
    (checked runs, references, comparisons) holds the lock in shared mode (`shared`), so
    that no timed run overlaps it. A worker that wants the lock exclusively
    closes the turnstile (PATH.timing_turnstile) while it waits, which every shared holder
    passes on its way in: the shared holders inside finish their piece of work, new ones
    wait, and timed runs are not starved. `shared_wait_s` adds up the time spent waiting for
    a shared hold."""

    RUNS_PER_HOLD = 16

    def __init__(self, index, quiet=None):
        path, open_lock = _lock_files(index)
        self.fd = open_lock(path)
        self.quiet = os.environ.get("DRTRITON_QUIET_TIMING") == "1" if quiet is None else quiet
        self.turnstile = open_lock(path + ".timing_turnstile") if self.quiet else None
        self.wait_s = self.held_s = self.shared_wait_s = 0.0
        self.since = None  # when this worker took the lock; None while another may hold it
        self.runs = 0
        self.shared_depth = 0  # shared holds open (nested ones take nothing more)

    @contextlib.contextmanager
    def held(self):
        """One run under the lock: taken if this worker does not hold it yet, handed over
        after RUNS_PER_HOLD runs."""
        if self.since is None:
            # Never while this worker holds it shared: two workers upgrading would deadlock.
            assert not self.shared_depth, "a timed run inside GPU work held shared"
            t0 = _perf_counter()
            if self.turnstile is not None:
                fcntl.flock(self.turnstile, fcntl.LOCK_EX)
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX)
            finally:
                if self.turnstile is not None:
                    fcntl.flock(self.turnstile, fcntl.LOCK_UN)
            self.since, self.runs = _perf_counter(), 0
            self.wait_s += self.since - t0
        try:
            yield
        finally:
            self.runs += 1
            if self.runs >= self.RUNS_PER_HOLD:
                self.release()

    def release(self):
        if self.since is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            self.held_s += _perf_counter() - self.since
            self.since = None

    @contextlib.contextmanager
    def shared(self):
        """A piece of GPU work that is not timed, kept apart from other workers' timed runs
        under quiet timing; nothing otherwise, nor inside this worker's own timing loop."""
        if not self.quiet:
            yield
            return
        if self.since is not None or self.shared_depth:  # held already
            self.shared_depth += 1
            try:
                yield
            finally:
                self.shared_depth -= 1
            return
        t0 = _perf_counter()
        _pass(self.turnstile)
        fcntl.flock(self.fd, fcntl.LOCK_SH)
        self.shared_wait_s += _perf_counter() - t0
        self.shared_depth = 1
        try:
            yield
        finally:
            self.shared_depth = 0
            fcntl.flock(self.fd, fcntl.LOCK_UN)


class MemoryGate:
    """The GPU's memory, shared by every worker on it (8 by default), in PARTS equal parts:
    the service's lock files PATH.memory.0 .. PATH.memory.<PARTS - 1>, next to the timing
    lock; a request holds a part by holding its file's flock. A request holds one part from
    the start (`enter`), then, once its task is known, as many as its estimated peak needs
    (`need`); a request that ran out of memory is judged again holding them all (`alone`).
    A large task thus shares the GPU with as many others as fit beside it: going alone only
    when it needs the whole GPU kept every other worker idle while it ran.

    A request that needs more parts first lets go of those it holds, then closes the
    turnstile that every request passes on its way in and waits for its parts, so the
    requests arriving meanwhile cannot keep it waiting for ever; parts are taken all or
    none at each try, so no request ever waits holding one (no deadlock). Of the GPU's
    memory, BUDGET is shared out: the rest is for the workers' CUDA contexts and library
    workspaces, which no estimate counts."""

    BUDGET = 0.85
    DEFAULT_PARTS = 16  # src/eval/worker_pool.cpp's kGpuMemoryParts, for a worker started by hand
    POLL_S = 0.02

    def __init__(self, index, total_bytes=None):
        base, open_lock = _lock_files(index)
        count = int(os.environ.get("DRTRITON_GPU_MEMORY_PARTS", self.DEFAULT_PARTS))
        self.parts = [open_lock(f"{base}.memory.{i}") for i in range(count)]
        self.turnstile = open_lock(base + ".turnstile")
        total = total_bytes or torch.cuda.get_device_properties(index).total_memory
        self.part_bytes = self.BUDGET * total / count
        self.held = []  # the parts this request holds (indices into self.parts)

    def parts_for(self, peak_bytes):
        return min(len(self.parts), max(1, math.ceil(peak_bytes / self.part_bytes)))

    @property
    def holds_all(self):
        return len(self.held) == len(self.parts)

    def enter(self):
        _pass(self.turnstile)
        self._take(1)

    def need(self, peak_bytes):
        """Hold enough parts for a peak of `peak_bytes` (waiting for them); returns how many."""
        wanted = self.parts_for(peak_bytes)
        if wanted > len(self.held):
            self._grow(wanted)
        return wanted

    def alone(self):
        """Every part from now on."""
        if not self.holds_all:
            self._grow(len(self.parts))

    def _grow(self, wanted):
        self.leave()
        fcntl.flock(self.turnstile, fcntl.LOCK_EX)
        try:
            self._take(wanted)
        finally:
            fcntl.flock(self.turnstile, fcntl.LOCK_UN)

    def _take(self, wanted):
        while True:
            for i, fd in enumerate(self.parts):
                if len(self.held) == wanted:
                    return
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    self.held.append(i)
                except BlockingIOError:
                    pass
            if len(self.held) == wanted:
                return
            self.leave()  # all or none: never wait holding a part
            _host_sleep(self.POLL_S)

    def leave(self):
        for i in self.held:
            fcntl.flock(self.parts[i], fcntl.LOCK_UN)
        self.held = []
