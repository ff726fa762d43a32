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
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC=${1:-$ROOT/src/filter/gpu_u8_box.cu}
CXX=${CXX:-g++}
command -v "$CXX" >/dev/null 2>&1 || { echo "box emulation: no C++ compiler ($CXX): skipped"; exit 77; }
mkdir -p "${TMPDIR:-/tmp}"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/fxkit_box_emu.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
sed -n '1,/^template <bool BATCH> auto slide_kernel/p' "$SRC" | sed '$d' > "$OUT/gpu_u8_box_kernels.inc"
echo "} /* namespace */" >> "$OUT/gpu_u8_box_kernels.inc"
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
"$CXX" -std=c++20 -O1 -pthread -ffp-contract=off -w ${EMU_CFLAGS:-} -DFXKIT_HAVE_CUDA=1 \
    -DFXI_GPU_U8_SLIDE_THREADS=64 -I"$ROOT/src" -I"$ROOT/include" -I"$CUDA_INC" -I"$OUT" \
    -I"$ROOT/tests/emu" -include emu_cuda.h "$ROOT/tests/emu/box_emu.cpp" -o "$OUT/box_emu"
"$OUT/box_emu"
