#!/usr/bin/env bash
# Run fxkit's jobs on the bundled samples and print what was made.
# Usage: scripts/demo.sh [FXKIT_BINARY] [OUTPUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fxkit=${1:-$root/build/fxkit}
out=${2:-$root/out}
samples=$root/samples
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }

step "fxkit info"
"$fxkit" info

step "convert: every sample image to PNG, JPEG (quality 85) and PPM"
"$fxkit" convert "$samples"/*.png "$samples"/*.jpg --to png -o "$out/convert/png/" --timings
"$fxkit" convert "$samples"/*.png --to jpeg --quality 85 -o "$out/convert/jpeg/"
"$fxkit" convert "$samples"/*.png "$samples"/*.jpg --to ppm -o "$out/convert/ppm/" --jobs 2

step "convert: speech to FLAC, and 24-bit stereo to 32-bit float WAV"
"$fxkit" convert "$samples/speech_mono_44k.wav" -o "$out/convert/speech_mono_44k.flac" --timings
"$fxkit" convert "$samples/speech_stereo_44k_24bit.wav" --sample-format f32 -o "$out/convert/speech_stereo_f32.wav"

step "gen: synthetic test inputs"
mkdir -p "$out/gen"
"$fxkit" gen image --kind photo --size 1920x1080 --channels 3 --seed 1 -o "$out/gen/photo_1080p.png"
"$fxkit" gen image --kind checker --size 640x480 --channels 1 --depth 16 -o "$out/gen/checker16.png"
"$fxkit" gen audio --kind speech --duration 10 --rate 48000 --channels 2 --seed 7 -o "$out/gen/speech_48k.wav"

step "filter: the photos blurred, sharpened and embossed (OpenCV's answers)"
"$fxkit" filter -k gaussian:9 "$samples"/*.png -o "$out/filter/gaussian9/" --explain --timings
"$fxkit" filter -k sharpen "$samples"/*.png -o "$out/filter/sharpen/"
"$fxkit" filter -k emboss -b replicate "$samples/coffee.png" -o "$out/filter/coffee_emboss.png"

step "normalize: even out the speech sample's levels (ffmpeg's dynaudnorm, bit for bit)"
mkdir -p "$out/normalize"
"$fxkit" normalize --verbose "$samples/speech_stereo_44k_24bit.wav" -o "$out/normalize/speech_stereo_even.wav"

step "equalize: the photos globally (hue kept) and with CLAHE"
"$fxkit" equalize "$samples"/*.png "$samples"/*.jpg -o "$out/equalize/global/" --timings
"$fxkit" equalize --adaptive --clip 2 "$samples"/*.png "$samples"/*.jpg -o "$out/equalize/clahe/"

step "summary"
(cd "$out" && find . -type f | sort | while read -r f; do
  printf '  %-44s %10s bytes\n' "${f#./}" "$(stat -c %s "$f")"
done)
printf '\nResults are in %s\n' "$out"
