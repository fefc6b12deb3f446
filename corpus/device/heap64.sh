#!/bin/bash
# Device run for issue 23 (branch heap64): FP64 corpus kernels native vs --without float64 on NVIDIA Vulkan
# (three launches each for the cost table), the heap kernels with --without int64-atomics (32-bit free
# lists), then the math API's double kernels and the whole corpus with every mask, each under a timeout.
set -u
B=${SASSPORT_BIN:-target/device/sassport}
D=$OUT/heap64; mkdir -p "$D"; L=$D/log.txt
start=$SECONDS
run() { # run LIMIT ARGS...: one corpus run, its log and rc
  local lim=$1; shift
  echo "== $* (t=$((SECONDS - start)) s)" >> "$L"
  timeout "$lim" "$B" corpus --device NVIDIA --no-cache "$@" >> "$L" 2>&1; echo "rc=$?" >> "$L"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$L" 2>&1
FP64="daxpy dmatmul_tiled fp64_round_arith fp64_div_sqrt fp64_convert fp64_round_misc fp32_double_convert
 fp16_convert math_library_forms precise_math narrow_int_convert global_widths calls_direct
 atomics_global_contended wmma_s8_f64"
for rep in 1 2 3; do
  for k in $FP64; do
    run 60 --strict --filter "$k"
    run 60 --strict --without float64 --filter "$k"
  done
done
for k in heap_per_thread heap_block_shared heap_exhaustion barrier_save_calls; do
  [ $((SECONDS - start)) -lt 400 ] || { echo "skipped $k: time" >> "$L"; continue; }
  run 30 --strict --filter "$k"
  run 30 --strict --without int64-atomics --filter "$k"
  run 30 --strict --without int64-atomics,float64,float16,int16,int8 --filter "$k"
done
# The math API's double kernels (~1.2 M-word modules; never run through sassport on NVIDIA before).
for k in math_f64_special math_f64_elementary; do
  [ $((SECONDS - start)) -lt 420 ] || { echo "skipped $k: time" >> "$L"; continue; }
  run 75 --strict --filter "$k"
  run 75 --strict --without float64 --filter "$k"
done
[ $((SECONDS - start)) -lt 450 ] && run 100 --without float64,float16,int16,int8,int64-atomics
echo "total $((SECONDS - start)) s" >> "$L"
cd "$OUT" && tar czf heap64.tgz heap64 && rm -rf heap64
