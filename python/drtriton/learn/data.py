"""Pairs to token batches for the supervised warm-up: the held-out split, the encoding with
the loss mask, padding, and the order in which examples are drawn.

Kept apart from the training loop because each piece decides something a resumed or
data-parallel run must reproduce exactly: which programs are held out, which tokens carry
loss, which examples each process gets at each step.
"""

import hashlib
import math
from dataclasses import dataclass

import torch

from .prompt import build_prompt, format_answer

IGNORE_INDEX = -100  # label of tokens that carry no loss (the prompt, the padding)


@dataclass
class Example:
    input_ids: list[int]
    prompt_tokens: int  # the first prompt_tokens of input_ids are the prompt


def split_pairs(pairs: list[dict], heldout: float) -> tuple[list[dict], list[dict]]:
    """(train, held out). Whole programs are held out, chosen by the hash of their source, so
    the variants of one program stay on one side and the split does not move with the seed
    or the file's order; at least one program when `heldout` > 0 and there are two."""
    programs = sorted({p["program"] for p in pairs},
                      key=lambda source: hashlib.sha256(source.encode()).hexdigest())
    count = math.ceil(heldout * len(programs)) if heldout > 0 and len(programs) > 1 else 0
    held_programs = set(programs[:count])
    train = [p for p in pairs if p["program"] not in held_programs]
    held = [p for p in pairs if p["program"] in held_programs]
    return train, held


def encode_pairs(pairs: list[dict], tokenizer, max_len: int,
                 truncate: bool) -> tuple[list[Example], int]:
    """(examples, how many were longer than max_len). Too-long examples are skipped, or with
    `truncate` cut at max_len (then the model never sees their end); one whose prompt alone
    fills max_len is skipped either way."""
    if not pairs:
        return [], 0
    prompts = tokenizer([build_prompt(p["program"]) for p in pairs]).input_ids
    answers = tokenizer([format_answer(p["solution"], tokenizer.eos_token) for p in pairs],
                        add_special_tokens=False).input_ids
    examples, too_long = [], 0
    for prompt, answer in zip(prompts, answers):
        ids = prompt + answer
        if len(ids) > max_len:
            too_long += 1
            if not truncate or len(prompt) >= max_len:
                continue
            ids = ids[:max_len]
        examples.append(Example(ids, len(prompt)))
    return examples, too_long


def collate(examples: list[Example], pad_id: int, device) -> dict[str, torch.Tensor]:
    """Right-padded input_ids, attention_mask and labels (the answer tokens only)."""
    width = max(len(e.input_ids) for e in examples)
    input_ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
    labels = torch.full((len(examples), width), IGNORE_INDEX, dtype=torch.long)
    attention_mask = torch.zeros((len(examples), width), dtype=torch.long)
    for row, e in enumerate(examples):
        ids = torch.tensor(e.input_ids)
        input_ids[row, :len(ids)] = ids
        labels[row, e.prompt_tokens:len(ids)] = ids[e.prompt_tokens:]
        attention_mask[row, :len(ids)] = 1
    return {"input_ids": input_ids.to(device), "attention_mask": attention_mask.to(device),
            "labels": labels.to(device)}


class DataOrder:
    """An endless stream of training indices: epoch e is a permutation of range(n) seeded by
    (seed, e). `cursor`, the count of indices taken, is with the seed the whole state, so a
    checkpoint stores one integer and a resumed run draws exactly what the first would have.

    Each step takes batch * accum * world indices; process `rank` gets, for micro-step a,
    the slice starting at (a * world + rank) * batch. So a run on W processes computes the
    same gradient as one process accumulating W micro-steps."""

    def __init__(self, n: int, seed: int, cursor: int = 0):
        self.n, self.seed, self.cursor = n, seed, cursor
        self._epoch, self._permutation = -1, []

    def _index(self, position: int) -> int:
        epoch = position // self.n
        if epoch != self._epoch:
            generator = torch.Generator().manual_seed(self.seed * 1_000_003 + epoch)
            self._epoch, self._permutation = epoch, torch.randperm(self.n, generator=generator)
        return int(self._permutation[position % self.n])

    def next_step(self, batch: int, accum: int, world: int, rank: int) -> list[list[int]]:
        """The indices of this process's micro-batches for the next optimizer step."""
        taken = [self._index(self.cursor + i) for i in range(batch * accum * world)]
        self.cursor += len(taken)
        return [taken[(a * world + rank) * batch:(a * world + rank + 1) * batch]
                for a in range(accum)]
