#!/usr/bin/env bash
# Sweep a tuning constant of the GPU filter's 8-bit fast path (src/filter/filter_tuning.h,
# the FXI_GPU_U8_* #ifndef ones) on a machine with a GPU: one build per value in
# build-sweep-NAME-VALUE/, then `gpu_test_gpu_filter_bench --bench dev` (10000x6000 RGB u8
# on the device: box:3, gaussian:3, box:121, gaussian:121; RESULT filter_dev_* lines).
# Only the bench binary is built. The bytes do not depend on these constants; run
# `gpu_test_gpu_sweep gpu_u8_fast_path_matches_cpu` on the build of the value you keep.
#
# usage: scripts/sweep-gpu-u8.sh NAME VALUE...
#   e.g. scripts/sweep-gpu-u8.sh FXI_GPU_U8_FUSED_TILE_ROWS 8 16 32 64
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
name=$1
shift
for value in "$@"; do
    dir="$root/build-sweep-$name-$value"
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFXKIT_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_C_FLAGS=-D$name=$value" \
        "-DCMAKE_CUDA_FLAGS=-D$name=$value" >/dev/null
    ninja -C "$dir" tests/gpu_test_gpu_filter_bench >/dev/null
    echo "== $name=$value"
    "$dir/tests/gpu_test_gpu_filter_bench" --bench dev | grep RESULT
done
