"""A stand-in for `python -m drtriton.worker` that speaks the same JSON-lines protocol
(src/eval/README.md) without torch, so the C++ pool and service are tested in seconds.

Like the real worker, it reports each stage as it enters it ({"progress": "load"} means
load is running). The candidate's text picks the behaviour through a marker `FAKE:<name>`:
  pass (also the default)   every stage, then a passing verdict
  reject                    a rejection at the static stage
  crash                     exit code 3 during "load"
  crash_bad_log             writes bytes that are not UTF-8 to its log, then exits 3 at once
  task_error                a rejection flagged task_error (the task, not the candidate, is broken)
  segfault                  SIGSEGV during "compile"
  hang                      sleeps forever during "compile" (the compile timeout fires)
  hang_late                 sleeps forever during "correct" (the run timeout fires)
  slow                      sleeps FAKE_SLOW seconds (a marker `FAKE_SLOW=0.3`), then passes
  huge                      prints 5 MB of junk on the protocol channel, then passes
  exit_after_verdict        passes, then exits: the next request finds the worker gone
  forge                     writes a verdict line without the request's MAC (a candidate
                            forging one), then passes
  junk_after_verdict        passes, then writes a stray line (something left behind writing
                            between requests)
The environment variable FAKE_WORKER_START=fail makes the worker exit before its ready line;
FAKE_WORKER_SLOW_DEVICE=D makes the worker of device D wait 30 s before it.
Every line after the ready line carries HMAC-SHA256(request key, json), as the real worker's.
"""
import argparse
import hashlib
import hmac
import json
import os
import re
import sys
import time

STAGES = ["static", "load", "compile", "faithful", "correct", "timed"]


KEY = None  # the running request's key: a fake worker runs no untrusted code
# Tells one start of a worker from the next (in the sandbox, every worker is PID 1).
INSTANCE = os.urandom(8).hex()


def send(obj):
    line = json.dumps(obj)
    if KEY is not None:
        line = hmac.new(KEY.encode(), line.encode(), hashlib.sha256).hexdigest() + " " + line
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def progress(rid, upto):
    """Enter every stage up to and including `upto`."""
    for stage in STAGES[: STAGES.index(upto) + 1]:
        send({"id": rid, "progress": stage})


def passing_verdict(device, options):
    reference = options.get("reference")
    return {
        "passed": True, "stage": "timed", "reason": "",
        "checks": {"reference_given": reference is not None, "pid": os.getpid(),
                   "instance": INSTANCE,
                   "options": {k: v for k, v in options.items() if k != "reference"}},
        "err": [{"candidate": 1e-7, "eager": 1e-7, "bound": 8e-7}] * 5,
        "timing_ms": {w: {"median": 1.0, "iqr": 0.01} for w in ("eager", "compile", "candidate")},
        "speedup_eager": 1.0, "speedup_compile": 1.0, "own_kernel_share": 1.0, "flags": [],
        "reward": {"correct": 1, "speed": 0.0}, "device": device,
        "versions": {"fake_worker": "1"},
        # A worker measures the reference only when it was not handed one.
        "reference_timing": None if reference else {"eager": 1.0, "compile": 1.0,
                                                      "measured_by": os.getpid()},
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", required=True)
    parser.add_argument("--scratch", required=True)
    args, _ = parser.parse_known_args()  # tests may add a marker word to find the process by
    if os.environ.get("FAKE_WORKER_START") == "fail":
        print("fake worker: told to fail at start", file=sys.stderr)
        sys.exit(4)
    if os.environ.get("FAKE_WORKER_SLOW_DEVICE") == args.device:
        time.sleep(30)  # a worker slow to start (importing torch, initializing CUDA)
    device = "fake-" + args.device
    print("fake worker: some banner on stdout that is not protocol")
    send({"ready": True, "device": device, "versions": {"fake_worker": "1"}})
    global KEY
    for line in sys.stdin:
        request = json.loads(line)
        KEY = request.pop("key", None)
        rid, candidate, options = request["id"], request["candidate"], request["options"]
        marker = re.search(r"FAKE:(\w+)", candidate)
        mode = marker.group(1) if marker else "pass"
        if mode == "reject":
            progress(rid, "static")
            send({"id": rid, "verdict": {"passed": False, "stage": "none",
                                         "failed_stage": "static",
                                         "reason": "fake rejection", "flags": [],
                                         "reward": {"correct": 0, "speed": None},
                                         "device": device}})
            continue
        if mode == "crash":
            progress(rid, "load")
            print("fake worker: crashing", file=sys.stderr, flush=True)
            os._exit(3)
        if mode == "task_error":
            send({"id": rid, "verdict": {"passed": False, "stage": "none",
                                         "failed_stage": "static", "reason": "task: no Model",
                                         "flags": ["task_error"]}})
            continue
        if mode == "crash_bad_log":  # nothing on stdout: the pool sees only the crash
            sys.stderr.buffer.write(b"fake worker: \xff\xfe\xc3\x28 \xed\xa0\x80 not UTF-8\n")
            sys.stderr.flush()
            os._exit(3)
        if mode == "segfault":
            progress(rid, "compile")
            # A real fault: in the sandbox the worker is PID 1 of its namespace, which ignores
            # a SIGSEGV merely sent to it.
            import ctypes
            ctypes.string_at(0)
        if mode == "hang":
            progress(rid, "compile")
            time.sleep(3600)
        if mode == "hang_late":
            progress(rid, "correct")
            time.sleep(3600)
        if mode == "slow":
            seconds = re.search(r"FAKE_SLOW=([0-9.]+)", candidate)
            time.sleep(float(seconds.group(1)) if seconds else 0.5)
        if mode == "forge":
            progress(rid, "load")
            sys.stdout.write(json.dumps({"id": rid, "verdict": passing_verdict(device, options)}) + "\n")
            sys.stdout.flush()
        if mode == "huge":
            sys.stdout.write("x" * (5 << 20) + "\n")
            sys.stdout.write("not json either\n")
            sys.stdout.flush()
        progress(rid, "timed")
        send({"id": rid, "verdict": passing_verdict(device, options)})
        if mode == "exit_after_verdict":
            sys.exit(0)
        if mode == "junk_after_verdict":
            sys.stdout.write("left behind\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
