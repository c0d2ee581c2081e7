"""drtriton frontend: a KernelBench-format PyTorch file -> a JSON "traced graph".

The file is loaded as a module; the model and its inputs are built on the meta
device (nothing full-size is ever allocated) and exported with
``torch.export.export``. The result reports what torch.export saw, faithfully:
aten targets with every schema argument, shapes and dtypes, the module each node
came from and the user's source line. All mapping rules onto drtriton's operator
table live on the C++ side (``drtriton import``).

    python -m drtriton.frontend FILE.py [-o OUT.json] [--dynamic] [--decompose CALLS]
    python -m drtriton.frontend --batch LIST [-o OUT.jsonl] [--dynamic] [--decompose CALLS]
    trace_file(path, dynamic=False, decompose=()) -> dict

--decompose aten::glu.default,...: those calls are traced through torch's own
decompositions (torch._decomp), in both exports; drtriton import asks for it when it has no
operator for a call (drtriton convert traces such a program again).

--batch traces many files in one process, so torch is imported once (starting Python
and importing torch costs seconds, tracing a small program a fraction of one): LIST holds
one path per line ("-": standard input), and each file gives one line of JSON, in order,
written as soon as it is traced: the document below, or {"source": path, "error": "<the
one-line message>"} for a file that fails (the others are still traced). A document is
the same as the one a single-file run writes for that file.

Format ``drtriton.traced/1`` (one JSON object):
  format, source (path as given), torch_version;
  init_signature  "a, b=2" | null                  Model.__init__'s parameters after self
  init_source     {init, support} | null           Model.__init__'s source (dedented, as a
                                                   method) and the module-level statements it
                                                   needs; null where a copy would not pass the
                                                   verifier's static checks
  inputs          [{name, dtype, shape}]           tensor user inputs, in order
  constant_inputs [{name, value}]                  non-tensor forward args (export burns
                                                   their values into the nodes)
  params          [{placeholder, target, kind: parameter|buffer|constant, dtype, shape,
                    persistent?: false, value?,    value: a tensor constant's data, numbers
                    attribute?: true}]             or nested lists, where forward made it
                                                   from Python data (torch.tensor(0.5)) of
                                                   at most MAX_LITERAL elements; attribute:
                                                   a constant that is a plain tensor
                                                   attribute of the model (self.h0 =
                                                   torch.randn(...) in __init__)
  modules         {path: {type, class, attrs, params, buffers}}  every named_modules()
                                                   entry, the root Model as ""
  nodes           [{name, target: "aten::conv2d" | "getitem" | ..., overload, schema,
                    args: [{name, value, default?}] (every schema argument, in order),
                    dtype+shape | outputs: [{dtype, shape} | null] | value,
                    mutates?: [schema arg names written in place],
                    module, module_class, module_call, module_stack: [{path, class, call}],
                    line: "file.py:N", code}]
  outputs         [{ref} | {value}]                user outputs
  mutations       [{ref, target, kind: buffer|parameter|user_input, arg?}]
  dynamic         true when the sym_shape fields below are present; false without
                  --dynamic or when the dynamic export failed
  dynamic_error   one line saying why it failed (only with --dynamic)
Values: a node is {"ref": name}; non-finite floats {"float": "inf"|"-inf"|"nan"};
torch.dtype its name ("float16"); devices, layouts, memory formats str(); a
data-dependent size {"sym": "u0"}; dtype/shape fields use f32 f16 bf16 f64 i64 i32 bool.

Symbolic shapes (--dynamic). Everything above comes from the static export and does not
change. A second export marks every dim of every tensor input, parameter and buffer
dynamic (Dim.AUTO; the state is passed in as inputs, _StateAsInputs), but a convolution
module's kernel size (its weight's dims from the third on); where it lines up
with the static one (same tensor-valued nodes in the same order, same targets and
arguments, after dropping its size computations and the slices that keep their whole
input), each entry with a dtype+shape for a user input, a parameter or buffer, or a node
(for tuple-valued nodes, each tensor entry of outputs) also gets
  sym_shape       [str, ...]  one Python expression per dim over the input and state
                  sizes: "3", "s0", "(s1//2)", "8*((s2//2))*((s1//2))", "s3 - (Mod(s3, 4))";
                  the size symbols are renamed s0, s1, ... in the order the inputs' dims,
                  then the parameters' and buffers', first show them (torch numbers them
                  arbitrarily)
and a node with a number argument that forward computes from sizes (``x / x.size(0)``,
reduction="batchmean": args has the traced number) gets
  sym_args        {arg name: str}  that argument's expression over the same symbols ("s0",
                  "s0*s1"), so that a solution computes it from the sizes it is given
Recurrent layers are traced for their results' shapes only (_recurrent_shapes_only), in both
exports: their decompositions loop over the time steps and would fix the sequence length,
and torch 2.11's gives a half-precision LSTM's final states an extra dim. max_pool1d
is traced through max_pool1d_with_indices (_symbolic_max_pool1d): its own kernel computes
the pooled length from a concrete length and would fix it too.
An input's or parameter's dim is a bare symbol, or an int where the program forces the
size (a batch of 1, a hard-coded view, a size forward computes with); one symbol may stand
for dims of several tensors (a residual add; a Linear's in_features and its input's last
dim). Each string is str() of a
torch SymInt: sympy's printer with torch's functions, so FloorDiv prints as "(a//b)" and
the others as calls. Code that evaluates them must define, with integer arguments:
  Mod(a, b), PythonMod(a, b)            a % b (Mod's arguments are non-negative)
  CeilDiv(a, b)                         -(-a // b)
  ModularIndexing(a, b, c)              (a // b) % c
  CeilToInt, FloorToInt, TruncToInt, RoundToInt(x)   math.ceil/floor/trunc, round
  ToFloat(x), TruncToFloat(x)           float(x), float(math.trunc(x))
  IntTrueDiv(a, b), FloatTrueDiv(a, b)  a / b
  PowByNatural(a, b), FloatPow(a, b)    a ** b
  Max(a, ...), Min(a, ...)              max, min
  floor(x), ceiling(x)                  math.floor, math.ceil (sympy's own)
  OpaqueUnaryFn_sqrt(x)                 math.sqrt (math.sqrt of a size: _symbolic_math)
  Where(c, a, b), LShift, RShift, RoundDecimal, other OpaqueUnaryFn_<math fn>  (not seen)
Seen in practice: no function at all for conv, conv_transpose, max/avg pooling (also
ceil_mode), adaptive pooling, view/flatten/reshape, cat, stack, transpose/permute,
reductions with keepdim, pad, pixel_shuffle, every operator of tests/ir/op_cases;
TruncToInt and ToFloat for interpolate with a non-integer scale_factor; Mod for
x[:, :n - n % 4]; PythonMod for F.pad(x, (0, -n % 4)). Sympy may also print a rational
coefficient as "s0/2" inside floor() and the like: evaluated with Python's /, exact for
sizes below 2**53.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import math
import operator
import os
import re
import sys
import tempfile
import traceback
import warnings
from typing import Any

FORMAT = "drtriton.traced/1"
# Name the user's file is loaded under; user classes appear as "drtriton_program.Model".
PROGRAM_MODULE = "drtriton_program"
# The most elements of a tensor constant whose data the trace records (everything is traced
# on meta, so a constant's values are known only from the Python data it was made of).
MAX_LITERAL = 4096


class FrontendError(Exception):
    """A one-line, user-facing error: ``str(e)`` is ``"file.py: <what is wrong>"``."""


# --------------------------------------------------------------------------- values

_DTYPES = None


def _dtype_name(dt) -> str:
    global _DTYPES
    import torch

    if _DTYPES is None:
        _DTYPES = {
            torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
            torch.float64: "f64", torch.int64: "i64", torch.int32: "i32",
            torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8", torch.bool: "bool",
            torch.complex64: "c64", torch.complex128: "c128",
        }
    return _DTYPES.get(dt) or str(dt).replace("torch.", "")


def _float(v: float):
    if math.isnan(v):
        return {"float": "nan"}
    if math.isinf(v):
        return {"float": "inf" if v > 0 else "-inf"}
    return v


def _value(v) -> Any:
    """Encode an fx argument value as JSON."""
    import torch
    import torch.fx

    if isinstance(v, torch.fx.Node):
        return {"ref": v.name}
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    if isinstance(v, torch.dtype):
        return str(v).replace("torch.", "")
    if isinstance(v, torch.device):
        return str(v)
    if isinstance(v, (torch.memory_format, torch.layout)):
        return str(v)
    if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return {"sym": str(v)}
    if isinstance(v, complex):
        return {"complex": [_float(v.real), _float(v.imag)]}
    if isinstance(v, dict):
        return {str(k): _value(x) for k, x in v.items()}
    return {"repr": repr(v)}


def _plain(v) -> bool:
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    if isinstance(v, (list, tuple)):
        return all(_plain(x) for x in v)
    return False


def _dim(s):
    """A dimension: an int, or {"sym": "u0"} for a data-dependent size."""
    try:
        return int(s)
    except Exception:
        return {"sym": str(s)}


def _tensor_meta(val) -> dict | None:
    import torch

    if isinstance(val, torch.Tensor):
        return {"dtype": _dtype_name(val.dtype), "shape": [_dim(s) for s in val.shape]}
    return None


def _val_fields(val) -> dict:
    """dtype/shape (tensor), outputs (tuple/list), or value (scalar) of node.meta['val']."""
    tm = _tensor_meta(val)
    if tm is not None:
        return tm
    if isinstance(val, (tuple, list)):
        return {"outputs": [_tensor_meta(x) if _tensor_meta(x) is not None else
                            ({"value": _value(x)} if _plain(x) else None) for x in val]}
    import torch

    if val is not None and (_plain(val) or isinstance(val, (torch.SymInt, torch.SymFloat,
                                                            torch.SymBool))):
        return {"value": _value(val)}
    return {}


# --------------------------------------------------------------------------- stack traces

_FRAME_RE = re.compile(r'^\s*File "(?P<file>.+?)", line (?P<line>\d+), in (?P<func>.*)$')


def _parse_stack(trace: str):
    """[(file, line, func, code)] from a formatted stack trace."""
    frames = []
    for raw in trace.splitlines():
        m = _FRAME_RE.match(raw)
        if m:
            frames.append([m["file"], int(m["line"]), m["func"], None])
            continue
        s = raw.strip()
        if frames and frames[-1][3] is None and s and not set(s) <= set("~^ "):
            frames[-1][3] = s
    return frames


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.abspath(a) == os.path.abspath(b)
    except Exception:
        return a == b


def _user_frame(trace: str | None, abspath: str):
    if not trace:
        return None
    hit = None
    for f in _parse_stack(trace):
        if _same_file(f[0], abspath):
            hit = f
    return hit


def _user_frame_of_exception(exc: BaseException, abspath: str):
    """Last frame in the user's file in the exception's traceback (or its causes)."""
    seen = set()
    e = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        hit = None
        for fs in traceback.extract_tb(e.__traceback__):
            if _same_file(fs.filename, abspath):
                hit = (fs.lineno, (fs.line or "").strip())
        if hit is None:  # torch sometimes formats user frames into the message
            fr = _user_frame(str(e), abspath)
            if fr:
                hit = (fr[1], fr[3] or "")
        if hit:
            return hit
        e = e.__cause__ or e.__context__
    return None


def _first_line(exc: BaseException) -> str:
    for line in str(exc).splitlines():
        if line.strip():
            return f"{type(exc).__name__}: {line.strip()}"
    return type(exc).__name__


# --------------------------------------------------------------------------- meta building

def _literal_size(data) -> int | None:
    """Elements of plain numeric data (a number or nested lists of them), else None."""
    if isinstance(data, (bool, int, float)):
        return 1
    if isinstance(data, (list, tuple)):
        sizes = [_literal_size(x) for x in data]
        return None if None in sizes else sum(sizes)
    return None


def _force_meta_mode(literals: list | None = None):
    """A TorchFunctionMode that puts every new tensor on meta, whatever device the
    program asks for (``device="cuda"``, ``.cuda()``, ``.to("cuda")``), so that
    building the model and its inputs never allocates real memory. A tensor made from
    small Python data (torch.tensor(0.5)) is added to ``literals`` as (tensor, data): the
    trace reports the values of the constants forward makes."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._device import _device_constructors

    ctors = _device_constructors()
    dev_types = (str, torch.device, int)

    class ForceMeta(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func in ctors:
                kwargs["device"] = "meta"
                kwargs.pop("pin_memory", None)
                made = func(*args, **kwargs)
                if (literals is not None and func in (torch.tensor, torch.as_tensor) and args
                        and (_literal_size(args[0]) or MAX_LITERAL + 1) <= MAX_LITERAL):
                    literals.append((made, args[0]))
                return made
            if func in (torch.Tensor.cuda, torch.Tensor.cpu):
                return args[0]
            if func is torch.Tensor.to:
                self_, rest = args[0], list(args[1:])
                kwargs.pop("device", None)
                kwargs.pop("non_blocking", None)
                if rest and isinstance(rest[0], torch.Tensor):
                    rest[0] = rest[0].dtype
                rest = [a for a in rest if not isinstance(a, dev_types) or isinstance(a, bool)]
                if not rest and "dtype" not in kwargs and "memory_format" not in kwargs:
                    return self_
                return func(self_, *rest, **kwargs)
            return func(*args, **kwargs)

    return ForceMeta()


def _to_meta(v):
    import torch

    if isinstance(v, torch.Tensor) and v.device.type != "meta":
        return v.to("meta")
    if isinstance(v, list):
        return [_to_meta(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_to_meta(x) for x in v)
    return v


# --------------------------------------------------------------------------- loading

def _load(path: str, abspath: str):
    if not os.path.exists(abspath):
        raise FrontendError(f"{path}: no such file")
    if not os.path.isfile(abspath):
        raise FrontendError(f"{path}: not a file")
    try:
        with open(abspath, "rb") as f:
            src = f.read()
    except OSError as e:
        raise FrontendError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        code = compile(src, abspath, "exec")
    except SyntaxError as e:
        text = (e.text or "").strip()
        where = f" at line {e.lineno}" if e.lineno else ""
        raise FrontendError(
            f"{path}: syntax error{where}: {e.msg}" + (f": {text}" if text else "")) from None
    except ValueError as e:  # e.g. null bytes
        raise FrontendError(f"{path}: cannot compile: {e}") from None

    import types

    mod = types.ModuleType(PROGRAM_MODULE)
    mod.__file__ = abspath
    old = sys.modules.get(PROGRAM_MODULE)
    sys.modules[PROGRAM_MODULE] = mod
    try:
        exec(code, mod.__dict__)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        raise FrontendError(f"{path}: error while loading{_where(e, abspath, path)}: "
                            f"{_first_line(e)}") from None
    finally:
        if old is None:
            sys.modules.pop(PROGRAM_MODULE, None)
        else:
            sys.modules[PROGRAM_MODULE] = old
    return mod


def _where(exc, abspath, path) -> str:
    fr = _user_frame_of_exception(exc, abspath)
    if not fr:
        return ""
    return f" at {path}:{fr[0]}" + (f" ({fr[1]})" if fr[1] else "")


def _check_kernelbench(mod, path):
    import torch.nn as nn

    missing = []
    model = getattr(mod, "Model", None)
    if not (isinstance(model, type) and issubclass(model, nn.Module)):
        missing.append("class Model(nn.Module)")
    for fn in ("get_inputs", "get_init_inputs"):
        if not callable(getattr(mod, fn, None)):
            missing.append(f"{fn}()")
    if missing:
        raise FrontendError(f"{path}: not a KernelBench program: no {', no '.join(missing)}")


# --------------------------------------------------------------------------- graph

def _module_entry(m) -> dict:
    cls = type(m)
    attrs = {}
    for k, v in vars(m).items():
        if k.startswith("_") or k == "training" or not _plain(v):
            continue
        attrs[k] = _value(v)
    return {
        "type": f"{cls.__module__}.{cls.__qualname__}",
        "class": cls.__name__,
        "attrs": attrs,
        "params": [n for n, p in m._parameters.items() if p is not None],
        "buffers": [n for n, b in m._buffers.items() if b is not None],
    }


def _schema_args(node) -> list:
    """Every schema argument in order: the value passed, else the schema default."""
    schema = node.target._schema
    passed = {a.name: v for a, v in _arg_nodes(node, schema)}
    out = []
    for a in schema.arguments:
        entry = {"name": a.name}
        has_default = a.has_default_value()
        if a.name in passed:
            entry["value"] = _value(passed[a.name])
        elif has_default:
            entry["value"] = _value(a.default_value)
        else:  # not seen in practice: export always passes required arguments
            entry["value"] = None
            entry["missing"] = True
        if has_default:
            entry["default"] = _value(a.default_value)
        out.append(entry)
    return out


def _target_name(t) -> tuple[str, str | None]:
    import torch

    if isinstance(t, torch._ops.OpOverload):
        return t._schema.name, t._overloadname or "default"
    if t is operator.getitem:
        return "getitem", None
    if isinstance(t, torch._ops.HigherOrderOperator):
        return f"higher_order::{t.name()}", None
    mod = getattr(t, "__module__", None) or ""
    name = getattr(t, "__qualname__", None) or getattr(t, "__name__", None) or str(t)
    return (f"{mod}.{name}" if mod else name), None


def _alias_sets(schema):
    """(per-arg (alias set, is_write), per-return alias set) from an aten schema."""
    args = [(frozenset(a.alias_info.before_set), a.alias_info.is_write) if a.alias_info
            else (frozenset(), False) for a in schema.arguments]
    rets = [frozenset(r.alias_info.before_set) if r.alias_info else frozenset()
            for r in schema.returns]
    return args, rets


def _arg_nodes(node, schema):
    """[(schema arg, value)] for the positional and keyword arguments actually passed."""
    res = []
    pos = 0
    for a in schema.arguments:
        if not a.kwarg_only and pos < len(node.args):
            res.append((a, node.args[pos]))
        elif a.name in node.kwargs:
            res.append((a, node.kwargs[a.name]))
        if not a.kwarg_only:
            pos += 1
    return res


def _export(path, abspath, mod, decompose=()):
    import torch

    # Build model and inputs on meta: no full-size tensor is ever allocated.
    stage = "get_init_inputs()"
    try:
        with torch.device("meta"), _force_meta_mode():
            init_inputs = mod.get_init_inputs()
            stage = "Model(*get_init_inputs())"
            model = mod.Model(*list(init_inputs))
            stage = "get_inputs()"
            inputs = mod.get_inputs()
    except FrontendError:
        raise
    except Exception as e:
        raise FrontendError(f"{path}: {stage} failed{_where(e, abspath, path)}: "
                            f"{_first_line(e)}") from None
    if not isinstance(inputs, (list, tuple)):
        raise FrontendError(f"{path}: get_inputs() must return a list or tuple, "
                            f"got {type(inputs).__name__}")
    inputs = tuple(_to_meta(list(inputs)))
    if any(t.device.type != "meta" for t in list(model.parameters()) + list(model.buffers())):
        model = model.to("meta")

    literals = []
    try:
        with torch.device("meta"), torch.no_grad(), _force_meta_mode(literals), \
                _cumulative_batch_norm_traced(model), _recurrent_shapes_only():
            ep = _decomposed(torch.export.export(model, inputs), decompose)
    except Exception as e:
        raise FrontendError(f"{path}: export failed{_where(e, abspath, path)}: "
                            f"{_first_line(e)}") from None
    return model, inputs, ep, literals


def _decompositions():
    """torch's table of its own decompositions (torch._decomp), by OpOverload."""
    from torch._decomp import decomposition_table
    return decomposition_table


def _decomposition_table(targets):
    """torch's own decompositions of `targets` ("aten::glu.default"), those it has."""
    import torch

    decomposition_table = _decompositions()
    table = {}
    for target in targets:
        namespace, _, rest = target.partition("::")
        name, _, overload = rest.partition(".")
        packet = getattr(getattr(torch.ops, namespace, None), name, None)
        op = getattr(packet, overload or "default", None) if packet is not None else None
        if op in decomposition_table:
            table[op] = decomposition_table[op]
    return table


def _decomposed(ep, targets):
    """`ep` with every call of `targets` replaced by torch's own decomposition of it (calls
    drtriton has no operator for become calls it may have: glu a split, a sigmoid and a
    product). The rest of the graph keeps its calls; None or no target: `ep` itself."""
    table = _decomposition_table(targets or ())
    return ep.run_decompositions(table) if table else ep


# --------------------------------------------------------------------------- symbolic shapes

@contextlib.contextmanager
def _python_kernel(op, kernel):
    """Inside the block, `op` (an OpOverload) runs `kernel` where it would run its composite
    C++ implementation. The graph keeps `op` as one call; only how export traces through it
    (and so the sizes it sees) changes."""
    from torch._C import DispatchKey

    keys = (DispatchKey.CompositeImplicitAutograd, DispatchKey.Autograd)
    saved = {k: op.py_kernels.get(k) for k in keys}
    for k in keys:
        op.py_kernels[k] = kernel
    op._dispatch_cache.clear()
    try:
        yield
    finally:
        for k, old in saved.items():
            if old is None:
                op.py_kernels.pop(k, None)
            else:
                op.py_kernels[k] = old
        op._dispatch_cache.clear()


def _symbolic_max_pool1d():
    """aten's max_pool1d computes its pooled length from the input's length as a plain int,
    so a dynamic export fixes that length to the traced one (a solution then has the pooled
    length of 8192 on an input of 8191). max_pool1d_with_indices computes the same values
    with symbolic sizes."""
    import torch

    def via_indices(x, kernel_size, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
        return torch.ops.aten.max_pool1d_with_indices.default(
            x, kernel_size, stride, padding, dilation, ceil_mode)[0]

    return _python_kernel(torch.ops.aten.max_pool1d.default, via_indices)


@contextlib.contextmanager
def _symbolic_math():
    """math.sqrt of a size (attention's ``1 / math.sqrt(k.size(-1))``) asks the SymInt for
    its value, so a dynamic export fixes that size and the solution's scale with it. Inside
    the block, math.sqrt of a SymInt or SymFloat is torch's symbolic square root (an
    ``OpaqueUnaryFn_sqrt`` in the size expression); of anything else, math.sqrt itself."""
    import math

    import torch

    plain = math.sqrt

    def sqrt(x):
        if isinstance(x, (torch.SymInt, torch.SymFloat)):
            return torch._sym_sqrt(x)
        return plain(x)

    math.sqrt = sqrt
    try:
        yield
    finally:
        math.sqrt = plain


class _SymMismatch(Exception):
    """The dynamic export does not line up with the static one."""


class _StateAsInputs:
    """``model`` called as ``forward(state, *inputs)``, with its parameters and buffers
    passed in (torch.func.functional_call): export can mark an input's dims dynamic, not a
    parameter's, and sizes read from the state (a Linear's out_features, a convolution's
    channels) must be symbols too, so that a solution reads them from its own weights."""

    def __new__(cls, model):
        import torch

        class Wrapper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self._model = [model]  # a list: not a submodule, so its state is not lifted

            def forward(self, state, *inputs):
                return torch.func.functional_call(self._model[0], state, inputs)

        return Wrapper()


def _export_dynamic(model, inputs, decompose=()):
    """The same export with every dim of every tensor input and every parameter and buffer
    dynamic (``Dim.AUTO``) but a convolution's kernel size: dims the program forces (a batch
    of 1, a hard-coded view) come back as ints, the rest as SymInts over the input and state
    sizes. Returns the exported program and the state keys, in the order of its first user
    inputs."""
    import torch
    import torch.utils._pytree as pytree
    from torch.export import Dim, ShapesCollection

    state = dict(model.named_parameters())
    state.update(model.named_buffers())
    # A convolution's kernel size stays a number, like its stride and padding: as a symbol it
    # turns every spatial size into nested floors over kernel symbols, on which sympy spends
    # minutes for a deep network (a small ResNet: 60 s, 6 s without).
    kernels = {id(m.weight) for m in model.modules()
               if isinstance(m, torch.nn.modules.conv._ConvNd) and isinstance(m.weight, torch.Tensor)}
    shapes = ShapesCollection()
    for t in list(state.values()) + pytree.tree_leaves(inputs):
        if isinstance(t, torch.Tensor):
            dynamic = min(t.dim(), 2) if id(t) in kernels else t.dim()  # [out, in, kernel...]
            shapes[t] = {i: Dim.AUTO for i in range(dynamic)}
    with torch.device("meta"), torch.no_grad(), _force_meta_mode(), _recurrent_shapes_only(), \
            _symbolic_max_pool1d(), _symbolic_math(), _cumulative_batch_norm_traced(model):
        ep = torch.export.export(_StateAsInputs(model), (state, *inputs), dynamic_shapes=shapes)
        ep = _decomposed(ep, decompose)
    return ep, list(state)


@contextlib.contextmanager
def _cumulative_batch_norm_traced(model):
    """Inside the block, a BatchNorm with momentum=None traces as if its momentum were 0.1.
    Its factor is then 1/num_batches_tracked, which forward reads on the host (a float of a
    buffer): on meta there is no value to read, and export fails. The graph is the same
    but for that number; the module entry still says momentum None, which the importer
    reads."""
    import torch

    cumulative = [m for m in model.modules()
                  if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.momentum is None]
    for m in cumulative:
        m.momentum = 0.1
    try:
        yield
    finally:
        for m in cumulative:
            m.momentum = None


_RECURRENT_STATES = {"lstm": 2, "gru": 1, "rnn_tanh": 1, "rnn_relu": 1}


@contextlib.contextmanager
def _recurrent_shapes_only():
    """Inside the block, aten's recurrent layers (lstm, gru, rnn_tanh, rnn_relu) compute
    only their results' shapes when traced. Their Python decompositions, which export runs
    to find those shapes, loop over the time steps and so fix the sequence length to the
    traced one; the graph keeps the layer as one call either way."""
    import torch

    def shapes_of(states):
        def results(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                    batch_first):
            hx = list(hx) if states == 2 else [hx]
            width = (2 if bidirectional else 1) * hx[0].shape[-1]
            return (input.new_empty(*input.shape[:-1], width), *[h.new_empty(h.shape) for h in hx])
        return results

    with contextlib.ExitStack() as stack:
        for name, states in _RECURRENT_STATES.items():
            stack.enter_context(_python_kernel(getattr(torch.ops.aten, name).input,
                                               shapes_of(states)))
        yield


def _sym_dims(static_val, dynamic_val) -> list[str]:
    """str() of each dim of the dynamic tensor, checked against the static tensor: ranks
    agree, and each dim, evaluated at the traced sizes, is the static dim."""
    import torch

    if (not isinstance(static_val, torch.Tensor) or not isinstance(dynamic_val, torch.Tensor)
            or static_val.dim() != dynamic_val.dim()):
        raise _SymMismatch("a tensor's rank differs")
    dims = []
    for s, d in zip(static_val.shape, dynamic_val.shape):
        if isinstance(d, torch.SymInt):
            hint = d.node.hint if d.node.has_hint() else None
        else:
            hint = int(d)
        if hint is not None and not isinstance(s, torch.SymInt) and int(s) != hint:
            raise _SymMismatch(f"a dim is {int(s)} statically but {d} = {hint} dynamically")
        dims.append(str(d))
    return dims


def _tensor_valued(node) -> bool:
    import torch

    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        return True
    return isinstance(val, (tuple, list)) and any(isinstance(x, torch.Tensor) for x in val)


def _slice_defaults(n) -> list:
    """A node's arguments, a slice's with its defaults spelled out: the static export of
    ``mask[:, :, :T]`` starts the slice at 0 where the dynamic one passes None."""
    import torch

    args = list(n.args)
    if n.target is torch.ops.aten.slice.Tensor:
        args += [None] * (5 - len(args))  # self, dim, start, end, step
        for i, default in ((1, 0), (2, 0), (3, sys.maxsize), (4, 1)):
            args[i] = default if args[i] is None else args[i]
    return args


def _args_agree(s, d, static_of: dict) -> bool:
    """Do static node `s` and dynamic node `d` take the same arguments? A tensor argument
    must be the paired node; where the dynamic graph passes a size it computes (a
    SymInt-valued node), the static graph has the traced int."""
    import torch.fx

    def agree(a, b):
        if isinstance(b, torch.fx.Node):
            if not _tensor_valued(b):
                return not (isinstance(a, torch.fx.Node) and _tensor_valued(a))
            return isinstance(a, torch.fx.Node) and static_of.get(b.name) == a.name
        if isinstance(a, torch.fx.Node):
            return False
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            return len(a) == len(b) and all(map(agree, a, b))
        return a == b or (a != a and b != b)  # NaN arguments agree

    s_args, d_args = _slice_defaults(s), _slice_defaults(d)
    return (len(s_args) == len(d_args) and all(map(agree, s_args, d_args))
            and s.kwargs.keys() == d.kwargs.keys()
            and all(agree(s.kwargs[k], d.kwargs[k]) for k in s.kwargs))


def _sym_scalar_args(s, d) -> dict:
    """{argument name: size expression} for the number arguments of static node `s` that
    the paired dynamic node `d` computes from sizes (``x / x.size(0)``: the static graph
    divides by the traced 16, the dynamic one by the SymInt s0). Only a whole argument
    counts, not an element of a list (a view's sizes follow from its sym_shape)."""
    import torch
    import torch.fx

    schema = getattr(s.target, "_schema", None)
    if schema is None:
        return {}
    names = [a.name for a in schema.arguments]
    pairs = [(names[k], a, b) for k, (a, b) in enumerate(zip(s.args, d.args)) if k < len(names)]
    pairs += [(k, s.kwargs[k], d.kwargs[k]) for k in s.kwargs if k in d.kwargs]
    found = {}
    for name, a, b in pairs:
        if (not isinstance(b, torch.fx.Node) or isinstance(a, (bool, torch.fx.Node))
                or not isinstance(a, (int, float))):
            continue
        val = b.meta.get("val")
        if not isinstance(val, (torch.SymInt, torch.SymFloat)) or not val.node.has_hint():
            continue
        if val.node.hint != a:  # not the traced number after all: leave it as traced
            continue
        found[name] = str(val)
    return found


def _is_noop_slice(d) -> bool:
    """A slice that keeps its whole input (the ``:`` in ``x[:, :10]``). The static export
    drops it, since the size is known; the dynamic one keeps it."""
    import torch
    import torch.fx

    if d.target is not torch.ops.aten.slice.Tensor or not d.args:
        return False
    src = d.args[0]
    if not isinstance(src, torch.fx.Node) or not isinstance(src.meta.get("val"), torch.Tensor):
        return False
    return [str(x) for x in d.meta["val"].shape] == [str(x) for x in src.meta["val"].shape]


def _sym_shapes(static_ep, dynamic_ep, state_keys) -> tuple[dict, dict]:
    """{name: sym_shape} for the static graph's tensor placeholders (user inputs,
    parameters, buffers, constants) and tensor-valued nodes (for a tuple-valued node, a
    list with one sym_shape or None per element); and {node name: sym_args} for the nodes
    with number arguments computed from sizes (_sym_scalar_args).

    The dynamic graph has extra nodes that compute sizes (aten.sym_size.int, operator.mul
    on SymInts) and the slices that keep their whole input; without them, the two graphs
    must pair up node for node, in order, with identical targets and arguments."""
    import torch
    from torch.export.graph_signature import InputKind

    def placeholders(ep):
        return [n for n in ep.graph.nodes if n.op == "placeholder"]

    def calls(ep):
        return [n for n in ep.graph.nodes
                if n.op in ("call_function", "get_attr") and _tensor_valued(n)]

    def shapes(s, d):
        sv, dv = s.meta["val"], d.meta["val"]
        if isinstance(sv, torch.Tensor):
            return _sym_dims(sv, dv)
        if not isinstance(dv, (tuple, list)) or len(sv) != len(dv):
            raise _SymMismatch(f"{s.name}: the outputs differ")
        return [_sym_dims(a, b) if isinstance(a, torch.Tensor) else None for a, b in zip(sv, dv)]

    # The placeholders pair up by what they hold: the static program's parameters and
    # buffers are the dynamic one's first user inputs (state_keys), then come the user
    # inputs of both, in order; lifted constants pair in order.
    def by_kind(ep):
        found = {}
        for spec in ep.graph_signature.input_specs:
            found.setdefault(spec.kind, []).append((spec.target, getattr(spec.arg, "name", None)))
        return found

    s_spec, d_spec = by_kind(static_ep), by_kind(dynamic_ep)
    d_user = d_spec.get(InputKind.USER_INPUT, [])
    d_state = dict(zip(state_keys, (name for _, name in d_user)))
    pairs = [(name, d_state.get(target))
             for kind in (InputKind.PARAMETER, InputKind.BUFFER)
             for target, name in s_spec.get(kind, [])]
    pairs += list(zip((name for _, name in s_spec.get(InputKind.USER_INPUT, [])),
                      (name for _, name in d_user[len(state_keys):])))
    s_const = s_spec.get(InputKind.CONSTANT_TENSOR, [])
    d_const = d_spec.get(InputKind.CONSTANT_TENSOR, [])
    if len(s_const) != len(d_const):
        raise _SymMismatch(f"{len(s_const)} constants statically, {len(d_const)} dynamically")
    pairs += list(zip((name for _, name in s_const), (name for _, name in d_const)))
    s_in = {n.name: n for n in placeholders(static_ep)}
    d_in = {n.name: n for n in placeholders(dynamic_ep)}
    if len(s_in) != len(d_in) or len(pairs) != len(s_in) or any(d is None for _, d in pairs):
        raise _SymMismatch(f"{len(s_in)} placeholders statically, {len(d_in)} dynamically")
    static_of = {}  # dynamic node name -> the static node it pairs with
    sym, sym_args = {}, {}
    for s_name, d_name in pairs:
        static_of[d_name] = s_name
        s, d = s_in[s_name], d_in[d_name]
        if isinstance(s.meta.get("val"), torch.Tensor):
            sym[s_name] = shapes(s, d)

    s_calls, d_calls = calls(static_ep), calls(dynamic_ep)
    i = 0
    for d in d_calls:
        s = s_calls[i] if i < len(s_calls) else None
        if (s is not None and s.op == d.op and s.target == d.target
                and _args_agree(s, d, static_of)):
            static_of[d.name] = s.name
            sym[s.name] = shapes(s, d)
            scalars = _sym_scalar_args(s, d)
            if scalars:
                sym_args[s.name] = scalars
            i += 1
        elif _is_noop_slice(d) and d.args[0].name in static_of:
            static_of[d.name] = static_of[d.args[0].name]
        else:
            nxt = f"{s.name} ({s.target})" if s is not None else "nothing"
            raise _SymMismatch(f"{d.name} ({d.target}) has no static counterpart; "
                               f"next static node: {nxt}")
    if i != len(s_calls):
        raise _SymMismatch(f"{s_calls[i].name} ({s_calls[i].target}) has no dynamic counterpart")
    return sym, sym_args


_SIZE_SYMBOL = re.compile(r"\bs(\d+)\b")


def _canonical_symbols(sym: dict, input_names: list, sym_args: dict) -> tuple[dict, dict]:
    """The same sym_shapes and sym_args with torch's size symbols renamed s0, s1, ... in the
    order the dims of ``input_names`` first show them (the user inputs, then the parameters
    and buffers; name by name, dim by dim). torch.export numbers its
    symbols arbitrarily ("s77", "s53"); canonical names make a program's solutions the
    same text whatever the numbering, which a model learning from them cannot guess."""
    order: dict = {}

    def visit(dims):
        for d in dims or ():
            if isinstance(d, list):
                visit(d)
            elif d is not None:
                for m in _SIZE_SYMBOL.finditer(d):
                    order.setdefault(m.group(0), f"s{len(order)}")

    for name in input_names:
        visit(sym.get(name))
    for dims in sym.values():
        visit(dims)
    for args in sym_args.values():
        visit(args.values())

    def rename(dims):
        if dims is None:
            return None
        return [rename(d) if isinstance(d, list) else
                None if d is None else _SIZE_SYMBOL.sub(lambda m: order[m.group(0)], d)
                for d in dims]

    return ({k: rename(v) for k, v in sym.items()},
            {k: dict(zip(v, rename(list(v.values())))) for k, v in sym_args.items()})


def _with_sym_shape(entry: dict, dims: list[str]) -> dict:
    """The entry with sym_shape right after its shape."""
    out = {}
    for k, v in entry.items():
        out[k] = v
        if k == "shape":
            out["sym_shape"] = dims
    return out


def _annotate(doc: dict, model, inputs, static_ep, decompose=()) -> None:
    """Add the sym_shape fields to a built document and set ``dynamic``; on any failure,
    leave them all out and say why in ``dynamic_error``. The static fields are built
    before the second export runs, so nothing it does to the model can change them."""
    try:
        dynamic_ep, state_keys = _export_dynamic(model, inputs, decompose)
        sym, sym_args = _sym_shapes(static_ep, dynamic_ep, state_keys)
    except _SymMismatch as e:
        doc["dynamic_error"] = f"dynamic export does not line up with the static one: {e}"
        return
    except Exception as e:
        doc["dynamic_error"] = f"dynamic export failed: {_first_line(e)}"
        return
    sym, sym_args = _canonical_symbols(sym, [e["name"] for e in doc["inputs"]] +
                                       [p["placeholder"] for p in doc["params"]], sym_args)
    doc["inputs"] = [_with_sym_shape(e, sym[e["name"]]) if e["name"] in sym else e
                     for e in doc["inputs"]]
    doc["params"] = [_with_sym_shape(p, sym[p["placeholder"]]) if p["placeholder"] in sym else p
                     for p in doc["params"]]
    for i, n in enumerate(doc["nodes"]):
        if n["name"] in sym_args:
            n["sym_args"] = sym_args[n["name"]]
        dims = sym.get(n["name"])
        if dims is None:
            continue
        if "shape" in n:
            doc["nodes"][i] = _with_sym_shape(n, dims)
        elif "outputs" in n:
            n["outputs"] = [_with_sym_shape(out, d) if d is not None and out else out
                            for out, d in zip(n["outputs"], dims)]
    doc["dynamic"] = True


def _attribute(model, target):
    """The object at the dotted path `target` of `model` ("rnn.h0"), or None."""
    obj = model
    for part in target.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _build(path: str, abspath: str, model, ep, literals=()) -> dict:
    import torch
    import torch.fx
    from torch.export.graph_signature import InputKind, OutputKind

    sig = ep.graph_signature
    graph = ep.graph
    by_name = {n.name: n for n in graph.nodes}

    inputs, constant_inputs, params = [], [], []
    placeholder_kind = {}  # placeholder name -> (kind, target)
    for spec in sig.input_specs:
        name = getattr(spec.arg, "name", None)
        node = by_name.get(name) if name else None
        val = node.meta.get("val") if node is not None else None
        if spec.kind == InputKind.USER_INPUT:
            if isinstance(val, torch.Tensor):
                inputs.append({"name": name, **_tensor_meta(val)})
                placeholder_kind[name] = ("user_input", name)
            else:
                cval = val if name else getattr(spec.arg, "value", None)
                constant_inputs.append({"name": name, "value": _value(cval)})
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            kind = {InputKind.PARAMETER: "parameter", InputKind.BUFFER: "buffer",
                    InputKind.CONSTANT_TENSOR: "constant"}[spec.kind]
            e = {"placeholder": name, "target": spec.target, "kind": kind}
            if spec.kind == InputKind.BUFFER and spec.persistent is False:
                e["persistent"] = False
            e.update(_tensor_meta(val) or {})
            if spec.kind == InputKind.CONSTANT_TENSOR:
                constant = ep.constants.get(spec.target)
                for made, data in literals:
                    if made is constant:
                        e["value"] = _value(data)
                if "value" not in e and isinstance(_attribute(model, spec.target), torch.Tensor):
                    e["attribute"] = True
            params.append(e)
            placeholder_kind[name] = (kind, spec.target)
        # CUSTOM_OBJ / TOKEN inputs do not occur in KernelBench programs.

    nodes = []
    used_modules = set()
    alias_root = {n: placeholder_kind[n] for n in placeholder_kind}
    mutations = []
    for n in graph.nodes:
        if n.op not in ("call_function", "get_attr"):
            continue
        if n.op == "get_attr":
            nodes.append({"name": n.name, "target": "get_attr", "overload": None,
                          "args": [{"name": "attr", "value": str(n.target)}]})
            continue
        target, overload = _target_name(n.target)
        e = {"name": n.name, "target": target, "overload": overload}
        if isinstance(n.target, torch._ops.OpOverload):
            if n.target in _decompositions():  # drtriton import may trace it again through that
                e["decomposes"] = True
            schema = n.target._schema
            e["args"] = _schema_args(n)
            e["schema"] = str(schema)
            # Writes and aliasing, from the schema's alias annotations.
            arg_alias, ret_alias = _alias_sets(schema)
            index = {a.name: i for i, a in enumerate(schema.arguments)}
            mutated = []
            alias_of = None
            for a, v in _arg_nodes(n, schema):
                if not isinstance(v, torch.fx.Node):
                    continue
                aset, write = arg_alias[index[a.name]]
                if write:
                    mutated.append(a.name)
                    root = alias_root.get(v.name)
                    if root is not None:
                        mutations.append({"ref": n.name, "target": root[1], "kind": root[0],
                                          "arg": a.name})
                if alias_of is None and aset and ret_alias and aset & ret_alias[0]:
                    alias_of = v.name
            if mutated:
                e["mutates"] = mutated
            if alias_of is not None and alias_of in alias_root:
                alias_root[n.name] = alias_root[alias_of]
        elif n.target is operator.getitem:
            src, idx = n.args[0], n.args[1]
            e["args"] = [{"name": "input", "value": _value(src)},
                         {"name": "index", "value": _value(idx)}]
        else:
            e["args"] = ([{"name": f"arg{i}", "value": _value(a)} for i, a in enumerate(n.args)]
                         + [{"name": k, "value": _value(v)} for k, v in n.kwargs.items()])
        e.update(_val_fields(n.meta.get("val")))

        stack = n.meta.get("nn_module_stack") or {}
        if stack:
            call, (mpath, mtype) = list(stack.items())[-1]
            mtype = mtype if isinstance(mtype, str) else f"{mtype.__module__}.{mtype.__qualname__}"
            e["module"] = mpath
            e["module_class"] = mtype.rsplit(".", 1)[-1]
            e["module_call"] = call
            e["module_stack"] = [
                {"path": p, "class": (t if isinstance(t, str) else t.__qualname__).rsplit(".", 1)[-1],
                 "call": k} for k, (p, t) in stack.items()]
            used_modules.update(p for p, _ in stack.values())
        else:
            e["module"] = None
            e["module_class"] = None
            e["module_call"] = None
        fr = _user_frame(n.meta.get("stack_trace"), abspath)
        e["line"] = f"{path}:{fr[1]}" if fr else None
        e["code"] = fr[3] if fr else None
        nodes.append(e)

    outputs = []
    for spec in sig.output_specs:
        name = getattr(spec.arg, "name", None)
        if spec.kind == OutputKind.USER_OUTPUT:
            outputs.append({"ref": name} if name is not None
                           else {"value": _value(getattr(spec.arg, "value", None))})
        elif spec.kind in (OutputKind.BUFFER_MUTATION, OutputKind.PARAMETER_MUTATION,
                           OutputKind.USER_INPUT_MUTATION):
            kind = {OutputKind.BUFFER_MUTATION: "buffer",
                    OutputKind.PARAMETER_MUTATION: "parameter",
                    OutputKind.USER_INPUT_MUTATION: "user_input"}[spec.kind]
            if not any(m["ref"] == name and m["target"] == spec.target for m in mutations):
                mutations.append({"ref": name, "target": spec.target, "kind": kind})

    modules = {}
    for mpath, m in model.named_modules():
        modules[mpath] = _module_entry(m)

    return {
        "format": FORMAT,
        "source": path,
        "torch_version": torch.__version__,
        "inputs": inputs,
        "constant_inputs": constant_inputs,
        "params": params,
        "modules": modules,
        "nodes": nodes,
        "outputs": outputs,
        "mutations": mutations,
        "dynamic": False,  # _annotate sets it
    }


# --------------------------------------------------------------------------- API

@contextlib.contextmanager
def _quiet_torch_logs():
    import logging

    log = logging.getLogger("torch")
    old = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(old)


@contextlib.contextmanager
def _einsum_left_to_right():
    """Where opt_einsum is installed, torch.einsum asks it for a contraction order of three
    or more operands, and that order depends on the sizes: torch.export then fixes every
    size it read (a dynamic export loses the batch and sequence dims). Left to right, the
    order torch takes without opt_einsum, reads none and traces alike everywhere."""
    import torch

    backend = torch.backends.opt_einsum
    old = backend.enabled
    backend.enabled = False
    try:
        yield
    finally:
        backend.enabled = old


@contextlib.contextmanager
def _stderr_to_void():
    """Silence fd 2 (C++ warnings, log handlers bound to the real stderr)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _init_signature(abspath: str) -> str | None:
    """Model.__init__'s parameters after self, as source ("in_f, out_f=10, *args"): a
    solution's ModelNew must declare the same ones (the verifier's static rule, reused)."""
    import ast
    from drtriton.verifier.static_checks import _init_signature as signature_of
    with open(abspath, encoding="utf-8") as f:
        init = signature_of(ast.parse(f.read()), "Model")
    if init is None:
        return None
    text = init.describe("Model")  # "Model.__init__(self, a, b=2)"
    inner = text[text.index("(") + 1:-1]
    return inner[len("self"):].lstrip(", ")


# Imports every generated solution starts with (codegen's header): not copied again.
_SOLUTION_IMPORTS = {"import torch", "import torch.nn as nn", "import torch.nn.functional as F",
                     "import triton", "import triton.language as tl"}
_KERNELBENCH_FUNCTIONS = {"Model", "get_inputs", "get_init_inputs"}


def _init_source(abspath: str) -> dict | None:
    """Model.__init__ as a solution's ModelNew can copy it, with the module-level statements
    it uses (constants, helper modules, imports), so that under one seed ModelNew builds the
    very parameters and buffers the reference builds (KernelBench's harness never copies
    weights). None when there is nothing to copy or the copy would break a static rule of
    the verifier (a solution may not name Model, nor import what a candidate may not)."""
    import ast
    import textwrap
    from drtriton.verifier import static_checks
    with open(abspath, encoding="utf-8") as f:
        source = f.read()
    tree = ast.parse(source)
    model = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model"), None)
    init = model and next((n for n in model.body if isinstance(n, ast.FunctionDef)
                           and n.name == "__init__"), None)
    if init is None:
        return None

    defined = {}  # module-level name -> the statement that binds it
    for stmt in tree.body:
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef)):
            defined[stmt.name] = stmt
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        defined[node.id] = stmt
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                defined[(alias.asname or alias.name).split(".")[0]] = stmt
    def free_names(root):
        """Names `root` reads that it does not bind itself (parameters, assignments)."""
        nodes = list(ast.walk(root))
        bound = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        bound |= {a.arg for n in nodes if isinstance(n, (ast.FunctionDef, ast.Lambda))
                  for a in ast.walk(n.args) if isinstance(a, ast.arg)}
        return {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                and n.id not in bound}

    needed, todo = [], [init]
    while todo:  # the statements init reads, and those they read, in file order
        for name in free_names(todo.pop()):
            stmt = defined.get(name)
            if stmt is not None and stmt not in needed and not (
                    isinstance(stmt, (ast.ClassDef, ast.FunctionDef))
                    and stmt.name in _KERNELBENCH_FUNCTIONS):
                needed.append(stmt)
                todo.append(stmt)
    needed.sort(key=lambda stmt: stmt.lineno)
    support = [ast.get_source_segment(source, stmt) for stmt in needed]
    support = "\n\n".join(text for text in support if text not in _SOLUTION_IMPORTS)
    method = textwrap.dedent(ast.get_source_segment(source, init, padded=True))
    method = re.sub(r"super\(\s*Model\s*,\s*self\s*\)", "super()", method)

    # The copy as a solution would hold it; any rule broken on one of its lines rules it out.
    header = "\n".join(sorted(_SOLUTION_IMPORTS)) + "\n\n"
    trial = (header + support + "\n\n\nclass ModelNew(nn.Module):\n"
             + textwrap.indent(method, "    ") + "\n")
    report = static_checks.check_candidate(trial, static_checks.analyze_task(source))
    if report.error or any(v.line > 0 for v in report.violations):
        return None
    return {"init": method, "support": support}


def trace_file(path: str, dynamic: bool = False, decompose=()) -> dict:
    """Trace a KernelBench-format file; return the ``drtriton.traced/1`` dict.

    With ``dynamic``, a second export with dynamic input sizes adds ``sym_shape`` to the
    inputs and nodes (see the module docstring); a failure there never fails the trace.
    ``decompose`` names calls ("aten::glu.default") that both exports replace by torch's own
    decompositions (drtriton import has no operator for them).
    Raises FrontendError (one line, ``"path: what is wrong"``) on any failure.
    """
    path = os.fspath(path)
    abspath = os.path.abspath(path)
    # The program's own prints must not reach our stdout; torch's diagnostics (e.g. the
    # partial graph export prints on failure) must not reach stderr: errors are one line.
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
            warnings.catch_warnings(), _quiet_torch_logs(), _einsum_left_to_right():
        warnings.simplefilter("ignore")
        mod = _load(path, abspath)
        _check_kernelbench(mod, path)
        old = sys.modules.get(PROGRAM_MODULE)
        sys.modules[PROGRAM_MODULE] = mod
        try:
            model, inputs, ep, literals = _export(path, abspath, mod, decompose)
            doc = _build(path, abspath, model, ep, literals)
            doc["init_signature"] = _init_signature(abspath)
            doc["init_source"] = _init_source(abspath)
            if dynamic:
                _annotate(doc, model, inputs, ep, decompose)
            return doc
        finally:
            if old is None:
                sys.modules.pop(PROGRAM_MODULE, None)
            else:
                sys.modules[PROGRAM_MODULE] = old


def to_json(doc: dict) -> str:
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


def write_atomic(out_path: str, text: str) -> None:
    d = os.path.dirname(os.path.abspath(out_path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(out_path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out_path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def trace_batch(paths, out, dynamic: bool = False, decompose=()) -> int:
    """Trace each file of `paths`, writing one JSON line per file to the text stream `out`
    (the document, or {"source", "error"}); returns how many failed."""
    failed = 0
    for path in paths:
        try:
            with _stderr_to_void():
                doc = trace_file(path, dynamic=dynamic, decompose=decompose)
        except FrontendError as e:
            doc = {"source": path, "error": str(e)}
        except Exception as e:  # a bug of ours, for this file only
            doc = {"source": path, "error": f"{path}: internal error: {_first_line(e)}"}
        failed += "error" in doc
        out.write(json.dumps(doc, allow_nan=False) + "\n")
        out.flush()
    return failed


def _read_list(list_path: str) -> list[str]:
    if list_path == "-":
        return [line.strip() for line in sys.stdin if line.strip()]
    try:
        with open(list_path, encoding="utf-8") as f:
            return [line.strip() for line in f if line.strip()]
    except OSError as e:
        raise FrontendError(f"{list_path}: cannot read the list: {e.strerror or e}") from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m drtriton.frontend",
                                 description="Trace a KernelBench-format PyTorch file "
                                             "into drtriton's traced-graph JSON.")
    ap.add_argument("file", nargs="?", help="KernelBench-format Python file")
    ap.add_argument("-o", "--output", help="output JSON file (default: stdout)")
    ap.add_argument("--dynamic", action="store_true",
                    help="export again with dynamic input sizes and add each value's "
                         "symbolic shape (sym_shape)")
    ap.add_argument("--batch", metavar="LIST",
                    help="trace every file listed in LIST (one path a line; -: stdin) and "
                         "write one JSON line per file")
    ap.add_argument("--decompose", metavar="CALLS", default="",
                    help="comma-separated aten calls (aten::glu.default) to trace through "
                         "torch's own decompositions")
    args = ap.parse_args(argv)
    args.decompose = [t for t in args.decompose.split(",") if t]
    if (args.file is None) == (args.batch is None):
        ap.error("give one FILE or --batch LIST")
    if args.batch is not None:
        return _main_batch(args)
    try:
        with _stderr_to_void():
            doc = trace_file(args.file, dynamic=args.dynamic, decompose=args.decompose)
        text = to_json(doc)
        if args.output and args.output != "-":
            try:
                write_atomic(args.output, text)
            except OSError as e:
                raise FrontendError(f"{args.file}: cannot write {args.output}: "
                                    f"{e.strerror or e}") from None
        else:
            sys.stdout.write(text)
    except FrontendError as e:
        print(str(e), file=sys.stderr)
        return 1
    except Exception as e:  # a bug of ours: still one line, still exit 1
        print(f"{args.file}: internal error: {_first_line(e)}", file=sys.stderr)
        return 1
    return 0


def _main_batch(args) -> int:
    """--batch: exit 0 even when some files fail (their lines say why); 1 when the list or
    the output cannot be read or written."""
    try:
        paths = _read_list(args.batch)
        if args.output and args.output != "-":
            buf = io.StringIO()
            trace_batch(paths, buf, dynamic=args.dynamic, decompose=args.decompose)
            try:
                write_atomic(args.output, buf.getvalue())
            except OSError as e:
                raise FrontendError(f"{args.batch}: cannot write {args.output}: "
                                    f"{e.strerror or e}") from None
        else:
            trace_batch(paths, sys.stdout, dynamic=args.dynamic, decompose=args.decompose)
    except FrontendError as e:
        print(str(e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
