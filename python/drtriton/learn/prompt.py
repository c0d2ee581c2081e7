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
    foreign tokenizer passes its own `eos_token`). The comment lines the solution starts
    with are left out: the compiler's header is for people (what each kernel computes, from
    which lines), tokens a model would have to write for nothing."""
    lines = solution_source.rstrip("\n").split("\n")
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    solution = "\n".join(lines)
    return f"```python\n{solution}\n```\n{eos}"


def read_answer(completion: str) -> tuple[str | None, str]:
    """(the answer, "") or (None, why not). The answer is the one fenced python block that
    defines `class ModelNew`; other blocks (a usage example, a shell line) are ignored."""
    blocks = [b.group(1) for b in _FENCED_BLOCK.finditer(completion)]
    if not blocks:
        return None, "no fenced ```python block (closed by ``` at the start of a line)"
    answers = [b for b in blocks if _MODEL_NEW.search(b)]
    if not answers:
        return None, f"no block defines class ModelNew ({len(blocks)} block(s) without it)"
    if len(answers) > 1:
        return None, f"{len(answers)} blocks define class ModelNew: answer with exactly one"
    return answers[0], ""


def parse_answer(completion: str) -> str | None:
    """The answer of `completion` (read_answer), or None."""
    return read_answer(completion)[0]
