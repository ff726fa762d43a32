#!/bin/sh
# Compiles one 8-bit kernel file's kernels (the file cut before its host code) with
# emu_cuda.h's stand-ins for CUDA, links them into an emulation driver and runs it
# (run_walk4_emu.sh, run_box_emu.sh). Exit 77 (a skip in ctest) without a C++ compiler.
# Usage: tests/emu/emulate.sh NAME SOURCE.cu CUT_LINE DRIVER.cpp [COMPILER FLAGS...]
#   CUT_LINE: a sed pattern of the first line of host code (not kept); the kernels are
#   written to NAME_kernels.inc, which the driver includes. Environment: CXX (default
#   g++), CUDA_INC (the CUDA headers, for dim3/uint3), EMU_CFLAGS (more flags, e.g.
#   -fsanitize=address), TMPDIR.
set -e
NAME=$1 SRC=$2 CUT=$3 DRIVER=$4
shift 4
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CXX=${CXX:-g++}
command -v "$CXX" >/dev/null 2>&1 || { echo "$NAME emulation: no C++ compiler ($CXX): skipped"; exit 77; }
mkdir -p "${TMPDIR:-/tmp}"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/fxkit_${NAME}_emu.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
sed -n "1,/$CUT/p" "$SRC" | sed '$d' > "$OUT/${NAME}_kernels.inc"
echo "} /* namespace */" >> "$OUT/${NAME}_kernels.inc"
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
"$CXX" -O1 -ffp-contract=off -w "$@" ${EMU_CFLAGS:-} -DFXKIT_HAVE_CUDA=1 -I"$ROOT/src" \
    -I"$ROOT/include" -I"$CUDA_INC" -I"$OUT" -I"$ROOT/tests/emu" -include emu_cuda.h \
    "$DRIVER" -o "$OUT/${NAME}_emu"
"$OUT/${NAME}_emu"
