#!/usr/bin/env bash
# What sharding costs: one process over a batch against N processes each doing one shard
# (started by mpirun, and by hand with --shard K/N), same machine, same threads in all,
# alternating rounds, medians; bytes compared with the one-process run.
#
# usage: bench/scale_out.sh FXKIT [FILES] [SIZE] [ROUNDS] [N]
#   defaults: 64 files of 1024x768 RGB PNG, gaussian:5, 5 rounds, N = the CPU count
set -euo pipefail
fxkit=$(realpath "$1")
files=${2:-64}
size=${3:-1024x768}
rounds=${4:-5}
n=${5:-$(nproc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$fxkit" gen image --count "$files" --size "$size" -o in/ -q
job=(filter -k gaussian:5 -q)
mpirun=(mpirun -n "$n" --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)

now() { date +%s.%N; }
elapsed() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.3f", e - s }'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

one="" mpi="" hand=""
for ((r = 0; r < rounds; r++)); do
    rm -rf o1 o2 o3
    s=$(now); "$fxkit" "${job[@]}" in/*.png -o o1/; one="$one $(elapsed "$s")"
    s=$(now); "${mpirun[@]}" "$fxkit" "${job[@]}" --threads 1 in/*.png -o o2/; mpi="$mpi $(elapsed "$s")"
    s=$(now)
    for ((k = 0; k < n; k++)); do "$fxkit" "${job[@]}" --threads 1 --shard "$k/$n" in/*.png -o o3/ & done
    wait
    hand="$hand $(elapsed "$s")"
done
same=yes
for f in o1/*; do
    cmp -s "$f" "o2/${f#o1/}" && cmp -s "$f" "o3/${f#o1/}" || same=no
done
echo "scale-out: $files x $size RGB PNG gaussian:5 on $(nproc) CPUs, $rounds rounds"
echo "  one process (--jobs auto):         $(echo "$one" | median) s  (rounds:$one)"
echo "  mpirun -n $n, --threads 1 each:     $(echo "$mpi" | median) s  (rounds:$mpi)"
echo "  $n x --shard K/$n, --threads 1 each: $(echo "$hand" | median) s  (rounds:$hand)"
echo "  bytes identical to the one-process run: $same"
