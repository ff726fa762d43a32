#!/usr/bin/env bash
# The PNG writer decoded by peers: PNGs made independently (png_peer.py: filter
# None, Python's zlib) at every depth and channel count go through `fxkit convert`
# at every compression (fast, zlib levels) and filter, with 1 and 16 threads
# (a large photo: many bands), and must decode with OpenCV (libpng) and PIL (when
# installed) to the original pixels.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c 'import cv2, numpy' 2>/dev/null; then
    echo "test_png_writer: skipped (no python3-opencv / numpy)"
    exit 77
fi
PEER="$CLI_TESTS/png_peer.py"
mkdir -p ref
"$PY" "$PEER" make ref

t "every layout, compression and filter decodes with OpenCV/PIL to the input pixels"
: >checks.txt
convert_and_list() { # REF LEVEL FILTER
    local base out
    base=$(basename "$1" .png)
    out="${base}_$2_$3.png"
    fx convert --compression "$2" --png-filter "$3" -t 3 "$1" -o "$out"
    expect_exit 0
    echo "ref/$base.npy $out" >>checks.txt
}
for ref in ref/*.png; do
    for level in fast 1; do
        for filter in auto none sub up avg paeth; do convert_and_list "$ref" "$level" "$filter"; done
    done
    for level in 0 6 9; do convert_and_list "$ref" "$level" auto; done
done
run "$PY" "$PEER" check checks.txt
expect_exit 0

t "1 and 16 threads write the same file"
for ref in ref/*.png; do
    base=$(basename "$ref" .png)
    for level in fast 6; do
        fx convert --compression "$level" -t 1 "$ref" -o "one_$base.png"
        expect_exit 0
        fx convert --compression "$level" -t 16 "$ref" -o "many_$base.png"
        expect_exit 0
        expect_equal "$(sha "one_$base.png")" "$(sha "many_$base.png")" "$base at $level"
    done
done

t "a photo of many bands on 16 threads decodes with OpenCV"
fx gen image --kind photo --size 1500x1100 -o photo.ppm
expect_exit 0
for level in fast 1; do
    fx convert --compression "$level" -t 16 photo.ppm -o "photo_$level.png"
    expect_exit 0
    run "$PY" -c "
import cv2, numpy as np, sys
a = cv2.imread('photo.ppm', cv2.IMREAD_UNCHANGED); b = cv2.imread('photo_$level.png', cv2.IMREAD_UNCHANGED)
sys.exit(0 if b is not None and np.array_equal(a, b) else 1)"
    expect_exit 0
done

t "a bad --png-filter is a usage error"
fx convert --png-filter median ref/d8c3.png -o x.png
expect_exit 2
expect_stderr_contains "--png-filter: 'median' is not one of: auto"
expect_no_file x.png

finish
