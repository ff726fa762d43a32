// fxkit._fxkit — shared pieces of the binding: errors, per-thread contexts, arrays.
//
// Design:
// - Every library call gets a context that only the calling thread uses: a per-thread
//   cache keyed by (device kind, GPU index, threads) (contexts are one-user-at-a-time).
//   Plans of the one-call functions are cached per thread too, keyed by the options'
//   spec id, the context and the image's shape, so a repeated small call only runs.
// - The GIL is released around all library work (nb::gil_scoped_release).
// - Arrays come in through nanobind's ndarray (DLPack or the buffer protocol): host
//   arrays whose pixels are contiguous (any row stride) are used in place; others are
//   gathered into a tight copy. CUDA arrays become device fx_images (no transfer).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fxkit/fxkit.h"

namespace nb = nanobind;

namespace fxpy {

// A library error (status and detail), raised in Python as the fxkit.Error subclass
// that python/fxkit/_errors.py registers for the status.
struct Error : std::exception {
    int status;
    std::string message;
    Error(int s, std::string m) : status(s), message(std::move(m)) {}
    const char *what() const noexcept override { return message.c_str(); }
};

[[noreturn]] void raise(int status, const std::string &message);
// Raise the context's last error when st is not FX_OK.
void check(fx_context *ctx, fx_status st);
// The same, the detail prefixed with the file's path (as the CLI's "PATH: detail").
void check_path(fx_context *ctx, const std::string &path, fx_status st);

void register_errors(nb::module_ &m);

// ---- contexts ----

struct Device {
    fx_device_kind kind = FX_DEVICE_AUTO;
    int gpu = 0;
};
Device parse_device(const std::string &text);

// This thread's context for (device, threads), made on first use.
fx_context *thread_context(const Device &d, int threads);
// A context of one's own (for plans and normalizers), destroyed by the caller.
fx_context *new_context(const Device &d, int threads);
// This thread's one-thread CPU context for parsing options and kernels.
fx_context *parse_context();

// A cached plan of this thread: made by `make` when missing; freed by `free_fn`.
void *thread_plan(uint64_t spec_id, fx_context *ctx, const fx_image_desc &desc,
                  std::shared_ptr<void> keep, void *(*make)(void *arg, fx_context *ctx,
                                                            const fx_image_desc &desc),
                  void *arg, void (*free_fn)(void *));
void clear_thread_cache();
uint64_t next_spec_id();

// ---- arrays ----

using AnyArray = nb::ndarray<nb::ro>;
using OutArray = nb::ndarray<>;

fx_sample_type sample_type_of(const nb::dlpack::dtype &dt);
nb::dlpack::dtype dtype_of(fx_sample_type t);
// "u8"/"uint8" ... to a type (0 for unknown).
fx_sample_type parse_sample_type(const std::string &text);

// An array seen as an fx_image: in place when the layout allows, else a tight copy.
struct ImageView {
    fx_image img{};
    bool device = false;
    int device_id = 0;
    int ndim = 0;
    bool copied = false;
    std::vector<uint8_t> copy; // the tight copy (host only)
    // the array's layout, for scattering a result back into a strided `out`
    int64_t strides[3] = {0, 0, 0};
    void *base = nullptr;
};

// in: read-only view of an image array (2-D or H x W x C, u8/u16/f32).
ImageView image_view(const AnyArray &a, const char *what);
// out: a writable array of shape/type/device checked against the expectation.
ImageView out_view(nb::handle out, int height, int width, int channels, int ndim,
                   fx_sample_type type, bool device, int device_id);
// Copy a tight image into the strided array behind `v` (when v.copied).
void scatter_back(ImageView &v);

// A batch: a 4-D array N x H x W x C seen as N fx_images of one shape. In place when each
// image's pixels are packed (any row stride, any image stride; an output's images must
// not overlap), else a tight copy (host only: a GPU array raises).
struct BatchView {
    ImageView head; // every image's shape, type, device and layout (ndim 3; head.copied: the
                    // images are tight copies in `copy`; head.img.data unused)
    std::vector<fx_image> imgs;
    std::vector<uint8_t> copy;
    int64_t image_stride = 0; // elements from one image to the next in the array
};
BatchView batch_view(const AnyArray &a, const char *what);
// out: a writable N x H x W x C array of `type` where `in` lives.
BatchView batch_out_view(nb::handle out, const BatchView &in, fx_sample_type type);
// Copy the tight images into the strided array behind `v` (when v.copied).
void batch_scatter_back(BatchView &v);
// A new numpy array N x H x W x C of `type` shaped as `in`, and its images in *out.
nb::object new_numpy_batch(const BatchView &in, fx_sample_type type, BatchView *out);

// A new numpy array (H x W or H x W x C) and the fx_image over its pixels.
nb::object new_numpy_image(int height, int width, int channels, int ndim, fx_sample_type type,
                           fx_image *img);

// Python value to option text: str as is, bool 1/0, numbers, sequences joined by ','.
std::string option_text(nb::handle value);
// Set the named options (Python names: '_' for '-') of `table` into obj; strings are
// kept alive in `keep`.
void set_options(const fx_option *table, void *obj, nb::handle names, nb::handle values,
                 std::vector<std::unique_ptr<std::string>> &keep);
nb::list table_rows(const fx_option *table);

void bind_images(nb::module_ &m);
void bind_audio(nb::module_ &m);
void bind_io(nb::module_ &m);

} // namespace fxpy
