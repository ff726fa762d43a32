#!/usr/bin/env bash
# --device auto (the default). On any machine: small items of every job run on the CPU,
# --explain says so with the CPU's estimate, and the GPU is never looked for (issue 25:
# auto starts CUDA only for an item that could use it; the library says "GPU N started"
# at debug level when it does, "no usable GPU" at info level when it found none).
# Without a usable GPU, also: an item large enough to look finds none and says so, the
# timings CSV names the device, and the bytes are --device cpu's. (On a GPU machine the
# larger choices depend on the measured rates: tests/gpu/test_gpu_device_auto.c and
# bench/device_auto.py check them there.)
. "$(dirname "$0")/lib.sh"

"$FXKIT" gen image -s 96x64 -o small.ppm >/dev/null
"$FXKIT" gen image -s 96x64 -c 1 -o gray.pgm >/dev/null
"$FXKIT" gen audio --duration 1 -o tone.wav >/dev/null
# A dense 15x15 integer kernel (direct, not rank 1).
for i in $(seq 15); do
    echo "$(seq -s ' ' "$i" $((i + 14)) | tr -d '\n')"
done >dense15.txt

# A build without CUDA runs auto on the CPU from the context's making: its explanation is
# "no usable GPU", and there is nothing to look for later.
if "$FXKIT" info | grep -qE '^features:.* cuda( |$)'; then cuda=1; else cuda=0; fi
# What an auto item on the CPU says after WHERE ("small.ppm: device: cpu").
auto_cpu() {
    if [ "$cuda" = 1 ]; then echo "$1 (auto: cpu ~"; else echo "$1 (auto: no usable GPU)"; fi
}

# The GPU was neither started nor looked for in the last run.
expect_no_gpu_asked() {
    [ "$cuda" = 1 ] || return 0
    expect_stderr_lacks "no usable GPU"
    expect_stderr_lacks "started for this context"
}

t "filter --explain on a small image: cpu, the GPU not looked for"
fx filter -k gaussian:5 --explain --log-level debug small.ppm -o auto.ppm
expect_exit 0
expect_stderr_contains "$(auto_cpu "device: cpu")"
expect_stderr_contains "$(auto_cpu "small.ppm: device: cpu")"
expect_no_gpu_asked
fx filter -k gaussian:5 --device cpu small.ppm -o cpu.ppm
expect_exit 0
expect_equal "$(sha auto.ppm)" "$(sha cpu.ppm)" "auto bytes == cpu bytes"

t "filter --explain, a dense kernel on a small image: cpu, bound without asking"
fx filter -k @dense15.txt --explain --log-level debug small.ppm -o dense.ppm
expect_exit 0
expect_stderr_contains "$(auto_cpu "small.ppm: device: cpu")"
expect_no_gpu_asked

t "filter --explain --device cpu: forced"
fx filter -k box:3 --explain --device cpu small.ppm -o forced.ppm
expect_exit 0
expect_stderr_contains "device: cpu (as the context was created)"

t "filter, streamed in bands: the device is explained too"
fx filter -k gaussian:5 --explain --log-level debug --stream-rows 16 small.ppm -o banded.ppm
expect_exit 0
expect_stderr_contains "$(auto_cpu "filtered in bands of 16 rows (separable); device: cpu")"
expect_no_gpu_asked
expect_equal "$(sha banded.ppm)" "$(sha cpu.ppm)" "banded bytes == whole bytes"

t "equalize --explain"
fx equalize --explain --log-level debug small.ppm gray.pgm -o eq/
expect_exit 0
expect_stderr_contains "$(auto_cpu "small.ppm: global on hsv, 256 bins; device: cpu")"
expect_stderr_contains "$(auto_cpu "gray.pgm: global on gray, 256 bins; device: cpu")"
expect_no_gpu_asked

t "normalize --explain"
fx normalize --explain --log-level debug tone.wav -o tone_out.wav
expect_exit 0
expect_stderr_contains "$(auto_cpu "tone.wav: device: cpu")"
expect_no_gpu_asked

t "without --explain nothing is said"
fx filter -k gaussian:5 small.ppm -o quiet.ppm
expect_exit 0
expect_stderr_empty

t "the timings CSV names the device each item ran on"
fx filter -k gaussian:5 --timings-csv times.csv small.ppm -o csv.ppm
expect_exit 0
expect_equal "$(awk -F, 'NR == 2 { print $3 }' times.csv)" "cpu" "device column"

if ! "$FXKIT" info --json | grep -q '"gpus": \[\]'; then
    echo "(a GPU is present: the no-GPU explanations are checked without one)"
    finish
fi
if [ "$cuda" = 0 ]; then
    echo "(a build without CUDA: no GPU to look for)"
    finish
fi

t "an item that could use a GPU looks for one, finds none, and says so"
# (on one thread, large enough that a GPU would win even with CUDA's start, ~0.3 s, counted)
"$FXKIT" gen image -s 5000x4000 -o mid.ppm >/dev/null
fx filter -k @dense15.txt --explain -v --threads 1 mid.ppm -o mid_auto.ppm
expect_exit 0
expect_stderr_contains "mid.ppm: info: no usable GPU: running on the CPU"
expect_stderr_contains "device: cpu (auto: no usable GPU)"
fx filter -k @dense15.txt --device cpu mid.ppm -o mid_cpu.ppm
expect_equal "$(sha mid_auto.ppm)" "$(sha mid_cpu.ppm)" "auto bytes == cpu bytes"

t "fxkit info --rates without a GPU"
fx info --rates
expect_exit 0
expect_stdout_contains "GPU: none"

finish
