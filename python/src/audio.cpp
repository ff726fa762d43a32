// fxkit._fxkit: normalize (a whole signal, or a stream of blocks) and audio samples.
//
// Samples are frames x channels (or 1-D mono), float32, float64 or int16; the library
// works on interleaved doubles. int16 maps full scale as x / 32768 (as the library's
// files do) and comes back rounded half to even and saturated.
#include "common.h"

#include <nanobind/stl/string.h>

#include <cmath>
#include <cstring>
#include <mutex>

namespace fxpy {

namespace {

enum SampleKind { S_F64, S_F32, S_I16 };
constexpr double I16_SCALE = 32768.0;

struct Samples {
    std::vector<double> data; // interleaved
    size_t frames = 0;
    int channels = 0;
    int ndim = 0;
    SampleKind kind = S_F64;
};

Samples read_samples(nb::handle h, int want_channels)
{
    nb::ndarray<nb::ro> a;
    if (!nb::try_cast(h, a, false))
        raise(FX_EINVAL, std::string("samples: expected an array, got ") +
                             nb::type_name(h.type()).c_str());
    if (a.device_type() != nb::device::cpu::value)
        raise(FX_EINVAL, "samples: give the samples in host memory");
    Samples s;
    s.ndim = (int)a.ndim();
    if (s.ndim != 1 && s.ndim != 2)
        raise(FX_EINVAL, "samples: frames x channels (2-D) or mono (1-D), this array has " +
                             std::to_string(s.ndim) + " dimensions");
    if (a.dtype() == nb::dtype<double>())
        s.kind = S_F64;
    else if (a.dtype() == nb::dtype<float>())
        s.kind = S_F32;
    else if (a.dtype() == nb::dtype<int16_t>())
        s.kind = S_I16;
    else
        raise(FX_EINVAL, "samples: dtype not supported (float32, float64 or int16)");
    s.frames = a.shape(0);
    s.channels = s.ndim == 2 ? (int)a.shape(1) : 1;
    if (s.channels < 1) raise(FX_EINVAL, "samples: no channels");
    if (want_channels && s.channels != want_channels)
        raise(FX_EINVAL, "samples: " + std::to_string(s.channels) + " channels, the stream has " +
                             std::to_string(want_channels));
    const int64_t sf = a.stride(0), sc = s.ndim == 2 ? a.stride(1) : 0;
    s.data.resize(s.frames * s.channels);
    const uint8_t *base = (const uint8_t *)a.data();
    for (size_t f = 0; f < s.frames; f++)
        for (int c = 0; c < s.channels; c++) {
            const int64_t i = (int64_t)f * sf + c * sc;
            double v;
            switch (s.kind) {
            case S_F64: v = ((const double *)base)[i]; break;
            case S_F32: v = ((const float *)base)[i]; break;
            default: v = ((const int16_t *)base)[i] / I16_SCALE; break;
            }
            s.data[f * s.channels + c] = v;
        }
    return s;
}

nb::object write_samples(const double *data, size_t frames, int channels, int ndim, SampleKind k)
{
    const size_t n = frames * channels;
    const size_t es = k == S_F64 ? 8 : k == S_F32 ? 4 : 2;
    void *buf = std::malloc(n ? n * es : 1);
    if (!buf) raise(FX_ENOMEM, "out of memory");
    nb::capsule owner(buf, [](void *p) noexcept { std::free(p); });
    for (size_t i = 0; i < n; i++) {
        switch (k) {
        case S_F64: ((double *)buf)[i] = data[i]; break;
        case S_F32: ((float *)buf)[i] = (float)data[i]; break;
        default: {
            double v = std::nearbyint(data[i] * I16_SCALE);
            v = v < -32768.0 ? -32768.0 : v > 32767.0 ? 32767.0 : v;
            ((int16_t *)buf)[i] = (int16_t)v;
        }
        }
    }
    size_t shape[2] = {frames, (size_t)channels};
    nb::dlpack::dtype dt = k == S_F64   ? nb::dtype<double>()
                           : k == S_F32 ? nb::dtype<float>()
                                        : nb::dtype<int16_t>();
    return nb::ndarray<nb::numpy>(buf, (size_t)ndim, shape, owner, nullptr, dt).cast();
}

struct NormalizeSpec {
    fx_normalize_options opts;
    std::vector<std::unique_ptr<std::string>> keep;
};

void make_spec(NormalizeSpec &s, nb::handle names, nb::handle values)
{
    fx_normalize_options_init(&s.opts);
    set_options(fx_normalize_options_table(), &s.opts, names, values, s.keep);
}

nb::object normalize_call(nb::handle samples, int rate, nb::handle names, nb::handle values,
                          const std::string &device, int threads)
{
    NormalizeSpec spec;
    make_spec(spec, names, values);
    Samples in = read_samples(samples, 0);
    fx_context *ctx = thread_context(parse_device(device), threads);
    fx_audio a{}, out{};
    a.data = in.data.data();
    a.frames = in.frames;
    a.channels = in.channels;
    a.rate = rate;
    {
        nb::gil_scoped_release release;
        check(ctx, fx_normalize_audio(ctx, &spec.opts, &a, &out));
    }
    nb::object r;
    try {
        r = write_samples(out.data, out.frames, out.channels, in.ndim, in.kind);
    } catch (...) {
        fx_audio_free(&out);
        throw;
    }
    fx_audio_free(&out);
    return r;
}

// A stream: push blocks of any length, get back what is ready; flush at the end.
struct Normalizer {
    NormalizeSpec spec;
    fx_context *ctx = nullptr;
    fx_normalize *n = nullptr;
    int channels;
    int ndim = 2;
    SampleKind kind = S_F64;
    bool kind_known = false;
    std::mutex lock;

    Normalizer(int rate, int channels_, nb::handle names, nb::handle values,
               const std::string &device, int threads)
        : channels(channels_)
    {
        make_spec(spec, names, values);
        if (channels < 1) raise(FX_ERANGE, "channels: at least 1");
        ctx = new_context(parse_device(device), threads);
        fx_status st = fx_normalize_open(ctx, &spec.opts, channels, rate, &n);
        if (st != FX_OK) {
            std::string msg = fx_context_error(ctx);
            fx_context_destroy(ctx);
            ctx = nullptr;
            raise(st, msg);
        }
    }
    ~Normalizer()
    {
        fx_normalize_close(n);
        if (ctx) fx_context_destroy(ctx);
    }
    // What is ready now, as an array of the last block's dtype and dimensions.
    nb::object pull_ready(std::vector<double> &buf)
    {
        size_t got = 0;
        {
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> g(lock);
            size_t ready = fx_normalize_ready(n);
            buf.resize(ready * channels);
            size_t total = 0;
            while (total < ready) {
                check(ctx, fx_normalize_pull(n, buf.data() + total * channels, ready - total, &got));
                if (!got) break;
                total += got;
            }
            got = total;
        }
        return write_samples(buf.data(), got, channels, ndim, kind);
    }
    nb::object push(nb::handle block)
    {
        Samples in = read_samples(block, channels);
        ndim = in.ndim;
        kind = in.kind;
        kind_known = true;
        {
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> g(lock);
            check(ctx, fx_normalize_push(n, in.data.data(), in.frames));
        }
        return pull_ready(in.data);
    }
    nb::object flush()
    {
        {
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> g(lock);
            check(ctx, fx_normalize_flush(n));
        }
        std::vector<double> buf;
        return pull_ready(buf);
    }
    nb::dict info() const
    {
        fx_normalize_info i;
        fx_normalize_info_get(n, &i);
        nb::dict d;
        d["frame_length"] = i.frame_length;
        d["advance"] = i.advance;
        d["min_window"] = i.min_window;
        d["gauss_window"] = i.gauss_window;
        d["latency_frames"] = i.latency_frames;
        d["on_gpu"] = (bool)i.on_gpu;
        return d;
    }
};

// ---- audio files ----

nb::tuple read_audio(const std::string &path)
{
    Device cpu;
    cpu.kind = FX_DEVICE_CPU;
    fx_context *ctx = thread_context(cpu, 0);
    fx_audio a{};
    {
        nb::gil_scoped_release release;
        check_path(ctx, path, fx_audio_read_file(ctx, path.c_str(), &a));
    }
    fx_audio *owned = new fx_audio(a);
    nb::capsule owner(owned, [](void *p) noexcept {
        fx_audio_free((fx_audio *)p);
        delete (fx_audio *)p;
    });
    size_t shape[2] = {a.frames, (size_t)a.channels};
    nb::object arr = nb::ndarray<nb::numpy, double>(a.data ? (void *)a.data : (void *)owned, 2,
                                                    shape, owner)
                         .cast();
    return nb::make_tuple(arr, a.rate);
}

void write_audio(const std::string &path, nb::handle samples, int rate,
                 const std::string &sample_format, const std::string &container)
{
    Samples in = read_samples(samples, 0);
    fx_sample_format fmt;
    Device cpu;
    cpu.kind = FX_DEVICE_CPU;
    fx_context *ctx = thread_context(cpu, 0);
    if (fx_parse_sample_format(sample_format.c_str(), &fmt) != FX_OK)
        raise(FX_EINVAL, "sample_format: '" + sample_format +
                             "' is not same, s16, s24, s32, f32 or f64");
    static const char *const containers[] = {"auto", "wav", "flac", "aiff", "ogg", nullptr};
    int c = -1;
    for (int i = 0; containers[i]; i++)
        if (container == containers[i]) c = i;
    if (c < 0) raise(FX_EINVAL, "container: '" + container + "' is not auto, wav, flac, aiff or ogg");
    fx_audio a{};
    a.data = in.data.data();
    a.frames = in.frames;
    a.channels = in.channels;
    a.rate = rate;
    a.format = in.kind == S_I16 ? FX_SF_S16 : in.kind == S_F32 ? FX_SF_F32 : FX_SF_F64;
    nb::gil_scoped_release release;
    check_path(ctx, path, fx_audio_write_file(ctx, path.c_str(), &a, (fx_audio_container)c, fmt));
}

} // namespace

void bind_audio(nb::module_ &m)
{
    m.def("_normalize", &normalize_call, nb::arg("samples"), nb::arg("rate"), nb::arg("names"),
          nb::arg("values"), nb::arg("device"), nb::arg("threads"));
    nb::class_<Normalizer>(m, "_Normalizer")
        .def(nb::init<int, int, nb::handle, nb::handle, const std::string &, int>())
        .def("push", &Normalizer::push)
        .def("flush", &Normalizer::flush)
        .def_prop_ro("info", &Normalizer::info);
    m.def("_read_audio", &read_audio);
    m.def("_write_audio", &write_audio);
}

} // namespace fxpy
