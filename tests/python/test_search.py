"""`drtriton search` end to end on the CPU (Triton's interpreter): fragments of a small
program, the compiler's answers for each, every answer judged, the fastest cover composed
and judged as a whole. CPU timings are the interpreter's, so the tests check what the
search did, never which cover won."""
import json
import os
import re
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


@pytest.fixture(scope="module")
def unbudgeted(tmp_path_factory):
    """A search with no budget: its run and report, shared by the tests that compare."""
    tmp = tmp_path_factory.mktemp("unbudgeted")
    out, report = tmp / "sol.py", tmp / "report.json"
    run = drtriton("search", PROGRAM, "--device", "cpu", "--max-ops", "1", "--variants", "2",
                   "--no-compile-timing", "-o", out, "--report", report)
    assert run.returncode == 0, run.stderr
    return run, json.loads(report.read_text()), out


def test_whole_program_answers_compete_with_the_cover(unbudgeted):
    run, r, out = unbudgeted
    whole = r["edges"][0]
    assert (whole["begin"], whole["end"]) == (0, len(OPERATORS)) and whole["error"] is None
    assert len(whole["candidates"]) == 2  # the defaults and one other knob setting
    # the other is a neighbour of the defaults: one knob changed, named in the report
    labels = [c["label"] for c in whole["candidates"]]
    assert labels[0] == "defaults" and labels[1].count("=") == 1, labels
    assert r["whole_answer"] in labels and "fastest whole answer: " in run.stdout
    assert covers(r["cover"], len(OPERATORS))
    names = [f["name"] for f in r["finalists"]]
    assert names[0] == "whole" and set(names) <= {"whole", "composed"}
    assert r["finalists"][names.index(r["chosen"])]["verdict"]["passed"]
    assert out.exists()
    # no budget: every range asked and judged in one round
    assert r["budget_s"] is None and r["budget_hit"] is False and r["skipped"] == []
    assert [(k["ranges"], k["candidates"]) for k in r["rounds"]] == [(5, r["candidates"])]


def what_was_judged(report):
    """Each range with its error and its candidates' verdicts: what a search did, less the
    times (which on the CPU are noise)."""
    return [(e["begin"], e["end"], e["error"], [c["passed"] for c in e["candidates"]])
            for e in report["edges"]]


def test_a_tiny_budget_still_answers_with_the_whole_program(tmp_path):
    out, report = tmp_path / "sol.py", tmp_path / "report.json"
    run = drtriton("search", PROGRAM, "--device", "cpu", "--max-ops", "2", "--variants", "1",
                   "--no-compile-timing", "--budget", "0.001", "-o", out, "--report", report)
    assert run.returncode == 0, run.stderr
    r = json.loads(report.read_text())
    # the first round, the whole program with the shortest fragments that fit beside it in
    # one wave of the workers (one answer each), always runs; every other fragment is left
    # unasked, shortest first
    fill = r["workers"] - 1
    assert 0 <= fill < 4  # fewer than the four fragments that would cover the program alone
    order = [[0, 1], [1, 2], [2, 3], [3, 4], [0, 2], [1, 3], [2, 4]]
    assert r["budget_s"] == 0.001 and r["budget_hit"] is True
    assert r["skipped"] == order[fill:]
    assert [(k["ranges"], k["candidates"]) for k in r["rounds"]] == [(1 + fill, 1 + fill)]
    asked = [[e["begin"], e["end"]] for e in r["edges"][1:] if e["candidates"]]
    assert asked == order[:fill]
    assert all(e["error"] == "not asked: the budget ran out" and e["candidates"] == []
               for e in r["edges"][1:] if [e["begin"], e["end"]] in order[fill:])
    # the whole program's answer is the solution; without torch.compile timed, its round's
    # verdict stands for the finalist (judged again, its timings would differ)
    assert [e["begin"] for e in r["cover"]] == [0] and r["cover"][0]["end"] == len(OPERATORS)
    assert r["chosen"] == "whole" and r["finalists"][0]["verdict"]["passed"]
    final_ms = r["finalists"][0]["verdict"]["timing_ms"]["candidate"]["median"]
    assert final_ms == r["edges"][0]["best_ms"] == r["edges"][0]["candidates"][0]["ms"]
    assert "class ModelNew" in out.read_text()
    assert f"budget 0.001 s: hit, {7 - fill} ranges left unasked (1 round," in run.stdout
    assert f"the budget (0.001 s) leaves {7 - fill} of 8 ranges unasked" in run.stderr


def test_a_generous_budget_searches_as_without_one(unbudgeted, tmp_path):
    report = tmp_path / "report.json"
    run = drtriton("search", PROGRAM, "--device", "cpu", "--max-ops", "1", "--variants", "2",
                   "--no-compile-timing", "--budget", "3600", "-o", tmp_path / "sol.py",
                   "--report", report)
    assert run.returncode == 0, run.stderr
    r = json.loads(report.read_text())
    assert r["budget_s"] == 3600 and r["budget_hit"] is False and r["skipped"] == []
    # in rounds (the whole program and the fragments that fit beside it in a wave of the
    # workers, two answers each; then the rest), but the same ranges and verdicts
    fill = r["workers"] // 2 - 1
    assert [k["ranges"] for k in r["rounds"]] == [1 + fill, 4 - fill]
    assert what_was_judged(r) == what_was_judged(unbudgeted[1])
    assert r["chosen"] in ("whole", "composed") and "budget 3600 s: not hit" in run.stdout


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
    run = drtriton("convert", PROGRAM, "--search", "--device", "cpu", "--no-compile-timing", "-o",
                   out, "--json")
    assert run.returncode == 0, run.stderr
    verdict = json.loads(run.stdout)
    assert "(search: " in run.stderr and verdict["passed"] is True
    assert verdict["timing_ms"]["compile"] is None  # --no-compile-timing reaches the finalists
    assert "class ModelNew" in out.read_text()
    judged = int(re.search(r"(\d+) candidates judged", run.stderr).group(1))
    # a budget the whole program's round alone overruns: its answers, and no fragment's
    run = drtriton("convert", PROGRAM, "--search", "--budget", "0.1", "--device", "cpu",
                   "--no-compile-timing", "-o", out, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["passed"] is True
    assert int(re.search(r"(\d+) candidates judged", run.stderr).group(1)) < judged
    run = drtriton("convert", PROGRAM, "--search", "--no-verify")
    assert run.returncode == 1 and "--search judges every fragment's answers" in run.stderr
