"""The Python API: the `drtriton` binary's `convert` and `verify`, called from Python.

Every call runs the binary (found by ``find_binary``) in a child process with this very
interpreter as its Python (``DRTRITON_PYTHON``), so the binary's frontend and verifier see
the torch and triton installed beside this package. Programs are passed as files or as
source text in KernelBench format: ``class Model(nn.Module)``, ``get_inputs()`` and
``get_init_inputs()`` in one file. Errors raise ``DrtritonError`` with the binary's message.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types

__all__ = ["DrtritonError", "binary_env", "convert", "find_binary", "verify"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# The binary a wheel ships (CMakeLists.txt installs it there under scikit-build).
_PACKAGED_BINARY = os.path.join(_PACKAGE_DIR, "_bin", "drtriton")
# A source checkout: python/drtriton/ beside build/.
_CHECKOUT_BINARY = os.path.join(os.path.dirname(os.path.dirname(_PACKAGE_DIR)), "build", "drtriton")


class DrtritonError(RuntimeError):
    """The binary failed: its message (the ``drtriton: ...`` lines of its stderr) is the
    exception's text; ``returncode``, ``stderr`` and ``command`` hold the rest."""

    def __init__(self, message, returncode=None, stderr="", command=()):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr
        self.command = list(command)


def _is_executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _is_script(path):
    # The `drtriton` console script (a Python script) is on PATH too: never take it for the
    # binary, or the launcher would start itself forever.
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return True


def find_binary():
    """The `drtriton` binary: the one this package ships (drtriton/_bin/drtriton), else
    $DRTRITON_BIN, else the source checkout's build/drtriton, else `drtriton` on PATH."""
    if _is_executable(_PACKAGED_BINARY):
        return _PACKAGED_BINARY
    named = os.environ.get("DRTRITON_BIN")
    if named:
        if not _is_executable(named):
            raise DrtritonError(f"DRTRITON_BIN={named}: no such executable file")
        return named
    if _is_executable(_CHECKOUT_BINARY):
        return _CHECKOUT_BINARY
    on_path = shutil.which("drtriton")
    if on_path and not _is_script(on_path):
        return on_path
    raise DrtritonError(
        "no drtriton binary: this package ships none (drtriton/_bin/drtriton), "
        f"DRTRITON_BIN is not set, there is no {_CHECKOUT_BINARY} and none on PATH. "
        "Build it: `pip install .` in a drtriton checkout installs the package with its "
        "binary, or `make build` there builds build/drtriton (then set DRTRITON_BIN "
        "to it if this package is not that checkout's python/drtriton).")


def binary_env():
    """The binary's environment: this one, with this interpreter as the Python it starts
    (DRTRITON_PYTHON) unless the caller set one."""
    env = dict(os.environ)
    env.setdefault("DRTRITON_PYTHON", sys.executable)
    return env


def _run(args):
    command = [find_binary(), *args]
    return subprocess.run(command, env=binary_env(), capture_output=True, text=True,
                          errors="replace")


def _error(run, shown=None):
    """A DrtritonError from a failed run: its `drtriton: ...` lines, or its whole stderr."""
    stderr = run.stderr or ""
    # CLI11 ends a usage error with this line; the one before says what was wrong.
    lines = [line.strip() for line in stderr.splitlines()
             if line.strip() and line.strip() != "Run with --help for more information."]
    ours = [line[len("drtriton: "):] for line in lines if line.startswith("drtriton: ")]
    message = "\n".join(ours or lines[-20:]) or f"drtriton exited with status {run.returncode}"
    for path, name in (shown or {}).items():
        message = message.replace(path, name)
    return DrtritonError(message, run.returncode, stderr, run.args)


def _verdict(stdout):
    try:
        verdict = json.loads(stdout)
    except ValueError:
        return None
    return verdict if isinstance(verdict, dict) and "passed" in verdict else None


def _program_file(program, scratch, name, shown):
    """A path for PROGRAM: a path is itself, source text is written to SCRATCH/NAME (and
    errors then name it <NAME source>), a Python module or its class Model is its file."""
    if isinstance(program, os.PathLike):
        return os.fspath(program)
    if isinstance(program, str):
        if "\n" not in program:
            return program
        path = os.path.join(scratch, name)
        with open(path, "w") as f:
            f.write(program)
        shown[path] = f"<{name} source>"
        return path
    # A KernelBench program imported as a module, or its class Model: the file they come from.
    # A module instance is refused: its trained weights could not reach the solution, whose
    # ModelNew builds its own parameters from get_init_inputs().
    module = program if isinstance(program, types.ModuleType) else None
    if isinstance(program, type):
        module = sys.modules.get(program.__module__)
        if program.__name__ != "Model":
            module = None
    path = getattr(module, "__file__", None)
    if path and all(hasattr(module, f) for f in ("Model", "get_inputs", "get_init_inputs")):
        return path
    why = ""
    if hasattr(program, "forward") and hasattr(program, "parameters"):
        why = ("; a module instance is not taken: its weights could not reach the solution, "
               "whose ModelNew builds its own parameters from get_init_inputs()")
    elif isinstance(program, type):
        why = f"; class {program.__qualname__} is not the Model of a module imported from a file"
    raise TypeError(
        "drtriton takes a KernelBench-format program (class Model, get_inputs(), "
        "get_init_inputs() in one .py file): its path, its source text, the module imported "
        f"from it or its class Model; got {type(program).__name__}{why}")


def _option_flags(options):
    flags = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        flags += [flag] if value is True else [flag, str(value)]
    return flags


def convert(model_or_path, *, verify=True, device=None, out=None, timeout=None, **options):
    """Compile a KernelBench-format program into a Triton solution (`drtriton convert`).

    model_or_path: the program's path, its source text, the module imported from it or its
        class Model.
    verify: verify the solution (on the GPU if there is one, else in Triton's interpreter).
    device: "cpu" or "cuda" to verify on (default: cuda when there is a GPU).
    out: also write the solution to this path (default: only returned).
    timeout: seconds the verification may run (the binary's default: 300).
    options: any other flag of `drtriton convert`, e.g. ``policy="model:ckpt", samples=8,
        cache="verdicts.sqlite"`` (``top_p=0.9`` becomes ``--top-p 0.9``; True is a bare flag).

    Returns with verify=False the solution's source text (a str holding ``class ModelNew``);
    with verify=True a dict ``{"solution": source text, "verdict": the verifier's verdict}``,
    also when the verifier rejects the solution: look at ``result["verdict"]["passed"]``.
    Raises DrtritonError when no solution comes out (a bad program, a bad option, a
    sampling policy none of whose answers passed).
    """
    with tempfile.TemporaryDirectory(prefix="drtriton-api-") as scratch:
        shown = {}
        program = _program_file(model_or_path, scratch, "program.py", shown)
        target = os.fspath(out) if out is not None else os.path.join(scratch, "solution.py")
        args = ["convert", program, "-o", target]
        args += ["--verify", "--json"] if verify else ["--no-verify"]
        if device is not None:
            args += ["--device", device]
        if timeout is not None:
            args += ["--timeout", str(timeout)]
        run = _run(args + _option_flags(options))
        verdict = _verdict(run.stdout) if verify and run.returncode in (0, 1) else None
        # Exit 1 with a verdict is a rejected solution, still a result; any other failure
        # means no solution.
        if (run.returncode != 0 and verdict is None) or not os.path.isfile(target):
            raise _error(run, shown)
        with open(target) as f:
            solution = f.read()
    return {"solution": solution, "verdict": verdict} if verify else solution


def verify(task, candidate, *, device=None, strict=False, eval_mode=False, timeout=None,
           compile_timing=True):
    """Judge a candidate (``class ModelNew`` on Triton kernels) against its task
    (`drtriton verify --json`).

    task, candidate: paths or source text (the task also as its module or class Model).
    device: "cpu" (Triton's interpreter) or "cuda" (default: cuda when there is a GPU).
    strict: no PyTorch compute op may run in ModelNew.forward.
    eval_mode: judge the modules after .eval().
    timeout: seconds the run may take (the binary's default: 300).
    compile_timing: also time torch.compile against the candidate (its first call takes
        seconds, tens of seconds on the CPU); False leaves speedup_compile out.

    Returns the verdict dict: ``verdict["passed"]``, and when rejected ``failed_stage`` and
    ``reason`` (a rejection is an answer, not an exception). Raises DrtritonError when there
    is no verdict (a missing file, a task at fault, a bad option).
    """
    with tempfile.TemporaryDirectory(prefix="drtriton-api-") as scratch:
        shown = {}
        args = ["verify", _program_file(task, scratch, "task.py", shown),
                _program_file(candidate, scratch, "candidate.py", shown), "--json"]
        if device is not None:
            args += ["--device", device]
        if strict:
            args.append("--strict")
        if eval_mode:
            args.append("--eval-mode")
        if timeout is not None:
            args += ["--timeout", str(timeout)]
        if not compile_timing:
            args.append("--no-compile-timing")
        run = _run(args)
    verdict = _verdict(run.stdout) if run.returncode in (0, 1) else None
    if verdict is None:
        raise _error(run, shown)
    return verdict
