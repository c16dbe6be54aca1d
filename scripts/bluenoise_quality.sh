#!/bin/sh
# Prints the blue-noise tables of docs/quality.md ("Blue noise: arrays, tints and frame sequences"): the spectrum and
# anisotropy of void-and-cluster arrays and their flat tints beside white noise and Bayer, the ring powers of tints,
# and the temporal measures of frame sequences. Run from the repository root after a release build of halftone_core:
# scripts/bluenoise_quality.sh
set -e
B=${BUILD:-build/release}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
g++ -std=c++20 -O2 -I. scripts/bluenoise_quality.cpp "$B/core/libhalftone_core.a" -lpthread -lfftw3 -o "$T/bq"
"$T/bq"
