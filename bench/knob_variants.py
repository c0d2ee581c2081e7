"""One program's solutions under several values of one codegen knob, traced once, for the
GPU benchmarks that compare a knob's values (gemm_epilogue.py, gemm_tiles.py,
conv_layout.py). Tracing (torch.export, in a fresh Python each time) was most of a
`drtriton convert`'s 11 s on the device machine; `drtriton convert` takes the traced JSON as
well as the program."""
import math
import os
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")


def convert_variants(program, work, knob, values, fixed=()):
    """{value: (solution source, "") or (None, the error's last line)}, the solutions
    written to WORK/NAME_VALUE.py; `fixed`: other knobs ("NAME=VALUE") every variant takes."""
    from drtriton import frontend
    stem = os.path.join(work, os.path.basename(program)[:-3])
    traced = stem + ".traced.json"
    try:
        text = frontend.to_json(frontend.trace_file(program, dynamic=True))
    except Exception as e:  # the frontend's errors name the line; any of them stops this program
        return {value: (None, f"trace: {str(e).strip().splitlines()[-1:]}") for value in values}
    with open(traced, "w") as f:
        f.write(text)
    solutions = {}
    for value in values:
        out = f"{stem}_{value}.py"
        knobs = [arg for k in (f"{knob}={value}", *fixed) for arg in ("--knob", k)]
        r = subprocess.run([BIN, "convert", traced, "--no-verify", *knobs, "-o", out],
                           capture_output=True, text=True, cwd=ROOT)
        if r.returncode != 0:
            solutions[value] = (None, (r.stderr.strip().splitlines() or ["?"])[-1])
        else:
            with open(out) as f:
                solutions[value] = (f.read(), "")
    return solutions


def median_ms(verdict, key):
    """The verdict's median time of `key` ("eager", "compile", "candidate"), or None."""
    t = (verdict or {}).get("timing_ms") or {}
    return t[key]["median"] if isinstance(t.get(key), dict) else None


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def fmt(x, spec="{:.3f}"):
    return "-" if x is None else spec.format(x)


def markdown_table(header, rows):
    """A markdown table of `header` (column names) and `rows` (lists of cells)."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(map(str, r)) + " |" for r in rows])


def write_text(path, text):
    """Writes `text` to `path` (when one is given) through a temporary file, so that a run
    killed at its deadline leaves the last whole table, never half of one."""
    if not path:
        return
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def within_budget(paths, budget_s, start, skipped):
    """(path, name) of each program started within `budget_s` seconds of `start`; the names
    of the others go to `skipped`. Prints each program's name as it starts."""
    for path in paths:
        name = os.path.basename(path)[:-3]
        if time.time() - start > budget_s:
            skipped.append(name)
            continue
        print(f"== {name} ({time.time() - start:.0f} s)", file=sys.stderr, flush=True)
        yield path, name


def judging_options(parser, timeout_s, budget_s):
    """The options of a benchmark that judges solutions on one verifier worker: --out,
    --timeout, --budget and --device."""
    parser.add_argument("--out", default=None, help="also write the table (markdown) here")
    parser.add_argument("--timeout", type=float, default=timeout_s,
                        help=f"seconds one solution's judging may take (default {timeout_s:g})")
    parser.add_argument("--budget", type=float, default=budget_s,
                        help=f"start no program after this many seconds (default {budget_s:g})")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                        help="cpu: a smoke test in Triton's interpreter (default cuda)")


def judging_service(args, **kwargs):
    """The verifier service of those benchmarks: one worker, so that no two timings share the
    GPU, and judging cut at --timeout seconds."""
    from drtriton.service_client import Service
    return Service(BIN, "--device", args.device, "--workers-per-gpu", "1", "--run-timeout",
                   str(args.timeout), "--compile-timeout", str(args.timeout), cwd=ROOT, **kwargs)


def with_skipped(table, skipped, budget_s):
    """`table`, and under it the programs a budget left out (within_budget's `skipped`)."""
    if not skipped:
        return table
    return table + f"\n\nNot run (past the {budget_s:.0f} s budget): {', '.join(skipped)}"
