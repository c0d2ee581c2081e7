"""drtriton verifier worker: judges candidates for the C++ service, one JSON line at a time.

    python -m drtriton.worker --device cpu|cuda:N [--scratch DIR] [--mem-limit-mb N] [--identity]

Protocol (the contract with src/eval/worker_process.cpp):
- start-up: one line {"ready": true, "device": "<cpu or GPU name>", "versions": {...}}
- then one request per stdin line:
    {"id": 7, "key": "<64 hex digits>", "task": "<source>", "candidate": "<source>",
     "options": {"strict": false, "eval_mode": false, "device": "cpu"|"cuda",
                 "reference": null | {reference_timing of an earlier verdict},
                 "seed": null | int, "compile": true}}
  answered by progress lines {"id": 7, "progress": "static"|"load"|"compile"|"faithful"|
  "correct"|"timed"} as each stage begins, then one {"id": 7, "verdict": {...}} line.
  A line that is not a request object is answered {"id": null, "error": "..."}.
- With a "key", every answer line is "<HMAC-SHA256(key, json) hex> <json>": the C++ pool
  believes nothing else, so candidate code that writes to the protocol channel forges
  nothing. The key is taken out of the request at once and lives only in local variables
  (and the frame of the progress generator), never in an object candidate code can reach;
  the audit hook (verifier/sandbox.py) refuses the ways to other frames. Without a key (a
  direct client such as verifier/client.py) lines are plain JSON.
- Protocol lines go to a duplicate of the original stdout taken at start-up; the process's
  fd 1 and fd 2 go to <scratch>/worker.log (a candidate printing megabytes cannot corrupt
  the protocol; checks.output_bytes counts what one request printed, checks.output_tail
  keeps its last 2 KB, the log keeps the last 64 KB). Requests are read from a duplicate
  of the original stdin; fd 0 becomes /dev/null, so a candidate cannot read them.
- Each request runs in a fresh scratch subdirectory (the working directory), removed after.
  Without --scratch the worker makes a temporary directory and removes it when it exits
  normally (stdin closed); a killed worker leaves it behind, so the service passes --scratch.
- The worker never exits because of a bad candidate, with one exception: after a CUDA
  error that breaks the context (an illegal memory access), it writes the verdict (flag
  worker_restart_required) and exits with status 3. A crash or hang kills it outright:
  the C++ side turns that into a verdict from the last progress line and starts another.
- A candidate whose code was refused something by the audit hook (sandbox_refused), or that
  left processes running (leftover_processes; in the OS sandbox the worker is PID 1 of its
  namespace and ends them after every request) is rejected, whatever else it did.
- Test only: DRTRITON_TEST_SKIP_STATIC=1 in the worker's environment at start-up drops the
  static checks' violations (verdicts flagged static_checks_skipped), so that tests can show
  the deeper layers hold on their own. Never set it in a real service.
"""

from __future__ import annotations

import argparse
import gc
import glob
import hashlib
import hmac
import json
import math
import os
import platform
import shutil
import signal
import sys
import tempfile

LOG_KEEP_BYTES = 64 << 10
TAIL_BYTES = 2 << 10
STAGES = ("static", "load", "compile", "faithful", "correct", "timed")


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m drtriton.worker", description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cpu", help="cpu or cuda:N")
    p.add_argument("--scratch", default=None, help="scratch directory (default: a new temporary one)")
    p.add_argument("--mem-limit-mb", type=int, default=None,
                   help="RLIMIT_AS on the CPU device (default: physical memory)")
    p.add_argument("--identity", action="store_true",
                   help="write the ready line (the device and versions that cache keys hold) "
                        "and exit, judging nothing")
    return p.parse_args(argv)


def _sanitize(obj):
    """JSON without NaN/Infinity tokens (strict parsers refuse them): non-finite floats -> null."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _sanitize(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_sanitize(v) for v in obj]
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    return str(obj)


class Protocol:
    """The private pipes: requests in, JSON lines out."""

    def __init__(self):
        self.out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
        self.inp = os.fdopen(os.dup(0), "r", encoding="utf-8")
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)

    def send(self, obj, key=None):
        line = json.dumps(_sanitize(obj), allow_nan=False)
        if key is not None:
            line = hmac.digest(key, line.encode(), "sha256").hex() + " " + line
        self.out.write(line + "\n")
        self.out.flush()


def progress_lines(protocol, request_id, key):
    """ctx.progress for one request, as `gen.send`. A generator, so the key lives only in its
    frame (gi_frame is refused to candidate code): code that gets hold of ctx.progress can
    send this request's progress lines and nothing else."""
    while True:
        stage = yield
        if stage in STAGES:
            protocol.send({"id": request_id, "progress": stage}, key)


def end_leftover_processes():
    """In the OS sandbox the worker is PID 1 of its own PID namespace and starts nothing that
    outlives a request (torch.compile compiles in-process: TORCHINDUCTOR_COMPILE_THREADS=1),
    so any other process in it now is one that candidate code left. Kills them all (kill(-1)
    from PID 1 reaches only its namespace) and reaps them; returns their command lines."""
    if os.getpid() != 1 or os.environ.get("DRTRITON_SANDBOX") != "1":
        return []

    def reap(block):
        while True:
            try:
                pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return

    reap(False)
    others = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and pid != "1":
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    others.append(f.read()[:200].replace(b"\0", b" ").decode("utf-8", "replace"))
            except OSError:
                others.append(pid)
    if others:
        os.kill(-1, signal.SIGKILL)
        reap(True)
    return others


def reject(verdict, reason, flag):
    """Rejects a verdict the judge may have passed; found after the last stage it reached."""
    verdict["flags"].append(flag)
    if verdict.get("passed"):
        verdict["passed"] = False
        verdict["failed_stage"] = verdict.get("stage")
        verdict["reason"] = reason
        verdict["reward"] = {"correct": 0, "speed": None}


class OutputLog:
    """fd 1 and fd 2 redirected into one append-only log; measured and trimmed per request."""

    def __init__(self, path):
        self.path = path
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        self.start = 0

    def begin(self):
        self.start = self._size()

    def _size(self):
        sys.stdout.flush()
        sys.stderr.flush()
        return os.fstat(1).st_size

    def end(self):
        """Bytes printed since begin(), the tail of them; trims the log to its last 64 KB."""
        try:
            size = self._size()
        except (OSError, ValueError):
            return 0, ""
        printed = max(0, size - self.start)
        tail = b""
        with open(self.path, "rb") as f:
            f.seek(max(self.start, size - TAIL_BYTES))
            tail = f.read(TAIL_BYTES)
            if size > LOG_KEEP_BYTES:
                f.seek(size - LOG_KEEP_BYTES)
                keep = f.read()
            else:
                keep = None
        if keep is not None:
            os.ftruncate(1, 0)  # O_APPEND: the next write lands at the new end
            os.write(1, keep)
        return printed, tail.decode("utf-8", "replace")


def verifier_digest() -> str:
    """The first 16 hex digits of a SHA-256 over the judge's own sources (this file and the
    verifier package). It is one of the versions, so cached verdicts and reference timings,
    whose keys hold the versions, expire when a rule changes."""
    here = os.path.dirname(os.path.abspath(__file__))
    files = [os.path.abspath(__file__)] + sorted(
        glob.glob(os.path.join(here, "verifier", "*.py")))
    h = hashlib.sha256()
    for path in files:
        with open(path, "rb") as f:
            h.update(os.path.basename(path).encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()[:16]


def main(argv=None):
    args = parse_args(argv)
    owned = args.scratch is None  # a scratch directory of our own is removed on a clean exit
    if owned:
        args.scratch = tempfile.mkdtemp(prefix="drtriton-worker-")
    try:
        return serve(args)
    finally:
        if owned:
            shutil.rmtree(args.scratch, ignore_errors=True)


def serve(args):
    device_arg = args.device
    if device_arg == "cpu":
        # Must precede the first import of triton: kernels then run in Triton's interpreter.
        os.environ["TRITON_INTERPRET"] = "1"
    elif not device_arg.startswith("cuda"):
        print(f"drtriton worker: --device must be cpu or cuda:N, not {device_arg!r}", file=sys.stderr)
        return 2
    scratch = os.path.realpath(args.scratch)
    os.makedirs(scratch, exist_ok=True)
    skip_static = os.environ.pop("DRTRITON_TEST_SKIP_STATIC", "") == "1"  # test only: see above

    protocol = Protocol()
    log = OutputLog(os.path.join(scratch, "worker.log"))

    import torch
    import triton
    from drtriton.verifier import judge as judge_mod
    from drtriton.verifier import launch_hook, sandbox

    if device_arg == "cpu":
        device = torch.device("cpu")
        device_name = "cpu"
    else:
        index = int(device_arg.split(":", 1)[1]) if ":" in device_arg else 0
        if not torch.cuda.is_available() or index >= torch.cuda.device_count():
            protocol.send({"ready": False, "error": f"{device_arg} is not available"})
            return 2
        torch.cuda.set_device(index)
        device = torch.device("cuda", index)
        device_name = torch.cuda.get_device_name(index)
    versions = {"torch": torch.__version__, "triton": triton.__version__,
                "python": platform.python_version(), "cuda": torch.version.cuda,
                "verifier": verifier_digest()}
    if args.identity:  # the same lines as a judging worker's, up to here
        protocol.send({"ready": True, "device": device_name, "versions": versions})
        return 0

    guard, take_report = sandbox.install(scratch)
    if skip_static:
        from drtriton.verifier import static_checks
        check_candidate = static_checks.check_candidate

        def violations_dropped(*a, **kw):
            report = check_candidate(*a, **kw)
            report.violations = []
            return report
        static_checks.check_candidate = violations_dropped
    mem = args.mem_limit_mb
    if mem is None and device.type == "cpu":
        mem = (os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) >> 20
    sandbox.set_rlimits(device.type == "cpu", mem)
    launch_hook.install()
    if device.type == "cuda":
        # Triton's driver starts (ctypes, ldconfig) before any candidate code is on the stack;
        # where that fails here it fails the same way in the first launch, which reports it.
        try:
            triton.runtime.driver.active.get_current_device()
        except Exception:
            pass
    # The first use of deterministic mode imports torch._dynamo, which rebinds
    # torch.manual_seed and sets TORCHINDUCTOR_CACHE_DIR: let that happen before the
    # tamper check's snapshot, so it is not blamed on the first candidate.
    from drtriton.verifier import inputs as inputs_mod
    with inputs_mod.nan_uninitialized_memory():
        torch.empty(1, device=device)
    tamper = sandbox.TamperCheck()

    ctx = judge_mod.Context(device, device_name, versions, guard, tamper, None)
    gc.collect()
    gc.freeze()  # start-up's objects (torch, triton) are never garbage: see judge()
    protocol.send({"ready": True, "device": device_name, "versions": versions})

    for line in protocol.inp:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
        except ValueError as e:
            protocol.send({"id": None, "error": f"bad request line: {e}"})
            continue
        key = request.pop("key", None)  # this request's MAC key: a local variable only
        key = key.encode() if isinstance(key, str) else None
        del line
        request_id = request.get("id")
        ctx.requests += 1
        progress = progress_lines(protocol, request_id, key)
        next(progress)
        ctx.progress = progress.send
        workdir = os.path.join(scratch, f"req-{ctx.requests}")
        os.makedirs(workdir, exist_ok=True)
        os.chdir(workdir)
        log.begin()
        options = request.get("options") or {}
        task, candidate = request.get("task"), request.get("candidate")
        if not isinstance(task, str) or not isinstance(candidate, str) or not isinstance(options, dict):
            verdict = judge_mod.new_verdict(ctx, options if isinstance(options, dict) else {})
            verdict["reason"] = "bad request: task and candidate must be strings, options an object"
            verdict["flags"].append("bad_request")
        elif str(options.get("device") or device.type).split(":")[0] != device.type:
            verdict = judge_mod.new_verdict(ctx, options)
            verdict["reason"] = f"bad request: this worker runs on {device_name} ({device.type}), " \
                                f"the request asks for {options.get('device')}"
            verdict["flags"].append("bad_request")
        else:
            verdict = judge_mod.judge(ctx, task, candidate, options, workdir)
            if skip_static:
                verdict["flags"].append("static_checks_skipped")
        refusals, judge_spawned = take_report()
        if refusals:
            verdict["checks"]["sandbox_refusals"] = refusals[:10]
            reject(verdict, "candidate code was refused: " + refusals[0], "sandbox_refused")
        leftovers = end_leftover_processes()
        if leftovers:
            verdict["checks"]["leftover_processes"] = leftovers[:10]
            verdict["flags"].append("leftover_processes_killed")
            # Ended either way; blamed on the candidate only when the judge started none
            # itself (torch.compile's compiler may outlive an abandoned compile).
            if not judge_spawned:
                reject(verdict, f"candidate code left {len(leftovers)} process(es) running",
                       "leftover_processes")
        ctx.progress = None
        progress.close()
        os.chdir(scratch)
        printed, tail = log.end()
        verdict["checks"]["output_bytes"] = printed
        verdict["checks"]["output_tail"] = tail
        shutil.rmtree(workdir, ignore_errors=True)
        protocol.send({"id": request_id, "verdict": verdict}, key)
        del key
        if ctx.cuda_poisoned:
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
