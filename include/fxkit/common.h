/* fxkit — common definitions: export macro, status codes, version.
 *
 * Every fxkit call returns an fx_status. FX_OK is zero, every error is negative.
 * The human-readable detail of the last error ("kernel file line 3: expected 5
 * numbers, found 4") is kept in the fx_context that the call was given and is
 * read with fx_context_error().
 */
#ifndef FXKIT_COMMON_H
#define FXKIT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(FXKIT_STATIC_DEFINE)
#define FX_API
#elif defined(_WIN32)
#define FX_API __declspec(dllexport)
#else
#define FX_API __attribute__((visibility("default")))
#endif

#define FXKIT_VERSION_MAJOR 0
#define FXKIT_VERSION_MINOR 1
#define FXKIT_VERSION_PATCH 0
#define FXKIT_VERSION_STRING "0.1.0"

typedef enum fx_status {
    FX_OK = 0,
    FX_EINVAL = -1,       /* an argument or option is invalid */
    FX_ENOMEM = -2,       /* host or device memory exhausted */
    FX_EIO = -3,          /* a file could not be opened, read or written */
    FX_EFORMAT = -4,      /* input data is corrupt, truncated or not of the claimed format */
    FX_EUNSUPPORTED = -5, /* valid input that this build or this call does not handle */
    FX_ECUDA = -6,        /* a CUDA call failed (the detail names the call) */
    FX_ENODEVICE = -7,    /* a GPU was asked for and none (or not that one) is present */
    FX_ERANGE = -8,       /* a value is outside its allowed range */
    FX_EOVERFLOW = -9,    /* a size computation would overflow */
    FX_ELIMIT = -10,      /* input exceeds a configured limit (pixels, dimensions, channels) */
    FX_EBADSTATE = -11    /* the object is unusable after an earlier unrecoverable error */
} fx_status;

/* Short, static description of a status code ("invalid argument"). Never NULL. */
FX_API const char *fx_strerror(int status);

/* "0.1.0" — the library's version, which may differ from the header's. */
FX_API const char *fx_version(void);

/* Space-separated list of features compiled in, e.g. "cuda png jpeg pnm pfm audio threads". */
FX_API const char *fx_build_features(void);

#ifdef __cplusplus
}
#endif
#endif
