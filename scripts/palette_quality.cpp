// Mean filtered Delta E 2000 (docs/spec.md section 3) of palette halftones of one image, for docs/palettes-quality.md:
// Floyd-Steinberg palette error diffusion (section 4), ordered dither to the palette (section 5), MBVQ (section 6)
// and ImageMagick's result given as a file. Images are binary PPM (P6), e.g. from `convert IN ppm:-`.
// Build: see docs/palettes-quality.md.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "core/palette/mbvq.h"
#include "core/quality/metrics.h"
#include "core/palette/paletteed.h"
#include "core/palette/paletteordered.h"
#include "core/job/registry.h"
#include "core/screen/screen.h"

using namespace halftone;

static bool readPpm(const std::string& path, Image& im) {
    std::ifstream f(path, std::ios::binary);
    std::string magic;
    int w, h, maxv;
    if (!(f >> magic >> w >> h >> maxv) || magic != "P6" || maxv != 255) return false;
    f.get();
    im.space = ColorSpace::RGB;
    im.channels.assign(3, Plane8(w, h));
    for (size_t i = 0; i < size_t(w) * size_t(h); ++i)
        for (int c = 0; c < 3; ++c) im.channels[size_t(c)].data[i] = uint8_t(f.get());
    return bool(f);
}

static Palette parseHex(const std::string& name, const std::string& list) {
    Palette p;
    p.name = name;
    std::istringstream s(list);
    std::string hex;
    while (s >> hex) {
        const unsigned v = unsigned(std::stoul(hex, nullptr, 16));
        p.colors.push_back({uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)});
    }
    return p;
}

int main(int argc, char** argv) {
    // palette_quality IMAGE.ppm PALETTE_NAME "RRGGBB ..." IMAGEMAGICK.ppm
    if (argc != 5) return 2;
    Image im, magick;
    if (!readPpm(argv[1], im) || !readPpm(argv[4], magick)) return 1;
    const Palette p = parseHex(argv[2], argv[3]);
    auto report = [&](const std::string& method, const Plane8& idx) {
        std::printf("| %s | %s | %.2f |\n", p.name.c_str(), method.c_str(),
                    filteredDeltaE2000(im, expandIndexed(idx, p)));
    };
    for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted})
        for (bool linear : {false, true}) {
            EdParams e;
            e.linear = linear;
            e.match = match;
            report(std::string("Floyd-Steinberg palette ED, ") + (linear ? "linear, " : "gamma, ") + toString(match),
                   referencePaletteErrorDiffusion(im, p, e));
        }
    for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted})
        for (const char* spec : {"bayer:8", "blue-noise", "dbs"}) {
            ThresholdArray t;
            Plane8 idx;
            if (!screenFromSpec(spec, t).isOk() ||
                !orderedPaletteDither(im, p, t, kDefaultMixingPlan, match, idx).isOk())
                return 1;
            report(std::string("ordered, ") + spec + ", plan 64, " + toString(match), idx);
        }
    std::array<int, 8> corners;
    if (mbvqCornerIndices(p, corners).isOk())
        for (bool linear : {false, true}) {
            EdParams e;
            e.linear = linear;
            Plane8 idx;
            if (!mbvqErrorDiffusion(im, p, e, idx).isOk()) return 1;
            report(std::string("MBVQ (ed/mbvq)") + (linear ? ", linear" : ""), idx);
        }
    std::printf("| %s | ImageMagick -dither FloydSteinberg -remap | %.2f |\n", p.name.c_str(),
                filteredDeltaE2000(im, magick));
    return 0;
}
