#!/usr/bin/python3
"""Image I/O benchmark: fxkit's readers and writers against OpenCV side by side,
and a batch of small PNGs with --jobs auto against --jobs 1.

Every measurement is interleaved (fxkit, peer, fxkit, peer, ...) and the median of
REPEATS runs is reported, so that a busy machine slows both sides alike. fxkit's
stage times come from its own --timings-csv (decode_ms, encode_ms: the in-process
read and write of the file); OpenCV's are timed around cv2.imread/cv2.imwrite in
this process. Prints Markdown rows for docs/BENCHMARKS.md.

Usage: bench/image_io.py [FXKIT] [REPEATS] [all|files|batch]   (needs python3-opencv, numpy)
For a 2-core figure on a larger machine: taskset -c 0,1 bench/image_io.py ...
"""
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

FXKIT = sys.argv[1] if len(sys.argv) > 1 else "build/fxkit"
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
PARTS = sys.argv[3] if len(sys.argv) > 3 else "all"
SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples")
PHOTO_SIZE = (4096, 2304)  # width, height: the photo
SMALL_SIZE = 256
SMALL_COUNT = 200
JPEG_QUALITY = 90


def fxkit_stage(args, stage):
    """One fxkit convert; returns the stage's milliseconds from --timings-csv."""
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as t:
        csv_path = t.name
    os.unlink(csv_path)
    subprocess.run([FXKIT, "convert", "-q", "--threads", "1", "--timings-csv", csv_path] + args,
                   check=True)
    with open(csv_path) as f:
        row = list(csv.DictReader(f))[-1]
    os.unlink(csv_path)
    return float(row[stage])


def timed_ms(fn):
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def side_by_side(fx, peer):
    """Median ms of two callables, run interleaved."""
    a, b = [], []
    for _ in range(REPEATS):
        a.append(fx())
        b.append(peer())
    return statistics.median(a), statistics.median(b)


def row(what, fx_ms, peer_ms, peer_name):
    print(f"| {what} | {fx_ms:.1f} | {peer_ms:.1f} ({peer_name}) | {peer_ms / fx_ms:.2f}x |")


def make_photo(work):
    """The Hubble sample resized to 4096x2304: a photo-like 28 MB RGB image."""
    src = cv2.imread(os.path.join(SAMPLES, "hubble_deep_field.jpg"))
    img = cv2.resize(src, PHOTO_SIZE, interpolation=cv2.INTER_CUBIC)
    paths = {}
    for name, data, params in [
        ("photo.ppm", img, []),
        ("photo16.ppm", img.astype(np.uint16) * 257, []),
        ("photo.png", img, []),
        ("photo.jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]),
    ]:
        paths[name] = os.path.join(work, name)
        cv2.imwrite(paths[name], data, params)
    return paths


def single_files(work, paths):
    print("| stage, 4096x2304 RGB | fxkit (ms) | peer (ms) | fxkit faster by |")
    print("| --- | --- | --- | --- |")
    out = os.path.join(work, "out.ppm")
    copy = np.empty(PHOTO_SIZE[0] * PHOTO_SIZE[1] * 3, np.uint8)
    pixels = cv2.imread(paths["photo.ppm"]).reshape(-1)
    for name in ["photo.ppm", "photo16.ppm", "photo.png", "photo.jpg"]:
        fx, cv = side_by_side(lambda: fxkit_stage([paths[name], "-o", out], "decode_ms"),
                              lambda: timed_ms(lambda: cv2.imread(paths[name],
                                                                  cv2.IMREAD_UNCHANGED)))
        row(f"read {name}", fx, cv, "cv2.imread")
    for name in ["photo.ppm", "photo16.ppm"]:
        data = cv2.imread(paths[name], cv2.IMREAD_UNCHANGED)
        fx, cv = side_by_side(lambda: fxkit_stage([paths[name], "-o", out], "encode_ms"),
                              lambda: timed_ms(lambda: cv2.imwrite(out, data)))
        row(f"write {name}", fx, cv, "cv2.imwrite")
    memcpy = statistics.median(timed_ms(lambda: np.copyto(copy, pixels)) for _ in range(REPEATS))
    print(f"| (a copy of the 28 MB of 8-bit pixels in memory) | | {memcpy:.1f} (numpy copyto) | |")


def batch(work):
    folder = os.path.join(work, "small")
    os.makedirs(folder)
    src = cv2.imread(os.path.join(SAMPLES, "astronaut.png"))
    for i in range(SMALL_COUNT):
        y, x = (i * 7) % SMALL_SIZE, (i * 13) % SMALL_SIZE
        cv2.imwrite(os.path.join(folder, f"s{i:03d}.png"), src[y:y + SMALL_SIZE, x:x + SMALL_SIZE])
    inputs = sorted(os.path.join(folder, f) for f in os.listdir(folder))

    def run(jobs):
        out = os.path.join(work, f"out_{jobs}")
        t0 = time.perf_counter()
        subprocess.run([FXKIT, "convert", "-q", "--jobs", jobs, "--suffix", "_x", "-o", out + "/"]
                       + inputs, check=True)
        ms = (time.perf_counter() - t0) * 1e3
        shutil.rmtree(out)
        return ms

    auto, one = side_by_side(lambda: run("auto"), lambda: run("1"))
    print()
    print(f"| {SMALL_COUNT} PNGs of {SMALL_SIZE}x{SMALL_SIZE} RGB, PNG to PNG | --jobs auto (ms) "
          "| --jobs 1 (ms) | speed-up |")
    print("| --- | --- | --- | --- |")
    print(f"| fxkit convert, wall time | {auto:.0f} | {one:.0f} | {one / auto:.2f}x |")


def main():
    cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                         capture_output=True, text=True).stdout.strip()
    version = subprocess.run([FXKIT, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    print(f"Date: {time.strftime('%Y-%m-%d', time.gmtime())}, {len(os.sched_getaffinity(0))} CPUs ({cpu}), "
          f"{version}, OpenCV {cv2.__version__}, median of {REPEATS} interleaved runs; "
          "fxkit single files with --threads 1.")
    print()
    work = tempfile.mkdtemp()
    try:
        if PARTS in ("all", "files"):
            single_files(work, make_photo(work))
        if PARTS in ("all", "batch"):
            batch(work)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
