"""Convolutions in the NCHW and the channels-last layout on the GPU: bench/knob_compare.py
over the conv programs of tests/programs/real/fused (conv*, convtranspose*) with --knob
layout --values nchw channels_last; its other options (--out, --limit, --skip, --match,
--timeout, --budget, --device, --dir) as there.

    source scripts/gpu_build.sh && python3 bench/conv_layout.py --out FILE.md [--limit N]
"""
from knob_compare import main

if __name__ == "__main__":
    main(knob="layout", values=["nchw", "channels_last"], pattern="conv*.py")
