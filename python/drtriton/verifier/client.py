"""A Python client of the worker protocol, and the adversarial/fault suite's format.

Used by tests/python/test_verifier.py (CPU tier) and bench/verify_gpu.py (GPU tier), so
both drive the worker exactly as the C++ service does: a child process in its own
process group, JSON lines, a deadline per request, and a new worker after a crash or hang.

Suite files (tests/eval/candidates/*.py) open with one header line:

    # task: <file in tasks/>  expect: <expectation>  [options: {json}]  [cuda: <expectation>]
    #   [layer: runtime]

    expectation := passed [flags: a,b]
                 | rejected at <stage> because <substring of the reason>
                 | crash at <stage>      (the worker dies; <stage> is its last progress line)
                 | hang at <stage>       (no verdict before the deadline)

`cuda:` overrides the expectation on a GPU, where some faults behave differently (an
illegal memory access is a CUDA error there, a segmentation fault under the interpreter).
`layer: runtime` runs the case on a worker whose static checks are off
(DRTRITON_TEST_SKIP_STATIC=1, RUNTIME_ENV), to show that the layers behind them (runtime
guards, the sandbox, the dynamic checks) hold on their own.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

RUNTIME_ENV = {"DRTRITON_TEST_SKIP_STATIC": "1"}  # the worker of `layer: runtime` cases
PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass
class Result:
    outcome: str                 # "verdict", "crash" or "hang"
    verdict: dict | None = None
    progress: list = field(default_factory=list)
    returncode: int | None = None
    seconds: float = 0.0

    @property
    def last_stage(self):
        return self.progress[-1] if self.progress else None


class WorkerClient:
    def __init__(self, device="cpu", python=None, scratch=None, extra_env=None, startup_timeout=300):
        self.device = device
        self.python = python or sys.executable
        self.scratch = scratch
        self.extra_env = extra_env or {}
        self.startup_timeout = startup_timeout
        self.proc = None
        self.ready = None
        self.started = 0
        self._buffer = b""
        self._next_id = 1

    def start(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = PYTHON_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env.update(self.extra_env)
        cmd = [self.python, "-m", "drtriton.worker", "--device", self.device]
        if self.scratch:
            cmd += ["--scratch", self.scratch]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        self._buffer = b""
        self.started += 1
        line = self._read_line(time.monotonic() + self.startup_timeout)
        if line is None:
            self.kill()
            raise RuntimeError(f"worker on {self.device} did not start")
        self.ready = json.loads(line)
        if not self.ready.get("ready"):
            self.kill()
            raise RuntimeError(f"worker on {self.device} refused to start: {self.ready}")
        return self.ready

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass

    def close(self):
        if self.alive():
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        self.proc = None

    def _read_line(self, deadline):
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("utf-8")

    def request(self, task, candidate, options=None, timeout=600):
        """Send one request; returns a Result. After a crash or hang the worker is restarted
        (lazily, by the next request)."""
        if not self.alive():
            self.start()
        request_id = self._next_id
        self._next_id += 1
        t0 = time.monotonic()
        result = Result("hang")
        try:
            self.proc.stdin.write((json.dumps({"id": request_id, "task": task, "candidate": candidate,
                                               "options": options or {}}) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            result.outcome = "crash"
        deadline = t0 + timeout
        while result.outcome == "hang":
            line = self._read_line(deadline)
            if line is None:
                if self.proc.poll() is not None or time.monotonic() < deadline:
                    result.outcome = "crash"
                break
            msg = json.loads(line)
            if msg.get("id") != request_id:
                continue
            if "progress" in msg:
                result.progress.append(msg["progress"])
            elif "verdict" in msg:
                result.outcome = "verdict"
                result.verdict = msg["verdict"]
        result.seconds = time.monotonic() - t0
        if result.outcome != "verdict":
            if result.outcome == "crash":
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
                result.returncode = self.proc.poll()
            self.kill()
        elif self.proc.poll() is not None or "worker_restart_required" in result.verdict.get("flags", []):
            try:
                result.returncode = self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            self.kill()
        return result


# ---- the suite

@dataclass
class Expectation:
    outcome: str                       # passed, rejected, crash, hang
    stage: str | None = None
    reason: str | None = None
    flags: list = field(default_factory=list)

    def __str__(self):
        if self.outcome == "passed":
            return "passed" + (f" [{','.join(self.flags)}]" if self.flags else "")
        if self.outcome == "rejected":
            return f"rejected at {self.stage} ({self.reason})"
        return f"{self.outcome} at {self.stage}"


@dataclass
class Case:
    name: str
    path: str
    task: str
    task_path: str
    expect: Expectation
    options: dict
    expect_cuda: Expectation | None = None
    runtime_only: bool = False         # judged with the static checks off (layer: runtime)

    def expectation(self, device_type):
        return self.expect_cuda if device_type == "cuda" and self.expect_cuda else self.expect

    def sources(self):
        with open(self.task_path) as f:
            task = f.read()
        with open(self.path) as f:
            candidate = f.read()
        return task, candidate


_HEADER = re.compile(r"^#\s*task:\s*(\S+)\s+expect:\s*(.+?)\s*$")


def parse_expectation(text):
    text = text.strip()
    m = re.fullmatch(r"passed(?:\s+flags:\s*(\S+))?", text)
    if m:
        return Expectation("passed", flags=m.group(1).split(",") if m.group(1) else [])
    m = re.fullmatch(r"rejected at (\w+) because (.+)", text)
    if m:
        return Expectation("rejected", m.group(1), m.group(2).strip())
    m = re.fullmatch(r"(crash|hang) at (\w+)", text)
    if m:
        return Expectation(m.group(1), m.group(2))
    raise ValueError(f"cannot parse expectation {text!r}")


def parse_header(line):
    m = _HEADER.match(line)
    if not m:
        raise ValueError(f"bad suite header {line!r}")
    task, rest = m.group(1), m.group(2)
    cuda = options = None
    runtime_only = False
    parts = re.split(r"\s{2,}(options|cuda|layer):\s*", rest)
    expect = parse_expectation(parts[0])
    for key, value in zip(parts[1::2], parts[2::2]):
        if key == "options":
            options = json.loads(value)
        elif key == "layer":
            if value.strip() != "runtime":
                raise ValueError(f"unknown layer {value!r} in {line!r}")
            runtime_only = True
        else:
            cuda = parse_expectation(value)
    return task, expect, options or {}, cuda, runtime_only


def load_suite(directory):
    cases = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".py") or name.startswith("_"):
            continue
        path = os.path.join(directory, name)
        with open(path) as f:
            first = f.readline()
        task, expect, options, cuda, runtime_only = parse_header(first)
        cases.append(Case(name[:-3], path, task, os.path.join(directory, "tasks", task),
                          expect, options, cuda, runtime_only))
    return cases


def judge_case(case, result, device_type):
    """(ok, what happened) for one case's result."""
    want = case.expectation(device_type)
    v = result.verdict
    if result.outcome != "verdict":
        got = f"{result.outcome} at {result.last_stage}"
        ok = want.outcome == result.outcome and want.stage == result.last_stage
        return ok, got
    if v["passed"]:
        got = "passed"
        missing = [f for f in want.flags if f not in v.get("flags", [])]
        ok = want.outcome == "passed" and not missing
        if missing:
            got += f" (missing flags {missing})"
        return ok, got
    got = f"rejected at {v.get('failed_stage')}: {v.get('reason')}"
    ok = (want.outcome == "rejected" and want.stage == v.get("failed_stage")
          and want.reason.lower() in (v.get("reason") or "").lower())
    return ok, got
