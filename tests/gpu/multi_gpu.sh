#!/usr/bin/env bash
# Several workers on the GPUs of one host, through the program: a batch spread over
# --device gpu:0,0 (two workers sharing GPU 0), gpu:all and the local rank's GPU gives
# the bytes of one worker on GPU 0 and of the CPU; and the time of two workers on GPU 0
# against one (target: no slower), medians of alternating rounds.
#
# usage: tests/gpu/multi_gpu.sh FXKIT [ROUNDS]     (run by tests/gpu/check.sh)
# Last line: "multi-gpu: …" for check.sh's summary. Exit 1 when any bytes differ or -v
# does not say which GPU the local rank picked.
set -u
fxkit=$1
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# 32 RGB 2048x1536 PPMs (cheap to decode and encode, so the GPU work shows) and 8
# stereo WAVs of 20 s.
"$fxkit" gen image --count 32 --size 2048x1536 --to ppm -o img/ -q || exit 1
"$fxkit" gen audio --count 8 --duration 20 --channels 2 -o wav/ -q || exit 1
IMAGE_JOB=(filter -k gaussian:31 -q)
AUDIO_JOB=(normalize -q)

# Same file names, same bytes in two folders: "yes", or the first difference.
same() {
    local a=$1 b=$2 f
    [ "$(ls "$a")" = "$(ls "$b")" ] || { echo "no: the folders hold other names"; return; }
    for f in "$a"/*; do
        cmp -s "$f" "$b/$(basename "$f")" || { echo "no: $(basename "$f") differs"; return; }
    done
    echo yes
}

# Seconds of one command, wall clock.
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" || echo "multi_gpu: failed: $*" >&2
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

one="" two=""
for ((r = 0; r < rounds; r++)); do
    rm -rf one two
    one="$one $(seconds "$fxkit" "${IMAGE_JOB[@]}" --device gpu:0 --jobs 1 img/*.ppm -o one/)"
    two="$two $(seconds "$fxkit" "${IMAGE_JOB[@]}" --device gpu:0,0 --jobs 2 img/*.ppm -o two/)"
done
one_s=$(echo "$one" | median)
two_s=$(echo "$two" | median)
echo "filter gaussian:31, 32 x 2048x1536 RGB: one worker on GPU 0 $one_s s (rounds:$one), two workers on GPU 0 $two_s s (rounds:$two)"

"$fxkit" "${IMAGE_JOB[@]}" --device cpu img/*.ppm -o cpu/
"$fxkit" "${IMAGE_JOB[@]}" --device gpu:all img/*.ppm -o all/
# -v without IMAGE_JOB's -q, which silences the notes: -v says which GPU the rank chose
OMPI_COMM_WORLD_LOCAL_RANK=3 "$fxkit" filter -k gaussian:31 --device gpu -v img/*.ppm -o rank/ \
    2>rank.log
rank_note=yes
grep -m1 'from OMPI_COMM_WORLD_LOCAL_RANK' rank.log ||
    { rank_note=no; echo "multi_gpu: -v did not say how the rank picked the GPU"; }
same_two=$(same one two)
same_cpu=$(same one cpu)
same_all=$(same one all)
same_rank=$(same one rank)
echo "filter bytes: gpu:0,0 $same_two, cpu $same_cpu, gpu:all $same_all, local rank $same_rank"

"$fxkit" "${AUDIO_JOB[@]}" --device gpu:0 --jobs 1 wav/*.wav -o aone/
"$fxkit" "${AUDIO_JOB[@]}" --device gpu:0,0 --jobs 2 wav/*.wav -o atwo/
"$fxkit" "${AUDIO_JOB[@]}" --device cpu wav/*.wav -o acpu/
audio_two=$(same aone atwo)
audio_cpu=$(same aone acpu)
echo "normalize bytes: gpu:0,0 $audio_two, cpu $audio_cpu"

ratio=$(awk -v a="$one_s" -v b="$two_s" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
status=0
for v in "$same_two" "$same_cpu" "$same_all" "$same_rank" "$audio_two" "$audio_cpu"; do
    [ "$v" = yes ] || status=1
done
identical=$([ $status -eq 0 ] && echo yes || echo no)
[ "$rank_note" = yes ] || status=1
echo "multi-gpu: two workers on GPU 0 ${ratio}x one (target >= 1), bytes identical: $identical, rank's GPU told: $rank_note"
exit $status
