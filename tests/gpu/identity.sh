#!/usr/bin/env bash
# CPU == GPU bytes on inputs that are not in the test suite, through the program.
# filter: the bundled photos, noise, 1xN and Nx1 images, a kernel larger than the
# image; every GPU strategy but fft (which is within one unit, not exact), 8-bit,
# 16-bit and float. equalize: a photo, a constant image, 1x1, odd sizes, every space,
# scale, bins, CLAHE grids and clips, 8- and 16-bit, 1 to 4 channels. normalize:
# speech, tones, noise with clicks, silence, a long file, mono to 8 channels, the
# options that change the arithmetic. For a machine with a GPU (run by hand or from
# check.sh).
#
# usage: tests/gpu/identity.sh [FXKIT [JOB...]]   (default build/fxkit; jobs: filter equalize normalize)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fxkit=${1:-$root/build/fxkit}
jobs=("${@:2}")
[ ${#jobs[@]} -gt 0 ] || jobs=(filter equalize normalize)
want() { [[ " ${jobs[*]} " == *" $1 "* ]]; }
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
want filter && for img in photo.ppm photo16.png noise.ppm row.pgm col.pgm tiny.ppm noise.pfm; do
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
want filter && echo "identity filter: $checked GPU runs compared with the CPU, $differ differ, $unsupported refused, $crashed crashed"

# compare JOB INPUT EXT ARGS...: the job on the CPU and on the GPU, same bytes.
compare() {
    local job=$1 input=$2 ext=$3
    shift 3
    if ! "$fxkit" "$job" -q "$@" --device cpu "$input" -o "$tmp/cpu.$ext" 2>"$tmp/err"; then
        unsupported=$((unsupported + 1)) # e.g. 1000 bins of an 8-bit image
        [ "$unsupported" -le 5 ] && echo "refused: $job $* $(basename "$input"): $(cat "$tmp/err")"
        return
    fi
    "$fxkit" "$job" -q "$@" --device gpu "$input" -o "$tmp/gpu.$ext" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        crashed=$((crashed + 1))
        echo "GPU FAILED (exit $rc): $job $* $(basename "$input"): $(cat "$tmp/err")"
        return
    fi
    checked=$((checked + 1))
    if ! cmp -s "$tmp/cpu.$ext" "$tmp/gpu.$ext"; then
        differ=$((differ + 1))
        echo "DIFFER: $job $* $(basename "$input")"
    fi
}

# ---- equalize ----
filter_checked=$checked
if want equalize; then
"$fxkit" gen image -q --kind gradient --size 1x1 --channels 3 -o "$tmp/one.ppm"
"$fxkit" gen image -q --kind checker --size 333x211 --channels 4 --seed 3 -o "$tmp/rgba.png"
"$fxkit" gen image -q --kind photo --size 1001x777 --channels 2 --seed 4 -o "$tmp/graya.png"
"$fxkit" gen image -q --kind gradient --size 257x3 --channels 1 --depth u16 -o "$tmp/grad16.png" 2>/dev/null ||
    "$fxkit" convert -q "$tmp/row.pgm" --depth u16 -o "$tmp/grad16.png"
"$fxkit" convert -q "$root/samples/hubble_deep_field.jpg" -o "$tmp/hubble.ppm"
printf 'P5\n97 61\n255\n' >"$tmp/const.pgm"
head -c $((97 * 61)) /dev/zero | tr '\0' '\200' >>"$tmp/const.pgm"
eq_options=("" "--space hsv" "--space luma" "--space rgb" "--space gray" "--space hsv-float"
    "--space hsv-float --scale mms" "--scale max" "--bins 64" "--bins 1000 --scale mms"
    "-a" "-a --tiles 3x5 --clip 2" "-a --tiles 16x16 --clip 0" "-a --tiles 1x1 --clip 40"
    "--gpu-block 64" "--space hsv --gpu-block 1024")
for img in photo.ppm hubble.ppm photo16.png noise.ppm tiny.ppm one.ppm const.pgm row.pgm col.pgm \
    rgba.png graya.png grad16.png; do
    ext=${img##*.}
    for o in "${eq_options[@]}"; do
        # shellcheck disable=SC2086 # the options are words
        compare equalize "$tmp/$img" "$ext" $o
    done
done
echo "identity equalize: $((checked - filter_checked)) GPU runs compared with the CPU"
fi

# ---- normalize ----
before=$checked
if want normalize; then
"$fxkit" gen audio -q --kind speech --duration 95 --channels 1 --seed 5 -o "$tmp/speech.wav"
"$fxkit" gen audio -q --kind tones --duration 41 --channels 2 --sample-format f32 -o "$tmp/tones.wav"
"$fxkit" gen audio -q --kind white --duration 13 --channels 8 --sample-format s24 --amplitude 0.05 \
    -o "$tmp/white8.wav"
"$fxkit" gen audio -q --kind silence --duration 3 --channels 2 -o "$tmp/silence.wav"
"$fxkit" gen audio -q --kind speech --duration 1800 --channels 2 --seed 6 -o "$tmp/long.wav"
nm_options=("" "--preset danpi" "-f 20 -g 5" "--frame-samples 2 -g 3" "--frame-samples 1024 -g 101"
    "--no-coupling" "--channels 0" "--no-ramp" "-c -s 3" "-b" "--overlap 0.5" "-r 0.1 --min-gain 0.5"
    "--compat ffmpeg5.1" "--sample-format f64")
for wav in "$root/samples/speech_mono_44k.wav" "$root/samples/speech_stereo_44k_24bit.wav" \
    "$tmp/speech.wav" "$tmp/tones.wav" "$tmp/white8.wav" "$tmp/silence.wav"; do
    for o in "${nm_options[@]}"; do
        # shellcheck disable=SC2086
        compare normalize "$wav" wav $o
    done
done
compare normalize "$tmp/long.wav" wav
compare normalize "$tmp/long.wav" wav --preset danpi
# a batch: many files at once on one GPU (workers, each file whole), against the CPU's batch
mkdir -p "$tmp/nm_in" "$tmp/nm_cpu" "$tmp/nm_gpu"
"$fxkit" gen audio -q --kind speech --duration 7 --count 12 --channels 2 -o "$tmp/nm_in/"
cp "$tmp/tones.wav" "$tmp/white8.wav" "$tmp/silence.wav" "$tmp/nm_in/"
for devices in "gpu:0" "gpu:0,0"; do
    rm -f "$tmp"/nm_cpu/* "$tmp"/nm_gpu/*
    "$fxkit" normalize -q --device cpu "$tmp"/nm_in/*.wav -o "$tmp/nm_cpu/" &&
        "$fxkit" normalize -q --device "$devices" "$tmp"/nm_in/*.wav -o "$tmp/nm_gpu/"
    rc=$?
    checked=$((checked + 1))
    for f in "$tmp"/nm_in/*.wav; do
        if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/nm_cpu/${f##*/}" "$tmp/nm_gpu/${f##*/}"; then
            differ=$((differ + 1))
            echo "DIFFER: normalize batch --device $devices: ${f##*/}"
            break
        fi
    done
done
echo "identity normalize: $((checked - before)) GPU runs compared with the CPU"
fi

echo "identity: $checked GPU runs compared with the CPU, $differ differ, $unsupported refused, $crashed crashed"
[ "$differ" -eq 0 ] && [ "$crashed" -eq 0 ] && [ "$checked" -gt 0 ]
