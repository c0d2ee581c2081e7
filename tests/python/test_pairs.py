"""`drtriton pairs`, end to end on the CPU (Triton's interpreter): four programs of difficulty 1,
two variants each, synthesized, traced, compiled and judged by the verifier; the pairs file has
the trainer's schema, only passed verdicts, no duplicates, variants that differ in their
solution text, and the run prints its coverage report. About a minute and a half on 2 cores.
"""
import json
import os
import subprocess
import sys
from collections import defaultdict

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))
# The line schema the trainer reads (issue 11).
FIELDS = {"id": str, "seed": int, "difficulty": int, "ops": list, "program": str,
          "solution": str, "variant": dict, "verdict": dict}
DEFAULT_KNOBS = {"pointwise_block": 1024, "tile_elements": 4096, "num_warps": 0,
                 "recompute_limit": 2, "gemm": "auto", "gemm_tile": "auto", "layout": "auto",
                 "sizes": "static", "dot_precision": "tf32x3", "depthwise": "auto"}


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    """(the lines of the pairs file, the run's stdout)."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    folder = tmp_path_factory.mktemp("pairs")
    out, rejected = folder / "pairs.jsonl", folder / "rejected.jsonl"
    r = run("pairs", "--count", "4", "--difficulty", "1:1", "--variants", "2", "--device", "cpu",
            "--size", "tiny", "--out", str(out), "--rejected", str(rejected))
    assert r.returncode == 0, r.stderr + r.stdout
    with open(out) as f:
        lines = f.read().splitlines()
    with open(rejected) as f:
        # Rejections are the compiler's bugs: say which, then carry on with the others.
        for line in f:
            d = json.loads(line)
            print(f"rejected {d['id']}: {d['verdict'].get('reason')}")
            assert set(d) == set(FIELDS) and d["verdict"]["passed"] is False
    return lines, r.stdout


def test_every_line_has_the_schema(pairs):
    lines, _ = pairs
    assert lines, "no pair was accepted"
    for line in lines:
        d = json.loads(line)
        assert set(d) == set(FIELDS), line[:200]
        for key, kind in FIELDS.items():
            assert isinstance(d[key], kind), f"{d['id']}: {key} is {type(d[key]).__name__}"
        assert d["difficulty"] == 1 and len(d["ops"]) >= 1
        assert "class Model(nn.Module)" in d["program"]
        assert "class ModelNew(nn.Module)" in d["solution"] and "@triton.jit" in d["solution"]
        assert set(d["variant"]) == set(DEFAULT_KNOBS)


def test_every_verdict_passed(pairs):
    lines, _ = pairs
    for line in lines:
        d = json.loads(line)
        assert d["verdict"]["passed"] is True, f"{d['id']}: {d['verdict'].get('reason')}"
        assert d["verdict"]["stage"] == "timed"


def test_no_duplicates(pairs):
    lines, _ = pairs
    assert len(set(lines)) == len(lines)
    docs = [json.loads(line) for line in lines]
    assert len({d["id"] for d in docs}) == len(docs)
    assert len({(d["program"], d["solution"]) for d in docs}) == len(docs)


def test_variants_differ_in_solution_text(pairs):
    lines, _ = pairs
    by_program = defaultdict(list)
    for line in lines:
        d = json.loads(line)
        by_program[d["id"].rsplit("_v", 1)[0]].append(d)
    assert any(len(v) == 2 for v in by_program.values()), "no program kept both variants"
    for name, variants in by_program.items():
        assert len({d["program"] for d in variants}) == 1, name
        assert len({d["solution"] for d in variants}) == len(variants), name
        for d in variants:
            if d["id"].endswith("_v0"):
                assert d["variant"] == DEFAULT_KNOBS, d["id"]
            else:
                assert d["variant"] != DEFAULT_KNOBS, d["id"]


def test_the_report_counts_and_covers(pairs):
    lines, stdout = pairs
    assert "4 programs" in stdout and f"{len(lines)} accepted" in stdout, stdout
    assert "coverage:" in stdout and "operators of the table appear in accepted pairs" in stdout
    assert "missing (" in stdout
    ops = {op for line in lines for op in json.loads(line)["ops"]}
    for op in ops:
        assert f"  {op} " in stdout, f"{op} is not in the coverage report"


def test_frontend_batch_matches_single_file_traces(tmp_path):
    """The tracing step: many files in one Python process (--batch) give the same documents
    as tracing each alone, and a file that fails gives its one-line error, in its place."""
    from drtriton import frontend
    programs = os.path.join(ROOT, "tests", "python", "programs")
    paths = [os.path.join(programs, name)
             for name in ("linear_gelu.py", "syntax_error.py", "conv_bn_relu.py")]
    listing = tmp_path / "list.txt"
    listing.write_text("\n".join(paths) + "\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-m", "drtriton.frontend", "--dynamic", "--batch",
                        str(listing)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    docs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [d["source"] for d in docs] == paths
    assert docs[1]["error"].startswith(paths[1] + ": syntax error")
    for doc, path in ((docs[0], paths[0]), (docs[2], paths[2])):
        assert doc == frontend.trace_file(path, dynamic=True)
        assert doc["dynamic"] is True


@pytest.mark.parametrize("difficulty", ["x", "0:3", "3:1", "1:"])
def test_a_bad_difficulty_is_a_usage_error(difficulty, tmp_path):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    out = tmp_path / "pairs.jsonl"
    r = run("pairs", "--count", "2", "--difficulty", difficulty, "--out", str(out))
    assert r.returncode == 2, r.stderr
    assert "--difficulty" in r.stderr and difficulty in r.stderr
    assert not out.exists()
