#!/bin/sh
# The two-pass rows in byte dot products (k_u8_rows_dp4a, src/filter/gpu_u8.cu) on the
# CPU, without a GPU: g++ compiles gpu_u8.cu's kernels (the file cut before its host code)
# with emu_cuda.h's stand-ins, runs each block's threads as threads of the process
# (barriers emulated) and compares every intermediate value with a plain row filter
# (tests/emu/rows_emu.cpp). Blocks of 8 threads a channel (FXI_GPU_U8_ROW_TX), so that
# short rows span several blocks. A check for kernel edits made where no GPU is; the GPU
# tests remain the word.
# Usage: tests/emu/run_rows_emu.sh [gpu_u8.cu]   (needs the CUDA headers; EMU_CFLAGS: more
# flags, e.g. -fsanitize=address); CXX: the C++ compiler (default g++; C++20); exit 77 (a
# skip in ctest) when there is none.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec sh "$ROOT/tests/emu/emulate.sh" gpu_u8 "${1:-$ROOT/src/filter/gpu_u8.cu}" \
    '^template <typename K> fx_status allow_shared' "$ROOT/tests/emu/rows_emu.cpp" -std=c++20 \
    -pthread -DFXI_GPU_U8_ROW_TX=8
