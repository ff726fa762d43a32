#!/usr/bin/env bash
# Install into a scratch prefix, then build the README's API example against the
# installed headers and pkg-config file, and run it on a sample: the install
# target, fxkit.pc and the public headers must be enough for a user.
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib64/pkgconfig:$(find "$tmp/prefix" -name pkgconfig -type d | tr '\n' ':')"
passed=0 failed=0
check() { if "$@"; then passed=$((passed + 1)); else echo "FAIL: $*" >&2; failed=$((failed + 1)); fi; }
check test -x "$tmp/prefix/bin/fxkit"
check test -f "$tmp/prefix/include/fxkit/fxkit.h"
check test "$(pkg-config --modversion fxkit)" = "$("$tmp/prefix/bin/fxkit" --version | head -1 | awk '{print $2}')"
# Link against the installed shared library, as a user would.
cflags=$(pkg-config --cflags fxkit)
libdir=$(pkg-config --variable=libdir fxkit)


check cc -std=c11 -Wall -Wextra -Werror "$src/examples/api_example.c" $cflags \
  $(pkg-config --libs fxkit) -Wl,-rpath,"$libdir" -o "$tmp/api_example"
check "$tmp/api_example" "$src/samples/coffee.png" "$tmp/coffee.pfm"
check test "$(head -c 2 "$tmp/coffee.pfm")" = "PF"
echo "$passed passed, $failed failed"
((failed == 0))
