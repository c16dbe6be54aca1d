#!/usr/bin/env bash
# Installs the Debian 12 packages Halftone Studio needs, only those missing. Run by test.sh, asan.sh and studio.sh.
# Usage: scripts/deps.sh           everything: building, the tests, the .deb and the benchmark's reference tools
#        scripts/deps.sh studio    only what building and running the studio and the CLI need (scripts/studio.sh)
#        scripts/deps.sh fuzz      everything, and clang with libFuzzer for the fuzz preset (scripts/fuzz.sh)
set -euo pipefail
HALFTONE_PACKAGES=(
  g++ cmake ninja-build pkg-config                         # toolchain
  qt6-base-dev libqcustomplot-dev                          # studio (Qt 6 widgets, charts)
  libpng-dev libjpeg62-turbo-dev libtiff-dev libwebp-dev  # image files: the built-in codecs (io/codecs.h)
  libgif-dev zlib1g-dev                                    #   (GIF; Deflate of palette TIFFs)
  libopenimageio-dev openimageio-tools                     # image files: every other format (the OpenImageIO module)
  libcli11-dev nlohmann-json3-dev libfftw3-dev libtbb-dev  # CLI, JSON, spectra, CPU tasks
  liblcms2-dev                                             # ICC separation (LittleCMS 2, io/icc.h)
  xvfb xauth                                               # a virtual display: GUI tests, the studio without one
)
if [ "${1:-all}" != studio ]; then
  HALFTONE_PACKAGES+=(
    make file dpkg-dev                                     # CPack .deb
    libasan8 libubsan1                                     # sanitizer runtimes (asan preset, scripts/asan.sh)
    netpbm imagemagick                                     # reference tools in the benchmark
    libgs-common                                           # Ghostscript's ICC profiles, the tests' CMYK profiles
    python3-pil                                            # Pillow, the reference of scripts/target-table.py
    pngquant                                               # the reference of scripts/auto-palette-table.sh
  )
fi
if [ "${1:-all}" = fuzz ]; then
  HALFTONE_PACKAGES+=(clang libclang-rt-14-dev)            # the fuzz preset: clang 14, libFuzzer and its sanitizers
fi
missing=()
for p in "${HALFTONE_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing missing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
