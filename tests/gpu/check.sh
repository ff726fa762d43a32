#!/usr/bin/env bash
# GPU check, for a machine with an NVIDIA GPU: the GPU tests (with
# FXKIT_REQUIRE_GPU=1, so a missing GPU fails instead of skipping), compute-sanitizer
# over them when it exists, `fxkit info`, then a short benchmark and the filter
# benchmark; a summary table comes last.
#
# usage: tests/gpu/check.sh [BUILD_DIR]      (default: $FXKIT_BUILD, else build)
#        FXKIT_CHECK_JOBS=N tests/gpu/check.sh …  N compute-sanitizer runs at a time
#        FXKIT_CHECK_SANITIZER_LIMIT=S tests/gpu/check.sh …  seconds one compute-sanitizer
#        run may take (default 300; 0: no limit); a run stopped there counts as failed
#        FXKIT_CHECK_PEERS=0 tests/gpu/check.sh …  without the GPU peers' timings (PyTorch,
#        CuPy; informational): with them the whole check took past 600 s on the H200
#        machine (2026-11-27), one device call's limit
#        FXKIT_SWEEP=full tests/gpu/check.sh …  the whole filter sweep (gpu_test_gpu_sweep)
#        instead of its quick sample; or run BUILD_DIR/tests/gpu_test_gpu_sweep alone with it
#        FXKIT_CHECK_PART=tests tests/gpu/check.sh …  the GPU tests and compute-sanitizer only;
#        FXKIT_CHECK_PART=rest: the rest only (identity, workers, info, benchmarks). The
#        whole check took 552 s on the H200 machine with FXKIT_CHECK_JOBS=8 (2026-11-27):
#        two calls of a device whose calls end at 600 s
#
# BUILD_DIR may be prebuilt, even on another machine under another path: only its
# binaries are used (BUILD_DIR/fxkit and BUILD_DIR/tests/gpu_test_*), never
# ctest's files, which hold the absolute paths of the machine that configured
# the build. Each test program is what `ctest -L gpu` would run. Without those
# binaries the build is configured and made here (CMake, nvcc, codec packages).
#
# Exit status: 0 when every test passed and the benchmark ran, 1 otherwise.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${FXKIT_BUILD:-build}}
export FXKIT_REQUIRE_GPU=1
# The tests write scratch files only under FXKIT_TMP.
export FXKIT_TMP=${FXKIT_TMP:-$(mktemp -d)}

if ! compgen -G "$build/tests/gpu_test_*" >/dev/null; then
    echo "check: no GPU test programs in $build: building there"
    cmake -S "$root" -B "$build" -G Ninja -DFXKIT_CUDA=ON -DCMAKE_BUILD_TYPE=Release &&
        cmake --build "$build" -j "$(nproc)" || { echo "check: build failed"; exit 1; }
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
part=${FXKIT_CHECK_PART:-all}
case "$part" in all | tests | rest) ;; *) echo "check: FXKIT_CHECK_PART is all, tests or rest, not '$part'"; exit 1 ;; esac
want() { [ "$part" = all ] || [ "$part" = "$1" ]; }

# ---- GPU tests ----
passed=0 failed=0 programs=0 broken=""
want tests || echo "== GPU tests and compute-sanitizer: not run (FXKIT_CHECK_PART=$part)"
for test in "$build"/tests/gpu_test_*; do
    want tests || break
    name=$(basename "$test")
    programs=$((programs + 1))
    echo "== $name"
    started=$SECONDS
    "$test" >"$logs/$name.log" 2>&1
    rc=$?
    cat "$logs/$name.log"
    echo "   ($name: $((SECONDS - started)) s)"
    # fxtest ends with "N passed, M failed"; a program that crashed, skipped or
    # failed without that line counts as one failure.
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/$name.log" | tail -n1)
    p=0 f=0
    if [ -n "$summary" ]; then
        p=${summary%% passed*}
        f=${summary#*, }
        f=${f%% failed}
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
    fi
    [ "$f" -eq 0 ] || broken="$broken $name(rc=$rc)"
    passed=$((passed + p))
    failed=$((failed + f))
done

# ---- compute-sanitizer (memcheck, racecheck, initcheck, synccheck) ----
# Over every GPU test program when the tool exists (the filter test: its banding case,
# which runs every fast strategy on several streams; its full matrix is thousands of
# plans). A tool's run fails when it reports any error.
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san_summary="not run (no compute-sanitizer)"
want tests || san_summary="not run (FXKIT_CHECK_PART=$part)"
# The runs are independent and mostly the tool's CPU work, so FXKIT_CHECK_JOBS of them
# (default: a quarter of the cores, 1 to 4) share the GPU at a time; their logs are shown
# in order once all are done. One after another, they ran past a lent machine's 30
# minutes on an H100 (2026-11-26: 19 of the 40 runs done in some 25 minutes).
san_jobs=${FXKIT_CHECK_JOBS:-$(($(nproc) / 4))}
[ "$san_jobs" -ge 1 ] || san_jobs=1
[ -n "${FXKIT_CHECK_JOBS:-}" ] || [ "$san_jobs" -le 4 ] || san_jobs=4
# A run past it is stopped (timeout's status 124), so that one slow run cannot take the
# whole check past a device call's end with nothing reported (2026-11-27: the phase,
# 170 s the session before, ran past 570 s and showed nothing).
san_limit=${FXKIT_CHECK_SANITIZER_LIMIT:-300}
case "$san_limit" in '' | *[!0-9]*) echo "check: FXKIT_CHECK_SANITIZER_LIMIT is seconds, not '$san_limit'"; exit 1 ;; esac
# One tool over one program: its log, exit status and seconds under $logs, and a line
# as it ends (the full logs come in order once all runs are done).
san_run() { # TOOL TEST ARGS...
    local tool=$1 test=$2 name api=() started limit=() rc
    shift 2
    name=$(basename "$test")
    # the device test provokes failing CUDA calls on purpose (a GPU that does not
    # exist, 1 PiB allocations): there API errors are its subject, not findings
    [ "$name" = gpu_test_gpu_device ] && api=(--report-api-errors no)
    [ "$san_limit" -gt 0 ] && limit=(timeout "$san_limit")
    started=$SECONDS
    # FXKIT_UNDER_SANITIZER: the tool's own device allocations are no leak of ours
    FXKIT_UNDER_SANITIZER=1 "${limit[@]}" "$sanitizer" --tool "$tool" "${api[@]}" \
        --error-exitcode 99 "$test" "$@" >"$logs/san_${tool}_$name.log" 2>&1
    rc=$?
    [ "$rc" -eq 124 ] && [ "$san_limit" -gt 0 ] &&
        echo "check: stopped after FXKIT_CHECK_SANITIZER_LIMIT=$san_limit s" >>"$logs/san_${tool}_$name.log"
    echo "$rc" >"$logs/san_${tool}_$name.rc"
    echo $((SECONDS - started)) >"$logs/san_${tool}_$name.secs"
    echo "   compute-sanitizer --tool $tool $name: rc $rc, $((SECONDS - started)) s"
}
if [ -x "$sanitizer" ] && want tests; then
    san_failed=""
    san_order=()
    san_started=$SECONDS
    for tool in memcheck racecheck initcheck synccheck; do
        for test in "$build"/tests/gpu_test_*; do
            name=$(basename "$test")
            # benchmarks, and the sweep (hundreds of plans: hours under racecheck; its
            # own check is the comparison with the CPU)
            case "$name" in *bench* | *sweep*) continue ;; esac
            args=()
            if [ "$name" = gpu_test_gpu_filter ]; then
                args=(banding_gives_the_bytes_of_one_pass u8_fast_path_kernels_match_cpu)
            fi
            # the batch test: every layout and size once (not its 1000-image batches)
            if [ "$name" = gpu_test_gpu_filter_batch ]; then
                args=(u8_sizes_match_cpu bad_batches_are_reported)
            fi
            while [ "$(jobs -rp | wc -l)" -ge "$san_jobs" ]; do wait -n; done
            san_run "$tool" "$test" "${args[@]}" &
            san_order+=("$tool $name ${args[*]}")
        done
    done
    wait
    for entry in "${san_order[@]}"; do
        read -r tool name _ <<<"$entry"
        rc=$(cat "$logs/san_${tool}_$name.rc" 2>/dev/null || echo 98)
        echo "== compute-sanitizer --tool $entry ($(cat "$logs/san_${tool}_$name.secs" 2>/dev/null) s)"
        if [ "$rc" -eq 0 ]; then
            tail -n 3 "$logs/san_${tool}_$name.log"
        else
            grep -vE '^ok ' "$logs/san_${tool}_$name.log" | tail -n 30
        fi
        [ "$rc" -eq 0 ] || san_failed="$san_failed $tool:$name(rc=$rc)"
    done
    san_summary="${#san_order[@]} runs ($san_jobs at a time, $((SECONDS - san_started)) s), ${san_failed:-no errors}"
    [ -z "$san_failed" ] || failed=$((failed + 1))
fi

# A checking script over the program: its output, its summary line (the one starting
# with PREFIX, without it) in the variable named VAR, and a failure counted.
run_script() { # VAR PREFIX SCRIPT ARGS...
    local var=$1 prefix=$2 script=$3 name line rc
    shift 3
    name=$(basename "$script" .sh)
    printf -v "$var" '%s' "not run"
    want rest || return 0
    [ -x "$build/fxkit" ] || return 0
    "$script" "$@" 2>&1 | tee "$logs/$name.log"
    rc=${PIPESTATUS[0]}
    line=$(grep "^$prefix" "$logs/$name.log" | tail -n1)
    printf -v "$var" '%s' "${line#"$prefix"}"
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
}

# ---- CPU == GPU on images outside the test suite, through the program ----
echo "== identity"
run_script identity "identity: " "$root/tests/gpu/identity.sh" "$build/fxkit"

# ---- several workers on the GPUs: gpu:0,0, gpu:all, the local rank ----
echo "== multi-GPU workers"
run_script multi "multi-gpu: " "$root/tests/gpu/multi_gpu.sh" "$build/fxkit"

# ---- fxkit info ----
echo "== fxkit info"
if ! want rest; then
    echo "not run (FXKIT_CHECK_PART=$part)"
elif [ -x "$build/fxkit" ]; then
    "$build/fxkit" info || echo "check: fxkit info failed (exit $?)"
else
    echo "check: $build/fxkit is missing"
fi

# ---- benchmark ----
echo "== benchmark"
bench_ok=1
if ! want rest; then
    echo "not run (FXKIT_CHECK_PART=$part)"
    : >"$logs/bench.log"
elif [ -x "$build/tests/gpu_test_gpu_bench" ]; then
    "$build/tests/gpu_test_gpu_bench" --bench 2>&1 | tee "$logs/bench.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || bench_ok=0
else
    echo "check: $build/tests/gpu_test_gpu_bench is missing"
    bench_ok=0
    : >"$logs/bench.log"
fi
# ---- filter benchmark (issue 11 workloads) ----
echo "== filter benchmark"
filter_bench_ok=1
if ! want rest; then
    echo "not run (FXKIT_CHECK_PART=$part)"
    : >"$logs/filter_bench.log"
elif [ -x "$build/tests/gpu_test_gpu_filter_bench" ]; then
    "$build/tests/gpu_test_gpu_filter_bench" --bench 2>&1 | tee "$logs/filter_bench.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || filter_bench_ok=0
else
    echo "check: $build/tests/gpu_test_gpu_filter_bench is missing"
    filter_bench_ok=0
    : >"$logs/filter_bench.log"
fi
# GPU peers (PyTorch, CuPy, CV-CUDA) where importable; informational, never fails the check
if want rest && [ "${FXKIT_CHECK_PEERS:-1}" != 0 ] && command -v python3 >/dev/null; then
    echo "== GPU peers"
    timeout 600 python3 "$root/bench/filter_gpu_peers.py" 2>&1 | tee -a "$logs/filter_bench.log"
fi
fresult() { # value of "RESULT key ..." from the filter benchmark, or "-"
    local v
    v=$(grep -E "^RESULT $1 " "$logs/filter_bench.log" | tail -n1 | cut -d' ' -f3-)
    echo "${v:--}"
}

result() { # value of "RESULT key ..." from the benchmark, or "-"
    local v
    v=$(grep -E "^RESULT $1 " "$logs/bench.log" | tail -n1 | cut -d' ' -f3-)
    echo "${v:--}"
}
gpu_ms=$(result convert_gpu_ms)
cpu_ms=$(result convert_cpu_ms)
speedup=-
if [ "$gpu_ms" != - ] && [ "$cpu_ms" != - ]; then
    speedup=$(awk -v g="$gpu_ms" -v c="$cpu_ms" 'BEGIN { printf "%.1fx", c / g }')
fi

# ---- summary ----
echo
echo "== fxkit GPU check"
printf '%-34s %s\n' "GPU" "$(result gpu_name)"
printf '%-34s %s\n' "check part" "$part"
printf '%-34s %s\n' "GPU tests" "$passed passed, $failed failed ($programs programs)${broken:+; failing:$broken}"
printf '%-34s %s GB/s\n' "H2D pinned, 256 MiB (median of 10)" "$(result h2d_gbps)"
printf '%-34s %s GB/s\n' "D2H pinned, 256 MiB (median of 10)" "$(result d2h_gbps)"
printf '%-34s GPU %s ms vs CPU %s ms (%s), identical: %s\n' "convert u8->f32 10000x6000x3" "$gpu_ms" "$cpu_ms" \
    "$speedup" "$(result convert_identical)"
printf '%-34s %s\n' "  GPU stages (ms)" "$(result convert_gpu_stages_ms)"

printf '%-34s %s\n' "compute-sanitizer" "$san_summary"
printf '%-34s %s\n' "CPU == GPU (program)" "identity: $identity"
printf '%-34s %s\n' "multi-GPU workers" "$multi"
printf '%-34s %s\n' "filter dev 10000x6000x3 box:3" "$(fresult filter_dev_box3_ms) ms (target 0.2)"
printf '%-34s %s\n' "filter dev gaussian:3" "$(fresult filter_dev_gauss3_ms) ms (target 0.2)"
printf '%-34s %s\n' "filter dev box:121" "$(fresult filter_dev_box121_ms) ms (target 0.5)"
printf '%-34s %s\n' "filter dev gaussian:121" "$(fresult filter_dev_gauss121_ms) ms (target 3)"
printf '%-34s %s\n' "filter dev float 31x31 (fft)" "$(fresult filter_dev_float31_ms) ms (target 3)"
printf '%-34s %s\n' "filter dev float 121x121 (fft)" "$(fresult filter_dev_float121_ms) ms (target 5)"
printf '%-34s %s\n' "filter host float 121x121 (fft)" "$(fresult filter_host_float121_ms)"
printf '%-34s %s\n' "peers box:3 torch / cupy / cvcuda" "$(fresult peer_torch_box3_ms) / $(fresult peer_cupy_box3_ms) / $(fresult peer_cvcuda_box3_ms) ms"
printf '%-34s %s\n' "filter host->host box:3" "$(fresult filter_host_box3_ms)"
printf '%-34s %s\n' "filter host 10000x100000 box:11" "$(fresult filter_host_10000x100000_box11_ms)"

[ "$failed" -eq 0 ] && [ "$bench_ok" -eq 1 ] && [ "$filter_bench_ok" -eq 1 ] &&
    { [ "$programs" -gt 0 ] || ! want tests; }
