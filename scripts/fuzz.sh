#!/bin/sh
# Builds the libFuzzer target (fuzz preset) and fuzzes the image loader for SECONDS (default 600).
# Usage: scripts/fuzz.sh [SECONDS]
# New inputs go to build/fuzz/corpus (seeded from tests/data); crashers to build/fuzz/crashes:
# copy each into tests/data/hostile/ once its cause is fixed. Log: build/fuzz/fuzz.log.
set -eu
SECONDS_TO_RUN=${1:-600}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build/fuzz"
cd "$ROOT"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${JOBS:-2}"
mkdir -p "$BUILD/corpus" "$BUILD/crashes" "$BUILD/tmp"
SEEDS="$BUILD/seeds"
rm -rf "$SEEDS"; mkdir -p "$SEEDS"
# Seeds: every test image below 256 KiB (large ones only slow each run), hostile files included.
find tests/data -type f -size -256k ! -name '*.py' ! -name '*.md' -exec cp {} "$SEEDS/" \;
# OpenImageIO keeps process-wide caches that LeakSanitizer would report; we look for memory errors.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
export HALFTONE_FUZZ_TMP="$BUILD/tmp"
# -fork=1 -ignore_*: one worker process that is restarted after a crash, timeout or OOM, so a run of
# SECONDS finds more than the first problem; every problem input is kept in build/fuzz/crashes.
"$BUILD/tests/fuzz/fuzz_load" -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -rss_limit_mb=2048 -timeout=20 \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -artifact_prefix="$BUILD/crashes/" -print_final_stats=1 "$BUILD/corpus" "$SEEDS" >"$BUILD/fuzz.log" 2>&1
grep -E "^#[0-9]+:|INFO: fuzzed for|crash|timeout|oom|leak|ERROR" "$BUILD/fuzz.log" | grep -v "^INFO: -" | tail -n 20
ls -l "$BUILD/crashes"
