#!/usr/bin/env bash
# Every GPU of a host on a batch: `--device gpu:all` against `--device gpu:0` (one
# process each), and `mpirun -n G` with one GPU per rank (the local rank picks it),
# alternating rounds, medians; every run's bytes compared with the gpu:0 run.
#
# usage: bench/multi_gpu_batch.sh FXKIT [IMAGES] [SIZE] [AUDIO] [ROUNDS] [HEAVY] [SECONDS]
#   defaults: 200 RGB 4096x2304 PPMs through filter -k gaussian:31, 64 stereo WAVs
#   of SECONDS (60) s through normalize, 3 rounds; mpirun from PATH (skipped with a note
#   when missing). G = the GPUs fxkit sees (`fxkit info`).
#   HEAVY (default 160): the first HEAVY images again through a kernel whose GPU work
#   outweighs the host's (gaussian:63 --strategy direct, ~4000 taps an output), the
#   case where a second GPU can pay; the batch's own stage sums (--report of the gpu:0
#   runs) say how busy one GPU was: the compute sum against the wall time. (With 40, on
#   two H200s, 2026-11-26: 4.40 s on gpu:0, 3.48 s on gpu:all, 1.26x; 40 items over 32
#   workers leave a second wave of 8, and the second GPU's start falls inside the run.)
#   The work folder is under FXKIT_TMP (else a new temporary folder): /dev/shm there
#   takes the disk out of the image batch. Each run's in-process wall (its --report)
#   is printed beside the command's, which includes the process's and CUDA's start.
set -euo pipefail
fxkit=$(realpath "$1")
images=${2:-200}
size=${3:-4096x2304}
audio=${4:-64}
rounds=${5:-3}
heavy=${6:-160}
seconds=${7:-60}
work=${FXKIT_TMP:-$(mktemp -d)}/multi_gpu_batch
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
cd "$work"

gpus=$("$fxkit" info | grep -cE '^GPU [0-9]+:' || true)
[ "$gpus" -ge 1 ] || { echo "multi_gpu_batch: fxkit sees no GPU" >&2; exit 1; }

"$fxkit" gen image --count "$images" --size "$size" --to ppm -o img/ -q
"$fxkit" gen audio --count "$audio" --duration "$seconds" --channels 2 -o wav/ -q
image_job=(filter -k gaussian:31 -q)
heavy_job=(filter -k gaussian:63 --strategy direct -q)
audio_job=(normalize -q)

now() { date +%s.%N; }
elapsed() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.3f", e - s }'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# "yes" when folder B holds the names and bytes of folder A, else the first difference
same() {
    local a=$1 b=$2 f
    [ "$(ls "$a")" = "$(ls "$b")" ] || { echo "no (other names)"; return; }
    for f in "$a"/*; do
        cmp -s "$f" "$b/${f#"$a"/}" || { echo "no (${f#"$a"/} differs)"; return; }
    done
    echo yes
}
timed() { # VAR COMMAND...: append the command's seconds to the variable
    local var=$1 s
    shift
    s=$(now)
    "$@"
    printf -v "$var" '%s %s' "${!var}" "$(elapsed "$s")"
}

have_mpi=0
mpirun=()
if command -v mpirun >/dev/null; then
    have_mpi=1
    mpirun=(mpirun -n "$gpus" --oversubscribe)
    [ "$(id -u)" -ne 0 ] || mpirun+=(--allow-run-as-root)
fi

mkdir -p heavy
for f in $(ls img | head -n "$heavy"); do ln -s "../img/$f" "heavy/$f"; done

i_one="" i_all="" i_mpi="" a_one="" a_all="" h_one="" h_all=""
for ((r = 0; r < rounds; r++)); do
    rm -rf i1 ia im a1 aa h1 ha
    timed i_one "$fxkit" "${image_job[@]}" --device gpu:0 img/*.ppm -o i1/ --report i1.json
    timed i_all "$fxkit" "${image_job[@]}" --device gpu:all img/*.ppm -o ia/ --report ia.json
    if [ "$have_mpi" -eq 1 ]; then
        timed i_mpi "${mpirun[@]}" "$fxkit" "${image_job[@]}" --device gpu img/*.ppm -o im/ \
            --report 'mpi.rep-{shard}.json'
    fi
    timed a_one "$fxkit" "${audio_job[@]}" --device gpu:0 wav/*.wav -o a1/ --report a1.json
    timed a_all "$fxkit" "${audio_job[@]}" --device gpu:all wav/*.wav -o aa/ --report aa.json
    timed h_one "$fxkit" "${heavy_job[@]}" --device gpu:0 heavy/*.ppm -o h1/ --report h1.json
    timed h_all "$fxkit" "${heavy_job[@]}" --device gpu:all heavy/*.ppm -o ha/ --report ha.json
done
# A run's stage sums over its items (ms), and its in-process wall time (its --report).
stages() {
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print("wall %.2f s, %d workers; stage sums:" % (d["wall_ms"] / 1e3, d["workers"]),
      ", ".join("%s %.2f s" % (k[:-3], v / 1e3) for k, v in d["stage_ms"].items() if v))' "$1" \
        2>/dev/null || echo "(no report)"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
io=$(echo "$i_one" | median) ia=$(echo "$i_all" | median)
ao=$(echo "$a_one" | median) aa=$(echo "$a_all" | median)
echo "multi-GPU batch on $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs)"
echo "  filter gaussian:31, $images x $size RGB PPM, $rounds rounds (medians)"
echo "    --device gpu:0    $io s  (rounds:$i_one)"
echo "    --device gpu:all  $ia s  (rounds:$i_all)  speed-up $(ratio "$io" "$ia")x, bytes as gpu:0: $(same i1 ia)"
if [ "$have_mpi" -eq 1 ]; then
    im=$(echo "$i_mpi" | median)
    done_once=$(python3 -c 'import json,sys,collections
c=collections.Counter(i["input"] for f in sys.argv[1:] for i in json.load(open(f))["items"] if i["status"]=="done")
print("yes" if c and max(c.values())==1 else "no")' mpi.rep-*.json 2>/dev/null || echo "unknown")
    echo "    mpirun -n $gpus    $im s  (rounds:$i_mpi)  vs gpu:all $(ratio "$im" "$ia")x the time," \
        "bytes as gpu:0: $(same i1 im), every file once: $done_once"
else
    echo "    mpirun: not found on PATH; not run"
fi
echo "    gpu:0 run: $(stages i1.json)"
echo "    gpu:all run: $(stages ia.json)"
ho=$(echo "$h_one" | median) ha=$(echo "$h_all" | median)
echo "  filter gaussian:63 --strategy direct, $heavy of the images, $rounds rounds (medians)"
echo "    --device gpu:0    $ho s  (rounds:$h_one)"
echo "    --device gpu:all  $ha s  (rounds:$h_all)  speed-up $(ratio "$ho" "$ha")x, bytes as gpu:0: $(same h1 ha)"
echo "    gpu:0 run: $(stages h1.json)"
echo "    gpu:all run: $(stages ha.json)"
echo "  normalize, $audio x $seconds s stereo WAV, $rounds rounds (medians)"
echo "    --device gpu:0    $ao s  (rounds:$a_one)"
echo "    --device gpu:all  $aa s  (rounds:$a_all)  speed-up $(ratio "$ao" "$aa")x, bytes as gpu:0: $(same a1 aa)"
echo "    gpu:0 run: $(stages a1.json)"
echo "    gpu:all run: $(stages aa.json)"
