"""Compiles a solution's kernels for an H100/H200 (sm_90) on a machine without a GPU: the
solution's forward runs once in Triton's interpreter on its task's inputs (a child process)
while each launch's kernel, argument types and constexprs are recorded; then each distinct
one is compiled by Triton for that target. Triton's front end and passes check what its
interpreter does not (a loop-carried value keeping its type and shape, layouts, TMA
descriptors), so the CPU tier catches a kernel that would not compile on the GPU.

    python tests/python/hopper_compile.py TASK.py SOLUTION.py [TASK.py SOLUTION.py ...]
    (prints one JSON line per pair: {"kernels": N, "failed": {kernel: error}})
"""
import importlib.util
import inspect
import json
import os
import subprocess
import sys

import torch


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(task_path, solution_path, i=0):
    """In the interpreter: [kernel name, {param: type}, {constexpr: value}] of each launch of
    one forward, distinct ones only."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import mangle_type
    seen = []
    run = InterpretedFunction.run

    def recording(self, *args, **kwargs):
        params = inspect.signature(self.fn).parameters
        bound = dict(zip(params, args))
        bound.update({k: v for k, v in kwargs.items() if k not in ("grid", "warmup")})
        constexprs = {name: bound.get(name, p.default) for name, p in params.items()
                      if "constexpr" in str(p.annotation)}
        signature = {name: "constexpr" if name in constexprs else mangle_type(bound[name])
                     for name in params}
        launch = [self.fn.__name__, signature, constexprs]
        if launch not in seen:
            seen.append(launch)
        return run(self, *args, **kwargs)

    task, solution = load(f"task{i}", task_path), load(f"solution{i}", solution_path)
    InterpretedFunction.run = recording
    try:
        torch.manual_seed(0)
        model = solution.ModelNew(*task.get_init_inputs())
        with torch.no_grad():
            model(*task.get_inputs())
    finally:
        InterpretedFunction.run = run
    return seen


def compile_for_hopper(pairs):
    """For each (task path, solution path): {"kernels": how many compiled, "failed": {kernel
    name: the compiler's error}}. One interpreter process records every pair's launches."""
    import triton
    from triton.backends.compiler import GPUTarget
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    r = subprocess.run([sys.executable, __file__, "--record", json.dumps(pairs)],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"recording the launches failed: {r.stderr.strip()[-2000:]}")
    results = []
    for i, ((_, solution_path), launches) in enumerate(zip(pairs, json.loads(r.stdout.splitlines()[-1]))):
        if isinstance(launches, str):  # the forward itself failed
            results.append({"kernels": 0, "failed": {"(forward)": launches}})
            continue
        solution = load(f"solution{i}", solution_path)
        failed = {}
        for name, signature, constexprs in launches:
            source = triton.compiler.ASTSource(getattr(solution, name), signature, constexprs)
            try:
                triton.compile(source, target=GPUTarget("cuda", 90, 32))
            except Exception as e:  # noqa: BLE001 (the compiler's message is the answer)
                failed[name] = " ".join(str(e).split())[-400:]
        results.append({"kernels": len(launches), "failed": failed})
    return results


def record_all(pairs):
    out = []
    for i, (task_path, solution_path) in enumerate(pairs):
        try:
            out.append(record(task_path, solution_path, i))
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}"[-400:])
    return out


if __name__ == "__main__":
    if sys.argv[1] == "--record":
        print(json.dumps(record_all(json.loads(sys.argv[2]))))
    else:
        os.environ.pop("TRITON_INTERPRET", None)
        args = sys.argv[1:]
        for result in compile_for_hopper([args[i:i + 2] for i in range(0, len(args), 2)]):
            print(json.dumps(result))
