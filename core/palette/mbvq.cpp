// MBVQ colour error diffusion: Shaked, Arad, Fitzhugh and Sobel, "Color Diffusion: Error-Diffusion for Color
// Halftones", HP Laboratories Israel, HPL-96-128(R.1), 1999. Section 3 picks the minimal-brightness-variation
// quadruple of the input colour; the nearest of its four vertices to the error-corrected colour is printed.
#include "core/palette/mbvq.h"

#include <algorithm>
#include <iterator>

#include "core/ed/kernel.h"
#include "core/ed/quantizer.h"
#include "core/job/registry.h"
#include "core/palette/paletteed.h"

namespace halftone {

namespace {

// Corner codes 4 R + 2 G + B of the palette colours, in CMYRGBWK order.
constexpr std::array<int, 8> kCornerCode = {3, 5, 6, 4, 2, 1, 7, 0};
enum : int { C = 0, M = 1, Y = 2, R = 3, G = 4, B = 5, W = 6, K = 7 };

}  // namespace

const Palette& mbvqPalette() {
    static const Palette p = [] {
        Palette q;
        q.name = "cmyrgbwk";
        for (int code : kCornerCode)
            q.colors.push_back({uint8_t(code & 4 ? 255 : 0), uint8_t(code & 2 ? 255 : 0), uint8_t(code & 1 ? 255 : 0)});
        return q;
    }();
    return p;
}

MbvqQuadruple mbvqQuadruple(int32_t r, int32_t g, int32_t b) {
    // Shaked et al., section 3, with the cube scaled to 0..4080 (the decision planes R + G = 1, G + B = 1,
    // R + G + B = 1 and R + G + B = 2 of the unit cube).
    if (r + g > 4080) {
        if (g + b > 4080) return r + g + b > 8160 ? MbvqQuadruple::CMYW : MbvqQuadruple::MYGC;
        return MbvqQuadruple::RGMY;
    }
    if (g + b <= 4080) return r + g + b <= 4080 ? MbvqQuadruple::KRGB : MbvqQuadruple::RGBM;
    return MbvqQuadruple::CMGB;
}

std::array<int, 4> mbvqVertices(MbvqQuadruple q) {
    // in the order of MbvqQuadruple
    constexpr std::array<int, 4> kVertices[] = {{C, M, Y, W}, {M, Y, G, C}, {R, G, M, Y},
                                                {K, R, G, B}, {R, G, B, M}, {C, M, G, B}};
    return size_t(q) < std::size(kVertices) ? kVertices[size_t(q)] : std::array<int, 4>{K, R, G, B};
}

const char* toString(MbvqQuadruple q) {
    static const char* names[] = {"CMYW", "MYGC", "RGMY", "KRGB", "RGBM", "CMGB"};
    return names[int(q)];
}

Status mbvqCornerIndices(const Palette& palette, std::array<int, 8>& indexOfCorner) {
    indexOfCorner.fill(-1);
    bool ok = palette.size() == 8;
    for (int k = 0; ok && k < palette.size(); ++k) {
        const Rgb8& c = palette.colors[size_t(k)];
        int code = 0;
        for (int ch = 0; ch < 3; ++ch) {
            if (c[size_t(ch)] != 0 && c[size_t(ch)] != 255) ok = false;
            code = 2 * code + (c[size_t(ch)] == 255);
        }
        if (indexOfCorner[size_t(code)] >= 0) ok = false;
        indexOfCorner[size_t(code)] = k;
    }
    if (ok) return Status::ok();
    return Status::error(
        "MBVQ halftones to the eight corners of the RGB cube (cyan, magenta, yellow, red, green, "
        "blue, white, black; the palette cmyrgbwk); palette " +
        (palette.name.empty() ? std::string("given") : "'" + palette.name + "'") + " is not that set of colours");
}

Status mbvqErrorDiffusion(const Image& rgb, const Palette& palette, const EdParams& params, Plane8& indices,
                          const RunControl& control) {
    std::array<int, 8> userIndex{};
    if (Status s = mbvqCornerIndices(palette, userIndex); !s) return s;
    const Kernel* kernel = nullptr;
    if (Status s = fixedColorKernel(params, "MBVQ error diffusion", kernel); !s) return s;
    if (rgb.channels.size() != 1 && rgb.channels.size() < 3) return Status::error("MBVQ needs an RGB or gray image");
    const int w = rgb.width(), h = rgb.height();
    if (Status s = checkImageSize(w, h, 1); !s) return s;
    const Plane8* in[3];
    for (int c = 0; c < 3; ++c) in[c] = &rgb.channels[rgb.channels.size() == 1 ? 0 : size_t(c)];
    const std::array<int32_t, 256> table = Quantizer(2, params.linear).inputTable();

    // Errors waiting for the rows in reach of the kernel: row i's sums live in ring row i mod (maxDi + 1).
    const int ring = kernel->maxDi() + 1, d = kernel->divisor;
    std::vector<int32_t> acc[3];
    for (auto& a : acc) a.assign(size_t(ring) * size_t(w), 0);
    Plane8 out(w, h);
    for (int i = 0; i < h; ++i) {
        if ((i & 63) == 0) {
            if (control.cancelled()) return Status::cancelled();
            control.report(double(i) / h, "MBVQ error diffusion");
        }
        const bool odd = params.serpentine && (i & 1);
        const int dir = odd ? -1 : 1;
        int32_t* rowAcc[3];
        for (int c = 0; c < 3; ++c) rowAcc[c] = acc[c].data() + size_t(i % ring) * size_t(w);
        for (int n = 0; n < w; ++n) {
            const int j = odd ? w - 1 - n : n;
            int32_t a[3], t[3];
            for (int c = 0; c < 3; ++c) {
                a[c] = table[in[c]->at(i, j)];
                t[c] = std::clamp(a[c] + floorDiv(rowAcc[c][j] + d / 2, d), 0, 4080);
            }
            int best = -1;
            int64_t bestD = INT64_MAX;
            for (int v : mbvqVertices(mbvqQuadruple(a[0], a[1], a[2]))) {
                const int code = kCornerCode[size_t(v)];
                int64_t dist = 0;
                for (int c = 0; c < 3; ++c) {
                    const int64_t e = t[c] - ((code >> (2 - c)) & 1) * 4080;
                    dist += e * e;
                }
                if (dist < bestD) {
                    bestD = dist;
                    best = code;
                }
            }
            out.at(i, j) = uint8_t(userIndex[size_t(best)]);
            for (int c = 0; c < 3; ++c) {
                const int32_t e = t[c] - ((best >> (2 - c)) & 1) * 4080;
                if (e == 0) continue;
                for (const Tap& tap : kernel->taps) {
                    const int ti = i + tap.di, tj = j + dir * tap.dj;
                    if (ti < h && tj >= 0 && tj < w) acc[c][size_t(ti % ring) * size_t(w) + size_t(tj)] += tap.w * e;
                }
            }
        }
        for (int c = 0; c < 3; ++c) std::fill(rowAcc[c], rowAcc[c] + w, 0);
    }
    indices = std::move(out);
    control.report(1.0, "MBVQ error diffusion");
    return Status::ok();
}

void registerMbvqMethods(Registry& r) {
    MethodInfo m = describeMethod(
        "ed", "mbvq", "error-diffusion",
        "Colour error diffusion to the eight RGB-cube corners (cyan, magenta, yellow, red, green, blue, white, "
        "black) that prints each pixel with one of the four colours of its minimal-brightness-variation quadruple "
        "(Shaked, Arad, Fitzhugh and Sobel): less visible noise than plain vector error diffusion. Colour output.");
    for (ParamSpec& p : edParamSpecs(true))
        if (p.key != "levels") m.params.push_back(std::move(p));
    m.schedule = "raster";
    m.exact = false;
    m.fixedPalette = mbvqPalette();
    m.paletteCpu = [](const Image& rgb, const Palette& palette, Plane8& indices, const ParamValues& v,
                      const RunControl& rc) { return mbvqErrorDiffusion(rgb, palette, edParamsFrom(v), indices, rc); };
    r.add(std::move(m));
}

}  // namespace halftone
