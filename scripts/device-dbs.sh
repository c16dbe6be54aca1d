#!/usr/bin/env bash
# GPU DBS on the GPU machine in one call: configure the gpu-device preset in its own build dir, build
# test_dbs_gpu and halftone-bench, run test_dbs_gpu (--small first, the full set last), compute-sanitizer memcheck and
# racecheck on tiny sizes (test_dbs_gpu --sanitize), and halftone-bench --sections dbs; logs go to $OUT, a summary
# is printed last.
# Needs CLI11 in .device/include/CLI (carry: [".device"]) because the machine has no CLI11 package.
# Usage: scripts/device-dbs.sh [STAGES]   STAGES: comma list of small,bench,memcheck,racecheck,full (default: all)
# PREBUILT=DIR: skip configure and build and run DIR/tests/gpu/test_dbs_gpu and DIR/app/halftone-bench instead (binaries
# of a gpu-device-like build made on the dev machine, carried over: the device build of halftone_gpu takes ~4 min).
set -u -o pipefail
OUT=${OUT:-/tmp/device-dbs-out}
mkdir -p "$OUT"
STAGES=${1:-small,bench,memcheck,racecheck,full}
B=build/dbs-device
summary=()
has() { [[ ",$STAGES," == *",$1,"* ]]; }
stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee "$OUT/device.txt"

if [ -n "${PREBUILT:-}" ]; then
  B=$PREBUILT
  summary+=("prebuilt binaries from $B (not rebuilt here)")
else
  stage "configure + build"
  cmake --preset gpu-device -B $B -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1
  cfg=$?
  cmake --build $B -j "$(nproc)" --target test_dbs_gpu halftone-bench >"$OUT/build.log" 2>&1
  bld=$?
  grep -E "error|FAILED" "$OUT/build.log" | head -20; tail -2 "$OUT/build.log"
  summary+=("configure rc=$cfg, build (test_dbs_gpu halftone-bench) rc=$bld")
  [ $bld -eq 0 ] || { printf '%s\n' "${summary[@]}"; exit 1; }
fi
T=$B/tests/gpu/test_dbs_gpu

if has small; then
  stage "test_dbs_gpu --small"
  timeout 120 $T --small >"$OUT/test-small.log" 2>&1; r=$?
  grep -E "FAIL|compared|SKIP|seed\]" "$OUT/test-small.log" | head -20
  summary+=("test_dbs_gpu --small: rc=$r; $(tail -1 "$OUT/test-small.log")")
fi

if has bench; then
  stage "halftone-bench --sections dbs"
  timeout 180 $B/app/halftone-bench --sections dbs --threads "$(nproc)" --runs 2 >"$OUT/bench.log" 2>&1; r=$?
  cat "$OUT/bench.log"
  summary+=("bench: rc=$r")
fi

if has memcheck; then
  stage "compute-sanitizer memcheck (test_dbs_gpu --sanitize)"
  timeout 110 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 $T --sanitize >"$OUT/memcheck.log" 2>&1
  r=$?; grep -E "ERROR SUMMARY|compared|FAIL" "$OUT/memcheck.log" | tail -5
  summary+=("memcheck: rc=$r; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1); $(grep -E 'compared' "$OUT/memcheck.log" | tail -1)")
fi

if has racecheck; then
  stage "compute-sanitizer racecheck (test_dbs_gpu --sanitize)"
  timeout 110 compute-sanitizer --tool racecheck --error-exitcode 9 $T --sanitize >"$OUT/racecheck.log" 2>&1
  r=$?; grep -E "SUMMARY|compared|FAIL" "$OUT/racecheck.log" | tail -5
  summary+=("racecheck: rc=$r; $(grep -E 'SUMMARY' "$OUT/racecheck.log" | tail -1); $(grep -E 'compared' "$OUT/racecheck.log" | tail -1)")
fi

if has full; then
  stage "test_dbs_gpu (full)"
  timeout 150 $T >"$OUT/test-full.log" 2>&1; r=$?
  grep -E "FAIL|compared|SKIP|seed\]" "$OUT/test-full.log" | head -20
  summary+=("test_dbs_gpu (full): rc=$r; $(tail -1 "$OUT/test-full.log")")
fi

stage "summary"
printf '%s\n' "${summary[@]}"
