"""Where a worker spends its time per candidate: drives one `python -m drtriton.worker`
through M distinct small fused-kernel candidates (those of bench/verify_throughput.py),
passing back the reference timing as the service does, and prints the mean seconds spent
in each stage, as its verdicts report them (verdict.seconds). With --pair TASK SOLUTION
(repeatable) it judges real programs instead: each solution cold, then once more with a
comment added (warm: the worker's task cache holds the task, Triton compiles again), and
prints each judgement's stages; --cprofile then says which functions the time went to.
Part of the "timed" stage (lock_held) runs under the per-GPU timing lock, so 60 / its mean
bounds how many candidates one GPU can verify per minute, whatever the number of workers.

    python bench/verify_profile.py [--device cuda:0] [-m 24]
    python bench/verify_profile.py --pair TASK.py SOLUTION.py [--pair ...] --cprofile FILE
"""
import argparse
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from verify_throughput import TASK, candidate  # noqa: E402

def resident_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


PROFILED_WORKER = """import cProfile, runpy
profile = cProfile.Profile()
profile.enable()
try:
    runpy.run_module("drtriton.worker", run_name="__main__", alter_sys=True)
finally:
    profile.disable()
    profile.dump_stats({out!r})
"""

KEYS = ["static", "load", "compile", "faithful", "correct", "timed", "lock_wait", "lock_held",
        "cleanup"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("-m", "--count", type=int, default=24)
    parser.add_argument("--cprofile", metavar="FILE", help="run the worker under cProfile, stats to FILE")
    parser.add_argument("--pair", nargs=2, action="append", metavar=("TASK", "SOLUTION"),
                        help="judge this real program's solution, cold then warm (repeatable)")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    scratch = tempfile.mkdtemp(prefix="drtriton-profile-")
    worker_cmd = ["-m", "drtriton.worker"]
    if args.cprofile:  # not `-m cProfile`: its root frame is named <string>, as is code that
        # candidate code compiles, which the sandbox then takes for the candidate's own
        wrapper = os.path.join(scratch, "profiled_worker.py")
        with open(wrapper, "w") as f:
            f.write(PROFILED_WORKER.format(out=os.path.abspath(args.cprofile)))
        worker_cmd = [wrapper]
    worker = subprocess.Popen([sys.executable, *worker_cmd, "--device", args.device,
                               "--scratch", scratch], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=env, cwd=ROOT)
    print("worker:", worker.stdout.readline().decode().strip()[:160])
    if args.pair:
        return profile_pairs(args, worker)
    seconds, walls, candidate_ms, rss = [], [], [], []
    reference = None
    for i in range(args.count):
        request = {"id": i, "task": TASK, "candidate": candidate(i),
                   "options": {"device": "cuda" if args.device.startswith("cuda") else "cpu",
                               "reference": reference}}
        verdict, wall = judge(worker, request)
        walls.append(wall)
        reference = verdict.get("reference_timing") or reference
        seconds.append(verdict.get("seconds") or {})
        rss.append(resident_mib(worker.pid))
        candidate_ms.append(((verdict.get("timing_ms") or {}).get("candidate") or {}).get("median"))
        if not verdict["passed"]:
            print(f"candidate {i} was rejected: {verdict['reason']}")
    worker.stdin.close()
    worker.wait(timeout=60)
    n = max(args.count - 1, 1)
    print(f"\nseconds by stage (verdict.seconds): the first candidate (it also times the reference), "
          f"then the mean of the other {n}, which get the reference timing back")
    for key in KEYS + ["request (wall)"]:
        values = walls if key == "request (wall)" else [s.get(key, 0.0) for s in seconds]
        print(f"  {key:16s} {values[0]:8.3f} {sum(values[1:]) / n:8.3f}")
    medians = sorted(v for v in candidate_ms[1:] if v is not None)
    if medians:
        print(f"  candidate's median time, median over candidates: {medians[len(medians) // 2]:.4f} ms")
    print(f"  worker's resident memory after request 1, {args.count // 2}, {args.count}: "
          f"{rss[0]:.0f}, {rss[args.count // 2 - 1]:.0f}, {rss[-1]:.0f} MiB")
    held = sum(s.get("lock_held", 0.0) for s in seconds[1:]) / n
    print(f"  one GPU's timing lock bounds the service at {60 / max(held, 1e-9):.0f} candidates per minute")


def judge(worker, request):
    start = time.monotonic()
    worker.stdin.write((json.dumps(request) + "\n").encode())
    worker.stdin.flush()
    while True:
        msg = json.loads(worker.stdout.readline())
        if "verdict" in msg:
            return msg["verdict"], time.monotonic() - start


def profile_pairs(args, worker):
    """Each pair's solution judged cold, then warm (a comment first), all checks, as the
    corpus script sends them; a table of seconds by stage, and the profile's top functions."""
    device = "cuda" if args.device.startswith("cuda") else "cpu"
    keys = KEYS + ["shared_wait", "memory_wait"]
    print(f"{'program':40s} {'run':5s} {'wall':>7s} " + " ".join(f"{k[:8]:>8s}" for k in keys))
    for task_path, solution_path in args.pair:
        task, solution = open(task_path).read(), open(solution_path).read()
        for run, cand in (("cold", solution), ("warm", "# judged again (warm)\n" + solution)):
            verdict, wall = judge(worker, {"id": run, "task": task, "candidate": cand, "options": {
                "device": device, "compile": True, "seed": 7}})
            s = verdict.get("seconds") or {}
            name = os.path.basename(task_path)[:-3]
            print(f"{name[:40]:40s} {run:5s} {wall:7.2f} " + " ".join(f"{s.get(k, 0.0):8.2f}" for k in keys)
                  + ("" if verdict["passed"] else f"  REJECTED: {verdict['reason'][:120]}"), flush=True)
    worker.stdin.close()
    worker.wait(timeout=120)
    if args.cprofile:
        for order, within in (("cumulative", "drtriton"), ("cumulative", ""), ("tottime", "")):
            out = io.StringIO()
            pstats.Stats(args.cprofile, stream=out).sort_stats(order).print_stats(within, 40)
            print(f"\n== the worker's functions{' in ' + within if within else ''} by {order} time\n"
                  + out.getvalue().split("\n", 6)[-1])


if __name__ == "__main__":
    main()
