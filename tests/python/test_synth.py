"""drtriton synth end to end: thousands of tiny programs at every difficulty run in
PyTorch on the CPU, give finite outputs and the shapes and dtypes their IR declares; the
stats command draws its plots; bad options fail cleanly."""
import importlib.util
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("DRTRITON_BIN") or ROOT / "build" / "drtriton")
DTYPES = {"f32": torch.float32, "bool": torch.bool, "i64": torch.int64}


def drtriton(*args, check=True):
    if not BIN.exists():
        pytest.skip(f"{BIN} is not built (run make build)")
    env = dict(os.environ, DRTRITON_PYTHON=os.environ.get("DRTRITON_PYTHON", sys.executable))
    run = subprocess.run([str(BIN), *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                         env=env, timeout=600)
    if check:
        assert run.returncode == 0, run.stderr
    return run


def declared_output(ir: str):
    name = re.search(r"^return %(\S+)$", ir, re.M).group(1)
    m = re.search(r"^%" + re.escape(name) + r" : (\w+)\[([0-9,]*)\]", ir, re.M)
    return DTYPES[m.group(1)], [int(d) for d in m.group(2).split(",") if d]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth") / "data.jsonl"
    # 1,500 programs of difficulty 1 to 5 (every operator at least 3 times), 400 of 6 to
    # 10 and 100 of 20.
    records = []
    for count, difficulty, extra, seed in [(1500, "1:5", ["--cover", 3], 11),
                                           (400, "6:10", [], 12), (100, "20", [], 13)]:
        drtriton("synth", "--count", count, "--difficulty", difficulty, *extra, "--seed", seed,
                 "--out", out)
        records += [json.loads(line) for line in out.read_text().splitlines()]
    return records


def test_records_have_every_field(dataset):
    for r in dataset[:50]:
        assert set(r) >= {"id", "seed", "difficulty", "ops", "structure", "ir", "pytorch", "flops", "bytes"}
    assert {r["difficulty"] for r in dataset} == set(range(1, 11)) | {20}


def test_every_program_runs_finite_with_its_declared_shape(dataset, tmp_path):
    failures = []
    for i, r in enumerate(dataset):
        path = tmp_path / f"program_{i}.py"
        path.write_text(r["pytorch"])
        spec = importlib.util.spec_from_file_location(f"synth_{i}", path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
            torch.manual_seed(i)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = module.Model(*module.get_init_inputs())(*module.get_inputs())
            dtype, shape = declared_output(r["ir"])
            if list(out.shape) != shape or out.dtype != dtype:
                failures.append(f"{i}: {tuple(out.shape)} {out.dtype}, IR says {shape} {dtype}\n{r['ir']}")
            elif out.is_floating_point() and not torch.isfinite(out).all():
                failures.append(f"{i}: non-finite output\n{r['ir']}")
        except Exception as e:  # report every failing program, not only the first
            failures.append(f"{i}: {type(e).__name__}: {str(e).splitlines()[0]}\n{r['ir']}")
    assert not failures, f"{len(failures)} of {len(dataset)} programs failed:\n" + "\n".join(failures[:20])


def test_stats_prints_coverage_and_writes_plots(tmp_path):
    data = tmp_path / "d.jsonl"
    drtriton("synth", "--count", 300, "--difficulty", "1:3", "--out", data)
    out = drtriton("synth-stats", data, "--plots", tmp_path / "plots").stdout
    assert "300 programs" in out and "difficulty histogram" in out
    for png in ("coverage.png", "difficulty.png", "cooccurrence.png"):
        assert (tmp_path / "plots" / png).stat().st_size > 10_000


@pytest.mark.parametrize("args,message", [
    (["--difficulty", "0"], "--difficulty must be K or A:B with 1 <= A <= B <= 24"),
    (["--difficulty", "3:x"], "--difficulty: expected K or A:B, got '3:x'"),
    (["--ops", "relu,frob"], "--ops: unknown operator 'frob' (drtriton ops lists them)"),
    (["--cover", "5", "--count", "10", "--ops", "relu,exp,add"],
     "--cover 5 needs at least 15 programs for 3 operators; --count is 10"),
    (["--ops", "squeeze", "--difficulty", "1:3"],
     "operator squeeze cannot appear in a program of difficulty 1:3 with this vocabulary"),
    (["--size", "huge"], "--size: unknown size preset 'huge' (expected tiny, small or bench)"),
    (["--seed", str(0x5eed5017e + 1)], "is reserved for the evaluation suites"),
])
def test_bad_options_fail_cleanly(args, message, tmp_path):
    out = tmp_path / "o.jsonl"
    extra = ["--cover", "1"] if args[:2] == ["--ops", "squeeze"] else []
    run = drtriton("synth", "--out", out, *args, *extra, check=False)
    assert run.returncode == 1
    assert message in run.stderr.splitlines()[0]
    assert list(tmp_path.iterdir()) == []
