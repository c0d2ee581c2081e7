"""drtriton numeric check: does a program's output depend on its inputs?

The synthetic generator rules out provably constant outputs statically
(src/synth/degenerate.h); a value that saturates with high probability (the largest of 400
values clamped at 0.12) passes that check. This one runs the program:
`Model(*get_init_inputs())` under seed 0, then the model on the inputs of seed 1 and of
seed 2 (CPU, float32, no grad). A program passes when every output tensor differs between
the two draws and every floating output is finite. `drtriton synth --numeric-check` and
`drtriton pairs` draw the programs that fail again (src/synth/README.md).

    python -m drtriton.numeric_check --batch LIST
    check_program(module) -> None | "<why it fails>"

DRTRITON_NUMERIC_DEVICE=cuda runs the models on the GPU (parameters and inputs are still
drawn on the CPU, so the draws are the same): bench-sized programs, such as a transposed 3-d
convolution over 65^3 positions, take a minute each on one CPU thread.

--batch checks many files in one process (torch is imported once, and runs on one thread):
LIST holds one path per line ("-": standard input), and each file gives one JSON line, in
order, as soon as it is checked: {"source": path, "varies": true} or {"source": path,
"varies": false, "why": "<one line>"}. A file that cannot be loaded or run fails too, with
"raised": true and the error as its reason.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import warnings

from drtriton.frontend import FrontendError, _first_line, _load, _read_list

INIT_SEED, DRAW_SEEDS = 0, (1, 2)


def _device() -> str:
    import os

    return os.environ.get("DRTRITON_NUMERIC_DEVICE", "cpu")


def build_model(module):
    """The program's model with the parameters of the fixed init seed."""
    import torch

    # The CPU generator only: torch.manual_seed also queues a seed for every accelerator
    # backend, which costs more than running a tiny program.
    torch.default_generator.manual_seed(INIT_SEED)
    return module.Model(*module.get_init_inputs()).to(_device())


def run_model(model, module, seed: int):
    """The model's output on the inputs of one seed."""
    import torch

    torch.default_generator.manual_seed(seed)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inputs = [x.to(_device()) if isinstance(x, torch.Tensor) else x
                  for x in module.get_inputs()]
        return model(*inputs)


def _tensors(out):
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return []


def check_program(module) -> str | None:
    """None when every output changes with the inputs and is finite; else why not."""
    import torch

    model = build_model(module)
    a, b = (_tensors(run_model(model, module, seed)) for seed in DRAW_SEEDS)
    if not a:
        return "no tensor output"
    for i, (x, y) in enumerate(zip(a, b)):
        which = f"output {i}" if len(a) > 1 else "the output"
        if x.is_floating_point() and not (torch.isfinite(x).all() and torch.isfinite(y).all()):
            return f"{which} is not finite"
        if torch.equal(x, y):
            return f"{which} is the same on two input draws"
    return None


def check_file(path: str) -> dict:
    """One JSON line's document for the program in `path`."""
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout carries the JSON lines
            why = check_program(_load(path, path))
    except FrontendError as e:  # it does not load
        return {"source": path, "varies": False, "raised": True, "why": str(e)}
    except Exception as e:  # it does not run
        return {"source": path, "varies": False, "raised": True, "why": _first_line(e)}
    return {"source": path, "varies": True} if why is None else {
        "source": path, "varies": False, "why": why}


def check_batch(paths, out) -> None:
    import torch

    # Processes run side by side, and tiny programs gain nothing from threads.
    torch.set_num_threads(1)
    for path in paths:
        out.write(json.dumps(check_file(path)) + "\n")
        out.flush()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m drtriton.numeric_check",
                                 description="Check that programs' outputs change with their "
                                             "inputs (two input draws).")
    ap.add_argument("--batch", metavar="LIST", required=True,
                    help="check every file listed in LIST (one path a line; -: stdin) and "
                         "write one JSON line per file")
    args = ap.parse_args(argv)
    try:
        check_batch(_read_list(args.batch), sys.stdout)
    except FrontendError as e:
        print(str(e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
