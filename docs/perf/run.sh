#!/usr/bin/env bash
# One device run of docs/perf/bench.py on an NVIDIA GPU machine: unpack the Vulkan loader carried in .gl,
# point it at the NVIDIA ICD, log the clocks while the benchmark runs, and leave results under $OUT.
# Expects the x86-64 `sassport` binary at .perf/sassport, or gzipped at .perf/sassport.gz (built with
# `cargo build --release -p sassport`, stripped and gzipped to fit the device tool's 64 MiB transfer).
set -u
OUT=${OUT:-/tmp/perf-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f .perf/sassport.gz ]; then gunzip -c .perf/sassport.gz > .perf/sassport && chmod +x .perf/sassport; fi
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv -lms 100 \
    > "$OUT/clocks.csv" 2>&1 &
smi=$!
python3 docs/perf/bench.py --sassport .perf/sassport --work /tmp/perf --out "$OUT" "$@" 2>&1 | tee "$OUT/log.txt"
rc=${PIPESTATUS[0]}
kill "$smi" 2>/dev/null
exit "$rc"
