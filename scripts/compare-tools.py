#!/usr/bin/env python3
"""Times `halftone` against the reference tools file to file, like against like, in one interleaved run.

Usage: scripts/compare-tools.py [--halftone PATH] [--rounds N] [--only NAME,...] [--work DIR]

Makes its inputs in DIR (default: a temporary folder) from tests/data/chelsea.png with ImageMagick: a 6000 x 4000
JPEG and PNG (24 megapixels), a 64 x 64 PNG, an 8192 x 8192 PGM and 40 photos of mixed sizes. Then runs every
command of every comparison once per round, in turn (so a change in the machine's load hits all of them alike),
and prints the median wall time and CPU time (user + system of the process and its children) of each, and each
comparison's ratio reference / halftone. The tools: ImageMagick (convert), netpbm (pamditherbw, pnmscale,
pamtopng... as installed by scripts/deps.sh), Pillow (python3-pil) when installed. Outputs are written into DIR and
overwritten each round. docs/performance.md records its results with the machine and the date.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEBIAN_PYTHON = "/usr/bin/python3"


def run(cmd, shell=False):
    """Runs one command; returns (wall seconds, CPU seconds of the children it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, shell=shell, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {cmd}\n{r.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def make_inputs(work, photos):
    src = os.path.join(ROOT, "tests", "data", "chelsea.png")
    steps = [
        ["convert", src, "-resize", "6000x4000!", "-quality", "92", f"{work}/photo24.jpg"],
        ["convert", f"{work}/photo24.jpg", f"{work}/photo24.png"],
        ["convert", src, "-resize", "64x64!", f"{work}/small.png"],
        ["convert", src, "-colorspace", "Gray", "-resize", "8192x8192!", f"{work}/big8k.pgm"],
        ["convert", "xc:black", "xc:white", "xc:red", "xc:lime", "xc:blue", "xc:cyan", "xc:magenta", "xc:yellow",
         "+append", f"{work}/corners.png"],
    ]
    for s in steps:
        if not os.path.exists(s[-1]):
            subprocess.run(s, check=True)
    os.makedirs(f"{work}/photos", exist_ok=True)
    for i in range(photos):
        out = f"{work}/photos/p{i:02d}.jpg"
        if not os.path.exists(out):
            w = 1200 + 97 * i
            subprocess.run(["convert", src, "-resize", f"{w}x{w * 2 // 3}!", "-quality", "90", out], check=True)
    pico = f"{work}/pico8.png"
    if not os.path.exists(pico):
        colours = ["000000", "1D2B53", "7E2553", "008751", "AB5236", "5F574F", "C2C3C7", "FFF1E8", "FF004D",
                   "FFA300", "FFEC27", "00E436", "29ADFF", "83769C", "FF77A8", "FFCCAA"]
        subprocess.run(["convert"] + [f"xc:#{c}" for c in colours] + ["+append", pico], check=True)


def comparisons(ht, work, have_pil):
    w = work
    netpbm_batch = (f"for f in {w}/photos/*.jpg; do jpegtopnm \"$f\" 2>/dev/null | ppmtopgm | pamscale -width 600 "
                    f"| pamditherbw -fs | pnmtopng > {w}/nb/$(basename \"$f\" .jpg).png; done")
    c = [
        ("64 x 64 PNG -> 1-bit PNG", [
            ("halftone", [ht, f"{w}/small.png", f"{w}/o-small.png"]),
            ("ImageMagick", ["convert", f"{w}/small.png", "-dither", "FloydSteinberg", "-monochrome",
                             f"{w}/o-small-im.png"]),
        ]),
        ("24 MP JPEG -> 1-bit PNG", [
            ("halftone", [ht, f"{w}/photo24.jpg", f"{w}/o-1bit.png"]),
            ("halftone --method ec --variant wavefront", [ht, "--method", "ec", "--variant", "wavefront", f"{w}/photo24.jpg",
                                                f"{w}/o-1bit-wf.png"]),
            ("ImageMagick", ["convert", f"{w}/photo24.jpg", "-dither", "FloydSteinberg", "-monochrome",
                             f"{w}/o-1bit-im.png"]),
        ]),
        ("24 MP JPEG --color rgb -> PNG", [
            ("halftone", [ht, "--color", "rgb", f"{w}/photo24.jpg", f"{w}/o-rgb.png"]),
            ("halftone --method ec --variant wavefront", [ht, "--method", "ec", "--variant", "wavefront", "--color", "rgb",
                                                f"{w}/photo24.jpg", f"{w}/o-rgb-wf.png"]),
            ("ImageMagick -colors 8", ["convert", f"{w}/photo24.jpg", "-dither", "FloydSteinberg", "-colors", "8",
                                       f"{w}/o-rgb-im.png"]),
            ("ImageMagick -remap corners", ["convert", f"{w}/photo24.jpg", "-dither", "FloydSteinberg", "-remap",
                                            f"{w}/corners.png", f"{w}/o-rgb-remap.png"]),
        ]),
        ("24 MP PNG -> PICO-8 (16 colours) PNG", [
            ("halftone", [ht, "--palette", "pico8", f"{w}/photo24.png", f"{w}/o-pico.png"]),
            ("halftone --method ec --variant wavefront", [ht, "--method", "ec", "--variant", "wavefront",
                                                          "--palette", "pico8", f"{w}/photo24.png",
                                                          f"{w}/o-pico-wf.png"]),
            ("ImageMagick -remap", ["convert", f"{w}/photo24.png", "-dither", "FloydSteinberg", "-remap",
                                    f"{w}/pico8.png", f"{w}/o-pico-im.png"]),
        ] + ([("Pillow quantize", [DEBIAN_PYTHON, "-c",
                                   "import sys; from PIL import Image; im=Image.open(sys.argv[1]).convert('RGB'); "
                                   "p=Image.open(sys.argv[2]).convert('RGB'); pal=Image.new('P',(1,1)); "
                                   "pal.putpalette([v for px in p.getdata() for v in px]); "
                                   "im.quantize(palette=pal, dither=Image.Dither.FLOYDSTEINBERG).save(sys.argv[3])",
                                   f"{w}/photo24.png", f"{w}/pico8.png", f"{w}/o-pico-pil.png"])] if have_pil else [])),
        ("40 photos -> 600 px wide 1-bit PNG", [
            ("halftone batch --jobs 2", [ht, "batch", "--jobs", "2", "--width", "600", "--format", "png", "--out-dir",
                                         f"{w}/hb", f"{w}/photos"]),
            ("netpbm pipeline", ["bash", "-c", f"mkdir -p {w}/nb && {netpbm_batch}"]),
        ]),
        ("8K PGM -> PBM", [
            ("halftone", [ht, f"{w}/big8k.pgm", f"{w}/o-8k.pbm"]),
            ("halftone --method ec --variant wavefront", [ht, "--method", "ec", "--variant", "wavefront",
                                                          f"{w}/big8k.pgm", f"{w}/o-8k-wf.pbm"]),
            ("pamditherbw -fs", ["bash", "-c", f"pamditherbw -fs {w}/big8k.pgm > {w}/o-8k-pam.pbm"]),
        ]),
    ]
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--halftone", default=os.path.join(ROOT, "build", "release", "app", "halftone"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated words: run the comparisons whose title has one")
    ap.add_argument("--work", default="")
    ap.add_argument("--photos", type=int, default=40)
    a = ap.parse_args()
    for tool in ("convert", "pamditherbw", "jpegtopnm", "pamscale", "pnmtopng"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is not installed: run scripts/deps.sh")
    if not os.access(a.halftone, os.X_OK):
        sys.exit(f"{a.halftone} is not built: cmake --preset release && cmake --build --preset release")
    # Debian's Pillow (python3-pil) belongs to Debian's python3, which another python3 on PATH may not be.
    have_pil = subprocess.run([DEBIAN_PYTHON, "-c", "import PIL"], stderr=subprocess.DEVNULL).returncode == 0
    if not have_pil:
        print("Pillow (python3-pil) is not installed: its comparison is left out")
    work = a.work or tempfile.mkdtemp(prefix="compare-tools-")
    os.makedirs(work, exist_ok=True)
    make_inputs(work, a.photos)
    comps = comparisons(a.halftone, work, have_pil)
    if a.only:
        words = [x.strip().lower() for x in a.only.split(",") if x.strip()]
        comps = [c for c in comps if any(wd in c[0].lower() for wd in words)]
    times = {(t, n): [] for t, cmds in comps for n, _ in cmds}
    for r in range(a.rounds):
        for title, cmds in comps:
            for name, cmd in cmds:
                for d in ("hb", "nb"):
                    shutil.rmtree(os.path.join(work, d), ignore_errors=True)
                os.makedirs(os.path.join(work, "nb"), exist_ok=True)
                times[(title, name)].append(run(cmd))
        print(f"round {r + 1} of {a.rounds} done", file=sys.stderr)
    load = os.getloadavg()
    print(f"{a.rounds} interleaved rounds, medians; load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"| comparison | command | wall s | CPU s | reference / halftone, wall / CPU |")
    print(f"| --- | --- | ---: | ---: | ---: |")
    for title, cmds in comps:
        base = fast = None
        for name, _ in cmds:
            ws = statistics.median(x[0] for x in times[(title, name)])
            cs = statistics.median(x[1] for x in times[(title, name)])
            if name.startswith("halftone"):
                if base is None:
                    base = (ws, cs)
                ratio = "" if (ws, cs) == base else f"{ws / base[0]:.2f}x / {cs / max(base[1], 1e-9):.2f}x of the first"
            else:
                ratio = f"{ws / base[0]:.1f}x / {cs / max(base[1], 1e-9):.1f}x"
                if fast:
                    ratio += f"; {ws / fast[0]:.1f}x / {cs / max(fast[1], 1e-9):.1f}x of the wavefront"
            if "wavefront" in name:
                fast = (ws, cs)
            print(f"| {title} | {name} | {ws:.3f} | {cs:.3f} | {ratio} |")


if __name__ == "__main__":
    main()
