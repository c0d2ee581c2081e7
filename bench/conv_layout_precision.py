"""How far cuDNN's convolutions are from float64, NCHW against channels-last (NHWC), for 1x1
and 3x3 kernels of stride 1 and 2 at a ResNet block's sizes: a layout whose kernel runs on
TF32 where the other's does not shows errors near 1e-4 against near 1e-6. Also the error of
the per-channel mean (a batch norm's running mean). Needs a GPU.

    python3 bench/conv_layout_precision.py
"""
import torch
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    x = torch.randn(64, 64, 56, 56, device="cuda")
    print("| kernel | stride | NCHW error | NCHW mean error | NHWC error | NHWC mean error |")
    print("| --- | --- | --- | --- | --- | --- |")
    for k, s, p in ((1, 2, 0), (1, 1, 0), (3, 2, 1), (3, 1, 1)):
        w = torch.randn(128, 64, k, k, device="cuda") / (64 * k * k) ** 0.5
        truth = F.conv2d(x.double(), w.double(), None, s, p)
        mean = truth.mean((0, 2, 3))

        def errors(y):
            y = y.double()
            return ((y - truth).norm() / truth.norm()).item(), \
                ((y.mean((0, 2, 3)) - mean).norm() / mean.norm()).item()
        nchw = errors(F.conv2d(x, w, None, s, p))
        last = torch.channels_last
        nhwc = errors(F.conv2d(x.contiguous(memory_format=last), w.contiguous(memory_format=last), None, s, p))
        print(f"| {k}x{k} | {s} | {nchw[0]:.2e} | {nchw[1]:.2e} | {nhwc[0]:.2e} | {nhwc[1]:.2e} |")


if __name__ == "__main__":
    main()
