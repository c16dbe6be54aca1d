#!/usr/bin/env bash
# One call on the GPU machine (see the GPU section of README.md): configure the gpu-device preset, build the GPU
# targets with all cores, run the GPU tests (ctest), compute-sanitizer memcheck + racecheck on tiny
# sizes, GPU DBS on small sizes and the injected faults, the GPU benchmark for 1K..16K, then print a short
# table LAST. Logs go to $OUT.
# Needs CLI11 in .device/include/CLI (carry: [".device"]) because the machine has no CLI11 package.
# Usage: scripts/device-gpu.sh [--quick]   (--quick: small tests only, shorter limits, bench 1K/4K/16K)
set -u -o pipefail
OUT=${OUT:-/tmp/device-gpu-out}
mkdir -p "$OUT"
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
B=build/gpu-device
summary=()
stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee "$OUT/device.txt"

stage "configure"
cmake --preset gpu-device -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1
cfg=$?; tail -3 "$OUT/configure.log"
summary+=("configure: rc=$cfg")

stage "build"
cmake --build $B -j "$(nproc)" --target test_gpu test_gpu_palette bench_gpu test_dbs_gpu test_gpu_faults >"$OUT/build.log" 2>&1
bld=$?; grep -E "error|warning|FAILED" "$OUT/build.log" | head -20; tail -2 "$OUT/build.log"
summary+=("build (test_gpu test_gpu_palette bench_gpu test_dbs_gpu test_gpu_faults): rc=$bld")
[ $bld -eq 0 ] || { printf '%s\n' "${summary[@]}"; exit 1; }
# halftone-bench (owned by the bench's main) carries the GPU section; bench_gpu is the stand-alone driver
hbok=1
if cmake --build $B --target help 2>/dev/null | grep -q "halftone-bench"; then
  cmake --build $B -j "$(nproc)" --target halftone-bench >"$OUT/build-bench.log" 2>&1 && hbok=0
  summary+=("build halftone-bench: rc=$hbok")
fi

stage "ctest (GPU tests)"
if [ $QUICK -eq 1 ]; then tests="test_gpu_small|test_gpu_palette_small"; else tests="test_gpu|test_gpu_palette"; fi
T=360; [ $QUICK -eq 1 ] && T=180
timeout $T ctest --test-dir $B -R "^(${tests})\$" --timeout $T -V >"$OUT/ctest.log" 2>&1
ct=$?; grep -E "FAIL|passed|Passed|Failed|tests passed|SKIP|device:" "$OUT/ctest.log" | tail -15
summary+=("ctest $tests: rc=$ct; $(grep -oE '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$OUT/ctest.log" | tail -1)")

stage "compute-sanitizer memcheck (tiny sizes)"
timeout 120 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 $B/tests/gpu/test_gpu --sanitize >"$OUT/memcheck.log" 2>&1
mc=$?; grep -E "ERROR SUMMARY|passed|FAIL" "$OUT/memcheck.log" | tail -5
summary+=("memcheck: rc=$mc; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1); $(grep -E '^[0-9]+ passed' "$OUT/memcheck.log" | tail -1)")

timeout 120 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 $B/tests/gpu/test_gpu_palette --sanitize >"$OUT/memcheck-palette.log" 2>&1
mcp=$?; grep -E "ERROR SUMMARY|passed|FAIL" "$OUT/memcheck-palette.log" | tail -5
summary+=("memcheck palette: rc=$mcp; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-palette.log" | tail -1); $(grep -E '^[0-9]+ passed' "$OUT/memcheck-palette.log" | tail -1)")

stage "compute-sanitizer racecheck (tiny sizes)"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/gpu/test_gpu --sanitize >"$OUT/racecheck.log" 2>&1
rcs=$?; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed|FAIL" "$OUT/racecheck.log" | tail -5
summary+=("racecheck: rc=$rcs; $(grep -E 'SUMMARY' "$OUT/racecheck.log" | tail -1); $(grep -E '^[0-9]+ passed' "$OUT/racecheck.log" | tail -1)")

stage "GPU DBS (test_dbs_gpu --small) and injected faults (launch, trap)"
timeout 150 $B/tests/gpu/test_dbs_gpu --small >"$OUT/dbs.log" 2>&1
db=$?; grep -E "FAIL|SKIP|compared|passed" "$OUT/dbs.log" | tail -5
summary+=("test_dbs_gpu --small: rc=$db; $(tail -1 "$OUT/dbs.log")")
for f in launch trap; do
  timeout 90 $B/tests/gpu/test_gpu_faults $f >"$OUT/fault-$f.log" 2>&1
  fr=$?; grep -E "FAIL|SKIP|passed" "$OUT/fault-$f.log" | tail -3
  summary+=("test_gpu_faults $f: rc=$fr; $(tail -1 "$OUT/fault-$f.log")")
done

stage "benchmark"
if [ $QUICK -eq 1 ]; then sizes=1024,4096,16384; else sizes=1024,2048,4096,8192,16384; fi
BT=300; [ $QUICK -eq 1 ] && BT=200
if [ $hbok -eq 0 ] && [ -x $B/app/halftone-bench ]; then
  # halftone-bench's gpu section: --sizes plus 16384; the full table goes to <workdir>/gpu-ed.md
  small=${sizes%,16384}
  timeout $BT $B/app/halftone-bench --sections gpu --sizes $small >"$OUT/bench.log" 2>&1; bn=$?
  cp /tmp/gpu-ed.md "$OUT/bench.md" 2>/dev/null
else
  timeout $BT $B/tests/gpu/bench_gpu --sizes $sizes --md "$OUT/bench.md" >"$OUT/bench.log" 2>&1; bn=$?
fi
summary+=("bench: rc=$bn")
cat "$OUT/bench.log" | grep -v "^|" | tail -3

stage "summary"
grep -E "^\| (16384|4096) \| (wavefront|bwec-rc|bwed-rc|knight|pec2|ped)" "$OUT/bench.log" | cut -c1-140 | head -24
printf '%s\n' "${summary[@]}"
grep -A12 "^Summary" "$OUT/bench.log"
