#!/usr/bin/env bash
# fxkit filter and the GPU, on any machine: the GPU strategies and options are in the
# help; without a usable GPU, --device gpu and the gpu-* strategies are clear errors
# (exit 2, nothing written).
. "$(dirname "$0")/lib.sh"

t "--help lists the GPU strategies and options"
fx filter --help
expect_exit 0
expect_stdout_contains "gpu-texture"
expect_stdout_contains "--gpu-block"
expect_stdout_contains "--gpu-memory"

t "a gpu-* strategy on the CPU: exit 2"
fx filter -k box:3 --device cpu --strategy gpu-shared "$SAMPLES/coffee.png" -o out/a.png
expect_exit 2
expect_stderr_contains "runs on a GPU"
expect_no_file out/a.png

if "$FXKIT" info | grep -q '^GPU: none'; then
    t "--device gpu without a usable GPU: exit 2"
    fx filter -k box:3 --device gpu "$SAMPLES/coffee.png" -o out/b.png
    expect_exit 2
    expect_stderr_contains "--device gpu: "
    expect_no_file out/b.png
fi

finish
