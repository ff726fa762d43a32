"""Arrays in any layout, outputs that may not be written, and calls from many threads.

Each result is compared with the CLI's bytes for the same pixels (or with the result for
the array's contiguous copy, which is itself checked against the CLI)."""
import threading

import numpy as np
import pytest

import fxkit
from conftest import assert_same, read_pnm, write_pnm


@pytest.fixture(scope="module")
def photo(inputs):
    return read_pnm(inputs["photo_rgb.ppm"])


def cli_filter_of(cli, tmp_path, img, kernel="gaussian:5"):
    img = np.ascontiguousarray(img)
    ext = ".pfm" if img.dtype == np.float32 else (".pgm" if img.ndim == 2 else ".ppm")
    write_pnm(tmp_path / ("v_in" + ext), img)
    cli("filter", "-k", kernel, tmp_path / ("v_in" + ext), "-o", tmp_path / ("v_out" + ext))
    return read_pnm(str(tmp_path / ("v_out" + ext)))


def views(img):
    """Non-contiguous views of an H x W x 3 image (name, view)."""
    big = np.zeros((img.shape[0] * 2, img.shape[1] * 3, 4), img.dtype)
    big[::2, ::3, :3] = img
    return [
        ("row and column steps", big[::2, ::3, :3]),
        ("transposed", np.ascontiguousarray(img.transpose(1, 0, 2)).transpose(1, 0, 2)),
        ("negative strides", np.ascontiguousarray(img[::-1, ::-1])[::-1, ::-1]),
        ("channel-first memory", np.ascontiguousarray(img.transpose(2, 0, 1)).transpose(1, 2, 0)),
        ("crop of a bigger image", np.pad(img, ((5, 3), (7, 2), (0, 0)))[5:-3, 7:-2]),
        ("fortran order", np.asfortranarray(img)),
    ]


@pytest.mark.parametrize("which", range(6))
@pytest.mark.parametrize("src", ["photo_rgb.ppm", "photo16_rgb.ppm", "photo_f32_rgb.pfm"])
def test_views_filter_like_their_copy(cli, inputs, tmp_path, src, which):
    photo = read_pnm(inputs[src])
    name, view = views(photo)[which]
    assert np.array_equal(view, photo)
    want = cli_filter_of(cli, tmp_path, photo)
    before = view.copy()
    assert_same(fxkit.filter(view, "gaussian:5"), want, name)
    assert_same(view, before, f"{name}: input untouched")


@pytest.mark.parametrize("which", range(6))
def test_views_equalize_like_their_copy(photo, which):
    name, view = views(photo)[which]
    assert_same(fxkit.equalize(view), fxkit.equalize(np.ascontiguousarray(photo)), name)


def test_gray_views(cli, tmp_path, inputs):
    gray = read_pnm(inputs["photo_gray.pgm"])
    want = cli_filter_of(cli, tmp_path, gray, "box:3")
    for name, view in [("transposed", np.ascontiguousarray(gray.T).T),
                       ("steps", np.repeat(np.repeat(gray, 2, 0), 2, 1)[::2, ::2]),
                       ("negative", np.ascontiguousarray(gray[:, ::-1])[:, ::-1]),
                       ("H x W x 1", gray[:, :, None])]:
        got = fxkit.filter(view, "box:3")
        assert_same(got.reshape(gray.shape), want, name)


def test_out_view_with_strides(cli, tmp_path, photo):
    want = cli_filter_of(cli, tmp_path, photo)
    big = np.zeros((photo.shape[0], photo.shape[1] * 2, 3), np.uint8)
    out = big[:, ::2]
    fxkit.filter(photo, "gaussian:5", out=out)
    assert_same(np.ascontiguousarray(out), want, "strided out=")
    assert not big[:, 1::2].any(), "samples between the out view's untouched"


def test_read_only_input_is_fine(cli, tmp_path, photo):
    ro = photo.copy()
    ro.setflags(write=False)
    assert_same(fxkit.filter(ro, "gaussian:5"), cli_filter_of(cli, tmp_path, photo), "read-only input")


def test_read_only_out_raises(photo):
    out = np.zeros_like(photo)
    out.setflags(write=False)
    with pytest.raises((fxkit.Error, ValueError, TypeError)):
        fxkit.filter(photo, "gaussian:5", out=out)
    assert not out.any()
    with pytest.raises((fxkit.Error, ValueError, TypeError)):
        fxkit.equalize(photo, out=out)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_every_dtype_and_channel_count(dtype, channels):
    rng = np.random.default_rng(channels)
    shape = (23, 31) if channels == 1 else (23, 31, channels)
    img = (rng.random(shape) * (255 if dtype == np.uint8 else 60000)).astype(dtype)
    out = fxkit.filter(img, "identity")
    assert_same(out, img, f"identity {dtype} x{channels}")
    # box:3 on a constant image is the constant (an independent expectation).
    const = np.full(shape, 100, dtype)
    assert_same(fxkit.filter(const, "box:3"), const, "constant stays")


# --- threads -------------------------------------------------------------------------

def test_threads_give_right_results(cli, tmp_path):
    """Two (and four) Python threads filtering at once: each result the CLI's bytes.
    (No timing is asserted; bench/python_bench.py measures the parallel speed-up.)"""
    rng = np.random.default_rng(5)
    imgs = [rng.integers(0, 256, (600, 800, 3), dtype=np.uint8) for _ in range(4)]
    wants = [cli_filter_of(cli, tmp_path, im, "gaussian:7") for im in imgs]
    results = [None] * 4
    errors = []
    barrier = threading.Barrier(4)

    def work(i):
        try:
            barrier.wait()
            for _ in range(3):
                results[i] = fxkit.filter(imgs[i], "gaussian:7", threads=1)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i in range(4):
        assert_same(results[i], wants[i], f"thread {i}")


def test_threads_share_a_plan_and_equalize(cli, tmp_path):
    rng = np.random.default_rng(9)
    imgs = [rng.integers(0, 256, (300, 400), dtype=np.uint8) for _ in range(3)]
    wants = []
    for i, im in enumerate(imgs):
        write_pnm(tmp_path / f"t{i}.pgm", im)
        cli("equalize", "--adaptive", tmp_path / f"t{i}.pgm", "-o", tmp_path / f"e{i}.pgm")
        wants.append(read_pnm(str(tmp_path / f"e{i}.pgm")))
    results, errors = [None] * 3, []

    def work(i):
        try:
            for _ in range(5):
                results[i] = fxkit.equalize(imgs[i], adaptive=True)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i in range(3):
        assert_same(results[i], wants[i], f"thread {i}")
