#!/usr/bin/env bash
# gen image / gen audio: deterministic, and exactly the shape that was asked for
# (checked by reading the file headers with plain tools).
. "$(dirname "$0")/lib.sh"

t "gen image: same seed gives identical files, another seed different ones"
fx gen image --kind noise --size 64x48 --seed 7 -o n1.png
expect_exit 0
fx gen image --kind noise --size 64x48 --seed 7 -t 2 -o n2.png
expect_exit 0
fx gen image --kind noise --size 64x48 --seed 8 -o n3.png
expect_exit 0
expect_equal "$(sha n1.png)" "$(sha n2.png)" "same seed"
expect_not_equal "$(sha n1.png)" "$(sha n3.png)" "different seeds"

t "gen image: every kind works and is deterministic"
for kind in noise gradient checker photo; do
    fx gen image --kind "$kind" --size 33x17 -o "k_$kind.ppm"
    expect_exit 0
    expect_equal "$(pnm_header "k_$kind.ppm")" "P6 33 17 255" "$kind header"
    fx gen image --kind "$kind" --size 33x17 -o "k2_$kind.ppm"
    expect_equal "$(sha "k_$kind.ppm")" "$(sha "k2_$kind.ppm")" "$kind twice"
done

t "gen image: sizes, channels and depths are what was asked"
fx gen image --size 37x19 --channels 1 --depth 16 -o g16.pgm
expect_exit 0
expect_equal "$(pnm_header g16.pgm)" "P5 37 19 65535"
expect_equal "$(stat -c %s g16.pgm)" "$(( $(head -n 3 g16.pgm | wc -c) + 37 * 19 * 2 ))" "PGM size"
fx gen image --size 5x3 --channels 3 --depth 8 -o g8.ppm
expect_equal "$(pnm_header g8.ppm)" "P6 5 3 255"
# PNG color types: 0 gray, 4 gray+alpha, 2 RGB, 6 RGBA.
colortypes=(x 0 4 2 6)
for c in 1 2 3 4; do
    for d in 8 16; do
        fx gen image --size 21x13 --channels "$c" --depth "$d" -o "c${c}d${d}.png"
        expect_exit 0
        expect_equal "$(png_header "c${c}d${d}.png")" "21 13 $d ${colortypes[$c]}" "png $c ch $d bit"
    done
done
fx gen image --size 9x4 --channels 3 --depth f32 -o f.pfm
expect_exit 0
expect_equal "$(pnm_header f.pfm | cut -d' ' -f1-3)" "PF 9 4"
fx gen image --size 9x4 --channels 1 --depth f32 -o f1.pfm
expect_equal "$(pnm_header f1.pfm | cut -d' ' -f1-3)" "Pf 9 4"

t "gen image: a format that cannot hold the request is an error naming it"
fx gen image --size 8x8 --channels 4 -o rgba.jpg
expect_exit 1
expect_stderr_contains "JPEG holds gray or RGB, 8 bits"
expect_no_file rgba.jpg
fx gen image --size 8x8 --depth f32 -o float.png
expect_exit 1
expect_no_file float.png
expect_no_temp .

t "gen image --count: numbered files, seed, seed+1, ..."
fx gen image --kind noise --size 16x16 --count 3 --seed 10 -j 2 -o many/
expect_exit 0
expect_file many/gen_0001.png
expect_file many/gen_0002.png
expect_file many/gen_0003.png
expect_no_file many/gen_0004.png
fx gen image --kind noise --size 16x16 --seed 11 -o seed11.png
expect_equal "$(sha many/gen_0002.png)" "$(sha seed11.png)" "file 2 has seed+1"
fx gen image --size 16x16 --count 2 --to ppm -o manyppm/
expect_exit 0
expect_file manyppm/gen_0002.ppm
fx gen image --count 2 -o one.png
expect_exit 2
expect_stderr_contains "need -o to name a folder"
fx gen image --size 8x8
expect_exit 2
expect_stderr_contains "missing -o OUTPUT"

t "gen image: sizes past the limits are refused"
fx gen image --size 2000000x1 -o huge.png
expect_exit 1
expect_no_file huge.png
fx gen image --size 100x100 --max-pixels 5000 -o limited.png
expect_exit 1
expect_no_file limited.png
fx gen image --size 12 -o bad.png
expect_exit 2
expect_stderr_contains "--size: '12' is not WIDTHxHEIGHT"

t "gen audio: deterministic, and the format asked for"
fx gen audio --kind white --duration 0.5 --rate 8000 --channels 3 --sample-format s24 --seed 3 -o w1.wav
expect_exit 0
fx gen audio --kind white --duration 0.5 --rate 8000 --channels 3 --sample-format s24 --seed 3 -t 2 -o w2.wav
fx gen audio --kind white --duration 0.5 --rate 8000 --channels 3 --sample-format s24 --seed 4 -o w3.wav
expect_equal "$(wav_data_sha w1.wav)" "$(wav_data_sha w2.wav)" "same seed"
expect_not_equal "$(wav_data_sha w1.wav)" "$(wav_data_sha w3.wav)" "different seeds"
expect_equal "$(wav_format w1.wav | cut -d' ' -f2-)" "3 8000 24"
read -r _ size <<<"$(wav_chunk w1.wav data)"
expect_equal "$size" "$((4000 * 3 * 3))" "data bytes = frames * channels * 3"

t "gen audio: --frames, sample formats and containers"
for fmt in s16 s32 f32 f64; do
    fx gen audio --kind tones --frames 1000 --channels 1 --sample-format "$fmt" -o "fmt_$fmt.wav"
    expect_exit 0
    expect_equal "$(wav_format "fmt_$fmt.wav" | cut -d' ' -f2,4)" "1 ${fmt#?}" "$fmt bits"
done
fx gen audio --kind speech --duration 2 -o sp.flac
expect_exit 0
expect_equal "$(head -c 4 sp.flac)" "fLaC"
fx gen audio --kind silence --duration 1 --channels 1 -o si.wav
expect_exit 0
expect_equal "$(tail -c 88200 si.wav | tr -d '\0' | wc -c | tr -d ' ')" "0" "silence is zeros"
fx gen audio --duration 0 -o empty.wav
expect_exit 2
expect_stderr_contains "would be empty"
fx gen audio --duration 1 -o notaudio.png
expect_exit 1
expect_stderr_contains "unknown audio format"
expect_no_file notaudio.png

t "gen audio: long output is streamed (an hour of mono at 8 kHz)"
fx gen audio --kind tones --duration 3600 --rate 8000 --channels 1 -o long.wav
expect_exit 0
read -r _ size <<<"$(wav_chunk long.wav data)"
expect_equal "$size" "$((3600 * 8000 * 2))" "data bytes"

t "gen --count with timings CSV: one row per file"
fx gen audio --kind white --frames 500 --count 3 --timings-csv g.csv -o aud/
expect_exit 0
expect_equal "$(wc -l <g.csv | tr -d ' ')" "4"
if grep -qE '^aud/gen_0001.wav,gen audio,[a-z0-9:]+,,500,1,2,' g.csv; then pass; else fail "row: frames, 1, channels"; fi

finish
