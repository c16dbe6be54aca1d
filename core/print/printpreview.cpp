#include "core/print/printpreview.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/ed/quantizer.h"
#include "core/prepare/prepare.h"
#include "core/workerpool.h"

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

double dotGainRim(double gainPercent, double periodPixels) {
    if (!(gainPercent > 0) || !(periodPixels > 0)) return 0.0;
    return gainPercent / 100.0 * periodPixels / (2.0 * std::sqrt(2.0));
}

namespace {

/// One plane's dots spread by `rim`: the distance to the nearest inked pixel within reach (R = ceil(rim + 1)) from the
/// distances along each row (two sweeps), then the rows within R above and below.
bool spreadPlane(const Plane8& in, Plane8& out, double rim, const RunControl& control) {
    const int w = in.width, h = in.height, reach = int(std::ceil(rim + 1.0));
    out = in;
    if (rim <= 0 || w == 0 || h == 0) return !control.cancelled();
    const int none = reach + 1;  // no ink within reach along the row
    std::vector<int> along(size_t(w) * size_t(h));
    const bool rows = parallelChunks(h, 64, control.threads, {}, {}, [&](int64_t y0, int64_t y1, int) {
        for (int64_t y = y0; y < y1; ++y) {
            const uint8_t* r = in.row(int(y));
            int* d = &along[size_t(y) * size_t(w)];
            int last = -none - 1;
            for (int x = 0; x < w; ++x) {
                if (r[x] >= 128) last = x;
                d[x] = std::min(none, x - last);
            }
            last = w + none + 1;
            for (int x = w - 1; x >= 0; --x) {
                if (r[x] >= 128) last = x;
                d[x] = std::min(d[x], std::min(none, last - x));
            }
        }
    });
    if (!rows || control.cancelled()) return false;
    return parallelChunks(h, 16, control.threads, control, "spreading the dots", [&](int64_t y0, int64_t y1, int) {
        for (int64_t y = y0; y < y1; ++y) {
            uint8_t* o = out.row(int(y));
            for (int x = 0; x < w; ++x) {
                if (o[x] >= 128) continue;
                int best = none * none;
                for (int dy = -reach; dy <= reach; ++dy) {
                    const int64_t yy = y + dy;
                    if (yy < 0 || yy >= h) continue;
                    const int dx = along[size_t(yy) * size_t(w) + size_t(x)];
                    if (dx < none) best = std::min(best, dx * dx + dy * dy);
                }
                if (best >= none * none) continue;
                const double cover = std::clamp(rim + 1.0 - std::sqrt(double(best)), 0.0, 1.0);
                o[x] = std::max(o[x], uint8_t(std::lround(cover * 255.0)));
            }
        }
    });
}

}  // namespace

Image spreadDots(const Image& cmyk, double rim) {
    Image out = cmyk;
    for (size_t c = 0; c < cmyk.channels.size(); ++c) spreadPlane(cmyk.channels[c], out.channels[c], rim, {});
    return out;
}

Status printAtSize(const Image& halftone, const PrintSizeView& view, Image& out, const RunControl& control) {
    const bool cmyk = halftone.space == ColorSpace::CMYK && halftone.channelCount() == 4;
    const bool gray = halftone.space == ColorSpace::Gray && halftone.channelCount() == 1;
    if (!cmyk && !gray)
        return Status::error("the print preview shows CMYK and gray halftones; this result is " +
                             std::string(halftone.space == ColorSpace::RGB ? "RGB" : "not separated into inks"));
    for (double v : {view.deviceDpi, view.viewDpi})
        if (!(v >= 1 && v <= 100000)) return Status::error("the print preview's resolutions must be 1 to 100000 dpi");
    if (!(view.dotGain >= 0 && view.dotGain <= 50)) return Status::error("dot gain must be 0 to 50 %");
    if (!(view.lpi > 0)) return Status::error("the screen ruling of the dot gain must be over 0 lpi");
    const double scale = view.viewDpi / view.deviceDpi;
    const int64_t ow = std::max<int64_t>(1, std::llround(halftone.width() * scale));
    const int64_t oh = std::max<int64_t>(1, std::llround(halftone.height() * scale));
    if (Status s = checkImageSize(ow, oh, 3, uint64_t(1) << 28); !s) return s.withContext("print preview");
    // The inks, each spread from the halftone's plane (no copy of the whole result): a gray halftone is black ink.
    Image inks;
    inks.space = ColorSpace::CMYK;
    inks.channels.resize(4);
    Plane8 black;
    if (gray) {
        const Plane8& g = halftone.channels[0];
        black = Plane8(g.width, g.height);
        for (size_t i = 0; i < g.size(); ++i) black.data[i] = uint8_t(255 - g.data[i]);
    }
    const double rim = dotGainRim(view.dotGain, view.deviceDpi / view.lpi);
    for (size_t c = 0; c < 4; ++c) {
        const RunControl part = control.scaled(0.6 * double(c) / 4, 0.6 * double(c + 1) / 4);
        if (gray && c < 3) {
            inks.channels[c] = Plane8(halftone.width(), halftone.height());
        } else if (!spreadPlane(cmyk ? halftone.channels[c] : black, inks.channels[c], rim, part)) {
            return Status::cancelled();
        }
    }
    black = Plane8();
    Image printed = simulatePrint(inks, view.inks);
    inks = Image();
    if (control.cancelled()) return Status::cancelled();
    if (ow == printed.width() && oh == printed.height()) {
        out = std::move(printed);
        return Status::ok();
    }
    PrepareSettings resample;
    resample.width = int(ow);
    resample.height = int(oh);
    resample.fit = ResizeFit::Stretch;
    resample.filter = scale < 1 ? ResizeFilter::Box : ResizeFilter::Nearest;
    resample.linearResize = true;
    return prepareImage(printed, resample, out, control.scaled(0.7, 1.0));
}

}  // namespace halftone
