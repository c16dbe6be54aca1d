#!/bin/sh
# Writes docs/quality.md: the quality and speed of every registered CPU method (each kernel, scan order and screen
# the registry offers) on the shipped test images, a ramp and constant patches, as halftone-bench's quality section
# prints it (definitions: docs/spec.md section 3). Builds halftone-bench first. The "## Discussion" part of an existing
# docs/quality.md is kept, so a rerun after adding methods refreshes the numbers and leaves the discussion to edit.
# Usage, from the repository root: scripts/quality-table.sh [--runs N]   (BUILD_PRESET=release by default)
set -e
runs=5
if [ "$1" = "--runs" ] && [ -n "$2" ]; then runs=$2; fi
preset=${BUILD_PRESET:-release}
out=docs/quality.md
[ -d build/"$preset" ] || cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" --target halftone-bench -j2 >/dev/null
bench=build/$preset/app/halftone-bench
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

command="scripts/quality-table.sh --runs $runs (halftone-bench --sections quality --runs $runs)"
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build/"$preset"/CMakeCache.txt | head -n 1)
compiler_version=$("${compiler:-c++}" --version 2>/dev/null | head -n 1)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
"$bench" --sections quality --runs "$runs" >"$T/table.md"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

if [ -f "$out" ] && grep -q '^## Discussion' "$out"; then
    sed -n '/^## Discussion/,$p' "$out" >"$T/discussion.md"
else
    printf '## Discussion\n\n(to be written: where each method wins and loses, from the numbers above)\n' >"$T/discussion.md"
fi

{
    echo "# Quality and speed of the halftoning methods"
    echo
    echo "Every CPU method of the method registry, with each value of its kernel and other choice parameters, each scan"
    echo "order (raster, serpentine) and each preset screen, measured on the shipped test images, a gray ramp and"
    echo "constant patches: HVS-weighted error, filtered PSNR, tone error, anisotropy of the power spectrum (Ulichney) and"
    echo "the time on one thread. The measures are defined in [spec.md](spec.md) section 3 (\"The quality table\")."
    echo "Methods that only run on the GPU are not measured here; their images equal the CPU method they implement."
    echo
    echo "- Command: \`$command\`,"
    echo "  from the repository root; it rebuilds \`halftone-bench\` and rewrites this file above \"Discussion\"."
    echo "- Machine: ${cpu:-unknown CPU}, $(nproc) cores, ${os:-unknown system}; ${compiler_version:-unknown compiler},"
    echo "  preset \`$preset\`. Load average before and after the run: $load_before / $load_after (times are CPU time,"
    echo "  which other programs on the machine disturb far less than wall time)."
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')."
    cat "$T/table.md"
    echo
    cat "$T/discussion.md"
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
