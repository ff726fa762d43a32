"""CuPy and PyTorch CUDA arrays: the result is the same library's array on the same device,
its bytes the CPU's (which the other tests check against OpenCV and the CLI), and the
input is left untouched. Skipped, with the reason, without a GPU, CuPy or PyTorch."""
import numpy as np
import pytest

import fxkit
from conftest import assert_same, gpu_count, read_pnm

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def need_gpu():
    if gpu_count(fxkit) == 0:
        pytest.skip("no GPU: fxkit.info() lists none (a CPU-only build or no NVIDIA driver)")


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy", reason="CuPy is not installed")


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA device")
    return torch


FILTER_CASES = [
    ("photo_rgb.ppm", "gaussian:5", {}),
    ("photo_rgb.ppm", "box:7", {"border": "replicate"}),
    ("photo_rgb.ppm", "sharpen", {"border": "constant", "border_value": 40}),
    ("photo_rgb.ppm", "sobel-x", {"depth": "f32"}),
    ("photo_gray.pgm", "gaussian:15", {"border": "wrap"}),
    ("photo16_rgb.ppm", "gaussian:9", {}),
    ("photo_f32_rgb.pfm", "box:5", {}),
    ("astronaut.ppm", "gaussian:31", {}),
]
EQUALIZE_CASES = [
    ("photo_rgb.ppm", {}),
    ("photo_rgb.ppm", {"space": "luma"}),
    ("photo_gray.pgm", {"adaptive": True, "clip": 2}),
    ("photo16_gray.pgm", {}),
    ("coffee.ppm", {"space": "rgb"}),
]


def ids(cases):
    return [":".join(str(c) for c in case) for case in cases]


@pytest.mark.parametrize("name,kernel,kwargs", FILTER_CASES, ids=ids(FILTER_CASES))
def test_cupy_filter_equals_cpu(cp, inputs, name, kernel, kwargs):
    img = read_pnm(inputs[name])
    want = fxkit.filter(img, kernel, device="cpu", **kwargs)
    d = cp.asarray(img)
    got = fxkit.filter(d, kernel, **kwargs)
    assert isinstance(got, cp.ndarray), type(got)
    assert got.device.id == d.device.id
    assert_same(cp.asnumpy(got), want, f"cupy {name} {kernel}")
    assert_same(cp.asnumpy(d), img, "input untouched")


@pytest.mark.parametrize("name,kwargs", EQUALIZE_CASES, ids=ids(EQUALIZE_CASES))
def test_cupy_equalize_equals_cpu(cp, inputs, name, kwargs):
    img = read_pnm(inputs[name])
    want = fxkit.equalize(img, device="cpu", **kwargs)
    d = cp.asarray(img)
    got = fxkit.equalize(d, **kwargs)
    assert isinstance(got, cp.ndarray)
    assert_same(cp.asnumpy(got), want, f"cupy equalize {name}")
    assert_same(cp.asnumpy(d), img, "input untouched")


@pytest.mark.parametrize("name,kernel,kwargs", FILTER_CASES, ids=ids(FILTER_CASES))
def test_torch_filter_equals_cpu(torch, inputs, name, kernel, kwargs):
    img = read_pnm(inputs[name])
    if img.dtype == np.uint16 and not hasattr(torch, "uint16"):
        pytest.skip("this PyTorch has no uint16")
    want = fxkit.filter(img, kernel, device="cpu", **kwargs)
    t = torch.from_numpy(img.copy()).cuda()
    got = fxkit.filter(t, kernel, **kwargs)
    assert isinstance(got, torch.Tensor) and got.is_cuda and got.device == t.device
    assert_same(got.cpu().numpy(), want, f"torch {name} {kernel}")
    assert_same(t.cpu().numpy(), img, "input untouched")


@pytest.mark.parametrize("name,kwargs", EQUALIZE_CASES, ids=ids(EQUALIZE_CASES))
def test_torch_equalize_equals_cpu(torch, inputs, name, kwargs):
    img = read_pnm(inputs[name])
    if img.dtype == np.uint16 and not hasattr(torch, "uint16"):
        pytest.skip("this PyTorch has no uint16")
    want = fxkit.equalize(img, device="cpu", **kwargs)
    t = torch.from_numpy(img.copy()).cuda()
    got = fxkit.equalize(t, **kwargs)
    assert isinstance(got, torch.Tensor) and got.is_cuda and got.device == t.device
    assert_same(got.cpu().numpy(), want, f"torch equalize {name}")
    assert_same(t.cpu().numpy(), img, "input untouched")


def test_numpy_on_the_gpu_equals_cpu(inputs):
    img = read_pnm(inputs["astronaut.ppm"])
    got = fxkit.filter(img, "gaussian:7", device="gpu")
    assert isinstance(got, np.ndarray)
    assert_same(got, fxkit.filter(img, "gaussian:7", device="cpu"), "numpy, device=gpu")
    assert_same(fxkit.equalize(img, device="gpu"), fxkit.equalize(img, device="cpu"), "equalize")


def test_cupy_views_and_out(cp, inputs):
    img = read_pnm(inputs["photo_rgb.ppm"])
    want = fxkit.filter(img, "gaussian:5", device="cpu")
    big = cp.zeros((img.shape[0] * 2, img.shape[1] * 2, 3), cp.uint8)
    big[::2, ::2] = cp.asarray(img)
    assert_same(cp.asnumpy(fxkit.filter(big[::2, ::2], "gaussian:5")), want, "strided cupy view")
    out = cp.zeros(img.shape, cp.uint8)
    fxkit.filter(cp.asarray(img), "gaussian:5", out=out)
    assert_same(cp.asnumpy(out), want, "cupy out=")


def test_cupy_plan_reused(cp, inputs):
    img = read_pnm(inputs["photo_rgb.ppm"])
    plan = fxkit.FilterPlan("box:9", img.shape, img.dtype, device="gpu")
    for shift in range(3):
        x = np.roll(img, shift * 17, axis=1)
        assert_same(cp.asnumpy(plan(cp.asarray(x))), fxkit.filter(x, "box:9", device="cpu"), f"run {shift}")


def test_out_on_another_device_raises(cp, inputs):
    img = read_pnm(inputs["photo_rgb.ppm"])
    with pytest.raises(fxkit.Error):
        fxkit.filter(img, "box:3", out=cp.zeros(img.shape, cp.uint8))
    with pytest.raises(fxkit.Error):
        fxkit.filter(cp.asarray(img), "box:3", out=np.zeros(img.shape, np.uint8))


def test_cupy_bad_dtype_raises(cp):
    with pytest.raises(fxkit.Error):
        fxkit.filter(cp.zeros((8, 8), cp.int32), "box:3")
    with pytest.raises(fxkit.Error):
        fxkit.filter(cp.zeros((8, 8, 5), cp.uint8), "box:3")


def test_cupy_on_a_side_stream(cp, inputs):
    """Inputs made by work queued on CuPy's current (non-default) stream, results read
    on it: the library's work must be ordered with that stream."""
    img = read_pnm(inputs["astronaut.ppm"])
    want = fxkit.filter(np.ascontiguousarray(255 - img), "gaussian:9", device="cpu")
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        for _ in range(3):
            d = 255 - cp.asarray(img)            # queued on `stream`
            got = fxkit.filter(d, "gaussian:9")
            host = cp.asnumpy(got, stream=stream)
            stream.synchronize()
            assert_same(host, want, "side stream")


def test_torch_on_a_side_stream(torch, inputs):
    img = read_pnm(inputs["astronaut.ppm"])
    want = fxkit.equalize(np.ascontiguousarray(255 - img), device="cpu")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(3):
            t = 255 - torch.from_numpy(img.copy()).cuda(non_blocking=True)
            got = fxkit.equalize(t)
            host = got.cpu().numpy()
            assert_same(host, want, "side stream")


def test_cupy_mask(cp, inputs):
    img = read_pnm(inputs["photo_rgb.ppm"])
    mask = np.zeros(img.shape[:2], np.uint8)
    mask[10:80, 20:150] = 255
    want = fxkit.equalize(img, mask=mask, device="cpu")
    assert_same(cp.asnumpy(fxkit.equalize(cp.asarray(img), mask=cp.asarray(mask))), want, "cupy mask")


def test_normalize_on_the_gpu_equals_ffmpeg_golden():
    """normalize with device='gpu': ffmpeg 5.1's samples (the golden of sample-stereo-24bit)."""
    import os
    from conftest import TESTDATA, read_wav, sample, sha256
    with open(os.path.join(TESTDATA, "normalize", "goldens.txt")) as f:
        want = [ln.split("|")[4].strip() for ln in f if ln.startswith("sample-stereo-24bit|")][0]
    x, rate, _ = read_wav(sample("speech_stereo_44k_24bit.wav"))
    assert sha256(fxkit.normalize(x, rate, device="gpu").astype("<f8")) == want
