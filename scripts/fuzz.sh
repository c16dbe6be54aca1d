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
case "$TARGET" in
  load | preset | palette | psd) ;;
  *) echo "unknown target '$TARGET': load, preset, palette or psd" >&2; exit 2 ;;
esac
bash scripts/deps.sh fuzz
cmake --preset fuzz >/dev/null
# Only the target fuzzed (and what it links): JOBS compile jobs, 2 unless set.
cmake --build "$BUILD" -j "${JOBS:-2}" --target "fuzz_$TARGET"
CORPUS="$BUILD/corpus-$TARGET" CRASHES="$BUILD/crashes-$TARGET" LOG="$BUILD/fuzz-$TARGET.log"
mkdir -p "$CORPUS" "$CRASHES" "$BUILD/tmp"
SEEDS="$BUILD/seeds-$TARGET"
rm -rf "$SEEDS"; mkdir -p "$SEEDS"
# Seeds: for the loader every test file below 256 KiB (large ones only slow each run), hostile files included;
# for the others the files of their kind, and for presets and PSD the valid ones of tests/fuzz/seeds/ (those of
# tests/data are mostly hostile).
case "$TARGET" in
  load) find tests/data -type f -size -256k ! -name '*.py' ! -name '*.md' ! -name '*.json' -exec cp {} "$SEEDS/" \; ;;
  preset) find tests/data docs tests/fuzz/seeds/preset -type f -name '*.json' -size -256k -exec cp {} "$SEEDS/" \; ;;
  palette) find tests/data/palettes -type f -exec cp {} "$SEEDS/" \; ;;
  psd) find tests/data tests/fuzz/seeds/psd -type f -name '*.psd' -exec cp {} "$SEEDS/" \; ;;
esac
# OpenImageIO keeps process-wide caches that LeakSanitizer would report: leaks are looked for only in the targets
# that do not load it (preset, palette); memory errors in all.
LEAKS=1
case "$TARGET" in load | psd) LEAKS=0 ;; esac
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=$LEAKS:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
export HALFTONE_FUZZ_TMP="$BUILD/tmp"
# A dictionary of the format's words where there is one (tests/fuzz/TARGET.dict: the preset's keys and values).
DICT=""
[ -f "tests/fuzz/$TARGET.dict" ] && DICT="-dict=tests/fuzz/$TARGET.dict"
# -fork=1 -ignore_*: one worker process that is restarted after a crash, timeout or OOM, so a run of
# SECONDS finds more than the first problem; every problem input is kept in build/fuzz/crashes.
"$BUILD/tests/fuzz/fuzz_$TARGET" -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -rss_limit_mb=2048 -timeout=20 \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -artifact_prefix="$CRASHES/" -print_final_stats=1 $DICT "$CORPUS" "$SEEDS" >"$LOG" 2>&1
grep -E "^#[0-9]+:|INFO: fuzzed for|crash|timeout|oom|leak|ERROR" "$LOG" | grep -v "^INFO: -" | tail -n 20
ls -l "$CRASHES"
