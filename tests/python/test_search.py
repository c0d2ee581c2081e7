"""`drtriton search` end to end on the CPU (Triton's interpreter): fragments of a small
program, the compiler's answers for each, every answer judged, the fastest cover composed
and judged as a whole. CPU timings are the interpreter's, so the tests check what the
search did, never which cover won."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))
PROGRAM = os.path.join(ROOT, "tests", "python", "programs", "search", "linear_gelu_softmax.py")
OPERATORS = ["linear", "gelu", "mul_scalar", "softmax"]


def drtriton(*args, timeout=900):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    env = dict(os.environ)
    env.setdefault("DRTRITON_PYTHON", sys.executable)
    return subprocess.run([BIN, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          env=env, timeout=timeout)


def covers(edges, n):
    """Whether the edges, in order, are contiguous ranges from 0 to n."""
    pos = 0
    for e in edges:
        if e["begin"] != pos:
            return False
        pos = e["end"]
    return pos == n


def test_fragments_only_composes_a_verified_solution(tmp_path):
    out, report, work = tmp_path / "sol.py", tmp_path / "report.json", tmp_path / "work"
    run = drtriton("search", PROGRAM, "--device", "cpu", "--fragments-only", "--max-ops", "2",
                   "--variants", "1", "--no-compile-timing", "-o", out, "--report", report,
                   "--work", work)
    assert run.returncode == 0, run.stderr
    r = json.loads(report.read_text())
    assert r["operators"] == len(OPERATORS)
    # every range of 1 or 2 operators but the program itself: 4 + 3
    ranges = {(e["begin"], e["end"]) for e in r["edges"][1:]}
    assert ranges == {(b, b + k) for k in (1, 2) for b in range(len(OPERATORS) - k + 1)}
    assert r["edges"][0]["error"] == "not asked (--fragments-only)"
    for e in r["edges"][1:]:
        assert e["ops"] == OPERATORS[e["begin"]:e["end"]]
        assert len(e["candidates"]) == 1  # --variants 1: the compiler's defaults
        assert (e["best_ms"] is not None) == e["candidates"][0]["passed"]
    assert covers(r["cover"], len(OPERATORS)) and len(r["cover"]) >= 2
    assert all(e["best_ms"] > 0 for e in r["cover"])
    assert abs(r["cover_sum_ms"] - sum(e["best_ms"] for e in r["cover"])) < 1e-9
    # the composition, judged as a whole, is the answer
    assert [f["name"] for f in r["finalists"]] == ["composed"]
    assert r["chosen"] == "composed" and r["finalists"][0]["verdict"]["passed"]
    source = out.read_text()
    assert "class ModelNew" in source and "_f0_" in source and "_f1_" in source
    assert (work / "compose.json").exists() and (work / "f_0_1.py").exists()
    assert "chosen: composed" in run.stdout
    # and the verifier agrees on its own
    verify = drtriton("verify", PROGRAM, out, "--device", "cpu", "--no-compile-timing", "--json")
    assert verify.returncode == 0, verify.stdout[-2000:] + verify.stderr[-2000:]


def test_whole_program_answers_compete_with_the_cover(tmp_path):
    out, report = tmp_path / "sol.py", tmp_path / "report.json"
    run = drtriton("search", PROGRAM, "--device", "cpu", "--max-ops", "1", "--variants", "2",
                   "--no-compile-timing", "-o", out, "--report", report)
    assert run.returncode == 0, run.stderr
    r = json.loads(report.read_text())
    whole = r["edges"][0]
    assert (whole["begin"], whole["end"]) == (0, len(OPERATORS)) and whole["error"] is None
    assert len(whole["candidates"]) == 2  # the defaults and one other knob setting
    assert covers(r["cover"], len(OPERATORS))
    names = [f["name"] for f in r["finalists"]]
    assert names[0] == "whole" and set(names) <= {"whole", "composed"}
    assert r["finalists"][names.index(r["chosen"])]["verdict"]["passed"]
    assert out.exists()


def test_bad_input_is_refused(tmp_path):
    graph = tmp_path / "g.json"
    graph.write_text("{}")
    run = drtriton("search", graph)
    assert run.returncode == 1 and "search reads the program's source (.py)" in run.stderr
    run = drtriton("search", PROGRAM, "--max-ops", "0")
    assert run.returncode == 2
    run = drtriton("search", tmp_path / "missing.py", "--device", "cpu")
    assert run.returncode == 1 and "missing.py" in run.stderr


@pytest.mark.skipif(subprocess.run(["sh", "-c", "nvidia-smi -L"], capture_output=True).returncode == 0,
                    reason="a GPU is present: search verifies")
def test_without_a_gpu_the_compilers_solution_is_written_unverified(tmp_path):
    out = tmp_path / "sol.py"
    run = drtriton("search", PROGRAM, "-o", out, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "not searched and not verified: no GPU" in run.stderr
    assert "class ModelNew" in out.read_text()


def test_convert_search_writes_the_searched_solution(tmp_path):
    out = tmp_path / "sol.py"
    run = drtriton("convert", PROGRAM, "--search", "--device", "cpu", "-o", out, "--json")
    assert run.returncode == 0, run.stderr
    assert "(search: " in run.stderr and json.loads(run.stdout)["passed"] is True
    assert "class ModelNew" in out.read_text()
    run = drtriton("convert", PROGRAM, "--search", "--no-verify")
    assert run.returncode == 1 and "--search judges every fragment's answers" in run.stderr
