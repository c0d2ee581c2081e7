"""A fuzz of reductions used by elementwise expressions, the patterns that one-pass kernels
(codegen's lower_in_one_pass, row_chain) and shared statistics kernels take: random
reductions (sum, mean, amax, amin, norm, std, var, logsumexp) over trailing or middle dims,
keepdim or not, on square and cubic shapes (where a reduction without keepdim broadcasts
along the rows), one or two per program. Each program PyTorch runs is converted and judged by
the verifier (Triton's interpreter by default); prints one line per program and a count.

    .venv/bin/python bench/reduction_fuzz.py [--count 24] [--seed 11] [--device cpu] [--keep DIR]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")

REDUCTIONS = ["x.sum({d}, keepdim={k})", "x.mean({d}, keepdim={k})", "x.amax({d}, keepdim={k})",
              "x.amin({d}, keepdim={k})", "x.norm(dim={d}, keepdim={k})", "x.std({d}, keepdim={k})",
              "x.var({d}, keepdim={k})", "torch.logsumexp(x, {d}, keepdim={k})"]
USES = ["x - {r}", "x / ({r}.abs() + 1)", "(x - {r}) * 2 + 1", "torch.tanh(x) * {r}",
        "x * torch.sigmoid({r})"]
SHAPES = [(6, 6), (5, 5, 5), (7, 7), (4, 4, 4), (4, 6), (3, 4, 5)]


def program(rng):
    shape = rng.choice(SHAPES)
    dims = [-1, 0, 1] if len(shape) == 2 else [-1, 1, 2, (1, 2), (-2, -1)]
    d, k = rng.choice(dims), rng.choice([True, False])
    body = rng.choice(USES).format(r=rng.choice(REDUCTIONS).format(d=d, k=k))
    if rng.random() < 0.4:
        body = f"({body}) + {rng.choice(REDUCTIONS).format(d=d, k=k)}"
    if rng.random() < 0.3:
        body = f"({body}) - x.mean({d}, keepdim=True)"
    return (f"import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
            f"    def forward(self, x):\n        return {body}\n\n\n"
            f"def get_inputs():\n    return [torch.randn{shape}]\n\n\n"
            f"def get_init_inputs():\n    return []\n")


def runs_in_pytorch(source):
    scope = {}
    try:
        exec(compile(source, "<fuzz>", "exec"), scope)  # noqa: S102 (our own generated program)
        scope["Model"]()(*scope["get_inputs"]())
        return True
    except RuntimeError:  # shapes that do not broadcast
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--keep", default=None, help="write programs and solutions here")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = args.keep or tempfile.mkdtemp(prefix="reduction_fuzz_")
    os.makedirs(work, exist_ok=True)
    judged = passed = one_pass = 0
    for i in range(args.count):
        source = program(rng)
        if not runs_in_pytorch(source):
            continue
        path, out = os.path.join(work, f"f{i:03d}.py"), os.path.join(work, f"f{i:03d}_triton.py")
        with open(path, "w") as f:
            f.write(source)
        r = subprocess.run([BIN, "convert", path, "--verify", "--device", args.device,
                            "--no-compile-timing", "-o", out], capture_output=True, text=True)
        judged += 1
        ok = r.returncode == 0
        rows = open(out).read().count("_rows[") if os.path.exists(out) else 0
        passed += ok
        one_pass += rows > 0
        body = source.split("return ", 1)[1].split("\n", 1)[0]
        reason = "" if ok else " " + (r.stderr.strip().splitlines() or ["?"])[-1][:200]
        print(f"f{i:03d} {'passed' if ok else 'REJECTED'} one-pass={rows}  {body}{reason}")
    print(f"{passed} of {judged} passed ({one_pass} with one-pass kernels); "
          f"{args.count - judged} drawn programs PyTorch itself refuses")
    sys.exit(0 if passed == judged else 1)


if __name__ == "__main__":
    main()
