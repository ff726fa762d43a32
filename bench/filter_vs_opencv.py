#!/usr/bin/env python3
"""fxkit filter (compute stage) against OpenCV 4.6 on the same image, same run.

    /usr/bin/python3 bench/filter_vs_opencv.py [build/fxkit] [--repeat N]

Needs Debian's OpenCV (python3-opencv). Makes a 4096x2304 RGB photo with fxkit gen,
then times each kernel: fxkit's compute stage from --timings-csv (median of N runs of
the program) and the OpenCV call (median of N, cv2.setNumThreads(2)). Prints a
Markdown table for docs/BENCHMARKS.md.
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

fxkit = next((a for a in sys.argv[1:] if not a.startswith("--")), "build/fxkit")
repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 5
threads = 2
cv2.setNumThreads(threads)
tmp = tempfile.mkdtemp(prefix="fxbench-")
src = os.path.join(tmp, "photo.ppm")
subprocess.run([fxkit, "gen", "image", "--kind", "photo", "--size", "4096x2304", "--channels", "3",
                "--seed", "1", "-q", "-o", src], check=True)
img = cv2.imread(src)


def fx_ms(kernel, extra=()):
    csv_path = os.path.join(tmp, "t.csv")
    if os.path.exists(csv_path):
        os.remove(csv_path)
    for _ in range(repeat):
        subprocess.run([fxkit, "filter", "-q", "-k", kernel, "--threads", str(threads), *extra,
                        src, "-o", os.path.join(tmp, "out.ppm"), "--timings-csv", csv_path],
                       check=True)
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    return statistics.median(float(r["compute_ms"]) for r in rows), rows[-1]["strategy"]


def cv_ms(fn):
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


rng = np.random.default_rng(7)
arbitrary31 = rng.uniform(-1, 1, (31, 31)).astype(np.float32)
arbitrary31 /= arbitrary31.sum()
k31_text = "; ".join(" ".join("%.9g" % v for v in row) for row in arbitrary31)
k31_file = os.path.join(tmp, "k31.txt")
with open(k31_file, "w") as f:
    f.write(k31_text)

cases = []
for k in (3, 5, 11, 31, 63, 121):
    box = np.ones((k, k), np.float32) / (k * k)
    cases.append((f"box:{k}", f"cv2.filter2D box {k}", lambda b=box: cv2.filter2D(img, -1, b)))
    cases.append((f"box:{k}", f"cv2.blur {k}", lambda k=k: cv2.blur(img, (k, k))))
for k in (3, 5, 11, 31):
    cases.append((f"gaussian:{k}", f"cv2.GaussianBlur {k}",
                  lambda k=k: cv2.GaussianBlur(img, (k, k), 0)))
cases.append(("@" + k31_file, "cv2.filter2D arbitrary 31x31 float",
              lambda: cv2.filter2D(img, -1, arbitrary31)))

print(f"4096x2304 RGB u8, {threads} threads, median of {repeat}; "
      f"OpenCV {cv2.__version__}, {time.strftime('%Y-%m-%d')}")
print("| kernel | fxkit strategy | fxkit ms | OpenCV call | OpenCV ms | speed-up |")
print("| --- | --- | --- | --- | --- | --- |")
seen = {}
for kernel, name, fn in cases:
    if kernel not in seen:
        seen[kernel] = fx_ms(kernel)
    ms, strategy = seen[kernel]
    cv = cv_ms(fn)
    label = "arbitrary 31x31 float" if kernel.startswith("@") else kernel
    print(f"| {label} | {strategy} | {ms:.1f} | {name} | {cv:.1f} | {cv / ms:.2f}x |")
