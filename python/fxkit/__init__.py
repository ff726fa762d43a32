"""fxkit: image convolution (filter), histogram equalization (equalize) and dynamic audio
normalization (normalize, ffmpeg's dynaudnorm bit for bit), on the CPU's threads or an
NVIDIA GPU, with outputs byte-identical to OpenCV / ffmpeg and the same bytes on both.

Images are numpy arrays H x W or H x W x C (C = 1..4) of uint8, uint16 or float32, any
strides; CuPy arrays and PyTorch CUDA tensors are filtered where they are (DLPack) and
come back as the same library's arrays. Keyword options are the command line's long
options with '-' -> '_'; their defaults, ranges and help come from the library's option
tables (help(fxkit.filter) reads like `fxkit filter --help`).

Every call runs on a context of the calling thread (cached per thread, device and
threads) with the GIL released, so Python threads work in parallel.
"""

import atexit as _atexit

from . import _fxkit as _C
from ._errors import (Error, UsageError, FormatError, FileError, GPUError,
                      UnsupportedError, LimitError, OutOfMemoryError)
from ._api import (filter, equalize, normalize, Normalizer, FilterPlan, EqualizePlan,
                   read, write, read_audio, write_audio, info, list_kernels)

__version__ = _C._info()["version"]

__all__ = [
    "filter", "equalize", "normalize", "Normalizer", "FilterPlan", "EqualizePlan",
    "read", "write", "read_audio", "write_audio", "info", "list_kernels",
    "Error", "UsageError", "FormatError", "FileError", "GPUError", "UnsupportedError",
    "LimitError", "OutOfMemoryError",
]

# The main thread's contexts (and their GPU streams) go before the interpreter does, and
# the parsed options before them (atexit runs last-registered first).
_atexit.register(_C._clear_thread_cache)
_atexit.register(_api._forget_specs)
