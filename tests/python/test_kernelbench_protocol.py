"""KernelBench's own protocol (drtriton.kernelbench_protocol): seed 42, Model then ModelNew
under the same seed, no weight copying, 5 trials on fresh inputs. Plain PyTorch solutions,
so that only the protocol is under test."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from drtriton import kernelbench_protocol as kb

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

TASK = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.fc = nn.Linear(features, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))

def get_inputs():
    return [torch.randn(4, 16)]

def get_init_inputs():
    return [16]
"""

SOLUTIONS = {
    # Builds the same Linear under the same seed: the harness's weights agree.
    "native": """
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.fc = nn.Linear(features, 8)

    def forward(self, x):
        return torch.clamp_min(x @ self.fc.weight.t() + self.fc.bias, 0)
""",
    # Relies on load_state_dict, which this harness never calls.
    "empty_weights": """
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(8, features))
        self.bias = nn.Parameter(torch.zeros(8))

    def forward(self, x):
        return torch.relu(x @ self.weight.t() + self.bias)
""",
    "wrong_shape": """
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.fc = nn.Linear(features, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))[:, :4]
""",
    "raises": """
import torch.nn as nn

class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.fc = nn.Linear(features, 8)

    def forward(self, x):
        raise RuntimeError("no kernel today")
""",
}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "task.py").write_text(textwrap.dedent(TASK))
    for name, text in SOLUTIONS.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    return tmp_path


def test_a_solution_that_builds_the_reference_state_passes(files):
    row = kb.check(str(files / "task.py"), str(files / "native.py"), device="cpu")
    assert row["correct"] and row["trials_passed"] == 5 and row["reason"] == ""
    assert row["max_abs_diff"] < 1e-5


@pytest.mark.parametrize("name,why", [("empty_weights", "differs (max abs diff"),
                                      ("wrong_shape", "has shape (4, 4), the reference (4, 8)"),
                                      ("raises", "RuntimeError: no kernel today")])
def test_the_harness_rejects(files, name, why):
    row = kb.check(str(files / "task.py"), str(files / f"{name}.py"), device="cpu")
    assert not row["correct"] and why in row["reason"], row
    assert row["trials_passed"] == 0


def test_command_line_prints_a_row_per_pair(files):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    run = subprocess.run([sys.executable, "-m", "drtriton.kernelbench_protocol",
                          str(files / "task.py"), str(files / "native.py"),
                          str(files / "task.py"), str(files / "wrong_shape.py"),
                          "--device", "cpu"], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["correct"] for r in rows] == [True, False]
    odd = subprocess.run([sys.executable, "-m", "drtriton.kernelbench_protocol",
                          str(files / "task.py"), "--device", "cpu"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert odd.returncode == 2 and "odd number of paths" in odd.stderr
