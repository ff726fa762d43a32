#!/usr/bin/env python3
"""Golden checksums of OpenCV 4.6's outputs for the filter job's CLI test.

Run with Debian's OpenCV (`apt-get install python3-opencv`; /usr/bin/python3):
    /usr/bin/python3 scripts/goldens-filter.py
It writes the test inputs (tests/data/filter/*.ppm|pgm, deterministic) and
tests/data/filter/goldens.txt: one line per case, `input|fxkit arguments|md5`, where
md5 is over OpenCV's output pixels as fxkit writes them in a PPM/PGM (RGB order,
16-bit big-endian). Not needed at test time.

tests/data/filter/goldens-box.txt (same format) holds cv2.blur's rounding at the end of
a row: beyond its fixed-point divide cv2.blur finishes a row's int32 sums with
float(S) * float(1/area) in SIMD blocks and the last (width * channels) % 8 of them
with S * (1/area) in double (and in double everywhere when its sums are double: 16-bit
areas above 2^15, 8-bit above 2^23). Its inputs have widths that are not multiples of
8, several channels, and samples chosen so that the two rules disagree on some outputs;
colour images are blurred in the file's channel order (RGB, as fxkit holds them).
These were made with OpenCV 5.0.0 (pip's opencv-python); box_filter.simd.hpp's rules
are the same in 4.6. `--box-only` writes only these: OpenCV 5.0's filter2D rounds the
float kernel's cases of goldens.txt differently from 4.6, so goldens.txt stays 4.6's.
"""
import hashlib
import os
import sys

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
    write_goldens("goldens-box.txt", box_tail_cases())
    if "--box-only" in sys.argv[1:]:
        return
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
    write_goldens("goldens.txt", cases)


def write_goldens(file, cases):
    with open(os.path.join(HERE, file), "w") as f:
        f.write("# input|fxkit filter arguments|md5 of OpenCV %s's output pixels "
                "(scripts/goldens-filter.py)\n" % cv2.__version__)
        for name, args, out in cases:
            f.write(f"{name}|{args}|{md5(out)}\n")
    print(f"{file}: {len(cases)} cases")


def halves(rng, shape, k):
    """Samples k and k + 1 at random: box sums fall on (k + 1/2) * area often (ties)."""
    return (k + rng.integers(0, 2, shape)).astype(np.uint8)


def tie_image(shape, total):
    """16-bit samples summing to `total`, the rest zero: with the constant border and a
    box more than twice the image's size, every output's window sum is `total`."""
    a = np.zeros(shape, np.uint16)
    flat = a.reshape(-1)
    for i in range(flat.size):
        flat[i] = min(total, 65535)
        total -= int(flat[i])
    assert total == 0
    return a


def huge_box_image(rng, kw, kh, h, w):
    """8-bit samples for box:KWxKH (area above 2^23: OpenCV sums in double) under the
    replicate border where float(S) * float(1/area) and S * (1/area) round apart on an
    output before the row's last 8 elements."""
    def counts(k, n):  # how often each sample of a line enters the window of each output
        return np.array([np.bincount(np.clip(np.arange(x - k // 2, x - k // 2 + k), 0, n - 1),
                                     minlength=n) for x in range(n)])
    mv, mh = counts(kh, h), counts(kw, w)
    area = kw * kh
    while True:
        batch = rng.integers(0, 256, (256, h, w))
        s = np.einsum("ij,bjk,lk->bil", mv, batch, mh)
        f = np.rint(s.astype(np.float32) * np.float32(1.0 / area))
        d = np.rint(s * (1.0 / area))
        hit = np.nonzero((f != d)[:, :, : w - w % 8].any(axis=(1, 2)))[0]
        if len(hit):
            return batch[hit[0]].astype(np.uint8)


def blur_in_file_order(img, ksize, border):
    """cv2.blur on the samples in fxkit's order (the file's RGB), returned as BGR for md5.
    The row tail's rule goes by an element's place in memory, so cv2.blur on a BGR
    array (cv2.imread's) can differ in the tail elements of a colour image."""
    if img.ndim == 2:
        return cv2.blur(img, ksize, borderType=border)
    rgb = np.ascontiguousarray(img[:, :, ::-1])
    return cv2.blur(rgb, ksize, borderType=border)[:, :, ::-1]


def box_tail_cases():
    rng = np.random.default_rng(20261125)
    inputs = {  # (image, [(kw, kh, borders, strategies)])
        "box16_gray.pgm": (rng.integers(0, 65536, (31, 45), dtype=np.uint16),
                           [(15, 13, BORDERS, ("", "separable", "direct")),
                            (23, 19, ("reflect101",), ("", "separable")),
                            (40, 40, ("replicate",), ("",)),
                            (182, 181, ("reflect101",), ("", "separable"))]),
        "box16_rgb.ppm": (rng.integers(0, 65536, (23, 29, 3), dtype=np.uint16),
                          [(17, 17, BORDERS, ("", "separable", "direct")),
                           (31, 9, ("reflect",), ("",))]),
        "box16_narrow.pgm": (rng.integers(0, 65536, (40, 6), dtype=np.uint16),
                             [(19, 21, ("reflect101", "constant"), ("", "direct"))]),
        "box16_narrow_rgb.ppm": (rng.integers(0, 65536, (30, 2, 3), dtype=np.uint16),
                                 [(25, 13, ("reflect101", "replicate"), ("", "separable"))]),
        "box8_ties.pgm": (halves(rng, (41, 53), 14),
                          [(20, 15, BORDERS, ("", "separable", "direct")),
                           (22, 14, ("reflect101",), ("",))]),
        "box8_ties_rgb.ppm": (halves(rng, (33, 23, 3), 6),
                              [(26, 14, BORDERS, ("", "separable", "direct"))]),
        "box16_ties.pgm": (tie_image((40, 40), 7 * 202 * 202 // 2),
                           [(202, 202, ("constant",), ("", "separable"))]),
        "box8_huge.pgm": (huge_box_image(rng, 4095, 2049, 3, 20),
                          [(4095, 2049, ("replicate",), ("", "separable"))]),
    }
    cases = []
    for name, (img, boxes) in inputs.items():
        cv2.imwrite(os.path.join(HERE, name), img)
        for kw, kh, borders, strategies in boxes:
            for border in borders:
                out = blur_in_file_order(img, (kw, kh), BORDERS[border])
                for strategy in strategies:
                    extra = f" --strategy {strategy}" if strategy else ""
                    cases.append((name, f"-k box:{kw}x{kh} -b {border}{extra}", out))
    return cases


if __name__ == "__main__":
    main()
