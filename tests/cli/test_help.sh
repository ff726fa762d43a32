#!/usr/bin/env bash
# Help, version, job lookup and argument parsing: what users see first.
. "$(dirname "$0")/lib.sh"

t "--help lists the jobs, usage and exit codes"
fx --help
expect_exit 0
for text in "Usage: fxkit JOB" convert "gen image" "gen audio" info "Exit status" "usage error"; do
    expect_stdout_contains "$text"
done

t "--version prints the version and build features"
fx --version
expect_exit 0
expect_stdout_contains "fxkit 0.1.0"
expect_stdout_contains "features: "
expect_stdout_contains "png"

t "help JOB and JOB --help print the same generated help"
fx help convert
expect_exit 0
cp "$OUT" help1.txt
fx convert --help
expect_exit 0
expect_equal "$(sha help1.txt)" "$(sha "$OUT")" "help convert vs convert --help"

t "job help shows each option with default, range and choices"
expect_stdout_contains "Usage: fxkit convert"
expect_stdout_contains "--quality N"
expect_text_contains "(default: 90; range: [1, 100])"
expect_stdout_contains "-o, --output PATH"
expect_stdout_contains "-j, --jobs N"
expect_text_contains "one of: auto, same, u8, u16, f32"
expect_stdout_contains "--in-place"
expect_stdout_contains "--timings-csv FILE"

t "gen jobs: group help and per-kind help"
fx gen --help
expect_exit 0
expect_stdout_contains "fxkit gen image"
expect_stdout_contains "fxkit gen audio"
fx help gen image
expect_exit 0
expect_stdout_contains "--size WxH"
expect_text_contains "one of: noise, gradient, checker, photo"
fx gen audio -h
expect_exit 0
expect_stdout_contains "--sample-format FMT"
expect_text_contains "one of: tones, white, silence, speech"

t "gen leaves out options that make no sense without inputs"
fx gen image --in-place -o x.png
expect_exit 2
expect_stderr_contains "unknown option '--in-place'"

t "no arguments is a usage error"
fx
expect_exit 2
expect_stderr_contains "Usage: fxkit"

t "unknown job: exit 2 with a suggestion"
fx convrt a.png -o b.png
expect_exit 2
expect_stderr_contains "unknown job 'convrt'"
expect_stderr_contains "did you mean 'convert'?"
fx help nosuchjob
expect_exit 2
fx gen video -o x
expect_exit 2
expect_stderr_contains "unknown kind 'video'"

t "unknown option: exit 2, named, with a pointer to the help"
fx convert --foo in.png -o out.png
expect_exit 2
expect_stderr_contains "fxkit: convert: unknown option '--foo' (see 'fxkit convert --help')"
fx convert --qualty 5 in.png -o out.png
expect_exit 2
expect_stderr_contains "did you mean '--quality'?"
fx convert -Z in.png -o out.png
expect_exit 2
expect_stderr_contains "unknown option '-Z'"
fx --frobnicate
expect_exit 2

t "range errors come from the option table and name the option"
fx convert --quality 0 in.png -o out.jpg
expect_exit 2
expect_stderr_contains "--quality: 0 is out of range [1, 100]"
fx convert --compression=10 in.png -o out.png
expect_exit 2
expect_stderr_contains "--compression: '10' is not one of: fast"
fx convert -j0 in.png -o out/
expect_exit 2
expect_stderr_contains "--jobs: 0 is out of range"
fx convert --jobs many in.png -o out/
expect_exit 2
expect_stderr_contains "--jobs: 'many' is not an integer"
fx convert --depth u12 in.png -o out.png
expect_exit 2
expect_stderr_contains "--depth: 'u12' is not one of: auto, same, u8, u16, f32"
fx convert --device tpu in.png -o out.png
expect_exit 2
expect_stderr_contains "--device: 'tpu'"
fx gen image --size 0x10 -o x.png
expect_exit 2
expect_stderr_contains "--size: '0x10'"
fx gen image --channels 5 -o x.png
expect_exit 2
expect_stderr_contains "--channels: 5 is out of range [1, 4]"
fx convert --quality
expect_exit 2
expect_stderr_contains "'--quality' needs a value"

t "contradictory or missing outputs are usage errors and create nothing"
fx convert "$SAMPLES/astronaut.png"
expect_exit 2
expect_stderr_contains "missing -o OUTPUT"
fx convert "$SAMPLES/astronaut.png" "$SAMPLES/coffee.png" -o one.png
expect_exit 2
expect_stderr_contains "need -o to name a folder"
expect_no_file one.png
fx convert --in-place -o x.png "$SAMPLES/astronaut.png"
expect_exit 2
fx convert
expect_exit 2
expect_stderr_contains "no input files"
fx info extra
expect_exit 2
expect_stderr_contains "unexpected argument 'extra'"

t "all option forms: --name=value, --name value, -xVALUE, -x VALUE, --no-flag, clusters, --"
cp "$SAMPLES/coffee.png" ./-dash.png
fx convert --quality=80 --compression 1 -j1 -t 1 -qv --no-quiet --timings -o forms.ppm -- -dash.png
expect_exit 0
expect_file forms.ppm
expect_stderr_contains "-dash.png: decode"

t "info lists the GPUs or says why there is none"
fx info
expect_exit 0
expect_stdout_contains "fxkit 0.1.0"
expect_stdout_contains "CPU threads:"
expect_stdout_matches "^GPU(: none \(.+\)| [0-9]+: .+ GiB, compute capability [0-9]+\.[0-9]+)"
fx info --json
expect_exit 0
expect_stdout_contains '"version": "0.1.0"'
expect_stdout_contains '"gpus": ['
expect_stdout_matches '"cpu_threads": [0-9]+'

finish
