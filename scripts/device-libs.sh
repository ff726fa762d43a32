#!/usr/bin/env bash
# Collect the shared libraries that a build made here needs and a bare GPU
# machine lacks (the codecs: libspng, libturbojpeg, libsndfile and what
# libsndfile pulls in), so that the build runs there with
#
#     LD_LIBRARY_PATH=$PWD/.devlibs/lib build-gpu/fxkit ...
#
# usage: scripts/device-libs.sh [BINARY...]      (default: build/fxkit)
#        DEVLIBS=DIR to put them elsewhere than .devlibs/lib
#
# The packages are found from the binaries' ldd output (dpkg -S), downloaded with
# `apt-get download` (no root needed) and unpacked with `dpkg -x`; nothing is
# installed. Libraries every machine has (C library, compiler runtime, zlib) are
# left out.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${DEVLIBS:-$root/.devlibs/lib}
binaries=("$@")
[ ${#binaries[@]} -gt 0 ] || binaries=("$root/build/fxkit")

# Present on any machine that runs the build: never shipped.
base_packages='^(libc6|libgcc-s1|libstdc\+\+6|zlib1g|libzstd1|liblzma5|libcrypt1)$'
# Shipped even when ldd cannot tell (the binary not built yet).
default_packages="libspng0 libturbojpeg0 libsndfile1 libflac12 libvorbis0a libvorbisenc2 libogg0 libopus0 libmpg123-0 libmp3lame0"

packages=()
for bin in "${binaries[@]}"; do
    if [ ! -e "$bin" ]; then
        echo "device-libs: $bin does not exist; using the default package list" >&2
        continue
    fi
    while read -r lib; do
        real=$(readlink -f "$lib")
        pkg=$(dpkg -S "$real" 2>/dev/null | head -n1 | cut -d: -f1) || true
        [ -n "$pkg" ] || pkg=$(dpkg -S "$lib" 2>/dev/null | head -n1 | cut -d: -f1) || true
        if [ -z "$pkg" ]; then
            echo "device-libs: no package owns $lib; skipped" >&2
            continue
        fi
        [[ $pkg =~ $base_packages ]] || packages+=("$pkg")
    done < <(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
done
if [ ${#packages[@]} -eq 0 ]; then
    read -r -a packages <<<"$default_packages"
fi
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$work/debs" "$work/root"
# apt drops root rights to _apt for downloads: let it write there.
chmod 755 "$work" "$work/debs"
echo "device-libs: ${packages[*]}"
(cd "$work/debs" && apt-get download "${packages[@]}" >/dev/null)
for deb in "$work"/debs/*.deb; do
    dpkg -x "$deb" "$work/root"
done
# The libraries and their soname links, links kept as links.
find "$work/root" \( -type f -o -type l \) -name 'lib*.so.*' -exec cp -a {} "$out"/ \;
echo "device-libs: $(find "$out" -name 'lib*.so.*' | wc -l) files in $out ($(du -sh "$out" | cut -f1))"
