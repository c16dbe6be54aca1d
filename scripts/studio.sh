#!/usr/bin/env bash
# Runs the studio: installs what is missing of the packages it needs (apt; `scripts/deps.sh studio`: not the test and
# benchmark tools), builds the studio and the `halftone` CLI (not the tests or the benchmark: scripts/test.sh builds
# those in the same tree), and opens IMAGE (or the embedded sample).
# Usage: scripts/studio.sh [IMAGE]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh studio
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target halftone-studio halftone >/dev/null
studio=build/release/app/studio/halftone-studio
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  shot="$PWD/studio-screenshot.png"
  echo "No display found: running the studio under Xvfb and saving a screenshot to $shot"
  exec xvfb-run -a -s "-screen 0 1600x1000x24" "$studio" --screenshot "$shot" "$@"
fi
exec "$studio" "$@"
