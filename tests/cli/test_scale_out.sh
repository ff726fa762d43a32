#!/usr/bin/env bash
# Scale-out through the program: --shard over every K of N (N = 1…5) covers each input
# exactly once with the bytes of a one-process run, the launcher's variables give the
# same shards, --skip-existing reruns do only what is missing, --report says what
# happened, and the CPU thread count follows taskset, a cgroup quota (where this machine
# lets us make one) and SLURM_CPUS_PER_TASK. The real Slurm and MPI runs are in
# tests/cluster.
source "$(dirname "$0")/lib.sh"

# 13 small images: a count no N of 2…5 divides.
"$FXKIT" gen image --count 13 --size 40x30 -o in/ -q
KERNEL=(-k gaussian:3 -q)

t "one process: the reference"
fx filter "${KERNEL[@]}" in/*.png -o ref/
expect_exit 0

# The outputs of every shard K of N, each in its own folder; then every name must be
# in exactly one folder, with the reference's bytes.
check_cover() {
    local n=$1 shard_dirs=() k name count
    for ((k = 0; k < n; k++)); do shard_dirs+=("n$n/k$k"); done
    for name in ref/*.png; do
        name=$(basename "$name")
        count=0
        for d in "${shard_dirs[@]}"; do
            if [ -f "$d/$name" ]; then
                count=$((count + 1))
                expect_equal "$(sha "$d/$name")" "$(sha "ref/$name")" "$d/$name"
            fi
        done
        expect_equal "$count" 1 "N=$n $name done $count times"
    done
}

for n in 1 2 3 4 5; do
    t "--shard K/$n covers every input once"
    for ((k = 0; k < n; k++)); do
        fx filter "${KERNEL[@]}" in/*.png -o "n$n/k$k/" --shard "$k/$n"
        expect_exit 0
    done
    check_cover "$n"
done

t "the xargs recipe of docs/CLUSTER.md"
printf '%s\n' 0 1 2 3 | run xargs -P 4 -I{} sh -c '"$0" filter -k gaussian:3 -q --threads 1 in/*.png -o xargs/ --shard {}/4' "$FXKIT"
expect_exit 0
for f in ref/*.png; do expect_equal "$(sha "xargs/${f#ref/}")" "$(sha "$f")" "xargs/${f#ref/}"; done

t "shards do not depend on the order of the command line"
fx filter "${KERNEL[@]}" $(ls in/*.png | sort -r) -o rev/ --shard 1/3
expect_exit 0
expect_equal "$(ls rev | tr '\n' ' ')" "$(ls n3/k1 | tr '\n' ' ')"

t "Slurm array variables give the shard"
SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3 SLURM_ARRAY_TASK_COUNT=4 \
    run "$FXKIT" filter "${KERNEL[@]}" in/*.png -o slurm/
expect_exit 0
expect_equal "$(ls slurm | tr '\n' ' ')" "$(ls n4/k2 | tr '\n' ' ')"

t "Open MPI variables give the shard"
OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=5 run "$FXKIT" filter "${KERNEL[@]}" in/*.png -o ompi/
expect_exit 0
expect_equal "$(ls ompi | tr '\n' ' ')" "$(ls n5/k0 | tr '\n' ' ')"

t "PMI variables give the shard"
PMI_RANK=1 PMI_SIZE=2 run "$FXKIT" filter "${KERNEL[@]}" in/*.png -o pmi/
expect_exit 0
expect_equal "$(ls pmi | tr '\n' ' ')" "$(ls n2/k1 | tr '\n' ' ')"

t "a Kubernetes index needs the count"
JOB_COMPLETION_INDEX=2 run "$FXKIT" filter "${KERNEL[@]}" in/*.png -o k8s/
expect_exit 2
expect_stderr_contains "--shard auto/N"
expect_no_file k8s
JOB_COMPLETION_INDEX=2 run "$FXKIT" filter "${KERNEL[@]}" in/*.png -o k8s/ --shard auto/3
expect_exit 0
expect_equal "$(ls k8s | tr '\n' ' ')" "$(ls n3/k2 | tr '\n' ' ')"

t "the batch script of sbatch -n 4 is one process and does everything"
SLURM_PROCID=0 SLURM_NTASKS=4 run "$FXKIT" filter "${KERNEL[@]}" in/*.png -o batchstep/
expect_exit 0
expect_equal "$(ls batchstep | wc -l)" 13

t "--shard all ignores the launcher"
OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=3 run "$FXKIT" filter "${KERNEL[@]}" in/*.png -o all/ \
    --shard all
expect_exit 0
expect_equal "$(ls all | wc -l)" 13

t "bad shards are usage errors naming the problem"
fx filter "${KERNEL[@]}" in/*.png -o bad/ --shard 3/3
expect_exit 2
expect_stderr_contains "not below the count"
fx filter "${KERNEL[@]}" in/*.png -o bad/ --shard 1:3
expect_exit 2
expect_stderr_contains "not K/N"
expect_no_file bad

t "only the shard's refusals are reported"
mkdir -p miss
cp in/gen_0002.png in/gen_0003.png in/gen_0004.png miss/
fx filter "${KERNEL[@]}" miss/gen_0002.png miss/gen_0003.png miss/gen_0004.png miss/gen_0005.png \
    -o missout/ --shard 0/2
# Sorted: 0002 0003 0004 0005 → shard 0 has 0002 and 0004; 0005 (missing) is shard 1's.
expect_exit 0
expect_equal "$(ls missout | tr '\n' ' ')" "gen_0002.png gen_0004.png "
fx filter "${KERNEL[@]}" miss/gen_0002.png miss/gen_0003.png miss/gen_0004.png miss/gen_0005.png \
    -o missout1/ --shard 1/2
expect_exit 1
expect_stderr_contains "miss/gen_0005.png"
expect_file missout1/gen_0003.png

t "--skip-existing does only what is missing, and the report says so"
mkdir -p partial
cp ref/gen_0001.png ref/gen_0005.png partial/
: >partial/gen_0007.png # exists: skipped even though empty (outputs are atomic)
fx filter "${KERNEL[@]}" in/*.png -o partial/ --skip-existing --report partial.json
expect_exit 0
expect_equal "$(ls partial | wc -l)" 13
expect_equal "$(stat -c %s partial/gen_0007.png)" 0 "an existing output is left alone"
python3 - partial.json <<'EOF' >"$OUT" 2>"$ERR"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["counts"]
print("counts", c["items"], c["done"], c["existing"], c["failed"], c["refused"])
s = {i["output"].split("/")[-1]: i["status"] for i in r["items"]}
print("existing", " ".join(sorted(k for k, v in s.items() if v == "existing")))
done = [i for i in r["items"] if i["status"] == "done"]
print("stages", all(i["width"] == 40 and i["height"] == 30 and i["decode_ms"] >= 0 for i in done))
print("shard", r["shard"]["index"], r["shard"]["count"])
EOF
expect_stdout_contains "counts 13 10 3 0 0"
expect_stdout_contains "existing gen_0001.png gen_0005.png gen_0007.png"
expect_stdout_contains "stages True"
expect_stdout_contains "shard 0 1"

t "a rerun with everything there runs nothing and still reports"
fx filter "${KERNEL[@]}" in/*.png -o partial/ --skip-existing --report again.json
expect_exit 0
expect_equal "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["existing"])' again.json)" 13

t "--skip-existing and --in-place contradict each other"
fx filter "${KERNEL[@]}" in/gen_0001.png --in-place --skip-existing
expect_exit 2
expect_stderr_contains "--skip-existing"

t "failures and refusals are in the report with their messages"
printf 'P6\n40 30\n255\nshort' >in_bad.ppm
fx filter "${KERNEL[@]}" in/gen_0001.png in_bad.ppm nothere.png -o rep/ --report rep.json
expect_exit 1
python3 - rep.json <<'EOF' >"$OUT" 2>"$ERR"
import json, sys
r = json.load(open(sys.argv[1]))
for i in r["items"]:
    print(i["input"], i["status"], bool(i.get("error")))
EOF
expect_stdout_contains "in/gen_0001.png done False"
expect_stdout_contains "in_bad.ppm failed True"
expect_stdout_contains "nothere.png refused True"

t "a report that cannot be written fails the run"
fx filter "${KERNEL[@]}" in/gen_0001.png -o rep2/ --report "$(unwritable_dir)/r.json"
expect_exit 1
expect_stderr_contains "cannot write the report"
expect_no_temp .

t "--device lists are checked"
fx filter "${KERNEL[@]}" in/gen_0001.png -o dev/ --device gpu:0,x
expect_exit 2
expect_stderr_contains "gpu:0,x"
if ! "$FXKIT" info | grep -q '^GPU 0'; then
    t "gpu:all without a GPU is a usage error, nothing written"
    fx filter "${KERNEL[@]}" in/gen_0001.png -o dev/ --device gpu:all
    expect_exit 2
    expect_stderr_contains "gpu:all"
    expect_no_file dev/gen_0001.png
fi

t "threads follow the affinity mask"
if command -v taskset >/dev/null; then
    run taskset -c 0 "$FXKIT" info
    expect_stdout_contains "CPU threads: 1 (from the CPU affinity"
fi

t "threads follow SLURM_CPUS_PER_TASK"
SLURM_CPUS_PER_TASK=1 run "$FXKIT" info --json
expect_stdout_contains '"cpu_threads": 1,'
if [ "$(nproc)" -gt 1 ]; then expect_stdout_contains '"cpu_threads_from": "SLURM_CPUS_PER_TASK"'; fi

# A cgroup with a quota of half a CPU, where this machine lets us make one (root, a
# writable cgroup v1 cpu controller or a v2 tree with cpu delegated).
cgroup_dir=""
if [ -w /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
    cgroup_dir=/sys/fs/cgroup/cpu/fxkit-test-$$
    mkdir "$cgroup_dir" 2>/dev/null && echo 50000 >"$cgroup_dir/cpu.cfs_quota_us" 2>/dev/null ||
        cgroup_dir=""
elif [ -w /sys/fs/cgroup ] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
    cgroup_dir=/sys/fs/cgroup/fxkit-test-$$
    mkdir "$cgroup_dir" 2>/dev/null && echo "50000 100000" >"$cgroup_dir/cpu.max" 2>/dev/null ||
        cgroup_dir=""
fi
if [ -n "$cgroup_dir" ]; then
    t "threads follow a cgroup CPU quota"
    run sh -c 'echo $$ >"$1/cgroup.procs" 2>/dev/null || echo $$ >"$1/tasks"; exec "$2" info' \
        sh "$cgroup_dir" "$FXKIT"
    expect_stdout_contains "CPU threads: 1 (from the cgroup CPU quota"
    rmdir "$cgroup_dir" 2>/dev/null || true
else
    echo "note: no writable cgroup here; the quota case is covered where one is" >&2
fi

t "every batch job takes shards: gen, normalize, equalize, convert"
fx gen image --count 6 --size 8x8 -o genshard/ --shard 1/2
expect_exit 0
expect_equal "$(ls genshard | tr '\n' ' ')" "gen_0002.png gen_0004.png gen_0006.png "
fx gen audio --count 4 --duration 1 -o wav/
expect_exit 0
fx normalize wav/*.wav -o normshard/ --shard 0/2 --report norm.json
expect_exit 0
expect_equal "$(ls normshard | tr '\n' ' ')" "gen_0001.wav gen_0003.wav "
fx normalize wav/*.wav -o normshard/ --skip-existing
expect_exit 0
expect_equal "$(ls normshard | wc -l)" 4
fx equalize in/*.png -o eqshard/ --shard 2/3
expect_exit 0
expect_equal "$(ls eqshard | tr '\n' ' ')" "$(ls n3/k2 | tr '\n' ' ')"
fx convert in/*.png --to ppm -o convshard/ --shard 0/4
expect_exit 0
expect_equal "$(ls convshard | sed 's/ppm$/png/' | tr '\n' ' ')" "$(ls n4/k0 | tr '\n' ' ')"

t "fxkit info shows the launcher's shard"
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 run "$FXKIT" info
expect_stdout_contains "shard: 1/4 (SLURM_ARRAY_TASK_ID=1"
JOB_COMPLETION_INDEX=1 run "$FXKIT" info
expect_exit 0
expect_stdout_contains "a batch would refuse to start"

finish
