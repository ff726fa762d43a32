#!/usr/bin/env bash
# The progress bar: drawn on a terminal (a pseudo-terminal from `script`), moving
# within one long file, never drawn when stderr is not a terminal or with --quiet.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || { echo "skipped: no 'script' command for a terminal"; exit 77; }

# Well past the bar's half-second delay: 40 minutes of synthesised speech (230 MB) took
# 1.2-1.9 s on the 2-core dev machine; white noise, which took 0.4-1.1 s there, sometimes
# ended before the bar was drawn twice (2026-11-27).
long_audio=(gen audio --kind speech --duration 2400 --rate 48000 --channels 1 --sample-format s16)

t "on a terminal, one long file shows a moving bar"
run script -qec "$FXKIT ${long_audio[*]} -o $WORK/long.wav" "$WORK/typescript"
expect_exit 0
bars=$(tr '\r' '\n' <"$WORK/typescript" | grep -cE '^\[[#-]{30}\] +[0-9]+%  0/1 files' || true)
if [ "$bars" -ge 2 ]; then pass; else fail "expected a bar redrawn while the file runs, saw $bars"; fi
percents=$(tr '\r' '\n' <"$WORK/typescript" | grep -oE '\] +[0-9]+%' | tr -dc '0-9\n' | sort -n | uniq | wc -l)
if [ "$percents" -ge 2 ]; then pass; else fail "the percentage did not move"; fi
rm -f "$WORK/long.wav"

t "--quiet on a terminal draws nothing"
run script -qec "$FXKIT ${long_audio[*]} --quiet -o $WORK/long2.wav" "$WORK/typescript2"
expect_exit 0
if grep -q 'files,' "$WORK/typescript2"; then fail "a bar was drawn with --quiet"; else pass; fi
rm -f "$WORK/long2.wav"

t "stderr that is not a terminal gets no bar"
fx "${long_audio[@]}" -o "$WORK/long3.wav"
expect_exit 0
if grep -q 'files,' "$ERR"; then fail "a bar was drawn into a file"; else pass; fi
rm -f "$WORK/long3.wav"

finish
