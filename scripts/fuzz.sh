#!/usr/bin/env bash
# Run every libFuzzer target of a fuzz build for a few seconds from its seed corpus.
# Usage: scripts/fuzz.sh BUILD_DIR SECONDS
set -euo pipefail
build=$(realpath "${1:?build dir}")
seconds=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0
for src in "$root"/tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  bin="$build/tests/$name"
  [[ -x $bin ]] || { echo "fuzz: $name was not built" >&2; failed=$((failed + 1)); continue; }
  work=$(mktemp -d)
  # A scratch copy of the corpus, so new inputs found in CI do not dirty the tree.
  cp -r "$root/tests/fuzz/corpus/$name/." "$work/" 2>/dev/null || true
  echo "fuzz: $name for ${seconds}s"
  if (cd "$work" && "$bin" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
        -print_final_stats=1 . >"$work.log" 2>&1); then
    passed=$((passed + 1))
    grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$work.log" | head -2 || true
  else
    failed=$((failed + 1))
    tail -40 "$work.log" >&2
  fi
  rm -rf "$work" "$work.log"
done
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
