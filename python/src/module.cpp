// fxkit._fxkit: the module, image files, the library's facts and option tables.
// The Python package (python/fxkit/) builds the public API on top of it.
#include "common.h"

#include <nanobind/stl/string.h>

#include <cstring>

namespace fxpy {

namespace {

fx_context *io_context()
{
    Device cpu;
    cpu.kind = FX_DEVICE_CPU;
    return thread_context(cpu, 0);
}

nb::object read_image(const std::string &path)
{
    fx_context *ctx = io_context();
    fx_image img{};
    {
        nb::gil_scoped_release release;
        check_path(ctx, path, fx_image_read_file(ctx, path.c_str(), &img));
    }
    fx_image *owned = new fx_image(img);
    nb::capsule owner(owned, [](void *p) noexcept {
        fx_image_free((fx_image *)p);
        delete (fx_image *)p;
    });
    const size_t es = fx_sample_size(img.type);
    size_t shape[3] = {(size_t)img.height, (size_t)img.width, (size_t)img.channels};
    int64_t strides[3] = {(int64_t)(img.stride / es), img.channels, 1};
    const size_t ndim = img.channels == 1 ? 2 : 3;
    if (ndim == 2) strides[1] = 1;
    return nb::ndarray<nb::numpy>(img.data, ndim, shape, owner, strides, dtype_of(img.type))
        .cast();
}

void write_image(const std::string &path, nb::handle array, const std::string &format,
                 int quality, const std::string &compression, const std::string &png_filter)
{
    AnyArray a;
    if (!nb::try_cast(array, a, false))
        raise(FX_EINVAL, std::string("array: expected an image array, got ") +
                             nb::type_name(array.type()).c_str());
    ImageView v = image_view(a, "array");
    if (v.device) raise(FX_EINVAL, "array: a GPU array (the Python layer copies it to the host)");
    fx_image_write_options wo;
    fx_image_write_options_init(&wo);
    static const char *const formats[] = {"auto", "png", "jpeg", "pnm", "pfm", nullptr};
    int f = -1;
    for (int i = 0; formats[i]; i++)
        if (format == formats[i]) f = i;
    if (format == "jpg") f = FX_IMAGE_JPEG;
    if (format == "pgm" || format == "ppm") f = FX_IMAGE_PNM;
    if (f < 0) raise(FX_EINVAL, "format: '" + format + "' is not auto, png, jpeg, pnm or pfm");
    wo.format = (fx_image_format)f;
    if (quality) {
        if (quality < FX_MIN_JPEG_QUALITY || quality > FX_MAX_JPEG_QUALITY)
            raise(FX_ERANGE, "--quality: " + std::to_string(quality) + " is out of range [" +
                                 std::to_string(FX_MIN_JPEG_QUALITY) + ", " +
                                 std::to_string(FX_MAX_JPEG_QUALITY) + "]");
        wo.jpeg_quality = quality;
    }
    if (!compression.empty() && compression != "fast") {
        char *end = nullptr;
        long level = std::strtol(compression.c_str(), &end, 10);
        if (*end || level < 0 || level > FX_PNG_COMPRESSION_MAX)
            raise(FX_ERANGE, "--compression: '" + compression + "' is not fast or 0..9");
        wo.png_compression = (int)level;
    }
    static const char *const filters[] = {"auto", "none", "sub", "up", "avg", "paeth", nullptr};
    int pf = -1;
    for (int i = 0; filters[i]; i++)
        if (png_filter == filters[i]) pf = i;
    if (pf < 0)
        raise(FX_EINVAL, "--png-filter: '" + png_filter + "' is not auto, none, sub, up, avg or paeth");
    wo.png_filter = (fx_png_filter)pf;
    fx_context *ctx = io_context();
    nb::gil_scoped_release release;
    check_path(ctx, path, fx_image_write_file(ctx, path.c_str(), &v.img, &wo));
}

nb::dict info()
{
    nb::dict d;
    d["version"] = fx_version();
    d["features"] = fx_build_features();
    d["cuda"] = (bool)fx_gpu_built();
    fx_cpu_budget cpus;
    fx_cpu_budget_get(&cpus);
    d["threads"] = cpus.threads;
    d["threads_from"] = fx_cpu_limit_name(cpus.limit);
    nb::list gpus;
    int count = 0;
    fx_context *ctx = parse_context();
    if (fx_gpu_count(ctx, &count) != FX_OK) count = 0;
    for (int i = 0; i < count; i++) {
        fx_gpu_info g;
        if (fx_gpu_info_get(ctx, i, &g) != FX_OK) continue;
        nb::dict gd;
        gd["index"] = g.index;
        gd["name"] = g.name;
        gd["total_memory"] = g.total_memory;
        gd["free_memory"] = g.free_memory;
        gd["compute_capability"] = nb::make_tuple(g.cc_major, g.cc_minor);
        gd["multiprocessors"] = g.multiprocessors;
        gd["driver_version"] = g.driver_version;
        gd["runtime_version"] = g.runtime_version;
        gpus.append(gd);
    }
    d["gpus"] = gpus;
    return d;
}

nb::list list_kernels()
{
    nb::list out;
    const char *syntax, *help;
    int n = fx_kernel_preset_list(0, nullptr, nullptr);
    for (int i = 0; i < n; i++) {
        fx_kernel_preset_list(i, &syntax, &help);
        out.append(nb::make_tuple(syntax ? syntax : "", help ? help : ""));
    }
    return out;
}

nb::list option_table(const std::string &job)
{
    if (job == "filter") return table_rows(fx_filter_options_table());
    if (job == "equalize") return table_rows(fx_equalize_options_table());
    if (job == "normalize") return table_rows(fx_normalize_options_table());
    raise(FX_EINVAL, "no option table '" + job + "'");
}

} // namespace

void bind_io(nb::module_ &m)
{
    m.def("_read", &read_image, nb::arg("path"));
    m.def("_write", &write_image, nb::arg("path"), nb::arg("array"), nb::arg("format"),
          nb::arg("quality"), nb::arg("compression"), nb::arg("png_filter"));
    m.def("_info", &info);
    m.def("list_kernels", &list_kernels,
          "The preset kernels: a list of (syntax, help), as `fxkit filter --list-kernels`.");
    m.def("_option_table", &option_table, nb::arg("job"));
    m.def("_clear_thread_cache", &clear_thread_cache,
          "Free this thread's cached contexts and plans.");
    m.def("_strerror", [](int st) { return std::string(fx_strerror(st)); });
}

} // namespace fxpy

NB_MODULE(_fxkit, m)
{
    m.doc() = "fxkit's C library, bound with nanobind (use the fxkit package, not this module)";
    fxpy::register_errors(m);
    fxpy::bind_images(m);
    fxpy::bind_audio(m);
    fxpy::bind_io(m);
    m.attr("FX_STATUS") = nb::make_tuple(); // filled below
    nb::dict st;
    st["OK"] = (int)FX_OK;
    st["EINVAL"] = (int)FX_EINVAL;
    st["ENOMEM"] = (int)FX_ENOMEM;
    st["EIO"] = (int)FX_EIO;
    st["EFORMAT"] = (int)FX_EFORMAT;
    st["EUNSUPPORTED"] = (int)FX_EUNSUPPORTED;
    st["ECUDA"] = (int)FX_ECUDA;
    st["ENODEVICE"] = (int)FX_ENODEVICE;
    st["ERANGE"] = (int)FX_ERANGE;
    st["EOVERFLOW"] = (int)FX_EOVERFLOW;
    st["ELIMIT"] = (int)FX_ELIMIT;
    st["EBADSTATE"] = (int)FX_EBADSTATE;
    m.attr("FX_STATUS") = st;
}
