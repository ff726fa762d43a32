"""fxkit.equalize: OpenCV's answers (goldens and cv2) and the CLI's bytes for every option.

The CLI runs the C library's fx_equalize on the same file, so comparing with it also
covers the C API's path."""
import os

import numpy as np
import pytest

import fxkit
from conftest import TESTDATA, assert_same, cv2_or_skip, read_pnm, sample, sha256, write_pnm
from pngdec import read_png

GOLDEN_DIR = os.path.join(TESTDATA, "equalize")


def golden_cases():
    with open(os.path.join(GOLDEN_DIR, "cases.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            expected, inp, space, bins, adaptive, tiles, clip = line.split()
            yield pytest.param(expected, inp, space, int(bins), adaptive == "1", tiles, float(clip),
                               id=expected)


@pytest.mark.parametrize("expected,inp,space,bins,adaptive,tiles,clip", list(golden_cases()))
def test_opencv_goldens(expected, inp, space, bins, adaptive, tiles, clip):
    """Every case of tests/data/equalize (OpenCV 4.6's equalizeHist, YCrCb, CLAHE)."""
    img = read_pnm(os.path.join(GOLDEN_DIR, inp))
    want = read_pnm(os.path.join(GOLDEN_DIR, expected))
    got = fxkit.equalize(img, space=space, bins=bins, adaptive=adaptive, tiles=tiles, clip=clip)
    assert_same(got, want, expected)


def sample_digests():
    with open(os.path.join(GOLDEN_DIR, "samples.txt")) as f:
        for line in f:
            name, kind, digest = line.split()
            yield pytest.param(name, kind, digest, id=f"{name}:{kind}")


KINDS = {
    "gray": dict(space="gray"),
    "luma": dict(space="luma"),
    "clahe-gray": dict(space="gray", adaptive=True),
    "clahe-gray-2-4x6": dict(space="gray", adaptive=True, clip=2.0, tiles="4x6"),
}


@pytest.mark.parametrize("name,kind,digest", list(sample_digests()))
def test_sample_digests(name, kind, digest, inputs):
    """The bundled photos: sha256 of OpenCV 4.6's output pixels."""
    img = read_pnm(inputs[name.replace(".png", ".ppm")])
    assert sha256(fxkit.equalize(img, **KINDS[kind])) == digest


CLI_CASES = [
    ("photo_rgb.ppm", {}),
    ("photo_rgb.ppm", {"space": "luma"}),
    ("photo_rgb.ppm", {"space": "rgb"}),
    ("photo_rgb.ppm", {"space": "gray"}),
    ("photo_rgb.ppm", {"space": "hsv-float", "scale": "mms", "bins": 256}),
    ("photo_rgb.ppm", {"bins": 64, "scale": "max"}),
    ("photo_rgb.ppm", {"adaptive": True}),
    ("photo_rgb.ppm", {"adaptive": True, "tiles": "3x5", "clip": 2.5}),
    ("photo_gray.pgm", {}),
    ("photo_gray.pgm", {"adaptive": True, "tiles": "16x4", "clip": 0}),
    ("photo_gray.pgm", {"bins": 17, "scale": "mas"}),
    ("photo16_gray.pgm", {}),
    ("photo16_gray.pgm", {"adaptive": True, "bins": 65536, "clip": 3}),
    ("photo16_rgb.ppm", {"space": "luma"}),
    ("photo16_rgb.ppm", {"bins": 1000}),
    ("astronaut.ppm", {}),
    ("coffee.ppm", {"space": "luma", "threads": 1}),
    ("hubble.ppm", {"adaptive": True, "clip": 4}),
]


def cli_args(kwargs):
    args = []
    for key, value in kwargs.items():
        opt = "--" + key.replace("_", "-")
        args += [opt] if value is True else [opt, str(value)]
    return args


def cli_equalize(cli, src, tmp_path, kwargs, channels):
    out = tmp_path / ("cli.pgm" if channels == 1 else "cli.ppm")
    cli("equalize", *cli_args(kwargs), src, "-o", out)
    return read_pnm(str(out))


@pytest.mark.parametrize("name,kwargs", CLI_CASES, ids=[f"{n}:{k}" for n, k in CLI_CASES])
def test_same_bytes_as_cli(cli, inputs, tmp_path, name, kwargs):
    img = read_pnm(inputs[name])
    channels = 1 if img.ndim == 2 or kwargs.get("space") == "gray" else 3
    want = cli_equalize(cli, inputs[name], tmp_path, kwargs, channels)
    assert_same(fxkit.equalize(img, **kwargs), want, f"{name} {kwargs}")


def test_tiles_as_a_pair(cli, inputs, tmp_path):
    """tiles=(C, R) as --tiles CxR."""
    img = read_pnm(inputs["photo_gray.pgm"])
    want = cli_equalize(cli, inputs["photo_gray.pgm"], tmp_path, {"adaptive": True, "tiles": "3x5"}, 1)
    assert_same(fxkit.equalize(img, adaptive=True, tiles=(3, 5)), want, "tiles=(3, 5)")


def test_rgba_alpha_passes(cli, inputs, tmp_path):
    img = read_png(inputs["rgba.png"])
    cli("equalize", inputs["rgba.png"], "-o", tmp_path / "eq.png")
    got = fxkit.equalize(img)
    assert_same(got, read_png(str(tmp_path / "eq.png")), "rgba")
    assert_same(got[:, :, 3], img[:, :, 3], "alpha")


def make_mask(shape, dtype=np.uint8):
    h, w = shape[:2]
    y, x = np.mgrid[0:h, 0:w]
    return (((x - w / 2) ** 2 + (y - h / 2) ** 2) < (min(h, w) / 3) ** 2).astype(dtype) * 255


@pytest.mark.parametrize("name", ["photo_rgb.ppm", "photo_gray.pgm"])
def test_mask_array_and_path_same_as_cli(cli, inputs, tmp_path, name):
    img = read_pnm(inputs[name])
    mask = make_mask(img.shape)
    write_pnm(tmp_path / "mask.pgm", mask)
    want = cli_equalize(cli, inputs[name], tmp_path, {"mask": tmp_path / "mask.pgm", "bins": 64},
                        1 if img.ndim == 2 else 3)
    assert_same(fxkit.equalize(img, mask=mask, bins=64), want, "mask array")
    assert_same(fxkit.equalize(img, mask=str(tmp_path / "mask.pgm"), bins=64), want, "mask path")
    # The mask changes the answer (else the test proves nothing).
    assert not np.array_equal(fxkit.equalize(img, bins=64), want)


def test_mask_of_wrong_size_raises(inputs):
    img = read_pnm(inputs["photo_gray.pgm"])
    with pytest.raises(fxkit.Error):
        fxkit.equalize(img, mask=np.ones((img.shape[0] - 1, img.shape[1]), np.uint8))


# --- OpenCV itself ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["astronaut.ppm", "coffee.ppm", "hubble.ppm"])
def test_gray_equals_cv2_equalizehist(inputs, name):
    cv2 = cv2_or_skip()
    gray = cv2.cvtColor(read_pnm(inputs[name]), cv2.COLOR_RGB2GRAY)
    assert_same(fxkit.equalize(gray), cv2.equalizeHist(gray), name)


@pytest.mark.parametrize("clip,tiles", [(40.0, (8, 8)), (2.0, (4, 6)), (1.0, (3, 3))])
def test_clahe_equals_cv2(inputs, clip, tiles):
    cv2 = cv2_or_skip()
    gray = read_pnm(inputs["photo_gray.pgm"])
    want = cv2.createCLAHE(clipLimit=clip, tileGridSize=tiles).apply(gray)
    got = fxkit.equalize(gray, adaptive=True, clip=clip, tiles=f"{tiles[0]}x{tiles[1]}")
    assert_same(got, want, f"clahe {clip} {tiles}")


def test_luma_equals_cv2_ycrcb(inputs):
    cv2 = cv2_or_skip()
    rgb = read_pnm(inputs["coffee.ppm"])
    ycc = cv2.cvtColor(rgb, cv2.COLOR_RGB2YCrCb)
    ycc[:, :, 0] = cv2.equalizeHist(np.ascontiguousarray(ycc[:, :, 0]))
    assert_same(fxkit.equalize(rgb, space="luma"), cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB), "luma")


# --- plans --------------------------------------------------------------------------

def test_plan_reused_on_many_images(cli, tmp_path):
    plan = fxkit.EqualizePlan((77, 91), np.uint8, adaptive=True, tiles="4x4", clip=3)
    rng = np.random.default_rng(11)
    for i in range(4):
        img = (rng.normal(100 + 20 * i, 25, (77, 91)).clip(0, 255)).astype(np.uint8)
        write_pnm(tmp_path / f"in{i}.pgm", img)
        cli("equalize", "--adaptive", "--tiles", "4x4", "--clip", "3", tmp_path / f"in{i}.pgm",
            "-o", tmp_path / f"out{i}.pgm")
        want = read_pnm(str(tmp_path / f"out{i}.pgm"))
        assert_same(plan(img), want, f"plan run {i}")
        out = np.empty_like(img)
        plan(img, out=out)
        assert_same(out, want, f"plan run {i} into out=")


def test_plan_refuses_another_shape():
    plan = fxkit.EqualizePlan((20, 30, 3), np.uint8)
    with pytest.raises(fxkit.Error):
        plan(np.zeros((20, 31, 3), np.uint8))
    with pytest.raises(fxkit.Error):
        plan(np.zeros((20, 30, 3), np.uint16))
