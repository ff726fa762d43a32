#!/usr/bin/env bash
# CPU benchmark of fxkit normalize against ffmpeg's dynaudnorm, side by side in
# one run, and the published GPU variant's (DANPI) experiment on the CPU path.
# Prints Markdown tables (medians of REPEATS runs) for docs/BENCHMARKS.md.
# Usage: bench/normalize_cpu.sh [FXKIT] [REPEATS]   (needs ffmpeg on PATH)
# Environment: THREADS (2), BENCH_DIR (where the files go; /dev/shm by default),
# SKIP_STAGES=1 to run only the end-to-end table.
set -euo pipefail
fxkit=${1:-build/fxkit}
repeats=${2:-7}
threads=${THREADS:-2}
# tmpfs when there is one: both programs then read and write memory, not the disk.
work=$(mktemp -d -p "${BENCH_DIR:-$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")}")
trap 'rm -rf "$work"' EXIT

# Wall time in seconds of one run of a command.
wall() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

# Median of the numbers on stdin.
median() {
  sort -g | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'
}

echo "Date: $(date -u +%Y-%m-%d), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
echo "$(ffmpeg -version | head -n 1 | cut -d' ' -f1-3), $("$fxkit" --version | head -n 1), median of $repeats interleaved runs."
echo
echo "### End to end: 16-bit stereo 44.1 kHz WAV to WAV, default options"
echo
echo "Each repeat runs ffmpeg, fxkit with $threads threads and fxkit with 1 thread, one after the other;"
echo "the ratio is ffmpeg's median over fxkit's (and, in brackets, the median of the per-repeat ratios)."
echo
echo "| input | ffmpeg -af dynaudnorm (s) | fxkit --threads $threads (s) | speed-up | fxkit --threads 1 (s) | speed-up |"
echo "| --- | --- | --- | --- | --- | --- |"
for minutes in 1 6; do
  in="$work/speech_${minutes}min.wav"
  "$fxkit" gen audio --kind speech --duration $((minutes * 60)) --channels 2 --rate 44100 -o "$in" --quiet
  ff_times=() fx_times=() fx1_times=() ratios=() ratios1=()
  for _ in $(seq "$repeats"); do
    ff=$(wall ffmpeg -v error -y -i "$in" -af dynaudnorm "$work/ff.wav")
    fx=$(wall "$fxkit" normalize --threads "$threads" "$in" -o "$work/fx.wav")
    fx1=$(wall "$fxkit" normalize --threads 1 "$in" -o "$work/fx1.wav")
    ff_times+=("$ff") fx_times+=("$fx") fx1_times+=("$fx1")
    ratios+=("$(echo "$ff / $fx" | bc -l)") ratios1+=("$(echo "$ff / $fx1" | bc -l)")
  done
  # The outputs must be the same samples (the WAV headers differ: ffmpeg adds a LIST chunk).
  for out in fx fx1; do
    if [ "$(ffmpeg -v error -i "$work/ff.wav" -f md5 -)" != "$(ffmpeg -v error -i "$work/$out.wav" -f md5 -)" ]; then
      echo "error: $out.wav differs from ffmpeg's output" >&2
      exit 1
    fi
  done
  ffm=$(printf '%s\n' "${ff_times[@]}" | median)
  fxm=$(printf '%s\n' "${fx_times[@]}" | median)
  fx1m=$(printf '%s\n' "${fx1_times[@]}" | median)
  rpm=$(printf '%s\n' "${ratios[@]}" | median)
  r1m=$(printf '%s\n' "${ratios1[@]}" | median)
  echo "| ${minutes} min speech | $ffm | $fxm | $(echo "$ffm / $fxm" | bc -l | xargs printf '%.2f')x ($(printf '%.2f' "$rpm")x) | $fx1m | $(echo "$ffm / $fx1m" | bc -l | xargs printf '%.2f')x ($(printf '%.2f' "$r1m")x) |"
done
[ "${SKIP_STAGES:-0}" = 1 ] && exit 0
echo
echo "### The published GPU variant's experiment on the CPU path (mono 44.1 kHz, stage times in ms)"
echo
echo "| file | frame (samples) | window | analyze | minimum filter | Gaussian | gain | whole run |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for seconds in 10 60 360; do
  in="$work/mono_${seconds}s.wav"
  "$fxkit" gen audio --kind speech --duration "$seconds" --channels 1 --rate 44100 -o "$in" --quiet
  for frame in 2 64 1024; do
    [ "$frame" -eq 2 ] && [ "$seconds" -gt 10 ] && continue
    for window in 3 31 301; do
      log="$work/stages_${seconds}_${frame}_${window}.csv"
      for _ in $(seq "$repeats"); do
        "$fxkit" normalize --threads "$threads" --frame-samples "$frame" --window "$window" \
          --stage-log "$log" "$in" -o "$work/danpi.wav" --quiet
      done
      # Median of each column (microseconds) over the repeats, in ms.
      row=""
      for col in 5 6 7 8 9; do
        row+=$(tail -n +2 "$log" | cut -d, -f"$col" | sort -g |
          awk '{a[NR] = $1} END {printf "| %.2f ", a[int((NR + 1) / 2)] / 1000}')
      done
      echo "| ${seconds} s | $frame | $window $row|"
    done
  done
done
