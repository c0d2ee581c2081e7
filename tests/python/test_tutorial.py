"""docs/tutorial.md shows what the commands print today: the graph `drtriton import` prints
and the solution `drtriton convert` writes are deterministic, so the tutorial's listings of
them must be the commands' output, byte for byte (they went stale once, unnoticed). The
verdicts' listings hold timings and random seeds, and are not compared."""
import os
import re
import shlex
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))
TUTORIAL = os.path.join(ROOT, "docs", "tutorial.md")


def blocks():
    """(the heading above it, the info string, its lines) of every fenced block."""
    heading, found, block = "", [], None
    for line in open(TUTORIAL).read().splitlines():
        if block is None and line.startswith("## "):
            heading = line[3:]
        elif block is None and line.startswith("```"):
            block = (heading, line[3:], [])
        elif block is not None and line.startswith("```"):
            found.append(block)
            block = None
        elif block is not None:
            block[2].append(line)
    return found


def run(command, cwd):
    """A `$ build/drtriton ...` line of the tutorial, run with this build's binary; paths
    under /tmp/tut go to `cwd`."""
    args = shlex.split(command.replace("/tmp/tut", str(cwd)))
    assert args[0] == "build/drtriton", command
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    return subprocess.run([BIN, *args[1:]], capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_import_listings_are_what_import_prints(tmp_path):
    listed = [lines for _, _, lines in blocks() if lines and lines[0].startswith("$ build/drtriton import ")]
    assert listed, "the tutorial shows no drtriton import"
    for lines in listed:
        r = run(lines[0][2:], tmp_path)
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == lines[1:], f"docs/tutorial.md's `{lines[0]}` is stale"


def test_solution_listing_is_what_convert_writes(tmp_path):
    converts = [lines for _, _, lines in blocks() if lines and lines[0].startswith("$ build/drtriton convert ")]
    assert len(converts) == 1, "the tutorial shows one drtriton convert"
    command = converts[0][0][2:]
    out = re.search(r"-o (\S+)", command).group(1)
    # The listing is of the solution alone: converting without --verify writes the same file.
    command = command.replace(" --verify", "").replace(" --device cpu", "") + " --no-verify"
    r = run(command, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[0] == converts[0][1].replace("/tmp/tut", str(tmp_path)), \
        "the convert block's first line is stale"
    listing = [lines for heading, info, lines in blocks() if heading == "4. Read the solution" and info == "python"]
    assert len(listing) == 1, "section 4 lists the solution in one python block"
    written = open(out.replace("/tmp/tut", str(tmp_path))).read().splitlines()
    assert written == listing[0], ("docs/tutorial.md's solution listing is stale: paste the file "
                                   "`drtriton convert examples/tutorial_block.py` writes")
