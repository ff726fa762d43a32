#!/usr/bin/env bash
# A batch of long files through `fxkit normalize`, end to end, on the GPU against the
# CPU path of the same machine: FILES files of SECONDS seconds of 16-bit stereo speech
# on tmpfs, alternating CPU and GPU runs, wall time of the program each; the outputs
# of the two devices are compared byte for byte.
#
# usage: bench/normalize_gpu_batch.sh FXKIT [FILES [SECONDS [ROUNDS [JOBS]]]]
#        (defaults: 16 files, 360 s, 3 rounds, --jobs auto)
set -u
fxkit=${1:?usage: normalize_gpu_batch.sh FXKIT [FILES [SECONDS [ROUNDS [JOBS]]]]}
files=${2:-16}
seconds=${3:-360}
rounds=${4:-3}
jobs=${5:-auto}
dir=$(mktemp -d /dev/shm/fxkit-nm-batch.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/in" "$dir/cpu" "$dir/gpu"

"$fxkit" gen audio --kind speech --duration "$seconds" --count "$files" -o "$dir/in/" >/dev/null ||
    { echo "normalize_gpu_batch: cannot generate the inputs"; exit 1; }

now_ms() { echo $(($(date +%s%N) / 1000000)); }

run() { # DEVICE -> prints the wall time in ms
    local device=$1 t0
    t0=$(now_ms)
    "$fxkit" normalize "$dir"/in/*.wav -o "$dir/$device/" --device "$device" --jobs "$jobs" \
        >/dev/null 2>"$dir/$device.err" || { cat "$dir/$device.err" >&2; echo -1; return; }
    echo $(($(now_ms) - t0))
}

t0=$(now_ms)
"$fxkit" info >/dev/null 2>&1
echo "RESULT info_ms $(($(now_ms) - t0))"
cpu=() gpu=()
for r in $(seq "$rounds"); do
    cpu+=("$(run cpu)")
    gpu+=("$(run gpu)")
done
echo "RESULT batch ${files}x${seconds}s jobs=$jobs cpu_ms ${cpu[*]} gpu_ms ${gpu[*]}"
if compgen -G "$dir/cpu/*.wav" >/dev/null && cmp -s <(cat "$dir"/cpu/*.wav) <(cat "$dir"/gpu/*.wav); then
    echo "RESULT batch_outputs identical"
else
    echo "RESULT batch_outputs DIFFER"
    exit 1
fi
