#!/bin/sh
# Builds the libFuzzer targets (fuzz preset) and fuzzes one for SECONDS (default 600): load (the image loader, the
# default), preset (the preset reader), palette (palette files) or psd (Photoshop files).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET]
# New inputs go to build/fuzz/corpus-TARGET (seeded from tests/data); crashers to build/fuzz/crashes-TARGET:
# copy each into tests/data/hostile/ once its cause is fixed. Log: build/fuzz/fuzz-TARGET.log.
set -eu
SECONDS_TO_RUN=${1:-600}
TARGET=${2:-load}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build/fuzz"
cd "$ROOT"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${JOBS:-2}"
CORPUS="$BUILD/corpus-$TARGET" CRASHES="$BUILD/crashes-$TARGET" LOG="$BUILD/fuzz-$TARGET.log"
mkdir -p "$CORPUS" "$CRASHES" "$BUILD/tmp"
SEEDS="$BUILD/seeds-$TARGET"
rm -rf "$SEEDS"; mkdir -p "$SEEDS"
# Seeds: for the loader every test file below 256 KiB (large ones only slow each run), hostile files included;
# for the others the files of their kind.
case "$TARGET" in
  load) find tests/data -type f -size -256k ! -name '*.py' ! -name '*.md' ! -name '*.json' -exec cp {} "$SEEDS/" \; ;;
  preset) find tests/data docs -type f -name '*.json' -size -256k -exec cp {} "$SEEDS/" \; ;;
  palette) find tests/data/palettes -type f -exec cp {} "$SEEDS/" \; ;;
  psd) find tests/data -type f -name '*.psd' -exec cp {} "$SEEDS/" \; ;;
  *) echo "unknown target '$TARGET': load, preset, palette or psd" >&2; exit 2 ;;
esac
# OpenImageIO keeps process-wide caches that LeakSanitizer would report; we look for memory errors.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
export HALFTONE_FUZZ_TMP="$BUILD/tmp"
# -fork=1 -ignore_*: one worker process that is restarted after a crash, timeout or OOM, so a run of
# SECONDS finds more than the first problem; every problem input is kept in build/fuzz/crashes.
"$BUILD/tests/fuzz/fuzz_$TARGET" -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -rss_limit_mb=2048 -timeout=20 \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -artifact_prefix="$CRASHES/" -print_final_stats=1 "$CORPUS" "$SEEDS" >"$LOG" 2>&1
grep -E "^#[0-9]+:|INFO: fuzzed for|crash|timeout|oom|leak|ERROR" "$LOG" | grep -v "^INFO: -" | tail -n 20
ls -l "$CRASHES"
