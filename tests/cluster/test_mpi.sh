#!/usr/bin/env bash
# fxkit under Open MPI: `mpirun -n 3 --oversubscribe fxkit …` over 40 images, each rank
# taking its shard from OMPI_COMM_WORLD_RANK/_SIZE: every image exactly once with the
# bytes of a one-process run; a rank killed halfway leaves only whole outputs, and the
# same mpirun line with --skip-existing does exactly what is missing.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/batch_checks.sh"

if ! command -v mpirun >/dev/null; then
    echo "test_mpi: missing mpirun (scripts/install-deps.sh installs openmpi-bin)" >&2
    exit 1
fi
RANKS=3
MPIRUN=(mpirun -n "$RANKS" --oversubscribe)
# Open MPI refuses root unless told; CI machines and containers often are root.
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
make_inputs

t "mpirun -n 3: every image once, the one-process bytes"
run "${MPIRUN[@]}" "$FXKIT" "${KERNEL[@]}" in/*.png -o out/ --report 'out.rep-{shard}.json'
expect_exit 0
check_outputs out
expect_equal "$(done_items out.rep-*.json | tr '\n' ' ')" "$(ls ref | tr '\n' ' ')" \
    "the reports list each image done once"
run python3 -c 'import json,sys; print(sorted(json.load(open(f))["shard"]["source"].split("=")[0] for f in sys.argv[1:]))' \
    out.rep-*.json
expect_stdout_contains "['OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_RANK']"

t "a rank killed halfway, then the same line with --skip-existing"
# Sorted rank 31 belongs to rank 31 % 3 = 1, after its ranks 1, 4, …, 28: ten done;
# 34 and 37 come after it.
BLOCKED=$(block_input 31)
"${MPIRUN[@]}" "$FXKIT" "${KERNEL[@]}" in/*.png -o kill/ --report 'kill.rep-{shard}.json' \
    >mpi.log 2>&1 &
MPI_PID=$!
if wait_for_files kill $((INPUTS - 3)) 60; then pass; else fail "the other ranks did not finish"; fi
# The rank blocked on the FIFO: the fxkit process whose environment says rank 1.
victim=""
for pid in $(pgrep -f "$FXKIT" || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then
        victim=$pid
    fi
done
if [ -n "$victim" ]; then pass; else fail "no process of rank 1 found"; fi
[ -n "$victim" ] && kill -TERM "$victim"
set +e
wait "$MPI_PID"
rc=$?
set -e
expect_not_equal "$rc" 0 "mpirun reports the killed rank"
expect_equal "$(ls kill | wc -l)" $((INPUTS - 3)) "outputs after the kill"
expect_no_temp kill
expect_no_file kill.rep-1.json
BEFORE=$(file_stamps kill)
unblock_input "$BLOCKED"
run "${MPIRUN[@]}" "$FXKIT" "${KERNEL[@]}" in/*.png -o kill/ --report 'kill.rep-{shard}.json' \
    --skip-existing
expect_exit 0
check_outputs kill
expect_equal "$(done_items kill.rep-*.json | tr '\n' ' ')" "gen_0032.png gen_0035.png gen_0038.png " \
    "the rerun did exactly the missing three"
AFTER=$(file_stamps kill | grep -v -e gen_0032 -e gen_0035 -e gen_0038)
expect_equal "$AFTER" "$BEFORE" "earlier outputs untouched"

finish
