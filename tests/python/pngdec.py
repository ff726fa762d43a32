"""A small PNG decoder (non-interlaced, 8/16-bit, gray/GA/RGB/RGBA) in numpy and zlib,
so the tests read PNG files without fxkit's reader or OpenCV."""
import struct
import zlib

import numpy as np

_CHANNELS = {0: 1, 4: 2, 2: 3, 6: 4}


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat = 8, []
    while pos < len(data):
        size, ctype = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + size]
        if ctype == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert interlace == 0 and colour in _CHANNELS and depth in (8, 16), (depth, colour)
        elif ctype == b"IDAT":
            idat.append(body)
        pos += 12 + size
    c = _CHANNELS[colour]
    bpp = c * depth // 8
    stride = w * bpp
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(h, stride + 1)
    out = np.zeros((h, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(h):
        ftype, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if ftype == 0:
            cur = line
        elif ftype == 2:
            cur = (line + prev) & 255
        else:
            cur = np.zeros(stride, np.int32)
            for x in range(stride):  # sub, avg and paeth depend on the left byte
                a = cur[x - bpp] if x >= bpp else 0
                b = prev[x]
                if ftype == 1:
                    p = a
                elif ftype == 3:
                    p = (a + b) >> 1
                else:
                    cc = prev[x - bpp] if x >= bpp else 0
                    pa, pb, pc = abs(b - cc), abs(a - cc), abs(a + b - 2 * cc)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
                cur[x] = (line[x] + p) & 255
        out[y] = cur
        prev = cur
    if depth == 16:
        img = out.view(">u2").astype(np.uint16).reshape(h, w, c)
    else:
        img = out.reshape(h, w, c)
    return img[:, :, 0] if c == 1 else img
