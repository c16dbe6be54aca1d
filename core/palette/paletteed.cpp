#include "core/palette/paletteed.h"

#include <algorithm>

#include "core/ed/kernel.h"
#include "core/ed/quantizer.h"

namespace halftone {

PaletteTargets::PaletteTargets(const Palette& p, bool linear, PaletteMatch match) : weights(matchWeights(match)) {
    const Quantizer q(2, linear);  // the one host table of section 1
    input = q.inputTable();
    targets.reserve(p.colors.size());
    for (const Rgb8& c : p.colors) targets.push_back({input[c[0]], input[c[1]], input[c[2]]});
}

int PaletteTargets::nearest(int32_t r, int32_t g, int32_t b) const {
    int best = 0;
    int64_t bestD = INT64_MAX;
    for (int k = 0; k < size(); ++k) {
        const int64_t d = distance(r, g, b, targets[size_t(k)]);
        if (d < bestD) {
            bestD = d;
            best = k;
        }
    }
    return best;
}

Plane8 referencePaletteErrorDiffusion(const Image& rgb, const Palette& palette, const EdParams& params) {
    const Kernel* kernel = findKernel(params.kernel);
    const PaletteTargets pt(palette, params.linear, params.match);
    const int h = rgb.height(), w = rgb.width();
    const Plane8* in[3];
    for (int c = 0; c < 3; ++c) in[c] = &rgb.channels[rgb.channels.size() == 1 ? 0 : size_t(c)];
    Plane8 out(w, h);
    PlaneT<int32_t> err[3] = {PlaneT<int32_t>(w, h), PlaneT<int32_t>(w, h), PlaneT<int32_t>(w, h)};
    const int d = kernel->divisor;
    auto odd = [&](int row) { return params.serpentine && (row & 1); };
    for (int i = 0; i < h; ++i) {
        for (int n = 0; n < w; ++n) {
            const int j = odd(i) ? w - 1 - n : n;
            int32_t t[3];
            for (int c = 0; c < 3; ++c) {
                int32_t acc = 0;
                for (const Tap& tap : kernel->taps) {
                    const int si = i - tap.di;
                    const int sj = j - (odd(si) ? -tap.dj : tap.dj);
                    if (si >= 0 && sj >= 0 && sj < w) acc += tap.w * err[c].at(si, sj);
                }
                const int32_t s = pt.input[in[c]->at(i, j)] + floorDiv(acc + d / 2, d);
                t[c] = std::clamp(s, 0, 4080);
            }
            const int k = pt.nearest(t[0], t[1], t[2]);
            out.at(i, j) = uint8_t(k);
            for (int c = 0; c < 3; ++c) err[c].at(i, j) = t[c] - pt.targets[size_t(k)][size_t(c)];
        }
    }
    return out;
}

Image expandIndexed(const Plane8& indices, const Palette& palette) {
    Image im;
    im.space = ColorSpace::RGB;
    im.channels.assign(3, Plane8());  // then each plane allocated in place, not copied
    for (Plane8& plane : im.channels) plane = Plane8(indices.width, indices.height);
    for (size_t i = 0; i < indices.size(); ++i) {
        const Rgb8& c = palette.colors[std::min<size_t>(indices.data[i], palette.colors.size() - 1)];
        for (int ch = 0; ch < 3; ++ch) im.channels[size_t(ch)].data[i] = c[size_t(ch)];
    }
    im.palette = palette.colors;
    im.indices = indices;
    return im;
}

Status fixedColorKernel(const EdParams& params, const char* method, const Kernel*& kernel) {
    kernel = findKernel(params.kernel);
    if (!kernel) return Status::error("unknown kernel '" + params.kernel + "'; known kernels: " + kernelNames());
    if (kernel->levelDependent())
        return Status::error("kernel '" + kernel->name + "' takes its weights from a gray input level; " + method +
                             " takes the fixed kernels only");
    return Status::ok();
}

}  // namespace halftone
