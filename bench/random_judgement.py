"""The verifier's judgement of random forwards (dropout in training mode), measured: how often
an honest candidate is rejected (the false-reject rate, which random_compare.ALPHA bounds)
and how often each hostile one is, each over many request seeds (the `seed` option sets the
seeds of the training-mode runs, so each seed is a fresh draw). Honest candidates: the
suite's honest_dropout_relu and the compiler's solutions of tests/python/programs/convert/
dropout_*.py; hostile ones: the suite's cheat_dropout_*. Judged by `drtriton serve` on the
CPU (Triton's interpreter), torch.compile not timed; prints a markdown table.

    python3 bench/random_judgement.py [--seeds 500] [--compiled-seeds 100] [--hostile-seeds 50]
        [--workers 2] [--out FILE]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")
sys.path.insert(0, os.path.join(ROOT, "python"))

from drtriton.service_client import Service  # noqa: E402
from drtriton.verifier import client  # noqa: E402

SUITE = os.path.join(ROOT, "tests", "eval", "candidates")
PROGRAMS = os.path.join(ROOT, "tests", "python", "programs", "convert")


def cases(args, work):
    """(name, task source, candidate source, seeds, honest)."""
    suite = {c.name: c for c in client.load_suite(SUITE)}
    yield ("honest_dropout_relu", *suite["honest_dropout_relu"].sources(), args.seeds, True)
    for name in ("dropout_conv_block", "dropout_mlp"):
        program, solution = os.path.join(PROGRAMS, name + ".py"), os.path.join(work, name + ".py")
        subprocess.run([BIN, "convert", program, "--no-verify", "-o", solution], check=True,
                       capture_output=True)
        yield (f"compiler: {name}", open(program).read(), open(solution).read(), args.compiled_seeds, True)
    for name in sorted(suite):
        if name.startswith("cheat_dropout_"):
            yield (name, *suite[name].sources(), args.hostile_seeds, False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--compiled-seeds", type=int, default=100)
    parser.add_argument("--hostile-seeds", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out")
    args = parser.parse_args()
    rows = ["| candidate | seeds | rejected | where | p-value: min, median | s per verdict |",
            "| --- | --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory() as work, \
            Service(BIN, "--device", "cpu", "--workers-per-gpu", str(args.workers), cwd=ROOT) as service:
        for name, task, candidate, seeds, honest in cases(args, work):
            items = [{"task": task, "candidate": candidate,
                      "options": {"device": "cpu", "compile": False, "seed": 1000 + s}}
                     for s in range(seeds)]
            t0 = time.perf_counter()
            verdicts = service.post("/verify_batch", {"items": items})["verdicts"]
            seconds = (time.perf_counter() - t0) * args.workers / seeds
            rejected = [v for v in verdicts if not v["passed"]]
            where = sorted({f"{v['failed_stage']}: {v['reason'][:60]}" for v in rejected})
            p = [v["random"]["p_value"] for v in verdicts if (v.get("random") or {}).get("p_value") is not None]
            figures = f"{min(p):.2g}, {statistics.median(p):.2g}" if p else "-"
            rows.append(f"| {name} ({'honest' if honest else 'hostile'}) | {seeds} | {len(rejected)} | "
                        f"{'; '.join(where[:2]) or '-'} | {figures} | {seconds:.1f} |")
            print(rows[-1], flush=True)
    text = "\n".join(rows) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
