#!/bin/sh
# The 8-bit walk kernel (k_u8_walk4, src/filter/gpu_u8.cu) on the CPU, without a GPU: g++
# compiles gpu_u8.cu's kernels (the file cut before its host launch code) with
# emu_cuda.h's stand-ins for the CUDA intrinsics, runs every thread of every block one
# after another (the kernel has no barrier and no shared memory) and compares every byte
# with a plain 2-D reference, for every K (3, 5), C (1-4), box and weighted taps, one image
# and batch, border, anchor, and awkward widths and heights, and for 3x3 threads of 4 and of
# 8 elements (FXI_GPU_U8_WALK3_ELEMENTS: the build's value also checks the geometry's
# walk_elements against the kernel's). A check for kernel edits made
# where no GPU is; the GPU tests remain the word (the emulation's integer arithmetic is the
# device's, its floats are not used by this kernel).
# Usage: tests/emu/run_walk4_emu.sh [gpu_u8.cu]   (needs the CUDA headers for dim3/uint3;
# EMU_CFLAGS: more flags, e.g. -DFXI_GPU_U8_WALK_PREFETCH_MAX_K=5 for the other tuning,
# -DFXI_GPU_U8_WALK3_ELEMENTS=4 for the 4-element build's geometry)
# CXX: the C++ compiler (default g++); exit 77 (a skip in ctest) when there is none.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec sh "$ROOT/tests/emu/emulate.sh" gpu_u8 "${1:-$ROOT/src/filter/gpu_u8.cu}" \
    '^template <typename K> fx_status allow_shared' "$ROOT/tests/emu/walk4_emu.cpp" -std=c++17
