"""fxkit.filter: OpenCV's answers (goldens and cv2), and the CLI's bytes for every option.

The CLI runs the C library's fx_filter on the same input file; comparing with it covers
the C API's path (the Python binding calls the same library, so one independent path
is enough: the program's file I/O, option parsing and fx_filter)."""
import os
import shlex

import numpy as np
import pytest

import fxkit
from conftest import TESTDATA, assert_same, cv2_or_skip, md5, read_pnm, write_pnm
from pngdec import read_png

GOLDEN_DIR = os.path.join(TESTDATA, "filter")


def cli_args(kwargs):
    """Python keywords as the CLI's long options ('_' -> '-')."""
    args = []
    for key, value in kwargs.items():
        opt = "--" + key.replace("_", "-")
        if value is True:
            args.append(opt)
        elif isinstance(value, (tuple, list)):
            args += [opt, ",".join(str(v) for v in value)]
        else:
            args += [opt, str(value)]
    return args


def golden_cases():
    with open(os.path.join(GOLDEN_DIR, "goldens.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, args, want = line.rstrip("\n").split("|")
            argv = shlex.split(args)
            yield pytest.param(name, argv[argv.index("-k") + 1], argv[argv.index("-b") + 1], want,
                               id=f"{name}:{args}")


@pytest.mark.parametrize("name,kernel,border,want", list(golden_cases()))
def test_opencv_goldens(name, kernel, border, want):
    """Every golden case of tests/data/filter (md5 of OpenCV 4.6's pixels)."""
    img = read_pnm(os.path.join(GOLDEN_DIR, name))
    out = fxkit.filter(img, kernel, border=border)
    assert out.dtype == img.dtype and out.shape == img.shape
    pixels = out.astype(">u2") if out.dtype == np.uint16 else out
    assert md5(pixels) == want


# (input, kernel, keywords): each run through fxkit.filter and `fxkit filter`.
CLI_CASES = [
    ("photo_rgb.ppm", "gaussian:5", {}),
    ("photo_rgb.ppm", "gaussian:7:1.5", {"border": "replicate"}),
    ("photo_rgb.ppm", "box:7", {"border": "reflect"}),
    ("photo_rgb.ppm", "box:9x3", {"border": "wrap"}),
    ("photo_rgb.ppm", "1 2 1; 2 4 2; 1 2 1 / 16", {"border": "constant", "border_value": 200}),
    ("photo_rgb.ppm", "gaussian:3", {"border": "constant", "border_value": (10, 128, 250)}),
    ("photo_rgb.ppm", "sharpen", {"scale": 0.5, "offset": 10}),
    ("photo_rgb.ppm", "1 2 3; 4 5 6; 7 8 9 / 45", {"anchor": (0, 0)}),
    ("photo_rgb.ppm", "1 2 3; 4 5 6; 7 8 9 / 45", {"anchor": (2, 1), "convolve": True}),
    ("photo_rgb.ppm", "0.1 0.2 0.3; -0.15 0 0.7; 0.05 0.2 -0.4", {"convolve": True}),
    ("photo_rgb.ppm", "sobel-x", {"depth": "f32"}),
    ("photo_rgb.ppm", "sobel-y", {"depth": "u16", "offset": 30000}),
    ("photo_rgb.ppm", "box:5", {"strategy": "direct"}),
    ("photo_rgb.ppm", "box:5", {"strategy": "separable"}),
    ("photo_rgb.ppm", "box:5", {"strategy": "box"}),
    ("photo_rgb.ppm", "emboss", {"threads": 1}),
    ("photo_gray.pgm", "edge", {}),
    ("photo_gray.pgm", "gaussian:15", {"border": "wrap"}),
    ("photo_gray.pgm", "emboss:h", {"depth": "f32"}),
    ("photo16_rgb.ppm", "gaussian:5", {}),
    ("photo16_gray.pgm", "box:4", {"border": "replicate", "depth": "u8"}),
    ("photo16_gray.pgm", "sharpen", {"border": "constant", "border_value": 250}),
    ("photo_f32_rgb.pfm", "gaussian:9", {}),
    ("photo_f32_gray.pfm", "0.5 -1.25 0.75; 2 0.125 -1; 0.3 0.3 0.3", {"border": "reflect"}),
    ("photo_f32_gray.pfm", "gaussian:15", {"strategy": "fft"}),
    ("photo_f32_gray.pfm", "edge4", {"depth": "u8"}),
    ("astronaut.ppm", "gaussian:5", {}),
    ("coffee.ppm", "box:11", {}),
    ("hubble.ppm", "gaussian:3", {"border": "constant"}),
]


def cli_filter(cli, inputs, tmp_path, name, kernel, kwargs):
    """`fxkit filter` on the input file into a PNM/PFM, parsed by read_pnm."""
    channels = 1 if read_pnm(inputs[name]).ndim == 2 else 3
    depth = kwargs.get("depth", "same")
    if depth == "f32" or (depth == "same" and name.endswith(".pfm")):
        ext = ".pfm"
    else:
        ext = ".pgm" if channels == 1 else ".ppm"
    out = tmp_path / ("cli" + ext)
    cli("filter", "-k", kernel, *cli_args(kwargs), inputs[name], "-o", out)
    return read_pnm(str(out))


@pytest.mark.parametrize("name,kernel,kwargs", CLI_CASES,
                         ids=[f"{n}:{k}:{kw}" for n, k, kw in CLI_CASES])
def test_same_bytes_as_cli(cli, inputs, tmp_path, name, kernel, kwargs):
    if kwargs.get("strategy") == "fft" and "fft" not in str(fxkit.info().get("features")) \
            and not fxkit.info().get("gpus"):
        pytest.skip("a build without FFTW has no fft strategy on the CPU")
    img = read_pnm(inputs[name])
    want = cli_filter(cli, inputs, tmp_path, name, kernel, kwargs)
    got = fxkit.filter(img, kernel, **kwargs)
    assert_same(got, want, f"{name} {kernel} {kwargs}")


def test_border_value_above_255_on_16_bit(cli, inputs, tmp_path):
    img = read_pnm(inputs["photo16_gray.pgm"])
    kwargs = {"border": "constant", "border_value": 60000}
    want = cli_filter(cli, inputs, tmp_path, "photo16_gray.pgm", "box:5", kwargs)
    assert_same(fxkit.filter(img, "box:5", **kwargs), want, "border_value 60000")


def test_border_value_above_255_on_16_bit_by_hand(inputs):
    """A constant 16-bit image with a constant border of the same value stays constant;
    with another value, the corner of a box:3 mean is (4 * v + 5 * b) / 9."""
    img = np.full((9, 11), 1000, np.uint16)
    assert_same(fxkit.filter(img, "box:3", border="constant", border_value=1000), img, "same value")
    out = fxkit.filter(img, "box:3", border="constant", border_value=60000)
    assert int(out[0, 0]) == round((4 * 1000 + 5 * 60000) / 9)
    assert int(out[4, 5]) == 1000


@pytest.mark.parametrize("alpha", ["keep", "filter"])
@pytest.mark.parametrize("name", ["rgba.png", "ga.png"])
def test_alpha_same_as_cli(cli, inputs, tmp_path, name, alpha):
    img = read_png(inputs[name])
    out = tmp_path / "cli.png"
    cli("filter", "-k", "gaussian:5", "--alpha", alpha, inputs[name], "-o", out)
    got = fxkit.filter(img, "gaussian:5", alpha=alpha)
    assert_same(got, read_png(str(out)), f"{name} alpha={alpha}")
    if alpha == "keep":
        assert_same(got[:, :, -1], img[:, :, -1], "alpha kept")


def test_numpy_kernel_equals_text_kernel(cli, inputs, tmp_path):
    img = read_pnm(inputs["photo_rgb.ppm"])
    weights = np.array([[0.1, 0.2, 0.3, 0.0, -0.1], [-0.15, 0.0, 0.7, 0.25, 0.05],
                        [0.05, 0.2, -0.4, 0.0, 0.0]])
    text = "; ".join(" ".join(repr(float(v)) for v in row) for row in weights)
    cli("filter", "-k", text, inputs["photo_rgb.ppm"], "-o", tmp_path / "w.ppm")
    want = read_pnm(str(tmp_path / "w.ppm"))
    assert_same(fxkit.filter(img, weights), want, "float64 weights")
    # float32 weights: the same numbers as text.
    w32 = weights.astype(np.float32)
    text32 = "; ".join(" ".join(repr(float(v)) for v in row) for row in w32)
    cli("filter", "-k", text32, inputs["photo_rgb.ppm"], "-o", tmp_path / "w32.ppm")
    assert_same(fxkit.filter(img, w32), read_pnm(str(tmp_path / "w32.ppm")), "float32 weights")
    assert_same(fxkit.filter(img, text), want, "text weights")


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32, np.float64])
def test_integer_and_float_weight_arrays(cli, inputs, tmp_path, dtype):
    """A weights array of any numeric dtype: the preset's bytes (sharpen, edge)."""
    img = read_pnm(inputs["photo_rgb.ppm"])
    for preset, weights in [("sharpen", [[0, -1, 0], [-1, 5, -1], [0, -1, 0]]),
                            ("edge", [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]])]:
        cli("filter", "-k", preset, inputs["photo_rgb.ppm"], "-o", tmp_path / f"{preset}.ppm")
        assert_same(fxkit.filter(img, np.array(weights, dtype)), read_pnm(str(tmp_path / f"{preset}.ppm")),
                    f"{preset} as {np.dtype(dtype).name} weights")


def test_weights_array_views(cli, inputs, tmp_path):
    """Non-contiguous weight arrays (a transposed view, a reversed view) are read by value."""
    img = read_pnm(inputs["photo_gray.pgm"])
    w = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.float64) / 45
    for name, view, text in [("transposed", w.T, "1 4 7; 2 5 8; 3 6 9 / 45"),
                             ("reversed", w[::-1, ::-1], "9 8 7; 6 5 4; 3 2 1 / 45")]:
        cli("filter", "-k", text, inputs["photo_gray.pgm"], "-o", tmp_path / f"{name}.pgm")
        assert_same(fxkit.filter(img, view), read_pnm(str(tmp_path / f"{name}.pgm")), name)


def test_kernel_from_file(cli, inputs, tmp_path):
    """kernel='@FILE' as -k @FILE (weights with comments)."""
    (tmp_path / "k.txt").write_text("# a tilted blur\n1 2 0\n2 4 2   # middle row\n0 2 1\n/ 14\n")
    cli("filter", "-k", f"@{tmp_path / 'k.txt'}", inputs["photo_rgb.ppm"], "-o", tmp_path / "f.ppm")
    img = read_pnm(inputs["photo_rgb.ppm"])
    assert_same(fxkit.filter(img, f"@{tmp_path / 'k.txt'}"), read_pnm(str(tmp_path / "f.ppm")), "@FILE")


def test_list_kernels_names_the_presets(cli):
    listing = fxkit.list_kernels()
    text = listing if isinstance(listing, str) else " ".join(map(str, listing))
    cli_text = cli("filter", "--list-kernels").stdout
    for name in ("identity", "box", "gaussian", "sharpen", "edge", "edge4", "emboss",
                 "sobel-x", "sobel-y"):
        assert name in text
        assert name in cli_text


# --- OpenCV itself --------------------------------------------------------------

CV_BORDERS = ["reflect101", "replicate", "reflect", "constant"]


def cv_border(cv2, border):
    return {"reflect101": cv2.BORDER_REFLECT_101, "replicate": cv2.BORDER_REPLICATE,
            "reflect": cv2.BORDER_REFLECT, "constant": cv2.BORDER_CONSTANT}[border]


@pytest.mark.parametrize("border", CV_BORDERS)
@pytest.mark.parametrize("k", [3, 5, 7, 11])
@pytest.mark.parametrize("name", ["astronaut.ppm", "photo16_rgb.ppm", "photo_gray.pgm"])
def test_gaussian_equals_cv2(inputs, name, k, border):
    cv2 = cv2_or_skip()
    img = read_pnm(inputs[name])
    want = cv2.GaussianBlur(img, (k, k), 0, borderType=cv_border(cv2, border))
    assert_same(fxkit.filter(img, f"gaussian:{k}", border=border), want, f"gaussian:{k}")


@pytest.mark.parametrize("border", CV_BORDERS)
@pytest.mark.parametrize("size", [(3, 3), (5, 5), (8, 8), (7, 3)])
def test_box_equals_cv2_blur(inputs, size, border):
    cv2 = cv2_or_skip()
    img = read_pnm(inputs["coffee.ppm"])
    want = cv2.blur(img, size, borderType=cv_border(cv2, border))
    kernel = f"box:{size[0]}" if size[0] == size[1] else f"box:{size[0]}x{size[1]}"
    assert_same(fxkit.filter(img, kernel, border=border), want, kernel)


# cv2.blur rounds a 16-bit box (area <= 2^15) in float in its SIMD blocks and in double in
# each row's scalar tail (row elements % 8), so an output's rounding depends on its element's
# place in the row. Issue 26 reported box:15 on a random 71x45 16-bit image one unit off: that
# comparison went through a PNG written by cv2.imwrite, which swaps RGB and BGR and so moves
# elements into and out of the tail. Through arrays (no swap) every size and width agrees.
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_box_16bit_matches_cv2_blur_at_every_element_position(channels):
    cv2 = cv2_or_skip()
    rng = np.random.default_rng(26)
    cases = [(45, 71, 15)] + [(int(h), int(w), int(k)) for h, w, k in zip(
        rng.integers(1, 90, 24), rng.integers(1, 90, 24),
        rng.choice([3, 5, 15, 31, 63, 127, 181, 182, 255], 24))]
    for h, w, k in cases:
        img = rng.integers(0, 65536, (h, w, channels), dtype=np.uint16)
        for border in CV_BORDERS:
            want = cv2.blur(img, (k, k), borderType=cv_border(cv2, border))
            want = want.reshape(img.shape)
            got = fxkit.filter(img, f"box:{k}", border=border, alpha="filter")
            assert_same(got, want,
                        f"box:{k} {w}x{h}x{channels} {border}")


@pytest.mark.parametrize("weights", [
    [[0, -1, 0], [-1, 5, -1], [0, -1, 0]],
    [[1, 2, 1], [2, 4, 2], [1, 2, 1]],
    [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]],
])
def test_filter2d_equals_cv2(inputs, weights):
    cv2 = cv2_or_skip()
    img = read_pnm(inputs["astronaut.ppm"])
    k = np.array(weights, np.float32)
    if k.sum() > 1:
        k /= k.sum()
    want = cv2.filter2D(img, -1, k, borderType=cv2.BORDER_REFLECT_101)
    assert_same(fxkit.filter(img, k), want, str(weights))


def test_float_image_gaussian_equals_cv2(inputs):
    cv2 = cv2_or_skip()
    img = read_pnm(inputs["photo_f32_rgb.pfm"])
    want = cv2.GaussianBlur(img, (5, 5), 0, borderType=cv2.BORDER_REFLECT_101)
    got = fxkit.filter(img, "gaussian:5")
    assert got.dtype == np.float32
    # Float kernels: fused multiply-adds in one fixed order (ALGORITHMS.md), so
    # OpenCV agrees to rounding, not to the bit.
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# --- out= and plans ---------------------------------------------------------------

def test_out_is_filled_and_returned(inputs):
    img = read_pnm(inputs["photo_rgb.ppm"])
    want = fxkit.filter(img, "gaussian:5")
    out = np.full_like(img, 77)
    got = fxkit.filter(img, "gaussian:5", out=out)
    assert got is out or np.shares_memory(got, out)
    assert_same(out, want, "out=")


def test_out_of_wrong_shape_or_type_raises(inputs):
    img = read_pnm(inputs["photo_rgb.ppm"])
    with pytest.raises(fxkit.Error):
        fxkit.filter(img, "gaussian:5", out=np.zeros((img.shape[0], img.shape[1] - 1, 3), np.uint8))
    with pytest.raises(fxkit.Error):
        fxkit.filter(img, "gaussian:5", out=np.zeros(img.shape, np.uint16))
    with pytest.raises(fxkit.Error):
        fxkit.filter(img, "gaussian:5", depth="f32", out=np.zeros(img.shape, np.uint8))


def test_out_with_depth(cli, inputs, tmp_path):
    img = read_pnm(inputs["photo_gray.pgm"])
    cli("filter", "-k", "sobel-x", "--depth", "f32", inputs["photo_gray.pgm"], "-o", tmp_path / "s.pfm")
    out = np.empty(img.shape, np.float32)
    fxkit.filter(img, "sobel-x", depth="f32", out=out)
    assert_same(out, read_pnm(str(tmp_path / "s.pfm")), "depth f32 into out=")


def test_plan_reused_on_many_images(cli, inputs, tmp_path):
    """One plan, many images of its shape: each the CLI's bytes."""
    plan = fxkit.FilterPlan("gaussian:7", (101, 133, 3), np.uint8, border="replicate")
    rng = np.random.default_rng(3)
    for i in range(4):
        img = rng.integers(0, 256, (101, 133, 3), dtype=np.uint8)
        write_pnm(tmp_path / f"in{i}.ppm", img)
        cli("filter", "-k", "gaussian:7", "-b", "replicate", tmp_path / f"in{i}.ppm",
            "-o", tmp_path / f"out{i}.ppm")
        want = read_pnm(str(tmp_path / f"out{i}.ppm"))
        assert_same(plan(img), want, f"plan run {i}")
        out = np.zeros_like(img)
        plan(img, out=out)
        assert_same(out, want, f"plan run {i} into out=")


def test_plan_refuses_another_shape_or_dtype():
    plan = fxkit.FilterPlan("box:3", (40, 50), np.uint8)
    with pytest.raises(fxkit.Error):
        plan(np.zeros((41, 50), np.uint8))
    with pytest.raises(fxkit.Error):
        plan(np.zeros((40, 50), np.uint16))
    with pytest.raises(fxkit.Error):
        plan(np.zeros((40, 50, 3), np.uint8))
