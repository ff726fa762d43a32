// fxkit._fxkit: errors, per-thread contexts and plans, arrays, option values.
#include "common.h"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace fxpy {

// ---- errors ----

// status -> Python class, registered by fxkit/_errors.py (a dict); default class.
static nb::dict *error_classes = nullptr;
static nb::object *error_default = nullptr;

[[noreturn]] void raise(int status, const std::string &message)
{
    throw Error(status, message);
}

void check(fx_context *ctx, fx_status st)
{
    if (st == FX_OK) return;
    const char *detail = ctx ? fx_context_error(ctx) : "";
    raise(st, detail && *detail ? detail : fx_strerror(st));
}

void check_path(fx_context *ctx, const std::string &path, fx_status st)
{
    if (st == FX_OK) return;
    const char *detail = fx_context_error(ctx);
    raise(st, path + ": " + (detail && *detail ? detail : fx_strerror(st)));
}

void register_errors(nb::module_ &m)
{
    m.def(
        "_set_error_classes",
        [](nb::dict classes, nb::object fallback) {
            if (!error_classes) {
                error_classes = new nb::dict();
                error_default = new nb::object();
            }
            *error_classes = classes;
            *error_default = fallback;
        },
        "Register the Python exception classes per fx_status (fxkit/_errors.py).");
    nb::register_exception_translator([](const std::exception_ptr &p, void *) {
        try {
            std::rethrow_exception(p);
        } catch (const Error &e) {
            nb::object cls;
            if (error_classes) {
                nb::object key = nb::int_(e.status);
                if (error_classes->contains(key))
                    cls = (*error_classes)[key];
                else
                    cls = *error_default;
            }
            if (!cls.is_valid()) {
                PyErr_SetString(PyExc_RuntimeError, e.message.c_str());
                return;
            }
            nb::object exc = cls(nb::str(e.message.c_str()));
            exc.attr("status") = nb::int_(e.status);
            PyErr_SetObject(cls.ptr(), exc.ptr());
        }
    });
}

// ---- contexts ----

Device parse_device(const std::string &text)
{
    Device d;
    if (text == "auto") return d;
    if (fx_parse_device(text.c_str(), &d.kind, &d.gpu) != FX_OK)
        raise(FX_EINVAL, "device: '" + text + "' is not auto, cpu, gpu or gpu:N");
    return d;
}

// Context creation reports its failure only through the log: keep the last error line.
static thread_local std::string create_error;

static void log_error(void *, fx_log_level level, const char *message)
{
    if (level == FX_LOG_ERROR) create_error = message;
}

fx_context *new_context(const Device &d, int threads)
{
    if (threads < 0) raise(FX_ERANGE, "threads: " + std::to_string(threads) + " is negative");
    fx_context_options co;
    fx_context_options_init(&co);
    co.device = d.kind;
    co.gpu_index = d.gpu;
    co.threads = threads;
    co.log = log_error;
    co.log_level = FX_LOG_ERROR;
    fx_context *ctx = nullptr;
    create_error.clear();
    fx_status st;
    {
        nb::gil_scoped_release release;
        st = fx_context_create(&co, &ctx);
    }
    if (st != FX_OK)
        raise(st, create_error.empty() ? std::string("cannot create a context: ") + fx_strerror(st)
                                       : create_error);
    return ctx;
}

namespace {
struct ContextEntry {
    fx_device_kind kind;
    int gpu;
    int threads;
    fx_context *ctx;
};
struct PlanEntry {
    uint64_t spec;
    fx_context *ctx;
    fx_image_desc desc;
    void *plan;
    void (*free_fn)(void *);
    std::shared_ptr<void> keep;
};
// Plans kept per thread: enough for a few kernels on a few shapes.
constexpr size_t PLAN_CACHE_SIZE = 16;

struct ThreadCache {
    std::vector<ContextEntry> contexts;
    std::vector<PlanEntry> plans; // most recent first
    fx_context *parser = nullptr;
    void clear()
    {
        for (auto &p : plans)
            p.free_fn(p.plan);
        plans.clear();
        for (auto &c : contexts)
            fx_context_destroy(c.ctx);
        contexts.clear();
        if (parser) fx_context_destroy(parser);
        parser = nullptr;
    }
    ~ThreadCache() { clear(); }
};
thread_local ThreadCache cache;
std::atomic<uint64_t> spec_counter{1};
} // namespace

uint64_t next_spec_id()
{
    return spec_counter.fetch_add(1);
}

fx_context *thread_context(const Device &d, int threads)
{
    for (auto &c : cache.contexts)
        if (c.kind == d.kind && c.gpu == d.gpu && c.threads == threads) return c.ctx;
    fx_context *ctx = new_context(d, threads);
    cache.contexts.push_back({d.kind, d.gpu, threads, ctx});
    return ctx;
}

fx_context *parse_context()
{
    if (!cache.parser) {
        Device cpu;
        cpu.kind = FX_DEVICE_CPU;
        cache.parser = new_context(cpu, 1);
    }
    fx_context_clear_error(cache.parser);
    return cache.parser;
}

void *thread_plan(uint64_t spec_id, fx_context *ctx, const fx_image_desc &desc,
                  std::shared_ptr<void> keep,
                  void *(*make)(void *arg, fx_context *ctx, const fx_image_desc &desc), void *arg,
                  void (*free_fn)(void *))
{
    auto &plans = cache.plans;
    for (size_t i = 0; i < plans.size(); i++) {
        PlanEntry &p = plans[i];
        if (p.spec == spec_id && p.ctx == ctx && !std::memcmp(&p.desc, &desc, sizeof desc)) {
            if (i) std::rotate(plans.begin(), plans.begin() + i, plans.begin() + i + 1);
            return plans[0].plan;
        }
    }
    void *plan = make(arg, ctx, desc); // throws on failure
    if (plans.size() >= PLAN_CACHE_SIZE) {
        plans.back().free_fn(plans.back().plan);
        plans.pop_back();
    }
    plans.insert(plans.begin(), PlanEntry{spec_id, ctx, desc, plan, free_fn, std::move(keep)});
    return plan;
}

void clear_thread_cache()
{
    nb::gil_scoped_release release;
    cache.clear();
}

// ---- arrays ----

fx_sample_type sample_type_of(const nb::dlpack::dtype &dt)
{
    if (dt == nb::dtype<uint8_t>()) return FX_U8;
    if (dt == nb::dtype<uint16_t>()) return FX_U16;
    if (dt == nb::dtype<float>()) return FX_F32;
    return (fx_sample_type)0;
}

nb::dlpack::dtype dtype_of(fx_sample_type t)
{
    switch (t) {
    case FX_U8: return nb::dtype<uint8_t>();
    case FX_U16: return nb::dtype<uint16_t>();
    default: return nb::dtype<float>();
    }
}

fx_sample_type parse_sample_type(const std::string &s)
{
    if (s == "u8" || s == "uint8") return FX_U8;
    if (s == "u16" || s == "uint16") return FX_U16;
    if (s == "f32" || s == "float32") return FX_F32;
    return (fx_sample_type)0;
}

static std::string dtype_name(const nb::dlpack::dtype &dt)
{
    const char *kind = dt.code == (uint8_t)nb::dlpack::dtype_code::UInt    ? "uint"
                       : dt.code == (uint8_t)nb::dlpack::dtype_code::Int   ? "int"
                       : dt.code == (uint8_t)nb::dlpack::dtype_code::Float ? "float"
                       : dt.code == (uint8_t)nb::dlpack::dtype_code::Bool  ? "bool"
                                                                            : "other";
    return std::string(kind) + std::to_string(dt.bits);
}

static bool is_device(int device_type, const char *what)
{
    switch (device_type) {
    case nb::device::cpu::value:
    case nb::device::cuda_host::value: return false;
    case nb::device::cuda::value:
    case nb::device::cuda_managed::value: return true;
    default:
        raise(FX_EUNSUPPORTED, std::string(what) + ": arrays on DLPack device type " +
                                   std::to_string(device_type) +
                                   " are not supported (host memory or a CUDA GPU)");
    }
}

// Gather a strided array into a tight buffer (or scatter back): element size `es`.
static void strided_copy(uint8_t *tight, uint8_t *base, const int64_t *st, int h, int w, int c,
                         size_t es, bool gather)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int k = 0; k < c; k++) {
                uint8_t *s = base + (y * st[0] + x * st[1] + k * st[2]) * (int64_t)es;
                uint8_t *t = tight + (((size_t)y * w + x) * c + k) * es;
                if (gather)
                    std::memcpy(t, s, es);
                else
                    std::memcpy(s, t, es);
            }
}

// Shape, type and layout of an ndarray's dimensions lead.. (H, W and, when there, C) as an
// image: a whole image (lead 0) or each image of a batch (lead 1); copied when the pixels
// are not contiguous with a positive row stride.
template <typename A>
static ImageView describe_dims(const A &a, const char *what, int lead)
{
    ImageView v;
    v.ndim = (int)a.ndim() - lead;
    fx_sample_type t = sample_type_of(a.dtype());
    if (!t)
        raise(FX_EINVAL, std::string(what) + ": dtype " + dtype_name(a.dtype()) +
                             " is not supported (uint8, uint16 or float32)");
    int64_t h = (int64_t)a.shape(lead), w = (int64_t)a.shape(lead + 1),
            c = v.ndim == 3 ? (int64_t)a.shape(lead + 2) : 1;
    if (c < 1 || c > FX_MAX_IMAGE_CHANNELS)
        raise(FX_EINVAL, std::string(what) + ": " + std::to_string(c) +
                             " channels (an image has 1 to 4)");
    if (h < 1 || w < 1 || h > INT_MAX || w > INT_MAX)
        raise(FX_EINVAL, std::string(what) + ": empty or too large image (" + std::to_string(h) +
                             " x " + std::to_string(w) + ")");
    v.device = is_device(a.device_type(), what);
    v.device_id = a.device_id();
    v.strides[0] = a.stride(lead);
    v.strides[1] = a.stride(lead + 1);
    v.strides[2] = v.ndim == 3 ? a.stride(lead + 2) : 1;
    v.base = (void *)a.data();
    v.img.data = (uint8_t *)a.data();
    v.img.width = (int)w;
    v.img.height = (int)h;
    v.img.channels = (int)c;
    v.img.type = t;
    v.img.memory = v.device ? FX_MEMORY_DEVICE : FX_MEMORY_HOST;
    const size_t es = fx_sample_size(t);
    const bool pixels_tight = (c == 1 || v.strides[2] == 1) && (w == 1 || v.strides[1] == c);
    const bool rows_ok = h == 1 || v.strides[0] >= w * c;
    v.copied = !(pixels_tight && rows_ok);
    v.img.stride = h == 1 ? (size_t)(w * c) * es : (size_t)v.strides[0] * es;
    if (v.copied) v.img.stride = (size_t)(w * c) * es;
    return v;
}

template <typename A>
static ImageView describe(const A &a, const char *what)
{
    const int ndim = (int)a.ndim();
    if (ndim != 2 && ndim != 3)
        raise(FX_EINVAL, std::string(what) + ": an image is a 2-D (H x W) or 3-D (H x W x C) " +
                             "array, this one has " + std::to_string(ndim) + " dimensions");
    return describe_dims(a, what, 0);
}

ImageView image_view(const AnyArray &a, const char *what)
{
    ImageView v = describe(a, what);
    if (v.copied) {
        if (v.device)
            raise(FX_EUNSUPPORTED, std::string(what) +
                                       ": this GPU array's pixels are not contiguous (make it "
                                       "contiguous first)");
        const size_t es = fx_sample_size(v.img.type);
        v.copy.resize(v.img.stride * v.img.height);
        strided_copy(v.copy.data(), (uint8_t *)v.base, v.strides, v.img.height, v.img.width,
                     v.img.channels, es, true);
        v.img.data = v.copy.data();
    }
    return v;
}

ImageView out_view(nb::handle out, int height, int width, int channels, int ndim,
                   fx_sample_type type, bool device, int device_id)
{
    OutArray a;
    if (!nb::try_cast(out, a, false)) {
        AnyArray ro;
        if (nb::try_cast(out, ro, false))
            raise(FX_EINVAL, "out: the array is read-only");
        raise(FX_EINVAL, std::string("out: expected a writable array, got ") +
                             nb::type_name(out.type()).c_str());
    }
    ImageView v = describe(a, "out");
    auto shape_text = [](int h, int w, int c, int n) {
        return std::to_string(h) + "x" + std::to_string(w) + (n == 3 ? "x" + std::to_string(c) : "");
    };
    if (v.img.height != height || v.img.width != width || v.img.channels != channels ||
        v.ndim != ndim)
        raise(FX_EINVAL, "out: shape " + shape_text(v.img.height, v.img.width, v.img.channels,
                                                    v.ndim) +
                             ", the result is " + shape_text(height, width, channels, ndim));
    if (v.img.type != type)
        raise(FX_EINVAL, std::string("out: dtype ") + fx_sample_type_name(v.img.type) +
                             ", the result is " + fx_sample_type_name(type));
    if (v.device != device || (device && v.device_id != device_id))
        raise(FX_EINVAL, std::string("out: the array is in ") +
                             (v.device ? "GPU " + std::to_string(v.device_id) : "host") +
                             " memory, the result in " +
                             (device ? "GPU " + std::to_string(device_id) : "host") + " memory");
    if (v.copied) {
        if (v.device)
            raise(FX_EUNSUPPORTED, "out: this GPU array's pixels are not contiguous");
        v.copy.resize(v.img.stride * v.img.height);
        v.img.data = v.copy.data();
    }
    return v;
}

void scatter_back(ImageView &v)
{
    if (!v.copied) return;
    strided_copy(v.copy.data(), (uint8_t *)v.base, v.strides, v.img.height, v.img.width,
                 v.img.channels, fx_sample_size(v.img.type), false);
}

// A new numpy array of `ndim` dimensions (shape) over `bytes` of 64-byte aligned memory it
// owns; its first byte in *data.
static nb::object new_numpy_array(size_t ndim, const size_t *shape, fx_sample_type type,
                                  size_t bytes, void **data)
{
    *data = nullptr;
    if (posix_memalign(data, 64, bytes ? bytes : 1) != 0) raise(FX_ENOMEM, "out of memory");
    nb::capsule owner(*data, [](void *p) noexcept { free(p); });
    nb::ndarray<nb::numpy> arr(*data, ndim, shape, owner, nullptr, dtype_of(type));
    return arr.cast();
}

nb::object new_numpy_image(int height, int width, int channels, int ndim, fx_sample_type type,
                           fx_image *img)
{
    size_t stride, bytes;
    if (fx_image_size(width, height, channels, type, &stride, &bytes) != FX_OK)
        raise(FX_EOVERFLOW, "image too large");
    const size_t shape[3] = {(size_t)height, (size_t)width, (size_t)channels};
    void *data;
    nb::object arr = new_numpy_array((size_t)ndim, shape, type, bytes, &data);
    std::memset(img, 0, sizeof *img);
    img->data = (uint8_t *)data;
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->type = type;
    img->stride = stride;
    return arr;
}

// ---- batches: N x H x W x C ----

template <typename A>
static BatchView describe_batch(const A &a, const char *what, bool writable)
{
    BatchView v;
    if (a.ndim() != 4)
        raise(FX_EINVAL, std::string(what) + ": a batch is a 4-D array (N x H x W x C), this one "
                                             "has " + std::to_string(a.ndim()) + " dimensions");
    v.head = describe_dims(a, what, 1);
    const int64_t n = (int64_t)a.shape(0);
    if (n > INT_MAX)
        raise(FX_EINVAL, std::string(what) + ": " + std::to_string(n) + " images (at most " +
                             std::to_string(INT_MAX) + ")");
    ImageView &hd = v.head;
    v.image_stride = a.stride(0);
    const int64_t *st = hd.strides;
    const int64_t row = (int64_t)hd.img.width * hd.img.channels;
    /* an output's images one after another, apart (an input may even repeat one) */
    const bool images_ok =
        !writable || n <= 1 || v.image_stride >= (hd.img.height - 1) * st[0] + row;
    hd.copied = hd.copied || !images_ok;
    if (hd.copied) hd.img.stride = (size_t)row * fx_sample_size(hd.img.type);
    v.imgs.assign((size_t)n, hd.img);
    if (!hd.copied)
        for (int64_t i = 0; i < n; i++)
            v.imgs[(size_t)i].data =
                (uint8_t *)hd.base + i * v.image_stride * (int64_t)fx_sample_size(hd.img.type);
    return v;
}

// The tight copy's images (v.copied): image i at i * H * row bytes.
static void point_into_copy(BatchView &v)
{
    const size_t bytes = v.head.img.stride * (size_t)v.head.img.height;
    v.copy.resize(bytes * v.imgs.size());
    for (size_t i = 0; i < v.imgs.size(); i++)
        v.imgs[i].data = v.copy.data() + i * bytes;
}

static void batch_copy(BatchView &v, bool gather)
{
    const fx_image &hd = v.head.img;
    const size_t es = fx_sample_size(hd.type);
    for (size_t i = 0; i < v.imgs.size(); i++)
        strided_copy(v.imgs[i].data,
                     (uint8_t *)v.head.base + (int64_t)i * v.image_stride * (int64_t)es,
                     v.head.strides, hd.height, hd.width, hd.channels, es, gather);
}

BatchView batch_view(const AnyArray &a, const char *what)
{
    BatchView v = describe_batch(a, what, false);
    if (v.head.copied) {
        if (v.head.device)
            raise(FX_EUNSUPPORTED, std::string(what) +
                                       ": this GPU array's pixels are not contiguous (make it "
                                       "contiguous first)");
        point_into_copy(v);
        batch_copy(v, true);
    }
    return v;
}

BatchView batch_out_view(nb::handle out, const BatchView &in, fx_sample_type type)
{
    OutArray a;
    if (!nb::try_cast(out, a, false)) {
        AnyArray ro;
        if (nb::try_cast(out, ro, false)) raise(FX_EINVAL, "out: the array is read-only");
        raise(FX_EINVAL, std::string("out: expected a writable array, got ") +
                             nb::type_name(out.type()).c_str());
    }
    if (a.ndim() != 4)
        raise(FX_EINVAL, "out: the result is a batch (N x H x W x C), out has " +
                             std::to_string(a.ndim()) + " dimensions");
    BatchView v = describe_batch(a, "out", true);
    const fx_image &o = v.head.img, &i = in.head.img;
    if (v.imgs.size() != in.imgs.size() || o.height != i.height || o.width != i.width ||
        o.channels != i.channels)
        raise(FX_EINVAL, "out: shape " + std::to_string(v.imgs.size()) + "x" +
                             std::to_string(o.height) + "x" + std::to_string(o.width) + "x" +
                             std::to_string(o.channels) + ", the result is " +
                             std::to_string(in.imgs.size()) + "x" + std::to_string(i.height) +
                             "x" + std::to_string(i.width) + "x" + std::to_string(i.channels));
    if (o.type != type)
        raise(FX_EINVAL, std::string("out: dtype ") + fx_sample_type_name(o.type) +
                             ", the result is " + fx_sample_type_name(type));
    if (v.head.device != in.head.device || (in.head.device && v.head.device_id != in.head.device_id))
        raise(FX_EINVAL, std::string("out: the array is in ") +
                             (v.head.device ? "GPU " + std::to_string(v.head.device_id) : "host") +
                             " memory, the result in " +
                             (in.head.device ? "GPU " + std::to_string(in.head.device_id) : "host") +
                             " memory");
    if (v.head.copied) {
        if (v.head.device) raise(FX_EUNSUPPORTED, "out: this GPU array's images are not contiguous");
        point_into_copy(v);
    }
    return v;
}

void batch_scatter_back(BatchView &v)
{
    if (v.head.copied) batch_copy(v, false);
}

nb::object new_numpy_batch(const BatchView &in, fx_sample_type type, BatchView *out)
{
    const fx_image &i = in.head.img;
    const size_t n = in.imgs.size();
    size_t stride, bytes;
    if (fx_image_size(i.width, i.height, i.channels, type, &stride, &bytes) != FX_OK ||
        (n && bytes > SIZE_MAX / n))
        raise(FX_EOVERFLOW, "images too large");
    const size_t shape[4] = {n, (size_t)i.height, (size_t)i.width, (size_t)i.channels};
    void *data;
    nb::object arr = new_numpy_array(4, shape, type, bytes * n, &data);
    *out = BatchView{};
    out->head.ndim = 3;
    out->head.img = i;
    out->head.img.data = nullptr;
    out->head.img.type = type;
    out->head.img.stride = stride;
    out->head.img.memory = FX_MEMORY_HOST;
    out->imgs.assign(n, out->head.img);
    for (size_t k = 0; k < n; k++)
        out->imgs[k].data = (uint8_t *)data + k * bytes;
    return arr;
}

// ---- options ----

// Sequences join with ',' ("V,V,V", "X,Y"), or with 'x' where the row's metavar says
// so ("CxR"): tiles=(8, 4) is "8x4".
static std::string option_text_for(const fx_option *row, nb::handle value)
{
    if ((nb::isinstance<nb::tuple>(value) || nb::isinstance<nb::list>(value)) && row->metavar &&
        std::strlen(row->metavar) == 3 && row->metavar[1] == 'x') {
        std::string s;
        for (nb::handle item : value) {
            if (!s.empty()) s += "x";
            s += option_text(item);
        }
        return s;
    }
    return option_text(value);
}

std::string option_text(nb::handle value)
{
    if (nb::isinstance<nb::str>(value)) return nb::cast<std::string>(value);
    if (nb::isinstance<nb::bool_>(value)) return nb::cast<bool>(value) ? "1" : "0";
    if (nb::isinstance<nb::int_>(value)) return nb::str(value).c_str();
    if (nb::isinstance<nb::float_>(value)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", nb::cast<double>(value));
        return buf;
    }
    if (nb::isinstance<nb::tuple>(value) || nb::isinstance<nb::list>(value)) {
        std::string s;
        for (nb::handle item : value) {
            if (!s.empty()) s += ",";
            s += option_text(item);
        }
        return s;
    }
    // numpy scalars and the like
    return nb::str(value).c_str();
}

void set_options(const fx_option *table, void *obj, nb::handle names, nb::handle values,
                 std::vector<std::unique_ptr<std::string>> &keep)
{
    fx_context *ctx = parse_context();
    size_t n = nb::len(names);
    if (nb::len(values) != n) raise(FX_EINVAL, "options: names and values differ in length");
    for (size_t i = 0; i < n; i++) {
        nb::handle value = values[i];
        if (value.is_none()) continue; // the library's default
        std::string name = nb::cast<std::string>(names[i]);
        for (char &ch : name)
            if (ch == '_') ch = '-';
        const fx_option *row = fx_option_find(table, name.c_str());
        if (!row || name.size() == 1) raise(FX_EINVAL, "unknown option '" + name + "'");
        keep.push_back(std::make_unique<std::string>(option_text_for(row, value)));
        check(ctx, fx_option_set(ctx, row, obj, keep.back()->c_str()));
    }
}

nb::list table_rows(const fx_option *table)
{
    static const char *const type_names[] = {"int", "double", "bool", "string", "enum"};
    nb::list rows;
    for (const fx_option *o = table; o->name; o++) {
        nb::dict r;
        std::string py = o->name;
        for (char &ch : py)
            if (ch == '-') ch = '_';
        r["name"] = py;
        r["option"] = std::string("--") + o->name;
        r["alias"] = o->alias ? std::string(1, o->alias) : std::string();
        r["type"] = type_names[o->type];
        char buf[256];
        fx_option_format(o, nullptr, buf, sizeof buf);
        r["default_text"] = std::string(buf);
        switch (o->type) {
        case FX_OPT_INT: r["default"] = (long long)o->def; break;
        case FX_OPT_DOUBLE: r["default"] = o->def; break;
        case FX_OPT_BOOL: r["default"] = o->def != 0; break;
        case FX_OPT_STRING:
            r["default"] = o->def_str ? nb::object(nb::str(o->def_str)) : nb::none();
            break;
        case FX_OPT_ENUM: r["default"] = std::string(buf); break;
        }
        r["min"] = o->min;
        r["max"] = o->max;
        nb::list choices;
        for (int i = 0; o->choices && o->choices[i]; i++)
            choices.append(o->choices[i]);
        r["choices"] = choices;
        r["metavar"] = o->metavar ? nb::object(nb::str(o->metavar)) : nb::none();
        r["help"] = o->help ? o->help : "";
        rows.append(r);
    }
    return rows;
}

} // namespace fxpy
