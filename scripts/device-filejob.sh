#!/usr/bin/env bash
# The whole job on the GPU machine, file to file: builds the gpu-device preset (no Qt, no OpenImageIO: PGM and PBM go
# through the built-in PNM codec), runs the CLI-on-GPU-vs-CPU test, the small GPU tests and the injected faults, then
# times a 16K x 16K PGM to PBM and to PGM with `halftone --device gpu` against `--device cpu --threads 16` (wall time,
# median of 5, plus the --time breakdown of the last run) and the in-process host-to-host path (bench_hostpath).
# Logs go to $OUT. Usage: scripts/device-filejob.sh [SIZE]   (default 16384)
set -u -o pipefail
OUT=${OUT:-/tmp/device-filejob-out}
mkdir -p "$OUT"
N=${1:-16384}
B=build/gpu-device
stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

stage "device"
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv 2>&1 |
  tee "$OUT/device.txt"
grep -m1 "model name" /proc/cpuinfo | tee -a "$OUT/device.txt"
nproc | tee -a "$OUT/device.txt"

stage "configure and build"
cmake --preset gpu-device -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
cmake --build $B -j "$(nproc)" --target halftone test_cli_gpu test_gpu bench_hostpath test_gpu_faults \
  >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" -A3 "$OUT/build.log" | head -40; exit 1; }
tail -1 "$OUT/build.log"

stage "tests"
timeout 300 ctest --test-dir $B -R '^(test_cli_gpu|test_gpu_small)$' --timeout 300 -V >"$OUT/ctest.log" 2>&1
echo "ctest rc=$?"; grep -E "FAIL|passed|SKIP|device:|tests passed|Failed" "$OUT/ctest.log" | tail -8
for f in launch trap trap-progress oom; do
  timeout 120 $B/tests/gpu/test_gpu_faults $f >"$OUT/fault-$f.log" 2>&1
  echo "test_gpu_faults $f: rc=$? $(grep -E 'FAIL' "$OUT/fault-$f.log" | head -3) $(tail -1 "$OUT/fault-$f.log")"
done

stage "input ${N} x ${N}"
W=$PWD/filejob-work
mkdir -p "$W"
python3 -c "
import os, sys
n = int(sys.argv[1])
with open(sys.argv[2], 'wb') as f:
    f.write(b'P5\n%d %d\n255\n' % (n, n))
    f.write(os.urandom(n * n))
" "$N" "$W/in.pgm"
ls -la "$W/in.pgm"
H=$B/app/halftone

# timeit NAME CMD...: 5 runs, wall time of each in ms, the median, and the last run's --time lines
timeit() {
  local name=$1; shift
  local ts=()
  for i in 1 2 3 4 5; do
    local s=$(date +%s%N)
    "$@" >/dev/null 2>"$OUT/last.err" || { echo "$name: FAILED"; cat "$OUT/last.err"; return; }
    local e=$(date +%s%N)
    ts+=($(( (e - s) / 1000000 )))
  done
  local med=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 3p)
  echo "$name: wall ms ${ts[*]}; median $med"
  sed 's/^/    /' "$OUT/last.err"
}

stage "file to file (page cache warm; 5 runs each)"
EC="--method ec --variant wavefront"
timeit "gpu   PGM->PBM ec/wavefront" $H --time --device gpu $EC "$W/in.pgm" "$W/gpu.pbm"
timeit "cpu16 PGM->PBM ec/wavefront" $H --time --device cpu --threads 16 $EC "$W/in.pgm" "$W/cpu.pbm"
cmp "$W/gpu.pbm" "$W/cpu.pbm" && echo "PBM: GPU and CPU files identical"
timeit "gpu   PGM->PGM ec/wavefront" $H --time --device gpu $EC "$W/in.pgm" "$W/gpu.pgm"
timeit "cpu16 PGM->PGM ec/wavefront" $H --time --device cpu --threads 16 $EC "$W/in.pgm" "$W/cpu.pgm"
cmp "$W/gpu.pgm" "$W/cpu.pgm" && echo "PGM: GPU and CPU files identical"
timeit "auto  PGM->PBM (halftone IN OUT: ed, device auto)" $H --time "$W/in.pgm" "$W/auto.pbm"
timeit "cpu16 PGM->PBM ed (halftone --device cpu)" $H --time --device cpu --threads 16 "$W/in.pgm" "$W/autocpu.pbm"
timeit "read only: cpu PGM->PBM ordered (a method of no cost)" $H --time --device cpu --method ordered "$W/in.pgm" \
  "$W/ord.pbm"

stage "in process, host to host"
timeout 200 $B/tests/gpu/bench_hostpath --size "$N" --runs 7 --threads 16 2>&1
rm -rf "$W"
