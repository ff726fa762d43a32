#!/usr/bin/env python3
"""PNG writing: fxkit's encoder against OpenCV (cv2.imwrite at its defaults) and
fpng (PyPI `fpng`, optional), side by side in one run, medians of interleaved
repeats.

    python3 bench/png_write.py [--fxkit build/fxkit] [--repeats 7] [--quick]

Reports, for the 4096x2304 RGB photo (`fxkit gen image --kind photo --seed 1`),
and for gray, 16-bit RGB, RGBA, flat (checker) and noise images and the bundled
photos:
  - the encode stage of `fxkit convert IN -o OUT.png` (--timings-csv) at its
    defaults and with --threads 1 and 2, and the file size;
  - cv2.imwrite of the same pixels in process (time and size);
  - fpng's in-process encode (RGB/RGBA 8-bit only) when the package imports;
  - end to end: `fxkit convert x.ppm -o x.png` (the whole process) against
    OpenCV reading the PPM and writing the PNG in process;
  - every fxkit file decoded by OpenCV and compared with the input pixels.
Use a Python with numpy and cv2 (Debian's /usr/bin/python3); for fpng, a venv
with --system-site-packages and `pip install fpng`.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

try:
    import fpng  # noqa: F401  (PyPI fpng)
    from fpng import fpng_ext
except ImportError:
    fpng_ext = None


def fxkit_encode(fx, src, dst, extra):
    """Run fxkit convert; returns (encode-stage ms, process wall ms)."""
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as t:
        csv_path = t.name
    cmd = [fx, "convert", src, "-o", dst, "--timings-csv", csv_path, "-q"] + extra
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = (time.perf_counter() - t0) * 1e3
    with open(csv_path, newline="") as f:
        row = list(csv.DictReader(f))[-1]
    os.unlink(csv_path)
    return float(row["encode_ms"]), wall


def cv2_write(img, dst):
    t0 = time.perf_counter()
    if not cv2.imwrite(dst, img):
        raise RuntimeError("cv2.imwrite failed")
    return (time.perf_counter() - t0) * 1e3


def fpng_write(rgb):
    """fpng's in-process encode (RGB or RGBA, 8-bit); returns (ms, bytes)."""
    t0 = time.perf_counter()
    data = fpng_ext.encode_ndarray(np.ascontiguousarray(rgb))
    return (time.perf_counter() - t0) * 1e3, len(data)


def opencv_e2e(src, dst):
    t0 = time.perf_counter()
    img = cv2.imread(src, cv2.IMREAD_UNCHANGED)
    cv2.imwrite(dst, img)
    return (time.perf_counter() - t0) * 1e3


def med(xs):
    return statistics.median(xs)


def check_pixels(src_img, png_path):
    back = cv2.imread(png_path, cv2.IMREAD_UNCHANGED)
    if back is None or back.shape != src_img.shape or not np.array_equal(back, src_img):
        sys.exit(f"png_write: {png_path} does not decode to the input's pixels")


def gen(fx, kind, size, channels, depth, path):
    subprocess.run([fx, "gen", "image", "--kind", kind, "--size", size, "--channels",
                    str(channels), "--depth", str(depth), "--seed", "1", "-o", path, "-q"],
                   check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fxkit", default="build/fxkit")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="small images, 3 repeats")
    ap.add_argument("--samples", default="samples")
    args = ap.parse_args()
    fx = args.fxkit
    reps = 3 if args.quick else args.repeats
    big = "1024x576" if args.quick else "4096x2304"
    side = "512x512" if args.quick else "2048x2048"

    tmp = tempfile.mkdtemp(prefix="png_write.")
    cases = [  # (label, input path, is the headline photo)
        (f"photo RGB {big}", os.path.join(tmp, "photo.ppm"), True),
        (f"photo gray {big}", os.path.join(tmp, "gray.pgm"), False),
        (f"photo RGB 16-bit {side}", os.path.join(tmp, "rgb16.ppm"), False),
        (f"photo RGBA {side}", os.path.join(tmp, "rgba.png"), False),
        (f"flat (checker) RGB {side}", os.path.join(tmp, "flat.ppm"), False),
        (f"noise RGB {side}", os.path.join(tmp, "noise.ppm"), False),
    ]
    if not args.quick:  # the large photo
        cases.append(("photo RGB 10000x6000", os.path.join(tmp, "large.ppm"), False))
        gen(fx, "photo", "10000x6000", 3, 8, cases[-1][1])
    gen(fx, "photo", big, 3, 8, cases[0][1])
    gen(fx, "photo", big, 1, 8, cases[1][1])
    gen(fx, "photo", side, 3, 16, cases[2][1])
    gen(fx, "photo", side, 4, 8, cases[3][1])
    gen(fx, "checker", side, 3, 8, cases[4][1])
    gen(fx, "noise", side, 3, 8, cases[5][1])
    for name in ("astronaut.png", "coffee.png"):
        p = os.path.join(args.samples, name)
        if os.path.exists(p):
            cases.append((f"sample {name}", p, False))

    threads = os.cpu_count() or 1
    print(f"# png_write: {threads} CPU(s), {reps} repeats, medians; fpng "
          f"{'present' if fpng_ext else 'not installed'}")
    print()
    print("| image | fxkit encode ms (default) | fxkit MB | cv2.imwrite ms | cv2 MB | "
          "fpng ms | fpng MB | fxkit --compression 1 ms | MB | fxkit -t1 ms | -t2 ms | t1/t2 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    headline = None
    for label, src, is_headline in cases:
        img = cv2.imread(src, cv2.IMREAD_UNCHANGED)
        out_fx = os.path.join(tmp, "fx.png")
        out_l1 = os.path.join(tmp, "fx1.png")
        out_cv = os.path.join(tmp, "cv.png")
        t = {k: [] for k in ("fx", "l1", "t1", "t2", "cv", "fp", "fxe2e", "cve2e")}
        fp_size = None
        for _ in range(reps):  # interleaved, so load changes hit every writer alike
            t["fx"].append(fxkit_encode(fx, src, out_fx, [])[0])
            t["cv"].append(cv2_write(img, out_cv))
            if fpng_ext is not None and img.dtype == np.uint8 and img.ndim == 3:
                rgb = cv2.cvtColor(img, cv2.COLOR_BGR2RGB if img.shape[2] == 3 else cv2.COLOR_BGRA2RGBA)
                ms, fp_size = fpng_write(rgb)
                t["fp"].append(ms)
            t["l1"].append(fxkit_encode(fx, src, out_l1, ["--compression", "1"])[0])
            t["t1"].append(fxkit_encode(fx, src, out_fx, ["--threads", "1"])[0])
            t["t2"].append(fxkit_encode(fx, src, out_fx, ["--threads", "2"])[0])
            if is_headline:
                t["fxe2e"].append(fxkit_encode(fx, src, out_fx, [])[1])
                t["cve2e"].append(opencv_e2e(src, out_cv))
        check_pixels(img, out_fx)
        check_pixels(img, out_l1)
        mb = lambda p: os.path.getsize(p) / 1e6  # noqa: E731
        fp_ms = f"{med(t['fp']):.0f}" if t["fp"] else "-"
        fp_mb = f"{fp_size / 1e6:.2f}" if fp_size else "-"
        print(f"| {label} | {med(t['fx']):.0f} | {mb(out_fx):.2f} | {med(t['cv']):.0f} | "
              f"{mb(out_cv):.2f} | {fp_ms} | {fp_mb} | {med(t['l1']):.0f} | {mb(out_l1):.2f} | "
              f"{med(t['t1']):.0f} | {med(t['t2']):.0f} | {med(t['t1']) / med(t['t2']):.2f} |")
        if is_headline:
            headline = (med(t["fx"]), med(t["fp"]) if t["fp"] else None, mb(out_fx), mb(out_cv),
                        med(t["fxe2e"]), med(t["cve2e"]), med(t["t1"]) / med(t["t2"]))
    fx_ms, fp_ms, fx_mb, cv_mb, fx_e2e, cv_e2e, scaling = headline
    print()
    print(f"Headline ({cases[0][0]}):")
    print(f"- encode stage {fx_ms:.0f} ms" +
          (f" vs fpng {fp_ms:.0f} ms ({fp_ms / fx_ms:.2f}x)" if fp_ms else " (fpng not installed)"))
    print(f"- file {fx_mb:.2f} MB vs cv2.imwrite {cv_mb:.2f} MB ({fx_mb / cv_mb:.3f})")
    print(f"- end to end: fxkit convert {fx_e2e:.0f} ms vs OpenCV read+write {cv_e2e:.0f} ms "
          f"({cv_e2e / fx_e2e:.2f}x)")
    print(f"- encode with 1 vs 2 threads: {scaling:.2f}x")


if __name__ == "__main__":
    main()
