"""The warm-up's whole path through the command line, on the CPU: `drtriton pairs` writes a
verified pair, `drtriton train sft` fits a tiny model to it from scratch (tokenizer included)
until it has learned it by heart, and `drtriton convert --policy model:CKPT` samples that
model greedily, parses the answer and has the verifier accept it in Triton's interpreter.
Any broken link (pair schema, tokenizer round trip, prompt format, answer parsing, the
forwarding of flags to Python, verification) fails it. About two minutes on 2 cores.
"""
import json
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))


def run(*args, cwd):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(work folder, the program's path, a checkpoint that knows its answer)."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    work = tmp_path_factory.mktemp("warmup")
    r = run("pairs", "--count", "1", "--difficulty", "1:1", "--variants", "1", "--device", "cpu",
            "--size", "tiny", "--seed", "2", "--out", "pairs.jsonl", cwd=work)
    assert r.returncode == 0, r.stderr + r.stdout
    [line] = (work / "pairs.jsonl").read_text().splitlines()
    pair = json.loads(line)
    assert pair["verdict"]["passed"]
    (work / "program.py").write_text(pair["program"])
    r = run("train", "sft", "--model", "tiny", "--data", "pairs.jsonl", "--out", "ckpt",
            "--max_steps", "200", "--lr", "5e-3", "--heldout", "0", "--batch_size", "1",
            "--warmup_steps", "10", "--eval_every", "10000", "--log_every", "50",
            "--vocab_size", "1024", "--max_len", "4096", cwd=work)
    assert r.returncode == 0, r.stderr[-2000:]
    last = json.loads((work / "ckpt" / "metrics.jsonl").read_text().splitlines()[-1])
    assert last["step"] == 200 and last["loss"] < 0.01, last
    return work, pair


def test_a_model_that_learned_the_pair_writes_a_verified_solution(trained):
    work, pair = trained
    r = run("convert", "program.py", "--policy", "model:ckpt", "--samples", "1", "--temperature",
            "0", "--verify", "--device", "cpu", "--no-compile-timing", "--json", "-o", "answer.py",
            cwd=work)
    assert r.returncode == 0, r.stderr[-3000:]
    verdict = json.loads(r.stdout)
    assert verdict["passed"], verdict["reason"]
    # the solution as learned: without the compiler's header (its leading comment lines)
    learned = pair["solution"][pair["solution"].index("\nimport torch") + 1:]
    assert (work / "answer.py").read_text().rstrip("\n") == learned.rstrip("\n")


def test_train_passes_flags_and_failures_through(trained):
    work, _ = trained
    r = run("train", "sft", "--help", cwd=work)
    assert r.returncode == 0 and "--max_minutes" in r.stdout
    r = run("train", "sft", "--model", "tiny", "--out", "x", "--no_such_flag", "1", cwd=work)
    assert r.returncode == 2 and "--no_such_flag" in r.stderr


def test_model_policy_errors_name_the_problem(trained):
    work, _ = trained
    r = run("convert", "program.py", "--policy", "oracle", cwd=work)
    assert r.returncode == 2 and "expected compiler, model:CKPT or endpoint:URL" in r.stderr
    r = run("convert", "program.py", "--policy", "model:missing_dir", cwd=work)
    assert r.returncode == 1 and "missing_dir: no such checkpoint folder" in r.stderr
    r = run("convert", "no_such_program.py", "--policy", "model:ckpt", cwd=work)
    assert r.returncode == 1 and "no_such_program.py: no such file" in r.stderr
