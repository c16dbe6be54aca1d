#!/usr/bin/env bash
# The test command: installs what is missing (apt), configures, builds and runs every test.
# Usage: scripts/test.sh            (release build, all tests; GPU tests skip without a GPU)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
preset="${HALFTONE_PRESET:-release}"
jobs="$(nproc)"
echo "== configure ($preset)"
cmake --preset "$preset" >/dev/null
echo "== build"
cmake --build --preset "$preset" -j "$jobs"
echo "== test"
ctest --preset "$preset" -j "$jobs" --timeout 3000
