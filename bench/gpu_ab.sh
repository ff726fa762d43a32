#!/usr/bin/env bash
# GPU A/B of two builds on one machine in one run: the filter's GPU benchmark
# (tests/gpu_test_gpu_filter_bench --bench) and bench/gpu_jobs_bench (equalize and
# normalize), the builds alternating ROUNDS times. Prints "A|B RESULT key value" lines
# and a Markdown table of medians (min-max) per key.
#
# usage: bench/gpu_ab.sh BUILD_A BUILD_B [ROUNDS]
#        (each BUILD holds tests/gpu_test_gpu_filter_bench and bench/gpu_jobs_bench;
#         on a machine without the codecs, set LD_LIBRARY_PATH to scripts/device-libs.sh's)
set -uo pipefail
a=$1 b=$2 rounds=${3:-3}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for ((r = 1; r <= rounds; r++)); do
    for side in A B; do
        build=$a
        [ "$side" = B ] && build=$b
        echo "== $side round $r" >&2
        { timeout 300 "$build/tests/gpu_test_gpu_filter_bench" --bench
          timeout 300 "$build/bench/gpu_jobs_bench"; } 2>&1 | grep '^RESULT' | sed "s/^/$side /" | tee -a "$log"
    done
done
python3 - "$log" <<'PY'
import re, statistics, sys
runs = {"A": {}, "B": {}}
for line in open(sys.argv[1]):
    m = re.match(r"(A|B) RESULT (\S+) ([0-9.]+)", line)
    if m:
        runs[m[1]].setdefault(m[2], []).append(float(m[3]))
print("| key | A ms | B ms | B/A |\n| --- | --- | --- | --- |")
for key, va in runs["A"].items():
    vb = runs["B"].get(key)
    if not vb:
        continue
    ma, mb = statistics.median(va), statistics.median(vb)
    ratio = f"{mb / ma:.3f}" if ma else "-"
    print(f"| {key} | {ma:g} ({min(va):g}-{max(va):g}) | {mb:g} ({min(vb):g}-{max(vb):g}) | {ratio} |")
PY
