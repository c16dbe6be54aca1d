#!/usr/bin/env bash
# Formats every C++ and CUDA source with the pinned .clang-format; --check only reports files that differ.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=(-i)
[[ "${1:-}" == "--check" ]] && mode=(--dry-run --Werror)
git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | xargs clang-format-14 "${mode[@]}"
