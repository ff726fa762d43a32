#!/usr/bin/python3
"""Regenerate the equalize goldens in tests/data/equalize/ with OpenCV.

Not needed at test time: the tests read the files this writes. Needs OpenCV's
Python module (Debian: apt-get install python3-opencv; written with OpenCV 4.6.0)
and numpy. Usage: /usr/bin/python3 scripts/goldens-equalize.py

Writes small inputs (PGM/PPM, seeded), OpenCV's outputs for them, and cases.txt,
one line per case: EXPECTED INPUT SPACE BINS ADAPTIVE TILES CLIP
(SPACE as --space; BINS 0 = default; ADAPTIVE 0/1; TILES CxR; CLIP as --clip),
plus samples.txt: sha256 of OpenCV's output pixels for the bundled samples,
read by tests/cli/test_equalize.sh.
"""
import hashlib
import os
import sys

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "equalize")
SAMPLES = os.path.join(ROOT, "samples")


def write_pnm(name, img):
    """Binary PGM/PPM, big-endian for 16 bits (as PNM says)."""
    img = np.ascontiguousarray(img)
    magic = b"P5" if img.ndim == 2 else b"P6"
    maxval = 255 if img.dtype == np.uint8 else 65535
    data = img.astype(">u2").tobytes() if img.dtype == np.uint16 else img.tobytes()
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(b"%s\n%d %d\n%d\n" % (magic, img.shape[1], img.shape[0], maxval))
        f.write(data)


def photo_like(rng, h, w, channels=1):
    """Smooth shapes plus noise: histograms with peaks and gaps, like photos."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    planes = []
    for _ in range(channels):
        a, b, c = rng.uniform(0.02, 0.2, 3)
        v = 90 + 60 * np.sin(a * x + b * y) + 40 * np.cos(c * x * y / (w + h))
        v += rng.normal(0, 12, (h, w))
        planes.append(np.clip(v, 0, 255))
    img = np.stack(planes, -1) if channels > 1 else planes[0]
    return img.round().astype(np.uint8)


def gray_inputs(rng):
    tie = np.full((1, 511), 255, np.uint8)  # N = 511: 255/510 = 0.5, the RNE tie vector
    tie[0, :4] = [0, 1, 2, 3]
    two = np.where(rng.random((17, 31)) < 0.3, 40, 200).astype(np.uint8)
    return {
        "random_97x61": rng.integers(0, 256, (61, 97), dtype=np.uint8),
        "photo_160x120": photo_like(rng, 120, 160),
        "constant_13x7": np.full((7, 13), 77, np.uint8),
        "black_8x8": np.zeros((8, 8), np.uint8),
        "two_values_31x17": two,
        "one_pixel": np.full((1, 1), 200, np.uint8),
        "narrow_64x48": rng.integers(100, 121, (48, 64), dtype=np.uint8),
        "tie_511x1": tie,
        "column_1x37": rng.integers(0, 256, (37, 1), dtype=np.uint8),
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261123)
    cases = []

    # Global equalization of gray images: cv2.equalizeHist.
    for name, img in gray_inputs(rng).items():
        write_pnm(f"in_{name}.pgm", img)
        write_pnm(f"hist_{name}.pgm", cv2.equalizeHist(img))
        cases.append(f"hist_{name}.pgm in_{name}.pgm hsv 0 0 8x8 40")

    # luma: cvtColor(RGB->YCrCb), equalizeHist(Y), cvtColor back.
    colour = {
        "rgb_random_67x45": rng.integers(0, 256, (45, 67, 3), dtype=np.uint8),
        "rgb_photo_150x101": photo_like(rng, 101, 150, 3),
    }
    for name, img in colour.items():
        write_pnm(f"in_{name}.ppm", img)
        ycc = cv2.cvtColor(img, cv2.COLOR_RGB2YCrCb)
        ycc[:, :, 0] = cv2.equalizeHist(np.ascontiguousarray(ycc[:, :, 0]))
        write_pnm(f"luma_{name}.ppm", cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB))
        cases.append(f"luma_{name}.ppm in_{name}.ppm luma 0 0 8x8 40")
        # --space gray: cvtColor(RGB->GRAY), equalizeHist.
        gray = cv2.equalizeHist(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY))
        write_pnm(f"gray_{name}.pgm", gray)
        cases.append(f"gray_{name}.pgm in_{name}.ppm gray 0 0 8x8 40")

    # CLAHE on gray 8-bit: sizes that divide, divide on one axis (OpenCV's extra
    # tile quirk), divide on none, smaller than the grid; several grids and clips.
    clahe_cases = [
        ((64, 64), (8, 8), 40.0),
        ((61, 97), (8, 8), 2.0),
        ((75, 100), (4, 3), 1.0),
        ((50, 64), (8, 8), 3.0),
        ((7, 13), (8, 8), 40.0),
        ((97, 61), (3, 5), 0.0),
        ((149, 201), (7, 9), 0.5),
        ((120, 160), (2, 2), 4.0),
        ((1, 1), (8, 8), 40.0),
        ((128, 128), (16, 16), 40.0),
    ]
    for (h, w), (tx, ty), clip in clahe_cases:
        img = photo_like(rng, h, w)
        name = f"{w}x{h}_{tx}x{ty}_{clip:g}"
        write_pnm(f"in_clahe_{name}.pgm", img)
        res = cv2.createCLAHE(clipLimit=clip, tileGridSize=(tx, ty)).apply(img)
        write_pnm(f"clahe_{name}.pgm", res)
        cases.append(f"clahe_{name}.pgm in_clahe_{name}.pgm hsv 0 1 {tx}x{ty} {clip:g}")

    # CLAHE on 16-bit gray: OpenCV 4.6 uses 65536 bins.
    img16 = (photo_like(rng, 90, 110).astype(np.uint16) * 257 +
             rng.integers(0, 257, (90, 110))).astype(np.uint16)
    write_pnm("in_clahe16_110x90.pgm", img16)
    write_pnm("clahe16_110x90_8x8_3.pgm",
              cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8)).apply(img16))
    cases.append("clahe16_110x90_8x8_3.pgm in_clahe16_110x90.pgm hsv 65536 1 8x8 3")

    with open(os.path.join(OUT, "cases.txt"), "w") as f:
        f.write("# EXPECTED INPUT SPACE BINS ADAPTIVE TILES CLIP "
                f"(OpenCV {cv2.__version__}, scripts/goldens-equalize.py)\n")
        f.write("\n".join(cases) + "\n")

    # The bundled samples, for the CLI test: sha256 of OpenCV's output pixels.
    lines = []
    for sample in ("astronaut.png", "coffee.png"):
        rgb = cv2.cvtColor(cv2.imread(os.path.join(SAMPLES, sample)), cv2.COLOR_BGR2RGB)
        gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        ycc = cv2.cvtColor(rgb, cv2.COLOR_RGB2YCrCb)
        ycc[:, :, 0] = cv2.equalizeHist(np.ascontiguousarray(ycc[:, :, 0]))
        results = {
            "gray": cv2.equalizeHist(gray),
            "luma": cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB),
            "clahe-gray": cv2.createCLAHE(40.0, (8, 8)).apply(gray),
            "clahe-gray-2-4x6": cv2.createCLAHE(2.0, (4, 6)).apply(gray),
        }
        for kind, img in results.items():
            digest = hashlib.sha256(np.ascontiguousarray(img).tobytes()).hexdigest()
            lines.append(f"{sample} {kind} {digest}")
    with open(os.path.join(OUT, "samples.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(cases)} cases and {len(lines)} sample digests to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
