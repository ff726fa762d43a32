#!/usr/bin/env bash
# fxkit under a real Slurm: a one-node cluster (munge, slurmctld, slurmd) started
# and stopped here. `sbatch --array=0-3` of one fxkit command over 40 images does
# every image exactly once with the bytes of a one-process run; an array task killed
# halfway (scancel) leaves only whole outputs, and the array rerun with
# --skip-existing does exactly what is missing.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/batch_checks.sh"
source "$(dirname "$0")/slurm_cluster.sh"

if ! why=$(slurm_have_tools); then
    echo "test_slurm: $why" >&2
    exit 1
fi
trap slurm_stop EXIT
make_inputs

t "a one-node Slurm cluster starts"
# In this shell, not a $(…) subshell: it exports SLURM_CONF for the commands below.
if ! slurm_start "$WORK/cluster" >cluster-start.log 2>&1; then
    fail "$(cat cluster-start.log)"
    finish
fi
pass
TASKS=4

# The array's job script: every task runs the same command line; the shard comes from
# SLURM_ARRAY_TASK_ID and the array's size.
cat >job.sh <<JOB
#!/bin/bash
exec "$FXKIT" ${KERNEL[*]} "$WORK"/in/*.png -o "\$OUTDIR/" --report "\$OUTDIR.rep-{shard}.json" \$EXTRA
JOB
chmod +x job.sh

t "sbatch --array=0-3: every image once, the one-process bytes"
export OUTDIR="$WORK/out" EXTRA=""
run slurm_run --array=0-$((TASKS - 1)) -o "$WORK/slurm-%A_%a.log" \
    "$WORK/job.sh"
expect_exit 0
check_outputs out
expect_equal "$(done_items out.rep-*.json | tr '\n' ' ')" "$(ls ref | tr '\n' ' ')" \
    "the reports list each image done once"
expect_equal "$(ls out.rep-*.json | wc -l)" "$TASKS"
run python3 -c 'import json,sys; print(sorted(json.load(open(f))["shard"]["count"] for f in sys.argv[1:]))' \
    out.rep-*.json
expect_stdout_contains "[4, 4, 4, 4]"

t "an array task killed halfway, then the array rerun with --skip-existing"
# Sorted rank 29 belongs to task 29 % 4 = 1, after its ranks 1, 5, …, 25: seven done.
BLOCKED=$(block_input 29)
export OUTDIR="$WORK/kill" EXTRA=""
run sbatch --parsable --array=0-$((TASKS - 1)) \
    -o "$WORK/slurm-%A_%a.log" "$WORK/job.sh"
expect_exit 0
JOB_ID=$(cut -d';' -f1 <"$OUT")
if wait_for_files kill $((INPUTS - 3)) 60; then pass; else fail "the other tasks did not finish"; fi
scancel "${JOB_ID}_1"
if slurm_wait_idle 30; then pass; else fail "the killed task did not end"; fi
expect_equal "$(ls kill | wc -l)" $((INPUTS - 3)) "outputs after the kill"
expect_no_temp kill
expect_no_file kill.rep-1.json
BEFORE=$(file_stamps kill)
unblock_input "$BLOCKED"
export OUTDIR="$WORK/kill" EXTRA="--skip-existing"
run slurm_run --array=0-$((TASKS - 1)) \
    -o "$WORK/slurm-%A_%a.log" "$WORK/job.sh"
expect_exit 0
check_outputs kill
expect_equal "$(done_items kill.rep-*.json | tr '\n' ' ')" "gen_0030.png gen_0034.png gen_0038.png " \
    "the rerun did exactly the missing three"
# Outputs of the first run were not written again: same inode and time.
AFTER=$(file_stamps kill | grep -v -e gen_0030 -e gen_0034 -e gen_0038)
expect_equal "$AFTER" "$BEFORE" "earlier outputs untouched"

finish
