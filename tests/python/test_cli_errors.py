"""Bad input to the drtriton command, as data: tests/cli/errors.test lists each command
line with its exit code and the exact first line of its error. Every case must also leave
no output file behind."""
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = "tests/cli/data"
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))


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
