"""Verifier throughput: start `drtriton serve`, submit M small fused-kernel candidates for one
task (cold: each one judged by a worker), then the same M again one by one (cached), and
print verified candidates per minute cold and the cache-hit latency (p50/p99; target < 5 ms).

The figure that matters is the H200 one (target: at least 300 verified per minute cold):
    python3 bench/verify_throughput.py --device cuda --gpus 0 [--workers-per-gpu W]
(scripts/gpu_throughput.sh builds and runs it on the device machine). On a machine without a GPU it runs on the CPU (Triton's interpreter), which measures the
service and its protocol, not kernel speed. While python/drtriton/worker.py does not exist,
or with --fake, it runs tests/eval/fake_worker.py: then only the C++ side is measured.
It also prints the mean of each verdict's `seconds` (time by stage) and how busy the
per-GPU timing lock was.
"""
import argparse
import http.client
import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")
REAL_WORKER = os.path.join(ROOT, "python", "drtriton", "worker.py")
FAKE_WORKER = f"{sys.executable} {os.path.join(ROOT, 'tests', 'eval', 'fake_worker.py')}"

TASK = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x * 2.0 + 1.0)


def get_inputs():
    return [torch.randn(64, 1024)]


def get_init_inputs():
    return []
'''

# One fused kernel; candidates differ in block size and in a comment inside the kernel that
# names the run and the candidate, so none is a verdict-cache hit and Triton compiles every
# one, even on a machine that ran the benchmark before (its cache key hashes the source).
CANDIDATE = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # candidate {index}
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.maximum(x * 2.0 + 1.0, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        fused_kernel[(triton.cdiv(n, {block}),)](x, y, n, BLOCK={block})
        return y
'''


RUN = os.urandom(4).hex()


def candidate(index):
    return CANDIDATE.format(index=f"{RUN}-{index}", block=(256, 512, 1024)[index % 3])


def post(conn, path, body):
    conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    data = json.loads(response.read())
    if response.status != 200:
        raise SystemExit(f"{path}: HTTP {response.status}: {data}")
    return data


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--count", type=int, default=32, help="candidates (default 32)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--gpus", default="", help="GPU indices for --device cuda, e.g. 0,1")
    parser.add_argument("--workers-per-gpu", type=int, default=None,
                        help="workers per GPU, or CPU workers with --device cpu "
                             "(default: drtriton serve's)")
    parser.add_argument("--fake", action="store_true", help="use tests/eval/fake_worker.py")
    args = parser.parse_args()
    if not os.path.exists(BIN):
        raise SystemExit(f"{BIN} is not built: run make build")
    fake = args.fake or not os.path.exists(REAL_WORKER)

    scratch = tempfile.mkdtemp(prefix="drtriton-bench-")
    command = [BIN, "serve", "--port", "0", "--device", args.device, "--cache",
               os.path.join(scratch, "verdicts.sqlite")]
    if args.workers_per_gpu:
        command += ["--workers-per-gpu", str(args.workers_per_gpu)]
    if args.gpus:
        command += ["--gpus", args.gpus]
    if fake:
        command += ["--worker-command", FAKE_WORKER]
    service = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([service.stdout], [], [], 300)
        line = service.stdout.readline() if ready else ""
        if "listening on http://127.0.0.1:" not in line:
            raise SystemExit(f"drtriton serve did not start: {line!r}")
        port = int(line.split("http://127.0.0.1:")[1].split()[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)

        items = [{"task": TASK, "candidate": candidate(i),
                  "options": {"device": args.device}} for i in range(args.count)]
        start = time.perf_counter()
        cold = post(conn, "/verify_batch", {"items": items})["verdicts"]
        cold_s = time.perf_counter() - start
        passed = sum(v["passed"] for v in cold)

        latencies = []
        for item in items:
            start = time.perf_counter()
            verdict = post(conn, "/verify", item)
            latencies.append(time.perf_counter() - start)
            assert verdict["cached"], "the second round should come from the cache"
        conn.request("GET", "/stats")
        stats = json.loads(conn.getresponse().read())
        conn.close()
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(timeout=60)
        shutil.rmtree(scratch, ignore_errors=True)

    worker = "tests/eval/fake_worker.py (C++ side only)" if fake else "python -m drtriton.worker"
    print(f"\nverify_throughput: {args.count} candidates, device {stats['device']} ({args.device}), "
          f"{stats['workers']} workers, {worker}")
    if not fake and passed < args.count:
        reasons = {v.get("reason") for v in cold if not v["passed"]}
        print(f"warning: {args.count - passed} candidates were rejected: {sorted(reasons)[:3]}")
    print(f"{'measure':36s} {'value':>12s}")
    print(f"{'cold: seconds for all':36s} {cold_s:12.2f}")
    print(f"{'cold: verified per minute':36s} {args.count / cold_s * 60:12.1f}")
    print(f"{'cold: passed':36s} {passed:12d}")
    print(f"{'cached: latency p50 (ms)':36s} {percentile(latencies, 0.5) * 1e3:12.2f}")
    print(f"{'cached: latency p99 (ms)':36s} {percentile(latencies, 0.99) * 1e3:12.2f}")
    print(f"{'cached: latency mean (ms)':36s} {statistics.mean(latencies) * 1e3:12.2f}")
    # Where the workers' time went (verdict.seconds, mean over the cold verdicts), and how
    # busy the per-GPU timing lock was: the share of the wall time some worker held it.
    seconds = [v.get("seconds") or {} for v in cold]
    for key in ("static", "load", "compile", "faithful", "correct", "timed", "lock_wait",
                "lock_held", "cleanup"):
        values = [s[key] for s in seconds if key in s]
        if values:
            print(f"{'cold: mean seconds, ' + key:36s} {statistics.mean(values):12.3f}")
    held = sum(s.get("lock_held", 0.0) for s in seconds)
    print(f"{'cold: timing lock busy (share)':36s} {held / cold_s:12.2f}")
    medians = [v["timing_ms"]["candidate"]["median"] for v in cold if v["passed"]]
    if medians:
        print(f"{'cold: candidate median time (ms)':36s} {statistics.median(medians):12.4f}")
    if args.device == "cpu":
        print("(CPU figures: the service and protocol on this machine; the figure that matters "
              "is the H200 one)")


if __name__ == "__main__":
    main()
