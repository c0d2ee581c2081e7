"""The one prompt format every policy shares: the supervised warm-up trains on it, sampling
and test-time search ask with it, and `parse_answer` reads every policy's completion back.

Plain text, no chat template, so a model trained here from scratch and a pretrained causal
LM see the same thing. Standard library only: the search imports it without torch.
"""

import re

EOS_TOKEN = "<|endoftext|>"  # the end marker of tokenizers trained here (tokenizer.py)

INSTRUCTION = (
    "Rewrite the PyTorch program below as `class ModelNew(nn.Module)` whose forward computes "
    "the same outputs with Triton kernels (`@triton.jit`). Keep the `__init__` signature of "
    "`Model` and the same state_dict (parameter and buffer names, shapes and dtypes). "
    "Answer with one ```python block holding the whole module."
)

# A fenced block: the opening fence may carry `python` or `py`; the body ends at the first
# closing fence at the start of a line.
_FENCED_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)^```", re.DOTALL | re.MULTILINE)
_MODEL_NEW = re.compile(r"^class ModelNew\b", re.MULTILINE)


def build_prompt(program_source: str) -> str:
    """The prompt for one KernelBench-format program; the answer follows it directly."""
    program = program_source.rstrip("\n")
    return f"{INSTRUCTION}\n\n```python\n{program}\n```\n\nAnswer:\n"


def format_answer(solution_source: str, eos: str = EOS_TOKEN) -> str:
    """The target completion: the solution as one fenced block, then the end marker (a
    foreign tokenizer passes its own `eos_token`)."""
    solution = solution_source.rstrip("\n")
    return f"```python\n{solution}\n```\n{eos}"


def parse_answer(completion: str) -> str | None:
    """The first fenced python block of `completion` that defines `class ModelNew`, or None."""
    for block in _FENCED_BLOCK.finditer(completion):
        if _MODEL_NEW.search(block.group(1)):
            return block.group(1)
    return None
