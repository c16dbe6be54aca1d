#!/usr/bin/env bash
# The studio on the GPU machine, which has a GPU but no Qt and no network (see the GPU section of README.md and
# docs/testing.md, "The studio on the GPU machine").
#
#   scripts/device-studio.sh prepare   HERE (Debian 12, network): build the studio and its Qt Test units with the
#                                      studio-gpu preset (GUI and CUDA on, OpenImageIO off), fetch the Debian packages
#                                      of every shared library they and Qt's offscreen and image-format plugins load
#                                      (apt-get download; libc, libm, libstdc++ and libgcc_s come from the machine),
#                                      plus a DejaVu font, unpack them (dpkg -x) and pack it all into
#                                      .device/studio.tar.xz, the one file the device call carries.
#   scripts/device-studio.sh run       ON THE GPU MACHINE (one call): unpack, point the loader, Qt and fontconfig at
#                                      the unpacked runtime, run the studio's Qt Test units offscreen with the GPU
#                                      usable (test_studio_gpu included), the studio's screenshots and the
#                                      click-to-result times of a 24-megapixel photo on GPU and CPU; logs and PNGs go
#                                      to $OUT; a short table comes LAST.
#
# A checkout prepared once can be carried again: `run` needs only .device/studio.tar.xz and the source tree.
set -u -o pipefail
cmd=${1:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
B=build/studio-gpu
PACK=.device/studio.tar.xz
RT=.device/studio  # unpacked runtime: usr/lib/..., usr/share/fonts/..., fonts.conf
# Every studio unit but test_studio_job, whose batches write PNG files through io/ (this build writes only PNM) and
# test_hostile_studio, which needs OpenImageIO to make its files.
TESTS="test_studio_gpu test_studio_imageload test_studio_methodpanel test_studio_jobrunner test_studio_compareview
       test_studio_scheduleview test_studio_benchmark test_studio_mainwindow test_studio_latencyprobe
       test_studio_qualitypanel test_studio_palette"

prepare() {
    set -e
    local jobs=${JOBS:-2}
    cmake --preset studio-gpu ${HALFTONE_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$HALFTONE_LAUNCHER \
          -DCMAKE_CUDA_COMPILER_LAUNCHER=$HALFTONE_LAUNCHER} >/dev/null
    # shellcheck disable=SC2086
    cmake --build $B -j "$jobs" --target halftone-studio $TESTS
    local bins=("$B/app/studio/halftone-studio")
    for t in $TESTS; do bins+=("$B/tests/$t"); done
    local qtplugins=/usr/lib/x86_64-linux-gnu/qt6/plugins
    local plugins=("$qtplugins/platforms/libqoffscreen.so" "$qtplugins"/imageformats/*.so)

    # The Debian package of every library the programs and plugins load, minus the C and C++ runtimes, which the
    # GPU machine has in newer versions (glibc 2.39).
    local pkgs
    pkgs=$(for f in "${bins[@]}" "${plugins[@]}"; do ldd "$f"; done | awk '/=> \//{print $3}' | sort -u |
        xargs -r -n1 readlink -f | while read -r f; do dpkg -S "$f" 2>/dev/null || dpkg -S "${f#/usr}" 2>/dev/null; done |
        cut -d: -f1 | sort -u |
        grep -vxE 'libc6|libstdc\+\+6|libgcc-s1' || true)
    pkgs="$pkgs libqt6gui6 fonts-dejavu-core"  # the plugins themselves; a font for the offscreen text
    echo "packages: $(echo $pkgs | wc -w)"
    rm -rf .device/debs "$RT" && mkdir -p .device/debs "$RT"
    # shellcheck disable=SC2086
    (cd .device/debs && apt-get download $pkgs 2>&1 | grep -vE '^(Get|Fetched|W: Download is performed unsandboxed)' || true)
    for d in .device/debs/*.deb; do dpkg -x "$d" "$RT"; done
    ls .device/debs > "$RT/packages.txt"
    cat > "$RT/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir prefix="relative">usr/share/fonts</dir>
  <cachedir>/tmp/halftone-studio-fontconfig</cachedir>
</fontconfig>
EOF
    # Programs keep the absolute source path of this checkout (test data, the studio executable): `run` links it.
    echo "$ROOT" > "$RT/source-dir.txt"
    rm -rf "$RT"/usr/share/doc "$RT"/usr/share/man "$RT"/usr/share/lintian
    tar -cf - "${bins[@]}" "$RT" | xz -T2 -9 > "$PACK"
    echo "packed $PACK: $(du -h "$PACK" | cut -f1) ($(echo "${bins[@]}" | wc -w) programs, $(ls .device/debs | wc -l) packages)"
}

run() {
    # Logs and PNGs gather in $OUT/run and come back as one archive, $OUT/studio-run.tar.gz (a device call returns
    # only a few files), beside the summary.
    local FINAL=${OUT:-/tmp/device-studio-out}
    OUT=$FINAL/run
    mkdir -p "$OUT/screenshots"
    local summary=()
    stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
    [ -f "$PACK" ] || { echo "no $PACK: run 'scripts/device-studio.sh prepare' here first"; exit 1; }
    stage "unpack"
    tar -xJf "$PACK" || exit 1
    local src
    src=$(cat "$RT/source-dir.txt")
    if [ "$src" != "$ROOT" ] && [ ! -e "$src" ]; then
        mkdir -p "$(dirname "$src")" 2>/dev/null && ln -s "$ROOT" "$src" 2>/dev/null ||
            echo "warning: cannot link $src to $ROOT: tests that read tests/data will fail"
    fi
    local rt="$ROOT/$RT" lib
    lib="$rt/usr/lib/x86_64-linux-gnu"
    export LD_LIBRARY_PATH="$lib:$rt/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export QT_PLUGIN_PATH="$lib/qt6/plugins" QT_QPA_PLATFORM=offscreen FONTCONFIG_FILE="$rt/fonts.conf"
    export FONTCONFIG_PATH="$rt" QT_QPA_FONTDIR="$rt/usr/share/fonts/truetype/dejavu"
    export HALFTONE_SCREENSHOT_DIR="$OUT/screenshots"
    cd "$rt" || exit 1  # fontconfig's relative font folder
    local S="$ROOT/$B/app/studio/halftone-studio"

    stage "device"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee "$OUT/device.txt"
    local gpu
    gpu=$(head -1 "$OUT/device.txt")
    missing=$(ldd "$S" | grep "not found" || true)
    [ -z "$missing" ] || echo "missing libraries: $missing"

    stage "studio Qt Test units (offscreen, GPU usable)"
    local t rc line
    for t in $TESTS; do
        timeout 240 "$ROOT/$B/tests/$t" -maxwarnings 0 >"$OUT/$t.log" 2>&1
        rc=$?
        line=$(grep -E '^Totals:' "$OUT/$t.log" | tail -1)
        printf '%-28s rc=%-3s %s\n' "$t" "$rc" "$line"
        grep -E '^(FAIL!|SKIP  )' "$OUT/$t.log" | head -8
        summary+=("$(printf '%-28s rc=%-3s %s' "$t" "$rc" "$line")")
    done
    grep -E "GPU:|progress reports|cancelled at|16K x 16K|screenshot:" "$OUT/test_studio_gpu.log"

    stage "screenshots"
    local shots=$OUT/screenshots
    "$S" --device gpu --compare ec/wavefront,ec/bwec-rc,ed/ped2-atomic --size 1600x1000 --screenshot "$shots/compare-gpu.png" \
        >"$OUT/shot-compare.log" 2>&1
    summary+=("screenshot compare (GPU): rc=$?")
    "$S" --tab benchmark --size 1600x1000 --screenshot "$shots/benchmark-gpu.png" >"$OUT/shot-bench.log" 2>&1
    summary+=("screenshot benchmark (CPU + GPU sweep): rc=$?")
    "$S" --tab scheduling --method ec/wavefront --device gpu --size 1600x1000 --screenshot "$shots/scheduling-gpu.png" \
        >"$OUT/shot-sched.log" 2>&1
    summary+=("screenshot scheduling (GPU): rc=$?")
    cat "$OUT"/shot-*.log

    stage "click to result (test_studio_gpu photoClickToResult) and --ui-latency 16384"
    grep -oE "click to result: .*" "$OUT/test_studio_gpu.log" | tee "$OUT/click.txt"
    for dev in gpu cpu; do
        "$S" --ui-latency 16384 --method ec/wavefront --device $dev >"$OUT/latency-$dev.log" 2>&1
        summary+=("--ui-latency 16384 $dev: rc=$? $(grep -oE 'method [0-9.]+ s.*longest gap [0-9.]+ ms' "$OUT/latency-$dev.log")")
    done

    {
        echo
        echo "=== summary ($gpu)"
        printf '%s\n' "${summary[@]}"
        sed 's/^/  /' "$OUT/click.txt"
    } | tee "$FINAL/summary.txt"
    tar -C "$FINAL" -czf "$FINAL/studio-run.tar.gz" run && rm -rf "$OUT"
}

case "$cmd" in
prepare) prepare ;;
run) run ;;
*)
    echo "usage: scripts/device-studio.sh prepare|run   (see the comment at the top)"
    exit 2
    ;;
esac
