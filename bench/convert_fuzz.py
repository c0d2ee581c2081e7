"""Differential fuzzing of the built-in compiler: `drtriton synth` draws N programs, each is
traced, compiled by `drtriton convert` and judged by the verifier (one `drtriton serve`
batch); prints how many passed and, for each failure, the program and the reason.

    .venv/bin/python bench/convert_fuzz.py [--count 60] [--difficulty 4:10] [--seed 23]
        [--size tiny] [--device cpu] [--keep DIR]
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")
sys.path.insert(0, os.path.join(ROOT, "python"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--difficulty", default="4:10")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--size", default="tiny", choices=["tiny", "small", "bench"])
    parser.add_argument("--dist", default="uniform", choices=["uniform", "real"],
                        help="drtriton synth's distribution (default: uniform)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--keep", default=None, help="write programs and solutions here")
    args = parser.parse_args()
    from drtriton import frontend
    from drtriton.service_client import Service

    work = args.keep or tempfile.mkdtemp(prefix="drtriton-fuzz-")
    os.makedirs(work, exist_ok=True)
    r = subprocess.run([BIN, "synth", "--count", str(args.count), "--difficulty", args.difficulty,
                        "--seed", str(args.seed), "--size", args.size, "--dist", args.dist, "--out",
                        os.path.join(work, "synth.jsonl"), "--emit-dir", os.path.join(work, "progs")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(r.stderr.strip())
    items, names, failures = [], [], {}
    for path in sorted(glob.glob(os.path.join(work, "progs", "*.py"))):
        name = os.path.basename(path)[:-3]
        traced, solution = os.path.join(work, name + ".json"), os.path.join(work, name + "_triton.py")
        try:
            with open(traced, "w") as f:
                f.write(frontend.to_json(frontend.trace_file(path, dynamic=True)))
        except frontend.FrontendError as e:
            failures[name] = f"trace: {e}"
            continue
        r = subprocess.run([BIN, "convert", traced, "--no-verify", "-o", solution],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures[name] = "convert: " + (r.stderr.strip().splitlines() or ["?"])[-1]
            continue
        with open(path) as f, open(solution) as g:
            items.append({"task": f.read(), "candidate": g.read(),
                          "options": {"device": args.device, "compile": False, "seed": 7}})
        names.append(name)
    workers = [] if args.device == "cuda" else ["--workers-per-gpu", str(min(4, os.cpu_count() or 1))]
    with Service(BIN, "--device", args.device, *workers) as service:
        verdicts = service.post("/verify_batch", {"items": items})["verdicts"]
    for name, v in zip(names, verdicts):
        if not v["passed"]:
            failures[name] = f"{v.get('failed_stage')}: {v.get('reason')}"
    total = len(glob.glob(os.path.join(work, "progs", "*.py")))
    print(f"convert_fuzz: {total - len(failures)}/{total} passed (seed {args.seed}, difficulty "
          f"{args.difficulty}, size {args.size}, {args.device}); programs in {work}")
    for name, why in sorted(failures.items()):
        print(f"  {name}: {why[:300]}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
