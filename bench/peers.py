#!/usr/bin/env python3
"""The peers of `fxkit bench --peers`: other tools timed on the bench's own inputs.

The C side (cli/jobs/bench_peers.c) writes a case's input and runs this driver:

    peers.py probe
        one line per peer: "NAME yes VERSION" or "NAME no WHY"
    peers.py run PEER JOB --in IN --out OUT --repeat N [case options]
        times PEER on the case in this process (one warm-up, N runs, the device
        synchronised for GPU peers; CLI peers: N runs of the whole program) and prints
        "RESULT MEDIAN_MS MIN_MS MAX_MS", or "SKIP WHY" when the peer has no such
        operation; its output goes to OUT for the C side to compare with fxkit's.

Inputs and outputs are .npy (images u8 HxWxC in RGB order, audio f64 frames x channels);
the io job's read cases get fxkit's file as IN, its write cases write OUT in the format.
Which peers are exact (byte for byte, checked by the C side) is decided there and
documented in `fxkit bench --help` and docs/BENCHMARKS.md; the rest are timing only.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

PEERS = ("opencv", "scikit-image", "pytorch", "cupy", "vips", "imagemagick", "ffmpeg")
# OpenCV's sigma for a gaussian given by its size alone (getGaussianKernel).
SIGMA_PER_HALF_TAP, SIGMA_BASE = 0.3, 0.8
# The taps of fxkit's fixed presets (src/filter/presets.c) and their offsets.
TAPS = {
    "sharpen": ([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], 0),
    "edge": ([[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], 0),
    "edge4": ([[0, -1, 0], [-1, 4, -1], [0, -1, 0]], 0),
    "emboss": ([[-1, -1, 0], [-1, 0, 1], [0, 1, 1]], 128),
    "sobel-x": ([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], 0),
    "sobel-y": ([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], 0),
}
CLAHE_CLIP, CLAHE_TILES = 40.0, (8, 8)  # the bench's CLAHE cases (bench_run_equalize.c)
JPEG_QUALITY = 90  # fxkit's default (FX_DEFAULT_JPEG_QUALITY)


class Skip(Exception):
    """The peer has no such operation."""


# A slow peer's timed calls stop at about this many seconds per case (at least one call):
# the kernel-size and resolutions sets with --peers ran past 5 minutes each on the H200
# (2026-11-26), most of it scikit-image's float64 gaussian at 10K and 121 taps, 5 calls each.
SLOW_PEER_BUDGET_S = 2.0


def timed(fn, repeat, sync=None):
    """One warm-up, then `repeat` timed calls (fewer for a slow peer, SLOW_PEER_BUDGET_S):
    (median, min, max) in ms and the last result."""
    t0 = time.perf_counter()
    out = fn()
    if sync:
        sync()
    warm = time.perf_counter() - t0
    if warm > 0:
        repeat = min(repeat, max(1, int(SLOW_PEER_BUDGET_S / warm)))
    times = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        if sync:
            sync()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return (times[len(times) // 2], times[0], times[-1]), out


def run_cli(argv, repeat):
    """A command-line peer: `repeat` runs of the whole program after one warm-up."""
    def once():
        r = subprocess.run(argv, capture_output=True)
        if r.returncode:
            raise RuntimeError(f"{argv[0]} failed: {r.stderr.decode(errors='replace').strip()}")
    return timed(once, repeat)[0]


# ---- small file helpers (no imaging library needed) ----

def write_pnm(path, img):
    import numpy as np
    img = np.ascontiguousarray(img)
    magic = b"P5" if img.shape[2] == 1 else b"P6"
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n255\n" % (magic, img.shape[1], img.shape[0]))
        f.write(img.tobytes())


def read_pnm(path):
    import numpy as np
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    pos += 1
    w, h, maxval = int(fields[1]), int(fields[2]), int(fields[3])
    ch = 3 if fields[0] == b"P6" else 1
    if maxval > 255:
        raise RuntimeError("16-bit PNM from a peer")
    return np.frombuffer(data, np.uint8, w * h * ch, pos).reshape(h, w, ch)


def write_wav_f64(path, audio, rate):
    data = audio.astype("<f8").tobytes()
    ch = audio.shape[1]
    fmt = struct.pack("<HHIIHH", 3, ch, rate, rate * ch * 8, ch * 8, 64)
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<I", len(fmt)) + fmt)
        f.write(b"data" + struct.pack("<I", len(data)) + data)


def read_wav_f64(path, channels):
    import numpy as np
    b = open(path, "rb").read()
    pos = 12
    while pos + 8 <= len(b):
        cid, size = b[pos:pos + 4], struct.unpack("<I", b[pos + 4:pos + 8])[0]
        if cid == b"data":
            return np.frombuffer(b[pos + 8:pos + 8 + size], "<f8").reshape(-1, channels)
        pos += 8 + size + (size & 1)
    raise RuntimeError("no data chunk in ffmpeg's output")


# ---- kernels as fxkit names them ----

def kernel_taps(spec):
    """(taps as a 2-D float array, offset) for a preset name ("box:9", "sharpen")."""
    import numpy as np
    name, _, arg = spec.partition(":")
    if name == "box":
        k = int(arg)
        return np.full((k, k), 1.0 / (k * k)), 0
    if name == "gaussian":
        k = int(arg)
        x = np.arange(k) - (k - 1) / 2
        g = np.exp(-x * x / (2 * gaussian_sigma(k) ** 2))
        g /= g.sum()
        return np.outer(g, g), 0
    if name in TAPS:
        taps, offset = TAPS[name]
        return np.array(taps, float), offset
    raise Skip(f"kernel {spec} unknown to the driver")


def gaussian_sigma(k):
    return SIGMA_PER_HALF_TAP * ((k - 1) * 0.5 - 1) + SIGMA_BASE


def to_u8(xp, a):
    return xp.clip(xp.rint(a), 0, 255).astype(xp.uint8)


# ---- probes ----

def imagemagick_program():
    """ImageMagick's `magick`, else a `convert` on PATH that says it is ImageMagick."""
    names = ["magick"] + [os.path.join(d, "convert") for d in os.environ.get("PATH", "").split(":") if d]
    for name in names:
        path = shutil.which(name)
        if not path:
            continue
        r = subprocess.run([path, "-version"], capture_output=True, text=True)
        if r.returncode == 0 and "ImageMagick" in r.stdout:
            return path, r.stdout.split("\n")[0].split("Version: ")[-1].split(" ")[1]
    return None, None


def probe_one(name):
    try:
        import numpy  # noqa: F401  every peer's data goes through numpy
    except ImportError:
        return False, "this python has no numpy"
    try:
        if name == "opencv":
            import cv2
            return True, cv2.__version__
        if name == "scikit-image":
            import skimage
            return True, skimage.__version__
        if name == "pytorch":
            import torch
            if not torch.cuda.is_available():
                return False, "PyTorch has no CUDA device"
            return True, torch.__version__
        if name == "cupy":
            import cupy
            if cupy.cuda.runtime.getDeviceCount() < 1:
                return False, "CuPy sees no CUDA device"
            return True, cupy.__version__
        if name == "vips":
            if not shutil.which("vips"):
                return False, "the vips program is not installed (apt-get install libvips-tools)"
            r = subprocess.run(["vips", "--version"], capture_output=True, text=True)
            return True, r.stdout.strip().split("-")[-1]
        if name == "imagemagick":
            path, version = imagemagick_program()
            if not path:
                return False, "ImageMagick is not installed (apt-get install imagemagick)"
            return True, version
        if name == "ffmpeg":
            if not shutil.which("ffmpeg"):
                return False, "ffmpeg is not installed (apt-get install ffmpeg)"
            r = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True)
            return True, r.stdout.split()[2]
    except ImportError as e:
        return False, f"not importable in {sys.executable} ({e})"
    except Exception as e:  # a broken install must not stop the other probes
        return False, f"{type(e).__name__}: {e}"
    return False, "unknown peer"


def probe():
    for name in PEERS:
        ok, text = probe_one(name)
        print(f"{name} {'yes' if ok else 'no'} {text}")


# ---- filter ----

def filter_opencv(img, a):
    import cv2
    import numpy as np
    name, _, arg = a.kernel.partition(":")
    if name == "box":
        k = int(arg)
        return timed(lambda: cv2.blur(img, (k, k)), a.repeat)
    if name == "gaussian":
        k = int(arg)
        return timed(lambda: cv2.GaussianBlur(img, (k, k), 0), a.repeat)
    taps, offset = kernel_taps(a.kernel)
    k = np.float32(taps)
    return timed(lambda: cv2.filter2D(img, -1, k, delta=offset), a.repeat)


def filter_skimage(img, a):
    import numpy as np
    from skimage import filters
    name, _, arg = a.kernel.partition(":")
    if name != "gaussian":
        raise Skip("scikit-image has a gaussian filter, not this kernel")
    k = int(arg)
    s = gaussian_sigma(k)
    return timed(lambda: to_u8(np, filters.gaussian(img, sigma=(s, s, 0), truncate=(k // 2) / s,
                                                     mode="mirror", preserve_range=True)),
                 a.repeat)


def filter_torch(img, a):
    import torch
    import torch.nn.functional as F
    taps, offset = kernel_taps(a.kernel)
    kh, kw = taps.shape
    ch = img.shape[2]
    x = torch.from_numpy(img).cuda().permute(2, 0, 1)[None].float()
    w = torch.tensor(taps, dtype=torch.float32, device="cuda").expand(ch, 1, kh, kw).contiguous()
    pad = (kw // 2, kw - 1 - kw // 2, kh // 2, kh - 1 - kh // 2)

    def run():
        y = F.conv2d(F.pad(x, pad, mode="reflect"), w, groups=ch) + offset
        return y.round().clamp(0, 255).to(torch.uint8)
    t, y = timed(run, a.repeat, torch.cuda.synchronize)
    return t, y[0].permute(1, 2, 0).cpu().numpy()


def filter_cupy(img, a):
    import cupy
    import cupyx.scipy.ndimage as ndi
    taps, offset = kernel_taps(a.kernel)
    x = cupy.asarray(img).astype(cupy.float32)
    w = cupy.asarray(taps, dtype=cupy.float32)[:, :, None]
    t, y = timed(lambda: to_u8(cupy, ndi.correlate(x, w, mode="mirror") + offset), a.repeat,
                 cupy.cuda.Device().synchronize)
    return t, cupy.asnumpy(y)


def filter_cli(img, a, work, peer):
    """vips and ImageMagick from PPM to PPM (the whole program: start, decode, filter, encode)."""
    src, dst = os.path.join(work, "src.ppm"), os.path.join(work, "dst.ppm")
    write_pnm(src, img)
    name, _, arg = a.kernel.partition(":")
    taps, offset = kernel_taps(a.kernel)
    if peer == "vips":
        if name == "gaussian":
            argv = ["vips", "gaussblur", src, dst, str(gaussian_sigma(int(arg))), "--precision", "integer"]
        else:
            mask = os.path.join(work, "mask.mat")
            scale = 1
            if name == "box":
                taps, scale = taps * taps.size, taps.size
            with open(mask, "w") as f:
                f.write(f"{taps.shape[1]} {taps.shape[0]} {scale} {offset}\n")
                for row in taps:
                    f.write(" ".join(str(int(round(v))) for v in row) + "\n")
            argv = ["vips", "conv", src, dst, mask, "--precision", "integer"]
    else:
        program, _ = imagemagick_program()
        if name == "gaussian":
            k = int(arg)
            op = ["-gaussian-blur", f"{k // 2}x{gaussian_sigma(k)}"]
        else:
            values = ",".join(f"{v:.9g}" for v in taps.flatten())
            op = ["-morphology", "Convolve", f"{taps.shape[1]}x{taps.shape[0]}: {values}"]
            if offset:
                op = ["-define", f"convolve:bias={offset / 255 * 100:.4f}%"] + op
        argv = [program, src] + op + [dst]
    return run_cli(argv, a.repeat), read_pnm(dst)


# ---- equalize ----

def gray_of(img):
    if img.shape[2] != 1:
        raise Skip("a gray-only operation")
    return img[:, :, 0]


def equalize_opencv(img, a):
    import cv2
    import numpy as np
    if a.adaptive:
        clahe = cv2.createCLAHE(CLAHE_CLIP, CLAHE_TILES)
        g = np.ascontiguousarray(gray_of(img))
        return timed(lambda: clahe.apply(g)[:, :, None], a.repeat)
    if img.shape[2] == 1:
        g = np.ascontiguousarray(img[:, :, 0])
        return timed(lambda: cv2.equalizeHist(g)[:, :, None], a.repeat)
    codes = {"luma": (cv2.COLOR_RGB2YCrCb, cv2.COLOR_YCrCb2RGB, 0),
             "hsv": (cv2.COLOR_RGB2HSV_FULL, cv2.COLOR_HSV2RGB_FULL, 2)}
    if a.space not in codes:
        raise Skip(f"OpenCV has no --space {a.space} pipeline")
    there, back, key = codes[a.space]

    def run():
        c = cv2.cvtColor(img, there)
        c[:, :, key] = cv2.equalizeHist(np.ascontiguousarray(c[:, :, key]))
        return cv2.cvtColor(c, back)
    return timed(run, a.repeat)


def equalize_skimage(img, a):
    import numpy as np
    from skimage import exposure
    if a.adaptive:
        raise Skip("scikit-image's CLAHE takes other parameters")
    g = gray_of(img)
    return timed(lambda: to_u8(np, exposure.equalize_hist(g) * 255)[:, :, None], a.repeat)


def equalize_xp(xp, img, space):
    """Global equalization with OpenCV's LUT (float32 scale, round half to even) on V of
    HSV (hue and saturation kept) or on a gray image, in numpy-like array code."""
    key = img[:, :, 0] if img.shape[2] == 1 else img.max(axis=2)
    hist = xp.bincount(key.ravel().astype(xp.int64), minlength=256)
    cdf = xp.cumsum(hist)
    first = int(xp.argmax(hist > 0))
    base, n = int(hist[first]), int(cdf[-1])
    if base == n:
        return img.copy()
    scale = xp.float32(255) / xp.float32(n - base)
    lut = xp.clip(xp.rint((cdf - base).astype(xp.float32) * scale), 0, 255)
    lut[:first] = 0
    v2 = lut.astype(xp.int64)[key.astype(xp.int64)]
    if img.shape[2] == 1:
        return v2.astype(xp.uint8)[:, :, None]
    v = key.astype(xp.int64)[:, :, None]
    c = img.astype(xp.int64)
    out = xp.where(v > 0, (2 * c * v2[:, :, None] + v) // xp.maximum(2 * v, 1), 0)
    return out.astype(xp.uint8)


def equalize_torch(torch, img):
    """equalize_xp's arithmetic written in torch (its names differ from numpy's)."""
    key = img[:, :, 0] if img.shape[2] == 1 else img.amax(dim=2)
    key = key.to(torch.int64)
    hist = torch.bincount(key.reshape(-1), minlength=256)
    cdf = torch.cumsum(hist, 0)
    first = int(torch.nonzero(hist)[0])
    base, n = int(hist[first]), int(cdf[-1])
    if base == n:
        return img.clone()
    scale = torch.tensor(255, dtype=torch.float32) / torch.tensor(n - base, dtype=torch.float32)
    lut = torch.clamp(torch.round((cdf - base).to(torch.float32) * scale.to(img.device)), 0, 255)
    lut[:first] = 0
    v2 = lut.to(torch.int64)[key]
    if img.shape[2] == 1:
        return v2.to(torch.uint8)[:, :, None]
    v = key[:, :, None]
    c = img.to(torch.int64)
    out = torch.where(v > 0, (2 * c * v2[:, :, None] + v) // torch.clamp(2 * v, min=1),
                      torch.zeros_like(c))
    return out.to(torch.uint8)


def equalize_gpu(img, a, lib):
    if a.adaptive or (img.shape[2] != 1 and a.space != "hsv"):
        raise Skip("only global equalization of gray or V is written for this peer")
    if lib == "cupy":
        import cupy
        x = cupy.asarray(img)
        t, y = timed(lambda: equalize_xp(cupy, x, a.space), a.repeat, cupy.cuda.Device().synchronize)
        return t, cupy.asnumpy(y)
    import torch
    x = torch.from_numpy(img).cuda()
    t, y = timed(lambda: equalize_torch(torch, x), a.repeat, torch.cuda.synchronize)
    return t, y.cpu().numpy()


def equalize_cli(img, a, work, peer):
    if a.adaptive:
        raise Skip("CLAHE is not compared with the command-line peers")
    gray_of(img)  # vips's hist_equal and -equalize work per band: gray only
    src, dst = os.path.join(work, "src.pgm"), os.path.join(work, "dst.pgm")
    write_pnm(src, img)
    if peer == "vips":
        argv = ["vips", "hist_equal", src, dst]
    else:
        argv = [imagemagick_program()[0], src, "-equalize", dst]
    return run_cli(argv, a.repeat), read_pnm(dst)


# ---- normalize ----

def normalize_ffmpeg(audio, a, work):
    import numpy as np
    if a.danpi:
        raise Skip("no peer has the published GPU variant's preset")
    src, dst = os.path.join(work, "src.wav"), os.path.join(work, "dst.wav")
    write_wav_f64(src, audio, a.rate)
    argv = ["ffmpeg", "-v", "error", "-y", "-i", src, "-af", "dynaudnorm", "-c:a", "pcm_f64le", dst]
    t = run_cli(argv, a.repeat)
    return t, np.ascontiguousarray(read_wav_f64(dst, audio.shape[1]))


# ---- io ----

def io_opencv(a):
    import cv2
    import numpy as np
    if a.op == "read":
        t, bgr = timed(lambda: cv2.imread(a.input, cv2.IMREAD_UNCHANGED), a.repeat)
        out = bgr[:, :, None] if bgr.ndim == 2 else cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        return t, np.ascontiguousarray(out)
    img = np.load(a.input)
    bgr = cv2.cvtColor(img, cv2.COLOR_RGB2BGR) if img.shape[2] == 3 else img[:, :, 0]
    params = [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY] if a.format == "jpeg" else []
    return timed(lambda: cv2.imwrite(a.out, bgr, params), a.repeat)[0], None


def io_cli(a, work, peer):
    program = "vips" if peer == "vips" else imagemagick_program()[0]
    if a.op == "read":
        dst = os.path.join(work, "dst.ppm")
        argv = [program, "copy", a.input, dst] if peer == "vips" else [program, a.input, dst]
        return run_cli(argv, a.repeat), read_pnm(dst)
    import numpy as np
    src = os.path.join(work, "src.ppm")
    write_pnm(src, np.load(a.input))
    if peer == "vips":
        target = a.out + (f"[Q={JPEG_QUALITY}]" if a.format == "jpeg" else "")
        argv = [program, "copy", src, target]
    else:
        argv = [program, src] + (["-quality", str(JPEG_QUALITY)] if a.format == "jpeg" else []) + [a.out]
    return run_cli(argv, a.repeat), None


def run(a):
    import numpy as np
    work = tempfile.mkdtemp(prefix="fxkit-peer-")
    try:
        out = None
        if a.job == "io":
            if a.peer == "opencv":
                t, out = io_opencv(a)
            elif a.peer in ("vips", "imagemagick"):
                t, out = io_cli(a, work, a.peer)
            else:
                raise Skip(f"{a.peer} is not an image I/O peer")
        else:
            data = np.load(a.input)
            table = {
                ("filter", "opencv"): lambda: filter_opencv(data, a),
                ("filter", "scikit-image"): lambda: filter_skimage(data, a),
                ("filter", "pytorch"): lambda: filter_torch(data, a),
                ("filter", "cupy"): lambda: filter_cupy(data, a),
                ("filter", "vips"): lambda: filter_cli(data, a, work, "vips"),
                ("filter", "imagemagick"): lambda: filter_cli(data, a, work, "imagemagick"),
                ("equalize", "opencv"): lambda: equalize_opencv(data, a),
                ("equalize", "scikit-image"): lambda: equalize_skimage(data, a),
                ("equalize", "pytorch"): lambda: equalize_gpu(data, a, "torch"),
                ("equalize", "cupy"): lambda: equalize_gpu(data, a, "cupy"),
                ("equalize", "vips"): lambda: equalize_cli(data, a, work, "vips"),
                ("equalize", "imagemagick"): lambda: equalize_cli(data, a, work, "imagemagick"),
                ("normalize", "ffmpeg"): lambda: normalize_ffmpeg(data, a, work),
            }
            if (a.job, a.peer) not in table:
                raise Skip(f"{a.peer} has no {a.job}")
            t, out = table[(a.job, a.peer)]()
        if out is not None:
            np.save(a.out, np.ascontiguousarray(out))
        print(f"RESULT {t[0]:.6f} {t[1]:.6f} {t[2]:.6f}")
    except Skip as e:
        print(f"SKIP {e}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    if sys.argv[1:2] == ["probe"]:
        probe()
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("command", choices=["run"])
    p.add_argument("peer", choices=PEERS)
    p.add_argument("job", choices=["filter", "equalize", "normalize", "io"])
    p.add_argument("--in", dest="input", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--kernel", default="box:3")
    p.add_argument("--space", default="hsv")
    p.add_argument("--adaptive", action="store_true")
    p.add_argument("--rate", type=int, default=44100)
    p.add_argument("--danpi", action="store_true")
    p.add_argument("--op", choices=["read", "write"], default="read")
    p.add_argument("--format", default="png")
    run(p.parse_args())


if __name__ == "__main__":
    main()
