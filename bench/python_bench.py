#!/usr/bin/env python3
"""The Python binding's costs: call overhead, a large image against the C API's time,
two Python threads against one, and (with a GPU and CuPy) a device array against the
C API's device time.

    python3 bench/python_bench.py [--build build] [--repeat 15] [--threads 0]
                                  [--gpu-bench build/tests/gpu_test_gpu_filter_bench]

Needs the binding installed (pip install .; make test-python puts it in build-venv/),
numpy, and for the peers cv2 (opencv-python-headless) and, on a GPU machine, cupy.
Prints "RESULT name value" lines (times are medians of warm calls, in ms) and a
Markdown table with the targets:

  1. call overhead: a 64x64 uint8 gaussian:3, fxkit.filter vs cv2.GaussianBlur (within 2x);
  2. 4096x2304 RGB gaussian:5: a FilterPlan run (and the one-call fxkit.filter) vs
     `filter_bench compute gaussian:5 4096 2304 3 REPEAT THREADS` (within 5%);
  3. two Python threads each filtering 4096x2304 with threads=1 vs one thread (>= 1.8x
     on 2 cores: the GIL is released);
  4. CuPy 10000x6000 RGB box:3 and gaussian:3 on the device vs
     `test_gpu_filter_bench --bench`'s filter_dev_box3_ms / filter_dev_gauss3_ms (+10%).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

import fxkit

ROWS = []


def result(name, value, fmt="%.3f"):
    print(f"RESULT {name} {fmt % value}", flush=True)


def median_ms(fn, repeat, inner=1):
    """Median over `repeat` timings of `inner` calls each, per call, after a warm-up."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t0) * 1e3 / inner)
    return statistics.median(times)


def image(h, w, c, seed=1):
    return np.random.default_rng(seed).integers(0, 256, (h, w, c), dtype=np.uint8)


def call_overhead(repeat):
    img = image(64, 64, 1)[:, :, 0]
    out = np.empty_like(img)
    fx = median_ms(lambda: fxkit.filter(img, "gaussian:3", out=out), repeat, inner=500)
    plan = fxkit.FilterPlan("gaussian:3", img.shape, img.dtype)
    fxp = median_ms(lambda: plan(img, out=out), repeat, inner=500)
    result("py_call_64x64_gauss3_us", fx * 1e3, "%.1f")
    result("py_plan_64x64_gauss3_us", fxp * 1e3, "%.1f")
    try:
        import cv2
    except ImportError:
        ROWS.append(("64x64 u8 gaussian:3, one call", f"{fx * 1e3:.1f} us (plan {fxp * 1e3:.1f} us)",
                     "cv2 not installed", "within 2x", "-"))
        return
    cv = median_ms(lambda: cv2.GaussianBlur(img, (3, 3), 0, dst=out, borderType=cv2.BORDER_REFLECT_101),
                   repeat, inner=500)
    result("cv2_64x64_gauss3_us", cv * 1e3, "%.1f")
    result("py_call_vs_cv2", fx / cv, "%.2f")
    ROWS.append(("64x64 u8 gaussian:3, one call", f"{fx * 1e3:.1f} us (a plan: {fxp * 1e3:.1f} us)",
                 f"cv2.GaussianBlur {cv * 1e3:.1f} us", "within 2x",
                 f"{fx / cv:.2f}x ({fxp / cv:.2f}x with a plan)"))


def c_api_compute_ms(build, repeat, threads):
    """(median, min) of filter_bench's compute stage: the C API's fx_filter_run."""
    exe = os.path.join(build, "bench", "filter_bench")
    if not os.access(exe, os.X_OK):
        return None
    out = subprocess.run([exe, "compute", "gaussian:5", "4096", "2304", "3", str(repeat), str(threads)],
                         capture_output=True, text=True, check=True).stdout
    return (float(re.search(r"RESULT compute_ms (\S+)", out).group(1)),
            float(re.search(r"RESULT compute_min_ms (\S+)", out).group(1)))


def times_ms(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def large_image(build, repeat, threads, rounds=7):
    img = image(2304, 4096, 3)
    out = np.empty_like(img)
    plan = fxkit.FilterPlan("gaussian:5", img.shape, img.dtype, threads=threads)
    # Rounds alternating the C program and the Python calls, so that both see the same
    # machine; the medians of the rounds' medians, and the fastest run of each.
    c_med, c_min, p_med, p_min, o_med, o_min = [], [], [], [], [], []
    for _ in range(rounds):
        c = c_api_compute_ms(build, repeat, threads)
        if c is not None:
            c_med.append(c[0])
            c_min.append(c[1])
        t = times_ms(lambda: plan(img, out=out), repeat)
        p_med.append(statistics.median(t))
        p_min.append(min(t))
        t = times_ms(lambda: fxkit.filter(img, "gaussian:5", threads=threads, out=out), repeat)
        o_med.append(statistics.median(t))
        o_min.append(min(t))
    p, o = statistics.median(p_med), statistics.median(o_med)
    result("py_plan_4096x2304_gauss5_ms", p)
    result("py_plan_4096x2304_gauss5_min_ms", min(p_min))
    result("py_call_4096x2304_gauss5_ms", o)
    result("py_call_4096x2304_gauss5_min_ms", min(o_min))
    if not c_med:
        ROWS.append(("4096x2304 RGB gaussian:5", f"a plan {p:.2f} ms, one call {o:.2f} ms",
                     "no build/bench/filter_bench", "within 5%", "-"))
        return
    c = statistics.median(c_med)
    result("c_api_4096x2304_gauss5_ms", c)
    result("c_api_4096x2304_gauss5_min_ms", min(c_min))
    result("py_plan_vs_c", p / c, "%.3f")
    result("py_plan_vs_c_min", min(p_min) / min(c_min), "%.3f")
    ROWS.append(("4096x2304 RGB gaussian:5 (median; fastest)",
                 f"a plan {p:.2f}; {min(p_min):.2f} ms, one call {o:.2f}; {min(o_min):.2f} ms",
                 f"C API (filter_bench compute) {c:.2f}; {min(c_min):.2f} ms", "within 5%",
                 f"{(p / c - 1) * 100:+.1f}%; {(min(p_min) / min(c_min) - 1) * 100:+.1f}% "
                 f"(one call {(o / c - 1) * 100:+.1f}%; {(min(o_min) / min(c_min) - 1) * 100:+.1f}%)"))


def c_two_processes(build, repeat):
    """The machine's own ceiling: two filter_bench processes with one thread each, at
    once, against one alone (combined calls per second over one's)."""
    exe = os.path.join(build, "bench", "filter_bench")
    if not os.access(exe, os.X_OK):
        return None
    argv = [exe, "compute", "gaussian:5", "4096", "2304", "3", str(repeat), "1"]

    def ms(text):
        return float(re.search(r"RESULT compute_ms (\S+)", text).group(1))
    alone = ms(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    both = [ms(p.communicate()[0]) for p in procs]
    return alone * (1 / both[0] + 1 / both[1])


def threads_speedup(build, repeat):
    """Per-call medians of one thread alone, and of each of two threads running at once
    (each with a library thread count of 1): combined calls per second over one's, as
    c_two_processes measures the C program."""
    imgs = [image(2304, 4096, 3, seed) for seed in (1, 2)]
    outs = [np.empty_like(i) for i in imgs]
    barrier = threading.Barrier(2)

    def work(i, n, times, wait=False):
        if wait:
            barrier.wait()
        for _ in range(n):
            t0 = time.perf_counter()
            fxkit.filter(imgs[i], "gaussian:5", threads=1, out=outs[i])
            times.append((time.perf_counter() - t0) * 1e3)

    work(0, 1, [])
    work(1, 1, [])
    alone = []
    work(0, repeat, alone)
    both = [[], []]
    ts = [threading.Thread(target=work, args=(i, repeat, both[i], True)) for i in (0, 1)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    one = statistics.median(alone)
    two = [statistics.median(b) for b in both]
    speedup = one * (1 / two[0] + 1 / two[1])
    result("py_1thread_call_ms", one)
    result("py_2threads_call_ms", max(two))
    result("py_threads_speedup", speedup, "%.2f")
    ceiling = c_two_processes(build, repeat)
    if ceiling:
        result("c_two_processes_speedup", ceiling, "%.2f")
    ROWS.append(("2 Python threads vs 1, 4096x2304 gaussian:5, threads=1 each",
                 f"one thread {one:.1f} ms per call; two at once {two[0]:.1f} and {two[1]:.1f} ms",
                 f"two C processes at once: {ceiling:.2f}x" if ceiling else "-",
                 f">= 1.8x on {os.cpu_count()} cores", f"{speedup:.2f}x"))


def gpu(repeat, gpu_bench):
    try:
        import cupy as cp
    except ImportError:
        print("no cupy: GPU part skipped", file=sys.stderr)
        return
    info = fxkit.info()
    if not (info.get("gpus") if isinstance(info, dict) else getattr(info, "gpus", None)):
        print("no GPU in fxkit.info(): GPU part skipped", file=sys.stderr)
        return
    c_ms = {}
    if gpu_bench:
        out = subprocess.run([gpu_bench, "--bench"], capture_output=True, text=True, check=True).stdout
        c_ms = {k: float(v) for k, v in re.findall(r"RESULT filter_dev_(box3|gauss3)_ms (\S+)", out)}
    d = cp.asarray(image(6000, 10000, 3))
    dout = cp.empty_like(d)
    for kernel, key in (("box:3", "box3"), ("gaussian:3", "gauss3")):
        plan = fxkit.FilterPlan(kernel, d.shape, np.uint8, device="gpu")

        def run():
            plan(d, out=dout)
            cp.cuda.Device().synchronize()

        def call_once():
            fxkit.filter(d, kernel, out=dout)
            cp.cuda.Device().synchronize()
        ms = median_ms(run, repeat)
        call = median_ms(call_once, repeat)
        result(f"py_cupy_10000x6000_{key}_ms", ms)
        result(f"py_cupy_call_10000x6000_{key}_ms", call)
        peer = c_ms.get(key)
        ROWS.append((f"CuPy 10000x6000 RGB {kernel} on the device", f"a plan {ms:.3f} ms, one call {call:.3f} ms",
                     f"C API {peer:.3f} ms" if peer else "C API: pass --gpu-bench", "+10% at most",
                     f"{(ms / peer - 1) * 100:+.1f}%" if peer else "-"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="build folder with bench/filter_bench")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--threads", type=int, default=0, help="CPU threads of the large-image run (0: all)")
    ap.add_argument("--gpu-bench", help="tests/gpu/test_gpu_filter_bench program for the C API's device times")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: overhead,large,threads,gpu")
    a = ap.parse_args()
    skip = set(a.skip.split(","))
    print(f"fxkit {fxkit.info()}; numpy {np.__version__}; {os.cpu_count()} CPUs", file=sys.stderr)
    if "overhead" not in skip:
        call_overhead(a.repeat)
    if "large" not in skip:
        large_image(a.build, a.repeat, a.threads)
    if "threads" not in skip:
        threads_speedup(a.build, a.repeat)
    if "gpu" not in skip:
        gpu(a.repeat, a.gpu_bench)
    print("\n| what | fxkit (Python) | peer | target | result |\n| --- | --- | --- | --- | --- |")
    for row in ROWS:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
