#!/usr/bin/python3
"""CPU benchmark of fxkit equalize against OpenCV, side by side on one machine.

Usage: /usr/bin/python3 bench/equalize_cpu.py [FXKIT_BINARY] [RUNS]
Needs OpenCV's Python module (Debian: python3-opencv). Makes a 4096x2304 RGB 8-bit
photo-like image with `fxkit gen image`, then times, with 2 threads on both sides:
  fxkit: the compute stage of `fxkit equalize` (--timings-csv compute_ms; decode and
         encode are not counted), per space;
  OpenCV: the same work in Python (cv2.setNumThreads(2)), timed around the calls.
Prints a Markdown table of medians over RUNS runs (default 9).
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

WIDTH, HEIGHT, THREADS = 4096, 2304, 2


def fxkit_ms(fxkit, image, args, runs, work):
    csv_path = os.path.join(work, "t.csv")
    times = []
    for _ in range(runs):
        if os.path.exists(csv_path):
            os.remove(csv_path)
        subprocess.run([fxkit, "equalize", "-q", "--device", "cpu", "--threads", str(THREADS),
                        "--timings-csv", csv_path, *args, image, "-o",
                        os.path.join(work, "out" + os.path.splitext(image)[1])], check=True)
        with open(csv_path) as f:
            times.append(float(next(csv.DictReader(f))["compute_ms"]))
    return statistics.median(times)


def cv_ms(fn, runs):
    fn()  # warm up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    fxkit = sys.argv[1] if len(sys.argv) > 1 else "build/fxkit"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    cv2.setNumThreads(THREADS)
    with tempfile.TemporaryDirectory() as work:
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

        rows = [
            ("gray, global", "cv2.equalizeHist", fxkit_ms(fxkit, gray_path, [], runs, work),
             cv_ms(lambda: cv2.equalizeHist(gray), runs)),
            ("RGB, hsv", "cvtColor HSV, equalizeHist V, back",
             fxkit_ms(fxkit, rgb_path, ["--space", "hsv"], runs, work), cv_ms(cv_hsv, runs)),
            ("RGB, luma", "cvtColor YCrCb, equalizeHist Y, back",
             fxkit_ms(fxkit, rgb_path, ["--space", "luma"], runs, work), cv_ms(cv_luma, runs)),
            ("gray, CLAHE 40 8x8", "createCLAHE(40, (8, 8)).apply",
             fxkit_ms(fxkit, gray_path, ["--adaptive"], runs, work),
             cv_ms(lambda: clahe.apply(gray), runs)),
        ]
    print(f"{WIDTH}x{HEIGHT}, {THREADS} threads, median of {runs} runs, OpenCV {cv2.__version__}\n")
    print("| workload | OpenCV call | fxkit ms | OpenCV ms | OpenCV / fxkit |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, call, fx, cv in rows:
        print(f"| {name} | {call} | {fx:.1f} | {cv:.1f} | {cv / fx:.2f}x |")


if __name__ == "__main__":
    main()
