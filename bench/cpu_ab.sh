#!/usr/bin/env bash
# CPU A/B of two builds of fxkit on the same machine in one run: filter and equalize
# compute (bench/filter_bench, bench/equalize_bench, warm, in-process) and normalize end
# to end (the program on a 6 min stereo WAV). The two builds alternate ROUNDS times, so
# drift and a noisy neighbour hit both alike; each cell is the median over rounds of
# each run's own median (and the smallest of those, which noise cannot lower).
#
# usage: bench/cpu_ab.sh BUILD_A BUILD_B [ROUNDS [THREADS]]
#        (each BUILD holds fxkit and bench/filter_bench, bench/equalize_bench: `make`)
# Prints a Markdown table: workload | A median (min) | B median (min) | B/A.
set -euo pipefail
a=$1 b=$2 rounds=${3:-5} threads=${4:-2}
work=$(mktemp -d -p "$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")")
trap 'rm -rf "$work"' EXIT
"$b/fxkit" gen image --kind photo --size 4096x2304 --seed 7 -o "$work/photo.ppm" >/dev/null
"$b/fxkit" gen audio --kind speech --duration 360 --rate 44100 --channels 2 -o "$work/talk.wav" >/dev/null

filter() { "$1/bench/filter_bench" compute "$2" 4096 2304 3 9 "$threads" "$3" | awk '/^RESULT compute_ms/ {print $3}'; }
equalize() { local build=$1; shift; "$build/bench/equalize_bench" "$work/photo.ppm" "$threads" 9 "$@" 2>/dev/null | awk '/^RESULT/ {print $2}'; }
normalize() { # median of 5 wall times in ms
    local t0 t1 i times=()
    for i in 1 2 3 4 5; do
        t0=$(date +%s%N)
        "$1/fxkit" normalize --threads "$threads" "$work/talk.wav" -o "$work/even_$i.wav" >/dev/null 2>&1
        t1=$(date +%s%N)
        times+=($(( (t1 - t0) / 1000 )))
        rm -f "$work/even_$i.wav"
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{v[NR]=$1} END {printf "%.1f\n", v[int((NR+1)/2)] / 1000}'
}
# median and min of the numbers on stdin
stats() { sort -g | awk '{v[NR]=$1} END {printf "%s (%s)", v[int((NR+1)/2)], v[1]}'; }

workloads=(
  "filter gaussian:5 separable" "filter box:15 box" "filter sharpen direct"
  "filter gaussian:31 fft"
  "equalize --space gray" "equalize --space hsv" "equalize --space luma"
  "equalize --space rgb" "equalize --adaptive"
  "normalize"
)
echo "| workload (4096x2304 RGB; 6 min stereo; $threads threads) | A ms | B ms | B/A |"
echo "| --- | --- | --- | --- |"
for w in "${workloads[@]}"; do
    read -r job args <<<"$w"
    : >"$work/a" && : >"$work/b"
    for ((r = 0; r < rounds; r++)); do
        # shellcheck disable=SC2086
        case $job in
        filter) set -- $args; filter "$a" "$1" "$2" >>"$work/a"; filter "$b" "$1" "$2" >>"$work/b" ;;
        equalize) equalize "$a" $args >>"$work/a"; equalize "$b" $args >>"$work/b" ;;
        normalize) normalize "$a" >>"$work/a"; normalize "$b" >>"$work/b" ;;
        esac
    done
    ma=$(sort -g "$work/a" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
    mb=$(sort -g "$work/b" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
    echo "| $w | $(stats <"$work/a") | $(stats <"$work/b") | $(awk -v x="$ma" -v y="$mb" 'BEGIN {printf "%.3f", y / x}') |"
done
