"""fxkit.read / write / read_audio / write_audio: the pixels and samples of independent
readers (numpy PNM/PFM/WAV parsers, a zlib PNG decoder, OpenCV where installed) and the
CLI's files for the same options."""
import numpy as np
import pytest

import fxkit
from conftest import assert_same, cv2_or_skip, read_pnm, read_wav, sample, wav_data, write_pnm
from pngdec import read_png


@pytest.mark.parametrize("name", ["astronaut.png", "coffee.png", "hubble_deep_field.jpg"])
def test_read_equals_cli_convert(inputs, name):
    """fxkit.read of a sample is the pixels the CLI converts to PPM."""
    ppm = inputs[{"astronaut.png": "astronaut.ppm", "coffee.png": "coffee.ppm",
                  "hubble_deep_field.jpg": "hubble.ppm"}[name]]
    assert_same(fxkit.read(sample(name)), read_pnm(ppm), name)


@pytest.mark.parametrize("name", ["astronaut.png", "coffee.png"])
def test_read_png_equals_cv2(name):
    cv2 = cv2_or_skip()
    want = cv2.cvtColor(cv2.imread(sample(name), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGR2RGB)
    assert_same(fxkit.read(sample(name)), want, name)


@pytest.mark.parametrize("name", ["rgba.png", "ga.png"])
def test_read_png_with_alpha_equals_zlib_decoder(inputs, name):
    assert_same(fxkit.read(inputs[name]), read_png(inputs[name]), name)


@pytest.mark.parametrize("name", ["photo_rgb.ppm", "photo_gray.pgm", "photo16_rgb.ppm",
                                  "photo16_gray.pgm", "photo_f32_rgb.pfm", "photo_f32_gray.pfm"])
def test_read_pnm_pfm(inputs, name):
    assert_same(fxkit.read(inputs[name]), read_pnm(inputs[name]), name)


@pytest.mark.parametrize("name", ["photo_rgb.ppm", "photo_gray.pgm", "photo16_rgb.ppm",
                                  "photo16_gray.pgm", "photo_f32_rgb.pfm", "photo_f32_gray.pfm"])
@pytest.mark.parametrize("ext", [".pnm", ".png"])
def test_write_round_trip(inputs, tmp_path, name, ext):
    img = read_pnm(inputs[name])
    if ext == ".png" and img.dtype == np.float32:
        pytest.skip("PNG holds no float samples")
    if ext == ".pnm":
        ext = ".pfm" if img.dtype == np.float32 else (".pgm" if img.ndim == 2 else ".ppm")
    path = tmp_path / ("w" + ext)
    fxkit.write(str(path), img)
    back = read_png(str(path)) if ext == ".png" and img.shape[0] * img.shape[1] < 30000 else None
    if ext != ".png":
        assert_same(read_pnm(str(path)), img, "written PNM/PFM")
    elif back is not None:
        assert_same(back, img, "written PNG (zlib decoder)")
    assert_same(fxkit.read(str(path)), img, "read back")


def test_write_png_equals_cli_bytes(cli, inputs, tmp_path):
    """The same writer options give the CLI's file, byte for byte, and cv2 reads it."""
    img = read_pnm(inputs["astronaut.ppm"])
    for opts, args in [({}, []), ({"compression": 6, "png_filter": "paeth"},
                                  ["--compression", "6", "--png-filter", "paeth"])]:
        fxkit.write(str(tmp_path / "py.png"), img, **opts)
        cli("convert", inputs["astronaut.ppm"], "-o", tmp_path / "cli.png", *args)
        assert (tmp_path / "py.png").read_bytes() == (tmp_path / "cli.png").read_bytes(), opts
    try:
        import cv2
    except ImportError:
        return
    back = cv2.cvtColor(cv2.imread(str(tmp_path / "py.png"), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGR2RGB)
    assert_same(back, img, "cv2 reads fxkit's PNG")


def test_write_jpeg_equals_cli_bytes(cli, inputs, tmp_path):
    img = read_pnm(inputs["coffee.ppm"])
    fxkit.write(str(tmp_path / "py.jpg"), img, quality=85)
    cli("convert", inputs["coffee.ppm"], "-o", tmp_path / "cli.jpg", "--quality", "85")
    assert (tmp_path / "py.jpg").read_bytes() == (tmp_path / "cli.jpg").read_bytes()


def test_write_rgba_png(inputs, tmp_path):
    img = read_png(inputs["rgba.png"])
    fxkit.write(str(tmp_path / "a.png"), img)
    assert_same(read_png(str(tmp_path / "a.png")), img, "RGBA round trip")


def test_read_missing_file_raises(tmp_path):
    with pytest.raises(fxkit.Error) as e:
        fxkit.read(str(tmp_path / "nope.png"))
    assert str(e.value)


def test_read_corrupt_file_raises(tmp_path):
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    with pytest.raises(fxkit.Error):
        fxkit.read(str(tmp_path / "bad.png"))
    (tmp_path / "bad.ppm").write_bytes(b"P6\n0 10\n255\n")
    with pytest.raises(fxkit.Error):
        fxkit.read(str(tmp_path / "bad.ppm"))


def test_write_unwritable_raises(tmp_path):
    (tmp_path / "file").write_bytes(b"x")
    with pytest.raises(fxkit.Error):
        fxkit.write(str(tmp_path / "file" / "sub.png"), np.zeros((4, 4), np.uint8))


# --- audio ----------------------------------------------------------------------------

def as_float(samples):
    s = np.asarray(samples)
    if s.dtype.kind == "f":
        return s.astype(np.float64)
    return s.astype(np.float64) / float(1 << (8 * s.dtype.itemsize - 1))


@pytest.mark.parametrize("name", ["speech_mono_44k.wav", "speech_stereo_44k_24bit.wav"])
def test_read_audio_equals_wav_parser(name):
    samples, rate = fxkit.read_audio(sample(name))
    want, want_rate, _ = read_wav(sample(name))
    assert rate == want_rate
    got = as_float(samples).reshape(want.shape[0], -1)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name,fmt", [("speech_mono_44k.wav", "s16"), ("speech_stereo_44k_24bit.wav", "s24")])
def test_audio_round_trip_keeps_samples(tmp_path, name, fmt):
    samples, rate = fxkit.read_audio(sample(name))
    fxkit.write_audio(str(tmp_path / "a.wav"), samples, rate, sample_format=fmt)
    assert wav_data(tmp_path / "a.wav") == wav_data(sample(name))
    back, rate2 = fxkit.read_audio(str(tmp_path / "a.wav"))
    assert rate2 == rate
    assert_same(np.asarray(back), np.asarray(samples), "read back")


def test_write_audio_float64_equals_cli_convert(cli, tmp_path):
    x, rate, _ = read_wav(sample("speech_stereo_44k_24bit.wav"))
    fxkit.write_audio(str(tmp_path / "py.wav"), x, rate, sample_format="f64")
    cli("convert", sample("speech_stereo_44k_24bit.wav"), "--sample-format", "f64", "-o", tmp_path / "cli.wav")
    assert wav_data(tmp_path / "py.wav") == wav_data(tmp_path / "cli.wav")
    y, rate2, fmt = read_wav(tmp_path / "py.wav")
    assert (rate2, fmt) == (rate, "f64")
    assert_same(y, x, "f64 samples")


def test_write_audio_flac_round_trip(tmp_path):
    samples, rate = fxkit.read_audio(sample("speech_mono_44k.wav"))
    fxkit.write_audio(str(tmp_path / "a.flac"), samples, rate, sample_format="s16")
    assert (tmp_path / "a.flac").read_bytes()[:4] == b"fLaC"
    back, rate2 = fxkit.read_audio(str(tmp_path / "a.flac"))
    assert rate2 == rate
    np.testing.assert_array_equal(as_float(back).reshape(-1), as_float(samples).reshape(-1))


def test_pnm_helpers_round_trip(tmp_path):
    """The test's own PNM writer and reader agree (they are the yardstick)."""
    img = np.arange(2 * 3 * 3, dtype=np.uint16).reshape(2, 3, 3) * 3000
    write_pnm(tmp_path / "t.ppm", img)
    assert_same(read_pnm(str(tmp_path / "t.ppm")), img, "helper")


_FAILING_WRITE = r"""
import os, resource, signal, sys
import numpy as np
import fxkit
path = sys.argv[1]
fxkit.write(path, np.full((2, 3, 3), 7, np.uint8))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal
hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
try:
    noise = np.random.default_rng(1).integers(0, 256, (500, 700, 3), dtype=np.uint8)
    fxkit.write(path, noise)  # well over 4096 bytes in any format
    print("the write did not fail")
except fxkit.Error as e:
    print("failed:", type(e).__name__)
print(fxkit.read(path).shape, sorted(os.listdir(os.path.dirname(path))))
"""


@pytest.mark.parametrize("name", ["x.ppm", "x.png", "x.jpg"])
def test_a_failed_write_leaves_the_old_file(tmp_path, name):
    """A write that fails midway (past a file-size limit, in a child process) leaves the
    file it would have replaced as it was, and nothing beside it."""
    import subprocess
    import sys
    path = tmp_path / name
    r = subprocess.run([sys.executable, "-c", _FAILING_WRITE, str(path)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["failed: FileError", f"(2, 3, 3) ['{name}']"], r.stdout
