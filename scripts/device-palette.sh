#!/usr/bin/env bash
# One call on the GPU machine for error diffusion to a palette on the GPU: configure the gpu-device preset, build
# test_gpu_palette and bench_gpu, run the palette test (bit for bit against the reference of docs/spec.md section 4),
# compute-sanitizer memcheck and racecheck on tiny sizes, then the palette rows of the GPU benchmark (16 colours at
# 16384 x 16384 beside the sequential CPU reference; 2, 8, 16, 17 and 256 colours at 4096). Logs go to $OUT; a short summary
# comes last. Needs CLI11 in .device/include/CLI (carry: [".device"]), as scripts/device-gpu.sh.
# Usage: scripts/device-palette.sh [--quick]   (--quick: the small test and 4096 only)
set -u -o pipefail
OUT=${OUT:-/tmp/device-palette-out}
mkdir -p "$OUT"
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
B=build/gpu-device
summary=()
stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee "$OUT/device.txt"
lscpu | grep -E "Model name|^CPU\(s\)" | tee -a "$OUT/device.txt"

stage "configure + build"
cmake --preset gpu-device -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1
cmake --build $B -j "$(nproc)" --target test_gpu_palette bench_gpu >"$OUT/build.log" 2>&1
bld=$?; grep -E "error|warning|FAILED" "$OUT/build.log" | head -20; tail -1 "$OUT/build.log"
summary+=("build (test_gpu_palette bench_gpu): rc=$bld")
[ $bld -eq 0 ] || { printf '%s\n' "${summary[@]}"; exit 1; }

stage "test_gpu_palette"
arg=""; [ $QUICK -eq 1 ] && arg="--small"
timeout 300 $B/tests/gpu/test_gpu_palette $arg >"$OUT/test.log" 2>&1
t=$?; grep -E "FAIL|SKIP|device:|passed" "$OUT/test.log" | head -20
summary+=("test_gpu_palette $arg: rc=$t; $(tail -1 "$OUT/test.log")")

stage "compute-sanitizer memcheck + racecheck (tiny sizes)"
timeout 150 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 $B/tests/gpu/test_gpu_palette --sanitize >"$OUT/memcheck.log" 2>&1
mc=$?; grep -E "ERROR SUMMARY|passed|FAIL" "$OUT/memcheck.log" | tail -4
summary+=("memcheck: rc=$mc; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1); $(grep -E '^[0-9]+ passed' "$OUT/memcheck.log" | tail -1)")
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/gpu/test_gpu_palette --sanitize >"$OUT/racecheck.log" 2>&1
rcs=$?; grep -E "SUMMARY|passed|FAIL" "$OUT/racecheck.log" | tail -4
summary+=("racecheck: rc=$rcs; $(grep -E 'SUMMARY' "$OUT/racecheck.log" | tail -1); $(grep -E '^[0-9]+ passed' "$OUT/racecheck.log" | tail -1)")

stage "benchmark"
timeout 120 $B/tests/gpu/bench_gpu --sizes 4096 --methods palette --palette 2,8,16,17,256 --runs 5 >"$OUT/bench-4k.log" 2>&1
summary+=("bench 4096: rc=$?")
if [ $QUICK -eq 0 ]; then
  timeout 240 $B/tests/gpu/bench_gpu --sizes 16384 --methods palette --palette 16 --runs 5 >"$OUT/bench-16k.log" 2>&1
  summary+=("bench 16384: rc=$?")
fi

stage "summary"
grep -h "^| " "$OUT"/bench-*.log | grep -v -- "---" | grep -v "^| size"
printf '%s\n' "${summary[@]}"
