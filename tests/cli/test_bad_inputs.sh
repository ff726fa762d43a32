#!/usr/bin/env bash
# Hostile and broken inputs: each gets a clear message naming the input, exit 1,
# and leaves no output and no temporary file behind.
. "$(dirname "$0")/lib.sh"

# Minimal PNGs (signature, IHDR with a valid CRC, IEND) made with printf, so that
# the test needs no image tools. IHDR: width, height, 8-bit RGB.
PNG_SIG='\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52'
PNG_END='\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82'
printf '%b' "$PNG_SIG"'\x00\x00\x00\x00\x00\x00\x00\x00\x08\x02\x00\x00\x00\xb4\xe9\xeb\x45'"$PNG_END" >zero.png
printf '%b' "$PNG_SIG"'\x80\x00\x00\x00\x00\x00\x00\x01\x08\x02\x00\x00\x00\xdf\xdf\x1d\xf7'"$PNG_END" >wide2p31.png
printf '%b' "$PNG_SIG"'\x7f\xff\xff\xff\x00\x00\x00\x01\x08\x02\x00\x00\x00\x2f\x54\xa4\x8a'"$PNG_END" >wide2p31m1.png
printf 'P6\n2147483648 1\n255\n\0\0\0\0\0\0' >wide2p31.ppm
printf 'P5\n0 0\n255\n' >zero.pgm

head -c 5000 "$SAMPLES/astronaut.png" >truncated.png
head -c 3000 "$SAMPLES/hubble_deep_field.jpg" >truncated.jpg
head -c 3000 "$SAMPLES/speech_mono_44k.wav" >truncated.wav
printf 'P6\n512 512\n255\n' >truncated.ppm
head -c 1000 "$SAMPLES/astronaut.png" | tail -c 985 >>truncated.ppm
cp "$SAMPLES/coffee.png" corrupt.png
# Overwrite 200 bytes of compressed pixel data in the middle of the file.
printf '%0200d' 0 | dd of=corrupt.png bs=1 seek=20000 conv=notrunc status=none
printf 'hello, I am text\n' >text.png
: >empty.png
printf 'RIFF\0\0\0\0WAVEjunk' >notwav.wav

# bad_input FILE OUTPUT_NAME EXPECTED_TEXT: one input, one output.
bad_input() {
    t "bad input $1: message names it, exit 1, no output, no temp"
    fx convert "$1" -o "out/$2"
    expect_exit 1
    expect_stderr_contains "fxkit: $1: "
    [ -n "${3:-}" ] && expect_stderr_contains "$3"
    expect_no_file "out/$2"
    expect_no_temp out
}

mkdir -p out
bad_input truncated.png t1.png "PNG"
bad_input truncated.jpg t2.png "JPEG"
bad_input truncated.ppm t3.png "truncated"
bad_input truncated.wav t4.wav "truncated"
bad_input corrupt.png t5.png ""
bad_input text.png t6.png "not a PNG, JPEG, PNM or PFM image"
bad_input empty.png t7.png ""
bad_input zero.png t8.png "width"
bad_input zero.pgm t9.png ""
bad_input wide2p31.png t10.png ""
bad_input wide2p31m1.png t11.png "limit"
bad_input wide2p31.ppm t12.png "2147483648"
bad_input notwav.wav t13.wav ""
bad_input missing.png t14.png "No such file or directory"

t "a folder as input is a per-input error"
mkdir -p adir
fx convert adir -o out/adir.png
expect_exit 1
expect_stderr_contains "adir: is a folder, not a file"

t "--max-pixels and --max-dimension refuse large images before decoding them"
fx convert --max-pixels 1000 "$SAMPLES/astronaut.png" -o out/limited.png
expect_exit 1
expect_stderr_contains "astronaut.png: "
expect_no_file out/limited.png
fx convert --max-dimension 100 "$SAMPLES/coffee.png" -o out/limited.png
expect_exit 1
expect_no_file out/limited.png
fx convert --max-pixels 1.5 "$SAMPLES/coffee.png" -o out/limited.png
expect_exit 2

t "--max-channels refuses audio and images with more channels"
fx convert --max-channels 1 "$SAMPLES/speech_stereo_44k_24bit.wav" -o out/limited.flac
expect_exit 1
expect_stderr_contains "speech_stereo_44k_24bit.wav: "
expect_stderr_contains "channels"
expect_no_file out/limited.flac
fx convert --max-channels 2 "$SAMPLES/coffee.png" -o out/limited.png
expect_exit 1
expect_stderr_contains "3 channels exceed the limit of 2"
expect_no_file out/limited.png
fx convert --max-channels 1 "$SAMPLES/speech_mono_44k.wav" -o out/mono_ok.flac
expect_exit 0
expect_file out/mono_ok.flac

t "an unwritable output folder: message names the input and the folder, nothing left"
dest=$(unwritable_dir)
fx convert "$SAMPLES/coffee.png" -o "$dest/out.png"
expect_exit 1
expect_stderr_contains "coffee.png: cannot create a file in '$dest'"
expect_no_file "$dest/out.png"
fx convert "$SAMPLES/coffee.png" "$SAMPLES/astronaut.png" -o "$dest/new/"
expect_exit 1
expect_stderr_contains "cannot create the output folder"
fx gen image --size 8x8 -o "$dest/g.png"
expect_exit 1
expect_no_file "$dest/g.png"

t "an output that is a folder is refused"
mkdir -p out/dirs/coffee.png
fx convert "$SAMPLES/coffee.png" -o out/dirs/
expect_exit 1
expect_stderr_contains "output 'out/dirs/coffee.png' is a folder"

t "bad inputs among good ones in one batch: all named, the good ones done"
fx convert -j 2 truncated.png "$SAMPLES/coffee.png" text.png missing.png "$SAMPLES/astronaut.png" -o mixed/
expect_exit 1
expect_stderr_contains "fxkit: truncated.png: "
expect_stderr_contains "fxkit: text.png: "
expect_stderr_contains "fxkit: missing.png: No such file or directory"
expect_stderr_contains "5 files, 3 failed"
expect_file mixed/coffee.png
expect_file mixed/astronaut.png
expect_no_file mixed/truncated.png
expect_no_file mixed/text.png
expect_no_temp mixed

t "--device gpu without a usable GPU: a clear message, exit 2 (usage: nothing done)"
if "$FXKIT" info | grep -q '^GPU: none'; then
    fx convert --device gpu "$SAMPLES/coffee.png" -o out/gpu.png
    expect_exit 2
    expect_stderr_contains "--device gpu: "
    expect_no_file out/gpu.png
fi
fx convert --device gpu:999 "$SAMPLES/coffee.png" -o out/gpu.png
expect_exit 2
expect_no_file out/gpu.png

# Workers sharing one GPU start it beside their first items (CUDA's start in the
# background); workers on different GPUs start theirs before any item. Either way a GPU
# that is not there stops the batch with one message, exit 2, nothing kept.
for device in gpu gpu:0,0 gpu:999,999 gpu:0,999; do
    t "--device $device without that GPU, 3 workers: one message, exit 2, no output, no temp"
    if [ "${device#*999}" != "$device" ] || "$FXKIT" info | grep -q '^GPU: none'; then
        rm -rf gpuout
        mkdir gpuout
        fx filter -k box:3 --device "$device" -j 3 "$SAMPLES/coffee.png" "$SAMPLES/astronaut.png" \
            "$SAMPLES/hubble_deep_field.jpg" -o gpuout/
        expect_exit 2
        expect_stderr_contains "--device $device: "
        expect_equal "$(wc -l <"$ERR")" 1 "lines on stderr"
        expect_equal "$(find gpuout -type f | wc -l)" 0 "files in the output folder"
        expect_no_temp gpuout
    fi
done

finish
