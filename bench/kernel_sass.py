"""What a codegen knob does to the machine code, without a GPU: a program is converted once per
value of one knob, each solution's forward runs once in Triton's interpreter to record its
launches (tests/python/hopper_compile.py), and each kernel is compiled for an H100/H200
(sm_90); the table gives, per kernel, its SASS instructions (Triton's nvdisasm) and the
integer divisions and remainders of its PTX (each about 20 instructions against a runtime
divisor) and, where the kernel loops, the instructions of its longest loop body (run once an
iteration: unrolling raises the whole count while lowering what runs), and its registers a
thread and stack bytes (spills; cuobjdump -res-usage): 255 registers with a stack is a kernel
that spills, and few programs fit an SM. Fewer instructions say nothing certain about speed:
the GPU's benchmarks do.

    .venv/bin/python bench/kernel_sass.py PROGRAM.py --knob sizes --values dynamic static
    .venv/bin/python bench/kernel_sass.py PROGRAM.py --solutions BEFORE.py AFTER.py
        (solutions of PROGRAM written elsewhere: another commit's drtriton, by hand)
    (e.g. a SMALL version: python tests/programs/real/small.py tests/programs/real/fused/conv2d_bn_relu.py -o P.py)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
import hopper_compile  # noqa: E402
from knob_variants import convert_variants, markdown_table  # noqa: E402 (bench/)


def longest_loop(sass):
    """Instructions from a backward branch's target to the branch, the most of any (None: no
    loop). nvdisasm -c labels targets `.L_x_N:` and numbers instructions /*address*/, 16 bytes
    each."""
    labels, branches, pending = {}, [], []
    for line in sass.splitlines():
        if m := re.match(r"\s*\.(L_x_\d+):", line):
            pending.append(m.group(1))
        elif m := re.match(r"\s+/\*([0-9a-f]{4,})\*/", line):
            address = int(m.group(1), 16)
            labels.update((label, address) for label in pending)
            pending = []
            if b := re.search(r"\bBRA\b.*\.(L_x_\d+)", line):
                branches.append((address, b.group(1)))
    bodies = [(end - labels[label]) // 16 + 1 for end, label in branches
              if label in labels and labels[label] < end]
    return max(bodies, default=None)


def sass_counts(task, solution):
    """[(kernel, SASS instructions, PTX div/rem, longest loop body, registers, stack bytes)] of
    each distinct launch of one forward."""
    import triton
    from triton.backends.compiler import GPUTarget
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    r = subprocess.run([sys.executable, hopper_compile.__file__, "--record", json.dumps([[task, solution]])],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"kernel_sass: recording the launches failed: {r.stderr.strip()[-1500:]}")
    launches = json.loads(r.stdout.splitlines()[-1])[0]
    if isinstance(launches, str):
        sys.exit(f"kernel_sass: the forward failed: {launches}")
    module = hopper_compile.load(os.path.basename(solution)[:-3], solution)
    bin_dir = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    nvdisasm, cuobjdump = os.path.join(bin_dir, "nvdisasm"), os.path.join(bin_dir, "cuobjdump")
    rows = []
    for name, signature, constexprs in launches:
        kernel = triton.compile(triton.compiler.ASTSource(getattr(module, name), signature, constexprs),
                                target=GPUTarget("cuda", 90, 32))
        with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
            cubin.write(kernel.asm["cubin"])
            cubin.flush()
            sass = subprocess.run([nvdisasm, "-c", cubin.name], capture_output=True, text=True,
                                  check=True).stdout
            usage = subprocess.run([cuobjdump, "-res-usage", cubin.name], capture_output=True,
                                   text=True, check=True).stdout
        registers = int(re.search(r"REG:(\d+)", usage).group(1))
        stack = int(re.search(r"STACK:(\d+)", usage).group(1))
        instructions = sum(bool(re.match(r"\s+/\*[0-9a-f]{4,}\*/", line)) for line in sass.splitlines())
        divisions = len(re.findall(r"\b(?:div|rem)\.[su](?:32|64)\b", kernel.asm["ptx"]))
        rows.append((name, instructions, divisions, longest_loop(sass), registers, stack))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", help="a KernelBench-format program small enough for the interpreter")
    parser.add_argument("--knob", help="the codegen knob")
    parser.add_argument("--values", nargs="+", help="its values")
    parser.add_argument("--solutions", nargs="+", help="solutions of PROGRAM to compare, instead of a knob")
    args = parser.parse_args()
    if bool(args.solutions) == bool(args.knob and args.values):
        parser.error("give --knob and --values, or --solutions")
    os.environ.pop("TRITON_INTERPRET", None)  # compiling for the GPU target, not interpreting
    work = tempfile.mkdtemp(prefix="drtriton-sass-")
    program = os.path.abspath(args.program)
    counts = {}  # column: [(kernel, SASS, div/rem)]
    if args.solutions:
        for solution in args.solutions:
            counts[os.path.basename(solution)] = sass_counts(program, os.path.abspath(solution))
    else:
        for value, (source, error) in convert_variants(program, work, args.knob, args.values).items():
            if source is None:
                sys.exit(f"kernel_sass: {args.knob}={value}: {error}")
            counts[f"{args.knob}={value}"] = sass_counts(
                program, os.path.join(work, f"{os.path.basename(program)[:-3]}_{value}.py"))
    columns = list(counts)
    names = list(dict.fromkeys(r[0] for c in columns for r in counts[c]))
    header = ["kernel"] + [f"{c}: SASS (div/rem; loop body), registers / stack" for c in columns]

    def cell(n, d, loop, registers, stack):
        return f"{n} ({d}" + (f"; {loop}" if loop else "") + f"), {registers} / {stack}"

    rows = [[name] + [next((cell(*r[1:]) for r in counts[c] if r[0] == name), "-") for c in columns]
            for name in names]
    rows.append(["all"] + [f"{sum(r[1] for r in counts[c])} ({sum(r[2] for r in counts[c])})"
                           for c in columns])
    print(markdown_table(header, rows))


if __name__ == "__main__":
    main()
