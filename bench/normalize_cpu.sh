#!/usr/bin/env bash
# CPU benchmark of fxkit normalize against ffmpeg's dynaudnorm, side by side in
# one run, and the published GPU variant's (DANPI) experiment on the CPU path.
# Prints Markdown tables (medians of REPEATS runs) for docs/BENCHMARKS.md.
# Usage: bench/normalize_cpu.sh [FXKIT] [REPEATS]   (needs ffmpeg on PATH)
set -euo pipefail
fxkit=${1:-build/fxkit}
repeats=${2:-7}
threads=${THREADS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Median wall time in seconds of a command run $repeats times.
median() {
  local times=()
  for _ in $(seq "$repeats"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'
}

echo "Date: $(date -u +%Y-%m-%d), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
echo "$(ffmpeg -version | head -n 1 | cut -d' ' -f1-3), $("$fxkit" --version | head -n 1), $threads threads, median of $repeats runs."
echo
echo "### End to end: 16-bit stereo 44.1 kHz WAV to WAV, default options"
echo
echo "| input | ffmpeg -af dynaudnorm (s) | fxkit normalize (s) | speed-up |"
echo "| --- | --- | --- | --- |"
for minutes in 1 6; do
  in="$work/speech_${minutes}min.wav"
  "$fxkit" gen audio --kind speech --duration $((minutes * 60)) --channels 2 --rate 44100 -o "$in" --quiet
  ff=$(median ffmpeg -v error -y -i "$in" -af dynaudnorm "$work/ff.wav")
  fx=$(median "$fxkit" normalize --threads "$threads" "$in" -o "$work/fx.wav")
  echo "| ${minutes} min speech | $ff | $fx | $(echo "$ff / $fx" | bc -l | xargs printf '%.2fx') |"
done

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
