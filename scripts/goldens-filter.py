#!/usr/bin/env python3
"""Golden checksums of OpenCV 4.6's outputs for the filter job's CLI test.

Run with Debian's OpenCV (`apt-get install python3-opencv`; /usr/bin/python3):
    /usr/bin/python3 scripts/goldens-filter.py
It writes the test inputs (tests/data/filter/*.ppm|pgm, deterministic) and
tests/data/filter/goldens.txt: one line per case, `input|fxkit arguments|md5`, where
md5 is over OpenCV's output pixels as fxkit writes them in a PPM/PGM (RGB order,
16-bit big-endian). Not needed at test time.
"""
import hashlib
import os

import cv2
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "filter")
SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples", "astronaut.png")
BORDERS = {"reflect101": cv2.BORDER_REFLECT_101, "replicate": cv2.BORDER_REPLICATE,
           "reflect": cv2.BORDER_REFLECT, "constant": cv2.BORDER_CONSTANT}


def md5(img):
    a = img
    if a.ndim == 3:
        a = a[:, :, ::-1]  # OpenCV's BGR to the file's RGB
    if a.dtype == np.uint16:
        a = a.astype(">u2")
    return hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()


def main():
    os.makedirs(HERE, exist_ok=True)
    rng = np.random.default_rng(20261123)
    inputs = {
        "noise_rgb.ppm": rng.integers(0, 256, (47, 61, 3), dtype=np.uint8),
        "noise16.pgm": rng.integers(0, 65536, (29, 37), dtype=np.uint16),
        "photo_crop.ppm": cv2.imread(SAMPLE, cv2.IMREAD_COLOR)[150:246, 180:308],
    }
    for name, img in inputs.items():
        cv2.imwrite(os.path.join(HERE, name), img)

    cases = []
    for name, img in inputs.items():
        for border, b in BORDERS.items():
            for k in (3, 5, 7, 9, 15):
                cases.append((name, f"-k gaussian:{k} -b {border}",
                              cv2.GaussianBlur(img, (k, k), 0, borderType=b)))
            cases.append((name, f"-k gaussian:5:2.5 -b {border}",
                          cv2.GaussianBlur(img, (5, 5), 2.5, borderType=b)))
            for k in (2, 3, 4, 5, 8, 11):
                cases.append((name, f"-k box:{k} -b {border}", cv2.blur(img, (k, k), borderType=b)))
            cases.append((name, f"-k box:5x3 -b {border}", cv2.blur(img, (5, 3), borderType=b)))
            sharpen = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)
            cases.append((name, f"-k sharpen -b {border}", cv2.filter2D(img, -1, sharpen, borderType=b)))
            binom = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32) / 16
            cases.append((name, f"-k '1 2 1; 2 4 2; 1 2 1 / 16' -b {border}",
                          cv2.filter2D(img, -1, binom, borderType=b)))
            odd = np.array([[0.1, 0.2, 0.3], [-0.15, 0, 0.7], [0.05, 0.2, -0.4]], np.float32)
            cases.append((name, f"-k '0.1 0.2 0.3; -0.15 0 0.7; 0.05 0.2 -0.4' -b {border}",
                          cv2.filter2D(img, -1, odd, borderType=b)))
            sobel = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
            cases.append((name, f"-k sobel-x -b {border}", cv2.filter2D(img, -1, sobel, borderType=b)))
    with open(os.path.join(HERE, "goldens.txt"), "w") as f:
        f.write("# input|fxkit filter arguments|md5 of OpenCV %s's output pixels "
                "(scripts/goldens-filter.py)\n" % cv2.__version__)
        for name, args, out in cases:
            f.write(f"{name}|{args}|{md5(out)}\n")
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
