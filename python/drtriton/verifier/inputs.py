"""Input sets, size constants, and memory poisoning.

Input sets (docs/verifier.md, Correct): each set calls the task's own get_inputs() under a
fresh seed, so shapes, dtypes and integer inputs are the task's, and then redraws every
floating-point tensor from one distribution of DISTRIBUTIONS. A tensor the task drew
non-negative (abs, ...) stays non-negative (the absolute value of the draw), so a task
computing log or sqrt keeps its domain; one it drew within [0, 1] (rand, probabilities)
stays within [0, 1] (the absolute value squashed by x / (1 + x), which keeps order, zeros
and equal values), so a binary cross entropy's targets or a log(1 - p) keep theirs; one
that holds two values only (+-1 labels, a 0/1 mask in floats) keeps them (the low one where
the draw is negative). Set 0 is the task's own draw, untouched.
Besides two families at several scales there are large magnitudes (normal*1e4) and
structured sets (sorted values of one sign, mostly zero, all equal), which catch kernels that are
wrong only where values are large or repeat; those are judged only where the reference's
own output stays finite (STRUCTURED_FROM).

Timed runs redraw the floating-point inputs in place before every run (redraw_), so no
two timed runs see the same values and an output cached from an earlier call is wrong.

Size constants: a KernelBench task keeps its sizes in module-level ints (batch_size = 16)
read by get_inputs/get_init_inputs at call time, so rebinding them changes the shapes.
Two uses: shrink_constants (CPU only: the Triton interpreter is slow, so inputs over
SHRINK_LIMIT elements are halved until they fit) and vary_constants (an extra set with
every input-only size changed by one, which catches candidates hard-coded to a shape).

Poisoning: the candidate runs first on memory that holds NaN, so a result that is
right only because a buffer still held an earlier answer fails. Two layers:
- torch's own switch: with deterministic algorithms on (warn_only) and
  torch.utils.deterministic.fill_uninitialized_memory, every torch.empty* of a floating
  type is filled with NaN (integers with their maximum) on CPU and CUDA alike;
- CUDA: a large block and many small blocks are filled with NaN through the caching
  allocator and freed, so reused cached blocks hold NaN even where torch.empty* is
  bypassed. CPU: the same with blocks of every power-of-two size up to 8 MB through
  glibc malloc; that covers blocks malloc reuses from its free lists, not fresh pages
  from the kernel (which are zero), so on CPU the first layer is the one that counts.
"""

from __future__ import annotations

import contextlib
import math
import os

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

# (label, kind, scale). At least two families at more than one scale (docs/verifier.md, Correct).
DISTRIBUTIONS = [
    ("task", None, None),
    ("normal*1", "normal", 1.0),
    ("uniform[-1,1]", "uniform", 1.0),
    ("normal*100", "normal", 100.0),
    ("uniform[-0.01,0.01]", "uniform", 0.01),
    ("normal*1e4", "normal", 1e4),
    ("sorted, one sign", "sorted_one_sign", 1.0),
    ("mostly zero", "mostly_zero", 1.0),
    ("all equal", "all_equal", 1.0),
]
# Sets from this index on are skipped (and said so) where the reference's output is not finite.
STRUCTURED_FROM = 5
# Sizes varied upward grow the inputs at most this much: on a GPU, and in Triton's (slow)
# interpreter on the CPU. Either way every such size grows by one at least.
GROWTH_LIMIT = {"cuda": 2.5, "cpu": 1.5}
SHRINK_LIMIT = 1_000_000   # inputs above this many elements are shrunk on the CPU ...
SHRINK_TARGET = 1 << 16    # ... down to this many (the interpreter runs a program per block)
SHRINK_FLOOR = 16
SHRINK_MIN_CONSTANT = 32


def map_tensors(obj, fn):
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(map_tensors(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: map_tensors(v, fn) for k, v in obj.items()}
    return obj


def tensors_of(obj):
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in tensors_of(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in tensors_of(o)]
    return []


# A tensor of this many elements or more that holds two values only is labels (+-1 targets,
# a 0/1 mask in floats): no continuous draw of it would.
TWO_VALUES_FROM = 8


def domain_of(t):
    """What the task's draw of `t` keeps: "real", "nonneg", "unit" (within [0, 1]), or the
    pair (low, high) of a tensor that holds those two values only."""
    if not t.is_floating_point() or t.numel() == 0 or t.device.type == "meta":
        return "real"
    low, high = t.min().item(), t.max().item()  # no sort: inputs may hold 10^9 values
    if t.numel() >= TWO_VALUES_FROM and low < high and bool(((t == low) | (t == high)).all()):
        return (low, high)
    if not low >= 0:  # NaN too
        return "real"
    return "unit" if high <= 1 else "nonneg"


def _into_(x, domain):
    """Values of any sign moved into `domain`, in order and in place (a timed run's inputs
    may fill the GPU): a pair takes its low value below 0 and its high one elsewhere; [0, 1]
    and non-negative take the absolute value, squashed into [0, 1] by
    |x| / (1 + |x|) = 1 - 1 / (1 + |x|)."""
    if isinstance(domain, tuple):
        low = x < 0
        return x.fill_(domain[1]).masked_fill_(low, domain[0])
    if domain == "unit":
        return x.abs_().add_(1).reciprocal_().neg_().add_(1)
    return x.abs_() if domain == "nonneg" else x


def _draw(shape, kind, scale, generator, domain, dtype):
    """Values of one distribution (on the generator's device), in float32 or float64."""
    nonneg = domain in ("nonneg", "unit")
    like = {"generator": generator, "dtype": dtype, "device": generator.device}
    if kind == "uniform":
        x = (torch.rand(shape, **like) * 2 - 1) * scale
    elif kind == "all_equal":
        x = torch.randn((), **like).expand(shape).clone() * scale
    else:
        x = torch.randn(shape, **like) * scale
    if kind == "sorted_one_sign":  # negative where the task allows it, ascending in memory
        x = (x.abs() if nonneg else -x.abs()).flatten().sort().values.reshape(shape)
    elif kind == "mostly_zero":
        x = x * (torch.rand(shape, **like) < 0.1)
    return _into_(x, domain)  # x is a fresh draw


def _redraw(t, kind, scale, generator):
    if not t.is_floating_point() or t.numel() == 0:
        return t
    dtype = torch.float64 if t.dtype == torch.float64 else torch.float32
    x = _draw(t.shape, kind, scale, generator, domain_of(t), dtype)
    return x.to(dtype=t.dtype, device=t.device).contiguous(memory_format=_memory_format(t))


def domains(inputs):
    """Per tensor of `inputs`: the domain its redraws keep (domain_of the task's draw)."""
    return [domain_of(t) for t in tensors_of(inputs)]


def redraw_(buffers, kept, generator, run):
    """Fresh values in place, on the buffers' device: normal and uniform by turns, each
    tensor in its domain of `kept` (domains of the task's draw)."""
    for t, domain in zip(tensors_of(buffers), kept):
        if not t.is_floating_point() or t.numel() == 0:
            continue
        if run % 2:
            t.uniform_(-1.0, 1.0, generator=generator)
        else:
            t.normal_(generator=generator)
        _into_(t, domain)


def _memory_format(t):
    if t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous():
        return torch.channels_last
    return torch.contiguous_format


def make_input_set(task_module, seed, dist_index, device="cpu"):
    """The task's get_inputs() under `seed`, redrawn from DISTRIBUTIONS[dist_index], on `device`.
    Drawn there, not on the CPU and copied: a CPU draw of a GPU-sized input (a sort of 512M
    values) takes minutes. get_inputs() runs with `device` as the default device; one that
    cannot (it calls .numpy()) runs on the CPU, and its tensors are moved."""
    label, kind, scale = DISTRIBUTIONS[dist_index]
    device = torch.device(device)
    torch.manual_seed(seed)
    try:
        with torch.device(device):
            raw = list(task_module.get_inputs())
    except Exception:
        if device.type == "cpu":
            raise
        torch.manual_seed(seed)
        raw = list(task_module.get_inputs())
    raw = map_tensors(raw, lambda t: t.detach().to(device))
    if kind is None:
        return raw
    generator = torch.Generator(device=device).manual_seed(seed * 7919 + dist_index)
    return map_tensors(raw, lambda t: _redraw(t, kind, scale, generator))


class InputsChanged(Exception):
    """A set drawn again differs from its first draw: code that ran in between (the
    candidate's) changed the task's constants, its get_inputs, or torch's generators."""


class InputSets:
    """The input sets of one request (one per DISTRIBUTIONS entry, under `seeds`), all drawn
    on `device` when made, before any candidate code runs. Sets up to KEEP_BYTES are kept;
    larger ones are drawn again at each use (same seed, same device: the same values), so a
    worker never holds nine copies of a GPU-sized input. A draw again must match the first
    one's fingerprint (shapes, dtypes and float64 sums), else InputsChanged."""

    KEEP_BYTES = int(float(os.environ.get("DRTRITON_INPUT_KEEP_MB", "64")) * 2**20)

    def __init__(self, task_module, seeds, device, before_redraw=None):
        """`before_redraw`: called before each draw again, to raise InputsChanged where what
        the draw relies on (torch's functions, the task's module) was changed meanwhile."""
        self.task, self.seeds, self.device = task_module, seeds, device
        self.before_redraw = before_redraw
        self.kept, self.prints = {}, []
        for index in range(len(seeds)):
            values = make_input_set(task_module, seeds[index], index, device)
            self.prints.append(_fingerprint(values))
            if nbytes(values) <= self.KEEP_BYTES:
                self.kept[index] = values

    def __len__(self):
        return len(self.seeds)

    def __getitem__(self, index):
        if index in self.kept:
            return self.kept[index]
        if self.before_redraw:
            self.before_redraw()
        values = make_input_set(self.task, self.seeds[index], index, self.device)
        if _fingerprint(values) != self.prints[index]:
            raise InputsChanged(f"input set {index} ({DISTRIBUTIONS[index][0]}) drawn again differs from "
                                f"its first draw: the task's sizes, get_inputs or torch's generators "
                                f"were changed at run time")
        return values

    def materialized(self, device="cpu"):
        """Every set as a list on `device` (for the task cache)."""
        return [map_tensors(self[i], lambda t: t.to(device)) for i in range(len(self))]


def set_shapes(sets, index):
    """The shapes of input set `index` of an InputSets (from its first draw's fingerprint,
    never drawn again: the judge asks while the task's sizes are varied) or of the task
    cache's list of sets."""
    if isinstance(sets, InputSets):
        return [shape for shape, _, _ in sets.prints[index]]
    return [tuple(t.shape) for t in tensors_of(sets[index])]


def _fingerprint(values):
    return [(tuple(t.shape), t.dtype, float(torch.nan_to_num(t.sum(dtype=torch.float64))) if t.numel() else 0.0)
            for t in tensors_of(values)]


def nbytes(obj):
    return sum(t.numel() * t.element_size() for t in tensors_of(obj))


def signature(inputs):
    """Shapes and dtypes, the part of the inputs that timings depend on."""
    return [[list(t.shape), str(t.dtype).replace("torch.", "")] for t in tensors_of(inputs)]


def _meta_shapes(task_module):
    with torch.device("meta"):
        inputs = list(task_module.get_inputs())
        init = list(task_module.get_init_inputs())
    return [tuple(t.shape) for t in tensors_of(inputs)], init


class _LargestTensor(TorchDispatchMode):
    """The bytes of the largest tensor any op makes inside the block (views make none)."""

    def __init__(self):
        super().__init__()
        self.nbytes = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if not func.is_view:
            self.nbytes = max([self.nbytes] + [t.numel() * t.element_size() for t in tree_flatten(out)[0]
                                               if isinstance(t, torch.Tensor)])
        return out


def meta_footprint(task_module, model_class, init_inputs):
    """(inputs, outputs, largest): bytes of the task's inputs, of its outputs and of the
    largest tensor its forward makes, from get_inputs() and a forward on the meta device
    (nothing drawn or computed; the random state is kept). get_inputs() failing raises;
    the forward failing (a data-dependent shape) gives outputs and largest 0."""
    with torch.random.fork_rng(devices=[]), torch.device("meta"), torch.no_grad():
        inputs = list(task_module.get_inputs())
        try:
            model = model_class(*init_inputs)
            with _LargestTensor() as largest:
                out = model(*inputs)
        except Exception:
            return nbytes(inputs), 0, 0
    return nbytes(inputs), nbytes([out]), largest.nbytes


def size_constants(module):
    return {name: value for name, value in vars(module).items()
            if type(value) is int and not name.startswith("_")}


def _meta_forward_ok(task_module, model_classes, varied=None):
    """Does the reference run on the meta device, and ModelNew build? With `varied`
    ({name: new value}), the models are built with the task's constants as they are, then
    run on the inputs of the varied ones: the verifier keeps the models it built, so a
    constant that __init__ also reads (nn.Linear(features, ...)) must not vary."""
    original = {name: getattr(task_module, name) for name in (varied or {})}
    try:
        with torch.device("meta"), torch.no_grad():
            init = list(task_module.get_init_inputs())
            models = [cls(*init) for cls in model_classes]
            for name, value in (varied or {}).items():
                setattr(task_module, name, value)
            models[0](*task_module.get_inputs())  # the reference must run
        return True
    except Exception:
        return False
    finally:
        for name, value in original.items():
            setattr(task_module, name, value)


def shrink_constants(task_module, model_classes, other_modules=()):
    """Inputs over SHRINK_LIMIT elements: halve the task's large size constants until the
    inputs hold <= SHRINK_TARGET elements.

    Only constants >= SHRINK_MIN_CONSTANT change (kernel sizes, strides and dims stay),
    never below SHRINK_FLOOR, and only while the reference still runs on the meta device
    and ModelNew still builds. Same-named int constants of `other_modules` (the candidate,
    which often copies them) are rebound too. Returns {name: [old, new]} or None.
    """
    try:
        shapes, _ = _meta_shapes(task_module)
    except Exception:
        return None
    total = sum(math.prod(s) for s in shapes)
    if total <= SHRINK_LIMIT or not _meta_forward_ok(task_module, model_classes):
        return None
    constants = {k: v for k, v in size_constants(task_module).items() if v >= SHRINK_MIN_CONSTANT}
    frozen, changed = set(), {}
    while total > SHRINK_TARGET:
        candidates = [k for k, v in constants.items() if k not in frozen and v // 2 >= SHRINK_FLOOR]
        if not candidates:
            break
        name = max(candidates, key=lambda k: constants[k])
        old = constants[name]
        setattr(task_module, name, old // 2)
        try:
            new_total = sum(math.prod(s) for s in _meta_shapes(task_module)[0])
        except Exception:
            new_total = None
        if new_total is None or new_total >= total or not _meta_forward_ok(task_module, model_classes):
            setattr(task_module, name, old)
            frozen.add(name)
            continue
        constants[name] = old // 2
        changed.setdefault(name, [old, old // 2])[1] = old // 2
        total = new_total
    if not changed:
        return None
    for module in other_modules:
        for name, (_, new) in changed.items():
            if type(getattr(module, name, None)) is int:
                setattr(module, name, new)
    return changed


def _smaller(n, growth):
    return n - 1 if n > 2 else n + 1


def _larger(n, growth):
    """n grown by `growth`, at least by one, and not a power of two."""
    m = max(n + 1, round(n * growth))
    return m + 1 if m & (m - 1) == 0 else m


@contextlib.contextmanager
def varied_constants(task_module, model_classes, up=False, growth_limit=GROWTH_LIMIT["cuda"]):
    """Rebind every size constant that changes only the inputs (not get_init_inputs).

    Yields {name: [old, new]} (empty when no constant qualifies or the reference does not
    accept the new shapes) and restores the constants afterwards. Down: n - 1 for n > 2
    (odd sizes also catch kernels that forgot a mask), else n + 1. Up: every such constant
    grows together, each by the same factor (at least by one, never to a power of two), the
    largest factor that keeps the inputs within `growth_limit` times their size: so a kernel
    hard-wired to at most the task's size fails in whichever dimension it is.
    """
    original = size_constants(task_module)
    changed = {}
    try:
        changed = _find_variation(task_module, model_classes, original, _larger if up else _smaller,
                                  growth_limit)
        for name, (_, new) in changed.items():
            setattr(task_module, name, new)
        yield changed
    finally:
        for name, value in original.items():
            setattr(task_module, name, value)


def _find_variation(task_module, model_classes, original, step, growth_limit):
    try:
        base_shapes, base_init = _meta_shapes(task_module)
    except Exception:
        return {}
    base_total = max(1, sum(math.prod(s) for s in base_shapes))
    qualifying = []  # constants that change the inputs' shapes and nothing else
    for name, value in original.items():
        if value < 1:
            continue
        setattr(task_module, name, step(value, 2.0))
        try:
            shapes, init = _meta_shapes(task_module)
            changes_inputs = shapes != base_shapes and init == base_init
        except Exception:
            changes_inputs = False
        setattr(task_module, name, value)
        if changes_inputs and _meta_forward_ok(task_module, model_classes[:1],
                                               {name: step(value, 2.0)}):
            qualifying.append(name)
    if not qualifying:
        return {}
    growth = growth_limit ** (1 / len(qualifying))
    for _ in range(6):  # shrink the factor until the inputs fit
        changed = {k: [original[k], step(original[k], growth)] for k in qualifying}
        for name, (_, new) in changed.items():
            setattr(task_module, name, new)
        try:
            total = sum(math.prod(s) for s in _meta_shapes(task_module)[0])
            fits = total <= growth_limit * base_total
        except Exception:
            fits = False
        for name, value in original.items():
            setattr(task_module, name, value)
        ok = fits and _meta_forward_ok(task_module, model_classes[:1],
                                       {k: new for k, (_, new) in changed.items()})
        if ok:
            return changed
        if fits:
            return {}  # the reference does not accept these shapes
        growth = 1 + (growth - 1) / 2
    return {}


class IndexBounds(TorchDispatchMode):
    """Raises IndexError before an indexing op would read or write out of bounds: the
    reference on varied sizes, where an index the task builds itself (x[:, torch.arange(1, 8,
    2)]) can miss a dimension that shrank. On the CPU PyTorch raises that error itself; on a
    GPU the op's kernel trips a device-side assert, which breaks the worker's CUDA context for
    everything after. Checking reads the indices' extremes (a synchronization per op), so
    it runs only around those forwards."""

    # Ops whose index (argument 2, or 1 for embeddings) takes one dim of argument 0: that
    # dim's argument (None: dim 0). Negative indices are out of bounds for them.
    DIM_OPS = {
        "index_select": 1, "gather": 1, "scatter": 1, "scatter_add": 1, "scatter_reduce": 1,
        "index_add": 1, "index_copy": 1, "index_fill": 1,
        "embedding": None, "embedding_bag": None, "_embedding_bag": None,
    }

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__.rstrip("_")
        if name in self.DIM_OPS:
            dim_arg = self.DIM_OPS[name]
            source, dim = args[0], 0 if dim_arg is None else args[dim_arg]
            index = args[2 if dim_arg is not None else 1]
            if isinstance(index, torch.Tensor):
                size = source.shape[dim] if source.dim() else 1
                self.check(index, size, dim, negative=False)
        elif name in ("index", "index_put", "_index_put_impl"):
            self.check_indices(args[0], args[1])
        elif name == "take":
            self.check(args[1], args[0].numel(), "the flattened input", negative=True)
        return func(*args, **kwargs)

    @classmethod
    def check_indices(cls, source, indices):
        """x[i, j, ...]: each integer index against the dim it takes; a boolean mask takes as
        many dims as it has (PyTorch checks its shape on the host)."""
        dim = 0
        for index in indices:
            if index is not None and index.dtype in (torch.bool, torch.uint8):
                dim += index.dim()
                continue
            if index is not None and dim < source.dim():
                cls.check(index, source.shape[dim], dim, negative=True)
            dim += 1

    @staticmethod
    def check(index, size, dim, negative):
        if index.numel() == 0 or index.is_floating_point():
            return
        low, high = int(index.min()), int(index.max())
        if high >= size or low < (-size if negative else 0):
            bad = high if high >= size else low
            raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size} "
                             f"(found before the op ran)")


@contextlib.contextmanager
def nan_uninitialized_memory(on=True):
    """torch.empty* returns NaN-filled memory inside the block (see module docstring)."""
    if not on:
        yield
        return
    import torch.utils.deterministic as det
    was_on = torch.are_deterministic_algorithms_enabled()
    was_warn = torch.is_deterministic_algorithms_warn_only_enabled()
    was_fill = det.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True, warn_only=True)
    det.fill_uninitialized_memory = True
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(was_on, warn_only=was_warn)
        det.fill_uninitialized_memory = was_fill


_SMALL_REQUEST_MAX = 1 << 20  # the CUDA caching allocator's kSmallSize


def poison_free_memory(device: torch.device):
    """Fill the memory the allocator will hand out next with NaN, then free it again (before
    every checked forward). CUDA: exactly the caching allocator's free blocks, each claimed
    by a request of its own size (best fit hands back that block), so the cost follows what
    the task has used, not a fixed budget; a block freed by an earlier forward holds stale
    values that an out-of-bounds read could otherwise find right. CPU: one block per size
    class, for glibc's free lists."""
    if device.type == "cuda":
        stream = torch.cuda.current_stream(device).cuda_stream
        sizes = []
        for seg in torch.cuda.memory_snapshot():
            if seg["device"] != (device.index or 0) or seg["stream"] != stream:
                continue
            # the small pool serves requests up to 1 MB only, so its free blocks (2 MB when a
            # segment is empty) are claimed in pieces of at most that
            piece = _SMALL_REQUEST_MAX if seg["segment_type"] == "small" else None
            for b in seg["blocks"]:
                if b["state"] == "inactive":
                    n = b["size"]
                    while piece and n > piece:
                        sizes.append(piece)
                        n -= piece
                    sizes.append(n)
        # largest first: best fit then hands each request a block of exactly its size
        blocks = [torch.empty(n // 4, dtype=torch.float32, device=device)
                  for n in sorted(sizes, reverse=True) if n >= 4]
    else:
        blocks = [torch.empty(1 << k) for k in range(4, 22)]  # 64 B .. 8 MB of float32
    for b in blocks:
        b.fill_(float("nan"))
    del blocks
