"""Shared helpers of the Python binding's tests.

The tests compare fxkit's Python results with independent paths: the fxkit program
(the C library through its CLI, run on the same input files), golden checksums made
by OpenCV and ffmpeg (tests/data/), and OpenCV itself where cv2 is installed. Files
are read and written here with plain numpy parsers (PNM, PFM, WAV), so a comparison
never goes through fxkit's own readers unless that is what is tested.

Environment: FXKIT_CLI names the program (default: build/fxkit in the repository);
FXKIT_REQUIRE_CLI=1 makes a missing program an error instead of a skip (make test).
"""
import os
import shlex
import shutil
import struct
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(ROOT, "samples")
TESTDATA = os.path.join(ROOT, "tests", "data")


# --- the fxkit program ------------------------------------------------------------

def cli_path():
    path = os.environ.get("FXKIT_CLI") or os.path.join(ROOT, "build", "fxkit")
    return path if os.access(path, os.X_OK) else None


@pytest.fixture(scope="session")
def cli():
    """run(*args) runs the fxkit program, asserting exit status 0; returns stdout."""
    path = cli_path()
    if path is None:
        if os.environ.get("FXKIT_REQUIRE_CLI") == "1":
            pytest.fail("FXKIT_REQUIRE_CLI=1 but no fxkit program (set FXKIT_CLI or build build/fxkit)")
        pytest.skip("no fxkit program to compare with (set FXKIT_CLI or run make)")

    def run(*args, check=True):
        argv = [path] + [str(a) for a in args] + ["--quiet"] * (args[0] not in ("info",))
        proc = subprocess.run(argv, capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise AssertionError(f"{shlex.join(argv)} exited {proc.returncode}: {proc.stderr}")
        return proc
    return run


# --- PNM / PFM, by hand -----------------------------------------------------------

def _pnm_tokens(data, count):
    """The first `count` header tokens of a PNM/PFM file and the data's offset."""
    tokens, pos = [], 0
    while len(tokens) < count:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        tokens.append(data[pos:end].decode())
        pos = end
    return tokens, pos + 1  # one whitespace byte ends the header


def read_pnm(path):
    """P5/P6 (8 or 16-bit, big-endian) or Pf/PF (float, rows bottom to top)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] in (b"Pf", b"PF"):
        (magic, w, h, scale), off = _pnm_tokens(data, 4)
        c = 3 if magic == "PF" else 1
        dtype = "<f4" if float(scale) < 0 else ">f4"
        img = np.frombuffer(data, dtype, int(w) * int(h) * c, off).reshape(int(h), int(w), c)
        img = img[::-1].astype(np.float32)
    else:
        (magic, w, h, maxval), off = _pnm_tokens(data, 4)
        c = 3 if magic == "P6" else 1
        dtype = ">u2" if int(maxval) > 255 else "u1"
        img = np.frombuffer(data, dtype, int(w) * int(h) * c, off).reshape(int(h), int(w), c)
        img = img.astype(np.uint16 if int(maxval) > 255 else np.uint8)
    return img[:, :, 0] if c == 1 else img


def write_pnm(path, img):
    """The inverse of read_pnm for 1 or 3 channels (.pgm/.ppm or .pfm by dtype)."""
    img = np.ascontiguousarray(img)
    c = 1 if img.ndim == 2 else img.shape[2]
    assert c in (1, 3)
    h, w = img.shape[:2]
    with open(path, "wb") as f:
        if img.dtype == np.float32:
            f.write(b"%s\n%d %d\n-1.0\n" % (b"PF" if c == 3 else b"Pf", w, h))
            f.write(img[::-1].astype("<f4").tobytes())
        else:
            maxval = 255 if img.dtype == np.uint8 else 65535
            f.write(b"%s\n%d %d\n%d\n" % (b"P6" if c == 3 else b"P5", w, h, maxval))
            f.write(img.astype(">u2").tobytes() if maxval > 255 else img.tobytes())


# --- WAV, by hand -----------------------------------------------------------------

def read_wav(path):
    """(samples as frames x channels float64 in [-1, 1), rate, format) of a PCM or
    float WAV, the way libsndfile and ffmpeg scale integers (x / 2^(bits-1))."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", path
    pos, fmt, samples = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        body = data[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            tag, channels, rate = struct.unpack_from("<HHI", body)
            bits = struct.unpack_from("<H", body, 14)[0]
            if tag == 0xFFFE:
                tag = struct.unpack_from("<H", body, 24)[0]
            fmt = (tag, channels, rate, bits)
        elif cid == b"data":
            samples = body
        pos += 8 + size + (size & 1)
    tag, channels, rate, bits = fmt
    if tag == 3:
        x = np.frombuffer(samples, "<f4" if bits == 32 else "<f8").astype(np.float64)
    elif bits == 24:
        b = np.frombuffer(samples, np.uint8).reshape(-1, 3).astype(np.int32)
        x = ((b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)) << 8 >> 8) / float(1 << 23)
    else:
        x = np.frombuffer(samples, {8: "u1", 16: "<i2", 32: "<i4"}[bits]).astype(np.float64)
        x = (x - 128) / 128 if bits == 8 else x / float(1 << (bits - 1))
    name = ("f" if tag == 3 else "s") + str(bits)
    return x.reshape(-1, channels), rate, name


def wav_data(path):
    """The bytes of a WAV file's data chunk."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 12
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        if cid == b"data":
            return data[pos + 8:pos + 8 + size]
        pos += 8 + size + (size & 1)
    raise AssertionError(f"{path}: no data chunk")


# --- inputs -------------------------------------------------------------------------

def sample(name):
    return os.path.join(SAMPLES, name)


@pytest.fixture(scope="session")
def inputs(tmp_path_factory, cli):
    """Input files made once by the program from samples/ and `fxkit gen`, as PNM
    (parsed by read_pnm, so the arrays do not come from fxkit.read)."""
    d = tmp_path_factory.mktemp("inputs")
    made = {}

    def convert(name, src, *args):
        out = d / name
        cli("convert", src, "-o", out, *args)
        made[name] = str(out)

    convert("astronaut.ppm", sample("astronaut.png"))
    convert("coffee.ppm", sample("coffee.png"))
    convert("hubble.ppm", sample("hubble_deep_field.jpg"))
    for name, args in {
        "photo_rgb.ppm": ("--kind", "photo", "--size", "301x203", "--channels", "3"),
        "photo_gray.pgm": ("--kind", "photo", "--size", "257x131", "--channels", "1"),
        "photo16_rgb.ppm": ("--kind", "photo", "--size", "199x101", "--channels", "3", "--depth", "16"),
        "photo16_gray.pgm": ("--kind", "photo", "--size", "173x89", "--channels", "1", "--depth", "16"),
        "photo_f32_rgb.pfm": ("--kind", "photo", "--size", "123x77", "--channels", "3", "--depth", "f32"),
        "photo_f32_gray.pfm": ("--kind", "photo", "--size", "97x61", "--channels", "1", "--depth", "f32"),
        "noise_gray.pgm": ("--kind", "noise", "--size", "640x480", "--channels", "1"),
        "rgba.png": ("--kind", "photo", "--size", "150x100", "--channels", "4"),
        "ga.png": ("--kind", "photo", "--size", "90x70", "--channels", "2"),
    }.items():
        out = d / name
        cli("gen", "image", *args, "--seed", "7", "-o", out)
        made[name] = str(out)
    made["dir"] = str(d)
    return made


def cv2_or_skip():
    return pytest.importorskip("cv2", reason="OpenCV (cv2) is not installed")


def gpu_count(fxkit):
    info = fxkit.info()
    gpus = info.get("gpus") if isinstance(info, dict) else getattr(info, "gpus", None)
    return len(gpus or [])


def md5(arr):
    import hashlib
    return hashlib.md5(np.ascontiguousarray(arr).tobytes()).hexdigest()


def sha256(arr):
    import hashlib
    return hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest()


def assert_same(got, want, what=""):
    """Same shape, dtype and bytes."""
    assert isinstance(got, np.ndarray), f"{what}: {type(got)} is not a numpy array"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if not np.array_equal(got, want, equal_nan=got.dtype.kind == "f"):
        diff = np.argwhere(got != want)
        raise AssertionError(f"{what}: {len(diff)} samples differ, first at {tuple(diff[0])}: "
                             f"{got[tuple(diff[0])]} != {want[tuple(diff[0])]}")


def have_ffmpeg():
    return shutil.which("ffmpeg") is not None
