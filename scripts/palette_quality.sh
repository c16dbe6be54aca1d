#!/bin/sh
# Prints the table of docs/palettes-quality.md: mean filtered Delta E 2000 per image, palette and method, with
# ImageMagick's Floyd-Steinberg remap to the same palette beside it. Run from the repository root after a release
# build of halftone_core: scripts/palette_quality.sh
set -e
B=${BUILD:-build/release}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
g++ -std=c++20 -O2 -I. scripts/palette_quality.cpp "$B/core/libhalftone_core.a" -lpthread -lfftw3 -o "$T/pq"
palette() {  # NAME "RRGGBB ..."
    set -- "$1" "$2"
    args=""
    for c in $2; do args="$args xc:#$c"; done
    /usr/bin/convert $args +append "$T/$1.png"
}
CMY="00FFFF FF00FF FFFF00 FF0000 00FF00 0000FF FFFFFF 000000"
EPAPER="000000 FFFFFF 00FF00 0000FF FF0000 FFFF00 FF8000"
PICO8="000000 1D2B53 7E2553 008751 AB5236 5F574F C2C3C7 FFF1E8 FF004D FFA300 FFEC27 00E436 29ADFF 83769C FF77A8 FFCCAA"
for img in chelsea page moon; do
    /usr/bin/convert tests/data/$img.png -type TrueColor ppm:"$T/in.ppm"
    echo "### $img.png"
    echo
    echo "| palette | method | mean Delta E 2000 |"
    echo "| --- | --- | --- |"
    for pal in cmyrgbwk:"$CMY" epaper7:"$EPAPER" pico8:"$PICO8"; do
        name=${pal%%:*}
        colors=${pal#*:}
        palette "$name" "$colors"
        /usr/bin/convert tests/data/$img.png -dither FloydSteinberg -remap "$T/$name.png" -type TrueColor ppm:"$T/im.ppm"
        "$T/pq" "$T/in.ppm" "$name" "$colors" "$T/im.ppm"
    done
    echo
done
