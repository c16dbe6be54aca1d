#!/usr/bin/env bash
# Builds the .deb with CPack from the build tree and checks its contents and dependencies.
# Usage: package_test.sh BUILD_DIR
set -euo pipefail
build="$1"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
(cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log"; echo "FAIL: cpack failed"; exit 1; }
deb="$(ls "$out"/*.deb | head -n1)"
[ -f "$deb" ] || { echo "FAIL: no .deb produced"; exit 1; }
contents="$(dpkg-deb -c "$deb")"
fail=0
expect() {
  if grep -q -- "$1" <<<"$contents"; then echo "ok: $1"; else echo "FAIL: $1 missing from $(basename "$deb")"; fail=1; fi
}
expect "./usr/bin/halftone-studio$"
expect "./usr/bin/halftone$"
expect "./usr/share/man/man1/halftone.1"
expect "./usr/share/bash-completion/completions/halftone$"
expect "./usr/share/zsh/vendor-completions/_halftone$"
expect "./usr/share/fish/vendor_completions.d/halftone.fish$"
expect "./usr/share/applications/halftone-studio.desktop"
expect "./usr/share/icons/hicolor/scalable/apps/halftone-studio.svg"
expect "./usr/share/metainfo/halftone-studio.metainfo.xml"
expect "./usr/share/halftone-studio/samples/.*\.png"
expect "./usr/share/halftone-studio/screens/"
expect "./usr/lib/\(.*/\)\?halftone/halftone-io-oiio\.so$"
# The unpacked CLI finds its OpenImageIO module next to it (BINDIR/../LIBDIR/halftone), not in the build tree:
# the loader's trace names the module it opened. PNG has a built-in codec, so the output is a BMP, which only the
# module writes.
root="$out/root"
dpkg-deb -x "$deb" "$root"
sample="$(ls "$root"/usr/share/halftone-studio/samples/*.png | head -n1)"
# (LD_DEBUG_OUTPUT: the trace goes to files, since the program silences stderr while a decoder runs.)
rm -f "$out"/ld-trace.*
if LD_DEBUG=files LD_DEBUG_OUTPUT="$out/ld-trace" "$root/usr/bin/halftone" "$sample" "$out/sample.bmp" &&
   trace="$(cat "$out"/ld-trace.*)" && grep -q "$root/usr/bin/../lib/.*halftone-io-oiio.so" <<<"$trace"; then
  echo "ok: the installed halftone loads its module from the package"
else
  echo "FAIL: the installed halftone did not load the module from the package"; grep -m3 "halftone-io-oiio\|halftone:" <<<"$trace" || true; fail=1
fi
depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
for lib in libqt6widgets6 libopenimageio liblcms2-2; do
  if grep -q "$lib" <<<"$depends"; then echo "ok: depends on $lib"; else echo "FAIL: Depends lacks $lib"; fail=1; fi
done
desktop-file-validate "$(dirname "$0")/../packaging/halftone-studio.desktop" 2>/dev/null || true
[ "$fail" -eq 0 ] && echo "package test: 1 passed, 0 failed" || { echo "package test: 0 passed, 1 failed"; exit 1; }
