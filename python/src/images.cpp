// fxkit._fxkit: filter and equalize (one call, and plans made once for many arrays).
//
// A spec holds what the options parse to (kernel, options struct, the strings they point
// at, an equalize mask): made once per distinct set of keywords (the Python layer caches
// specs), it names the cached plans of every thread by its id.
#include "common.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cstring>
#include <mutex>

namespace fxpy {

namespace {

struct FilterSpec {
    uint64_t id = next_spec_id();
    fx_kernel *kernel = nullptr;
    fx_filter_options opts;
    std::vector<std::unique_ptr<std::string>> keep;
    ~FilterSpec() { fx_kernel_free(kernel); }
};

struct EqualizeSpec {
    uint64_t id = next_spec_id();
    fx_equalize_options opts;
    std::vector<std::unique_ptr<std::string>> keep;
    std::vector<uint8_t> mask_pixels;
    fx_image mask{};
};

std::shared_ptr<FilterSpec> make_filter_spec(nb::handle kernel, nb::handle names,
                                             nb::handle values)
{
    auto s = std::make_shared<FilterSpec>();
    fx_filter_options_init(&s->opts);
    fx_context *ctx = parse_context();
    if (nb::isinstance<nb::str>(kernel)) {
        std::string text = nb::cast<std::string>(kernel);
        check(ctx, fx_kernel_parse(ctx, text.c_str(), &s->kernel));
    } else {
        nb::ndarray<nb::ro> k;
        if (!nb::try_cast(kernel, k, false))
            raise(FX_EINVAL, std::string("kernel: expected text (\"gaussian:5\", \"1 2 1 / 4\") "
                                         "or a 2-D array of weights, got ") +
                                 nb::type_name(kernel.type()).c_str());
        if (k.ndim() != 2 || k.device_type() != nb::device::cpu::value)
            raise(FX_EINVAL, "kernel: the weights must be a 2-D host array");
        // any numeric dtype: numpy converts it to float64 for us
        nb::object weights =
            nb::module_::import_("numpy").attr("ascontiguousarray")(kernel, "float64");
        nb::ndarray<const double, nb::ndim<2>, nb::c_contig> w =
            nb::cast<nb::ndarray<const double, nb::ndim<2>, nb::c_contig>>(weights);
        if (w.shape(0) > FX_KERNEL_MAX_SIDE || w.shape(1) > FX_KERNEL_MAX_SIDE)
            raise(FX_ELIMIT, "kernel: at most " + std::to_string(FX_KERNEL_MAX_SIDE) +
                                 " taps a side");
        check(ctx, fx_kernel_create(ctx, (int)w.shape(1), (int)w.shape(0), w.data(), &s->kernel));
    }
    set_options(fx_filter_options_table(), &s->opts, names, values, s->keep);
    check(ctx, fx_options_validate(ctx, fx_filter_options_table(), &s->opts));
    return s;
}

std::shared_ptr<EqualizeSpec> make_equalize_spec(nb::handle names, nb::handle values,
                                                 nb::handle mask)
{
    auto s = std::make_shared<EqualizeSpec>();
    fx_equalize_options_init(&s->opts);
    set_options(fx_equalize_options_table(), &s->opts, names, values, s->keep);
    fx_context *ctx = parse_context();
    if (nb::isinstance<nb::str>(mask)) {
        s->keep.push_back(std::make_unique<std::string>(nb::cast<std::string>(mask)));
        s->opts.mask = s->keep.back()->c_str();
    } else if (!mask.is_none()) {
        AnyArray a;
        if (!nb::try_cast(mask, a, false))
            raise(FX_EINVAL, std::string("mask: expected a path or an array, got ") +
                                 nb::type_name(mask.type()).c_str());
        ImageView v = image_view(a, "mask");
        if (v.device) raise(FX_EINVAL, "mask: give the mask in host memory");
        if (v.img.channels != 1 || v.img.type == FX_F32)
            raise(FX_EINVAL, "mask: the mask must be a gray 8- or 16-bit image");
        // a tight copy the spec owns: the plans made from it may outlive the array
        const size_t row = (size_t)v.img.width * fx_sample_size(v.img.type);
        s->mask_pixels.resize(row * v.img.height);
        for (int y = 0; y < v.img.height; y++)
            std::memcpy(s->mask_pixels.data() + y * row, fx_image_row(&v.img, y), row);
        s->mask = v.img;
        s->mask.data = s->mask_pixels.data();
        s->mask.stride = row;
        s->opts.mask_image = &s->mask;
    }
    check(ctx, fx_equalize_options_check(ctx, &s->opts));
    return s;
}

// The context a call runs on: the image's GPU for a device array (device must allow
// it), else the device asked for.
Device device_for(const ImageView &in, const std::string &device)
{
    Device d = parse_device(device);
    if (!in.device) return d;
    if (d.kind == FX_DEVICE_CPU)
        raise(FX_EINVAL, "device='cpu', but the image is on GPU " + std::to_string(in.device_id) +
                             " (give a host array, or device='auto')");
    if (d.kind == FX_DEVICE_GPU && d.gpu != in.device_id)
        raise(FX_EINVAL, "device='" + device + "', but the image is on GPU " +
                             std::to_string(in.device_id));
    d.kind = FX_DEVICE_GPU;
    d.gpu = in.device_id;
    return d;
}

void check_context_for(fx_context *ctx, const ImageView &in)
{
    // A host image suits any context; asking a device='auto' context for its device would
    // start its GPU (the library starts it only when an item could use it).
    if (!in.device) return;
    int gpu = 0;
    fx_device_kind k = fx_context_device(ctx, &gpu);
    if (in.device && (k != FX_DEVICE_GPU || gpu != in.device_id))
        raise(FX_EINVAL, "the image is on GPU " + std::to_string(in.device_id) +
                             ", but this runs on " +
                             (k == FX_DEVICE_GPU ? "GPU " + std::to_string(gpu) : "the CPU"));
}

AnyArray as_image_array(nb::handle h, const char *what)
{
    AnyArray a;
    if (!nb::try_cast(h, a, false))
        raise(FX_EINVAL, std::string(what) + ": expected an array (numpy, or a CUDA array through "
                                             "DLPack), got " +
                             nb::type_name(h.type()).c_str());
    return a;
}

// Temporary fx_images freed on every path.
struct Temps {
    fx_image a{}, b{};
    ~Temps()
    {
        fx_image_free(&a);
        fx_image_free(&b);
    }
};

fx_status alloc_like(fx_context *ctx, fx_image *img, const fx_image &shape, fx_sample_type t)
{
    return shape.memory == FX_MEMORY_DEVICE
               ? fx_image_alloc_device(ctx, img, shape.width, shape.height, shape.channels, t)
               : fx_image_alloc(ctx, img, shape.width, shape.height, shape.channels, t);
}

// The output: `out` checked, or a new numpy array (host results only).
struct Output {
    nb::object result;
    ImageView view;
};

Output make_output(nb::handle out, const ImageView &in, int channels, int ndim, fx_sample_type t)
{
    Output o;
    if (out.is_none()) {
        if (in.device)
            raise(FX_EINVAL, "a GPU image needs out= (the Python layer allocates it)");
        o.result = new_numpy_image(in.img.height, in.img.width, channels, ndim, t, &o.view.img);
        o.view.ndim = ndim;
    } else {
        o.view = out_view(out, in.img.height, in.img.width, channels, ndim, t, in.device,
                          in.device_id);
        o.result = nb::borrow(out);
    }
    return o;
}

// ---- filter ----

void *make_filter_plan(void *arg, fx_context *ctx, const fx_image_desc &desc)
{
    auto *s = (FilterSpec *)arg;
    fx_filter_plan *p = nullptr;
    check(ctx, fx_filter_plan_create(ctx, s->kernel, &s->opts, &desc, &p));
    return p;
}

void free_filter_plan(void *p)
{
    fx_filter_plan_free((fx_filter_plan *)p);
}

fx_sample_type depth_type(const std::string &depth, fx_sample_type in)
{
    if (depth == "same") return in;
    fx_sample_type t = parse_sample_type(depth);
    if (!t) raise(FX_EINVAL, "--depth: '" + depth + "' is not one of: same, u8, u16, f32");
    return t;
}

// Filter `in` into `out` on ctx, widening before and narrowing after as --depth does.
// get_plan(desc) gives the plan for the working shape. Called without the GIL.
template <typename GetPlan>
void filter_images(fx_context *ctx, const fx_image &in, fx_image &out, GetPlan get_plan)
{
    const fx_sample_type work = in.type > out.type ? in.type : out.type;
    Temps t;
    const fx_image *src = &in;
    if (work != in.type) {
        check(ctx, alloc_like(ctx, &t.a, in, work));
        check(ctx, fx_image_convert(ctx, &in, &t.a, nullptr));
        src = &t.a;
    }
    fx_image_desc desc = fx_image_desc_of(src);
    auto *plan = (fx_filter_plan *)get_plan(desc);
    fx_image *dst = &out;
    if (work != out.type) {
        check(ctx, alloc_like(ctx, &t.b, in, work));
        dst = &t.b;
    }
    check(ctx, fx_filter_run(plan, src, dst, nullptr));
    if (dst != &out) check(ctx, fx_image_convert(ctx, dst, &out, nullptr));
    if (in.memory == FX_MEMORY_DEVICE) check(ctx, fx_context_synchronize(ctx));
}

struct FilterSpecHandle {
    std::shared_ptr<FilterSpec> s;
};

// ---- filter batches: N x H x W x C arrays ----

// The output batch: `out` checked, or a new numpy array (host results only).
struct BatchOutput {
    nb::object result;
    BatchView view;
};

BatchOutput make_batch_output(nb::handle out, const BatchView &in, fx_sample_type t)
{
    BatchOutput o;
    if (out.is_none()) {
        if (in.head.device)
            raise(FX_EINVAL, "a GPU image needs out= (the Python layer allocates it)");
        o.result = new_numpy_batch(in, t, &o.view);
    } else {
        o.view = batch_out_view(out, in, t);
        o.result = nb::borrow(out);
    }
    return o;
}

// The batch in one fx_filter_run_batch (the CPU: an image a thread; device images on the
// GPU's 8-bit fast path: one launch a pass); with another depth, image by image through
// filter_images (its conversions). Called without the GIL.
template <typename GetPlan>
void filter_batch(fx_context *ctx, BatchView &in, BatchView &out, GetPlan get_plan)
{
    const size_t n = in.imgs.size();
    if (n == 0) return;
    if (in.head.img.type != out.head.img.type) {
        for (size_t i = 0; i < n; i++)
            filter_images(ctx, in.imgs[i], out.imgs[i], get_plan);
        return;
    }
    auto *plan = (fx_filter_plan *)get_plan(fx_image_desc_of(&in.head.img));
    check(ctx, fx_filter_run_batch(plan, in.imgs.data(), out.imgs.data(), (int)n, nullptr));
    if (in.head.img.memory == FX_MEMORY_DEVICE) check(ctx, fx_context_synchronize(ctx));
}

nb::object filter_batch_call(FilterSpecHandle &h, const AnyArray &a, nb::handle out,
                             const std::string &depth, const std::string &device, int threads)
{
    BatchView in = batch_view(a, "image");
    fx_sample_type t_out = depth_type(depth, in.head.img.type);
    fx_context *ctx = thread_context(device_for(in.head, device), threads);
    check_context_for(ctx, in.head);
    BatchOutput o = make_batch_output(out, in, t_out);
    FilterSpec *s = h.s.get();
    {
        nb::gil_scoped_release release;
        filter_batch(ctx, in, o.view, [&](const fx_image_desc &d) {
            return thread_plan(s->id, ctx, d, h.s, make_filter_plan, s, free_filter_plan);
        });
        batch_scatter_back(o.view);
    }
    return o.result;
}

nb::object filter_call(FilterSpecHandle &h, nb::handle image, nb::handle out,
                       const std::string &depth, const std::string &device, int threads)
{
    AnyArray a = as_image_array(image, "image");
    if (a.ndim() == 4) return filter_batch_call(h, a, out, depth, device, threads);
    ImageView in = image_view(a, "image");
    fx_sample_type t_out = depth_type(depth, in.img.type);
    fx_context *ctx = thread_context(device_for(in, device), threads);
    check_context_for(ctx, in);
    Output o = make_output(out, in, in.img.channels, in.ndim, t_out);
    FilterSpec *s = h.s.get();
    {
        nb::gil_scoped_release release;
        filter_images(ctx, in.img, o.view.img, [&](const fx_image_desc &d) {
            return thread_plan(s->id, ctx, d, h.s, make_filter_plan, s, free_filter_plan);
        });
        scatter_back(o.view);
    }
    return o.result;
}

// ---- equalize ----

void *make_equalize_plan(void *arg, fx_context *ctx, const fx_image_desc &desc)
{
    auto *s = (EqualizeSpec *)arg;
    fx_equalize_plan *p = nullptr;
    check(ctx, fx_equalize_plan_create(ctx, &s->opts, &desc, &p));
    return p;
}

void free_equalize_plan(void *p)
{
    fx_equalize_plan_free((fx_equalize_plan *)p);
}

struct EqualizeSpecHandle {
    std::shared_ptr<EqualizeSpec> s;
};

int equalize_out_ndim(const ImageView &in, int out_channels)
{
    if (out_channels == in.img.channels) return in.ndim;
    return out_channels == 1 ? 2 : 3;
}

template <typename GetPlan>
void equalize_images(fx_context *ctx, const fx_image &in, fx_image &out, GetPlan get_plan)
{
    auto *plan = (fx_equalize_plan *)get_plan(fx_image_desc_of(&in));
    check(ctx, fx_equalize_run(plan, &in, &out, nullptr));
    if (in.memory == FX_MEMORY_DEVICE) check(ctx, fx_context_synchronize(ctx));
}

nb::object equalize_call(EqualizeSpecHandle &h, nb::handle image, nb::handle out,
                         const std::string &device, int threads)
{
    AnyArray a = as_image_array(image, "image");
    ImageView in = image_view(a, "image");
    fx_context *ctx = thread_context(device_for(in, device), threads);
    check_context_for(ctx, in);
    const int oc = fx_equalize_output_channels(&h.s->opts, in.img.channels);
    Output o = make_output(out, in, oc, equalize_out_ndim(in, oc), in.img.type);
    EqualizeSpec *s = h.s.get();
    {
        nb::gil_scoped_release release;
        equalize_images(ctx, in.img, o.view.img, [&](const fx_image_desc &d) {
            return thread_plan(s->id, ctx, d, h.s, make_equalize_plan, s, free_equalize_plan);
        });
        scatter_back(o.view);
    }
    return o.result;
}

// ---- plans made once: own context, one plan, one caller at a time ----

fx_image_desc desc_from(nb::handle shape, const std::string &dtype, int *ndim)
{
    nb::tuple t = nb::tuple(shape);
    *ndim = (int)nb::len(t);
    if (*ndim != 2 && *ndim != 3)
        raise(FX_EINVAL, "shape: (H, W) or (H, W, C), got " + std::to_string(*ndim) + " values");
    fx_image_desc d{};
    d.height = nb::cast<int>(t[0]);
    d.width = nb::cast<int>(t[1]);
    d.channels = *ndim == 3 ? nb::cast<int>(t[2]) : 1;
    d.type = parse_sample_type(dtype);
    if (!d.type) raise(FX_EINVAL, "dtype: '" + dtype + "' is not uint8, uint16 or float32");
    if (d.width < 1 || d.height < 1 || d.channels < 1 || d.channels > FX_MAX_IMAGE_CHANNELS)
        raise(FX_EINVAL, "shape: not an image shape");
    return d;
}

struct PlanBase {
    fx_context *ctx = nullptr;
    void *plan = nullptr;
    void (*free_fn)(void *) = nullptr;
    fx_image_desc desc{}; // of the input
    int ndim = 2;
    std::mutex lock;
    ~PlanBase()
    {
        if (plan) free_fn(plan);
        if (ctx) fx_context_destroy(ctx);
    }
    void check_input(const ImageView &in) const
    {
        const fx_image_desc d = fx_image_desc_of(&in.img);
        if (d.width != desc.width || d.height != desc.height || d.channels != desc.channels ||
            d.type != desc.type)
            raise(FX_EINVAL, "image: " + std::to_string(d.height) + "x" + std::to_string(d.width) +
                                 "x" + std::to_string(d.channels) + " " +
                                 fx_sample_type_name(d.type) + ", the plan is for " +
                                 std::to_string(desc.height) + "x" + std::to_string(desc.width) +
                                 "x" + std::to_string(desc.channels) + " " +
                                 fx_sample_type_name(desc.type));
        check_context_for(ctx, in);
    }
    uintptr_t stream() const { return (uintptr_t)fx_context_stream(ctx); }
    void wait_stream(uintptr_t s) { check(ctx, fx_context_wait_stream(ctx, (void *)s)); }
    std::string device() const
    {
        int gpu = 0;
        return fx_context_device(ctx, &gpu) == FX_DEVICE_GPU ? "gpu:" + std::to_string(gpu) : "cpu";
    }
};

struct FilterPlanObj : PlanBase {
    std::shared_ptr<FilterSpec> spec;
    fx_sample_type out_type;
    FilterPlanObj(FilterSpecHandle &h, nb::handle shape, const std::string &dtype,
                  const std::string &depth, const std::string &device, int threads)
    {
        spec = h.s;
        desc = desc_from(shape, dtype, &ndim);
        out_type = depth_type(depth, desc.type);
        ctx = new_context(parse_device(device), threads);
        free_fn = free_filter_plan;
        fx_image_desc work = desc;
        if (out_type > work.type) work.type = out_type;
        nb::gil_scoped_release release;
        plan = make_filter_plan(spec.get(), ctx, work);
    }
    nb::object call(nb::handle image, nb::handle out)
    {
        AnyArray a = as_image_array(image, "image");
        if (a.ndim() == 4) return call_batch(a, out);
        ImageView in = image_view(a, "image");
        check_input(in);
        Output o = make_output(out, in, in.img.channels, in.ndim, out_type);
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> g(lock);
        filter_images(ctx, in.img, o.view.img, [&](const fx_image_desc &) { return plan; });
        scatter_back(o.view);
        return o.result;
    }
    // N images of the plan's shape (N x H x W x C): one fx_filter_run_batch.
    nb::object call_batch(const AnyArray &a, nb::handle out)
    {
        BatchView in = batch_view(a, "image");
        check_input(in.head);
        BatchOutput o = make_batch_output(out, in, out_type);
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> g(lock);
        filter_batch(ctx, in, o.view, [&](const fx_image_desc &) { return plan; });
        batch_scatter_back(o.view);
        return o.result;
    }
    std::string strategy() const
    {
        return fx_filter_strategy_name(fx_filter_plan_strategy((fx_filter_plan *)plan));
    }
    std::string explain() const { return fx_filter_plan_explain((fx_filter_plan *)plan); }
};

struct EqualizePlanObj : PlanBase {
    std::shared_ptr<EqualizeSpec> spec;
    EqualizePlanObj(EqualizeSpecHandle &h, nb::handle shape, const std::string &dtype,
                    const std::string &device, int threads)
    {
        spec = h.s;
        desc = desc_from(shape, dtype, &ndim);
        ctx = new_context(parse_device(device), threads);
        free_fn = free_equalize_plan;
        nb::gil_scoped_release release;
        plan = make_equalize_plan(spec.get(), ctx, desc);
    }
    nb::object call(nb::handle image, nb::handle out)
    {
        AnyArray a = as_image_array(image, "image");
        ImageView in = image_view(a, "image");
        check_input(in);
        const int oc = fx_equalize_output_channels(&spec->opts, in.img.channels);
        Output o = make_output(out, in, oc, equalize_out_ndim(in, oc), in.img.type);
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> g(lock);
        equalize_images(ctx, in.img, o.view.img, [&](const fx_image_desc &) { return plan; });
        scatter_back(o.view);
        return o.result;
    }
};

} // namespace

void bind_images(nb::module_ &m)
{
    nb::class_<FilterSpecHandle>(m, "_FilterSpec")
        .def("__init__",
             [](FilterSpecHandle *self, nb::handle kernel, nb::handle names, nb::handle values) {
                 new (self) FilterSpecHandle{make_filter_spec(kernel, names, values)};
             })
        .def("__call__", &filter_call, nb::arg("image"), nb::arg("out").none(),
             nb::arg("depth"), nb::arg("device"), nb::arg("threads"))
        .def_prop_ro("kernel_name", [](FilterSpecHandle &h) {
            return std::string(fx_kernel_name(h.s->kernel));
        });
    nb::class_<EqualizeSpecHandle>(m, "_EqualizeSpec")
        .def("__init__",
             [](EqualizeSpecHandle *self, nb::handle names, nb::handle values, nb::handle mask) {
                 new (self) EqualizeSpecHandle{make_equalize_spec(names, values, mask)};
             },
             nb::arg("names"), nb::arg("values"), nb::arg("mask").none())
        .def("__call__", &equalize_call, nb::arg("image"), nb::arg("out").none(),
             nb::arg("device"), nb::arg("threads"))
        .def("output_channels", [](EqualizeSpecHandle &h, int channels) {
            return fx_equalize_output_channels(&h.s->opts, channels);
        });
    nb::class_<FilterPlanObj>(m, "_FilterPlan")
        .def(nb::init<FilterSpecHandle &, nb::handle, const std::string &, const std::string &,
                      const std::string &, int>())
        .def("__call__", &FilterPlanObj::call, nb::arg("image"), nb::arg("out").none() = nb::none())
        .def_prop_ro("strategy", &FilterPlanObj::strategy)
        .def_prop_ro("explain", &FilterPlanObj::explain)
        .def_prop_ro("device", &FilterPlanObj::device)
        .def("stream", &FilterPlanObj::stream)
        .def("wait_stream", &FilterPlanObj::wait_stream);
    nb::class_<EqualizePlanObj>(m, "_EqualizePlan")
        .def(nb::init<EqualizeSpecHandle &, nb::handle, const std::string &, const std::string &,
                      int>())
        .def("__call__", &EqualizePlanObj::call, nb::arg("image"), nb::arg("out").none() = nb::none())
        .def_prop_ro("device", &EqualizePlanObj::device)
        .def("stream", &EqualizePlanObj::stream)
        .def("wait_stream", &EqualizePlanObj::wait_stream);
    m.def("_thread_stream", [](int gpu, int threads) {
        Device d;
        d.kind = FX_DEVICE_GPU;
        d.gpu = gpu;
        return (uintptr_t)fx_context_stream(thread_context(d, threads));
    });
    m.def("_thread_wait_stream", [](int gpu, int threads, uintptr_t stream) {
        Device d;
        d.kind = FX_DEVICE_GPU;
        d.gpu = gpu;
        fx_context *ctx = thread_context(d, threads);
        check(ctx, fx_context_wait_stream(ctx, (void *)stream));
    });
}

} // namespace fxpy
