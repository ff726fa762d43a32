#!/usr/bin/env python3
"""fxkit filter (CPU) against OpenCV 4.6 and libvips, side by side in one run.

    /usr/bin/python3 bench/filter_vs_opencv.py [--build build] [--rounds N] [--repeat N]
                                               [--threads T] [--skip-e2e] [--skip-reuse]

Needs Debian's OpenCV (python3-opencv) and, for the end-to-end rows, vips
(libvips-tools). Prints Markdown tables for docs/BENCHMARKS.md.

1. Compute stage, 4096x2304 RGB u8: both timed in-process on warm buffers. fxkit through
   BUILD/bench/filter_bench (built by `make`; when missing, compiled here against
   BUILD/src/libfxkit.so): one plan, one warm-up run, then the median of REPEAT runs of
   fx_filter_run. OpenCV: one warm-up call, then the median of REPEAT calls,
   cv2.setNumThreads(T). The two alternate, ROUNDS times per case, and each column is
   the median of its rounds' medians, so slow phases of a shared machine fall on both.
   (filter_bench filters random samples, OpenCV a random image: the work of every
   strategy here does not depend on the values.)
2. CLI end to end, a 4096x2304 PPM photo in and out: `fxkit filter -k gaussian:5` against
   `vips gaussblur IN OUT 1.1 --min-ampl 0.1` (sigma 1.1 is OpenCV's for k = 5; vips
   cuts its mask where it falls below min-ampl, and 0.1 gives the same 5 taps where its
   default 0.2 gives 3). Wall time of the whole program, median of ROUNDS alternating runs.
3. Plan reuse: `filter_bench reuse 1000 256` (1000 RGB 256x256 images, one plan against
   fx_filter with a plan per image).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = os.path.abspath(option("--build", os.path.join(root, "build")))
rounds = int(option("--rounds", "3"))
repeat = int(option("--repeat", "7"))
threads = int(option("--threads", "2"))
WIDTH, HEIGHT, CHANNELS = 4096, 2304, 3
# Calls slower than this (ms) get fewer repeats, so filter2D box:121 (~1.2 s) stays bearable.
SLOW_CALL_BUDGET_MS = 3000

cv2.setNumThreads(threads)
tmp = tempfile.mkdtemp(prefix="fxbench-")
fxkit = os.path.join(build, "fxkit")
# BUILD/bench/filter_bench when `make` built it, else compiled here.
bench = os.path.join(build, "bench", "filter_bench")
if not os.access(bench, os.X_OK):
    bench = os.path.join(tmp, "filter_bench")
    subprocess.run(["gcc", "-O2", os.path.join(root, "bench", "filter_bench.c"),
                    "-I" + os.path.join(root, "include"), "-L" + os.path.join(build, "src"),
                    "-lfxkit", "-Wl,-rpath," + os.path.join(build, "src"), "-o", bench],
                   check=True)


def results(args):
    out = subprocess.run([bench, *args], check=True, capture_output=True, text=True).stdout
    return {l.split()[1]: l.split()[2] for l in out.splitlines() if l.startswith("RESULT ")}


def fx_compute(kernel, reps):
    r = results(["compute", kernel, str(WIDTH), str(HEIGHT), str(CHANNELS), str(reps),
                 str(threads)])
    return float(r["compute_ms"]), r["strategy"]


def cv_compute(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


img = np.random.default_rng(1).integers(0, 256, (HEIGHT, WIDTH, CHANNELS), dtype=np.uint8)
rng = np.random.default_rng(7)
arbitrary31 = rng.uniform(-1, 1, (31, 31)).astype(np.float32)
arbitrary31 /= arbitrary31.sum()
k31_file = os.path.join(tmp, "k31.txt")
with open(k31_file, "w") as f:
    f.write("; ".join(" ".join("%.9g" % v for v in row) for row in arbitrary31))

cases = []  # (fxkit kernel, OpenCV call name, OpenCV call)
for k in (3, 5, 11, 31, 63, 121):
    box = np.ones((k, k), np.float32) / (k * k)
    cases.append((f"box:{k}", f"cv2.blur {k}", lambda k=k: cv2.blur(img, (k, k))))
    cases.append((f"box:{k}", f"cv2.filter2D box {k}", lambda b=box: cv2.filter2D(img, -1, b)))
for k in (3, 5, 11, 31):
    cases.append((f"gaussian:{k}", f"cv2.GaussianBlur {k}",
                  lambda k=k: cv2.GaussianBlur(img, (k, k), 0)))
cases.append(("@" + k31_file, "cv2.filter2D arbitrary 31x31 float",
              lambda: cv2.filter2D(img, -1, arbitrary31)))

print(f"Compute stage: {WIDTH}x{HEIGHT} RGB u8, {threads} threads, in-process on warm buffers; "
      f"median of {rounds} alternating rounds of median-of-{repeat}; "
      f"OpenCV {cv2.__version__}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
print()
print("| kernel | fxkit strategy | fxkit ms | OpenCV call | OpenCV ms | OpenCV / fxkit |")
print("| --- | --- | ---: | --- | ---: | ---: |")
for kernel, name, fn in cases:
    fx_rounds, cv_rounds, strategy = [], [], ""
    reps_fx = reps_cv = repeat
    for _ in range(rounds):
        ms, strategy = fx_compute(kernel, reps_fx)
        fx_rounds.append(ms)
        cv_rounds.append(cv_compute(fn, reps_cv))
        reps_fx = max(1, min(repeat, int(SLOW_CALL_BUDGET_MS / max(ms, 1e-3))))
        reps_cv = max(1, min(repeat, int(SLOW_CALL_BUDGET_MS / max(cv_rounds[-1], 1e-3))))
    fx, cv = statistics.median(fx_rounds), statistics.median(cv_rounds)
    label = "arbitrary 31x31 float" if kernel.startswith("@") else kernel
    print(f"| {label} | {strategy} | {fx:.1f} | {name} | {cv:.1f} | {cv / fx:.2f}x |",
          flush=True)

if "--skip-e2e" not in sys.argv:
    src = os.path.join(tmp, "photo.ppm")
    subprocess.run([fxkit, "gen", "image", "--kind", "photo", "--size", f"{WIDTH}x{HEIGHT}",
                    "--channels", "3", "--seed", "1", "-q", "-o", src], check=True)
    env = dict(os.environ, VIPS_CONCURRENCY=str(threads))
    commands = {
        "fxkit filter -k gaussian:5": [fxkit, "filter", "-q", "-k", "gaussian:5", "--threads",
                                       str(threads), src, "-o", os.path.join(tmp, "fx.ppm")],
        "vips gaussblur 1.1 --min-ampl 0.1": ["vips", "gaussblur", src,
                                              os.path.join(tmp, "vips.ppm"), "1.1",
                                              "--min-ampl", "0.1"],
    }
    walls = {name: [] for name in commands}
    for _ in range(max(rounds, 5)):
        for name, cmd in commands.items():
            t = time.perf_counter()
            subprocess.run(cmd, check=True, env=env)
            walls[name].append((time.perf_counter() - t) * 1000)
    fx_e2e = statistics.median(walls["fxkit filter -k gaussian:5"])
    vips_e2e = statistics.median(walls["vips gaussblur 1.1 --min-ampl 0.1"])
    print()
    print(f"CLI end to end: {WIDTH}x{HEIGHT} RGB PPM photo in and out, {threads} threads "
          f"(VIPS_CONCURRENCY={threads}), wall time of the program, median of "
          f"{len(walls['vips gaussblur 1.1 --min-ampl 0.1'])} alternating runs")
    print()
    print("| command | ms | vips / fxkit |")
    print("| --- | ---: | ---: |")
    print(f"| fxkit filter -k gaussian:5 | {fx_e2e:.1f} | {vips_e2e / fx_e2e:.2f}x |")
    print(f"| vips gaussblur IN OUT 1.1 --min-ampl 0.1 | {vips_e2e:.1f} | 1.00x |")

if "--skip-reuse" not in sys.argv:
    r = results(["reuse", "1000", "256"])
    print()
    print("Plan reuse: 1000 RGB 256x256 images, gaussian:5, default threads")
    print()
    print("| one plan, ms | a plan per image (fx_filter), ms | speed-up |")
    print("| ---: | ---: | ---: |")
    print(f"| {float(r['reuse_ms']):.1f} | {float(r['plan_each_ms']):.1f} | "
          f"{float(r['reuse_speedup']):.2f}x |")
