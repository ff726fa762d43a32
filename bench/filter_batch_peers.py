#!/usr/bin/env python3
"""A GPU peer of bench/filter_batch_bench.c (many small images, issue 26's last row):
PyTorch's depthwise conv2d on the same batch, N x 3 x H x W uint8 resident on the
device, gaussian:5 (OpenCV's 8-bit weights, 1 4 6 4 1 / 16 a side) and box:3, replicate
padding, rounded back to uint8 — the whole batch in one call, as fxkit's batch.

    python3 bench/filter_batch_peers.py [COUNT [WIDTH HEIGHT]]   (default 1000 256 256)

Medians of 9 runs after a warm-up, the device synchronised. Prints
"RESULT peer_torch_batch_<case>_ms value"; without PyTorch or CUDA a line says so.
"""
import statistics
import sys
import time

REPS = 9


def median_ms(fn, sync):
    fn()
    sync()
    times = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (256, 256)
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print(f"peer torch: not importable ({e})")
        return
    if not torch.cuda.is_available():
        print("peer torch: no CUDA device")
        return
    dev = torch.device("cuda")
    batch = torch.randint(0, 256, (n, 3, h, w), dtype=torch.uint8, device=dev)
    g = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0], device=dev) / 16
    kernels = {"gaussian5": torch.outer(g, g), "box3": torch.full((3, 3), 1.0 / 9, device=dev)}
    print(f"GPU peer on {n} x {w}x{h} RGB u8, device-resident, median of {REPS} (ms)")
    for name, k in kernels.items():
        weight = k.expand(3, 1, *k.shape).contiguous()
        pad = k.shape[0] // 2

        def run(weight=weight, pad=pad):
            x = F.pad(batch.float(), (pad,) * 4, mode="replicate")
            return F.conv2d(x, weight, groups=3).round_().clamp_(0, 255).to(torch.uint8)

        print(f"RESULT peer_torch_batch_{name}_ms {median_ms(run, torch.cuda.synchronize):.3f}")


if __name__ == "__main__":
    main()
