"""Where a worker spends its time per candidate: drives one `python -m drtriton.worker`
through M distinct small fused-kernel candidates (those of bench/verify_throughput.py),
passing back the reference timing as the service does, and prints the mean seconds spent
in each stage, from the times its progress lines arrive.
The "timed" stage runs under the per-GPU timing lock, so 60 / its mean bounds how many
candidates one GPU can verify per minute, whatever the number of workers.

    python bench/verify_profile.py [--device cuda:0] [-m 24]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from verify_throughput import CANDIDATE, TASK  # noqa: E402

STAGES = ["static", "load", "compile", "faithful", "correct", "timed"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("-m", "--count", type=int, default=24)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    scratch = tempfile.mkdtemp(prefix="drtriton-profile-")
    worker = subprocess.Popen([sys.executable, "-m", "drtriton.worker", "--device", args.device,
                               "--scratch", scratch], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=env, cwd=ROOT)
    print("worker:", worker.stdout.readline().decode().strip()[:160])
    totals = {s: 0.0 for s in STAGES + ["verdict"]}
    first = {}
    reference = None
    for i in range(args.count):
        if i == 1:  # the first request also measures the reference (eager, torch.compile)
            first, totals = dict(totals), {s: 0.0 for s in STAGES + ["verdict"]}
        request = {"id": i, "task": TASK, "candidate": CANDIDATE.format(index=i, block=(256, 512, 1024)[i % 3]),
                   "options": {"device": "cuda" if args.device.startswith("cuda") else "cpu",
                               "reference": reference}}
        worker.stdin.write((json.dumps(request) + "\n").encode())
        worker.stdin.flush()
        last_stage, last_time = None, time.monotonic()
        while True:
            msg = json.loads(worker.stdout.readline())
            now = time.monotonic()
            if last_stage:
                totals[last_stage] += now - last_time
            if "verdict" in msg:
                passed = msg["verdict"]["passed"]
                reference = msg["verdict"].get("reference_timing") or reference
                break
            last_stage, last_time = msg["progress"], now
        if not passed:
            print(f"candidate {i} was rejected: {msg['verdict']['reason']}")
    worker.stdin.close()
    worker.wait(timeout=60)
    n = max(args.count - 1, 1)
    print(f"\nseconds by stage: the first candidate (it also times the reference), then the mean "
          f"of the other {n}, which get the reference timing back")
    for stage in STAGES:
        print(f"  {stage:10s} {first.get(stage, 0.0):8.3f} {totals[stage] / n:8.3f}")
    timed = totals["timed"] / n
    print(f"  if the whole timed stage held the per-GPU lock: at most {60 / max(timed, 1e-9):.0f} candidates per minute per GPU")


if __name__ == "__main__":
    main()
