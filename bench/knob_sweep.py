"""Launch knobs swept fast on the GPU: each program is traced once and converted under every
value of one codegen knob (`--knob tile_elements --values 1024 2048 4096`), and each solution
is timed against eager with triton.testing.do_bench (L2 flushed between runs) in this one
process, with no verifier: seconds a program where bench/knob_compare.py judges every
solution (a float64 truth, varied sizes) and takes a minute. Each solution's output is
compared with eager's (`close`: within 1e-3 of eager's largest magnitude) as a sanity check,
not a verdict. Prints a table, a program a row, each value's ms and its speedup against the
first value, and the geometric means.

    python3 bench/knob_sweep.py --knob tile_elements --values 4096 1024 PROGRAM.py [...]
        [--fixed num_warps=8] [--out FILE.md]
    (scripts/gpu_build.sh first on the device machine)
"""
import argparse
import importlib.util
import os
import sys
import tempfile

import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path[:0] = [os.path.join(ROOT, "bench"), os.path.join(ROOT, "python")]
from knob_variants import convert_variants, fmt, geomean, markdown_table, write_text  # noqa: E402


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_device(x):
    return x.cuda() if isinstance(x, torch.Tensor) else x


def leaves(out):
    return [t for t in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(t, torch.Tensor)]


def close(out, ref):
    """Within 1e-3 of the reference's largest magnitude, output by output."""
    pairs = list(zip(leaves(out), leaves(ref)))
    return bool(pairs) and all(
        a.shape == b.shape and (a.double() - b.double()).abs().max().item()
        <= 1e-3 * max(b.double().abs().max().item(), 1.0) for a, b in pairs)


def time_program(program, solutions):
    """(eager ms, {value: (ms, close) or (None, why)})."""
    from triton.testing import do_bench
    task = load(program, "task")
    torch.manual_seed(0)
    model = task.Model(*task.get_init_inputs()).cuda()
    inputs = [on_device(x) for x in task.get_inputs()]
    with torch.no_grad():
        ref = model(*inputs)
        eager = do_bench(lambda: model(*inputs))
        timed = {}
        for value, (path, error) in solutions.items():
            if path is None:
                timed[value] = (None, error)
                continue
            try:
                new = load(path, f"solution_{value}").ModelNew(*task.get_init_inputs()).cuda()
                new.load_state_dict(model.state_dict())
                ok = close(new(*inputs), ref)
                timed[value] = (do_bench(lambda: new(*inputs)), ok)
            except Exception as e:  # noqa: BLE001 - one failing variant must not stop the rest
                timed[value] = (None, f"{type(e).__name__}: {str(e).splitlines()[0][:80]}")
    return eager, timed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="+")
    parser.add_argument("--knob", required=True, help="the codegen knob (docs/cli.md)")
    parser.add_argument("--values", nargs="+", required=True, help="its values, the first the baseline")
    parser.add_argument("--fixed", nargs="*", default=[], help="other knobs every variant takes, NAME=VALUE")
    parser.add_argument("--out", default=None, help="also write the table (markdown) here")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("knob_sweep: needs a CUDA GPU")
    work = tempfile.mkdtemp(prefix="knob_sweep_")
    header = ["program", "eager ms"] + [f"{args.knob}={v} ms" for v in args.values] + [
        f"{v} vs {args.values[0]}" for v in args.values[1:]]
    rows, ratios = [], {v: [] for v in args.values[1:]}
    for program in args.programs:
        name = os.path.basename(program)[:-3]
        variants = convert_variants(program, work, args.knob, args.values, args.fixed)
        paths = {v: (os.path.join(work, f"{name}_{v}.py") if src is not None else None, err)
                 for v, (src, err) in variants.items()}
        eager, timed = time_program(program, paths)
        cells = []
        for v in args.values:
            ms, ok = timed[v]
            cells.append(fmt(ms) + ("" if ms is None or ok is True else " (differs)") if ms is not None
                         else f"failed: {ok}")
        base = timed[args.values[0]][0]
        for v in args.values[1:]:
            ms = timed[v][0]
            if base and ms:
                ratios[v].append(base / ms)
            cells.append(fmt(base / ms, "{:.2f}x") if base and ms else "-")
        rows.append([name, fmt(eager)] + cells)
        print(f"{name}: eager {eager:.3f} ms, " + ", ".join(
            f"{v} {fmt(timed[v][0])}" for v in args.values), flush=True)
    means = [f"geomean {v} vs {args.values[0]}: {geomean(r):.3f}x over {len(r)}"
             for v, r in ratios.items() if r]
    text = markdown_table(header, rows) + "\n\n" + "\n".join(means) + "\n"
    print("\n" + text)
    write_text(args.out, text)


if __name__ == "__main__":
    main()
