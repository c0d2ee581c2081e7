"""drtriton bench on a small folder, judged for real in Triton's interpreter: one row per
program, the summary table, resuming after an interruption, and clear errors."""
import json
import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))
TASKS = os.path.join(ROOT, "tests", "eval", "candidates", "tasks")

pytestmark = pytest.mark.skipif(not os.path.exists(BIN), reason=f"{BIN} is not built")


def bench(*args, cwd):
    return subprocess.run([BIN, "bench", *args, "--device", "cpu", "--no-compile",
                           "--workers", "2"], capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """Two programs the compiler takes, one it does not (torch.sort), and a file that is
    not a program; then one bench run over them."""
    work = tmp_path_factory.mktemp("bench")
    programs = work / "programs"
    (programs / "more").mkdir(parents=True)
    shutil.copy(os.path.join(TASKS, "relu_scale.py"), programs / "relu_scale.py")
    shutil.copy(os.path.join(TASKS, "row_softmax.py"), programs / "more" / "row_softmax.py")
    shutil.copy(os.path.join(ROOT, "tests", "cli", "data", "unsupported.py"),
                programs / "unsupported.py")
    (programs / "helpers.py").write_text("def helper():\n    return 1\n")
    r = bench("programs", "--out", "out", cwd=work)
    return work, r


def rows(work):
    with open(work / "out" / "results.jsonl") as f:
        return {row["id"]: row for row in map(json.loads, f)}


def test_every_program_gets_a_row(suite):
    work, r = suite
    assert r.returncode == 0, r.stderr
    got = rows(work)
    assert sorted(got) == ["more/row_softmax", "relu_scale", "unsupported"]  # not helpers.py
    for name in ("relu_scale", "more/row_softmax"):
        assert got[name]["passed"] is True and got[name]["kernelbench_native"] is True, got[name]
        assert got[name]["speedup_eager"] > 0 and got[name]["kernels"] >= 1
    assert got["unsupported"]["passed"] is False
    assert got["unsupported"]["failed_stage"] in ("trace", "compile")


def test_summary_counts_the_rows(suite):
    work, r = suite
    assert "| 3 | 2 (66.7%) | 2 (66.7%) | 2 (66.7%) |" in r.stdout
    assert "| eager | 2 | 66.7%" in r.stdout and "| torch.compile | 0 |" in r.stdout
    assert (work / "out" / "summary.md").read_text() == r.stdout


def test_resume_does_only_what_is_missing(suite):
    work, first = suite
    again = bench("programs", "--out", "out", cwd=work)
    assert again.returncode == 0 and "3 done before, 0 to do" in again.stderr
    assert again.stdout == first.stdout
    # Interrupted after two rows: the third program alone is done again (the one that
    # stops before the verifier, so that the test stays quick).
    lines = (work / "out" / "results.jsonl").read_text().splitlines()
    keep = [line for line in lines if json.loads(line)["id"] != "unsupported"]
    (work / "out" / "results.jsonl").write_text("\n".join(keep) + "\n")
    resumed = bench("programs", "--out", "out", cwd=work)
    assert resumed.returncode == 0 and "2 done before, 1 to do" in resumed.stderr
    assert resumed.stdout.splitlines()[2:5] == first.stdout.splitlines()[2:5]  # same counts
    assert rows(work)["unsupported"]["failed_stage"] in ("trace", "compile")


def test_bad_input_is_named(suite, tmp_path):
    work, _ = suite
    shutil.copytree(work / "out", tmp_path / "out")
    with open(tmp_path / "out" / "results.jsonl", "a") as f:
        f.write("{not json\n")
    r = bench(str(work / "programs"), "--out", "out", cwd=tmp_path)
    assert r.returncode == 1 and "results.jsonl:4: not a bench row" in r.stderr
    r = bench("no_such_folder", cwd=tmp_path)
    assert r.returncode == 1 and "no_such_folder: no such folder" in r.stderr
    (tmp_path / "empty").mkdir()
    r = bench("empty", cwd=tmp_path)
    assert r.returncode == 1 and "no KernelBench-format program" in r.stderr
