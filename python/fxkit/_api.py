"""The public API, built at import from the library's option tables."""

import os as _os

import numpy as _np

from . import _fxkit as _C
from . import _gpu
from . import _signatures as _sig
from ._errors import FileError, UsageError

_ndarray = _np.ndarray

# Parsed options (kernel, options struct) per distinct set of keywords: a repeated call
# reuses them, and with them the plans each thread caches for its shapes.
_SPEC_CACHE_MAX = 256
_filter_specs = {}
_equalize_specs = {}

_FILTER_ROWS = _sig.table("filter")
_FILTER_NAMES = tuple(r["name"] for r in _FILTER_ROWS)
_EQUALIZE_ROWS = [r for r in _sig.table("equalize") if r["name"] != "mask"]
_EQUALIZE_NAMES = tuple(r["name"] for r in _EQUALIZE_ROWS)
_MASK_ROW = [r for r in _sig.table("equalize") if r["name"] == "mask"]
_NORMALIZE_ROWS = _sig.table("normalize")
_NORMALIZE_NAMES = tuple(r["name"] for r in _NORMALIZE_ROWS)
# Normalizer(rate, channels, ...) takes the channel count as `channels`: there the
# table's --channels (which channels to process) is the keyword process_channels.
_NORMALIZER_ROWS = [dict(r, name="process_channels") if r["name"] == "channels" else r
                    for r in _NORMALIZE_ROWS]

_DEPTHS = {"same": None, "u8": "uint8", "u16": "uint16", "f32": "float32"}


def _forget_specs():
    """Drop the parsed options (at exit: before the module's types go)."""
    _filter_specs.clear()
    _equalize_specs.clear()


def _remember(cache, key, spec):
    if len(cache) >= _SPEC_CACHE_MAX:
        cache.clear()
    cache[key] = spec
    return spec


def _new_filter_spec(kernel, opts):
    if isinstance(kernel, str) and kernel.startswith("@"):
        # -k @FILE: weights from a file, read at each call (the file may change)
        try:
            with open(kernel[1:], encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise FileError("-k %s: %s" % (kernel, e.strerror or e)) from None
        return _C._FilterSpec(text, _FILTER_NAMES, opts)
    spec = _C._FilterSpec(kernel, _FILTER_NAMES, opts)
    if isinstance(kernel, str):
        _remember(_filter_specs, (kernel, opts), spec)
    return spec


def _new_equalize_spec(opts, mask):
    if mask is not None and not isinstance(mask, (str, _os.PathLike)):
        if _gpu.prepare(mask) is not None:
            mask = _gpu.to_host(mask)
        return _C._EqualizeSpec(_EQUALIZE_NAMES, opts, mask)
    if mask is not None:
        mask = _os.fspath(mask)
    spec = _C._EqualizeSpec(_EQUALIZE_NAMES, opts, mask)
    return _remember(_equalize_specs, (opts, mask), spec)


def _dtype_name(dtype):
    try:
        return _np.dtype(dtype).name
    except TypeError:
        return str(dtype).replace("torch.", "")


def _filter_any(spec, image, out, depth, device, threads):
    """filter() for what is not a numpy array: GPU arrays, or anything nanobind reads."""
    if depth not in _DEPTHS:
        raise UsageError("--depth: '%s' is not one of: same, u8, u16, f32" % depth)
    # another depth converts on the device, which wants tight rows
    g = _gpu.prepare(image, tight=_DEPTHS[depth] is not None)
    if g is None:
        return spec(image, out, depth, device, threads)
    dtype = _DEPTHS[depth] or _dtype_name(g[0].dtype)
    return _gpu.run(spec, g, out, g[0].shape, dtype,
                    lambda gpu: _C._thread_stream(gpu, threads), depth, device, threads)


def _equalize_any(spec, image, out, device, threads):
    g = _gpu.prepare(image)
    if g is None:
        return spec(image, out, device, threads)
    shape = _equalize_shape(spec, tuple(g[0].shape))
    return _gpu.run(spec, g, out, shape, _dtype_name(g[0].dtype),
                    lambda gpu: _C._thread_stream(gpu, threads), device, threads)


def _equalize_shape(spec, shape):
    c = shape[2] if len(shape) == 3 else 1
    oc = spec.output_channels(c)
    if oc == c:
        return shape
    return shape[:2] if oc == 1 else shape[:2] + (oc,)


_FILTER_GENERIC = [("depth", "same"), ("device", "auto"), ("threads", 0), ("out", None)]
_FILTER_BODY = """
try:
    spec = _filter_specs[(kernel, _opts)]
except (KeyError, TypeError):
    spec = _new_filter_spec(kernel, _opts)
if type(image) is _ndarray:
    return spec(image, out, depth, device, threads)
return _filter_any(spec, image, out, depth, device, threads)
"""

_GENERIC_DOC = """\
depth : str, default 'same'
    output sample type: same (the input's), u8, u16 or f32; the image is filtered at the
    more precise of the two  [--depth]
device : str, default 'auto'
    auto (the first GPU when one is present, else the CPU), cpu, gpu or gpu:N; a GPU
    array runs on its own GPU  [--device]
threads : int, default 0
    CPU worker threads, 0 = one per CPU  [--threads]
out : array, optional
    write the result into this array (same shape, dtype and device as the result)"""


def _doc(title, summary, rows, generic_doc, returns):
    """Title, summary, then Parameters: the positional ones (the summary's lines from the
    first "NAME : ..." on), the table's rows, the binding's own keywords."""
    text, _, positional = summary.partition("\n\n")
    entries = "\n".join(_sig.describe(r) for r in rows)
    return "%s\n\n%s\n\nParameters\n----------\n%s%s\n%s\n\nReturns\n-------\n%s\n" % (
        title, text, positional + "\n" if positional else "", entries, generic_doc, returns)


_ns = dict(_filter_specs=_filter_specs, _new_filter_spec=_new_filter_spec,
           _ndarray=_ndarray, _filter_any=_filter_any)
filter = _sig.make_function(
    "filter", ["image", "kernel"], _FILTER_ROWS, _FILTER_GENERIC, _FILTER_BODY, _ns,
    _doc("filter(image, kernel, *, ...) -> array",
         "Convolve an image with a kernel (`fxkit filter`): correlation as OpenCV's filter2D\n"
         "(convolve=True flips the kernel), anchor at the kernel's centre, output the size\n"
         "of the input, OpenCV's border rules.\n\n"
         "image : array H x W or H x W x C (C = 1..4), uint8, uint16 or float32; numpy, or\n"
         "    a CuPy array / PyTorch CUDA tensor (filtered on its GPU, returned as the same\n"
         "    library's array); or a batch N x H x W x C (C = 1 for gray) of N images of one\n"
         "    shape, filtered in one call (fx_filter_run_batch: on the CPU the images run in\n"
         "    parallel, one a thread; on the GPU an 8-bit batch on the fast path takes one\n"
         "    launch a pass for all N), each image's bytes as filter() gives it alone\n"
         "kernel : str or 2-D array\n"
         "    a preset (\"gaussian:5\", \"box:3x5\", \"sharpen\"; see list_kernels()), weights\n"
         "    (\"1 2 1; 2 4 2; 1 2 1 / 16\"), \"@FILE\" with weights, or a 2-D array of weights",
         _FILTER_ROWS, _GENERIC_DOC, "array: the filtered image (out when given)"))

_EQUALIZE_GENERIC = [("mask", None), ("device", "auto"), ("threads", 0), ("out", None)]
_EQUALIZE_BODY = """
if mask is None:
    try:
        spec = _equalize_specs[(_opts, None)]
    except KeyError:
        spec = _new_equalize_spec(_opts, None)
elif isinstance(mask, str):
    try:
        spec = _equalize_specs[(_opts, mask)]
    except KeyError:
        spec = _new_equalize_spec(_opts, mask)
else:
    spec = _new_equalize_spec(_opts, mask)
if type(image) is _ndarray:
    return spec(image, out, device, threads)
return _equalize_any(spec, image, out, device, threads)
"""
_MASK_DOC = ("mask : array or path, optional\n    " +
             (_MASK_ROW[0]["help"] if _MASK_ROW else "pixels that build the histogram") +
             "  [--mask]; an array: gray uint8/uint16 of the image's size\n")
_ns = dict(_equalize_specs=_equalize_specs, _new_equalize_spec=_new_equalize_spec,
           _ndarray=_ndarray, _equalize_any=_equalize_any)
equalize = _sig.make_function(
    "equalize", ["image"], _EQUALIZE_ROWS, _EQUALIZE_GENERIC, _EQUALIZE_BODY, _ns,
    _doc("equalize(image, *, ...) -> array",
         "Histogram equalization (OpenCV's equalizeHist) or CLAHE (adaptive=True) of an\n"
         "8- or 16-bit image, 1 to 4 channels (`fxkit equalize`).",
         _EQUALIZE_ROWS,
         _MASK_DOC + "\n".join(_GENERIC_DOC.split("\n")[4:]),
         "array: the equalized image (gray for space='gray' on colour input)"))

_NORMALIZE_GENERIC = [("device", "auto"), ("threads", 0)]
_NORMALIZE_BODY = """
return _C._normalize(samples, rate, _NORMALIZE_NAMES, _opts, device, threads)
"""
_AUDIO_DOC = "\n".join(_GENERIC_DOC.split("\n")[4:-2])
_ns = dict(_C=_C, _NORMALIZE_NAMES=_NORMALIZE_NAMES)
normalize = _sig.make_function(
    "normalize", ["samples", "rate"], _NORMALIZE_ROWS, _NORMALIZE_GENERIC, _NORMALIZE_BODY,
    _ns,
    _doc("normalize(samples, rate, *, ...) -> array",
         "Dynamic audio normalization of a whole signal (`fxkit normalize`, ffmpeg's\n"
         "dynaudnorm bit for bit).\n\n"
         "samples : array frames x channels, or 1-D mono; float32, float64 or int16\n"
         "    (int16 full scale is 32768)\n"
         "rate : int, samples per second",
         _NORMALIZE_ROWS, _AUDIO_DOC,
         "array: the normalized samples, same shape and dtype"))


def _check_options(rows, options, what):
    names = {r["name"] for r in rows}
    for k in options:
        if k not in names:
            raise UsageError("%s: unknown option '%s'" % (what, k))
    return tuple(options.get(r["name"]) for r in rows)


class Normalizer:
    """Normalizer(rate, channels, **options): dynamic audio normalization of a stream.

    push(block) takes frames x channels (or 1-D mono) samples of any length and returns
    what is ready (it lags the input by the look-ahead); flush() ends the input and
    returns the rest. The concatenated output equals normalize() of the whole signal.
    Options are normalize()'s (the library's table), plus device and threads; the
    table's --channels (which channels to process) is the keyword process_channels here.
    """

    def __init__(self, rate, channels, **options):
        device = options.pop("device", "auto")
        threads = options.pop("threads", 0)
        opts = _check_options(_NORMALIZER_ROWS, options, "Normalizer")
        self._n = _C._Normalizer(rate, channels, _NORMALIZE_NAMES, opts, device, threads)
        self.rate = rate
        self.channels = channels

    def push(self, block):
        """Append a block of samples; returns the samples ready so far (maybe none)."""
        return self._n.push(block)

    def flush(self):
        """End of the input: returns the remaining samples."""
        return self._n.flush()

    @property
    def info(self):
        """What the stream resolved its options to (frame length, windows, latency)."""
        return self._n.info


Normalizer.__init__.__signature__ = _sig.signature_of(
    ["self", "rate", "channels"], _NORMALIZER_ROWS, _NORMALIZE_GENERIC)


class FilterPlan:
    """FilterPlan(kernel, shape, dtype, **options): filter planned once for images of one
    shape and dtype (fx_filter_plan_create), then called on many: plan(image, out=None).

    plan(images, out=None) with a batch, an N x H x W x C array of N images of the plan's
    shape (N x H x W x 1 for a gray (H, W) plan), filters all N in one call
    (fx_filter_run_batch: the CPU runs the images in parallel, one a thread; a GPU batch
    of 8-bit device images on the fast path takes one launch a pass for all N) and
    returns an N x H x W x C array; each image's bytes are those plan(image) gives.

    Options are filter()'s (depth, device and threads included). The plan has its own
    context; calls from several threads take turns.
    """

    def __init__(self, kernel, shape, dtype, **options):
        depth = options.pop("depth", "same")
        device = options.pop("device", "auto")
        threads = options.pop("threads", 0)
        opts = _check_options(_FILTER_ROWS, options, "FilterPlan")
        spec = _C._FilterSpec(kernel, _FILTER_NAMES, opts)
        self.shape = tuple(shape)
        self.dtype = _np.dtype(_dtype_name(dtype))
        self.depth = depth
        self._p = _C._FilterPlan(spec, self.shape, self.dtype.name, depth, device, threads)
        self._out_dtype = _DEPTHS.get(depth) or self.dtype.name

    def __call__(self, image, out=None):
        if type(image) is _ndarray:
            return self._p(image, out)
        g = _gpu.prepare(image, tight=self._out_dtype != self.dtype.name)
        if g is None:
            return self._p(image, out)
        return _gpu.run(self._p, g, out, g[0].shape, self._out_dtype,
                        lambda gpu: self._p.stream())

    @property
    def strategy(self):
        """The strategy the plan runs (direct, separable, box, fft, gpu-...)."""
        return self._p.strategy

    @property
    def explain(self):
        """Why the strategy was chosen (one line, as --explain)."""
        return self._p.explain

    @property
    def device(self):
        return self._p.device


class EqualizePlan:
    """EqualizePlan(shape, dtype, **options): equalization planned once for images of one
    shape and dtype (fx_equalize_plan_create), then called on many: plan(image, out=None).

    Options are equalize()'s (mask, device and threads included).
    """

    def __init__(self, shape, dtype, **options):
        device = options.pop("device", "auto")
        threads = options.pop("threads", 0)
        mask = options.pop("mask", None)
        opts = _check_options(_EQUALIZE_ROWS, options, "EqualizePlan")
        if mask is not None and not isinstance(mask, (str, _os.PathLike)):
            if _gpu.prepare(mask) is not None:
                mask = _gpu.to_host(mask)
        elif mask is not None:
            mask = _os.fspath(mask)
        self._spec = _C._EqualizeSpec(_EQUALIZE_NAMES, opts, mask)
        self.shape = tuple(shape)
        self.dtype = _np.dtype(_dtype_name(dtype))
        self._p = _C._EqualizePlan(self._spec, self.shape, self.dtype.name, device, threads)

    def __call__(self, image, out=None):
        if type(image) is _ndarray:
            return self._p(image, out)
        g = _gpu.prepare(image)
        if g is None:
            return self._p(image, out)
        shape = _equalize_shape(self._spec, tuple(g[0].shape))
        return _gpu.run(self._p, g, out, shape, self.dtype.name, lambda gpu: self._p.stream())

    @property
    def device(self):
        return self._p.device


for _cls, _rows, _gen in ((FilterPlan, _FILTER_ROWS, _FILTER_GENERIC[:-1]),
                          (EqualizePlan, _EQUALIZE_ROWS, _EQUALIZE_GENERIC[:-1])):
    _pos = ["self", "kernel", "shape", "dtype"] if _cls is FilterPlan else ["self", "shape", "dtype"]
    _cls.__init__.__signature__ = _sig.signature_of(_pos, _rows, _gen)
    _cls.__doc__ += "\nParameters\n----------\n" + "\n".join(_sig.describe(r) for r in _rows)


# ---- files ----

def read(path):
    """Read an image file (PNG, JPEG, PGM/PPM, PFM; the format from its first bytes) into
    a numpy array H x W (gray) or H x W x C, uint8, uint16 or float32."""
    return _C._read(_os.fspath(path))


def write(path, array, *, format="auto", quality=None, compression="fast", png_filter="auto"):
    """Write an image file; the format from `format` or the path's extension (.png .jpg
    .pgm .ppm .pfm). quality: JPEG quality 1..100 (None: the library's default);
    compression: PNG 'fast' (fxkit's own coder) or a zlib level 0..9; png_filter: auto,
    none, sub, up, avg or paeth. GPU arrays are copied to the host first. The file
    appears whole or not at all: an existing one is replaced once the new one is complete
    and stays as it was when the write fails."""
    if type(array) is not _ndarray and _gpu.prepare(array) is not None:
        array = _gpu.to_host(array)
    _C._write(_os.fspath(path), array, str(format), int(quality or 0), str(compression),
              str(png_filter))


def read_audio(path):
    """Read an audio file (whatever libsndfile reads): (samples, rate), samples a float64
    array frames x channels (integer files map full scale to [-1, 1))."""
    return _C._read_audio(_os.fspath(path))


def write_audio(path, samples, rate, *, sample_format="same", container="auto"):
    """Write an audio file (WAV, FLAC, AIFF or OGG from the extension, or container=).
    sample_format: same (int16 arrays: s16, float32: f32, float64: f64), s16, s24, s32,
    f32 or f64; integer formats round half to even and saturate."""
    _C._write_audio(_os.fspath(path), samples, int(rate), str(sample_format), str(container))


def info():
    """The library: version, build features, CPU threads, CUDA and the GPUs present."""
    return _C._info()


def list_kernels():
    """The preset kernels: a list of (syntax, help), as `fxkit filter --list-kernels`."""
    return _C.list_kernels()
