# Shared helpers of the CLI tests (sourced by tests/cli/test_*.sh).
#
# Environment (set by CTest): FXKIT = the program, FXKIT_SAMPLES = samples folder,
# FXKIT_TMP = a scratch folder of this script's own.
#
# A test names itself with `t "what it checks"`, runs the program with `run ...`
# (which never stops the script, whatever the exit code) and checks with expect_*.
# Each check counts as passed or failed; `finish` prints "N passed, N failed" and
# exits non-zero when anything failed. Exit 77 means skipped.
set -euo pipefail

: "${FXKIT:?FXKIT must name the fxkit program}"
: "${FXKIT_SAMPLES:?FXKIT_SAMPLES must name the samples folder}"
FXKIT_TMP=${FXKIT_TMP:-/tmp/fxkit-cli-tests-$$}
# shellcheck disable=SC2034 # used by the scripts that source this file
SAMPLES=$FXKIT_SAMPLES
# This folder, absolute: the scripts run inside the scratch folder.
# shellcheck disable=SC2034
CLI_TESTS=$(cd "$(dirname "$0")" && pwd)

# Fresh scratch folder, removed again at the end when everything passed.
WORK=$FXKIT_TMP
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

PASSED=0
FAILED=0
TEST_NAME="(unnamed)"
RC=0
OUT="$WORK/.stdout"
ERR="$WORK/.stderr"

t() { TEST_NAME=$*; }

pass() { PASSED=$((PASSED + 1)); }
fail() {
    FAILED=$((FAILED + 1))
    echo "FAIL: $TEST_NAME: $*" >&2
    if [ -s "$ERR" ]; then sed 's/^/    stderr: /' "$ERR" | head -n 20 >&2; fi
}

# Run a command, keeping its stdout, stderr and exit code (in RC).
run() {
    set +e
    "$@" >"$OUT" 2>"$ERR"
    RC=$?
    set -e
}

# fxkit with arguments.
fx() { run "$FXKIT" "$@"; }

expect_exit() {
    if [ "$RC" -eq "$1" ]; then pass; else fail "exit code $RC, expected $1"; fi
}

expect_stderr_contains() {
    if grep -qF -- "$1" "$ERR"; then pass; else fail "stderr lacks '$1'"; fi
}

expect_stderr_lacks() {
    if ! grep -qF -- "$1" "$ERR"; then pass; else fail "stderr has '$1'"; fi
}

expect_stderr_empty() {
    if [ ! -s "$ERR" ]; then pass; else fail "stderr is not empty"; fi
}

expect_stdout_contains() {
    if grep -qF -- "$1" "$OUT"; then pass; else fail "stdout lacks '$1'"; fi
}

# Like expect_stdout_contains, with runs of spaces and line breaks read as one
# space (help text is wrapped to the terminal width).
expect_text_contains() {
    if tr -s ' \n' '  ' <"$OUT" | grep -qF -- "$1"; then pass; else fail "stdout lacks '$1'"; fi
}

expect_stdout_matches() {
    if grep -qE -- "$1" "$OUT"; then pass; else fail "stdout does not match /$1/"; fi
}

expect_file() {
    if [ -f "$1" ]; then pass; else fail "no file '$1'"; fi
}

expect_no_file() {
    if [ ! -e "$1" ]; then pass; else fail "'$1' exists but should not"; fi
}

# No temporary output (.NAME.fxtmp-PID-N.ext) left anywhere under a folder.
expect_no_temp() {
    local left
    left=$(find "${1:-.}" -name '*.fxtmp-*' 2>/dev/null | head -n 5)
    if [ -z "$left" ]; then pass; else fail "temporary files left: $left"; fi
}

expect_equal() {
    if [ "$1" = "$2" ]; then pass; else fail "'$1' != '$2'${3:+ ($3)}"; fi
}

expect_not_equal() {
    if [ "$1" != "$2" ]; then pass; else fail "both are '$1'${3:+ ($3)}"; fi
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# ---- reading headers with plain tools (never with fxkit itself) ----

# "MAGIC WIDTH HEIGHT MAXVAL" of a binary PNM file (comments not expected).
pnm_header() {
    head -c 64 "$1" | tr -s ' \t\r\n' '    ' | cut -d' ' -f1-4
}

# sha256 of the pixel bytes of a P5/P6 file: the last WIDTH*HEIGHT*C*BYTES bytes.
pnm_pixel_sha() {
    local magic w h max channels bytes
    read -r magic w h max <<<"$(pnm_header "$1")"
    channels=1
    [ "$magic" = P6 ] && channels=3
    bytes=1
    [ "$max" -gt 255 ] && bytes=2
    tail -c $((w * h * channels * bytes)) "$1" | sha256sum | cut -d' ' -f1
}

# Unsigned little/big-endian integers at an offset: u32le FILE OFFSET.
u16le() { od -An -tu2 --endian=little -j "$2" -N2 "$1" | tr -d ' '; }
u32le() { od -An -tu4 --endian=little -j "$2" -N4 "$1" | tr -d ' '; }
u32be() { od -An -tu4 --endian=big -j "$2" -N4 "$1" | tr -d ' '; }
u8at() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }

# "WIDTH HEIGHT BITDEPTH COLORTYPE" from a PNG's IHDR (color type 0 gray, 2 RGB,
# 4 gray+alpha, 6 RGBA).
png_header() {
    echo "$(u32be "$1" 16) $(u32be "$1" 20) $(u8at "$1" 24) $(u8at "$1" 25)"
}

# Offset and size of a RIFF/WAVE chunk: "OFFSET SIZE" of its body, or nothing.
wav_chunk() {
    local file=$1 want=$2 pos=12 size id total
    total=$(stat -c %s "$file")
    while [ $((pos + 8)) -le "$total" ]; do
        id=$(dd if="$file" bs=1 skip="$pos" count=4 status=none)
        size=$(u32le "$file" $((pos + 4)))
        if [ "$id" = "$want" ]; then
            echo "$((pos + 8)) $size"
            return 0
        fi
        pos=$((pos + 8 + size + (size & 1)))
    done
    return 1
}

# "FORMATTAG CHANNELS RATE BITS" of a WAV file (1 PCM, 3 float, 65534 extensible).
wav_format() {
    local off size
    read -r off size <<<"$(wav_chunk "$1" 'fmt ')"
    echo "$(u16le "$1" "$off") $(u16le "$1" $((off + 2))) $(u32le "$1" $((off + 4))) $(u16le "$1" $((off + 14)))"
}

# sha256 of the sample bytes (the data chunk) of a WAV file.
wav_data_sha() {
    local off size
    read -r off size <<<"$(wav_chunk "$1" data)"
    tail -c +$((off + 1)) "$1" | head -c "$size" | sha256sum | cut -d' ' -f1
}

# Root ignores folder permissions, so an unwritable place is a path below a file.
unwritable_dir() {
    mkdir -p "$WORK/readonly"
    chmod 555 "$WORK/readonly"
    if touch "$WORK/readonly/.probe" 2>/dev/null; then
        rm -f "$WORK/readonly/.probe"
        : >"$WORK/not-a-folder"
        echo "$WORK/not-a-folder/sub"
    else
        echo "$WORK/readonly"
    fi
}

finish() {
    echo "$(basename "$0"): $PASSED passed, $FAILED failed"
    chmod -R u+w "$WORK" 2>/dev/null || true
    if [ "$FAILED" -ne 0 ]; then exit 1; fi
    exit 0
}
