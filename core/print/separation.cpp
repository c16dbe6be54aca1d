// Separation of sRGB into CMYK (docs/spec.md, "Separation into inks"): complement, grey component replacement with
// under-colour removal for independently placed dots (Demichel 1924), total ink limit.
#include "core/print/separation.h"

#include <algorithm>

namespace halftone {

Status checkSeparation(const SeparationParams& p) {
    if (p.gcr < 0 || p.gcr > 100)
        return Status::error("--gcr must be a percent from 0 to 100, got " + std::to_string(p.gcr));
    if (p.inkLimit < 0 || p.inkLimit > 400)
        return Status::error("--ink-limit must be a percent from 0 to 400, got " + std::to_string(p.inkLimit));
    return Status::ok();
}

const char* toString(RenderingIntent intent) {
    switch (intent) {
        case RenderingIntent::Perceptual:
            return "perceptual";
        case RenderingIntent::Saturation:
            return "saturation";
        case RenderingIntent::Absolute:
            return "absolute";
        default:
            return "relative";
    }
}

bool parseRenderingIntent(const std::string& word, RenderingIntent& out) {
    for (RenderingIntent i : {RenderingIntent::Perceptual, RenderingIntent::Relative, RenderingIntent::Saturation,
                              RenderingIntent::Absolute})
        if (word == toString(i)) {
            out = i;
            return true;
        }
    return false;
}

int inkCap(int inkLimit) { return inkLimit * 255 / 100; }

std::array<uint8_t, 4> separatePixel(uint8_t r, uint8_t g, uint8_t b, const SeparationParams& p) {
    const int c0 = 255 - r, m0 = 255 - g, y0 = 255 - b;
    const int grey = std::min({c0, m0, y0});
    const int k = (p.gcr * grey + 50) / 100;
    const int den = 255 - k;
    // Under-colour removal: with rotated screens the dots of two inks overlap at random, so the paper left
    // free of cyan and black is (1 - c)(1 - k); c = (c0 - k) / (1 - k) keeps that equal to 1 - c0.
    const auto ucr = [&](int x) { return den == 0 ? 0 : ((x - k) * 255 + den / 2) / den; };
    std::array<uint8_t, 4> out = {uint8_t(ucr(c0)), uint8_t(ucr(m0)), uint8_t(ucr(y0)), uint8_t(k)};
    limitInk(out, p.inkLimit);
    return out;
}

void limitInk(std::array<uint8_t, 4>& v, int inkLimit) {
    const int cap = inkCap(inkLimit);
    const int cmy = v[0] + v[1] + v[2];
    if (cmy + v[3] <= cap) return;
    if (v[3] >= cap) {
        v = {0, 0, 0, uint8_t(cap)};
        return;
    }
    const int room = cap - v[3];  // 0 < room < cmy
    for (int c = 0; c < 3; ++c) v[size_t(c)] = uint8_t(v[size_t(c)] * room / cmy);
}

}  // namespace halftone
