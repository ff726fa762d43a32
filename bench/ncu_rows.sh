#!/usr/bin/env bash
# Nsight Compute over issue 26's rows (bench/gpu_rows.c): for each row, every kernel it
# launches with its time, achieved DRAM bandwidth, DRAM and SM throughput (% of the
# GPU's peak) and occupancy, and what bounds it; a markdown table on stdout.
#
# usage: bench/ncu_rows.sh BUILD_DIR [ROW...]     (default: every row; ncu from PATH or
#        /usr/local/cuda/bin; needs the GPU's performance counters: root, or
#        NVreg_RestrictProfilingToAdminUsers=0)
set -euo pipefail
build=$1
shift
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(box3 gauss3 box121 gauss121 float31 float121 eq-gray eq-hsv clahe)
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
[ -x "$ncu" ] || { echo "ncu_rows: no ncu (Nsight Compute) found" >&2; exit 1; }
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1); $("$ncu" --version | tail -n1)"
echo
echo "| row | kernel | ms | DRAM GB/s | DRAM % peak | SM % peak | occupancy % | bound by |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
for row in "${rows[@]}"; do
    if ! "$ncu" --profile-from-start off --metrics "$metrics" --csv --print-units base \
        "$build/bench/gpu_rows" "$row" >"$tmp/$row.csv" 2>"$tmp/$row.err"; then
        echo "| $row | ncu failed: $(tail -n1 "$tmp/$row.err") | | | | | | |"
        continue
    fi
    python3 - "$row" "$tmp/$row.csv" <<'PY'
import csv, sys, collections
row, path = sys.argv[1], sys.argv[2]
lines = [l for l in open(path) if l.startswith('"')]
kernels = collections.OrderedDict()
for r in csv.DictReader(lines):
    k = kernels.setdefault(r["ID"], {"name": r["Kernel Name"]})
    value = float(r["Metric Value"].replace(",", "")) if r["Metric Value"] not in ("", "n/a") else 0.0
    unit = r["Metric Unit"]
    # times in ms, sizes in bytes (--print-units base gives ns and byte; the others in case)
    scale = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0,
             "msecond": 1.0, "s": 1e3, "second": 1e3, "b": 1, "byte": 1, "kb": 1e3,
             "kbyte": 1e3, "mb": 1e6, "mbyte": 1e6, "gb": 1e9, "gbyte": 1e9}.get(unit.lower(), 1.0)
    k[r["Metric Name"]] = value * scale
def bound(k):
    d, s = k.get("dram__throughput.avg.pct_of_peak_sustained_elapsed", 0), k.get("sm__throughput.avg.pct_of_peak_sustained_elapsed", 0)
    if max(d, s) < 40: return "latency (neither above 40%)"
    return "DRAM bandwidth" if d >= s else "SM throughput"
total = 0.0
for k in kernels.values():
    ms = k.get("gpu__time_duration.sum", 0)
    total += ms
    gbs = (k.get("dram__bytes_read.sum", 0) + k.get("dram__bytes_write.sum", 0)) / (ms * 1e-3) / 1e9 if ms else 0
    name = k["name"].split("(")[0][:60]
    print(f"| {row} | `{name}` | {ms:.3f} | {gbs:.0f} | "
          f"{k.get('dram__throughput.avg.pct_of_peak_sustained_elapsed', 0):.0f} | "
          f"{k.get('sm__throughput.avg.pct_of_peak_sustained_elapsed', 0):.0f} | "
          f"{k.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):.0f} | {bound(k)} |")
if len(kernels) > 1:
    print(f"| {row} | all {len(kernels)} kernels | {total:.3f} | | | | | |")
if not kernels:
    print(f"| {row} | no kernel profiled | | | | | | |")
PY
done
