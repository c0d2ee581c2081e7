"""Bad input to the drtriton command, as data: tests/cli/errors.test lists each command
line with its exit code and the exact first line of its error. Every case must also leave
no output file behind. The cases that need files made on the spot (a folder as the output,
bytes that are not UTF-8) or the fake worker (tests/eval/fake_worker.py) follow in Python."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = "tests/cli/data"
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))
FAKE_WORKER = f"{sys.executable} {os.path.join(ROOT, 'tests', 'eval', 'fake_worker.py')}"


def load_cases():
    cases, lines = [], open(os.path.join(ROOT, "tests/cli/errors.test")).read().splitlines()
    block = []
    for line in lines + ["# -----"]:
        if line == "# -----":
            if block:
                fields = dict(l.split(": ", 1) for l in block[1:])
                cases.append((block[0], int(fields["exit"]), fields["stderr"]))
            block = []
        elif not line.startswith("#"):
            block.append(line)
    return cases


CASES = load_cases()


def test_the_case_file_is_read():
    assert len(CASES) >= 12


@pytest.mark.parametrize("command,code,message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gives_one_line_and_no_output(command, code, message, tmp_path):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    out = tmp_path / "out.file"
    args = [a.replace("DATA", DATA).replace("OUT", str(out)) for a in command.split()]
    run = subprocess.run([BIN] + args, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == code, run.stderr
    first = run.stderr.splitlines()[0] if run.stderr else ""
    assert first == message.replace("DATA", DATA)
    assert not out.exists(), "a failed command left an output file"
    assert [p.name for p in tmp_path.iterdir()] == [], "a failed command left a temporary file"


def run(*args):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    return subprocess.run([BIN, *map(str, args)], cwd=ROOT, capture_output=True, timeout=120)


def first_line(run_result):
    return run_result.stderr.decode().splitlines()[0]


@pytest.mark.parametrize("command", [["emit", "examples/conv_relu_scale.ir", "-o"],
                                     ["synth", "--count", "3", "--out"]])
def test_an_output_path_that_is_a_folder_is_refused_and_nothing_is_left(command, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    result = run(*command, folder)
    assert result.returncode == 2, result.stderr
    assert first_line(result) == f"{folder}: is a directory; the output must be a file path"
    assert list(tmp_path.iterdir()) == [folder] and list(folder.iterdir()) == []


def verify(tmp_path, candidate, *extra, task=b"class Model: pass\n"):
    (tmp_path / "task.py").write_bytes(task)
    (tmp_path / "candidate.py").write_bytes(candidate)
    return run("verify", tmp_path / "task.py", tmp_path / "candidate.py", "--device", "cpu",
               "--worker-command", FAKE_WORKER, *extra)


def test_verify_refuses_a_source_that_is_not_utf8(tmp_path):
    result = verify(tmp_path, b"# FAKE:pass\n\xff\xfe\n")
    assert result.returncode == 2, result.stderr
    assert first_line(result) == f"{tmp_path / 'candidate.py'}: not UTF-8 text (byte offset 12)"
    result = verify(tmp_path, b"# FAKE:pass\n", task=b"class Model: pass  # \xc3\x28\n")
    assert result.returncode == 2
    assert first_line(result) == f"{tmp_path / 'task.py'}: not UTF-8 text (byte offset 21)"


def test_verify_survives_a_worker_log_that_is_not_utf8(tmp_path):
    result = verify(tmp_path, b"# FAKE:crash_bad_log\n", "--json")
    assert result.returncode == 1, result.stderr  # rejected, not aborted (134)
    verdict = json.loads(result.stdout.decode("utf-8"))  # strict: no bad bytes
    assert "\ufffd" in verdict["worker_log"]
    result = verify(tmp_path, b"# FAKE:crash_bad_log\n")
    assert result.returncode == 1 and "\ufffd" in result.stdout.decode("utf-8")


def test_verify_blames_a_broken_task_with_exit_2(tmp_path):
    result = verify(tmp_path, b"# FAKE:task_error\n")
    assert result.returncode == 2, result.stderr
    # (after any warning the worker pool printed while starting)
    assert (f"{tmp_path / 'task.py'}: the task is at fault, not the candidate: task: no Model"
            in result.stderr.decode().splitlines())


SEARCH_PROGRAM = "tests/python/programs/search/linear_gelu_softmax.py"


@pytest.mark.parametrize("command", [["search", SEARCH_PROGRAM, "-o"],
                                     ["convert", SEARCH_PROGRAM, "-o"],
                                     ["bench", "examples", "--out"]])
def test_gpus_names_only_gpus_that_are_visible(command, fake_gpus, tmp_path):
    out = tmp_path / "out"

    def gpus_error(*extra, env=fake_gpus):
        result = subprocess.run([BIN, *command, str(out), *extra], cwd=ROOT, capture_output=True,
                                text=True, timeout=120, env=env)
        assert result.returncode == 2, result.stderr
        assert not out.exists()
        return result.stderr.splitlines()[0]

    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    assert gpus_error("--gpus", "") == "--gpus: expected GPU indices like 0,1, got ''"
    assert gpus_error("--gpus", "0,2") == "--gpus: GPU 2 is not visible (GPUs 0 to 1 are)"
    # CUDA renumbers what CUDA_VISIBLE_DEVICES keeps from 0, as the workers will see it
    assert (gpus_error("--gpus", "1", env=dict(fake_gpus, CUDA_VISIBLE_DEVICES="1"))
            == "--gpus: GPU 1 is not visible (only GPU 0 is)")
    hidden = dict(fake_gpus, CUDA_VISIBLE_DEVICES="")
    assert gpus_error("--gpus", "0", env=hidden) == (
        "--gpus: GPU 0 is not visible (nvidia-smi -L lists none, or CUDA_VISIBLE_DEVICES "
        "hides them)")
    assert gpus_error("--device", "cuda", env=hidden) == (
        "--device: cuda, but no GPU is visible (nvidia-smi -L lists none, or "
        "CUDA_VISIBLE_DEVICES hides them)")
