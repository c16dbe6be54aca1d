#!/bin/sh
# Builds the `asan` preset (AddressSanitizer + UndefinedBehaviorSanitizer, CUDA off) and runs the whole
# test suite under it. Usage: scripts/asan.sh [ctest arguments...]   (JOBS=N sets build/test parallelism)
# Installs missing Debian packages first (scripts/deps.sh: g++ brings libasan8/libubsan1). Its own build
# tree (build/asan): a second run rebuilds only what changed. CI (.ci/run) runs it after scripts/test.sh.
# Leaks inside system libraries (Qt, fontconfig, OpenImageIO's plugins) are suppressed by name in
# scripts/lsan.supp; leaks in our code still fail the run. UBSan findings abort the test that hit them.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
JOBS=${JOBS:-2}
start=$(date +%s)
bash scripts/deps.sh
cmake --preset asan
cmake --build --preset asan -j "$JOBS"
built=$(date +%s)
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ROOT/scripts/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Qt Test ends a test function after 5 minutes; instrumented, the palette forms' exactness rows (256 colours,
# every form, thread count and match) take longer, so the sanitizer stage gives each function 40 minutes.
export QTEST_FUNCTION_TIMEOUT="${QTEST_FUNCTION_TIMEOUT:-2400000}"
status=0
ctest --preset asan -j "$JOBS" --timeout 3000 "$@" || status=$?
end=$(date +%s)
echo "asan.sh: build $((built - start)) s, tests $((end - built)) s, exit $status"
exit $status
