"""Compose verified fragment solutions into one solution of the whole program.

Test-time search splits a program into fragments (short runs of operators) and finds a
verified Triton solution for each; this module makes ONE solution file of them. Each
fragment's Model uses the whole program's submodule names (`self.conv`, `self.bn`), so
its forward runs unchanged with the whole program's module as `self`.

The composed file takes from `base` (a solution of the whole program) its imports and
`ModelNew` with only `__init__`, so that it builds exactly the whole program's parameters
and buffers, plus the module-level definitions `__init__` needs; base's forward and
kernels are dropped. From each step k's fragment solution it takes the imports (hoisted,
deduplicated) and the top-level definitions its forward needs, every top-level name
renamed `_f{k}_<name>` (two fragments' `_tile` or `k0_relu` cannot clash), and its
`ModelNew.forward` as a plain function `_f{k}_forward(self, ...)`: the fragment's class
itself is not emitted, since a second nn.Module would only have to be kept from
registering anything. The composed `ModelNew.forward` calls the steps in order.

Spec (JSON): {"base": src, "inputs": [names], "outputs": [names],
              "steps": [{"source": src, "inputs": [names], "outputs": [names]}, ...]}

    compose(spec) -> str  (raises ComposeError)
    python -m drtriton.compose SPEC.json -o OUT.py
"""

import argparse
import ast
import json
import keyword
import os
import sys
import tempfile

# Decorators that make a top-level function a Triton kernel (base's kernels are dropped).
KERNEL_DECORATORS = {"jit", "autotune", "heuristics"}


class ComposeError(Exception):
    pass


def _parse(source, where):
    if not isinstance(source, str):
        raise ComposeError(f"{where}: source is not a string")
    try:
        return ast.parse(source)
    except SyntaxError as e:
        raise ComposeError(f"{where}: source does not parse (line {e.lineno}: {e.msg})") from None


def _model_new(tree, where):
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew"), None)
    if cls is None:
        raise ComposeError(f"{where}: no class ModelNew")
    return cls


def _method(cls, name):
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _defined(node):
    """Names a top-level statement binds (imports excepted)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else \
        [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _used(nodes):
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}


def _needed(roots, candidates):
    """The candidates (top-level definitions) that the roots reach, in file order: a
    fixpoint, since a kept helper may name another."""
    kept, used = [], _used(roots)
    while True:
        more = [c for c in candidates if c not in kept and _defined(c) & used]
        if not more:
            return [c for c in candidates if c in kept]
        kept += more
        used |= _used(more)


def _is_kernel(node):
    for dec in getattr(node, "decorator_list", []):
        target = dec.func if isinstance(dec, ast.Call) else dec  # @triton.autotune(...)
        if getattr(target, "attr", getattr(target, "id", None)) in KERNEL_DECORATORS:
            return True
    return False


class _Rename(ast.NodeTransformer):
    """Renames the Name nodes of a fragment's top-level definitions, except inside a
    function whose parameters shadow them (a kernel's `BLOCK` argument stays `BLOCK`, so
    keyword launches still match). Attributes (`self.conv`, `tl.load`) are not names."""

    def __init__(self, names, prefix):
        self.names, self.prefix, self.shadowed = names, prefix, set()

    def visit_Name(self, node):
        if node.id in self.names and node.id not in self.shadowed:
            node.id = self.prefix + node.id
        return node

    def _scope(self, node):
        # Decorators and default values are evaluated outside the function's scope.
        for child in getattr(node, "decorator_list", []) + node.args.defaults + \
                [d for d in node.args.kw_defaults if d is not None]:
            self.visit(child)
        a = node.args
        params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p}
        outer, self.shadowed = self.shadowed, self.shadowed | params
        for child in node.body if isinstance(node.body, list) else [node.body]:
            self.visit(child)
        self.shadowed = outer
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _scope


class _Imports:
    """Imports in first-seen order, one name per statement, deduplicated; two imports that
    bind one name to different things are an error (they would silently shadow)."""

    def __init__(self):
        self.nodes, self.seen, self.bound = [], set(), {}

    def add(self, node, where):
        for a in node.names:
            if isinstance(node, ast.Import):
                one = ast.Import(names=[ast.alias(a.name, a.asname)])
                name, what = (a.asname, a.name) if a.asname else (a.name.split(".")[0],) * 2
            else:
                one = ast.ImportFrom(node.module, [ast.alias(a.name, a.asname)], node.level)
                name, what = a.asname or a.name, f"{'.' * node.level}{node.module or ''}.{a.name}"
            if self.bound.setdefault(name, what) != what:
                raise ComposeError(f"{where}: `{ast.unparse(one)}` binds {name}, "
                                   f"already imported as {self.bound[name]}")
            text = ast.unparse(one)
            if text not in self.seen:
                self.seen.add(text)
                self.nodes.append(one)

    def ordered(self):
        # `from __future__` must come first in a file.
        return sorted(self.nodes, key=lambda n: getattr(n, "module", None) != "__future__")


def _check_names(names, where, what):
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ComposeError(f"{where}: {what} must be a list of names")
    for n in names:
        # `_f...` is the fragments' namespace; `self` is forward's first parameter.
        if not n.isidentifier() or keyword.iskeyword(n) or n.startswith("_f") or n == "self":
            raise ComposeError(f"{where}: {what} name {n!r} is not a usable variable name")


def _base(spec, imports):
    tree = _parse(spec.get("base"), "base")
    cls = _model_new(tree, "base")
    init = _method(cls, "__init__")
    if init is None:
        raise ComposeError("base: ModelNew has no __init__")
    # Only __init__: the composed forward replaces base's, and the model must build
    # exactly what the whole program builds.
    cls.body = [init]
    body = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.add(node, "base")
        elif node is not cls and _defined(node) and not _is_kernel(node):
            body.append(node)
    return _needed([cls], body) + [cls]


def _step(k, step, imports):
    where = f"step {k}"
    tree = _parse(step.get("source"), where)
    cls = _model_new(tree, where)
    forward = _method(cls, "forward")
    if forward is None:
        raise ComposeError(f"{where}: ModelNew has no forward")
    # Its forward runs with the composed model as self, which has no other methods.
    extra = [ast.unparse(n).split("\n")[0] for n in cls.body if not (
        isinstance(n, ast.FunctionDef) and n.name in ("__init__", "forward")
        or isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    if extra:
        raise ComposeError(f"{where}: ModelNew has more than __init__ and forward ({extra[0]})")
    n_params = len(forward.args.posonlyargs + forward.args.args) - 1
    if n_params != len(step["inputs"]):
        raise ComposeError(f"{where}: ModelNew.forward takes {n_params} inputs, "
                           f"the step gives {len(step['inputs'])}")
    prefix = f"_f{k}_"
    defs = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.add(node, where)
        elif _defined(node) and not (isinstance(node, ast.ClassDef) and node.name == "ModelNew"):
            defs.append(node)
    names = set().union(*map(_defined, defs))
    kept = _needed([forward], defs)
    renamer = _Rename(names, prefix)
    for node in kept + [forward]:
        renamer.visit(node)
        if hasattr(node, "name"):  # a def's own name (not a method's: those are attributes)
            node.name = prefix + node.name
    return kept + [forward]


def _forward(spec):
    inputs, steps = spec.get("inputs"), spec.get("steps")
    _check_names(inputs, "spec", "inputs")
    if len(set(inputs)) != len(inputs):
        raise ComposeError("spec: an input name is given twice")
    _check_names(spec.get("outputs"), "spec", "outputs")
    if not isinstance(steps, list) or not steps:
        raise ComposeError("spec: steps must be a non-empty list")
    known, lines = set(inputs), []
    for k, step in enumerate(steps):
        where = f"step {k}"
        if not isinstance(step, dict):
            raise ComposeError(f"{where}: not an object")
        _check_names(step.get("inputs"), where, "inputs")
        _check_names(step.get("outputs"), where, "outputs")
        if not step["outputs"]:
            raise ComposeError(f"{where}: no outputs")
        missing = [n for n in step["inputs"] if n not in known]
        if missing:
            raise ComposeError(f"{where}: input {missing[0]} is neither a forward input "
                               f"nor an output of an earlier step")
        known |= set(step["outputs"])
        args = ", ".join(["self"] + step["inputs"])
        lines.append(f"{', '.join(step['outputs'])} = _f{k}_forward({args})")
    outputs = spec["outputs"]
    if not outputs:
        raise ComposeError("spec: no outputs")
    missing = [n for n in outputs if n not in known]
    if missing:
        raise ComposeError(f"spec: output {missing[0]} is computed by no step")
    lines.append(f"return {outputs[0]}" if len(outputs) == 1 else f"return ({', '.join(outputs)})")
    body = "\n".join("    " + line for line in lines)
    return ast.parse(f"def forward(self, {', '.join(inputs)}):\n{body}").body[0]


def compose(spec) -> str:
    if not isinstance(spec, dict):
        raise ComposeError("spec: not a JSON object")
    forward = _forward(spec)  # checks the names and the data flow before any source
    imports = _Imports()
    base = _base(spec, imports)
    fragments = [_step(k, step, imports) for k, step in enumerate(spec["steps"])]
    base[-1].body.append(forward)

    header = [f"# Composed by drtriton search from {len(fragments)} fragment solutions;",
              "# ModelNew.__init__ is the whole program's, each step's code is renamed _f<k>_*.",
              *(f"#   step {k}: {', '.join(s['outputs'])} = _f{k}_forward({', '.join(['self'] + s['inputs'])})"
                for k, s in enumerate(spec["steps"]))]
    text = "\n".join(header + [ast.unparse(n) for n in imports.ordered()])
    after_simple = False
    for node in [n for part in fragments + [base] for n in part]:
        # Two blank lines around definitions; consecutive constants stay together.
        simple = not hasattr(node, "name")
        text += ("\n" if simple and after_simple else "\n\n\n") + ast.unparse(node)
        after_simple = simple
    return text + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m drtriton.compose", description=__doc__.split("\n")[0])
    parser.add_argument("spec", help="JSON spec: base, inputs, outputs, steps")
    parser.add_argument("-o", "--output", help="composed solution (default: stdout)")
    args = parser.parse_args(argv)
    try:
        with open(args.spec) as f:
            text = compose(json.load(f))
        if not args.output:
            sys.stdout.write(text)
            return 0
        # Temp file in the same folder, then rename: a reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.output)), suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, args.output)
        return 0
    except (OSError, ValueError, ComposeError) as e:
        print(f"drtriton compose: {args.spec}: {e}", file=sys.stderr)
        return 1

if __name__ == "__main__":
    sys.exit(main())
