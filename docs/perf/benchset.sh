#!/usr/bin/env bash
# The benchmark set of issue 19 (corpus/bench/*.cu): every program natively and through sassport in one call.
#
#   bash docs/perf/benchset.sh prepare   # here: nvcc fat binaries (sm_86 + sm_90) into target/benchset/bin,
#                                        # stripped, xz-compressed sassport and libcuda.so.1 into target/benchset
#   bash docs/perf/benchset.sh smoke     # here: every program --small through `sassport exec` on lavapipe
#   bash docs/perf/benchset.sh run       # the GPU machine: native, sassport cold, sassport warm; table to $OUT
#
# Each program times its own unit of work (bench.h): CUDA events around each timed unit, median of the warm
# ones. Natively those are NVIDIA's GPU timestamps; through `sassport exec` sassport's libcuda queues a Vulkan
# timestamp with each event record (cuda/src/stream.rs), so both columns are GPU time of the same launches. A
# program prints a hash of its outputs: equal hashes native and through sassport mean bit-identical outputs;
# ref=PASS means the native (or translated) output matched the program's host reference.
# `run` expects the repository tree with target/benchset (from `prepare`) and .gl (the Vulkan loader debs,
# ../shared/notes/silicon.md) carried along; it needs bash, awk, xz and timeout, no python.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
set_dir=target/benchset
nvcc=.tools/venv/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc
# The order of the table.
PROGRAMS="saxpy matmul_tiled matmul_regblock gemm syrk wmma_gemm atax covariance jacobi2d heat3d conv2d nbody
histogram reduction scan transpose spmv"

prepare() {
    set -e
    mkdir -p "$set_dir/bin"
    cargo build --release -p sassport -p sassport-cuda
    # Two builds at a time (the development machine has 2 cores).
    printf '%s\n' $PROGRAMS | xargs -P 2 -I{} sh -c \
        "'$nvcc' -O3 -gencode arch=compute_86,code=sm_86 -gencode arch=compute_90,code=sm_90 \
         corpus/bench/{}.cu -o '$set_dir/bin/{}' && strip '$set_dir/bin/{}' && echo built {}"
    strip -o "$set_dir/sassport" target/release/sassport
    strip -o "$set_dir/libcuda.so.1" target/release/libcuda.so
    xz -f -T2 -6 "$set_dir/sassport" "$set_dir/libcuda.so.1"
    du -sh "$set_dir"
}

smoke() {
    local fail=0 p line
    for p in $PROGRAMS; do
        line=$(timeout 300 target/release/sassport exec -- "$set_dir/bin/$p" --small --reps 3 --budget 1 2>&1)
        echo "$line" | grep '^BENCH' || { echo "FAIL $p: $line"; fail=1; continue; }
        echo "$line" | grep -q 'ref=PASS' || fail=1
    done
    [ $fail = 0 ] && echo "smoke: every program PASS through sassport exec" || echo "smoke: FAIL"
    return $fail
}

# field NAME LINE: the value of NAME=... in a BENCH line.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# one_run LABEL CMD...: runs a program with a 120 s limit; its BENCH line (or FAIL ...) and wall seconds.
one_run() {
    local label=$1 t0 t1 out rc
    shift
    t0=$(date +%s.%N)
    out=$(timeout 120 "$@" 2>&1)
    rc=$?
    t1=$(date +%s.%N)
    echo "$out" >> "$OUT/log.txt"
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    bench=$(echo "$out" | grep '^BENCH' | tail -1)
    [ -n "$bench" ] || bench="FAIL rc=$rc"
    echo "$label rc=$rc wall=${wall}s $bench" | tee -a "$OUT/log.txt"
}

run() {
    OUT=${OUT:-/tmp/benchset-out}
    mkdir -p "$OUT"
    : > "$OUT/log.txt"
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    local tools=/tmp/benchset-tools
    mkdir -p "$tools"
    xz -dc "$set_dir/sassport.xz" > "$tools/sassport" && chmod +x "$tools/sassport"
    xz -dc "$set_dir/libcuda.so.1.xz" > "$tools/libcuda.so.1"
    export SASSPORT_CUDA_LIB=$tools
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee -a "$OUT/log.txt"
    "$tools/sassport" devices 2>&1 | tee -a "$OUT/log.txt"
    local rows="$OUT/rows.txt" p cache
    : > "$rows"
    for p in $PROGRAMS; do
        cache=$(mktemp -d /tmp/benchset-cache.XXXX)
        one_run native "$set_dir/bin/$p"
        local nb=$bench nw=$wall
        one_run sassport-cold env XDG_CACHE_HOME="$cache" "$tools/sassport" exec --device NVIDIA -- "$set_dir/bin/$p"
        local cb=$bench cw=$wall
        one_run sassport-warm env XDG_CACHE_HOME="$cache" "$tools/sassport" exec --device NVIDIA -- "$set_dir/bin/$p"
        local wb=$bench ww=$wall
        # The sassport column: the warm run's kernel time (the cold run's where the warm one failed).
        local sb=$wb
        case $wb in BENCH*) ;; *) sb=$cb ;; esac
        echo "$p|$nb|$sb|$cb|$nw|$cw|$ww" >> "$rows"
    done
    table "$rows" | tee "$OUT/benchset.md"
}

# table ROWS: the markdown table and the geometric mean of sassport/native over the kernels both ran.
table() {
    echo "| kernel | size | native ms | sassport ms | ratio | bit-identical | host ref (native, sassport) |" \
        "process wall s (native, sassport cold, warm) |"
    echo "|---|---|---|---|---|---|---|---|"
    local sum=0 count=0 worst=0 p nb sb cb nw cw ww
    while IFS='|' read -r p nb sb cb nw cw ww; do
        local size nms sms ratio same nref sref
        size=$(echo "$nb" | awk '$1 == "BENCH" { print $3 }')
        nms=$(field ms "$nb")
        sms=$(field ms "$sb")
        nref=$(field ref "$nb")
        sref=$(field ref "$sb")
        same=no
        [ -n "$(field hash "$nb")" ] && [ "$(field hash "$nb")" = "$(field hash "$sb")" ] &&
            [ "$(field hash "$sb")" = "$(field hash "$cb")" ] && same=yes
        ratio=-
        if [ -n "$nms" ] && [ -n "$sms" ]; then
            ratio=$(awk -v a="$sms" -v b="$nms" 'BEGIN { printf "%.2f", a / b }')
            sum=$(awk -v s="$sum" -v a="$sms" -v b="$nms" 'BEGIN { printf "%.9f", s + log(a / b) }')
            count=$((count + 1))
        fi
        echo "| $p | ${size:--} | ${nms:-FAIL} | ${sms:-FAIL} | $ratio | $same | ${nref:-FAIL}, ${sref:-FAIL} |" \
            "$nw, $cw, $ww |"
    done < "$1"
    if [ "$count" -gt 0 ]; then
        awk -v s="$sum" -v c="$count" 'BEGIN { printf "\ngeometric mean sassport/native over %d kernels: %.3f\n", c, exp(s / c) }'
    fi
}

case "${1:-}" in
    prepare) prepare ;;
    smoke) smoke ;;
    run) run ;;
    table) table "$2" ;;
    *) echo "usage: bash docs/perf/benchset.sh prepare|smoke|run|table ROWS" >&2; exit 2 ;;
esac
