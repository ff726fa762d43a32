#!/usr/bin/env python3
"""GPU peers of `fxkit equalize` on the same workloads, when they are importable:
CuPy and PyTorch (neither has a histogram equalization call, so each does what such a
call does: a histogram, its cumulative sum, a lookup table, the table applied) and
CV-CUDA (cvcuda.histogrameq, on the gray image).

    python3 bench/equalize_gpu_peers.py [WIDTH HEIGHT]      (default 10000 6000)

The gray image is 8-bit; "hsv" equalizes V = max(R, G, B) of an RGB 8-bit image and
scales each pixel by new V / V (what an HSV round trip does to V with H and S kept).
Images are resident on the device; times are medians of 10 runs after a warm-up, with
the device synchronised. Prints "RESULT peer_<lib>_<case>_ms value" lines; a library
that is missing is skipped with a line saying so.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_peer_timing  # noqa: E402

W, H = gpu_peer_timing.W, gpu_peer_timing.H
REPS = 10
median_ms = functools.partial(gpu_peer_timing.median_ms, reps=REPS)


def cupy_cases():
    import cupy as cp

    rng = cp.random.default_rng(1)
    gray = rng.integers(30, 211, size=(H, W), dtype=cp.uint8)
    rgb = rng.integers(30, 211, size=(H, W, 3), dtype=cp.uint8)

    def lut_of(values):
        hist = cp.bincount(values.ravel(), minlength=256)
        cdf = cp.cumsum(hist)
        lo = cdf[cp.argmax(cdf > 0)]
        return cp.clip(cp.rint((cdf - lo) * 255.0 / max(values.size - 1, 1)), 0, 255).astype(cp.uint8)

    def gray_eq():
        return lut_of(gray)[gray]

    def hsv_eq():
        v = rgb.max(axis=2)
        nv = lut_of(v)[v].astype(cp.float32)
        scale = nv / cp.maximum(v, 1).astype(cp.float32)
        return cp.clip(cp.rint(rgb * scale[..., None]), 0, 255).astype(cp.uint8)

    sync = cp.cuda.Device().synchronize
    print(f"RESULT peer_cupy_gray_ms {median_ms(gray_eq, sync):.3f}")
    print(f"RESULT peer_cupy_hsv_ms {median_ms(hsv_eq, sync):.3f}")


def torch_cases():
    import torch

    dev = torch.device("cuda")
    g = torch.Generator(device=dev).manual_seed(1)
    gray = torch.randint(30, 211, (H, W), dtype=torch.uint8, device=dev, generator=g)
    rgb = torch.randint(30, 211, (H, W, 3), dtype=torch.uint8, device=dev, generator=g)

    def lut_of(values):
        hist = torch.bincount(values.reshape(-1).long(), minlength=256)
        cdf = torch.cumsum(hist, 0)
        lo = cdf[torch.argmax((cdf > 0).int())]
        return torch.clamp(torch.round((cdf - lo) * 255.0 / max(values.numel() - 1, 1)), 0, 255).to(
            torch.uint8)

    def gray_eq():
        return lut_of(gray)[gray.long()]

    def hsv_eq():
        v = rgb.amax(dim=2)
        nv = lut_of(v)[v.long()].float()
        scale = nv / torch.clamp(v, min=1).float()
        return torch.clamp(torch.round(rgb * scale[..., None]), 0, 255).to(torch.uint8)

    print(f"RESULT peer_torch_gray_ms {median_ms(gray_eq, torch.cuda.synchronize):.3f}")
    print(f"RESULT peer_torch_hsv_ms {median_ms(hsv_eq, torch.cuda.synchronize):.3f}")


def cvcuda_cases():
    import cvcuda
    import torch

    gray = torch.randint(30, 211, (1, H, W, 1), dtype=torch.uint8, device="cuda")
    src = cvcuda.as_tensor(gray, "NHWC")
    print(f"RESULT peer_cvcuda_gray_ms {median_ms(lambda: cvcuda.histogrameq(src, dtype=cvcuda.Type.U8), torch.cuda.synchronize):.3f}")


for name, cases in (("cupy", cupy_cases), ("torch", torch_cases), ("cvcuda", cvcuda_cases)):
    try:
        cases()
    except ImportError as e:
        print(f"peer {name}: not importable ({e})")
    except Exception as e:  # a peer that fails is reported, never fatal
        print(f"peer {name}: failed ({type(e).__name__}: {e})")
