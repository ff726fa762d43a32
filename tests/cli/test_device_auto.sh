#!/usr/bin/env bash
# --device auto (the default) on a machine without a usable GPU: every job's items run
# on the CPU, --explain says so and why, the timings CSV names the device each item ran
# on, and the bytes are --device cpu's. (On a GPU machine the choice depends on the
# measured rates: bench/device_auto.sh checks it there.)
. "$(dirname "$0")/lib.sh"

if ! "$FXKIT" info --json | grep -q '"gpus": \[\]'; then
    echo "skipped: a GPU is present (the no-GPU explanation is checked without one)"
    exit 77
fi

"$FXKIT" gen image -s 96x64 -o small.ppm >/dev/null
"$FXKIT" gen image -s 96x64 -c 1 -o gray.pgm >/dev/null
"$FXKIT" gen audio --duration 1 -o tone.wav >/dev/null

t "filter --explain: the plan and each item name the device and why"
fx filter -k gaussian:5 --explain small.ppm -o auto.ppm
expect_exit 0
expect_stderr_contains "device: cpu (auto: no usable GPU)"
expect_stderr_contains "small.ppm: device: cpu (auto: no usable GPU)"
fx filter -k gaussian:5 --device cpu small.ppm -o cpu.ppm
expect_exit 0
expect_equal "$(sha auto.ppm)" "$(sha cpu.ppm)" "auto bytes == cpu bytes"

t "filter --explain --device cpu: forced"
fx filter -k box:3 --explain --device cpu small.ppm -o forced.ppm
expect_exit 0
expect_stderr_contains "device: cpu (as the context was created)"

t "filter, streamed in bands: the device is explained too"
fx filter -k gaussian:5 --explain --stream-rows 16 small.ppm -o banded.ppm
expect_exit 0
expect_stderr_contains "filtered in bands of 16 rows (separable); device: cpu (auto: no usable GPU)"
expect_equal "$(sha banded.ppm)" "$(sha cpu.ppm)" "banded bytes == whole bytes"

t "equalize --explain"
fx equalize --explain small.ppm gray.pgm -o eq/
expect_exit 0
expect_stderr_contains "small.ppm: global on hsv, 256 bins; device: cpu (auto: no usable GPU)"
expect_stderr_contains "gray.pgm: global on gray, 256 bins; device: cpu (auto: no usable GPU)"

t "normalize --explain"
fx normalize --explain tone.wav -o tone_out.wav
expect_exit 0
expect_stderr_contains "tone.wav: device: cpu (auto: no usable GPU)"

t "without --explain nothing is said"
fx filter -k gaussian:5 small.ppm -o quiet.ppm
expect_exit 0
expect_stderr_empty

t "the timings CSV names the device each item ran on"
fx filter -k gaussian:5 --timings-csv times.csv small.ppm -o csv.ppm
expect_exit 0
expect_equal "$(awk -F, 'NR == 2 { print $3 }' times.csv)" "cpu" "device column"

t "fxkit info --rates without a GPU"
fx info --rates
expect_exit 0
expect_stdout_contains "GPU: none"

finish
