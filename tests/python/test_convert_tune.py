"""`drtriton convert --tune`: the solution under the given knobs and under each setting of
codegen's tuning_space (one knob changed), judged in one pool; the fastest accepted one is
written, and every verdict goes to the tuning cache, so a second convert judges nothing.
In Triton's interpreter the times say nothing about a GPU: this tests the mechanics (the
GPU measures the speed, bench/conv_layout.py and bench/gemm_epilogue.py per knob).
"""
import os
import re
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))
DEVICE = os.environ.get("DRTRITON_TEST_DEVICE", "cpu")

PROGRAM = '''"""A pointwise chain and a row softmax: the block, tile and warp knobs change its text."""
import torch
import torch.nn as nn

batch_size = 6
features = 40


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(torch.relu(x) * 2 + 1, dim=1)


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return []
'''


def test_tune_keeps_the_fastest_and_caches_every_verdict(tmp_path):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    program = tmp_path / "chain.py"
    program.write_text(PROGRAM)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))

    def tune():
        r = subprocess.run([BIN, "convert", str(program), "--tune", "--device", DEVICE,
                            "-o", str(tmp_path / "tuned.py")],
                           capture_output=True, text=True, cwd=ROOT, env=env)
        assert r.returncode == 0, r.stderr[-3000:]
        return r.stderr

    first = tune()
    judged = re.search(r"--tune: (\d+) distinct solutions judged \((\d+) from the cache", first)
    assert judged, first
    count = int(judged.group(1))
    assert count >= 4 and judged.group(2) == "0", first
    assert (tmp_path / "cache" / "drtriton" / "tune.sqlite").exists()
    # The rows: every solution with a time, one chosen; the file holds the chosen setting's.
    rows = re.findall(r"^  (\S.*?)\s+([\d.]+) ms(  <- chosen)?$", first, re.M)
    assert len(rows) == count, first
    chosen = [label for label, _, mark in rows if mark]
    assert len(chosen) == 1 and min(float(ms) for _, ms, _ in rows) == float(
        next(ms for _, ms, mark in rows if mark))
    knobs = [] if chosen[0] == "as given" else [a for s in chosen[0].split() for a in ("--knob", s)]
    r = subprocess.run([BIN, "convert", str(program), "--no-verify", *knobs,
                        "-o", str(tmp_path / "plain.py")], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "tuned.py").read_text() == (tmp_path / "plain.py").read_text()

    assert "no verifier worker started" not in first, first
    second = tune()
    assert f"--tune: {count} distinct solutions judged ({count} from the cache" in second, second
    # Answered under the identity one short process reported: it must be the workers' own,
    # or the cache, keyed by it, would have missed.
    assert "no verifier worker started" in second, second
    assert (tmp_path / "tuned.py").read_text() == (tmp_path / "plain.py").read_text()
