"""Verifier throughput on real programs, without and with the worker's task cache.

N programs of tests/programs/real/fused, M candidates each: the built-in compiler's solution,
made distinct by a comment in each kernel (so none is a verdict-cache hit and Triton compiles
every one), judged one task after the other by two workers that take turns request by
request: one with the task cache off (DRTRITON_TASK_CACHE_MB=0), one with it on. Requests are
as a service without a verdict cache sends them (no reference timing, no seed). Prints per
task the seconds of the first candidate and the mean of the others, candidates per minute
both ways, the ratios, and where the 2nd..Mth candidates' time went (verdict.seconds).

    python3 bench/verify_reuse.py                          # CPU: SMALL versions, interpreter
    python3 bench/verify_reuse.py --device cuda:0 -n 8 -m 8   # GPU: full size

Needs build/drtriton (or DRTRITON_BIN) for `drtriton convert`.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "programs", "real"))
from drtriton.verifier.client import WorkerClient  # noqa: E402
from small import small_source  # noqa: E402

BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")
FUSED = os.path.join(ROOT, "tests", "programs", "real", "fused")
# A spread of the folder first (GEMM, convolution, transposed convolution; norms, pools,
# softmax), then the rest in name order.
FIRST = ["linear_layernorm_gelu", "conv2d_bn_relu", "convtranspose2d_gelu_groupnorm", "matmul_gelu_softmax",
         "conv3d_softmax_two_maxpools", "linear_groupnorm_hardtanh", "conv2d_relu_gap_bias_logsumexp",
         "swiglu_ffn"]
STAGES = ["load", "compile", "faithful", "correct", "timed", "lock_held", "cleanup"]


def programs(count):
    names = FIRST + sorted(n[:-3] for n in os.listdir(FUSED) if n.endswith(".py") and n[:-3] not in FIRST)
    return names[:count]


def solve(name, small, workdir):
    """(task source, the compiler's solution) of one program."""
    with open(os.path.join(FUSED, name + ".py")) as f:
        task = f.read()
    if small:
        task = small_source(task)
    path = os.path.join(workdir, name + ".py")
    with open(path, "w") as f:
        f.write(task)
    out = os.path.join(workdir, name + "_triton.py")
    subprocess.run([BIN, "convert", path, "--no-verify", "-o", out], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    with open(out) as f:
        return task, f.read()


def distinct(solution, tag):
    """The solution with a comment naming `tag` at the top of every kernel's body."""
    lines, out = solution.splitlines(keepends=True), []
    for i, line in enumerate(lines):
        out.append(line)
        if line.startswith("def ") and i and lines[i - 1].startswith("@triton.jit"):
            out.append(f"    # candidate {tag}\n")
    return "".join(out)


def judge_all(tasks, count, device, tag, compile_timing, cache_mb):
    """{mode: {program: [(wall seconds, verdict) per candidate]}} for a worker with the task
    cache off and one with it on, which take turns request by request (so both see the same
    machine load)."""
    workers = {mode: WorkerClient(device, scratch=tempfile.mkdtemp(prefix="drtriton-reuse-"),
                                  extra_env={"TORCHINDUCTOR_COMPILE_THREADS": "1", **env})
               for mode, env in (("off", {"DRTRITON_TASK_CACHE_MB": "0"}),
                                 ("on", {"DRTRITON_TASK_CACHE_MB": cache_mb} if cache_mb else {}))}
    results = {mode: {} for mode in workers}
    options = {"device": device.split(":")[0], "compile": compile_timing}
    try:
        for worker in workers.values():
            worker.start()
        for name, task, solution in tasks:
            for i in range(count):
                for mode, worker in workers.items():
                    candidate = distinct(solution, f"{tag}-{mode}-{i}")
                    start = time.monotonic()
                    result = worker.request(task, candidate, options, timeout=1800)
                    verdict = result.verdict or {"passed": False, "reason": result.outcome}
                    results[mode].setdefault(name, []).append((time.monotonic() - start, verdict))
    finally:
        for worker in workers.values():
            worker.close()
    return results


def mean(values):
    return statistics.mean(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="cpu or cuda:N")
    parser.add_argument("-n", "--tasks", type=int, default=3, help="programs (default 3)")
    parser.add_argument("-m", "--count", type=int, default=4, help="candidates per program (default 4)")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--small", action="store_true", help="SMALL versions (the default on the CPU)")
    size.add_argument("--full", action="store_true", help="full size (the default on a GPU)")
    parser.add_argument("--no-compile", action="store_true",
                        help="do not time torch.compile (as RL and pairs ask)")
    parser.add_argument("--cache-mb", default="",
                        help="DRTRITON_TASK_CACHE_MB of the worker with the cache (default: the worker's, "
                             "256; full-size programs need GBs to keep their input sets and truths)")
    args = parser.parse_args()
    if not os.path.exists(BIN):
        raise SystemExit(f"{BIN} is not built: run make build")
    small = args.small or (args.device == "cpu" and not args.full)
    workdir = tempfile.mkdtemp(prefix="drtriton-reuse-programs-")
    tasks = [(name, *solve(name, small, workdir)) for name in programs(args.tasks)]
    measured = judge_all(tasks, args.count, args.device, os.urandom(4).hex(), not args.no_compile,
                         args.cache_mb)

    print(f"\nverify_reuse: {len(tasks)} programs x {args.count} candidates, device {args.device}, "
          f"{'SMALL' if small else 'full'} sizes, torch.compile {'not ' if args.no_compile else ''}timed, "
          f"a worker each way")
    print(f"{'program':42s} {'off: 1st':>9s} {'off: rest':>9s} {'on: 1st':>9s} {'on: rest':>9s} "
          f"{'rest on/off':>11s}")
    for name, _, _ in tasks:
        off, on = ([s for s, _ in measured[m][name]] for m in ("off", "on"))
        print(f"{name:42s} {off[0]:9.2f} {mean(off[1:]):9.2f} {on[0]:9.2f} {mean(on[1:]):9.2f} "
              f"{mean(on[1:]) / mean(off[1:]):11.2f}")
    total = {m: sum(s for rows in measured[m].values() for s, _ in rows) for m in measured}
    rest = {m: mean([s for rows in measured[m].values() for s, _ in rows[1:]]) for m in measured}
    first = {m: mean([rows[0][0] for rows in measured[m].values()]) for m in measured}
    n = len(tasks) * args.count
    print(f"candidates per minute, all {n}: off {60 * n / total['off']:.1f}, on {60 * n / total['on']:.1f} "
          f"(x{total['off'] / total['on']:.2f})")
    print(f"candidates per minute, 2nd..{args.count}th of a task: off {60 / rest['off']:.1f}, "
          f"on {60 / rest['on']:.1f} (x{rest['off'] / rest['on']:.2f})")
    print(f"with the cache, a 2nd..{args.count}th candidate takes {rest['on'] / first['on']:.2f} of "
          f"the first's time ({rest['on']:.2f} s against {first['on']:.2f} s)")
    print("mean seconds by stage of the 2nd..Mth candidates (verdict.seconds), off / on:")
    for key in STAGES:
        values = {m: [v.get("seconds", {}).get(key) for rows in measured[m].values() for _, v in rows[1:]]
                  for m in measured}
        if any(x is not None for x in values["off"] + values["on"]):
            print(f"  {key:10s} {mean([x or 0 for x in values['off']]):7.3f} / "
                  f"{mean([x or 0 for x in values['on']]):7.3f}")
    kept = [v["checks"].get("task_cache", {}).get("sets")
            for rows in measured["on"].values() for _, v in rows]
    print(f"task cache entries with their per-set work: {sum(map(bool, kept))} of {len(kept)} requests")
    for mode in measured:
        rejected = [(name, v.get("reason", "")[:120]) for name, rows in measured[mode].items()
                    for _, v in rows if not v.get("passed")]
        print(f"rejected with the cache {mode}: {len(rejected)} of {n}"
              + "".join(f"\n  {name}: {reason}" for name, reason in rejected[:6]))


if __name__ == "__main__":
    main()
