"""Which convolutions cuDNN runs on TF32 in one layout and on fp32 in the other (TF32 allowed,
PyTorch's default). For each convolution of a grid (Conv2d and ConvTranspose2d; channels in and
out, kernel, stride, image size) it prints the error against float64 of the output and of its
per-channel mean (a batch norm's running mean) in NCHW, in channels-last (NHWC), and in NHWC
with TF32 off, and the median time of each. An error near 1e-4 is TF32's, near 1e-6 fp32's; a
layout whose kernel is TF32 where eager's NCHW one is fp32 fails the verifier's fp32 bound.
Needs a GPU.

    python3 bench/conv_layout_precision.py            # the grid
    python3 bench/conv_layout_precision.py --quick    # ResNet block's four (1x1, 3x3; stride 1, 2)
    python3 bench/conv_layout_precision.py --narrow   # Conv2d of 16 and 32 input channels:
                                                      # outputs, images and batches
"""
import sys

import torch
import torch.nn.functional as F

TF32_ERROR = 1e-5  # above it, the kernel multiplied in TF32

# (transposed, in, out, kernel, stride, image): ResNet's, VGG's, U-Net's, an autoencoder's
QUICK = [(False, 64, 128, 1, 2, 56), (False, 64, 128, 1, 1, 56),
         (False, 64, 128, 3, 2, 56), (False, 64, 128, 3, 1, 56)]


def grid():
    rows = []
    for transposed in (False, True):
        for cin, cout, image in ((16, 32, 64), (32, 32, 64), (32, 64, 32), (64, 64, 32),
                                 (64, 128, 16), (128, 128, 16), (128, 256, 8), (256, 256, 8),
                                 (128, 64, 16), (64, 32, 32)):
            for k, s in ((1, 1), (1, 2), (3, 1), (3, 2), (4, 2), (5, 1), (7, 2), (2, 2)):
                if transposed and s == 1 and k == 1:
                    continue
                rows.append((transposed, cin, cout, k, s, image))
    return rows


def narrow():
    rows = []
    for cin in (16, 32):
        for cout in (32, 64, 128):
            for image, batch in ((32, 32), (64, 32), (128, 32), (32, 256), (128, 128)):
                for k, s in ((1, 1), (3, 1), (3, 2), (4, 2), (2, 2)):
                    rows.append((False, cin, cout, k, s, image, batch))
    # the corpus's: conv2d_avgpool_sigmoid_sum, conv2d_channel_min_tanh_tanh, resnet_cifar_small,
    # conv_autoencoder
    return rows + [(False, 16, 64, 3, 1, 256, 128), (False, 16, 64, 3, 1, 128, 128),
                   (False, 32, 64, 3, 2, 32, 256), (False, 32, 64, 4, 2, 32, 128)]


def median_ms(fn, runs=20):
    for _ in range(3):
        fn()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def measure(transposed, cin, cout, k, s, image, batch=32):
    torch.manual_seed(0)
    x = torch.randn(batch, cin, image, image, device="cuda")
    p = (k - 1) // 2 if not transposed else max(0, (k - s) // 2)
    if transposed:
        w = torch.randn(cin, cout, k, k, device="cuda") / (cin * k * k / s / s) ** 0.5
        conv = lambda a, b: F.conv_transpose2d(a, b, None, s, p)  # noqa: E731
    else:
        w = torch.randn(cout, cin, k, k, device="cuda") / (cin * k * k) ** 0.5
        conv = lambda a, b: F.conv2d(a, b, None, s, p)  # noqa: E731
    truth = conv(x.double(), w.double())
    mean = truth.mean((0, 2, 3))

    def run(layout, tf32):
        xa, wa = x.contiguous(memory_format=layout), w.contiguous(memory_format=layout)
        with torch.backends.cudnn.flags(enabled=True, allow_tf32=tf32):
            y = conv(xa, wa).double()
            ms = median_ms(lambda: conv(xa, wa))
        return (((y - truth).norm() / truth.norm()).item(),
                ((y.mean((0, 2, 3)) - mean).norm() / mean.norm()).item(), ms)
    last = torch.channels_last
    return run(torch.contiguous_format, True), run(last, True), run(last, False)


def main():
    rows = QUICK if "--quick" in sys.argv else narrow() if "--narrow" in sys.argv else grid()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; "
          f"errors against float64 (output / per-channel mean), times in ms")
    print("| conv | in | out | kernel | stride | image | batch | NCHW | NHWC | NHWC, TF32 off | "
          "NCHW ms | NHWC ms | NHWC TF32-off ms | NCHW fp32, NHWC TF32 |")
    print("| --- " * 14 + "|")
    for row in rows:
        transposed, cin, cout, k, s, image, batch = (*row, 32)[:7]
        nchw, nhwc, strict = measure(transposed, cin, cout, k, s, image, batch)
        hazard = nchw[0] < TF32_ERROR <= nhwc[0]
        cells = [f"{e[0]:.1e} / {e[1]:.1e}" for e in (nchw, nhwc, strict)]
        print(f"| {'T' if transposed else 'C'} | {cin} | {cout} | {k} | {s} | {image} | {batch} | "
              + " | ".join(cells) + f" | {nchw[2]:.3f} | {nhwc[2]:.3f} | {strict[2]:.3f} | "
              f"{'yes' if hazard else ''} |", flush=True)


if __name__ == "__main__":
    main()
