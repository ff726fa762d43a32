"""GPU arrays: CuPy arrays and PyTorch CUDA tensors (DLPack), and other CUDA arrays
through __cuda_array_interface__ (taken in by CuPy, which honours their stream).

The module reads a device array through a DLPack capsule asked for with fxkit's context
stream (``__dlpack__(stream=...)``), so the producer orders its pending work before
fxkit's; fxkit synchronises its stream before returning, so the result may be used on
any stream. Results are allocated by the input's own library on the input's device.
"""

_CUDA = 2          # kDLCUDA
_CUDA_MANAGED = 13  # kDLCUDAManaged


def _framework(obj):
    mod = type(obj).__module__ or ""
    if mod.startswith("torch"):
        return "torch"
    if mod.startswith("cupy"):
        return "cupy"
    return None


def prepare(image, tight=False):
    """(array, gpu index, framework) for an array in GPU memory, or None for host arrays.
    The array is made contiguous when its pixels are not packed, or (tight) when its rows
    are not either (a copy by its own library)."""
    fw = _framework(image)
    if fw == "torch":
        if not image.is_cuda:
            return None
        if image.requires_grad:
            image = image.detach()
        if not (image.is_contiguous() if tight else
                _pixels_contiguous(image.shape, image.stride())):
            image = image.contiguous()
        return image, image.device.index or 0, fw
    if fw == "cupy":
        es = image.itemsize
        if not (image.flags.c_contiguous if tight else
                _pixels_contiguous(image.shape, tuple(s // es for s in image.strides))):
            import cupy
            image = cupy.ascontiguousarray(image)
        return image, image.device.id, fw
    dev = getattr(image, "__dlpack_device__", None)
    if dev is not None:
        try:
            kind, index = dev()
        except Exception:
            return None
        if int(kind) not in (_CUDA, _CUDA_MANAGED):
            return None
        # another DLPack producer on the GPU: through CuPy, which reads DLPack
        import cupy
        return prepare(cupy.from_dlpack(image))
    if hasattr(type(image), "__cuda_array_interface__"):
        import cupy
        return prepare(cupy.asarray(image))
    return None


def _pixels_contiguous(shape, strides):
    """Pixels packed (a row stride may be anything >= a row), as fx_image needs; a batch
    (N x H x W x C): each image's pixels packed, its images apart (any image stride that
    does not overlap them)."""
    if len(shape) == 4:
        n, h, w, c = shape
        return _pixels_contiguous((h, w, c), strides[1:]) and \
            (n == 1 or strides[0] >= (h - 1) * strides[1] + w * c)
    if len(shape) == 3:
        h, w, c = shape
        return (c == 1 or strides[2] == 1) and (w == 1 or strides[1] == c) and \
            (h == 1 or strides[0] >= w * c)
    if len(shape) == 2:
        h, w = shape
        return (w == 1 or strides[1] == 1) and (h == 1 or strides[0] >= w)
    return True


def empty_like(prepared, shape, dtype_name):
    image, gpu, fw = prepared
    if fw == "torch":
        import torch
        return torch.empty(tuple(shape), dtype=getattr(torch, dtype_name), device=image.device)
    import cupy
    with cupy.cuda.Device(gpu):
        return cupy.empty(tuple(shape), dtype=dtype_name)


def capsule(obj, stream):
    """A DLPack capsule of obj, ordered before `stream` (versioned when offered)."""
    try:
        return obj.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:
        return obj.__dlpack__(stream=stream)


def to_host(obj):
    """A GPU array's contents as numpy (for masks and files)."""
    fw = _framework(obj)
    if fw == "torch":
        return obj.detach().cpu().numpy()
    if fw == "cupy":
        return obj.get()
    p = prepare(obj)
    return p[0].get() if p else obj


def run(call, prepared, out, shape, dtype_name, stream_of, *args):
    """call(capsule_in, capsule_out, *args) on GPU arrays; returns out (allocated when None)."""
    from ._errors import UsageError
    image, gpu, fw = prepared
    if out is None:
        out = empty_like(prepared, shape, dtype_name)
    elif prepare_out(out) is None:
        raise UsageError("out: the image is on GPU %d, out is not a GPU array" % gpu)
    stream = stream_of(gpu)
    call(capsule(image, stream), capsule(out, stream), *args)
    return out


def prepare_out(out):
    fw = _framework(out)
    if fw == "torch":
        return out if out.is_cuda else None
    if fw == "cupy":
        return out
    dev = getattr(out, "__dlpack_device__", None)
    if dev is not None and int(dev()[0]) in (_CUDA, _CUDA_MANAGED):
        return out
    return None
