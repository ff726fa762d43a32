#!/usr/bin/env bash
# fxkit bench: the tiny `smoke` set runs every job, checks every result and writes the
# CSV with the issue's columns; a corrupted result (the FXKIT_BENCH_INJECT_WRONG test
# hook) fails the run; --device gpu without a GPU and --plot without gnuplot are plain
# errors. No peers here (they are optional programs; docs/BENCHMARKS.md runs them).
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"

header="job,set,case,device,width,height,channels,type,fxkit_ms,fxkit_min_ms,fxkit_max_ms,peer,peer_ms,ratio,verified"
# The smoke set on the CPU: 3 filter, 2 equalize, 1 normalize and 6 io cases.
SMOKE_ROWS=12

t "the smoke set runs, every row verified"
fx bench all --set smoke --device cpu --csv "$WORK/smoke.csv"
expect_exit 0
expect_stdout_contains "verified"
expect_file "$WORK/smoke.csv"
expect_equal "$(head -n 1 "$WORK/smoke.csv" | cut -d, -f1-15)" "$header" "CSV header"
expect_equal "$(tail -n +2 "$WORK/smoke.csv" | wc -l | tr -d ' ')" "$SMOKE_ROWS" "rows"
expect_equal "$(tail -n +2 "$WORK/smoke.csv" | cut -d, -f15 | sort -u)" "yes" "verified column"
# Every CPU row has a physical floor, below its own time (the floor_ms column; 1.5x:
# a tiny case's single runs vary).
run python3 - "$WORK/smoke.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = [r["case"] for r in rows if r["device"] == "cpu" and not (0 < float(r["floor_ms"] or 0) <= float(r["fxkit_ms"]) * 1.5)]
print("floors", "ok" if rows and not bad else "bad: " + ", ".join(bad))
EOF
expect_stdout_contains "floors ok"
for job in filter equalize normalize io; do
    if grep -q "^$job,smoke," "$WORK/smoke.csv"; then pass; else fail "no $job row"; fi
done

t "a job word keeps that job's cases only"
fx bench normalize --set smoke --device cpu --csv "$WORK/nm.csv"
expect_exit 0
expect_equal "$(tail -n +2 "$WORK/nm.csv" | cut -d, -f1 | sort -u)" "normalize" "jobs"

t "a wrong result is reported and fails the run"
FXKIT_BENCH_INJECT_WRONG=1 run "$FXKIT" bench all --set smoke --device cpu --csv "$WORK/wrong.csv"
expect_exit 1
expect_stderr_contains "WRONG"
expect_stderr_contains "not verified"
expect_equal "$(tail -n +2 "$WORK/wrong.csv" | cut -d, -f15 | grep -c no)" "1" "rows marked no"

t "--device gpu without a GPU is a usage error"
if [ "$("$FXKIT" info --json | grep -c '"index"')" -eq 0 ]; then
    fx bench filter --set smoke --device gpu
    expect_exit 2
    expect_stderr_contains "no GPU to measure"
    fx bench filter --set smoke --device both
    expect_exit 2
fi

t "--plot without gnuplot says how to get it, after writing the CSV"
FXKIT_GNUPLOT="$WORK/no-such-gnuplot" run "$FXKIT" bench io --set smoke --device cpu \
    --csv "$WORK/plot.csv" --plot "$WORK/out.svg"
expect_exit 1
expect_stderr_contains "apt-get install gnuplot-nox"
expect_file "$WORK/plot.csv"
expect_no_file "$WORK/out.svg"

t "--plot with gnuplot draws the figure"
if command -v gnuplot >/dev/null; then
    fx bench io --set smoke --device cpu --repeat 1 --plot "$WORK/io.svg"
    expect_exit 0
    if grep -q "<svg" "$WORK/io.svg" 2>/dev/null; then pass; else fail "no SVG written"; fi
fi

t "usage errors"
fx bench
expect_exit 2
expect_stderr_contains "which job?"
fx bench fliter
expect_exit 2
expect_stderr_contains "unknown job 'fliter'"
fx bench all --set nonesuch
expect_exit 2
expect_stderr_contains "unknown set 'nonesuch'"
fx bench all --quick --set smoke
expect_exit 2
fx bench all --plot out.gif
expect_exit 2
expect_stderr_contains ".svg or .png"

t "--help names the sets and says what verified means"
fx bench --help
expect_exit 0
for word in kernel-size image-size block-size resolutions hsv-grid danpi "verified = yes"; do
    expect_text_contains "$word"
done

finish
