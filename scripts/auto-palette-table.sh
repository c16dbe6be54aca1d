#!/usr/bin/env bash
# Prints the table of docs/palettes.md "auto:N against pngquant": for each image and N, the filtered Delta E 2000
# (`halftone analyze`, docs/spec.md section 3) of `halftone --palette auto:N`, of pngquant's own output, and of
# pngquant's palette through halftone's error diffusion (the palettes compared under the same dithering), with the
# time of `halftone --palette auto:N`. Three colour fields made by ImageMagick (smooth ramps) and the photos of
# tests/data. Run from the repository root after a release build: scripts/auto-palette-table.sh
# Needs: ImageMagick (convert) and pngquant (scripts/deps.sh installs both).
set -euo pipefail
H=${HALFTONE:-build/release/app/halftone}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
convert -size 1024x512 xc: -sparse-color bilinear '0,0 red 1023,0 yellow 0,511 blue 1023,511 white' -depth 8 \
  -type TrueColor "$T/field-bilinear.png"
convert -size 256x1024 gradient:'#000000-#ffffff' -rotate 90 \( -size 1024x256 gradient:'#ff0000-#0000ff' \) \
  -compose multiply -composite -depth 8 -type TrueColor "$T/field-red-blue.png"
convert -size 1024x512 xc:red -colorspace HSL -channel R -fx 'i/w' -channel G -fx '1' -channel B -fx 'j/h' +channel \
  -colorspace sRGB -depth 8 -type TrueColor "$T/field-hsl.png"
cp tests/data/chelsea.png tests/data/coffee.png "$T/"
de() { "$H" analyze "$1" "$2" | awk '/Delta E 2000, filtered/ {print $5}'; }
echo "| image | N | \`auto:N\` | its time | pngquant | pngquant's palette, halftone's dithering |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for N in 16 64 256; do
  for img in field-bilinear field-red-blue field-hsl chelsea coffee; do
    in="$T/$img.png"
    t=$( { /usr/bin/time -f %e "$H" --palette "auto:$N" "$in" "$T/auto.png"; } 2>&1 | tail -1)
    pngquant --force --speed 1 "$N" --output "$T/pq.png" "$in"
    convert "$T/pq.png" -unique-colors -depth 8 txt:- | sed -nE 's/.*#([0-9A-Fa-f]{6}).*/\1/p' >"$T/pq.hex"
    "$H" --palette "$T/pq.hex" "$in" "$T/pq-dithered.png"
    echo "| $img | $N | $(de "$in" "$T/auto.png") | $t s | $(de "$in" "$T/pq.png") | $(de "$in" "$T/pq-dithered.png") |"
  done
done
