"""drtriton.verifier: the Python half of `drtriton verify` / `drtriton serve` (docs/verifier.md).

The C++ service starts `python -m drtriton.worker` processes and talks to them in JSON
lines; this package is what a worker runs to judge one candidate:

    static_checks  ast rules against the known cheats (no execution)
    launch_hook    Triton launch counting and the no-op test
    torch_ops      the aten ops ModelNew.forward runs (strict / default modes)
    inputs         input sets, size constants, NaN poisoning of free memory
    compare        outputs against the float64 truth
    timing         CUDA events / CPU wall clock, L2 flush, the per-GPU timing lock
    task_cache     what depends on the task alone, kept for its next candidates
    sandbox        network and file guards, rlimits, the tamper check
    judge          the stages in order, and the verdict
    client         a Python client of the worker protocol (tests, bench/verify_gpu.py)
"""

# The flags of a verdict that says nothing of its kernels' speed: the output does not depend on
# the inputs, or the task is random where it could not be judged (in eval mode too, or only eval
# mode was judged). Reports count such programs apart, never as wins (`drtriton bench`'s
# degenerate_reason in src/cli/bench_commands.cpp reads the same three).
DEGENERATE_FLAGS = frozenset({"task_output_constant", "random_in_eval_mode", "eval_mode_forced_by_dropout"})
