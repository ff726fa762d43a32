#!/usr/bin/env bash
# equalize on real files: the bundled photos give OpenCV's bytes (digests made by
# scripts/goldens-equalize.py with OpenCV 4.6), colour and alpha handling, batches,
# and bad options or masks refused with a clear message and nothing written.
. "$(dirname "$0")/lib.sh"
DIGESTS="${FXKIT_TESTDATA:?}/equalize/samples.txt"

digest() { awk -v f="$1" -v k="$2" '$1 == f && $2 == k { print $3 }' "$DIGESTS"; }

t "gray: cv2.equalizeHist(cvtColor(RGB2GRAY)) on the samples"
for f in astronaut.png coffee.png; do
    fx equalize --space gray "$SAMPLES/$f" -o "gray_${f%.*}.pgm"
    expect_exit 0
    expect_equal "$(pnm_pixel_sha "gray_${f%.*}.pgm")" "$(digest "$f" gray)" "$f gray"
done

t "luma: OpenCV's YCrCb -> equalizeHist(Y) -> RGB pipeline"
for f in astronaut.png coffee.png; do
    fx equalize --space luma "$SAMPLES/$f" -o "luma_${f%.*}.ppm"
    expect_exit 0
    expect_equal "$(pnm_pixel_sha "luma_${f%.*}.ppm")" "$(digest "$f" luma)" "$f luma"
done

t "CLAHE: cv2.createCLAHE(40, (8, 8)) and (2, (4, 6)) on the gray samples"
for f in astronaut.png coffee.png; do
    fx equalize --space gray --adaptive "$SAMPLES/$f" -o "clahe_${f%.*}.pgm"
    expect_exit 0
    expect_equal "$(pnm_pixel_sha "clahe_${f%.*}.pgm")" "$(digest "$f" clahe-gray)" "$f CLAHE"
    fx equalize --space gray -a --clip 2 --tiles 4x6 "$SAMPLES/$f" -o "clahe2_${f%.*}.pgm"
    expect_exit 0
    expect_equal "$(pnm_pixel_sha "clahe2_${f%.*}.pgm")" "$(digest "$f" clahe-gray-2-4x6)" "$f CLAHE 2"
done

t "hsv (the default) keeps the size and format; rgb and hsv-float run; 16-bit PNG stays 16-bit"
fx equalize "$SAMPLES/coffee.png" -o hsv.png
expect_exit 0
expect_equal "$(png_header hsv.png)" "600 400 8 2"
fx equalize --space rgb "$SAMPLES/coffee.png" -o rgb.png
expect_exit 0
fx equalize --space hsv-float --scale mas "$SAMPLES/coffee.png" -o published.png
expect_exit 0
fx convert --depth u16 "$SAMPLES/coffee.png" -o wide.png
fx equalize --adaptive wide.png -o wide_eq.png
expect_exit 0
expect_equal "$(png_header wide_eq.png)" "600 400 16 2"

t "a batch into a folder, with --timings"
fx equalize --jobs 2 --timings "$SAMPLES/coffee.png" "$SAMPLES/astronaut.png" -o batch/
expect_exit 0
expect_file batch/coffee.png
expect_file batch/astronaut.png
expect_stderr_contains "compute"

t "a mask: only its pixels build the histogram"
fx gen image --kind checker --size 600x400 --channels 1 -o mask.png
fx equalize --mask mask.png "$SAMPLES/coffee.png" -o masked.png
expect_exit 0
expect_not_equal "$(sha masked.png)" "$(sha hsv.png)" "the mask changes the result"

t "bad options: usage errors (exit 2), nothing written"
for bad in "--bins 1" "--bins 70000" "--tiles 0x8" "--tiles eight" "--tiles 8x300" \
    "--clip -1" "--space lab" "--scale up" "--gpu-block 48" "--mask nowhere.png" \
    "--adaptive --mask mask.png"; do
    # shellcheck disable=SC2086 # each entry is several words on purpose
    fx equalize $bad "$SAMPLES/coffee.png" -o bad.png
    expect_exit 2
    expect_no_file bad.png
done
fx equalize --tiles eight "$SAMPLES/coffee.png" -o bad.png
expect_stderr_contains "--tiles: 'eight' is not COLUMNSxROWS"
fx equalize --mask nowhere.png "$SAMPLES/coffee.png" -o bad.png
expect_stderr_contains "--mask nowhere.png"
fx equalize --bins 1 "$SAMPLES/coffee.png" -o bad.png
expect_stderr_contains "--bins"

t "a mask of the wrong size or kind, too many bins for 8 bits: that input fails, nothing written"
fx gen image --kind checker --size 100x100 --channels 1 -o small_mask.png
fx equalize --mask small_mask.png "$SAMPLES/coffee.png" -o bad.png
expect_exit 1
expect_stderr_contains "the mask is 100x100 but the image is 600x400"
expect_no_file bad.png
fx gen image --kind checker --size 600x400 --channels 3 -o rgb_mask.png
fx equalize --mask rgb_mask.png "$SAMPLES/coffee.png" -o bad.png
expect_exit 2
expect_stderr_contains "gray"
fx equalize --bins 1000 "$SAMPLES/coffee.png" -o bad.png
expect_exit 1
expect_stderr_contains "more than the 256 levels"
expect_no_file bad.png
fx equalize --space gray "$SAMPLES/coffee.png" -o bad.ppm
expect_exit 1
expect_stderr_contains "PPM holds RGB only"
expect_no_file bad.ppm
expect_no_temp .

t "--help comes from the library's table"
fx equalize --help
expect_exit 0
expect_text_contains "--space SPACE"
expect_text_contains "--tiles CxR"
expect_text_contains "--adaptive"

finish
