#!/usr/bin/env bash
# convert on real files: pixel-exact results against peer goldens, lossless round
# trips, audio bit-exactness, batches, in-place, never overwriting an input, timings.
. "$(dirname "$0")/lib.sh"
GOLDENS="$CLI_TESTS/goldens.txt"

golden() { awk -v f="$1" '$1 == f { print $2 }' "$GOLDENS"; }

t "samples decode to the pixels a peer decoder (PIL) gives"
for f in astronaut.png coffee.png hubble_deep_field.jpg; do
    fx convert "$SAMPLES/$f" -o "golden_${f%.*}.ppm"
    expect_exit 0
    expect_equal "$(pnm_header "golden_${f%.*}.ppm" | cut -d' ' -f1,4)" "P6 255" "$f as 8-bit PPM"
    expect_equal "$(pnm_pixel_sha "golden_${f%.*}.ppm")" "$(golden "$f")" "$f pixels"
done

t "PNG -> PPM -> PNG -> PPM is pixel-identical"
fx convert "$SAMPLES/coffee.png" -o rt1.ppm
expect_exit 0
fx convert rt1.ppm -o rt2.png
expect_exit 0
fx convert rt2.png -o rt3.ppm
expect_exit 0
expect_equal "$(pnm_pixel_sha rt3.ppm)" "$(golden coffee.png)"
expect_equal "$(png_header rt2.png)" "600 400 8 2" "PNG header of the round trip"

t "--depth u16 widens exactly (x257) and back again"
fx convert --depth u16 "$SAMPLES/astronaut.png" -o wide.ppm
expect_exit 0
expect_equal "$(pnm_header wide.ppm)" "P6 512 512 65535"
fx convert --depth u8 wide.ppm -o narrow.ppm
expect_exit 0
expect_equal "$(pnm_pixel_sha narrow.ppm)" "$(golden astronaut.png)"
fx convert --depth u16 "$SAMPLES/astronaut.png" -o wide.png
expect_exit 0
expect_equal "$(png_header wide.png)" "512 512 16 2"

t "auto depth: PFM takes float, and float back to 8 bits is exact"
fx convert "$SAMPLES/coffee.png" -o f.pfm
expect_exit 0
expect_equal "$(head -c 2 f.pfm)" "PF"
fx convert f.pfm -o f8.ppm --depth u8
expect_exit 0
expect_equal "$(pnm_pixel_sha f8.ppm)" "$(golden coffee.png)"

t "a format that cannot hold the image: clear error naming its limits, no output"
fx convert "$SAMPLES/coffee.png" -o gray.pgm
expect_exit 1
expect_stderr_contains "coffee.png: PGM holds gray only, 8 or 16 bits; this image is RGB (3 channels)"
expect_no_file gray.pgm
fx convert --depth same f.pfm -o same.png
expect_exit 1
expect_stderr_contains "PNG holds 1 to 4 channels of 8 or 16 bits; this image has f32 samples (see --depth)"
expect_no_file same.png
fx convert "$SAMPLES/coffee.png" -o x.wav
expect_exit 1
expect_stderr_contains "an image cannot be written as audio"
fx convert "$SAMPLES/coffee.png" -o x.tiff
expect_exit 1
expect_stderr_contains "unknown image format"
expect_no_temp .

t "JPEG output with --quality: smaller at lower quality"
fx convert --quality 95 "$SAMPLES/coffee.png" -o q95.jpg
expect_exit 0
fx convert --quality 30 "$SAMPLES/coffee.png" -o q30.jpg
expect_exit 0
if [ "$(stat -c %s q30.jpg)" -lt "$(stat -c %s q95.jpg)" ]; then pass; else fail "q30 not smaller than q95"; fi
expect_equal "$(head -c 3 q30.jpg | od -An -tx1 | tr -d ' ')" "ffd8ff" "JPEG signature"

t "audio: WAV s16 -> FLAC -> WAV is bit-exact"
fx convert "$SAMPLES/speech_mono_44k.wav" -o mono.flac
expect_exit 0
expect_equal "$(head -c 4 mono.flac)" "fLaC"
fx convert mono.flac -o mono.wav
expect_exit 0
expect_equal "$(wav_format mono.wav)" "$(wav_format "$SAMPLES/speech_mono_44k.wav")" "fmt"
expect_equal "$(wav_data_sha mono.wav)" "$(wav_data_sha "$SAMPLES/speech_mono_44k.wav")" "samples"

t "audio: 24-bit stereo -> f32 -> s24 is exact"
fx convert --sample-format f32 "$SAMPLES/speech_stereo_44k_24bit.wav" -o st32.wav
expect_exit 0
expect_equal "$(wav_format st32.wav | cut -d' ' -f2-)" "2 44100 32" "f32 format"
fx convert --sample-format s24 st32.wav -o st24.wav
expect_exit 0
expect_equal "$(wav_data_sha st24.wav)" "$(wav_data_sha "$SAMPLES/speech_stereo_44k_24bit.wav")"

t "batch to a new folder with --suffix, --to and --jobs 2"
fx convert -j 2 --to ppm --suffix _x "$SAMPLES/astronaut.png" "$SAMPLES/coffee.png" \
    "$SAMPLES/hubble_deep_field.jpg" -o batch/new/
expect_exit 0
for f in astronaut.png coffee.png hubble_deep_field.jpg; do
    expect_equal "$(pnm_pixel_sha "batch/new/${f%.*}_x.ppm")" "$(golden "$f")" "batch $f"
done
expect_stderr_contains "3 files, 0 failed"
expect_no_temp batch

t "--jobs auto (the default) shares the CPUs; --memory bounds the files at once"
fx convert -v --to ppm "$SAMPLES/astronaut.png" "$SAMPLES/coffee.png" \
    "$SAMPLES/hubble_deep_field.jpg" -o batch/auto/
expect_exit 0
expect_stderr_contains "memory budget"
for f in astronaut.png coffee.png hubble_deep_field.jpg; do
    expect_equal "$(pnm_pixel_sha "batch/auto/${f%.*}.ppm")" "$(golden "$f")" "auto $f"
done
# Each of these needs more than 1 MiB (512x512x3 bytes, three copies): a 1 MiB
# budget must run them one at a time, however many CPUs there are.
fx convert -v --jobs auto --threads 8 --memory 1 --to ppm "$SAMPLES/astronaut.png" \
    "$SAMPLES/coffee.png" "$SAMPLES/hubble_deep_field.jpg" -o batch/tiny/
expect_exit 0
expect_stderr_contains "1 file at once, 8 threads each, memory budget 1 MiB"
expect_stderr_contains "memory: at most 1 file at once"
# A budget room for exactly two of the 256x256 crops runs at most two at once.
for i in 1 2 3 4 5 6; do cp "$SAMPLES/coffee.png" "batch/c$i.png"; done
fx convert -v --jobs 4 --memory 5 --to ppm batch/c?.png -o batch/two/
expect_exit 0
expect_stderr_contains "memory: at most 2 files at once"
fx convert --jobs 0 x.png -o y.png
expect_exit 2
expect_stderr_contains "--jobs: 0 is out of range"
expect_no_temp batch

t "--quiet silences the summary"
fx convert -q --to ppm "$SAMPLES/astronaut.png" "$SAMPLES/coffee.png" -o batch/quiet/
expect_exit 0
expect_stderr_empty

t "one bad input among good ones: exit 1, the good outputs written, the bad one named"
printf 'not an image\n' >bad.png
fx convert -j 2 "$SAMPLES/astronaut.png" bad.png "$SAMPLES/coffee.png" -o mixed/
expect_exit 1
expect_stderr_contains "fxkit: bad.png: "
expect_stderr_contains "3 files, 1 failed"
expect_file mixed/astronaut.png
expect_file mixed/coffee.png
expect_no_file mixed/bad.png
expect_no_temp mixed

t "two inputs with one output name: the second is refused, the first done"
mkdir -p a b
cp "$SAMPLES/coffee.png" a/same.png
cp "$SAMPLES/astronaut.png" b/same.png
fx convert a/same.png b/same.png -o clash/
expect_exit 1
expect_stderr_contains "b/same.png: output 'clash/same.png' is also the output of 'a/same.png'"
expect_equal "$(png_header clash/same.png)" "600 400 8 2" "the first input's result"

t "output == input without --in-place: refused, input unchanged"
cp "$SAMPLES/coffee.png" mine.png
before=$(sha mine.png)
fx convert mine.png -o mine.png
expect_exit 1
expect_stderr_contains "is an input; not overwriting it"
expect_equal "$(sha mine.png)" "$before"
fx convert mine.png -o ./mine.png
expect_exit 1
ln -f mine.png hardlink.png
fx convert mine.png -o hardlink.png
expect_exit 1
expect_equal "$(sha mine.png)" "$before"
fx convert --suffix "" mine.png
expect_exit 1
expect_equal "$(sha mine.png)" "$before"
expect_no_temp .

t "--in-place replaces the input atomically and keeps its permissions"
cp "$SAMPLES/astronaut.png" inplace.png
chmod 640 inplace.png
fx convert --in-place --depth u16 inplace.png
expect_exit 0
expect_equal "$(png_header inplace.png)" "512 512 16 2"
expect_equal "$(stat -c %a inplace.png)" "640"
fx convert --in-place inplace.png ./inplace.png
expect_exit 1
expect_stderr_contains "given twice"
expect_no_temp .

t "an existing output file is replaced (outputs may be overwritten, inputs never)"
printf 'old\n' >over.ppm
fx convert "$SAMPLES/coffee.png" -o over.ppm
expect_exit 0
expect_equal "$(pnm_pixel_sha over.ppm)" "$(golden coffee.png)"

t "--timings prints stage times; --timings-csv appends one row per file under one header"
fx convert --timings "$SAMPLES/coffee.png" -o tm.ppm
expect_exit 0
expect_stderr_contains "coffee.png: decode "
expect_stderr_contains " ms, total "
cp "$SAMPLES/coffee.png" "with,comma.png"
fx convert --timings-csv t.csv --to ppm "$SAMPLES/astronaut.png" "with,comma.png" -o csv/
expect_exit 0
fx convert --timings-csv t.csv "$SAMPLES/speech_mono_44k.wav" -o csv/speech.flac
expect_exit 0
expect_equal "$(head -n 1 t.csv)" "file,job,device,strategy,width,height,channels,decode_ms,upload_ms,compute_ms,download_ms,encode_ms,total_ms"
expect_equal "$(wc -l <t.csv | tr -d ' ')" "4" "header + 3 rows"
expect_equal "$(grep -c '^file,' t.csv)" "1" "one header"
if grep -q '^"with,comma.png",convert,cpu\|^"with,comma.png",convert,gpu' t.csv; then pass; else fail "quoted name row missing"; fi
if grep -qE 'astronaut.png,convert,[a-z0-9:]+,,512,512,3,([0-9]+\.[0-9]{3},){5}[0-9]+\.[0-9]{3}$' t.csv; then pass; else fail "image row malformed"; fi
if grep -qE 'speech_mono_44k.wav,convert,[a-z0-9:]+,,1777720,1,1,' t.csv; then pass; else fail "audio row: width = frames, height = 1"; fi

finish
