"""fxkit's exceptions: one class per kind of fx_status, carrying the library's message."""

from . import _fxkit as _C


class Error(Exception):
    """An fxkit error. ``status`` is the library's fx_status (a negative int); the
    message is the library's detail (fx_context_error), e.g.
    "--sigma: 0 is out of range [0.1, 100]"."""

    status = None

    def __str__(self):
        return self.args[0] if self.args else ""


class UsageError(Error, ValueError):
    """An argument, option or array is not valid here (FX_EINVAL, FX_ERANGE)."""


class FormatError(Error, ValueError):
    """Data that is corrupt, truncated or not of its claimed format (FX_EFORMAT)."""


class FileError(Error, OSError):
    """A file could not be opened, read or written (FX_EIO)."""


class GPUError(Error, RuntimeError):
    """A CUDA call failed, or no such GPU is present (FX_ECUDA, FX_ENODEVICE)."""


class UnsupportedError(Error, ValueError):
    """Valid input that this build or this call does not handle (FX_EUNSUPPORTED)."""


class LimitError(Error, ValueError):
    """The input exceeds a limit, or a size would overflow (FX_ELIMIT, FX_EOVERFLOW)."""


class OutOfMemoryError(Error, MemoryError):
    """Host or device memory is exhausted (FX_ENOMEM)."""


_S = _C.FX_STATUS
_BY_STATUS = {
    _S["EINVAL"]: UsageError,
    _S["ERANGE"]: UsageError,
    _S["EFORMAT"]: FormatError,
    _S["EIO"]: FileError,
    _S["ECUDA"]: GPUError,
    _S["ENODEVICE"]: GPUError,
    _S["EUNSUPPORTED"]: UnsupportedError,
    _S["ELIMIT"]: LimitError,
    _S["EOVERFLOW"]: LimitError,
    _S["ENOMEM"]: OutOfMemoryError,
}

_C._set_error_classes(_BY_STATUS, Error)
