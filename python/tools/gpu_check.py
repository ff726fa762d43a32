"""GPU smoke check of the binding with CuPy and PyTorch (a GPU machine; not a test suite):
every GPU result must equal the CPU's bytes. Usage: python3 python/tools/gpu_check.py [PKG_DIR]
where PKG_DIR holds the fxkit package (default: build-py/python)."""
import sys
import threading

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "build-py/python")
import numpy as np
import fxkit

print(fxkit.info())
fails = []


def check(name, ok):
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        fails.append(name)


a = fxkit.read("samples/astronaut.png")
c = fxkit.read("samples/coffee.png")
ref = fxkit.filter(a, "gaussian:5", device="cpu")
check("host image through the GPU", np.array_equal(fxkit.filter(a, "gaussian:5", device="gpu"), ref))

try:
    import cupy as cp
except ImportError:
    cp = None
try:
    import torch
except ImportError:
    torch = None

if cp is not None:
    ca = cp.asarray(a)
    r = fxkit.filter(ca, "gaussian:5")
    check("cupy in, cupy out", isinstance(r, cp.ndarray) and np.array_equal(r.get(), ref))
    # produced on a non-blocking stream: the DLPack stream handshake must order it
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        big = cp.asarray(np.tile(a, (8, 8, 1)))
        x = (big.astype(cp.float32) * 1.0).astype(cp.uint8)
        r = fxkit.filter(x, "box:7")
        got = r.get()
    check("cupy on its own stream", np.array_equal(got, fxkit.filter(np.tile(a, (8, 8, 1)), "box:7", device="cpu")))
    v = ca[10:300, 20:400]
    check("cupy row-strided view", np.array_equal(fxkit.filter(v, "sharpen").get(),
                                                  fxkit.filter(a[10:300, 20:400], "sharpen", device="cpu")))
    w = ca[::2, ::2]
    check("cupy strided view (copied)", np.array_equal(fxkit.filter(w, "sharpen").get(),
                                                       fxkit.filter(a[::2, ::2], "sharpen", device="cpu")))
    o = cp.empty_like(ca)
    r = fxkit.filter(ca, "gaussian:5", out=o)
    check("cupy out=", r is o and np.array_equal(o.get(), ref))
    f = cp.asarray(a.astype(np.float32) / 255)
    check("cupy f32", np.allclose(fxkit.filter(f, "gaussian:5").get(), fxkit.filter(a.astype(np.float32) / 255, "gaussian:5", device="cpu"), atol=0))
    u = cp.asarray(a.astype(np.uint16) * 257)
    check("cupy u16", np.array_equal(fxkit.filter(u, "box:3").get(), fxkit.filter(a.astype(np.uint16) * 257, "box:3", device="cpu")))
    check("cupy equalize", np.array_equal(fxkit.equalize(cp.asarray(c)).get(), fxkit.equalize(c, device="cpu")))
    check("cupy clahe", np.array_equal(fxkit.equalize(cp.asarray(c), adaptive=True, clip=2).get(),
                                       fxkit.equalize(c, adaptive=True, clip=2, device="cpu")))
    g = fxkit.equalize(cp.asarray(c), space="gray")
    check("cupy equalize gray", g.shape == c.shape[:2] and np.array_equal(g.get(), fxkit.equalize(c, space="gray", device="cpu")))
    for depth in ("f32", "u16"):
        check("cupy depth " + depth, np.array_equal(fxkit.filter(ca, "sobel-x", depth=depth).get(),
                                                    fxkit.filter(a, "sobel-x", depth=depth, device="cpu")))
    fa = cp.asarray(a.astype(np.float32) / 255)
    check("cupy depth u8 (narrowed)", np.array_equal(fxkit.filter(fa, "gaussian:5", depth="u8").get(),
                                                     fxkit.filter(a.astype(np.float32) / 255, "gaussian:5", depth="u8", device="cpu")))
    p = fxkit.FilterPlan("gaussian:5", a.shape, a.dtype)
    check("FilterPlan on cupy", np.array_equal(p(ca).get(), ref) and np.array_equal(p(a), ref))
    ep = fxkit.EqualizePlan(c.shape, c.dtype)
    check("EqualizePlan on cupy", np.array_equal(ep(cp.asarray(c)).get(), fxkit.equalize(c, device="cpu")))
    for bad, what in ((lambda: fxkit.filter(ca, "box:3", device="cpu"), "device=cpu with a GPU array"),
                      (lambda: fxkit.filter(ca, "box:3", out=np.empty_like(a)), "host out for a GPU image"),
                      (lambda: fxkit.filter(ca, "box:3", depth="s8"), "a bad depth")):
        try:
            bad()
            check(what + " raises", False)
        except fxkit.Error as e:
            check(what + " raises %s: %s" % (type(e).__name__, e), True)
    results = [None] * 4

    def work(i):
        with cp.cuda.Device(0):
            results[i] = all(np.array_equal(fxkit.filter(ca, "gaussian:5").get(), ref) for _ in range(20))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    check("cupy from 4 threads", all(results))

if torch is not None and torch.cuda.is_available():
    ta = torch.from_numpy(a).cuda()
    r = fxkit.filter(ta, "gaussian:5")
    check("torch in, torch out", isinstance(r, torch.Tensor) and r.is_cuda and np.array_equal(r.cpu().numpy(), ref))
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = (torch.from_numpy(np.tile(a, (8, 8, 1))).cuda().float() * 1.0).to(torch.uint8)
        r = fxkit.filter(x, "box:7")
        got = r.cpu().numpy()
    check("torch on its own stream", np.array_equal(got, fxkit.filter(np.tile(a, (8, 8, 1)), "box:7", device="cpu")))
    check("torch equalize", np.array_equal(fxkit.equalize(torch.from_numpy(c).cuda()).cpu().numpy(), fxkit.equalize(c, device="cpu")))
    check("torch non-contiguous", np.array_equal(fxkit.filter(ta.permute(1, 0, 2), "sharpen").cpu().numpy(),
                                                 fxkit.filter(np.ascontiguousarray(a.transpose(1, 0, 2)), "sharpen", device="cpu")))

print("%d failures" % len(fails))
sys.exit(1 if fails else 0)
