#!/usr/bin/env python3
"""GPU peers of `fxkit filter` on the same workloads, when they are importable:
PyTorch (conv2d, depthwise), CuPy (cupyx.scipy.ndimage) and CV-CUDA (cvcuda-cu12).

    python3 bench/filter_gpu_peers.py [WIDTH HEIGHT]      (default 10000 6000)

Images are RGB 8-bit, resident on the device; times are medians of 5 runs after a
warm-up, with the device synchronised. Prints "RESULT peer_<lib>_<case>_ms value" lines
(tests/gpu/check.sh shows them beside fxkit's); a library that is missing is skipped
with a line saying so.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_peer_timing  # noqa: E402

W, H = gpu_peer_timing.W, gpu_peer_timing.H
REPS = 5
median_ms = functools.partial(gpu_peer_timing.median_ms, reps=REPS)


def torch_cases():
    import torch
    import torch.nn.functional as F

    dev = torch.device("cuda")
    img = torch.randint(0, 256, (1, 3, H, W), dtype=torch.uint8, device=dev)
    x = img.float()
    for k in (3, 121):
        w = torch.full((3, 1, k, k), 1.0 / (k * k), device=dev)

        def run(k=k, w=w):
            y = F.conv2d(F.pad(x, (k // 2,) * 4, mode="replicate"), w, groups=3)
            return y.round().clamp(0, 255).to(torch.uint8)

        yield f"box{k}", median_ms(run, torch.cuda.synchronize)


def cupy_cases():
    import cupy
    import cupyx.scipy.ndimage as ndi

    img = cupy.random.randint(0, 256, (H, W, 3), dtype=cupy.uint8)
    for k in (3, 31):
        yield f"box{k}", median_ms(
            lambda k=k: ndi.uniform_filter(img, size=(k, k, 1), mode="nearest"),
            cupy.cuda.Device().synchronize)


def cvcuda_cases():
    import cvcuda
    import torch

    img = torch.randint(0, 256, (1, H, W, 3), dtype=torch.uint8, device="cuda")
    t = cvcuda.as_tensor(img, "NHWC")
    for k in (3, 121):
        yield f"box{k}", median_ms(
            lambda k=k: cvcuda.averageblur(t, (k, k), (-1, -1), cvcuda.Border.REPLICATE),
            torch.cuda.synchronize)
    for k in (3, 121):
        sigma = 0.3 * ((k - 1) * 0.5 - 1) + 0.8
        yield f"gauss{k}", median_ms(
            lambda k=k, sigma=sigma: cvcuda.gaussian(t, (k, k), (sigma, sigma),
                                                     cvcuda.Border.REPLICATE),
            torch.cuda.synchronize)


def main():
    print(f"GPU peers on {W}x{H} RGB u8, device-resident, median of {REPS} (ms)")
    for name, cases in (("torch", torch_cases), ("cupy", cupy_cases), ("cvcuda", cvcuda_cases)):
        try:
            for case, ms in cases():
                print(f"RESULT peer_{name}_{case}_ms {ms:.3f}")
        except ImportError as e:
            print(f"peer {name}: not importable ({e})")
        except Exception as e:  # a peer's failure must not stop the others
            print(f"peer {name}: failed: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
