#!/usr/bin/env bash
# CPU == GPU bytes on images that are not in the test suite, through the program: the
# bundled photos, noise, 1xN and Nx1 images, a kernel larger than the image; every GPU
# strategy but fft (which is within one unit, not exact), 8-bit, 16-bit and float.
# For a machine with a GPU (run by hand or from check.sh).
#
# usage: tests/gpu/identity.sh [FXKIT]        (default build/fxkit)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fxkit=${1:-$root/build/fxkit}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$fxkit" convert -q "$root/samples/astronaut.png" -o "$tmp/photo.ppm" || exit 1
"$fxkit" convert -q "$root/samples/coffee.png" --depth u16 -o "$tmp/photo16.png" || exit 1
"$fxkit" gen image -q --kind noise --size 1531x977 --channels 3 --seed 7 -o "$tmp/noise.ppm"
"$fxkit" gen image -q --kind noise --size 4000x1 --channels 1 --seed 8 -o "$tmp/row.pgm"
"$fxkit" gen image -q --kind noise --size 1x3000 --channels 1 --seed 9 -o "$tmp/col.pgm"
"$fxkit" gen image -q --kind noise --size 20x13 --channels 3 --seed 10 -o "$tmp/tiny.ppm"
"$fxkit" convert -q "$tmp/noise.ppm" --depth f32 -o "$tmp/noise.pfm"

kernels=("gaussian:5" "box:9" "box:3x21" "sharpen" "emboss" "gaussian:31" "1 2 3; 4 5 6; 7 8 10 / 50"
    "box:41" "0.3 -0.2 0.11; 0.05 0.5 0.07")
strategies=(auto direct separable box gpu-global gpu-constant gpu-shared gpu-texture)
borders=(reflect101 constant wrap replicate reflect)
checked=0 differ=0 unsupported=0 crashed=0
for img in photo.ppm photo16.png noise.ppm row.pgm col.pgm tiny.ppm noise.pfm; do
    ext=${img##*.}
    for ki in "${!kernels[@]}"; do
        k=${kernels[$ki]}
        b=${borders[$((ki % 5))]}
        for s in "${strategies[@]}"; do
            # the CPU's answer for this strategy (gpu-* compare with the CPU's direct)
            cs=$s
            case $s in gpu-*) cs=direct ;; esac
            if ! "$fxkit" filter -q -k "$k" -b "$b" --strategy "$cs" --device cpu \
                "$tmp/$img" -o "$tmp/cpu.$ext" 2>/dev/null; then
                continue # the strategy does not take this kernel (e.g. box on sharpen)
            fi
            "$fxkit" filter -q -k "$k" -b "$b" --strategy "$s" --device gpu \
                "$tmp/$img" -o "$tmp/gpu.$ext" 2>"$tmp/err"
            rc=$?
            if [ "$rc" -ge 128 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; }; then
                crashed=$((crashed + 1))
                echo "CRASH (exit $rc): $img -k '$k' -b $b --strategy $s"
                continue
            elif [ "$rc" -ne 0 ]; then # refused with a message (e.g. taps beyond constant memory)
                unsupported=$((unsupported + 1))
                [ "$unsupported" -le 5 ] && echo "refused: $img -k '$k' --strategy $s: $(cat "$tmp/err")"
                continue
            fi
            checked=$((checked + 1))
            if ! cmp -s "$tmp/cpu.$ext" "$tmp/gpu.$ext"; then
                differ=$((differ + 1))
                echo "DIFFER: $img -k '$k' -b $b --strategy $s"
            fi
        done
    done
done
echo "identity: $checked GPU runs compared with the CPU, $differ differ, $unsupported refused, $crashed crashed"
[ "$differ" -eq 0 ] && [ "$crashed" -eq 0 ] && [ "$checked" -gt 0 ]
