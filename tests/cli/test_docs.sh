#!/usr/bin/env bash
# docs/OPTIONS.md is generated from the option tables (scripts/options-doc.sh):
# it must match what this program prints, so the docs never drift from the code.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
root=$(cd "$CLI_TESTS/../.." && pwd)

t "docs/OPTIONS.md matches the program's --help"
run bash "$root/scripts/options-doc.sh" "$FXKIT"
if diff -u "$root/docs/OPTIONS.md" "$OUT" >"$WORK/options.diff"; then
    pass
else
    fail "docs/OPTIONS.md is stale; regenerate it with: scripts/options-doc.sh build/fxkit > docs/OPTIONS.md"
    head -n 40 "$WORK/options.diff" >&2
fi

t "every job listed by --help is in the reference"
run "$FXKIT" --help
for job in $(awk '/^Jobs:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{exit}' "$OUT" | sort -u); do
    if grep -q "^## fxkit $job" "$root/docs/OPTIONS.md"; then pass; else fail "job '$job' missing"; fi
done

t "README's first two commands are make demo and make test"
cmds=$(awk '/^```sh/{on=1; next} /^```/{if(on) exit} on' "$root/README.md" | awk '{print $1, $2}')
if [ "$cmds" = "$(printf 'make demo\nmake test')" ]; then pass; else fail "README starts with: $cmds"; fi

finish
