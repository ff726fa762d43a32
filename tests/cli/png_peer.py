#!/usr/bin/env python3
"""Helper of test_png_writer.sh: independent PNG making and checking.

  png_peer.py make DIR       write DIR/<layout>.png (a plain PNG made here, filter
                             None, zlib) and DIR/<layout>.npy for every depth (8, 16)
                             and channel count (1-4), odd sizes
  png_peer.py check LIST     LIST has lines "NPY PNG": decode each PNG with OpenCV
                             (libpng) and, when installed, PIL; exit 1 naming the
                             first that does not give the pixels in NPY
"""
import struct
import sys
import zlib

import numpy as np

COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}
SIZES = {1: (1, 1), 2: (31, 7), 3: (129, 65), 4: (17, 300)}  # channels -> (w, h)


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def write_png(path, img):
    h, w, c = img.shape
    depth = 16 if img.dtype == np.uint16 else 8
    raw = b"".join(b"\0" + img[y].astype(">u2" if depth == 16 else "u1").tobytes()
                   for y in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, depth, COLOR_TYPES[c], 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
                chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def make(folder):
    rng = np.random.default_rng(1)
    for depth, dtype in ((8, np.uint8), (16, np.uint16)):
        top = np.iinfo(dtype).max
        for c, (w, h) in SIZES.items():
            # smooth ramps with noise and a flat block: every filter has something to win
            y, x = np.mgrid[0:h, 0:w]
            img = np.stack([(x * (k + 3) + y * 5 + rng.integers(0, 9, (h, w))) % (top + 1)
                            for k in range(c)], axis=-1).astype(dtype)
            img[h // 3: h // 2, :] = top // 3
            name = f"{folder}/d{depth}c{c}"
            write_png(name + ".png", img)
            np.save(name + ".npy", img)


def check(npy, png):
    import cv2
    want = np.load(npy)
    c = want.shape[2]
    got = cv2.imread(png, cv2.IMREAD_UNCHANGED)
    if got is None:
        sys.exit(f"OpenCV cannot decode {png}")
    got = got.reshape(got.shape[0], got.shape[1], -1)
    # OpenCV gives BGR(A); gray+alpha comes back as BGRA with gray in B, G and R.
    if c == 2:
        got = got[:, :, [0, 3]]
    elif c >= 3:
        got = got[:, :, [2, 1, 0, 3][:c]]
    if got.dtype != want.dtype or not np.array_equal(got, want):
        sys.exit(f"OpenCV decodes {png} to other pixels")
    try:
        from PIL import Image
    except ImportError:
        return
    pil = np.array(Image.open(png))
    pil = pil.reshape(pil.shape[0], pil.shape[1], -1)
    if want.dtype == np.uint16 and c > 1:
        return  # PIL has no 16-bit multi-channel modes (it narrows to 8 bits)
    if not np.array_equal(pil.astype(want.dtype), want):
        sys.exit(f"PIL decodes {png} to other pixels")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        with open(sys.argv[2]) as f:
            for line in f:
                check(*line.split())
