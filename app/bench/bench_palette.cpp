// Section "palette": error diffusion to a colour palette (docs/spec.md section 4) on one large photo-like RGB image
// (default 6000 x 4000 = 24 Mpixel, synthetic, or --palette-image FILE) to PICO-8's 16 colours: every registered
// method with a palette form (through its PaletteFunction, as runImage runs it), each checked bit for bit against
// referencePaletteErrorDiffusion, against ImageMagick's `convert IN -dither FloydSteinberg -remap PALETTE OUT` on the
// same image in the same run. Then the nearest-colour search: error collection with register caching for palettes
// of 2, 4, 16, 64 and 256 colours, with the grid cell sizes of core/palette/nearestcolor.h and with one cell (the full
// search over the palette).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "app/bench/bench.h"
#include "core/palette/nearestcolor.h"
#include "core/palette/paletteed.h"
#include "io/imagefile.h"

namespace halftone::bench {

namespace {

/// PICO-8's 16 colours, in their usual order.
Palette pico8() {
    Palette p;
    p.name = "pico-8";
    for (uint32_t c : {0x000000u, 0x1D2B53u, 0x7E2553u, 0x008751u, 0xAB5236u, 0x5F574Fu, 0xC2C3C7u, 0xFFF1E8u,
                       0xFF004Du, 0xFFA300u, 0xFFEC27u, 0x00E436u, 0x29ADFFu, 0x83769Cu, 0xFF77A8u, 0xFFCCAAu})
        p.colors.push_back({uint8_t(c >> 16), uint8_t(c >> 8), uint8_t(c)});
    return p;
}

/// Palettes of n = 2, 4, 16, 64, 256 colours: black/white, CGA's cyan/magenta/white set, PICO-8, the 4x4x4 cube and
/// the 8x8x4 (RGB 3-3-2) cube.
Palette paletteOf(int n) {
    Palette p;
    p.name = std::to_string(n) + " colours";
    if (n == 2) p.colors = {{0, 0, 0}, {255, 255, 255}};
    if (n == 4) p.colors = {{0, 0, 0}, {85, 255, 255}, {255, 85, 255}, {255, 255, 255}};
    if (n == 16) p.colors = pico8().colors;
    if (n == 64)
        for (int r = 0; r < 4; ++r)
            for (int g = 0; g < 4; ++g)
                for (int b = 0; b < 4; ++b) p.colors.push_back({uint8_t(85 * r), uint8_t(85 * g), uint8_t(85 * b)});
    if (n == 256)
        for (int r = 0; r < 8; ++r)
            for (int g = 0; g < 8; ++g)
                for (int b = 0; b < 4; ++b)
                    p.colors.push_back({uint8_t(r * 255 / 7), uint8_t(g * 255 / 7), uint8_t(85 * b)});
    return p;
}

/// A photo-like RGB image: the synthetic plane of the other sections (smooth shapes, texture, noise) mirrored
/// differently per channel, so that colours vary across the image.
Image syntheticRgb(int w, int h) {
    const Plane8 base = syntheticPlane(w, h);
    Image im;
    im.space = ColorSpace::RGB;
    im.channels.assign(3, Plane8(w, h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            im.channels[0].at(y, x) = base.at(y, x);
            im.channels[1].at(y, x) = base.at(y, w - 1 - x);
            im.channels[2].at(y, x) = base.at(h - 1 - y, x);
        }
    return im;
}

bool writePpm(const std::string& path, const Image& rgb) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    std::fprintf(f, "P6\n%d %d\n255\n", rgb.width(), rgb.height());
    std::vector<uint8_t> row(size_t(rgb.width()) * 3);
    bool ok = true;
    for (int y = 0; y < rgb.height() && ok; ++y) {
        for (int x = 0; x < rgb.width(); ++x)
            for (int c = 0; c < 3; ++c)
                row[size_t(x) * 3 + size_t(c)] = rgb.channels[rgb.channels.size() == 1 ? 0 : size_t(c)].at(y, x);
        ok = std::fwrite(row.data(), 1, row.size(), f) == row.size();
    }
    return std::fclose(f) == 0 && ok;
}

Image paletteStrip(const Palette& p) {
    Image im;
    im.space = ColorSpace::RGB;
    im.channels.assign(3, Plane8(p.size(), 1));
    for (int k = 0; k < p.size(); ++k)
        for (int c = 0; c < 3; ++c) im.channels[size_t(c)].at(0, k) = p.colors[size_t(k)][size_t(c)];
    return im;
}

/// User + system CPU seconds so far of this process (RUSAGE_SELF) or of its waited-for children.
double cpuSeconds(int who) {
    rusage u{};
    getrusage(who, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/// Median wall time of `runs` runs of a program (argv[0] is its path); negative when it failed. `cpu` gets the mean
/// CPU seconds of one run (user + system).
double timeProgram(const std::vector<std::string>& args, int runs, double& cpu) {
    bool failed = false;
    const double c0 = cpuSeconds(RUSAGE_CHILDREN);
    const double t = medianSeconds(
        runs,
        [&] {
            std::fflush(nullptr);
            const pid_t pid = fork();
            if (pid == 0) {
                const int devnull = open("/dev/null", O_WRONLY);
                if (devnull >= 0) dup2(devnull, 2);
                std::vector<char*> argv;
                for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
                argv.push_back(nullptr);
                execv(argv[0], argv.data());
                _exit(127);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = true;
        },
        false);
    cpu = (cpuSeconds(RUSAGE_CHILDREN) - c0) / runs;
    return failed ? -1.0 : t;
}

/// Median wall time of the method's palette form; `cpu` gets the mean CPU seconds of one run (all its threads).
double timePalette(const MethodInfo& m, const Image& rgb, const Palette& pal, const ParamValues& params, int runs,
                   int threads, Plane8& out, std::string& error, double& cpu) {
    RunControl rc;
    rc.threads = threads;
    Status st;
    const double c0 = cpuSeconds(RUSAGE_SELF);
    const double t = medianSeconds(runs, [&] {
        if (st) st = m.paletteCpu(rgb, pal, out, params, rc);
    });
    cpu = (cpuSeconds(RUSAGE_SELF) - c0) / (runs + 1);  // the warm-up run included
    if (!st) error = st.message();
    return st ? t : -1.0;
}

}  // namespace

int benchPalette(const BenchContext& c) {
    Image rgb;
    std::string what;
    if (!c.paletteImage.empty()) {
        Image in;
        if (Status s = io::readImage(c.paletteImage, in); !s) {
            std::fprintf(stderr, "halftone-bench: %s\n", s.message().c_str());
            return 1;
        }
        rgb = convertColor(in, ColorMode::RGB);
        what = c.paletteImage;
    } else {
        rgb = syntheticRgb(c.paletteWidth, c.paletteHeight);
        what = "synthetic photo-like RGB";
    }
    const Palette pal = pico8();
    const double n = double(rgb.width()) * rgb.height();
    std::printf(
        "\n== palette: %d x %d (%.1f Mpixel, %s) to PICO-8's 16 colours, Floyd-Steinberg, median of %d runs "
        "(%s) ==\n",
        rgb.width(), rgb.height(), n / 1e6, what.c_str(), c.runs, utcNow().c_str());

    EdParams ref;
    ref.kernel = "floyd-steinberg";
    const Plane8 expected = referencePaletteErrorDiffusion(rgb, pal, ref);
    int rc = 0;
    struct Row {
        std::string name;
        double seconds, cpu;
        std::string exact;
    };
    std::vector<Row> rows;
    const std::vector<const MethodInfo*> methods =
        methodsFor(c, DeviceChoice::Cpu, [](const MethodInfo& m) { return m.paletteCpu && m.exact; });
    for (const MethodInfo* m : methods) {
        if (!m->paletteCpu) continue;
        ParamValues params;
        if (Status s = paramsFor(c, *m, params, {{"kernel", "floyd-steinberg"}}); !s) {
            std::printf("(%s skipped: %s)\n", m->id().c_str(), s.message().c_str());
            continue;
        }
        Plane8 out;
        std::string error;
        double cpu = 0;
        const double t = timePalette(*m, rgb, pal, params, c.runs, c.threads, out, error, cpu);
        if (t < 0) {
            std::printf("%-40s failed: %s\n", m->id().c_str(), error.c_str());
            rc = 1;
            continue;
        }
        const std::string exact = out == expected ? "yes" : "NO";
        if (exact == "NO") rc = 1;
        rows.push_back({rowName(*m, Device::Cpu), t, cpu, exact});
        std::printf("%-40s %10.1f ms  %8.2f ns/px  cpu %8.1f ms  exact %s\n", rows.back().name.c_str(), t * 1e3,
                    t / n * 1e9, cpu * 1e3, exact.c_str());
        std::fflush(stdout);
    }

    double magick = -1, magickCpu = -1;
    if (c.useConvert && access("/usr/bin/convert", X_OK) == 0) {
        const std::string in = c.workDir + "/halftone-bench-palette-in.ppm",
                          palFile = c.workDir + "/halftone-bench-palette.ppm",
                          out = c.workDir + "/halftone-bench-palette-out.ppm";
        if (!writePpm(in, rgb) || !writePpm(palFile, paletteStrip(pal))) {
            std::fprintf(stderr, "halftone-bench: cannot write %s\n", in.c_str());
            return 1;
        }
        magick = timeProgram({"/usr/bin/convert", in, "-dither", "FloydSteinberg", "-remap", palFile, out},
                             c.runs >= 3 ? 3 : c.runs, magickCpu);
        std::printf("%-40s %10s ms  %8s ns/px  cpu %8s ms  (file to file, PPM)\n",
                    "convert -dither FloydSteinberg -remap", magick > 0 ? fmt(magick * 1e3, 1).c_str() : "failed",
                    magick > 0 ? fmt(magick / n * 1e9).c_str() : "-", fmt(magickCpu * 1e3, 1).c_str());
        std::remove(in.c_str());
        std::remove(palFile.c_str());
        std::remove(out.c_str());
    } else {
        std::printf("(ImageMagick's /usr/bin/convert not installed or disabled: no comparison)\n");
    }
    // wall clock is what a user waits; CPU time (user + system, all threads) is what the work costs, and holds up
    // on a machine shared with other jobs
    std::printf(
        "\n| method | ms | ns/px | exact | vs ImageMagick -remap | CPU ms | CPU vs ImageMagick |\n"
        "| --- | ---: | ---: | --- | ---: | ---: | ---: |\n");
    for (const Row& r : rows)
        std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", r.name.c_str(), fmt(r.seconds * 1e3, 1).c_str(),
                    fmt(r.seconds / n * 1e9).c_str(), r.exact.c_str(), ratioText(magick, r.seconds).c_str(),
                    fmt(r.cpu * 1e3, 1).c_str(), ratioText(magickCpu, r.cpu).c_str());
    if (magick > 0)
        std::printf(
            "| ImageMagick convert -dither FloydSteinberg -remap (file to file) | %s | %s | - | 1.00x | %s | "
            "1.00x |\n",
            fmt(magick * 1e3, 1).c_str(), fmt(magick / n * 1e9).c_str(), fmt(magickCpu * 1e3, 1).c_str());

    // The nearest-colour search: ns per pixel of error collection with register caching (one thread) by palette
    // size and grid cell side (2^shift of the scale-16 space; shift 12 = one cell = the full search).
    const std::vector<int> shifts = {5, 6, 7, 8, 12};
    std::printf(
        "\nnearest-colour search: ec/rc (one thread) on the same image, ns per pixel by palette size and grid "
        "cell side (default marked *; 'full' = one cell, every colour tried)\n| colours |");
    for (int s : shifts) std::printf(" %s |", s == 12 ? "full" : ("cell " + std::to_string(1 << s)).c_str());
    std::printf(" candidates per cell (default) |\n| ---: |");
    for (size_t i = 0; i <= shifts.size(); ++i) std::printf(" ---: |");
    std::printf("\n");
    EdParams p;
    for (int colors : {2, 4, 16, 64, 256}) {
        const Palette pc = paletteOf(colors);
        const int def = NearestColor(PaletteTargets(pc, p.linear, p.match)).shift();
        std::printf("| %d |", colors);
        Plane8 first;
        for (int s : shifts) {
            Plane8 out;
            Status st;
            const double t = medianSeconds(c.runs >= 3 ? 3 : c.runs, [&] {
                if (st) st = paletteErrorDiffuse(rgb, pc, out, p, EdVariant::CollectionRegisters, {}, s);
            });
            if (!st || (!first.data.empty() && !(out == first))) rc = 1;
            if (first.data.empty()) first = out;
            std::printf(" %s%s |", st ? fmt(t / n * 1e9).c_str() : "failed", s == def ? "*" : "");
            std::fflush(stdout);
        }
        // candidate list lengths over the cells this image reaches
        NearestColor probe{PaletteTargets(pc, p.linear, p.match)};
        const PaletteTargets pt(pc, p.linear, p.match);
        for (int y = 0; y < rgb.height(); y += 7)
            for (int x = 0; x < rgb.width(); x += 7)
                probe.nearest(pt.input[rgb.channels[0].at(y, x)], pt.input[rgb.channels[1].at(y, x)],
                              pt.input[rgb.channels[2].at(y, x)]);
        std::printf(" %s |\n", fmt(probe.meanCandidates()).c_str());
    }
    return rc;
}

}  // namespace halftone::bench
