"""The task cache: what depends only on the task, computed once per task in a worker and
reused by the next candidates of that task (docs/verifier.md, The task cache).

Search and reinforcement learning judge many candidates of one task. An Entry keeps, per
task: the input sets; on each set and each varied size, the reference's fp32 output, its
float64 truth, its buffers after that forward, whether it writes its inputs and why a
structured set says nothing; its library op counts; and its timing (eager, torch.compile).

Why reuse is sound:
- The key is a hash of the task's source and of every setting the work depends on (device,
  eval mode, seed). An entry also records what its request built (the CPU shrink, a digest
  of the reference's state_dict built under the seed); a request that builds anything else
  does not use it.
- The per-set work is computed in `load`, before the first candidate forward of the
  request that makes the entry, so no candidate ran anything that those values depend on.
- Its tensors live in host memory and are never handed to candidate code (the judge moves
  copies to the device; candidates get their own input buffers, as before). A SHA-256 of
  them is taken when the entry is made and checked after every request that used it: a
  change rejects that candidate and drops the entry.
- A request without a seed uses the entry's own random seed; after REDRAW_AFTER candidates
  the entry is dropped, so a task is judged on fresh input sets again.

Bounded: MAX_TASKS entries (least recently used out first) and MAX_BYTES of tensors in all
(DRTRITON_TASK_CACHE_MB; 0 turns the cache off). Where the tensors do not fit, the least
recently used entries give up their per-set work first and keep their seed, op counts and
timing (a few hundred bytes): a task's later candidate then computes its sets after its
forward on them, as without the cache, but neither times nor compiles the reference again.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os

import torch

from . import inputs as inputs_mod

MAX_TASKS = 64  # src/eval/worker_pool.cpp routes a task's candidates to the workers that know it
MAX_BYTES = int(float(os.environ.get("DRTRITON_TASK_CACHE_MB", "256")) * 2**20)
REDRAW_AFTER = 64


class SetReference:
    """The reference on one input set: fp32 output, float64 truth, buffers after the forward
    (fp32 and float64 models), whether it wrote its inputs, and why the set says nothing
    about a candidate (None where it does)."""

    def __init__(self, eager, truth, buffers, buffers64, writes_input, skipped=None):
        self.eager, self.truth = eager, truth
        self.buffers, self.buffers64 = buffers, buffers64
        self.writes_input, self.skipped = writes_input, skipped

    def to(self, device):
        move = lambda obj: inputs_mod.map_tensors(obj, lambda t: t.to(device))  # noqa: E731
        return SetReference(move(self.eager), move(self.truth), move(self.buffers),
                            move(self.buffers64), self.writes_input, self.skipped)

    def tensors(self):
        return inputs_mod.tensors_of([self.eager, self.truth, self.buffers, self.buffers64])


class Entry:
    def __init__(self, key, seed, drawn, shrunk, state_digest):
        self.key, self.seed = key, seed
        self.drawn = drawn  # the seed is the entry's own draw (the requests gave none)
        self.shrunk, self.state_digest = shrunk, state_digest
        self.uses = 0
        self.reference_ops = None
        self.timing = None
        # Per-set work (None where it is not kept): the input sets, a SetReference per set,
        # and per varied direction (direction, varied, values, SetReference or None, why).
        self.sets = None
        self.references = None
        self.variations = None
        self.digest = None

    def tensors(self):
        out = inputs_mod.tensors_of(self.sets or [])
        out += [t for r in (self.references or []) for t in r.tensors()]
        for _, _, values, ref, _ in self.variations or []:
            out += inputs_mod.tensors_of(values) + (ref.tensors() if ref else [])
        return out

    def nbytes(self):
        return sum(t.numel() * t.element_size() for t in self.tensors())

    def strip(self):
        """Give up the per-set work, keeping what is small (seed, op counts, timing)."""
        self.sets = self.references = self.variations = None
        self.seal()

    def seal(self):
        """Take the digest that `intact` checks."""
        self.digest = tensor_digest(self.tensors())

    def intact(self):
        return self.digest == tensor_digest(self.tensors())


def tensor_digest(tensors):
    """SHA-256 over the shapes, dtypes and bytes of host tensors."""
    h = hashlib.sha256()
    for t in tensors:
        t = t.detach().cpu().contiguous()
        h.update(f"{tuple(t.shape)}{t.dtype};".encode())
        if t.numel():
            h.update(t.reshape(-1).view(torch.uint8).numpy())
    return h.hexdigest()


def state_digest(state):
    return tensor_digest([state[k] for k in sorted(state)]) + json.dumps(sorted(state))


class TaskCache:
    def __init__(self, max_tasks=MAX_TASKS, max_bytes=MAX_BYTES):
        self.max_tasks, self.max_bytes = max_tasks, max_bytes
        self.entries = collections.OrderedDict()

    @property
    def enabled(self):
        return self.max_tasks > 0 and self.max_bytes > 0

    @staticmethod
    def key(task_src, device, options):
        settings = {"device": str(device), "eval_mode": bool(options.get("eval_mode")),
                    "seed": options.get("seed")}
        return hashlib.sha256(task_src.encode() + json.dumps(settings, sort_keys=True).encode()).hexdigest()

    def get(self, key):
        """The entry under `key`, most recently used now; None when there is none or its
        own seed has judged REDRAW_AFTER candidates (dropped then)."""
        entry = self.entries.get(key)
        if entry is not None and entry.drawn and entry.uses >= REDRAW_AFTER:
            self.drop(entry)
            entry = None
        if entry is not None:
            self.entries.move_to_end(key)
        return entry

    def put(self, entry):
        self.entries[entry.key] = entry
        self.entries.move_to_end(entry.key)
        while len(self.entries) > self.max_tasks:
            self.entries.popitem(last=False)
        older = [e for e in self.entries.values() if e is not entry]  # least recently used first
        total = sum(e.nbytes() for e in self.entries.values())
        for e in older:
            if total <= self.max_bytes:
                break
            total -= e.nbytes()
            e.strip()

    def drop(self, entry):
        if self.entries.get(entry.key) is entry:
            del self.entries[entry.key]
