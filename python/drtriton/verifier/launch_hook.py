"""Count Triton kernel launches, skip chosen kernels (the no-op test), or compile them only
(a dry forward: the judge's precompile).

Every host launch `kernel[grid](...)` ends in `run(self, *args, grid, warmup, **kw)` on
the kernel object: `triton.runtime.jit.JITFunction` when compiled,
`triton.runtime.interpreter.InterpretedFunction` under TRITON_INTERPRET=1. Autotuner and
Heuristics wrappers forward to the inner kernel's `run`, so wrapping `run` on those two
classes sees every launch, in Triton 3.0 through 3.9 alike (the keyword names `grid` and
`warmup` are the only part of the signature relied upon). Calls of one jit function from
another are inlined by the compiler and never reach `run`: they are not launches.

A kernel is identified by its Python function's code object (file, first line, name),
so a kernel object re-created at run time still counts as the same kernel.

Torch ops issued inside a launch are Triton's (the interpreter copies arguments), except
those of the launch's grid function, which is the candidate's code: it runs with the op
recorder on (`depth` drops back while it runs), so work hidden there is seen. A skipped
(no-op) launch does not evaluate its grid. A dry launch is Triton's own `warmup`: the kernel
is compiled for these arguments (in Triton's AsyncCompileMode, handed to its executor) and
nothing runs.
"""

from __future__ import annotations

import collections
import contextlib

_STATE = {
    "watching": False,                # inside counting(): count, skip no-op'd kernels, call `around`
    "counts": collections.Counter(),  # (file, firstline, name) -> launches
    "noop": set(),                    # keys whose launches are skipped
    "dry": False,                     # launches only compile (warmup), nothing runs
    "depth": 0,                       # > 0 while inside a launch (torch ops there are Triton's)
    "enter": None, "exit": None,      # called around every real launch (sandbox suspension)
    "around": None,                   # (before, after) called around watched launches (timing)
}
_INSTALLED = []


def kernel_key(kernel) -> tuple | None:
    fn = getattr(kernel, "fn", None)
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return (code.co_filename, code.co_firstlineno, code.co_name)


def _wrap(original):
    # Timed runs take the first branch: one dict lookup on top of Triton's own launch path.
    def run(self, *args, **kwargs):
        state = _STATE
        enter, leave = state["enter"], state["exit"]
        if not state["watching"] or kwargs.get("warmup", False):
            if enter is None:
                return original(self, *args, **kwargs)
            enter()
            try:
                return original(self, *args, **kwargs)
            finally:
                leave()
        key = kernel_key(self)
        state["counts"][key] += 1
        if key in state["noop"]:
            return None
        if state["dry"]:
            kwargs["warmup"] = True
        if callable(kwargs.get("grid")):
            kwargs["grid"] = _candidate_code(kwargs["grid"])
        around = state["around"]
        state["depth"] += 1
        if enter is not None:
            enter()
        if around is not None:
            around[0](key)
        try:
            return original(self, *args, **kwargs)
        finally:
            if around is not None:
                around[1](key)
            if enter is not None:
                leave()
            state["depth"] -= 1

    run.__drtriton_hook__ = True
    run.__wrapped_run__ = original
    return run


def _candidate_code(grid):
    """The grid function, run as the candidate's own code: torch ops recorded, and the
    sandbox's suspension for Triton's compiler (`enter`/`exit`) lifted while it runs."""
    def grid_fn(*args, **kwargs):
        depth, suspend, resume = _STATE["depth"], _STATE["enter"], _STATE["exit"]
        _STATE["depth"] = 0
        if resume is not None:
            resume()
        try:
            return grid(*args, **kwargs)
        finally:
            if suspend is not None:
                suspend()
            _STATE["depth"] = depth
    return grid_fn


def install():
    """Wrap `run` on Triton's kernel classes (idempotent). Returns the wrapped classes."""
    if _INSTALLED:
        return list(_INSTALLED)
    classes = []
    from triton.runtime.jit import JITFunction
    classes.append(JITFunction)
    try:
        from triton.runtime.interpreter import InterpretedFunction
        classes.append(InterpretedFunction)
    except ImportError:  # very old Triton: no interpreter class
        pass
    for cls in classes:
        if not getattr(cls.run, "__drtriton_hook__", False):
            cls.run = _wrap(cls.run)
        _INSTALLED.append(cls)
    return list(_INSTALLED)


def hooked_runs():
    """(class, attribute value) pairs the tamper check compares after candidate code ran."""
    return [(cls, "run", cls.__dict__["run"]) for cls in _INSTALLED]


def in_launch() -> bool:
    return _STATE["depth"] > 0


def set_launch_context(enter, leave):
    """Plain callables run before and after every real launch (None, None: nothing)."""
    _STATE["enter"], _STATE["exit"] = enter, leave


@contextlib.contextmanager
def counting(noop=(), around=None, dry=False):
    """Count launches inside the block; launches of kernels whose key is in `noop` are skipped;
    `around` = (before(key), after(key)) is called around every launch that does run; `dry`:
    every launch only compiles its kernel."""
    counts = collections.Counter()
    names = ("watching", "counts", "noop", "around", "dry")
    previous = tuple(_STATE[name] for name in names)
    _STATE.update(zip(names, (True, counts, set(noop), around, dry)))
    try:
        yield counts
    finally:
        _STATE.update(zip(names, previous))
        _STATE["depth"] = 0
