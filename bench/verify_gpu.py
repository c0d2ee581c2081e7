"""GPU tier of the verifier: the adversarial, fault and honest suites through a CUDA worker.

    python bench/verify_gpu.py [--device cuda:0] [--suite tests/eval/candidates]
                               [--markdown results.md] [--json results.json]

Runs every case of tests/eval/candidates through `python -m drtriton.worker --device
cuda:N` exactly as the C++ service does (JSON lines, a deadline per request, a new worker
after a crash or hang, each task's reference timing measured once and passed back as
options.reference), prints one row per case (expected, got, passed, reason, seconds),
the honest candidates' speedups over eager and torch.compile, and a summary line.
Exit status: 0 when every case met its expectation, 1 otherwise.

Without a GPU it says so and runs the same suite on the CPU worker (Triton's
interpreter), skipping what is heavy there (torch.compile timing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

from drtriton.verifier import client  # noqa: E402

REQUEST_TIMEOUT_S = 600   # the first request of a task includes torch.compile
HANG_TIMEOUT_S = 20       # a case expected to hang is given this long


def gpu_available():
    try:
        import torch
    except ImportError as e:
        return False, f"torch is not importable ({e})"
    if not torch.cuda.is_available():
        return False, "torch.cuda.is_available() is False"
    return True, torch.cuda.get_device_name(0)


def fmt_ms(stats):
    return f"{stats['median']:.4f}" if stats else "-"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--suite", default=os.path.join(ROOT, "tests", "eval", "candidates"))
    p.add_argument("--only", default=None, help="comma-separated case names")
    p.add_argument("--markdown", default=None, help="also write the table here")
    p.add_argument("--json", default=None, help="also write every verdict here")
    args = p.parse_args(argv)

    ok_gpu, why = gpu_available()
    device = args.device
    if not ok_gpu:
        print(f"verify_gpu: no GPU ({why}); running the suite on the CPU worker instead, "
              f"without torch.compile timing")
        device = "cpu"
    device_type = "cuda" if device.startswith("cuda") else "cpu"

    cases = client.load_suite(args.suite)
    if args.only:
        wanted = set(args.only.split(","))
        cases = [c for c in cases if c.name in wanted]
    worker = client.WorkerClient(device)
    ready = worker.start()
    print(f"worker ready on {ready['device']}: {json.dumps(ready['versions'])}")
    # `layer: runtime` cases run on a second worker whose static checks are off.
    runtime_worker = client.WorkerClient(device, extra_env=client.RUNTIME_ENV)

    references = {}  # (task, options that change the reference) -> reference_timing
    rows, verdicts, mismatches = [], {}, 0
    t_all = time.monotonic()
    for case in cases:
        task_src, cand_src = case.sources()
        want = case.expectation(device_type)
        options = dict(case.options)
        if device_type == "cpu":
            options.setdefault("compile", False)
        ref_key = (case.task, bool(options.get("eval_mode")))
        options["reference"] = references.get(ref_key)
        timeout = HANG_TIMEOUT_S if want.outcome == "hang" else REQUEST_TIMEOUT_S
        judge_with = runtime_worker if case.runtime_only else worker
        result = judge_with.request(task_src, cand_src, options, timeout=timeout)
        ok, got = client.judge_case(case, result, device_type)
        mismatches += not ok
        v = result.verdict
        if v and v.get("reference_timing") and v.get("passed"):
            references.setdefault(ref_key, v["reference_timing"])
        verdicts[case.name] = {"outcome": result.outcome, "progress": result.progress,
                               "returncode": result.returncode, "verdict": v}
        rows.append((case.name, str(want), got, "yes" if ok else "NO", result.seconds, v))
        print(f"{'ok ' if ok else 'BAD'} {case.name:32s} {result.seconds:7.2f}s  {got[:150]}", flush=True)
    elapsed = time.monotonic() - t_all
    worker.close()
    runtime_worker.close()

    header = "| candidate | expected | got | as expected | seconds |\n| --- | --- | --- | --- | --- |"
    table = [header] + [f"| {n} | {w} | {g.replace('|', '/')[:200]} | {ok} | {s:.2f} |"
                        for n, w, g, ok, s, _ in rows]
    speed = ["| honest candidate | eager ms | compile ms | candidate ms | vs eager | vs compile "
             "| own kernel share | flags |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for n, _, _, _, _, v in rows:
        if v and v.get("passed") and n.startswith(("honest_", "fault_prints")):
            tm = v["timing_ms"]
            se, sc, share = v.get("speedup_eager"), v.get("speedup_compile"), v.get("own_kernel_share")
            times = " | ".join(fmt_ms(tm[k]) for k in ("eager", "compile", "candidate"))
            speed.append(f"| {n} | {times} "
                         f"| {se:.2f}x | {f'{sc:.2f}x' if sc else '-'} | "
                         f"{f'{share:.2f}' if share is not None else '-'} | {','.join(v['flags'])} |")
    summary = (f"verify_gpu: {len(rows) - mismatches}/{len(rows)} cases as expected on {ready['device']} "
               f"({device}), {worker.started + runtime_worker.started} worker start(s), {elapsed:.1f} s")
    print()
    print("\n".join(table))
    print()
    print("\n".join(speed))
    print()
    print(summary)
    if args.markdown:
        with open(args.markdown, "w") as f:
            versions = json.dumps(ready["versions"])
            f.write(f"# Verifier suites on {ready['device']}\n\nversions: `{versions}`\n\n")
            f.write("\n".join(table) + "\n\n" + "\n".join(speed) + "\n\n" + summary + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": ready, "cases": verdicts}, f, indent=1)
    return 0 if mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
