#!/bin/sh
# The 8-bit box slide (k_u8_box_slide, src/filter/gpu_u8_box.cu) on the CPU, without a GPU:
# g++ compiles gpu_u8_box.cu's kernel (the file cut before its host launch code) with
# emu_cuda.h's stand-ins, runs each block's threads as threads of the process (barriers
# and warp shuffles emulated) and compares every byte with a plain 2-D window sum
# (tests/emu/box_emu.cpp). Blocks of 64 threads (FXI_GPU_U8_SLIDE_THREADS), so that short
# rows span several tiles. A check for kernel edits made where no GPU is; the GPU tests
# remain the word.
# Usage: tests/emu/run_box_emu.sh [gpu_u8_box.cu]   (needs the CUDA headers; EMU_CFLAGS:
# more flags, e.g. -fsanitize=address); CXX: the C++ compiler (default g++; C++20); exit 77
# (a skip in ctest) when there is none.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec sh "$ROOT/tests/emu/emulate.sh" gpu_u8_box "${1:-$ROOT/src/filter/gpu_u8_box.cu}" \
    '^template <bool BATCH> auto slide_kernel' "$ROOT/tests/emu/box_emu.cpp" -std=c++20 -pthread \
    -DFXI_GPU_U8_SLIDE_THREADS=64
