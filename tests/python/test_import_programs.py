"""`drtriton import` on hand-written KernelBench-format programs, as data: each
tests/python/programs/import/NAME.py has NAME.expected beside it, holding either the exact IR
text the import must print or, for a program it must reject, the exact error (without
the "drtriton: " prefix). Adding a case means adding the two files."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = Path("tests/python/programs/import")
BIN = Path(os.environ.get("DRTRITON_BIN") or ROOT / "build" / "drtriton")
PROGRAMS = sorted((ROOT / FOLDER).glob("*.py"))


def test_cases_exist():
    assert len(PROGRAMS) >= 5


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_import_matches_expected(program):
    if not BIN.exists():
        pytest.skip(f"{BIN} is not built (run make build)")
    expected = program.with_suffix(".expected").read_text()
    env = dict(os.environ)
    env.setdefault("DRTRITON_PYTHON", sys.executable)
    run = subprocess.run([str(BIN), "import", str(FOLDER / program.name)], cwd=ROOT,
                         capture_output=True, text=True, env=env, timeout=300)
    if expected.startswith(str(FOLDER)):
        assert run.returncode == 1
        assert run.stderr == "drtriton: " + expected
        assert run.stdout == ""
    else:
        assert run.returncode == 0, run.stderr
        assert run.stdout == expected
