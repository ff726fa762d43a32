/* Status codes, version and build features. */
#include "internal.h"

const char *fx_strerror(int status)
{
    switch (status) {
    case FX_OK: return "success";
    case FX_EINVAL: return "invalid argument";
    case FX_ENOMEM: return "out of memory";
    case FX_EIO: return "input/output error";
    case FX_EFORMAT: return "corrupt or unrecognised data";
    case FX_EUNSUPPORTED: return "not supported";
    case FX_ECUDA: return "CUDA error";
    case FX_ENODEVICE: return "no such device";
    case FX_ERANGE: return "value out of range";
    case FX_EOVERFLOW: return "size overflow";
    case FX_ELIMIT: return "limit exceeded";
    case FX_EBADSTATE: return "object unusable after an earlier error";
    default: return "unknown error";
    }
}

const char *fx_version(void)
{
    return FXKIT_VERSION_STRING;
}

#ifdef FXKIT_HAVE_CUDA
#define FXI_FEATURE_CUDA "cuda "
#else
#define FXI_FEATURE_CUDA ""
#endif

#ifdef FXKIT_HAVE_FFTW
#define FXI_FEATURE_FFT " fft"
#else
#define FXI_FEATURE_FFT ""
#endif

const char *fx_build_features(void)
{
    return FXI_FEATURE_CUDA "threads png jpeg pnm pfm audio" FXI_FEATURE_FFT;
}
