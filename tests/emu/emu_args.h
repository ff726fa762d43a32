// The filter job's arguments the emulation drivers (box_emu.cpp, rows_emu.cpp,
// walk4_emu.cpp) launch with: an 8-bit width x height x C image at src and dst (rows of
// stride bytes; dst may be null), a kw x kh window whose tap (0, 0) lies ax pixels left and
// ay rows above its output, every channel filtered, virtual row 0 at image row -ay, the
// rows unresolved (the kernels apply the border); every other field zero (the drivers set
// the finish, the border values, a kept alpha). Include after the kernels.
#pragma once
#include <cstring>

inline fxi_filter_args emu_u8_args(const uint8_t *src, uint8_t *dst, size_t stride,
                                   int64_t width, int64_t height, int channels, int kw, int kh,
                                   int ax, int ay, int border)
{
    fxi_filter_args a;
    memset(&a, 0, sizeof a);
    a.src = src;
    a.src_stride = stride;
    a.src_type = FX_U8;
    a.v0 = -ay;
    a.width = width;
    a.height = height;
    a.channels = channels;
    a.filter_channels = channels;
    a.border = border;
    a.dst = dst;
    a.dst_stride = dst ? stride : 0;
    a.rows = height;
    a.kw = kw;
    a.kh = kh;
    a.ax = ax;
    a.ay = ay;
    return a;
}
