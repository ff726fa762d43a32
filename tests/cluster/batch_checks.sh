# Checks shared by the cluster tests (sourced after tests/cli/lib.sh): a folder of
# inputs and its one-process reference, "every output exactly once with the
# reference's bytes" read from the shards' --report files, and a shard stopped
# halfway: one input is replaced by a FIFO, so that the process that reaches it
# blocks there with its earlier items done, to be killed at that point.

INPUTS=40
KERNEL=(filter -k gaussian:3 -q -j 1)

# in/ with $INPUTS images and ref/ with a one-process run over them.
make_inputs() {
    "$FXKIT" gen image --count "$INPUTS" --size 48x32 -o in/ -q
    "$FXKIT" "${KERNEL[@]}" in/*.png -o ref/
}

# The inputs' names sorted as fxkit sorts them (byte order), one per line.
sorted_inputs() { LC_ALL=C ls in/*.png | LC_ALL=C sort; }

# Which shard of N the input with 0-based sorted rank R belongs to.
shard_of_rank() { echo $(($1 % $2)); }

# check_reports OUTDIR N [STATUS]: the N reports OUTDIR.rep-K.json together list every
# input exactly once with STATUS (default done) or existing, and OUTDIR holds every
# output with the reference's bytes.
check_outputs() {
    local out=$1 name
    expect_equal "$(ls "$out" | wc -l)" "$INPUTS" "outputs in $out"
    for name in ref/*.png; do
        name=$(basename "$name")
        if [ -f "$out/$name" ]; then
            expect_equal "$(sha "$out/$name")" "$(sha "ref/$name")" "$out/$name"
        else
            fail "$out/$name is missing"
        fi
    done
    expect_no_temp "$out"
}

# The items the reports $@ mark done, one input name per line, sorted (duplicates kept).
done_items() {
    python3 - "$@" <<'PY'
import json, sys
names = []
for path in sys.argv[1:]:
    for item in json.load(open(path))["items"]:
        if item["status"] == "done":
            names.append(item["input"].rsplit("/", 1)[-1])
print("\n".join(sorted(names)))
PY
}

# "INODE MTIME" of every file of a folder, to show that a rerun left them alone.
file_stamps() { (cd "$1" && stat -c '%n %i %Y.%y' -- * 2>/dev/null | LC_ALL=C sort); }

# Replace the input of sorted rank R by a FIFO; prints its name.
block_input() {
    local name
    name=$(sorted_inputs | sed -n "$(($1 + 1))p")
    mv "$name" "$name.saved"
    mkfifo "$name"
    echo "$name"
}

unblock_input() {
    rm -f "$1"
    mv "$1.saved" "$1"
}

# Wait until the folder holds at least N files (at most S seconds).
wait_for_files() {
    local dir=$1 want=$2 limit=$3 tries
    for ((tries = 0; tries < limit * 10; tries++)); do
        [ "$(ls "$dir" 2>/dev/null | grep -vc fxtmp)" -ge "$want" ] && return 0
        sleep 0.1
    done
    return 1
}
