#include "core/print/printpreview.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/ed/quantizer.h"

namespace halftone {

namespace {

double decode(uint8_t v) { return srgbToLinear(v / 255.0); }

/// The 8-bit sRGB code whose value is nearest to linear light `lin`: the number of codes 1..255 whose lower rounding
/// edge, (v - 0.5) / 255 decoded, lies at or below `lin` (sRGB encoding is monotonic).
class Encoder {
public:
    Encoder() {
        for (int v = 1; v < 256; ++v) edges_[size_t(v - 1)] = srgbToLinear((v - 0.5) / 255.0);
    }
    uint8_t operator()(double lin) const {
        return uint8_t(std::upper_bound(edges_.begin(), edges_.end(), lin) - edges_.begin());
    }

private:
    std::array<double, 255> edges_{};
};

}  // namespace

Image simulatePrint(const Image& cmyk, const PrintInks& inks) {
    if (cmyk.space != ColorSpace::CMYK || cmyk.channelCount() != 4) return convertColor(cmyk, ColorMode::RGB);
    const int w = cmyk.width(), h = cmyk.height();
    Image out;
    out.space = ColorSpace::RGB;
    out.channels.assign(3, Plane8(w, h));
    out.hasAlpha = cmyk.hasAlpha;
    if (cmyk.hasAlpha) out.alpha = cmyk.alpha;
    const std::array<std::array<uint8_t, 3>, 4> ink{inks.cyan, inks.magenta, inks.yellow, inks.black};
    // factor[i][c][v]: what ink i at value v leaves of the paper's light in channel c.
    std::vector<double> factor(size_t(4 * 3 * 256));
    std::array<double, 3> paper{};
    for (int c = 0; c < 3; ++c) {
        paper[size_t(c)] = decode(inks.paper[size_t(c)]);
        for (int i = 0; i < 4; ++i) {
            const double t =
                paper[size_t(c)] > 0 ? std::min(1.0, decode(ink[size_t(i)][size_t(c)]) / paper[size_t(c)]) : 0.0;
            for (int v = 0; v < 256; ++v) factor[size_t((i * 3 + c) * 256 + v)] = 1.0 - (v / 255.0) * (1.0 - t);
        }
    }
    const Encoder encode;
    for (int c = 0; c < 3; ++c) {
        const double* fc = &factor[size_t((0 * 3 + c) * 256)];
        const double* fm = &factor[size_t((1 * 3 + c) * 256)];
        const double* fy = &factor[size_t((2 * 3 + c) * 256)];
        const double* fk = &factor[size_t((3 * 3 + c) * 256)];
        for (int y = 0; y < h; ++y) {
            const uint8_t* C = cmyk.channels[0].row(y);
            const uint8_t* M = cmyk.channels[1].row(y);
            const uint8_t* Y = cmyk.channels[2].row(y);
            const uint8_t* K = cmyk.channels[3].row(y);
            uint8_t* o = out.channels[size_t(c)].row(y);
            for (int x = 0; x < w; ++x) o[x] = encode(paper[size_t(c)] * fc[C[x]] * fm[M[x]] * fy[Y[x]] * fk[K[x]]);
        }
    }
    return out;
}

}  // namespace halftone
