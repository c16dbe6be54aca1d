#!/usr/bin/env bash
# Installs the Debian 12 packages Halftone Studio needs, only those missing. Sourced by test.sh and studio.sh.
set -euo pipefail
HALFTONE_PACKAGES=(
  g++ make cmake ninja-build pkg-config file dpkg-dev      # toolchain, CPack .deb
  libasan8 libubsan1                                       # sanitizer runtimes (asan preset, scripts/asan.sh)
  qt6-base-dev libqcustomplot-dev                          # studio (Qt 6 widgets, charts)
  libpng-dev libjpeg62-turbo-dev libtiff-dev libwebp-dev  # image files: the built-in codecs (io/codecs.h)
  libgif-dev zlib1g-dev                                    #   (GIF; Deflate of palette TIFFs)
  libopenimageio-dev openimageio-tools                     # image files: every other format (the OpenImageIO module)
  libcli11-dev nlohmann-json3-dev libfftw3-dev libtbb-dev  # CLI, JSON, spectra, CPU tasks
  xvfb xauth                                               # offscreen/virtual display for GUI tests
  netpbm imagemagick                                       # reference tools in the benchmark
)
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
