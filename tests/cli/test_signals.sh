#!/usr/bin/env bash
# SIGINT/SIGTERM during a batch: the temporary file in flight is removed, no
# output appears, and the exit status is 128 + the signal.
. "$(dirname "$0")/lib.sh"

# Job control: background jobs get SIGINT at its default (not ignored).
set -m

# Wait (up to ~20 s) for the temporary output to appear, then send the signal.
interrupt() {
    local sig=$1 out=$2 pid
    "$FXKIT" gen audio --kind white --duration 36000 --rate 48000 -o "$out" 2>"$ERR" &
    pid=$!
    for _ in $(seq 200); do
        if [ -n "$(find . -name "*.fxtmp-*" | head -n 1)" ]; then break; fi
        sleep 0.1
    done
    kill "-$sig" "$pid"
    set +e
    wait "$pid"
    RC=$?
    set -e
}

t "SIGTERM: temp file removed, exit 143"
interrupt TERM term.wav
expect_exit 143
expect_stderr_contains "interrupted"
expect_no_file term.wav
expect_no_temp .

t "SIGINT: temp file removed, exit 130"
interrupt INT int.wav
expect_exit 130
expect_no_file int.wav
expect_no_temp .

finish
