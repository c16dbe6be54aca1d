#!/usr/bin/env python3
"""The per-target table of docs/targets.md: the simulated panel's Delta E (`halftone analyze --target`) of our
Floyd-Steinberg, the best kernel, blue noise and DBS (1-bit devices) against Pillow's Floyd-Steinberg to the ideal
(nominal) palette, each on the same prepared frame.

Usage: scripts/target-table.py [--cli build/release/app/halftone] [--photo IMG] [--gray IMG] [--targets A,B]
                               [--no-install] [--keep DIR]

Pillow comes from Debian's python3-pil (scripts/deps.sh installs it): when it is missing the script installs it (as
root, unless --no-install) or leaves the Pillow column out, saying so; run by another python3 (pyenv), it restarts
itself under /usr/bin/python3, which sees Debian's packages. The frame is cut from the image with Pillow (ImageOps.fit, Lanczos, centred)
or, without Pillow, ImageMagick; every method then runs on that frame, so no resize differs between them. The table
goes to standard output with the command, machine and date above it.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pillow(install):
    try:
        import PIL  # noqa: F401
        return True
    except ImportError:
        pass
    debian = "/usr/bin/python3"  # python3-pil is Debian's: a python3 of its own (pyenv) does not see it
    if os.path.exists(debian) and os.path.realpath(sys.executable) != os.path.realpath(debian):
        if subprocess.run([debian, "-c", "import PIL"], capture_output=True).returncode != 0 and install and \
                os.geteuid() == 0 and shutil.which("apt-get"):
            print("target-table: installing python3-pil (Pillow) with apt-get", file=sys.stderr)
            subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "python3-pil"], check=False,
                           stdout=subprocess.DEVNULL)
        if subprocess.run([debian, "-c", "import PIL"], capture_output=True).returncode == 0:
            os.execv(debian, [debian] + sys.argv)
    if install and os.geteuid() == 0 and shutil.which("apt-get"):
        print("target-table: installing python3-pil (Pillow) with apt-get", file=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "python3-pil"], check=False,
                       stdout=subprocess.DEVNULL)
        try:
            import PIL  # noqa: F401
            return True
        except ImportError:
            pass
    print("target-table: Pillow (python3-pil) is not available: the Pillow column is left out", file=sys.stderr)
    return False


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(" ".join(args) + ": " + r.stderr.strip())
    return r.stdout


def frame(src, dst, w, h, have_pil):
    """The image cut to w x h (h = 0: the width's scale), as a PNG."""
    if have_pil:
        from PIL import Image, ImageOps
        im = Image.open(src)
        im = im.convert("RGB") if im.mode not in ("L", "RGB") else im
        if h == 0:
            h = round(w * im.height / im.width)
        ImageOps.fit(im, (w, h), Image.LANCZOS, centering=(0.5, 0.5)).save(dst)
    else:
        if h == 0:
            out = run(["/usr/bin/identify", "-format", "%w %h", src]).split()
            h = round(w * int(out[1]) / int(out[0]))
        run(["/usr/bin/convert", src, "-resize", f"{w}x{h}^", "-gravity", "center", "-extent", f"{w}x{h}", dst])


def pillow_fs(src, dst, colors):
    """Pillow's Floyd-Steinberg of src to the palette `colors` ("#rrggbb"; none: black and white), as RGB."""
    from PIL import Image
    im = Image.open(src).convert("RGB")
    if not colors:
        im.convert("L").convert("1").convert("RGB").save(dst)  # convert("1") dithers with Floyd-Steinberg
        return
    flat = []
    for c in colors:
        flat += [int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)]
    pal = Image.new("P", (1, 1))
    pal.putpalette(flat + flat[:3] * (256 - len(colors)))  # the rest repeats the first colour, never a new one
    im.quantize(palette=pal, dither=Image.Dither.FLOYDSTEINBERG).convert("RGB").save(dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build/release/app/halftone"))
    ap.add_argument("--photo", default=os.path.join(ROOT, "tests", "data", "coffee.png"), help="colour original (CC0)")
    ap.add_argument("--gray", default=os.path.join(ROOT, "tests/data/moon.png"),
                    help="original of the gray and 1-bit devices")
    ap.add_argument("--targets", default="", help="comma-separated names (default: every target with a frame)")
    ap.add_argument("--no-install", action="store_true")
    ap.add_argument("--keep", default="", help="keep the frames and results in this folder")
    a = ap.parse_args()
    have_pil = pillow(not a.no_install)
    cli = a.cli
    targets = json.loads(run([cli, "--list-targets", "--json"]))
    wanted = [t for t in a.targets.split(",") if t]
    kernels = run([cli, "--list-kernels"]).split()
    work = a.keep or tempfile.mkdtemp(prefix="target-table-")
    os.makedirs(work, exist_ok=True)

    def panel(name, original, result):
        return json.loads(run([cli, "analyze", "--json", "--target", name, original, result]))["panel_delta_e_2000"]

    rows = []
    for t in targets:
        name = t["name"]
        if (wanted and name not in wanted) or not t.get("width"):
            continue
        inks = t.get("inks", [])
        colour = any(len({i["shown"][1:3], i["shown"][3:5], i["shown"][5:7]}) > 1 for i in inks)
        src = a.photo if colour else a.gray
        orig = os.path.join(work, name + ".png")
        frame(src, orig, t["width"], t.get("height", 0), have_pil)

        def halftone_run(label, args):
            out = os.path.join(work, f"{name}.{label}.png")
            run([cli, "--target", name, "--device", "cpu"] + args + [orig, out])
            return panel(name, orig, out)

        fs = halftone_run("fs", ["--kernel", "floyd-steinberg"])
        tried = []
        for k in kernels:
            try:
                tried.append((halftone_run(k, ["--kernel", k]), k))
            except RuntimeError:  # a kernel the target's method refuses (level-dependent ones to a palette)
                pass
        best = min(tried)
        blue = halftone_run("blue-noise", ["--method", "ordered", "--screen", "blue-noise"])
        dbs = halftone_run("dbs", ["--method", "dbs"]) if not inks else None
        # Beside the defaults: a palette device with its tone range mapped (--tone auto), a 1-bit device diffusing in
        # linear light (its gray job runs in gamma values unless --linear; palette jobs already run in linear light).
        tone = halftone_run("fs-tone", ["--tone", "auto"]) if inks else None
        linear = halftone_run("fs-linear", ["--linear"]) if not inks else None
        pil = None
        if have_pil:
            out = os.path.join(work, f"{name}.pillow.png")
            pillow_fs(orig, out, [i["nominal"] for i in inks])
            pil = panel(name, orig, out)
        rows.append((name, os.path.basename(src), fs, best, blue, dbs, pil, tone, linear))
        print(f"target-table: {name} done", file=sys.stderr)

    def num(v):
        return "-" if v is None else f"{v:.2f}"

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    try:
        import PIL
        pil_version = "Pillow " + PIL.__version__
    except ImportError:
        pil_version = "no Pillow"
    print(f"- Command: `scripts/target-table.py` (commit {commit}; {pil_version}).")
    print(f"- Machine: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}. "
          f"Date: {datetime.date.today().isoformat()}.")
    print()
    print("| target | original | Floyd-Steinberg | best kernel | blue noise | DBS | Pillow FS, ideal palette "
          "| FS, `--tone auto` | FS, `--linear` |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, src, fs, (bv, bk), blue, dbs, pil, tone, linear in rows:
        print(f"| `{name}` | {src} | {num(fs)} | {num(bv)} ({bk}) | {num(blue)} | {num(dbs)} | {num(pil)} "
              f"| {num(tone)} | {num(linear)} |")


if __name__ == "__main__":
    main()
