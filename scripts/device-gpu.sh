#!/usr/bin/env bash
# Everything the GPU machine verifies, in one call of at most 10 minutes, with a short table printed last:
#   1. the GPU tests: test_gpu, test_gpu_palette, test_dbs_gpu, test_gpu_planepool, test_cli_gpu, the injected faults,
#      and test_gpu_paths (the `halftone` CLI as a process for every GPU variant, kernel, level count, palette size and
#      GPU DBS variant against the CPU bit for bit, three rounds, each run under a watchdog that names a hung case);
#   2. compute-sanitizer memcheck and racecheck on the tests' tiny sizes;
#   3. the benchmark: the device-resident wavefront (bench_gpu), the host path in process (bench_hostpath), and files
#      the way a user runs them: 16K x 16K PGM -> PBM and PGM -> PGM, a batch of 64 images of 4096 x 4096, each with
#      --device gpu, --device cpu (all cores) and --device auto, alternating, medians of wall times.
# Logs go to $OUT. The gpu-device preset builds here without Qt and OpenImageIO; CLI11 travels in .device/include.
#
# Usage: OUT=DIR bash scripts/device-gpu.sh [--quick]   (--quick: one round of test_gpu_paths, small sizes only)
#        STAGES=tests,paths,sanitize,bench (the default: all) runs only the named stages
#        bash scripts/device-gpu.sh pack                 (on the dev machine: build the gpu-device preset here and pack
#                                                          its binaries into .device/gpu-device.tar.xz; a call that
#                                                          carries .device then runs them instead of building, as long
#                                                          as the sources are the ones they were built from)
set -u -o pipefail
cd "$(dirname "$0")/.."
B=build/gpu-device
TARGETS="halftone test_gpu test_gpu_palette test_dbs_gpu test_gpu_planepool test_gpu_faults test_cli_gpu test_gpu_paths
bench_gpu bench_hostpath"
PACK=.device/gpu-device.tar.xz

# A digest of every file the build reads: binaries are used only with the sources they were built from.
sourceDigest() {
  find CMakeLists.txt CMakePresets.json core io gpu app tests resources -type f \
    \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name 'CMakeLists.txt' -o -name '*.json' \
    -o -name '*.in' \) 2>/dev/null | LC_ALL=C sort | xargs sha1sum | sha1sum | cut -c1-40
}

if [ "${1:-}" = "pack" ]; then
  mkdir -p .device/include
  [ -d .device/include/CLI ] || cp -r /usr/include/CLI .device/include/
  digest=$(sourceDigest)
  cmake --preset gpu-device >/dev/null || exit 1
  # shellcheck disable=SC2086
  cmake --build $B -j "$(nproc)" --target $TARGETS || exit 1
  [ "$(sourceDigest)" = "$digest" ] || { echo "the sources changed during the build: pack again"; exit 1; }
  list=(); for t in $TARGETS; do list+=("$(find $B -type f -name "$t" -perm -u+x | head -1)"); done
  echo "$digest" >$B/source-digest
  XZ_OPT=-9 tar -cJf "$PACK" "${list[@]}" $B/source-digest
  ls -la "$PACK"
  exit 0
fi

OUT=${OUT:-/tmp/device-gpu-out}
mkdir -p "$OUT"
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
STAGES=",${STAGES:-tests,paths,sanitize,bench},"
want() { [[ $STAGES == *",$1,"* ]]; }
summary=()
row() { summary+=("$(printf '| %-44s | %s |' "$1" "$2")"); }
stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
T0=$(date +%s)

stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee "$OUT/device.txt"
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(nproc) cores" | tee -a "$OUT/device.txt"
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo "?")}
row "device" "$(head -1 "$OUT/device.txt" | cut -d, -f1), $(nproc) CPU cores; tree $COMMIT"

stage "build"
if [ -f "$PACK" ] && tar -xJf "$PACK" && [ "$(cat $B/source-digest 2>/dev/null)" = "$(sourceDigest)" ]; then
  echo "binaries from $PACK (built from these sources)"
  row "build" "carried binaries (source digest matches)"
else
  [ -f "$PACK" ] && echo "$PACK was built from other sources: building here"
  export CPATH="$PWD/.device/include${CPATH:+:$CPATH}"
  cmake --preset gpu-device >"$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
  # shellcheck disable=SC2086
  cmake --build $B -j "$(nproc)" --target $TARGETS >"$OUT/build.log" 2>&1
  rc=$?; grep -E "error|warning" "$OUT/build.log" | head -20
  row "build" "rc=$rc in $(($(date +%s) - T0)) s"
  [ $rc -eq 0 ] || { printf '%s\n' "${summary[@]}"; exit 1; }
fi
bin() { find $B -type f -name "$1" -perm -u+x | head -1; }
H=$(bin halftone)

# runtest NAME LIMIT CMD...: the test's last line (its counts) into the table; the whole log in $OUT/NAME.log
runtest() {
  local name=$1 limit=$2; shift 2
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  local last; last=$(grep -E "passed|SKIP" "$OUT/$name.log" | tail -1)
  [ $rc -eq 124 ] && last="TIMED OUT after $limit s; $last"
  grep -E "^FAIL|HANG" "$OUT/$name.log" | head -5
  echo "$name: rc=$rc $last"
  row "$name" "rc=$rc; $last"
}

if want tests; then
stage "GPU tests"
runtest test_gpu_small 150 "$(bin test_gpu)" --small
runtest test_gpu_palette_small 90 "$(bin test_gpu_palette)" --small
runtest test_dbs_gpu_small 120 "$(bin test_dbs_gpu)" --small
runtest test_gpu_planepool_small 90 "$(bin test_gpu_planepool)" --small
runtest test_cli_gpu 120 "$(bin test_cli_gpu)"
for f in launch trap trap-progress oom; do runtest "test_gpu_faults_$f" 90 "$(bin test_gpu_faults)" "$f"; done
fi
if want paths; then
stage "the product's path: halftone as a process for every GPU case"
if [ $QUICK -eq 1 ]; then
  runtest test_gpu_paths_small 240 "$(bin test_gpu_paths)" --small --jobs 8 --limit 30
else
  runtest test_gpu_paths_x3 330 "$(bin test_gpu_paths)" --repeat 3 --jobs 8 --limit 30
fi
grep -B2 -A40 "stacks of the hung" "$OUT"/test_gpu_paths*.log | head -60
fi

if want sanitize; then
stage "compute-sanitizer (tiny sizes)"
sanitize() {
  local name=$1 tool=$2; shift 2
  timeout "${SANITIZE_LIMIT:-150}" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "$name: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$name.log" | tail -1)"
  row "$name" "rc=$rc; $(grep -E 'SUMMARY' "$OUT/$name.log" | tail -1); $(grep -E 'passed' "$OUT/$name.log" | tail -1)"
}
sanitize memcheck memcheck --leak-check no "$(bin test_gpu)" --sanitize
sanitize memcheck_palette memcheck --leak-check no "$(bin test_gpu_palette)" --sanitize
sanitize racecheck racecheck "$(bin test_gpu)" --sanitize
fi

if want bench; then
stage "benchmark: the wavefront on the device (16K x 16K)"
timeout 120 "$(bin bench_gpu)" --sizes 16384 --methods wavefront --no-kernels --no-palette --runs "${BENCH_RUNS:-9}" --md "$OUT/bench.md" \
  >"$OUT/bench.log" 2>&1
echo "bench_gpu rc=$?"; grep -E "^\| 16384 \| wavefront" "$OUT/bench.log" | head -4
row "FS 16K device-resident (bench_gpu)" "$(grep -E '^\| 16384 \| wavefront' "$OUT/bench.log" | head -1 | cut -c1-90)"

stage "benchmark: the host path in process (16K)"
timeout 90 "$(bin bench_hostpath)" --size 16384 --runs 5 --threads "$(nproc)" >"$OUT/hostpath.log" 2>&1
cat "$OUT/hostpath.log" | cut -c1-140

stage "benchmark: files the way a user runs them"
W=$PWD/device-gpu-work
mkdir -p "$W/batch"
python3 - "$W" <<'EOF'
import os, sys
w = sys.argv[1]
def pgm(path, width, height, seed):
    import random
    rnd = random.Random(seed)
    row = bytes(rnd.randrange(256) for _ in range(width))
    with open(path, 'wb') as f:
        f.write(b'P5\n%d %d\n255\n' % (width, height))
        # rows shifted copies of one random row, plus a ramp: not all equal, cheap to make
        for y in range(height):
            k = (y * 7919) % width
            f.write(row[k:] + row[:k])
pgm(os.path.join(w, 'in16k.pgm'), 16384, 16384, 1)
pgm(os.path.join(w, 'batch', 'p00.pgm'), 4096, 4096, 2)
EOF
for i in $(seq 1 63); do cp "$W/batch/p00.pgm" "$W/batch/p$(printf %02d "$i").pgm"; done
NP=$(nproc)
# wall DEVICE OUTFILE ARGS...: one run's wall time in ms; --time lines kept in $OUT/time-<device>.txt
wall() {
  local dev=$1 out=$2; shift 2
  local s e; s=$(date +%s%N)
  "$H" --time --device "$dev" --threads "$NP" "$@" "$out" 2>"$OUT/last-$dev.err" >/dev/null || echo "FAILED: $dev $*" >&2
  e=$(date +%s%N)
  echo $(((e - s) / 1000000))
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
# compare NAME EXT ARGS...: 5 alternating runs each of gpu, cpu and auto; medians and ratios into the table
compare() {
  local name=$1 ext=$2; shift 2
  local g=() c=() a=()
  for i in $(seq 1 "${FILE_RUNS:-5}"); do
    g+=("$(wall gpu "$W/out-gpu.$ext" "$@")"); cp "$OUT/last-gpu.err" "$OUT/time-gpu-$name.txt"
    c+=("$(wall cpu "$W/out-cpu.$ext" "$@")"); cp "$OUT/last-cpu.err" "$OUT/time-cpu-$name.txt"
    a+=("$(wall auto "$W/out-auto.$ext" "$@")"); cp "$OUT/last-auto.err" "$OUT/time-auto-$name.txt"
  done
  local mg mc ma; mg=$(median "${g[@]}"); mc=$(median "${c[@]}"); ma=$(median "${a[@]}")
  local same="identical"; cmp -s "$W/out-gpu.$ext" "$W/out-cpu.$ext" || same="DIFFERENT"
  cmp -s "$W/out-auto.$ext" "$W/out-cpu.$ext" || same="$same; auto DIFFERENT"
  echo "$name: gpu ${g[*]} | cpu ${c[*]} | auto ${a[*]} ms; files $same"
  echo "  gpu: $(grep -h 'start-up' "$OUT/time-gpu-$name.txt")"
  echo "  gpu: $(grep -h 'stages' "$OUT/time-gpu-$name.txt")"
  echo "  cpu: $(grep -h 'stages' "$OUT/time-cpu-$name.txt")"
  echo "  auto: $(grep -h 'device' "$OUT/time-auto-$name.txt" | head -2 | tr '\n' ' ')"
  row "$name" "gpu $mg ms, cpu $mc ms (gpu/cpu $(awk "BEGIN{printf \"%.2f\", $mg/$mc}")), auto $ma ms; $same"
  row "  GPU start-up (beside the read)" "$(grep -ohE 'GPU start-up .*' "$OUT/time-gpu-$name.txt" | head -1 | cut -c1-110)"
  row "  method stage gpu / cpu" "$(grep -ohE 'method [0-9.]+ s' "$OUT/time-gpu-$name.txt" | head -1) / $(grep -ohE 'method [0-9.]+ s' "$OUT/time-cpu-$name.txt" | head -1)"
}
EC=(--method ec --variant wavefront)
compare "16K PGM->PBM" pbm "${EC[@]}" "$W/in16k.pgm"
compare "16K PGM->PGM" pgm "${EC[@]}" "$W/in16k.pgm"
# a batch of 64 x 4096^2 to PBM: throughput, alternating
bt() {
  local dev=$1 s e; rm -rf "$W/bout-$dev"; s=$(date +%s%N)
  "$H" batch --device "$dev" "${EC[@]}" --format pbm --out-dir "$W/bout-$dev" "$W/batch" >"$OUT/batch-$dev.log" 2>&1 ||
    echo "FAILED: batch $dev" >&2
  e=$(date +%s%N); echo $(((e - s) / 1000000))
}
bg=(); bc=(); ba=()
for i in $(seq 1 "${BATCH_RUNS:-3}"); do bg+=("$(bt gpu)"); bc+=("$(bt cpu)"); ba+=("$(bt auto)"); done
same=identical; diff -rq "$W/bout-gpu" "$W/bout-cpu" >/dev/null || same=DIFFERENT
mg=$(median "${bg[@]}"); mc=$(median "${bc[@]}"); ma=$(median "${ba[@]}")
echo "batch 64 x 4096^2 -> PBM: gpu ${bg[*]} | cpu ${bc[*]} | auto ${ba[*]} ms; $same"
row "batch 64 x 4096^2 -> PBM" "gpu $mg ms, cpu $mc ms (throughput gpu/cpu $(awk "BEGIN{printf \"%.2f\", $mc/$mg}")), auto $ma ms; $same"
rm -rf "$W"
fi

stage "summary ($(($(date +%s) - T0)) s)"
printf '| %-44s | %s |\n' "what" "result"
printf '%s\n' "${summary[@]}"
