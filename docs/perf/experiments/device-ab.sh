#!/usr/bin/env bash
# Session 10/11 A/B driver: unpacks .device/bin/*.gz, runs test_gpu $TESTS (if set), then for ROUNDS rounds each
# bench_$VARIANT at 16K (--methods wavefront --shapes $SHAPES --runs $RUNS, verified) and a trace run ($TL runs).
# Run from the repository root on the GPU machine, carrying [".device"] (bench_<variant>.gz, test_gpu.gz built here):
#   TESTS="--only wavefront --small" VARIANTS="def a16" ROUNDS=2 SHAPES=f0 TL=3 OUT=$OUT bash docs/perf/experiments/device-ab.sh
set -u
OUT=${OUT:-/tmp/s10}; mkdir -p "$OUT"
X=/tmp/s10bin; mkdir -p $X
for f in .device/bin/*.gz; do n=$(basename "$f" .gz); gunzip -c "$f" > $X/$n; chmod +x $X/$n; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
SHAPES=${SHAPES:-f0}; ROUNDS=${ROUNDS:-2}; RUNS=${RUNS:-11}; TL=${TL:-3}; VARIANTS=${VARIANTS:-def}
summ=()
if [ -n "${TESTS:-}" ]; then
  timeout ${TT:-240} $X/test_gpu $TESTS > "$OUT/test.log" 2>&1; trc=$?
  grep -E "FAIL" "$OUT/test.log" | head -10
  summ+=("test_gpu $TESTS: rc=$trc $(grep -E '[0-9]+ passed' "$OUT/test.log" | tail -1)")
fi
for r in $(seq $ROUNDS); do for v in $VARIANTS; do
  [ -x $X/bench_$v ] || { summ+=("no bench_$v"); continue; }
  timeout 150 $X/bench_$v --sizes 16384 --methods wavefront --shapes $SHAPES --runs $RUNS > "$OUT/bench_${v}_$r.log" 2>&1; brc=$?
  while read -r l; do summ+=("r$r $v rc=$brc $l"); done < <(grep -E '^\| 16384' "$OUT/bench_${v}_$r.log" | cut -c1-120)
  HALFTONE_WAVEFRONT_TRACE=1 timeout 90 $X/bench_$v --sizes 16384 --methods wavefront --shapes $SHAPES --runs $TL --no-verify > "$OUT/trace_${v}_$r.log" 2>&1
  t=$(grep "^trace" "$OUT/trace_${v}_$r.log" | tail -1 | sed -E 's/.*median ([0-9.]+) first ([0-9.]+).*lag between strips \(chunk 96\) median ([0-9]+) ns.*failed checks median ([0-9]+), poll loads median ([0-9]+), chunks computed again median ([0-9]+) \(mean ([0-9.]+)\).*/step \1 first \2 ns lag \3 ns fails \4 polls \5 redo \6 (mean \7)/; s/.*median ([0-9.]+) first ([0-9.]+).*lag between strips \(chunk 96\) median ([0-9]+) ns.*failed checks median ([0-9]+), poll loads median ([0-9]+);.*/step \1 first \2 ns lag \3 ns fails \4 polls \5/')
  summ+=("r$r $v trace: $t")
done; done
(cd "$OUT" && tar czf logs.tgz --remove-files ./*.log device.txt 2>/dev/null)  # one file back (the tool returns few files)
echo; echo "=== summary"; printf '%s\n' "${summ[@]}"
