"""Batches: an N x H x W x C array through fxkit.filter and FilterPlan.__call__ runs
fx_filter_run_batch; every image's bytes equal the per-image call's, and on the host
cv2.GaussianBlur's (OpenCV's answer, independent of fxkit). GPU batches (CuPy, PyTorch)
equal the CPU's; skipped without a GPU or those libraries."""
import numpy as np
import pytest

import fxkit
from conftest import assert_same, cv2_or_skip, gpu_count


def random_batch(n, h, w, c, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.float32:
        return rng.random((n, h, w, c), dtype=np.float32)
    return rng.integers(0, np.iinfo(dtype).max + 1, size=(n, h, w, c), dtype=dtype)


def per_image(images, kernel, **kwargs):
    return np.stack([fxkit.filter(img, kernel, **kwargs) for img in images])


@pytest.mark.parametrize("kernel", ["gaussian:5", "box:3", "1 2 1; 0 3 -1; 2 1 1 / 9", "gaussian:31"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("shape", [(37, 7, 3, 3), (1, 1, 1, 1), (5, 33, 29, 4), (3, 64, 48, 2)])
def test_batch_equals_per_image(kernel, dtype, shape):
    images = random_batch(*shape, dtype, seed=hash((kernel, shape)) % 1000)
    got = fxkit.filter(images, kernel, device="cpu", threads=4)
    assert_same(got, per_image(images, kernel, device="cpu"), kernel)


@pytest.mark.parametrize("border", ["reflect101", "replicate", "reflect", "constant", "wrap"])
def test_batch_borders_and_options(border):
    images = random_batch(9, 20, 17, 4, np.uint8, seed=3)
    kwargs = {"border": border, "border_value": 90, "alpha": "keep"}
    got = fxkit.filter(images, "gaussian:7", device="cpu", **kwargs)
    assert_same(got, per_image(images, "gaussian:7", device="cpu", **kwargs), border)


@pytest.mark.parametrize("border", ["reflect101", "replicate", "reflect", "constant"])
@pytest.mark.parametrize("k", [3, 5, 7])
def test_batch_gaussian_equals_cv2(k, border):
    cv2 = cv2_or_skip()
    cv_border = {"reflect101": cv2.BORDER_REFLECT_101, "replicate": cv2.BORDER_REPLICATE,
                 "reflect": cv2.BORDER_REFLECT, "constant": cv2.BORDER_CONSTANT}[border]
    images = random_batch(12, 64, 80, 3, np.uint8, seed=k)
    got = fxkit.filter(images, f"gaussian:{k}", border=border, device="cpu")
    want = np.stack([cv2.GaussianBlur(img, (k, k), 0, borderType=cv_border) for img in images])
    assert_same(got, want, f"gaussian:{k} {border}")


def test_plan_batch_and_views():
    images = random_batch(10, 31, 23, 3, np.uint8, seed=11)
    plan = fxkit.FilterPlan("gaussian:5", (31, 23, 3), np.uint8, device="cpu")
    want = np.stack([plan(img) for img in images])
    assert_same(plan(images), want, "plan batch")
    # every other image, and an out= array whose images are apart: views in place
    out = np.zeros((5, 31, 23, 3), np.uint8)
    assert plan(images[::2], out=out) is out
    assert_same(out, want[::2], "strided batch")
    # a batch whose pixels are not packed (channels reversed): copied, same bytes
    flipped = images[..., ::-1]
    assert_same(plan(flipped), np.stack([plan(np.ascontiguousarray(i)) for i in flipped]),
                "copied batch")
    # another depth: image by image through the conversions
    deep = fxkit.FilterPlan("gaussian:5", (31, 23, 3), np.uint8, depth="f32", device="cpu")
    assert_same(deep(images), np.stack([deep(img) for img in images]), "depth batch")


def test_gray_plan_takes_n_h_w_1():
    images = random_batch(4, 16, 16, 1, np.uint16, seed=5)
    plan = fxkit.FilterPlan("box:3", (16, 16), np.uint16, device="cpu")
    got = plan(images)
    assert got.shape == (4, 16, 16, 1)
    assert_same(got[..., 0], np.stack([plan(img[..., 0]) for img in images]), "gray batch")


def test_bad_batches_raise():
    plan = fxkit.FilterPlan("gaussian:3", (8, 8, 3), np.uint8, device="cpu")
    with pytest.raises(fxkit.Error):
        plan(np.zeros((2, 8, 9, 3), np.uint8))  # wrong shape
    with pytest.raises(fxkit.Error):
        plan(np.zeros((2, 8, 8, 3), np.uint8), out=np.zeros((3, 8, 8, 3), np.uint8))
    with pytest.raises(fxkit.Error):  # a batch's result is a batch
        plan(np.zeros((2, 8, 8, 3), np.uint8), out=np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(fxkit.Error):
        fxkit.filter(np.zeros((2, 8, 8, 5), np.uint8), "box:3")  # 5 channels


# --- GPU arrays -------------------------------------------------------------------

def need_gpu():
    if gpu_count(fxkit) == 0:
        pytest.skip("no GPU: fxkit.info() lists none (a CPU-only build or no NVIDIA driver)")


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["gaussian:5", "box:3", "gaussian:31", "sharpen"])
def test_cupy_batch_equals_cpu(kernel):
    need_gpu()
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    images = random_batch(50, 64, 48, 3, np.uint8, seed=7)
    want = fxkit.filter(images, kernel, device="cpu")
    got = fxkit.filter(cp.asarray(images), kernel)
    assert isinstance(got, cp.ndarray) and got.shape == images.shape
    assert_same(cp.asnumpy(got), want, kernel)
    plan = fxkit.FilterPlan(kernel, (64, 48, 3), np.uint8, device="gpu")
    assert_same(cp.asnumpy(plan(cp.asarray(images))), want, kernel + " plan")


@pytest.mark.gpu
def test_torch_batch_equals_cpu():
    need_gpu()
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA device")
    images = random_batch(1000, 32, 32, 3, np.uint8, seed=8)
    want = fxkit.filter(images, "gaussian:5", device="cpu")
    got = fxkit.filter(torch.from_numpy(images).cuda(), "gaussian:5")
    assert got.is_cuda and tuple(got.shape) == images.shape
    assert_same(got.cpu().numpy(), want, "torch batch")
