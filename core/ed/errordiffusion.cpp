#include "core/ed/errordiffusion.h"

#include <algorithm>
#include <array>
#include <bit>
#include <iterator>
#include <cstdint>
#include <vector>

#include "core/ed/kerneltable.h"
#include "core/ed/quantizer.h"
#include "core/ed/varkerneltable.h"

namespace halftone {

Status validateEdParams(const EdParams& params, const Kernel*& kernel) {
    kernel = findKernel(params.kernel);
    if (!kernel) return Status::error("unknown kernel '" + params.kernel + "'; known kernels: " + kernelNames());
    return Quantizer::checkLevels(params.levels);
}

Plane8 referenceErrorDiffusion(const Plane8& src, const EdParams& params) {
    const Kernel* kernel = findKernel(params.kernel);
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
                const int z = varkerneltable::modulationScale(kernel->strength(src.at(i, j)), params.levels);
                decide = s - varkerneltable::perturbation(u, z);
            }
            const int k = q.level(decide);
            out.at(i, j) = q.values()[size_t(k)];
            err.at(i, j) = s - q.targets()[size_t(k)];
        }
    }
    return out;
}

namespace {

// ---- compile-time kernels: the SPEC taps of core/ed/kerneltable.h as constants so loops unroll and divisions become
// shifts

template <int Id>
struct TableKernel {
    static constexpr const kerneltable::KernelDef& def = kerneltable::kKernels[Id];
    static constexpr int divisor = def.divisor;
    static constexpr bool var = false;
    static constexpr bool modulated = false;
    static constexpr std::array<Tap, size_t(def.count)> taps = [] {
        std::array<Tap, size_t(def.count)> t{};
        for (int i = 0; i < def.count; ++i) t[size_t(i)] = Tap{def.taps[i].di, def.taps[i].dj, def.taps[i].w};
        return t;
    }();
};

/// A level-dependent kernel (docs/spec.md section 1): the three taps of core/ed/varkerneltable.h, weights per source
/// level.
template <int Id>
struct KVar {
    static constexpr int divisor = varkerneltable::kDivisor;
    static constexpr Tap taps[] = {{0, 1, 0}, {1, -1, 0}, {1, 0, 0}};
    static constexpr bool var = true;
    static constexpr bool modulated = varkerneltable::kVarKernels[Id].modulated;
    static constexpr const varkerneltable::VarKernelDef& def = varkerneltable::kVarKernels[Id];
};
static_assert(varkerneltable::kTapDi[0] == 0 && varkerneltable::kTapDj[0] == 1 && varkerneltable::kTapDi[1] == 1 &&
                  varkerneltable::kTapDj[1] == -1 && varkerneltable::kTapDi[2] == 1 && varkerneltable::kTapDj[2] == 0,
              "KVar's taps are core/ed/varkerneltable.h's");

template <class K>
inline constexpr int kTapCount = int(std::size(K::taps));

/// Weight of tap `ti` of kernel K for a source pixel of input `a` (the fixed weight for a fixed kernel).
template <class K>
[[gnu::always_inline]] inline int tapWeight(int ti, uint8_t a) {
    if constexpr (K::var) {
        const varkerneltable::LevelWeights& w = K::def.w[a];
        return ti == 0 ? w.right : (ti == 1 ? w.downLeft : w.down);
    } else {
        (void)a;
        return K::taps[ti].w;
    }
}

template <class K>
struct Shape {
    static constexpr int maxDi() {
        int m = 0;
        for (const Tap& t : K::taps) m = t.di > m ? t.di : m;
        return m;
    }
    static constexpr int margin() {
        int m = 0;
        for (const Tap& t : K::taps) m = (t.dj > m ? t.dj : (-t.dj > m ? -t.dj : m));
        return m;
    }
    static constexpr int maxForward() {
        int m = 0;
        for (const Tap& t : K::taps)
            if (t.di == 0 && t.dj > m) m = t.dj;
        return m;
    }
    /// floor((a + D/2) / D), a shift when D is a power of two.
    static constexpr int32_t divide(int32_t a) {
        constexpr int d = K::divisor;
        if constexpr ((d & (d - 1)) == 0) {
            constexpr int sh = std::countr_zero(unsigned(d));
            return (a + d / 2) >> sh;
        } else {
            return floorDiv(a + d / 2, d);
        }
    }
};

/// Calls f(K{}) with the compile-time kernel matching `k` (docs/spec.md section 1), keeps the runtime kernel otherwise.
template <class F, int... I>
Status withKernelOf(const Kernel& k, F& f, std::integer_sequence<int, I...>) {
    Status st = Status::error("kernel '" + k.name + "' has no compiled form");
    (void)((k.name == kerneltable::kKernels[I].name ? (st = f(TableKernel<I>{}), true) : false) || ...);
    return st;
}
template <class F>
Status withKernel(const Kernel& k, F&& f) {
    if (k.levelDependent()) {
        static_assert(varkerneltable::kVarCount == 2, "one compiled form per level-dependent kernel");
        if (k.levelTable == &varkerneltable::kVarKernels[0]) return f(KVar<0>{});
        if (k.levelTable == &varkerneltable::kVarKernels[1]) return f(KVar<1>{});
        return Status::error("kernel '" + k.name + "' has no compiled form");
    }
    return withKernelOf(k, f, std::make_integer_sequence<int, kerneltable::kCount>());
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

/// Scan direction of row i: +1 left to right, -1 right to left (serpentine odd rows).
inline int dirOf(const EdParams& p, int i) { return (p.serpentine && (i & 1)) ? -1 : 1; }

struct Common {
    const Plane8& src;
    Plane8& dst;
    const Quantizer& q;
    const FastLevels& lv;
    const EdParams& p;
    const RunControl& rc;
    const int32_t* modScale;  ///< Z(a) of the threshold modulation (docs/spec.md section 1), 256 entries
};

/// The value the level is chosen from: S, less Zhou and Fang's perturbation P(i, j) for a modulated kernel.
template <class K>
[[gnu::always_inline]] inline int32_t decision(const Common& c, int32_t s, int i, int j, uint8_t a) {
    if constexpr (K::modulated) {
        const int u = varkerneltable::noiseU(uint32_t(i), uint32_t(j), c.p.seed);
        return s - varkerneltable::perturbation(u, c.modScale[a]);
    } else {
        (void)c, (void)i, (void)j, (void)a;
        return s;
    }
}

/// Row r of the input, for the source bytes of a level-dependent kernel (any row when r is outside: its errors are 0).
inline const uint8_t* inputRow(const Plane8& src, int r) { return src.row(r >= 0 && r < src.height ? r : 0); }
/// Column j clamped into the row (outside the image the error is 0, so any byte gives the same sum).
inline int clampCol(int j, int w) { return j < 0 ? 0 : (j >= w ? w - 1 : j); }

// Plain ED (Kasagi, Nakano and Ito's ED): a full int32 accumulator plane with margins, scatter to every receiver.
template <class K>
Status diffusionPlain(const Common& c) {
    using S = Shape<K>;
    const int h = c.src.height, w = c.src.width, m = S::margin();
    const size_t stride = size_t(w) + 2 * size_t(m);
    std::vector<int32_t> acc(stride * size_t(h + S::maxDi()), 0);
    for (int i = 0; i < h; ++i) {
        if (c.rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(c.p, i);
        const uint8_t* in = c.src.row(i);
        uint8_t* out = c.dst.row(i);
        int32_t* base = acc.data() + size_t(i) * stride + size_t(m);
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            const int32_t s = c.q.input(in[j]) + S::divide(base[j]);
            const int k = c.lv.level(decision<K>(c, s, i, j, in[j]));
            out[j] = c.q.values()[size_t(k)];
            const int32_t e = s - c.q.targets()[size_t(k)];
#pragma GCC unroll 16
            for (int ti = 0; ti < kTapCount<K>; ++ti) {
                const Tap& t = K::taps[ti];
                base[ptrdiff_t(t.di) * ptrdiff_t(stride) + j + dir * t.dj] += tapWeight<K>(ti, in[j]) * e;
            }
        }
        if ((i & 63) == 63) c.rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

// Plain EC (Kasagi, Nakano and Ito's EC): a full int32 error plane with zero margins, gather from every source.
template <class K>
Status collectionPlain(const Common& c) {
    using S = Shape<K>;
    const int h = c.src.height, w = c.src.width, m = S::margin(), top = S::maxDi();
    const size_t stride = size_t(w) + 2 * size_t(m);
    std::vector<int32_t> err(stride * size_t(h + top), 0);  // rows -top..-1 are zero
    for (int i = 0; i < h; ++i) {
        if (c.rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(c.p, i);
        const uint8_t* in = c.src.row(i);
        uint8_t* out = c.dst.row(i);
        int32_t* base = err.data() + size_t(i + top) * stride + size_t(m);
        int dirs[4] = {dir, dirOf(c.p, i - 1), dirOf(c.p, i - 2), dirOf(c.p, i - 3)};
        const uint8_t* ins[4] = {in, inputRow(c.src, i - 1), inputRow(c.src, i - 2), inputRow(c.src, i - 3)};
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            int32_t a = 0;
#pragma GCC unroll 16
            for (int ti = 0; ti < kTapCount<K>; ++ti) {
                const Tap& t = K::taps[ti];
                const int col = j - dirs[t.di] * t.dj;
                const int32_t e = base[-ptrdiff_t(t.di) * ptrdiff_t(stride) + col];
                if constexpr (K::var)
                    a += tapWeight<K>(ti, ins[t.di][clampCol(col, w)]) * e;  // the source's weight
                else
                    a += t.w * e;
            }
            const int32_t s = c.q.input(in[j]) + S::divide(a);
            const int k = c.lv.level(decision<K>(c, s, i, j, in[j]));
            out[j] = c.q.values()[size_t(k)];
            base[j] = s - c.q.targets()[size_t(k)];
        }
        if ((i & 63) == 63) c.rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

// Register caching (Kasagi, Nakano and Ito, section III): the error that stays in the current row travels in
// locals instead of memory; rows below (ED) or above (EC) live in O(width) ring buffers with
// margins, so boundary taps need no branches.
template <class K>
Status diffusionRegisters(const Common& c) {
    using S = Shape<K>;
    constexpr int rows = S::maxDi(), fwd = S::maxForward(), m = S::margin();
    const int h = c.src.height, w = c.src.width;
    const size_t stride = size_t(w) + 2 * m;
    std::vector<int32_t> store(stride * (rows + 1), 0);
    int32_t* ring[rows + 1];  // ring[r]: accumulators of image row i + r
    for (int r = 0; r <= rows; ++r) ring[r] = store.data() + size_t(r) * stride + m;
    for (int i = 0; i < h; ++i) {
        if (c.rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(c.p, i);
        const uint8_t* in = c.src.row(i);
        uint8_t* out = c.dst.row(i);
        int32_t* cur = ring[0];
        int32_t win[fwd + 1] = {};  // win[d-1]: same-row error arriving d pixels ahead in scan order
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            const int32_t s = c.q.input(in[j]) + S::divide(cur[j] + win[0]);
            const int k = c.lv.level(decision<K>(c, s, i, j, in[j]));
            out[j] = c.q.values()[size_t(k)];
            const int32_t e = s - c.q.targets()[size_t(k)];
            for (int d = 0; d + 1 < fwd; ++d) win[d] = win[d + 1];
            win[fwd > 0 ? fwd - 1 : 0] = 0;
#pragma GCC unroll 16
            for (int ti = 0; ti < kTapCount<K>; ++ti) {
                const Tap& t = K::taps[ti];
                const int32_t we = tapWeight<K>(ti, in[j]) * e;
                if (t.di == 0)
                    win[t.dj - 1] += we;
                else
                    ring[t.di][j + dir * t.dj] += we;
            }
        }
        int32_t* done = ring[0];
        for (int r = 0; r < rows; ++r) ring[r] = ring[r + 1];
        ring[rows] = done;
        std::fill(done - m, done - m + stride, 0);
        if ((i & 63) == 63) c.rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

template <class K>
Status collectionRegisters(const Common& c) {
    using S = Shape<K>;
    constexpr int rows = S::maxDi(), back = S::maxForward(), m = S::margin();
    const int h = c.src.height, w = c.src.width;
    const size_t stride = size_t(w) + 2 * m;
    std::vector<int32_t> store(stride * (rows + 1), 0);
    int32_t* hist[rows + 1];  // hist[0]: errors of row i being written; hist[r]: row i - r
    for (int r = 0; r <= rows; ++r) hist[r] = store.data() + size_t(r) * stride + m;
    for (int i = 0; i < h; ++i) {
        if (c.rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(c.p, i);
        int dirs[4] = {dir, dirOf(c.p, i - 1), dirOf(c.p, i - 2), dirOf(c.p, i - 3)};
        const uint8_t* in = c.src.row(i);
        uint8_t* out = c.dst.row(i);
        int32_t* cur = hist[0];
        int32_t win[back + 1] = {};  // win[d-1]: error of the pixel d steps back in scan order
        const uint8_t* ins[4] = {in, inputRow(c.src, i - 1), inputRow(c.src, i - 2), inputRow(c.src, i - 3)};
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            int32_t a = 0;
#pragma GCC unroll 16
            for (int ti = 0; ti < kTapCount<K>; ++ti) {
                const Tap& t = K::taps[ti];
                const int col = j - dirs[t.di] * t.dj;
                // rows above the image are zero; a level-dependent kernel takes the source's weight
                const int32_t e = t.di == 0 ? win[t.dj - 1] : hist[t.di][col];
                if constexpr (K::var)
                    a += tapWeight<K>(ti, ins[t.di][clampCol(col, w)]) * e;
                else
                    a += t.w * e;
            }
            const int32_t s = c.q.input(in[j]) + S::divide(a);
            const int k = c.lv.level(decision<K>(c, s, i, j, in[j]));
            out[j] = c.q.values()[size_t(k)];
            const int32_t e = s - c.q.targets()[size_t(k)];
            for (int d = back; d > 0; --d) win[d] = win[d - 1];
            win[0] = e;
            cur[j] = e;
        }
        int32_t* last = hist[rows];
        for (int r = rows; r > 0; --r) hist[r] = hist[r - 1];
        hist[0] = last;
        if ((i & 63) == 63) c.rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

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
    for (int a = 0; a < 256; ++a)
        modScale[size_t(a)] = varkerneltable::modulationScale(kernel->strength(uint8_t(a)), params.levels);
    const Common c{src, dst, q, levels, params, control, modScale.data()};
    const Status st = withKernel(*kernel, [&](auto k) {
        using K = decltype(k);
        switch (variant) {
            case EdVariant::Diffusion:
                return diffusionPlain<K>(c);
            case EdVariant::Collection:
                return collectionPlain<K>(c);
            case EdVariant::DiffusionRegisters:
                return diffusionRegisters<K>(c);
            case EdVariant::CollectionRegisters:
                return collectionRegisters<K>(c);
        }
        return Status::error("unknown variant");
    });
    if (st) control.report(1.0);
    return st;
}

}  // namespace halftone
