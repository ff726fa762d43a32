#!/usr/bin/env bash
# fxkit filter end to end: OpenCV 4.6's outputs (golden checksums made once by
# scripts/goldens-filter.py; cv2.blur's row tails, goldens-box.txt, by OpenCV 5.0),
# strategies agreeing byte for byte, bad kernels and options rejected with a message
# and nothing written.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
data=$(cd "$CLI_TESTS/../data/filter" && pwd)

# md5 of the pixel bytes of a P5/P6 file.
pnm_pixel_md5() {
    local magic w h max channels bytes
    read -r magic w h max <<<"$(pnm_header "$1")"
    channels=1
    [ "$magic" = P6 ] && channels=3
    bytes=1
    [ "$max" -gt 255 ] && bytes=2
    tail -c $((w * h * channels * bytes)) "$1" | md5sum | cut -d' ' -f1
}

# Every case of a goldens file (input|arguments|md5): passes when there are more than
# MIN cases and none differs.
check_goldens() {
    local file=$1 min=$2 cases=0 mismatched=0 input args want out
    while IFS='|' read -r input args want; do
        case "$input" in '#'* | '') continue ;; esac
        cases=$((cases + 1))
        out="$WORK/out.${input##*.}"
        eval "set -- $args"
        fx filter -q "$@" "$data/$input" -o "$out"
        if [ "$RC" -ne 0 ] || [ "$(pnm_pixel_md5 "$out")" != "$want" ]; then
            mismatched=$((mismatched + 1))
            echo "  differs from OpenCV: $input $args (exit $RC)" >&2
        fi
    done <"$data/$file"
    if [ "$cases" -gt "$min" ] && [ "$mismatched" -eq 0 ]; then pass; else fail "$mismatched of $cases cases"; fi
}

t "identical bytes to OpenCV (GaussianBlur, blur, filter2D) for every golden case"
check_goldens goldens.txt 100

t "cv2.blur's row tails: 8/16-bit large boxes, widths not multiples of 8, every strategy"
check_goldens goldens-box.txt 60

t "every exact strategy gives the same bytes (box:5 as box, separable, direct)"
for s in box separable direct; do
    fx filter -q -k box:5 --strategy "$s" "$data/photo_crop.ppm" -o "$WORK/box_$s.ppm"
    expect_exit 0
done
expect_equal "$(sha "$WORK/box_box.ppm")" "$(sha "$WORK/box_direct.ppm")"
expect_equal "$(sha "$WORK/box_separable.ppm")" "$(sha "$WORK/box_direct.ppm")"

t "--explain names the strategy and why"
fx filter -k gaussian:7 --explain "$data/noise_rgb.ppm" -o "$WORK/g.ppm"
expect_exit 0
expect_stderr_contains "separable"
expect_stderr_contains "rank 1"

t "--list-kernels prints the presets and their weights"
fx filter --list-kernels
expect_exit 0
expect_stdout_contains "gaussian:K[:SIGMA]"
expect_stdout_contains "sobel-x"

t "-k @FILE reads weights with comments"
printf '# a binomial blur\n1 2 1\n2 4 2   # middle row\n1 2 1\n/ 16\n' >"$WORK/k.txt"
fx filter -q -k "@$WORK/k.txt" "$data/noise_rgb.ppm" -o "$WORK/file.ppm"
expect_exit 0
fx filter -q -k "1 2 1; 2 4 2; 1 2 1 / 16" "$data/noise_rgb.ppm" -o "$WORK/inline.ppm"
expect_equal "$(sha "$WORK/file.ppm")" "$(sha "$WORK/inline.ppm")"

t "bad kernels: exit 2, a message that points at the problem, nothing written"
while IFS='|' read -r kernel says; do
    fx filter -k "$kernel" "$data/noise_rgb.ppm" -o "$WORK/bad.ppm"
    expect_exit 2
    expect_stderr_contains "$says"
    expect_no_file "$WORK/bad.ppm"
done <<'CASES'
1 2 1; 2 4 2 2; 1 2 1|kernel row 2 has 4 numbers, row 1 has 3
|no kernel
1 2 1 / 0|divisor is 0
1 nan 1|not a finite number
box:0|outside 1
gaussian:4:-1|must be odd
gaussian:5:-1|must be > 0
@/nonexistent/kernel.txt|/nonexistent/kernel.txt
CASES

t "bad options: exit 2 with the option named"
fx filter -k sharpen --border-value 1,2,3,4,5 "$data/noise_rgb.ppm" -o "$WORK/bad.ppm"
expect_exit 2
expect_stderr_contains "border-value"
fx filter -k sharpen --anchor 5,0 "$data/noise_rgb.ppm" -o "$WORK/bad.ppm"
expect_exit 2
expect_stderr_contains "outside the 3x3 kernel"
fx filter -k sharpen --strategy box "$data/noise_rgb.ppm" -o "$WORK/bad.ppm"
expect_exit 2
expect_stderr_contains "not a box"
expect_no_file "$WORK/bad.ppm"

t "a border value per channel that does not fit the image fails that file only"
fx filter -q -k box:3 -b constant --border-value 10,20 "$data/noise_rgb.ppm" "$data/noise16.pgm" \
    -o "$WORK/bv/"
expect_exit 1
expect_stderr_contains "noise_rgb.ppm"
expect_stderr_contains "give 1 or 3"
expect_no_file "$WORK/bv/noise_rgb.ppm"

t "a border value a 16-bit image holds but an 8-bit one does not: the 8-bit file fails alone"
fx filter -q -k box:3 -b constant --border-value 60000 "$data/noise_rgb.ppm" "$data/noise16.pgm" \
    -o "$WORK/bv16/"
expect_exit 1
expect_stderr_contains "noise_rgb.ppm"
expect_stderr_contains "not a u8 sample"
expect_no_file "$WORK/bv16/noise_rgb.ppm"
expect_file "$WORK/bv16/noise16.pgm"

t "--depth f32 keeps negative responses"
fx filter -q -k sobel-x --depth f32 "$data/noise16.pgm" -o "$WORK/grad.pfm"
expect_exit 0
expect_file "$WORK/grad.pfm"

t "--stream-rows: file to file in bands gives the whole image's bytes (every border but wrap, any anchor, depths, PNG and PNM)"
fx gen image -q --kind noise --size 301x97 --channels 3 --seed 3 -o "$WORK/s.ppm"
fx gen image -q --kind photo --size 131x89 --channels 1 --depth 16 -o "$WORK/s16.png"
fx gen image -q --kind noise --size 67x53 --channels 4 -o "$WORK/s4.png"
compared=0 differ=0
for img in s.ppm s16.png s4.png; do
    ext=${img##*.}
    for k in gaussian:5 box:3x21 "1 2 3; 4 5 6; 7 8 10 / 50" box:41; do
        for b in reflect101 replicate constant reflect wrap; do
            for extra in "" "--anchor 0,0" "--depth f32"; do
                oext=$ext
                [ "$extra" = "--depth f32" ] && { [ "$ext" = png ] && continue; oext=pfm; }
                # shellcheck disable=SC2086 # extra is words
                fx filter -q -k "$k" -b "$b" $extra "$WORK/$img" -o "$WORK/whole.$oext"
                [ "$RC" -eq 0 ] || continue # e.g. an anchor outside box:3x21 is refused
                # shellcheck disable=SC2086
                fx filter -q -k "$k" -b "$b" $extra --stream-rows 7 "$WORK/$img" -o "$WORK/bands.$oext"
                compared=$((compared + 1))
                if [ "$RC" -ne 0 ] || ! cmp -s "$WORK/whole.$oext" "$WORK/bands.$oext"; then
                    differ=$((differ + 1))
                    echo "  streamed differs: $img -k '$k' -b $b $extra (exit $RC)" >&2
                fi
            done
        done
    done
done
if [ "$compared" -gt 100 ] && [ "$differ" -eq 0 ]; then pass; else fail "$differ of $compared differ"; fi

t "--stream-rows: a truncated input fails that file with a message and writes nothing"
head -c 40000 "$WORK/s.ppm" >"$WORK/cut.ppm"
fx filter -k box:3 --stream-rows 5 "$WORK/cut.ppm" -o "$WORK/cut_out.ppm"
expect_exit 1
expect_stderr_contains "cut.ppm"
expect_no_file "$WORK/cut_out.ppm"
expect_no_temp "$WORK"

t "--stream-rows: the memory budget counts a streamed file's bands, not the whole image"
fx gen image -q --kind noise --size 2000x2000 --count 2 --to ppm -o "$WORK/big/"
# 2000 x 2000 RGB: whole, 3 copies are 35 MiB (one file at a time in 30 MiB); in bands of
# 64 rows, a few MiB (both at once)
fx filter -k gaussian:5 --memory 30 --verbose "$WORK"/big/*.ppm -o "$WORK/big_out/"
expect_stderr_contains "1 file at once"
fx filter -k gaussian:5 --stream-rows 64 --memory 30 --verbose "$WORK"/big/*.ppm -o "$WORK/big_out/"
expect_stderr_contains "2 files at once"

finish
