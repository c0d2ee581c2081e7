"""Static checks: read the candidate's source with `ast`, run nothing, list the known cheats.

docs/verifier.md, Static. Every rule here names a way a judge was fooled before: a
fallback to the reference behind try/except, subclassing or calling `Model`, work on
other streams or threads, state kept across calls in module-level caches, patched
timers, tensor subclasses that defer work, reduced precision, and reaching the
network or the file system. Names are resolved through the file's imports, so
`import torch as T; T.cuda.Stream()` is seen as `torch.cuda.Stream`.

The checks are a filter against known cheats, not a sandbox: the worker's runtime
guards, the dynamic checks and the C++ side's process isolation come after them.

    check_candidate(source, task) -> CandidateReport
    analyze_task(source) -> TaskInfo
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

# The modules a candidate may import (and their submodules). A candidate needs torch and
# triton; the rest is plain arithmetic and containers. Everything else (os, sys, numpy,
# ctypes, traceback, drtriton's own modules, ...) is refused: an allow-list, since a
# list of what is forbidden always leaks.
ALLOWED_IMPORTS = {"torch", "triton", "math", "typing", "functools", "itertools", "operator",
                   "collections", "dataclasses", "enum", "numbers", "abc", "random", "__future__"}

# Modules that must not be reached through another module's attribute either
# (torch.os.system, torch.sys.modules, triton.runtime.jit.inspect, ...).
FORBIDDEN_MODULES = {"os", "sys", "io", "_io", "builtins", "importlib", "ctypes", "_ctypes", "gc",
                     "inspect", "subprocess", "socket", "_socket", "traceback", "linecache",
                     "shutil", "tempfile", "pathlib", "pickle", "marshal", "threading", "_thread",
                     "multiprocessing", "signal", "numpy", "np", "sqlite3", "types", "code",
                     "codeop", "drtriton", "faulthandler", "resource", "mmap", "fcntl", "posix"}

# Prefixes of resolved dotted names (module paths and attributes) that are refused
# wherever they appear, with the rule name and the reason a reader sees.
BANNED_PREFIXES = [
    (("torch.multiprocessing",), "threads", "starts threads or processes ({name})"),
    (("torch.save", "torch.serialization", "torch.load", "torch.from_file"),
     "file", "file system access ({name})"),
    (("torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.ExternalStream",
      "torch.cuda.set_stream", "torch.cuda.StreamContext", "torch.cuda.streams",
      "torch.Stream", "torch.cuda.CUDAGraph", "torch.cuda.graph", "torch.cuda.graphs",
      "torch.cuda.make_graphed_callables"), "streams", "uses extra CUDA streams or graphs ({name})"),
    (("torch.cuda.Event", "torch.Event", "torch.cuda.Event", "triton.testing", "torch.cuda._sleep",
      "torch.cuda.synchronize", "torch.cuda.current_stream", "torch.cuda.default_stream"),
     "clock", "measures or steers time on the GPU ({name}): timed runs must look like checked ones"),
    (("functools.cache", "functools.lru_cache", "functools.cached_property"),
     "cache", "caches results across calls ({name})"),
    (("operator.attrgetter", "operator.methodcaller"), "dynamic",
     "dynamic attribute access ({name})"),
    (("torch.overrides", "torch.utils._python_dispatch", "torch._C", "torch.library", "torch.ops",
      "torch._ops", "torch._dynamo", "torch._inductor", "torch.compile", "torch.jit",
      "torch.utils.deterministic", "torch.use_deterministic_algorithms", "torch.fx",
      "torch.export", "torch.set_default_dtype", "torch.set_default_tensor_type",
      "torch.set_flush_denormal", "torch.utils.dlpack", "torch.from_numpy", "torch.frombuffer",
      "torch.autograd.graph", "torch.utils.hooks", "torch._utils"),
     "torch_internals", "changes how torch dispatches or compiles ({name})"),
]

# Bare builtins that run code, reach objects the candidate was not given, or read files.
# Refused outright, also where the file binds the name itself (binding it is refused too).
BANNED_BUILTINS = {
    "eval": "dynamic code (eval)", "exec": "dynamic code (exec)", "compile": "dynamic code (compile)",
    "__import__": "dynamic import (__import__)", "globals": "introspection (globals)",
    "locals": "introspection (locals)", "vars": "introspection (vars)", "breakpoint": "debugger (breakpoint)",
    "open": "file system access (open)", "memoryview": "reads tensor memory on the host (memoryview)",
    "exit": "process control (exit)", "quit": "process control (quit)",
}
# Builtins refused only where the file does not bind the name itself: `input` is a common
# parameter name, and the builtin only reads stdin (which is /dev/null in a worker).
SHADOWABLE_BUILTINS = {"input": "reads stdin (input)"}
# Builtins of attribute access by name: only with a constant name, or on `self`.
NAMED_ACCESS = {"getattr", "hasattr", "setattr", "delattr"}

# Attributes that lead from an object to frames, globals, classes or code. Every other
# dunder attribute is refused too (DUNDER_ALLOWED lists the exceptions).
INTROSPECTION_ATTRS = {
    "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_lineno", "gi_frame", "gi_code",
    "cr_frame", "cr_code", "ag_frame", "tb_frame", "tb_next", "co_name", "co_filename", "co_code",
    "co_consts",
}
DUNDER_ALLOWED = {"__init__"}
DUNDER_NAMES_ALLOWED = {"__name__", "__file__", "__doc__"}

# Reading a tensor's data on the host, where no dispatch mode sees the work done with it.
HOST_DATA_ATTRS = {"numpy", "tolist", "item", "from_numpy", "tobytes", "untyped_storage",
                   "storage", "_typed_storage", "to_dlpack", "from_dlpack", "frombuffer"}

SUBCLASS_NAMES = {"__torch_function__", "__torch_dispatch__", "_make_subclass",
                  "_make_wrapper_subclass", "TorchDispatchMode", "TorchFunctionMode"}

TENSOR_BASES = {"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter",
                "torch._C.TensorBase", "torch._C._TensorBase"}

# Reduced precision, refused only when the task itself is fp32.
HALF_PREFIXES = ("torch.float16", "torch.half", "torch.bfloat16", "torch.float8",
                 "torch.autocast", "torch.amp", "torch.cuda.amp", "torch.cpu.amp",
                 "torch.cuda.HalfTensor", "torch.cuda.BFloat16Tensor", "torch.HalfTensor",
                 "torch.BFloat16Tensor", "triton.language.float16", "triton.language.bfloat16",
                 "triton.language.float8", "triton.language.fp8", "triton.language.fp16")
HALF_METHODS = {"half", "bfloat16"}
HALF_STRINGS = {"float16", "half", "bfloat16", "fp16", "bf16", "tf32", "bf16x3", "bf16x6"}
TF32_FLAGS = {"allow_tf32", "allow_fp16_reduced_precision_reduction",
              "allow_bf16_reduced_precision_reduction",
              "round_f32_to_tf32"}  # a TMA TensorDescriptor's: rounds what it copies
# A TensorDescriptor's constructors and where round_f32_to_tf32 stands among their
# positional arguments: passed there, or through **, it is refused as its keyword is.
DESCRIPTOR_ROUNDING_ARG = {"TensorDescriptor": 5, "TensorDescriptor.from_tensor": 3}
# input_precision values of tl.dot that keep fp32 accuracy.
FP32_PRECISIONS = {"ieee", "tf32x3"}

MUTATING_METHODS = {"append", "extend", "insert", "update", "setdefault", "add", "pop",
                    "popitem", "clear", "remove", "discard", "__setitem__", "appendleft",
                    "extendleft", "sort", "reverse"}
CONTAINER_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter",
                   "WeakKeyDictionary", "WeakValueDictionary", "collections.defaultdict",
                   "collections.OrderedDict", "collections.deque", "collections.Counter",
                   "weakref.WeakKeyDictionary", "weakref.WeakValueDictionary"}
WRITE_MODE_CHARS = set("wax+")
FORMAT_FIELD_ACCESS = re.compile(r"\{[^{}]*[.\[][^{}]*\}")


@dataclass
class Violation:
    line: int
    rule: str
    message: str

    def as_json(self):
        return {"line": self.line, "rule": self.rule, "message": self.message}


@dataclass
class Kernel:
    """A @triton.jit function. `line` is co_firstlineno: the first decorator's line."""
    name: str
    line: int
    host_launched: bool = True                   # named by host code (launched there)
    callees: set = field(default_factory=set)    # names its body calls or passes on


@dataclass
class InitSignature:
    params: list  # [(kind, name, default source or None)]

    def describe(self, cls):
        parts = ["self"]
        for kind, name, default in self.params:
            prefix = {"vararg": "*", "kwarg": "**"}.get(kind, "")
            parts.append(prefix + name + (f"={default}" if default is not None else ""))
        return f"{cls}.__init__({', '.join(parts)})"


@dataclass
class TaskInfo:
    init: InitSignature | None
    fp32: bool                   # no half/bfloat16 anywhere in the task
    error: str | None = None


@dataclass
class CandidateReport:
    violations: list = field(default_factory=list)
    kernels: list = field(default_factory=list)
    error: str | None = None     # syntax error: nothing else was checked


def _init_signature(tree, class_name):
    """The __init__ signature of a module-level class, following module-level bases."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for node in tree.body:  # ModelNew = SomeClass
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == class_name
                and isinstance(node.value, ast.Name) and node.value.id in classes):
            classes[class_name] = classes[node.value.id]
    seen = set()
    cls = classes.get(class_name)
    while cls is not None and cls.name not in seen:
        seen.add(cls.name)
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                return _signature_of(item.args)
        base = next((b.id for b in cls.bases if isinstance(b, ast.Name) and b.id in classes), None)
        cls = classes.get(base) if base else None
    return InitSignature([]) if class_name in classes else None


def _signature_of(args: ast.arguments):
    params = []
    positional = list(args.posonlyargs) + list(args.args)
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        if i == 0:
            continue  # self
        kind = "posonly" if arg in args.posonlyargs else "arg"
        params.append((kind, arg.arg, ast.unparse(default) if default is not None else None))
    if args.vararg:
        params.append(("vararg", args.vararg.arg, None))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        params.append(("kwonly", arg.arg, ast.unparse(default) if default is not None else None))
    if args.kwarg:
        params.append(("kwarg", args.kwarg.arg, None))
    return InitSignature(params)


def analyze_task(source: str) -> TaskInfo:
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return TaskInfo(None, True, error=f"task: syntax error at line {e.lineno}: {e.msg}")
    init = _init_signature(tree, "Model")
    if init is None:
        return TaskInfo(None, True, error="task: no class Model")
    half = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("float16", "half", "bfloat16"):
            half = True
        if isinstance(node, ast.Constant) and node.value in ("float16", "bfloat16", "half"):
            half = True
    return TaskInfo(init, not half)


class _Checker(ast.NodeVisitor):
    def __init__(self, tree, task: TaskInfo):
        self.tree = tree
        self.task = task
        self.violations: list[Violation] = []
        self._seen = set()
        self.aliases = {}          # local name -> dotted module path it was imported as
        self.module_names = set()  # names bound at module level (defs, classes, assignments)
        self.module_containers = set()
        self.module_strings = {}
        self.defined_names = set()  # every name the file binds anywhere
        self.function_depth = 0
        self.jit_depth = 0
        self.called_names = set()  # ids of Name nodes that are the callee of a call
        self.jit_functions = {}     # name -> Kernel
        self.device_calls = set()   # names called or passed on from inside jit functions
        self.host_refs = set()      # jit names used outside jit bodies (launch, autotune, ...)
        self.callees = {}           # jit name -> names its body calls or passes on
        self.current_jit = None
        self._collect()

    # ---- first pass: imports and module-level bindings
    def _collect(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    top = a.name.split(".")[0]
                    self.aliases[a.asname or top] = a.name if a.asname else top
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defined_names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.defined_names.add(node.id)
            elif isinstance(node, ast.arg):
                self.defined_names.add(node.arg)
        for node in self.tree.body:
            targets = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.module_names.add(node.name)
            elif isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            for t in targets:
                for name in ast.walk(t):
                    if isinstance(name, ast.Name):
                        self.module_names.add(name.id)
                        value = getattr(node, "value", None)
                        if self._is_container(value):
                            self.module_containers.add(name.id)
                        if isinstance(value, ast.Constant) and isinstance(value.value, str):
                            self.module_strings[name.id] = value.value

    def _is_container(self, value):
        if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
            return True
        if isinstance(value, ast.Call):
            name = self.resolve(value.func)
            return name in CONTAINER_CALLS or (name or "").split(".")[-1] in CONTAINER_CALLS
        return False

    # ---- helpers
    def flag(self, node, rule, message):
        key = (getattr(node, "lineno", 0), rule, message)
        if key not in self._seen:
            self._seen.add(key)
            self.violations.append(Violation(key[0], rule, message))

    def resolve(self, node):
        """Dotted name of a Name/Attribute chain with the import alias substituted, else None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        root = self.aliases.get(node.id, node.id)
        return ".".join([root] + parts[::-1])

    def root_name(self, node):
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    def check_dotted(self, node, name):
        parts = name.split(".")
        if parts[0] not in ALLOWED_IMPORTS and parts[0] in FORBIDDEN_MODULES:
            self.flag(node, "module", f"uses the module {parts[0]} ({name})")
            return
        reached = next((p for p in parts[1:] if p in FORBIDDEN_MODULES), None)
        if reached:
            self.flag(node, "module", f"reaches the module {reached} through {name}")
            return
        for prefixes, rule, message in BANNED_PREFIXES:
            for p in prefixes:
                # os.exec and os.spawn are families (execv, spawnlp, ...): prefixes of a name
                family = p.endswith(("exec", "spawn")) and name.startswith(p)
                if name == p or name.startswith(p + ".") or family:
                    self.flag(node, rule, message.format(name=name))
                    return
        if self.task.fp32 and any(name == p or name.startswith(p + ".") or name.startswith(p)
                                  for p in HALF_PREFIXES):
            self.flag(node, "precision", f"reduced precision in an fp32 task ({name})")
        if name.split(".")[-1] in SUBCLASS_NAMES:
            self.flag(node, "tensor_subclass", f"tensor subclass or dispatch mode ({name})")

    def is_jit_decorator(self, dec):
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = self.resolve(target) or ""
        return name.startswith("triton") and name.split(".")[-1] == "jit"

    # ---- imports
    def check_import(self, node, module):
        top = module.split(".")[0]
        if top not in ALLOWED_IMPORTS:
            self.flag(node, "import", f"imports {module} (a candidate may import only "
                                      f"{', '.join(sorted(ALLOWED_IMPORTS - {'__future__'}))})")
            return
        self.check_dotted(node, module)

    def visit_Import(self, node):
        for a in node.names:
            self.check_import(node, a.name)

    def visit_ImportFrom(self, node):
        if node.level:
            self.flag(node, "import", "relative import")
        elif node.module:
            self.check_import(node, node.module)
            for a in node.names:
                if a.name == "*":
                    self.flag(node, "import", f"from {node.module} import *")
                else:
                    self.check_dotted(node, f"{node.module}.{a.name}")
        self.generic_visit(node)

    # ---- structure
    def visit_Try(self, node):
        self.flag(node, "try_except", "try/except (a fallback path can hide a failing kernel)")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_Global(self, node):
        names = ", ".join(node.names)
        self.flag(node, "cache", f"global statement ({names}): module state written at run time")

    def visit_Nonlocal(self, node):
        self.flag(node, "cache", f"nonlocal statement ({', '.join(node.names)}): state kept across calls")

    def visit_ClassDef(self, node):
        for base in node.bases:
            name = self.resolve(base) or ""
            if name.split(".")[-1] == "Model":
                self.flag(node, "reference", f"class {node.name} subclasses the reference Model")
            if name in TENSOR_BASES or name.split(".")[-1] in ("Tensor", "Parameter"):
                self.flag(node, "tensor_subclass", f"class {node.name} subclasses {name}")
        if node.name == "Model":
            self.flag(node, "reference", "defines a class named Model (the reference)")
        self.function_depth += 1
        self.generic_visit(node)
        self.function_depth -= 1

    def visit_FunctionDef(self, node):
        if node.name in SUBCLASS_NAMES:
            self.flag(node, "tensor_subclass", f"defines {node.name} (tensor subclass or dispatch mode)")
        if node.name in BANNED_BUILTINS or node.name in NAMED_ACCESS:
            self.flag(node, "dynamic", f"defines a function named {node.name}")
        is_jit = any(self.is_jit_decorator(d) for d in node.decorator_list)
        if is_jit:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            self.jit_functions[node.name] = Kernel(node.name, first)
        for d in node.decorator_list:
            self.visit(d)
        self.function_depth += 1
        self.jit_depth += is_jit
        outer_jit = self.current_jit
        if is_jit:
            self.current_jit = node.name
        for child in [node.args] + node.body + ([node.returns] if node.returns else []):
            self.visit(child)
        self.current_jit = outer_jit
        self.jit_depth -= is_jit
        self.function_depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self.function_depth += 1
        self.generic_visit(node)
        self.function_depth -= 1

    # ---- names
    def visit_Name(self, node):
        if node.id == "Model":
            self.flag(node, "reference", "names the reference Model")
        if node.id in BANNED_BUILTINS:
            self.flag(node, "dynamic", BANNED_BUILTINS[node.id])
        if node.id in SHADOWABLE_BUILTINS and node.id not in self.defined_names:
            self.flag(node, "dynamic", SHADOWABLE_BUILTINS[node.id])
        if node.id in NAMED_ACCESS and id(node) not in self.called_names:
            self.flag(node, "dynamic", f"{node.id} used as a value (attribute access by name)")
        if node.id.startswith("__") and node.id.endswith("__") and node.id not in DUNDER_NAMES_ALLOWED:
            self.flag(node, "introspection", f"reaches into the interpreter ({node.id})")
        if "determinis" in node.id.lower():
            self.flag(node, "introspection", f"reads the verifier's determinism switches ({node.id})")
        if node.id in SUBCLASS_NAMES:
            self.flag(node, "tensor_subclass", f"tensor subclass or dispatch mode ({node.id})")
        if node.id in self.aliases:
            self.check_dotted(node, self.aliases[node.id])
        if self.jit_depth == 0 and isinstance(node.ctx, ast.Load):
            self.host_refs.add(node.id)
        elif self.jit_depth > 0 and isinstance(node.ctx, ast.Load):
            # A jit function passed to another inside a kernel (tl.reduce's combine_fn,
            # tl.associative_scan's) runs as device code, like one it calls.
            self.device_calls.add(node.id)
            if self.current_jit and node.id != self.current_jit:
                self.callees.setdefault(self.current_jit, set()).add(node.id)

    def visit_Attribute(self, node):
        if node.attr == "Model":
            self.flag(node, "reference", "names the reference Model")
        self.check_attr_name(node, node.attr)
        if node.attr in SUBCLASS_NAMES:
            self.flag(node, "tensor_subclass", f"tensor subclass or dispatch mode ({node.attr})")
        if node.attr in TF32_FLAGS and isinstance(node.ctx, ast.Store) and self.task.fp32:
            self.flag(node, "precision", f"sets {node.attr} (reduced precision in an fp32 task)")
        name = self.resolve(node)
        if name and self.root_name(node) in self.aliases:
            self.check_dotted(node, name)
        self.generic_visit(node)

    def check_attr_name(self, node, attr):
        """Rules on an attribute's name, whatever it is read from (x.attr, getattr(x, "attr"))."""
        if attr in INTROSPECTION_ATTRS or (attr.startswith("__") and attr.endswith("__")
                                           and attr not in DUNDER_ALLOWED):
            self.flag(node, "introspection", f"reaches into the interpreter ({attr})")
        if attr in HOST_DATA_ATTRS:
            self.flag(node, "host_data", f"reads tensor data on the host (.{attr}): "
                                         f"work done there is not seen")
        if "determinis" in attr.lower():
            self.flag(node, "introspection", f"reads the verifier's determinism switches ({attr})")
        if attr in FORBIDDEN_MODULES and attr not in ALLOWED_IMPORTS:
            self.flag(node, "module", f"reaches the module {attr} through an attribute")

    def visit_Constant(self, node):
        if isinstance(node.value, str) and "determinis" in node.value.lower():
            self.flag(node, "introspection", "names the verifier's determinism switches (as a string)")
        if isinstance(node.value, str):
            if node.value == "Model":
                self.flag(node, "reference", "names the reference Model (as a string)")
            if self.task.fp32 and node.value in HALF_STRINGS:
                self.flag(node, "precision", f"reduced precision in an fp32 task ('{node.value}')")

    # ---- stores: monkeypatching and module-level caches
    def _check_store(self, target, node):
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._check_store(t, node)
            return
        if isinstance(target, ast.Starred):
            return self._check_store(target.value, node)
        if not isinstance(target, (ast.Attribute, ast.Subscript)):
            return
        root = self.root_name(target)
        dotted = self.resolve(target.value if isinstance(target, ast.Subscript) else target)
        if root in self.aliases:
            what = dotted or ast.unparse(target)
            if what.startswith("os.environ"):
                self.flag(node, "file", "changes the environment (os.environ)")
            else:
                self.flag(node, "monkeypatch", f"monkeypatches {what}")
        elif root in self.module_names and self.function_depth > 0:
            self.flag(node, "cache", f"module-level state {ast.unparse(target)} written at run time")
        elif root is None and isinstance(target, ast.Attribute):
            # type(self).x = ..., f().y = ...: assignments whose owner is computed.
            self.flag(node, "monkeypatch", f"assigns to a computed object ({ast.unparse(target)})")

    def visit_Assign(self, node):
        for t in node.targets:
            self._check_store(t, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._check_store(node.target, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self._check_store(node.target, node)
        self.generic_visit(node)

    def visit_Delete(self, node):
        for t in node.targets:
            self._check_store(t, node)
        self.generic_visit(node)

    def visit_Subscript(self, node):
        # kernel[grid](...) is a host launch.
        if isinstance(node.value, ast.Name) and self.jit_depth == 0:
            self.host_refs.add(node.value.id)
        self.generic_visit(node)

    # ---- calls
    def visit_Call(self, node):
        name = self.resolve(node.func) or ""
        short = name.split(".")[-1]
        if self.jit_depth > 0 and isinstance(node.func, (ast.Name, ast.Attribute)):
            self.device_calls.add(node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
        # open(..., "w") and friends
        if name in ("open", "io.open", "codecs.open"):
            mode = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "mode"), None)
            if mode is not None:
                if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
                    self.flag(node, "file", "open() with a mode that is not a constant")
                elif WRITE_MODE_CHARS & set(mode.value):
                    self.flag(node, "file", f"open() for writing (mode {mode.value!r})")
        if short in ("write_text", "write_bytes", "tofile", "symlink_to", "unlink", "rmdir", "mkdir"):
            self.flag(node, "file", f"file system access (.{short})")
        if isinstance(node.func, ast.Name) and node.func.id in NAMED_ACCESS:
            self.called_names.add(id(node.func))
            owner = node.args[0] if node.args else None
            on_self = isinstance(owner, ast.Name) and owner.id == "self"
            attr = node.args[1] if len(node.args) > 1 else None
            if isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                self.check_attr_name(node, attr.value)
            elif not on_self:
                self.flag(node, "dynamic", f"{node.func.id}() with a computed attribute name")
            if node.func.id in ("setattr", "delattr") and not on_self:
                self.flag(node, "monkeypatch", f"{node.func.id}() on {ast.unparse(owner) if owner else '?'}")
        if isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) > 1:
            self.flag(node, "dynamic", "type() with three arguments (a class made at run time)")
        if (isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "format_map")
                and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)
                and FORMAT_FIELD_ACCESS.search(node.func.value.value)):
            self.flag(node, "dynamic", "a format string that reads attributes or items")
        # mutating a module-level container from inside a function
        if (isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS
                and self.function_depth > 0):
            root = self.root_name(node.func.value)
            if root in self.module_names and root not in self.aliases:
                self.flag(node, "cache", f"module-level {root} mutated at run time (.{node.func.attr})")
            elif isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "environ":
                self.flag(node, "file", "changes the environment (os.environ)")
        if self.task.fp32:
            if isinstance(node.func, ast.Attribute) and node.func.attr in HALF_METHODS:
                self.flag(node, "precision", f".{node.func.attr}() in an fp32 task")
            if short == "set_float32_matmul_precision":
                arg = node.args[0] if node.args else None
                if not (isinstance(arg, ast.Constant) and arg.value == "highest"):
                    self.flag(node, "precision", "set_float32_matmul_precision below 'highest'")
            at = next((i for suffix, i in DESCRIPTOR_ROUNDING_ARG.items()
                       if name == suffix or name.endswith("." + suffix)), None)
            if at is not None and (len(node.args) > at or any(kw.arg is None for kw in node.keywords)):
                self.flag(node, "precision", "a TensorDescriptor's arguments past its padding by position "
                                             "or ** (round_f32_to_tf32 in an fp32 task)")
            for kw in node.keywords:
                off = isinstance(kw.value, ast.Constant) and kw.value.value is False
                if kw.arg in TF32_FLAGS and not off:
                    self.flag(node, "precision", f"{kw.arg}={ast.unparse(kw.value)} (tf32 in an fp32 task)")
                if kw.arg == "input_precision":
                    value = kw.value
                    if isinstance(value, ast.Name) and value.id in self.module_strings:
                        value = ast.Constant(self.module_strings[value.id])
                    if isinstance(value, ast.Constant) and value.value not in FP32_PRECISIONS:
                        self.flag(node, "precision",
                                  f"input_precision={value.value!r} "
                                  f"(only 'ieee' and 'tf32x3' keep fp32 accuracy)")
        # kernel = triton.jit(fn)
        if self.is_jit_decorator(node) and node.args and isinstance(node.args[0], ast.Name):
            fn = next((n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef)
                       and n.name == node.args[0].id), None)
            if fn is not None and fn.name not in self.jit_functions:
                first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
                self.jit_functions[fn.name] = Kernel(fn.name, first)
        self.generic_visit(node)


def check_candidate(source: str, task: TaskInfo) -> CandidateReport:
    report = CandidateReport()
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        report.error = f"syntax error at line {e.lineno}: {e.msg}"
        return report
    checker = _Checker(tree, task)
    checker.visit(tree)
    violations = checker.violations

    init = _init_signature(tree, "ModelNew")
    if init is None:
        violations.append(Violation(0, "signature", "no class ModelNew"))
    elif task.init is not None and init.params != task.init.params:
        violations.append(Violation(0, "signature", f"{init.describe('ModelNew')} differs from "
                                                    f"{task.init.describe('Model')}"))
    if not checker.jit_functions:
        violations.append(Violation(0, "no_kernel", "no @triton.jit kernel"))

    # A jit function named by host code is launched there; one named only inside kernels
    # is a device helper, inlined into its callers. Which were really launched, and which
    # helpers a launched kernel calls, the judge sees at run time (judge.unused_kernels).
    for kernel in checker.jit_functions.values():
        kernel.host_launched = kernel.name in checker.host_refs
        kernel.callees = checker.callees.get(kernel.name, set()) & set(checker.jit_functions)
        report.kernels.append(kernel)
    report.violations = sorted(violations, key=lambda v: v.line)
    return report

