#!/usr/bin/env bash
# One call on the GPU machine: real GPU faults must fall back to the CPU with a note and exact output
# (tests/gpu/test_gpu_faults.cpp). Builds test_gpu_faults with the gpu-device preset and runs,
# one process each and one after another (the out-of-memory cases hold most of the card):
#   oom (cudaMalloc hog, 16K x 16K), launch (HALFTONE_GPU_FAULT=launch), trap and trap-progress
#   (HALFTONE_GPU_FAULT=trap: __trap(), sticky); with the argument `huge` only the 65536 x 65536 case
#   (a full card, ~20 GiB host RAM, a few minutes of CPU: the SPEC reference of 4.3 Gpixel).
# Needs CLI11 in .device/include/CLI like scripts/device-gpu.sh (carry: [".device"]). Logs go to $OUT.
# Usage: scripts/device-faults.sh [huge]
set -u -o pipefail
OUT=${OUT:-/tmp/device-faults-out}
mkdir -p "$OUT"
B=build/gpu-device
echo "=== device ($(date -u +%H:%M:%S))"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv 2>&1 | tee "$OUT/device.txt"
[ -f .device/include/CLI/CLI.hpp ] || echo "note: no .device/include/CLI/CLI.hpp (carry [\".device\"]); configure may fail"
echo "=== configure + build test_gpu_faults ($(date -u +%H:%M:%S))"
if ! cmake --preset gpu-device -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1; then
  tail -20 "$OUT/configure.log"; echo "device-faults: configure failed"; exit 1
fi
if ! cmake --build $B -j "$(nproc)" --target test_gpu_faults >"$OUT/build.log" 2>&1; then
  grep -E "error|FAILED" "$OUT/build.log" | head -20; echo "device-faults: build failed"; exit 1
fi
if [ "${1:-}" = "huge" ]; then sel='^test_gpu_fault_huge$'; else sel='^test_gpu_fault_'; fi
echo "=== ctest -R $sel (sequential) ($(date -u +%H:%M:%S))"
[ "${1:-}" = "huge" ] || excl=(-E huge)
timeout 570 ctest --test-dir $B -R "$sel" ${excl[@]+"${excl[@]}"} -V --timeout 560 >"$OUT/ctest.log" 2>&1
ct=$?
grep -E "^[0-9]+: (FAIL|SKIP|device:|  (status|gpu::runPlane)|hog|device memory|[0-9]+ passed)|Test +#[0-9]+: test_gpu_fault|tests passed|tests failed" \
  "$OUT/ctest.log" | sed -E 's/^[0-9]+: //' | cut -c1-220
echo "device-faults: ctest rc=$ct (logs: $OUT/ctest.log)"
exit $ct
