#include "core/ed/errordiffusion.h"

#include <array>
#include <cstdint>
#include <vector>

#include "core/ed/kerneltable.h"
#include "core/ed/quantizer.h"
#include "core/ed/sequentialforms.h"
#include "core/ed/varkerneltable.h"

namespace halftone {

Status validateEdParams(const EdParams& params, const Kernel*& kernel) {
    kernel = findKernel(params.kernel);
    if (!kernel) return Status::error("unknown kernel '" + params.kernel + "'; known kernels: " + kernelNames());
    return Quantizer::checkLevels(params.levels);
}

Plane8 referenceErrorDiffusion(const Plane8& src, const EdParams& params) {
    return referenceErrorDiffusion(src, params, *findKernel(params.kernel));
}

Plane8 referenceErrorDiffusion(const Plane8& src, const EdParams& params, const Kernel& k) {
    const Kernel* kernel = &k;
    const Quantizer q(params.levels, params.linear);
    const int h = src.height, w = src.width;
    Plane8 out(w, h);
    PlaneT<int32_t> err(w, h);
    const int d = kernel->divisor;
    auto odd = [&](int row) { return params.serpentine && (row & 1); };
    for (int i = 0; i < h; ++i) {
        for (int n = 0; n < w; ++n) {
            const int j = odd(i) ? w - 1 - n : n;
            int32_t acc = 0;
            for (size_t t = 0; t < kernel->taps.size(); ++t) {
                const Tap& tap = kernel->taps[t];
                const int si = i - tap.di;
                const int sj = j - (odd(si) ? -tap.dj : tap.dj);
                // the weight is the sending pixel's: W_t(a_q) for a level-dependent kernel
                if (si >= 0 && sj >= 0 && sj < w) acc += kernel->weight(t, src.at(si, sj)) * err.at(si, sj);
            }
            const int32_t s = q.input(src.at(i, j)) + floorDiv(acc + d / 2, d);
            int32_t decide = s;
            if (kernel->modulated()) {
                const int u = varkerneltable::noiseU(uint32_t(i), uint32_t(j), params.seed);
                decide = s - varkerneltable::perturbation(u, kernel->modulationWord(src.at(i, j), params.levels));
            }
            const int k = q.level(decide);
            out.at(i, j) = q.values()[size_t(k)];
            err.at(i, j) = s - q.targets()[size_t(k)];
        }
    }
    return out;
}

namespace {

/// Calls f(K{}) with the compile-time kernel matching `k` (docs/spec.md section 1, core/ed/sequentialforms.h).
template <class F>
Status withKernel(const Kernel& k, F&& f) {
    if (k.levelDependent()) return [&]<int... I>(std::integer_sequence<int, I...>) {
            Status st = Status::error("kernel '" + k.name + "' has no compiled form");
            (void)((k.levelTable == &varkerneltable::kVarKernels[I] ? (st = f(edforms::VarKernel<I>{}), true)
                                                                    : false) ||
                   ...);
            return st;
        }
    (std::make_integer_sequence<int, varkerneltable::kVarCount>());
    for (int id = 0; id < kerneltable::kCount; ++id)
        if (k.name == kerneltable::kKernels[id].name) return edforms::withTableKernel(id, f);
    return Status::error("kernel '" + k.name + "' has no compiled form");
}

/// Level choice without branches on the common paths: one compare for L = 2, a table over the
/// reachable range of S otherwise (binary search outside it).
class FastLevels {
public:
    explicit FastLevels(const Quantizer& q) : q_(q), binary_(q.levels() == 2), t0_(q.thresholds()[0]) {
        if (!binary_) {
            lut_.resize(kSpan);
            for (int i = 0; i < kSpan; ++i) lut_[size_t(i)] = uint8_t(q.level(i - kOffset));
        }
    }
    int level(int32_t s) const {
        if (binary_) return s > t0_ ? 1 : 0;
        const uint32_t idx = uint32_t(s + kOffset);
        return idx < uint32_t(kSpan) ? lut_[idx] : q_.level(s);
    }

private:
    static constexpr int kOffset = 8192, kSpan = 20480;
    const Quantizer& q_;
    bool binary_;
    int32_t t0_;
    std::vector<uint8_t> lut_;
};

/// The gray per-pixel step of the sequential forms (core/ed/sequentialforms.h): S = A + the error sum, the level
/// chosen from S (less the perturbation P(i, j) of a modulated kernel), the error S - Q_k.
template <class K>
struct GrayStep {
    static constexpr int kChannels = 1;
    const Plane8& src;
    Plane8& dst;
    const Quantizer& q;
    const FastLevels& lv;
    uint32_t seed;
    const int32_t* modScale;     ///< the modulation word of each input level (docs/spec.md section 1), 256 entries
    const uint8_t* ins[4] = {};  ///< input rows i, i - 1, i - 2, i - 3 (row 0 outside: its errors are zero)
    uint8_t* out = nullptr;

    int width() const { return src.width; }
    int height() const { return src.height; }
    void startRow(int i) {
        for (int r = 0; r < 4; ++r) ins[r] = src.row(i - r >= 0 ? i - r : 0);
        out = dst.row(i);
    }
    /// The input byte of pixel (i - r, j), column clamped into the row (outside the image the error is 0).
    [[gnu::always_inline]] uint8_t level(int r, int j) const {
        return ins[r][j < 0 ? 0 : (j >= src.width ? src.width - 1 : j)];
    }
    [[gnu::always_inline]] void operator()(int i, int j, const int32_t* sum, int32_t* e) const {
        const int32_t s = q.input(ins[0][j]) + sum[0];
        int32_t decide = s;
        if constexpr (K::modulated)
            decide -= varkerneltable::perturbation(
                K::noise ? varkerneltable::noiseU(uint32_t(i), uint32_t(j), seed) : 0, modScale[ins[0][j]]);
        else
            (void)i;
        const int k = lv.level(decide);
        out[j] = q.values()[size_t(k)];
        e[0] = s - q.targets()[size_t(k)];
    }
};

}  // namespace

Status errorDiffuse(const Plane8& src, Plane8& dst, const EdParams& params, EdVariant variant,
                    const RunControl& control) {
    const Kernel* kernel = nullptr;
    if (Status s = validateEdParams(params, kernel); !s) return s;
    if (Status s = checkImageSize(src.width, src.height, 1, ~0ull); !s) return s;
    const Quantizer q(params.levels, params.linear);
    if (!dst.sameSize(src)) dst = Plane8(src.width, src.height);
    const FastLevels levels(q);
    std::array<int32_t, 256> modScale{};
    for (int a = 0; a < 256; ++a) modScale[size_t(a)] = kernel->modulationWord(uint8_t(a), params.levels);
    const Status st = withKernel(*kernel, [&](auto k) {
        using K = decltype(k);
        GrayStep<K> step{src, dst, q, levels, params.seed, modScale.data()};
        return edforms::runForm<K>(variant, step, params, control);
    });
    if (st) control.report(1.0);
    return st;
}

}  // namespace halftone
