#!/usr/bin/python3
"""CPU benchmark of fxkit equalize against OpenCV, side by side on one machine.

Usage: /usr/bin/python3 bench/equalize_cpu.py [BUILD_DIR] [ROUNDS] [--cli]
Needs a C compiler and OpenCV's Python module (Debian: python3-opencv).

Makes a 4096x2304 RGB 8-bit photo-like image with `fxkit gen image` (and its
OpenCV gray), runs BUILD_DIR/bench/equalize_bench (built by `make`; when missing,
compiled here against BUILD_DIR's libfxkit), then for each workload alternates ROUNDS
times (default 7) between
  fxkit:  equalize_bench, in-process: one plan, warm buffers, median of 5 runs of
          fx_equalize_run (compute only, as OpenCV's calls are timed);
  OpenCV: the same work in this Python process (cv2.setNumThreads(2)), median of
          5 calls after a warm-up;
with 2 threads on both sides. Alternating keeps both under the same machine load;
the table gives the median over the rounds and the median of the per-round ratios.
--cli adds the compute stage of `fxkit equalize` per process (--timings-csv), which
includes first-touch page faults of the freshly allocated output.
"""
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

WIDTH, HEIGHT, THREADS, INNER = 4096, 2304, 2, 5
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_bench(build, work):
    """BUILD_DIR/bench/equalize_bench when `make` built it, else compiled here."""
    built = os.path.join(build, "bench", "equalize_bench")
    if os.access(built, os.X_OK):
        return built
    exe = os.path.join(work, "equalize_bench")
    lib = os.path.join(build, "src")
    subprocess.run(["cc", "-O2", os.path.join(ROOT, "bench", "equalize_bench.c"), "-I",
                    os.path.join(ROOT, "include"), "-L", lib, "-lfxkit", "-Wl,-rpath," + lib,
                    "-o", exe], check=True)
    return exe


def fxkit_ms(exe, image, args):
    out = subprocess.run([exe, image, str(THREADS), str(INNER), *args], check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def fxkit_cli_ms(fxkit, image, args, work):
    csv_path = os.path.join(work, "t.csv")
    if os.path.exists(csv_path):
        os.remove(csv_path)
    subprocess.run([fxkit, "equalize", "-q", "--device", "cpu", "--threads", str(THREADS),
                    "--timings-csv", csv_path, *args, image, "-o",
                    os.path.join(work, "out" + os.path.splitext(image)[1])], check=True)
    with open(csv_path) as f:
        return float(next(csv.DictReader(f))["compute_ms"])


def cv_ms(fn):
    fn()  # warm up
    times = []
    for _ in range(INNER):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    argv = [a for a in sys.argv[1:] if a != "--cli"]
    build = os.path.abspath(argv[0] if argv else os.path.join(ROOT, "build"))
    rounds = int(argv[1]) if len(argv) > 1 else 7
    fxkit = os.path.join(build, "fxkit")
    cv2.setNumThreads(THREADS)
    with tempfile.TemporaryDirectory() as work:
        exe = build_bench(build, work)
        rgb_path = os.path.join(work, "photo.ppm")
        gray_path = os.path.join(work, "photo.pgm")
        subprocess.run([fxkit, "gen", "image", "--kind", "photo", "--size",
                        f"{WIDTH}x{HEIGHT}", "--channels", "3", "-o", rgb_path], check=True)
        rgb = cv2.cvtColor(cv2.imread(rgb_path), cv2.COLOR_BGR2RGB)
        gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        cv2.imwrite(gray_path, gray)
        clahe = cv2.createCLAHE(40.0, (8, 8))

        def cv_hsv():
            hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
            hsv[:, :, 2] = cv2.equalizeHist(np.ascontiguousarray(hsv[:, :, 2]))
            return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)

        def cv_luma():
            ycc = cv2.cvtColor(rgb, cv2.COLOR_RGB2YCrCb)
            ycc[:, :, 0] = cv2.equalizeHist(np.ascontiguousarray(ycc[:, :, 0]))
            return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)

        workloads = [
            ("gray, global", "cv2.equalizeHist", gray_path, [], lambda: cv2.equalizeHist(gray)),
            ("RGB, hsv", "cvtColor HSV, equalizeHist V, back", rgb_path, ["--space", "hsv"],
             cv_hsv),
            ("RGB, luma", "cvtColor YCrCb, equalizeHist Y, back", rgb_path, ["--space", "luma"],
             cv_luma),
            ("gray, CLAHE 40 8x8", "createCLAHE(40, (8, 8)).apply", gray_path, ["--adaptive"],
             lambda: clahe.apply(gray)),
        ]
        rows = []
        for name, call, image, args, cv_fn in workloads:
            fx, cv, ratio, cli = [], [], [], []
            for _ in range(rounds):
                fx.append(fxkit_ms(exe, image, args))
                cv.append(cv_ms(cv_fn))
                ratio.append(cv[-1] / fx[-1])
                if "--cli" in sys.argv:
                    cli.append(fxkit_cli_ms(fxkit, image, args, work))
            rows.append((name, call, statistics.median(fx), statistics.median(cv),
                         statistics.median(ratio), statistics.median(cli) if cli else None))
    print(f"{WIDTH}x{HEIGHT}, {THREADS} threads, {rounds} alternating rounds of median-of-{INNER}, "
          f"OpenCV {cv2.__version__}\n")
    print("| workload | OpenCV call | fxkit ms | OpenCV ms | OpenCV / fxkit |"
          + (" fxkit CLI compute ms |" if "--cli" in sys.argv else ""))
    print("| --- | --- | ---: | ---: | ---: |" + (" ---: |" if "--cli" in sys.argv else ""))
    for name, call, fx, cv, ratio, cli in rows:
        extra = f" {cli:.1f} |" if cli is not None else ""
        print(f"| {name} | {call} | {fx:.1f} | {cv:.1f} | {ratio:.2f}x |{extra}")


if __name__ == "__main__":
    main()
