"""How often a checkpoint's answers pass the verifier, on a suite of programs: the number the
warm-up is for, and the baseline reinforcement learning starts from.

    python -m drtriton.learn.evaluate --ckpt CKPT --suite [NAME=]SUITE.jsonl [--suite ...] \\
        [--limit K] --samples 8 --binary build/drtriton --device cpu|cuda --out report.json

SUITE.jsonl is `drtriton synth` output (fields "id" and "pytorch"). Each program gets N
completions, the first decoded greedily and the rest sampled (--no-greedy-first: all
sampled). Those with an answer (prompt.parse_answer) go to `drtriton serve` (POST
/verify_batch, torch.compile not timed: the report is about correctness). All suites are
sampled and judged together, by one model and one service. The report holds, for each
suite, the share of programs whose first sample passes, the share with any of N passing
(pass@N), and every rejected sample counted by the stage that rejected it ("unparsed" when
there was no answer to judge).
"""

import argparse
import json
import os
import sys
import time
from collections import Counter

import torch

from ..service_client import Service, judge_once
from .prompt import parse_answer

STAGES = ("unparsed", "static", "load", "compile", "faithful", "correct", "timed")
ITEMS_PER_REQUEST = 256  # keeps each /verify_batch body far below the service's 64 MiB


def load_suite(path: str, limit: int | None = None) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        tasks = [json.loads(line) for line in f if line.strip()]
    return tasks[:limit] if limit else tasks


def judge(tasks: list[dict], completions: list[list[str]], binary: str, device: str,
          serve_args: tuple = ()) -> dict:
    """The report for completions[i], the samples answering tasks[i]."""
    return make_report(tasks, judge_outcomes(tasks, completions, binary, device, serve_args))


def judge_outcomes(tasks: list[dict], completions: list[list[str]], binary: str, device: str,
                   serve_args: tuple = ()) -> list[list[dict]]:
    """Each sample's outcome: "passed", the stage that rejected it, or "unparsed". Starts the
    service only when some completion holds an answer; an answer repeated for a task is
    judged once."""
    items, places = [], []
    for i, (task, samples) in enumerate(zip(tasks, completions)):
        for j, completion in enumerate(samples):
            answer = parse_answer(completion)
            if answer is not None:
                items.append({"task": task["pytorch"], "candidate": answer,
                              "options": {"device": device, "compile": False}})
                places.append((i, j))
    verdicts = []
    if items:
        with Service(binary, "--device", device, *serve_args) as service:
            def judge_all(unique):
                verdicts = []
                for start in range(0, len(unique), ITEMS_PER_REQUEST):
                    batch = {"items": unique[start:start + ITEMS_PER_REQUEST]}
                    verdicts += service.post("/verify_batch", batch)["verdicts"]
                return verdicts
            verdicts = judge_once(items, judge_all)
    outcomes = [[{"outcome": "unparsed"} for _ in samples] for samples in completions]
    for (i, j), verdict in zip(places, verdicts):
        outcome = "passed" if verdict["passed"] else verdict.get("failed_stage") or "none"
        outcomes[i][j] = {"outcome": outcome, "reason": verdict.get("reason", ""),
                          "speedup_eager": verdict.get("speedup_eager")}
    return outcomes


def make_report(tasks: list[dict], outcomes: list[list[dict]]) -> dict:
    passed = [[o["outcome"] == "passed" for o in samples] for samples in outcomes]
    # faster than eager: passed, and the verifier's t_eager / t_candidate over 1
    faster = [[o["outcome"] == "passed" and (o.get("speedup_eager") or 0) > 1 for o in samples]
              for samples in outcomes]
    samples = max(sum(map(len, outcomes)), 1)
    rejected = Counter(o["outcome"] for samples in outcomes for o in samples
                       if o["outcome"] != "passed")
    stages = list(STAGES) + sorted(set(rejected) - set(STAGES))  # "none" or a new stage
    programs = max(len(tasks), 1)
    return {
        "programs": len(tasks),
        "samples_per_program": max((len(s) for s in outcomes), default=0),
        "first_sample_pass": sum(bool(p) and p[0] for p in passed) / programs,
        "pass_at_n": sum(any(p) for p in passed) / programs,
        "samples_passed": sum(map(sum, passed)),
        "first_sample_faster": sum(bool(f) and f[0] for f in faster) / programs,
        "sample_pass": sum(map(sum, passed)) / samples,
        "sample_faster": sum(map(sum, faster)) / samples,
        "rejected_by_stage": {stage: rejected[stage] for stage in stages},
        "per_program": [{"id": task.get("id"), "samples": samples}
                        for task, samples in zip(tasks, outcomes)],
    }


def format_table(reports: dict) -> str:
    """One row per suite: programs, first-sample pass, pass@N, rejected samples by stage."""
    n = max(r["samples_per_program"] for r in reports.values())
    stages = [s for s in STAGES if any(r["rejected_by_stage"].get(s) for r in reports.values())]
    head = ["suite", "programs", "first sample", "faster", f"pass@{n}", "all samples", "faster",
            *stages]
    rows = [[name, str(r["programs"]), *(f"{100 * r[k]:.1f}%" for k in (
                "first_sample_pass", "first_sample_faster", "pass_at_n", "sample_pass",
                "sample_faster")), *(str(r["rejected_by_stage"].get(s, 0)) for s in stages)]
            for name, r in reports.items()]
    widths = [max(len(row[i]) for row in [head] + rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
             for row in [head] + rows]
    return "\n".join(lines) + ("\n(faster: passed and faster than eager PyTorch; rejected "
                               "samples counted by the stage that rejected them)")


def suite_name(path: str) -> tuple[str, str]:
    """NAME=PATH, or PATH named by its file's stem."""
    name, sep, rest = path.partition("=")
    return (name, rest) if sep else (os.path.splitext(os.path.basename(path))[0], path)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m drtriton.learn.evaluate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ckpt", required=True, help="save_pretrained directory")
    parser.add_argument("--suite", required=True, action="append",
                        help="[NAME=]SUITE.jsonl; repeat it for several suites, sampled and "
                             "judged together and reported one by one")
    parser.add_argument("--limit", type=int, default=None, help="first K programs of each suite")
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--temperature", type=float, default=0.8, help="0: greedy")
    parser.add_argument("--top-p", type=float, default=0.95)
    parser.add_argument("--greedy-first", action=argparse.BooleanOptionalAction, default=True,
                        help="decode each program's first sample greedily, the rest sampled")
    parser.add_argument("--max-new-tokens", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=None,
                        help="sequences decoded at once (default: 256 on cuda, 32 on cpu)")
    parser.add_argument("--binary", default=os.environ.get("DRTRITON_BIN", "build/drtriton"))
    parser.add_argument("--device", choices=("cpu", "cuda"),
                        default="cuda" if torch.cuda.is_available() else "cpu",
                        help="where the model samples and the verifier judges")
    parser.add_argument("--workers", type=int, default=None,
                        help="verifier workers (per GPU on cuda); default: the service's")
    parser.add_argument("--compile-timeout", type=int, default=None,
                        help="the service's --compile-timeout (s): what a hanging answer costs")
    parser.add_argument("--run-timeout", type=int, default=None,
                        help="the service's --run-timeout (s)")
    parser.add_argument("--cache", default=None, help="SQLite verdict cache for the service")
    parser.add_argument("--kv-cache", choices=("dynamic", "static"), default="dynamic",
                        help="the sampler's KV cache (static: compiled decoding)")
    parser.add_argument("--out", required=True, help="report JSON")
    args = parser.parse_args(argv)

    from .sample import ModelPolicy  # after parsing: --help needs no model stack
    suites = {}
    for spec in args.suite:
        name, path = suite_name(spec)
        suites[name] = load_suite(path, args.limit)
    tasks = [task for suite in suites.values() for task in suite]
    policy = ModelPolicy(args.ckpt, args.device, kv_cache=args.kv_cache)
    batch_size = args.batch_size or (256 if args.device == "cuda" else 32)
    started = time.time()
    sources = [t["pytorch"] for t in tasks]
    sampled = args.samples - 1 if args.greedy_first else args.samples
    completions = [[] for _ in tasks]
    if args.greedy_first:
        completions = policy.generate(sources, 1, 0.0, 1.0, args.max_new_tokens, batch_size)
    if sampled > 0:
        more = policy.generate(sources, sampled, args.temperature, args.top_p,
                               args.max_new_tokens, batch_size, seed=args.seed)
        completions = [mine + extra for mine, extra in zip(completions, more)]
    policy.close()
    sampled_at = time.time()
    print(f"evaluate: {sum(map(len, completions))} completions of {len(tasks)} programs sampled "
          f"in {sampled_at - started:.0f} s; verifying", file=sys.stderr, flush=True)
    serve_args = []
    if args.workers:
        serve_args += ["--workers-per-gpu", str(args.workers)]
    for flag, value in (("--compile-timeout", args.compile_timeout),
                        ("--run-timeout", args.run_timeout), ("--cache", args.cache)):
        if value:
            serve_args += [flag, str(value)]
    outcomes = judge_outcomes(tasks, completions, args.binary, args.device, tuple(serve_args))
    reports, first = {}, 0
    for name, suite in suites.items():
        reports[name] = make_report(suite, outcomes[first:first + len(suite)])
        first += len(suite)
    result = {"suites": reports,
              "seconds": {"sampling": round(sampled_at - started, 1),
                          "verifying": round(time.time() - sampled_at, 1)},
              "config": {k: v for k, v in vars(args).items() if k != "out"}}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(format_table(reports))
    print(f"sampling {result['seconds']['sampling']} s, verifying {result['seconds']['verifying']} s")


if __name__ == "__main__":
    main()
