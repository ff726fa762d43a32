"""Bad arrays and bad options: fxkit.Error (or a subclass) with the library's message,
the message the CLI prints for the same option, never a crash."""
import re

import numpy as np
import pytest

import fxkit

IMG = np.zeros((16, 20, 3), np.uint8)
AUDIO = np.zeros((44100, 2), np.float64)


def cli_message(cli, *args):
    """The CLI's error message for a usage error (exit status 2), without its prefix."""
    proc = cli(*args, check=False)
    assert proc.returncode == 2, proc.stderr
    return proc.stderr.strip().splitlines()[-1].split(": ", 2)[-1]


def test_error_hierarchy():
    assert issubclass(fxkit.Error, Exception)
    for name in ("UsageError", "FormatError", "FileError", "GPUError"):
        assert issubclass(getattr(fxkit, name), fxkit.Error), name


# --- arrays -------------------------------------------------------------------------

BAD_IMAGES = [
    ("int32", np.zeros((8, 8), np.int32)),
    ("float64", np.zeros((8, 8, 3), np.float64)),
    ("int8", np.zeros((8, 8), np.int8)),
    ("bool", np.zeros((8, 8), bool)),
    ("complex", np.zeros((8, 8), np.complex64)),
    ("5 channels", np.zeros((8, 8, 5), np.uint8)),
    ("0 channels", np.zeros((8, 8, 0), np.uint8)),
    ("4-D", np.zeros((2, 8, 8, 3), np.uint8)),
    ("1-D", np.zeros(64, np.uint8)),
    ("0-D", np.array(5, np.uint8)),
    ("empty rows", np.zeros((0, 8), np.uint8)),
    ("empty columns", np.zeros((8, 0, 3), np.uint8)),
    ("object", np.array([[object()]], dtype=object)),
]


@pytest.mark.parametrize("what,arr", BAD_IMAGES, ids=[b[0] for b in BAD_IMAGES])
@pytest.mark.parametrize("job", ["filter", "equalize"])
def test_bad_image_arrays_raise(job, what, arr):
    if job == "filter" and arr.ndim == 4:
        arr = arr[None]  # filter takes a 4-D array as a batch (test_batch.py): 5-D is bad
    with pytest.raises(fxkit.Error) as e:
        if job == "filter":
            fxkit.filter(arr, "box:3")
        else:
            fxkit.equalize(arr)
    assert str(e.value), "the error says what is wrong"


@pytest.mark.parametrize("obj", [None, "image.png", 3.5, [[1, 2], [3, 4]], b"\0" * 16, {"a": 1}])
def test_non_arrays_raise(obj):
    with pytest.raises((fxkit.Error, TypeError)):
        fxkit.filter(obj, "box:3")


@pytest.mark.parametrize("kernel", [np.ones(3), np.ones((3, 3, 3)), np.ones((0, 3)),
                                    np.array([[1.0, np.nan, 1.0]]), np.array([[np.inf]]),
                                    np.array([["a", "b"]]), "", 42])
def test_bad_kernels_raise(kernel):
    with pytest.raises((fxkit.Error, TypeError)):
        fxkit.filter(IMG, kernel)


def test_equalize_refuses_float():
    with pytest.raises(fxkit.Error):
        fxkit.equalize(np.zeros((8, 8), np.float32))


@pytest.mark.parametrize("arr", [np.zeros((100, 2), np.int32), np.zeros((100, 2, 1), np.float64),
                                 np.zeros((100, 0), np.float64),
                                 np.zeros((100, 2), np.uint8)])
def test_bad_audio_arrays_raise(arr):
    with pytest.raises(fxkit.Error):
        fxkit.normalize(arr, 44100)


def test_bad_rate_raises():
    for rate in (0, -1):
        with pytest.raises(fxkit.Error):
            fxkit.normalize(AUDIO, rate)


def test_normalizer_wrong_channels_raises():
    n = fxkit.Normalizer(44100, 2)
    with pytest.raises(fxkit.Error):
        n.push(np.zeros((100, 3)))


# --- options ------------------------------------------------------------------------

def test_unknown_keyword_raises():
    with pytest.raises((fxkit.Error, TypeError)) as e:
        fxkit.filter(IMG, "box:3", bordr="wrap")
    assert "bordr" in str(e.value)
    with pytest.raises((fxkit.Error, TypeError)):
        fxkit.equalize(IMG, tile="8x8")
    with pytest.raises((fxkit.Error, TypeError)):
        fxkit.normalize(AUDIO, 44100, windw=31)


@pytest.mark.parametrize("call,cli_args,fragment", [
    (lambda: fxkit.filter(IMG, "gaussian:4"), ["filter", "-k", "gaussian:4"], "must be odd"),
    (lambda: fxkit.filter(IMG, "nope:3"), ["filter", "-k", "nope:3"], None),
    (lambda: fxkit.filter(IMG, "1 2; 3"), ["filter", "-k", "1 2; 3"], None),
    (lambda: fxkit.filter(IMG, "box:3", border="foo"), ["filter", "-k", "box:3", "--border", "foo"],
     "not one of"),
    (lambda: fxkit.filter(IMG, "box:3", scale=1e12), ["filter", "-k", "box:3", "--scale", "1e12"],
     "out of range"),
    (lambda: fxkit.filter(IMG, "box:3", strategy="magic"), ["filter", "-k", "box:3", "--strategy", "magic"],
     "not one of"),
    (lambda: fxkit.filter(IMG, "box:3", depth="u32"), ["filter", "-k", "box:3", "--depth", "u32"],
     "not one of"),
    (lambda: fxkit.filter(IMG, "box:3", alpha="drop"), ["filter", "-k", "box:3", "--alpha", "drop"],
     "not one of"),
    (lambda: fxkit.equalize(IMG, clip=-1), ["equalize", "--clip", "-1"], "out of range"),
    (lambda: fxkit.equalize(IMG, tiles="0x8"), ["equalize", "--tiles", "0x8"], "out of range"),
    (lambda: fxkit.equalize(IMG, space="lab"), ["equalize", "--space", "lab"], "not one of"),
    (lambda: fxkit.equalize(IMG, bins=1), ["equalize", "--bins", "1"], None),
    (lambda: fxkit.equalize(IMG, scale="log"), ["equalize", "--scale", "log"], "not one of"),
    (lambda: fxkit.normalize(AUDIO, 44100, window=30), ["normalize", "--window", "30"], "odd"),
    (lambda: fxkit.normalize(AUDIO, 44100, peak=2), ["normalize", "--peak", "2"], "out of range"),
    (lambda: fxkit.normalize(AUDIO, 44100, max_gain=0.5), ["normalize", "--max-gain", "0.5"],
     "out of range"),
    (lambda: fxkit.normalize(AUDIO, 44100, compat="ffmpeg4"), ["normalize", "--compat", "ffmpeg4"],
     "not one of"),
    (lambda: fxkit.Normalizer(44100, 2, frame_ms=5), ["normalize", "--frame-ms", "5"], "out of range"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_bad_options_raise_with_the_cli_message(cli, inputs, call, cli_args, fragment):
    with pytest.raises(fxkit.UsageError) as e:
        call()
    msg = str(e.value)
    if fragment:
        assert fragment in msg
    src = inputs["photo_rgb.ppm"] if cli_args[0] != "normalize" else \
        __import__("conftest").sample("speech_mono_44k.wav")
    want = cli_message(cli, *cli_args, src, "-o", inputs["dir"] + "/never" +
                       (".wav" if cli_args[0] == "normalize" else ".ppm"))
    # The library's detail, as the CLI prints it after its "fxkit: JOB: --option:" prefix
    # (or "-k "); a number is quoted as typed there, so compare from " is " on.
    detail = re.sub(r"^(-k |--[a-z-]+: )", "", want)
    if re.match(r"^\S+ is ", detail):
        detail = detail.split(" is ", 1)[1]
    assert detail in msg, f"python: {msg!r}\ncli:    {want!r}"


def test_error_kinds(tmp_path):
    with pytest.raises(fxkit.FileError):
        fxkit.read(str(tmp_path / "missing.png"))
    (tmp_path / "bad.ppm").write_bytes(b"P6\n4 4\n255\n" + b"\0" * 5)
    with pytest.raises(fxkit.FormatError):
        fxkit.read(str(tmp_path / "bad.ppm"))
    with pytest.raises(fxkit.UsageError):
        fxkit.filter(IMG, "box:3", border="foo")
