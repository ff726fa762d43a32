#!/usr/bin/env bash
# filter file to file: the whole image against bands of 2, 4, 8 and 16 MiB, for RGB PPM
# and PNG inputs of several sizes (gaussian:5), alternating, medians with the rounds;
# every output compared with the whole image's (docs/BENCHMARKS.md, "filter file to
# file on the CPU"). "whole" is --stream-rows above the height.
#
# usage: bench/filter_file_bands.sh FXKIT [ROUNDS] [SIZES...]
set -euo pipefail
fx=$(realpath "$1")
rounds=${2:-7}
shift $(($# >= 2 ? 2 : $#))
sizes=("${@:-2048x1536 4096x2304 5000x5000 8000x8000}")
read -r -a sizes <<<"${sizes[*]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for size in "${sizes[@]}"; do
    for ext in ppm png; do
        "$fx" gen image --size "$size" -o "in.$ext" -q
        row=$((${size%x*} * 3))
        declare -A times=()
        for ((r = 0; r < rounds; r++)); do
            for mib in 0 2 4 8 16; do
                rows=100000
                [ "$mib" -eq 0 ] || rows=$(((mib << 20) / row))
                times[$mib]="${times[$mib]:-} $(ms "$fx" filter -k gaussian:5 "in.$ext" -o "out$mib.$ext" --stream-rows "$rows")"
            done
        done
        line="$size $ext:"
        for mib in 0 2 4 8 16; do
            cmp -s "out0.$ext" "out$mib.$ext" || { echo "$size $ext: bands of $mib MiB differ" >&2; exit 1; }
            label="bands $mib MiB"
            [ "$mib" -eq 0 ] && label=whole
            line="$line $label $(echo "${times[$mib]}" | median) ms [${times[$mib]# }];"
        done
        echo "$line"
        unset times
    done
done
