#!/usr/bin/env bash
# normalize on real files: every sample bit-identical to ffmpeg 5.1's dynaudnorm
# (goldens from scripts/goldens-normalize.sh), streaming in any chunking, logs,
# and bad inputs and options rejected with nothing written.
. "$(dirname "$0")/lib.sh"
GOLDENS="$CLI_TESTS/../data/normalize/goldens.txt"

t "every golden case: fxkit's samples are ffmpeg 5.1's, bit for bit"
while IFS='|' read -r name input _ffopts fxopts sha; do
    case $name in '#'* | '') continue ;; esac
    case $input in
        gen:*) # shellcheck disable=SC2086 # the arguments are words
            fx gen audio ${input#gen:} --sample-format f64 -o "$name.wav" --quiet ;;
        sample:*) cp "$SAMPLES/${input#sample:}" "$name.wav" ;;
    esac
    # shellcheck disable=SC2086
    fx normalize "$name.wav" -o "$name.out.wav" --sample-format f64 $fxopts
    expect_exit 0
    expect_equal "$(wav_data_sha "$name.out.wav")" "$sha" "$name ($fxopts)"
done <"$GOLDENS"

t "reading and writing overlapped (two threads or more) give the bytes of one thread"
# 70 s of 16-bit stereo: some 190 chunks through the pipeline and the vectorised s16 paths.
fx gen audio --kind speech --duration 70 --channels 2 --rate 44100 -o long16.wav --quiet
expect_exit 0
for threads in 1 2 3; do
    fx normalize --threads "$threads" long16.wav -o "long16.t$threads.wav"
    expect_exit 0
done
expect_equal "$(wav_data_sha long16.t2.wav)" "$(wav_data_sha long16.t1.wav)" "2 threads vs 1"
expect_equal "$(wav_data_sha long16.t3.wav)" "$(wav_data_sha long16.t1.wav)" "3 threads vs 1"
for threads in 1 2; do
    head -c 5000000 long16.wav >"cut.t$threads.wav"
    fx normalize --threads "$threads" "cut.t$threads.wav" -o "cut.out$threads.wav"
    expect_exit 1
    expect_stderr_contains "truncated"
    expect_no_file "cut.out$threads.wav"
done

t "the output keeps the input's sample format and length"
fx normalize "$SAMPLES/speech_stereo_44k_24bit.wav" -o keep.wav
expect_exit 0
expect_equal "$(wav_format keep.wav | cut -d' ' -f2-)" \
    "$(wav_format "$SAMPLES/speech_stereo_44k_24bit.wav" | cut -d' ' -f2-)" "channels, rate, bits"
read -r _ in_size <<<"$(wav_chunk "$SAMPLES/speech_stereo_44k_24bit.wav" data)"
read -r _ out_size <<<"$(wav_chunk keep.wav data)"
expect_equal "$out_size" "$in_size" "data size"

t "FLAC output by extension; a batch into a folder"
fx normalize "$SAMPLES/speech_mono_44k.wav" -o mono.flac
expect_exit 0
expect_equal "$(head -c 4 mono.flac)" "fLaC"
fx normalize --jobs 2 "$SAMPLES/speech_mono_44k.wav" "$SAMPLES/speech_stereo_44k_24bit.wav" -o out/
expect_exit 0
expect_file out/speech_mono_44k.wav
expect_file out/speech_stereo_44k_24bit.wav

t "--gain-log writes one row per frame and channel; --stage-log appends the stages"
fx normalize --no-coupling --gain-log gains.csv --stage-log stages.csv \
    "$SAMPLES/speech_stereo_44k_24bit.wav" -o logged.wav
expect_exit 0
expect_equal "$(head -n 1 gains.csv)" "file,frame,channel,gain,minimum,smoothed"
# 40.3 s at 22050 samples per frame: 81 frames, 2 channels.
expect_equal "$(($(wc -l <gains.csv) - 1))" "162" "gain rows"
expect_equal "$(head -n 1 stages.csv | cut -d, -f1-5)" "file,samples,frame_length,filter_width,analyze_us"
expect_equal "$(sed -n 2p stages.csv | cut -d, -f3,4)" "22050,31"
fx normalize --stage-log stages.csv "$SAMPLES/speech_mono_44k.wav" -o logged2.wav
expect_equal "$(wc -l <stages.csv | tr -d ' ')" "3" "appended"

t "--timings reports the four stages; --preset danpi"
fx normalize --timings --preset danpi "$SAMPLES/speech_mono_44k.wav" -o danpi.wav
expect_exit 0
expect_stderr_contains "stages: analyze"
expect_stderr_contains "minimum filter"

t "bad option values: usage error (exit 2), nothing written"
for bad in "--window 30" "--window 1" "--peak 2" "--max-gain 0.5" "--frame-ms 5" \
    "--overlap -0.1" "--compat ffmpeg4" "--preset nope" "--min-window 4" "--target-rms x"; do
    # shellcheck disable=SC2086
    fx normalize $bad "$SAMPLES/speech_mono_44k.wav" -o bad.wav
    expect_exit 2
    expect_no_file bad.wav
done
fx normalize --window 30 "$SAMPLES/speech_mono_44k.wav" -o bad.wav
expect_stderr_contains "--window: 30 is even"

t "a channel list the file does not have: that file fails, nothing written"
fx normalize --channels 5 "$SAMPLES/speech_mono_44k.wav" -o bad.wav
expect_exit 1
expect_stderr_contains "--channels"
expect_no_file bad.wav
expect_no_temp .

t "corrupt, truncated, empty and non-audio inputs fail clearly, nothing written"
head -c 20000 "$SAMPLES/speech_mono_44k.wav" >truncated.wav
fx normalize truncated.wav -o t.wav
expect_exit 1
expect_stderr_contains "truncated"
expect_no_file t.wav
printf 'RIFF\x24\x00\x00\x00WAVEjunkjunkjunk' >corrupt.wav
fx normalize corrupt.wav -o c.wav
expect_exit 1
expect_no_file c.wav
: >empty.wav
fx normalize empty.wav -o e.wav
expect_exit 1
expect_no_file e.wav
fx normalize "$SAMPLES/coffee.png" -o img.wav
expect_exit 1
expect_no_file img.wav
fx normalize "$SAMPLES/speech_mono_44k.wav" -o out.png
expect_exit 1
expect_stderr_contains "unknown audio format"
expect_no_file out.png
fx normalize missing.wav -o m.wav
expect_exit 1
expect_no_temp .

t "a zero-length audio file gives a zero-length output"
# A 16-bit stereo WAV header with an empty data chunk.
printf 'RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00\x44\xac\x00\x00' >zero.wav
printf '\x10\xb1\x02\x00\x04\x00\x10\x00data\x00\x00\x00\x00' >>zero.wav
fx normalize zero.wav -o zero.out.wav
expect_exit 0
read -r _ size <<<"$(wav_chunk zero.out.wav data)"
expect_equal "$size" "0"

t "--help comes from the option table"
fx normalize --help
expect_exit 0
expect_text_contains "--frame-ms MS"
expect_text_contains "--compat MODE"
expect_text_contains "--sample-format FMT"

finish
