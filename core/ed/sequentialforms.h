#pragma once
// \brief The four sequential forms of Kasagi, Nakano and Ito, Table V (1) (diffusion or collection, a full buffer or
// register caching), written once for gray (core/ed/errordiffusion.cpp) and palette (core/palette/paletteed_fast.cpp)
// error diffusion: templated over the compile-time kernel K and the per-pixel step, which is the only part written
// twice (the L-level quantiser against the nearest-colour search).
//
// A step has kChannels (error values a pixel), width() and height(); startRow(i) before row i; level(r, j), the input
// byte of pixel (i - r, j) that a level-dependent kernel takes its weights from (any byte outside the image: its
// error is zero); and step(i, j, sum, e), which takes the divided error sums of pixel (i, j), writes its output and
// its errors e.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "core/ed/errordiffusion.h"
#include "core/ed/kerneltable.h"
#include "core/ed/varkerneltable.h"

namespace halftone::edforms {

/// \brief Fixed kernel Id of core/ed/kerneltable.h at compile time.
template <int Id>
struct TableKernel {
    static constexpr const kerneltable::KernelDef& def = kerneltable::kKernels[Id];
    static constexpr int divisor = def.divisor;
    static constexpr bool var = false;
    static constexpr bool modulated = false;
    static constexpr bool noise = false;
    static constexpr std::array<Tap, size_t(def.count)> taps = [] {
        std::array<Tap, size_t(def.count)> t{};
        for (int i = 0; i < def.count; ++i) t[size_t(i)] = Tap{def.taps[i].di, def.taps[i].dj, def.taps[i].w};
        return t;
    }();
};

/// \brief Level-dependent kernel Id of core/ed/varkerneltable.h (docs/spec.md section 1): its three taps, weights per
/// source level.
template <int Id>
struct VarKernel {
    static constexpr int divisor = varkerneltable::kDivisor;
    static constexpr std::array<Tap, varkerneltable::kTaps> taps = [] {
        std::array<Tap, varkerneltable::kTaps> t{};
        for (int i = 0; i < varkerneltable::kTaps; ++i)
            t[size_t(i)] = Tap{varkerneltable::kTapDi[i], varkerneltable::kTapDj[i], 0};
        return t;
    }();
    static constexpr bool var = true;
    static constexpr bool modulated = varkerneltable::kVarKernels[Id].modulated;
    static constexpr bool noise = varkerneltable::kVarKernels[Id].noise;
    static constexpr const varkerneltable::VarKernelDef& def = varkerneltable::kVarKernels[Id];
};

template <class K>
inline constexpr int kTapCount = int(std::size(K::taps));

/// \brief Weight of tap `ti` of kernel K for a source pixel of input `a` (the fixed weight for a fixed kernel).
template <class K>
[[gnu::always_inline]] inline int tapWeight(int ti, uint8_t a) {
    if constexpr (K::var) {
        const varkerneltable::LevelWeights& w = K::def.w[a];
        return ti == 0 ? w.right : (ti == 1 ? w.downLeft : w.down);
    } else {
        (void)a;
        return K::taps[size_t(ti)].w;
    }
}

/// \brief The reach of kernel K and its division.
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

/// \brief Calls f(TableKernel<id>{}) for the fixed kernel `id` of core/ed/kerneltable.h.
template <class F>
Status withTableKernel(int id, F&& f) {
    return [&]<int... I>(std::integer_sequence<int, I...>) {
        Status st = Status::error("kernel index " + std::to_string(id) + " has no compiled form");
        (void)((id == I ? (st = f(TableKernel<I>{}), true) : false) || ...);
        return st;
    }
    (std::make_integer_sequence<int, kerneltable::kCount>());
}

/// \brief Scan direction of row i: +1 left to right, -1 right to left (serpentine odd rows).
inline int dirOf(const EdParams& p, int i) { return (p.serpentine && (i & 1)) ? -1 : 1; }

/// \brief Error collection of pixel (i, j): the errors of its sources, source(tap, column) pointing at each one's
/// channels (rows above the image are zero), weighted (a level-dependent kernel takes the source's weight), divided,
/// and the step; e receives the pixel's errors.
template <class K, class Step, class Source>
[[gnu::always_inline]] inline void collectPixel(Step& st, int i, int j, const int* dirs, int32_t* e, Source&& source) {
    constexpr int C = Step::kChannels;
    int32_t s[C] = {};
#pragma GCC unroll 16
    for (int ti = 0; ti < kTapCount<K>; ++ti) {
        const Tap& t = K::taps[size_t(ti)];
        const int col = j - dirs[t.di] * t.dj;
        const int32_t* q = source(t, col);
        const int32_t wt = tapWeight<K>(ti, st.level(t.di, col));
        for (int ch = 0; ch < C; ++ch) s[ch] += wt * q[ch];
    }
    for (int ch = 0; ch < C; ++ch) s[ch] = Shape<K>::divide(s[ch]);
    st(i, j, s, e);
}

/// \brief The row loop of every sequential form: the cancel check, the row's scan direction, a copy of the step started
/// on the row (its fields stay in registers across the output stores), progress every 64 rows; row(i, dir, step) runs
/// row i.
template <class Step, class Row>
[[gnu::always_inline]] inline Status forEachRow(const Step& st, const EdParams& p, const RunControl& rc, Row&& row) {
    const int h = st.height();
    for (int i = 0; i < h; ++i) {
        if (rc.cancelled()) return Status::cancelled();
        Step step = st;
        step.startRow(i);
        row(i, dirOf(p, i), step);
        if ((i & 63) == 63) rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

/// \brief Column of the n-th pixel in scan order of a row scanned in direction dir.
inline int scanColumn(int n, int dir, int w) { return dir > 0 ? n : w - 1 - n; }

/// \brief Rows + 1 rows of C accumulators a pixel with margins of m pixels on both sides, for the register-caching
/// forms: ring[r] is row i + r (diffusion) or i - r (collection).
template <int C, int Rows>
class RowRing {
public:
    RowRing(int width, int m)
        : stride_(C * (ptrdiff_t(width) + 2 * m)), margin_(C * m), store_(size_t(stride_) * (Rows + 1), 0) {
        for (int r = 0; r <= Rows; ++r) rows_[r] = store_.data() + r * stride_ + margin_;
    }
    int32_t* operator[](int r) const { return rows_[r]; }
    /// Diffusion's next row: row 0 is finished; it becomes row Rows, cleared.
    void advanceDiffusion() {
        int32_t* done = rows_[0];
        for (int r = 0; r < Rows; ++r) rows_[r] = rows_[r + 1];
        rows_[Rows] = done;
        std::fill(done - margin_, done - margin_ + stride_, 0);
    }
    /// Collection's next row: row Rows is no longer read; it becomes row 0, to be overwritten.
    void advanceCollection() {
        int32_t* last = rows_[Rows];
        for (int r = Rows; r > 0; --r) rows_[r] = rows_[r - 1];
        rows_[0] = last;
    }

private:
    ptrdiff_t stride_, margin_;
    std::vector<int32_t> store_;
    int32_t* rows_[Rows + 1];
};

// Plain ED (Kasagi, Nakano and Ito's ED): a full accumulator plane with margins, scatter to every receiver.
template <class K, class Step>
Status diffusionPlain(Step& st, const EdParams& p, const RunControl& rc) {
    using S = Shape<K>;
    constexpr int C = Step::kChannels, m = S::margin();
    const int h = st.height(), w = st.width();
    const ptrdiff_t stride = C * (ptrdiff_t(w) + 2 * m);
    std::vector<int32_t> acc(size_t(stride) * size_t(h + S::maxDi()), 0);
    return forEachRow(st, p, rc, [&](int i, int dir, Step& row) {
        int32_t* base = acc.data() + ptrdiff_t(i) * stride + C * m;
        for (int n = 0; n < w; ++n) {
            const int j = scanColumn(n, dir, w);
            int32_t s[C], e[C];
            for (int ch = 0; ch < C; ++ch) s[ch] = S::divide(base[C * j + ch]);
            row(i, j, s, e);
#pragma GCC unroll 16
            for (int ti = 0; ti < kTapCount<K>; ++ti) {
                const Tap& t = K::taps[size_t(ti)];
                const int32_t wt = tapWeight<K>(ti, row.level(0, j));
                int32_t* r = base + ptrdiff_t(t.di) * stride + C * (j + dir * t.dj);
                for (int ch = 0; ch < C; ++ch) r[ch] += wt * e[ch];
            }
        }
    });
}

// Plain EC (Kasagi, Nakano and Ito's EC): a full error plane with zero margins, gather from every source.
template <class K, class Step>
Status collectionPlain(Step& st, const EdParams& p, const RunControl& rc) {
    using S = Shape<K>;
    constexpr int C = Step::kChannels, m = S::margin(), top = S::maxDi();
    const int h = st.height(), w = st.width();
    const ptrdiff_t stride = C * (ptrdiff_t(w) + 2 * m);
    std::vector<int32_t> err(size_t(stride) * size_t(h + top), 0);  // rows -top..-1 are zero
    return forEachRow(st, p, rc, [&](int i, int dir, Step& row) {
        const int dirs[4] = {dir, dirOf(p, i - 1), dirOf(p, i - 2), dirOf(p, i - 3)};
        int32_t* base = err.data() + ptrdiff_t(i + top) * stride + C * m;
        for (int n = 0; n < w; ++n) {
            const int j = scanColumn(n, dir, w);
            int32_t e[C];
            collectPixel<K>(row, i, j, dirs, e,
                            [&](const Tap& t, int col) { return base - ptrdiff_t(t.di) * stride + C * col; });
            for (int ch = 0; ch < C; ++ch) base[C * j + ch] = e[ch];
        }
    });
}

// Register caching (Kasagi, Nakano and Ito, section III): the error that stays in the current row travels in locals
// instead of memory; rows below (ED) or above (EC) live in O(width) ring buffers with margins, so boundary taps need no
// branches.
template <class K, class Step>
Status diffusionRegisters(Step& st, const EdParams& p, const RunControl& rc) {
    using S = Shape<K>;
    constexpr int C = Step::kChannels, rows = S::maxDi(), fwd = S::maxForward();
    const int w = st.width();
    RowRing<C, rows> ring(w, S::margin());  // ring[r]: accumulators of image row i + r
    return forEachRow(st, p, rc, [&](int i, int dir, Step& row) {
        const int32_t* cur = ring[0];
        int32_t win[fwd + 1][C] = {};  // win[d-1]: same-row error arriving d pixels ahead in scan order
        for (int n = 0; n < w; ++n) {
            const int j = scanColumn(n, dir, w);
            int32_t s[C], e[C];
            for (int ch = 0; ch < C; ++ch) s[ch] = S::divide(cur[C * j + ch] + win[0][ch]);
            row(i, j, s, e);
            for (int d = 0; d + 1 < fwd; ++d)
                for (int ch = 0; ch < C; ++ch) win[d][ch] = win[d + 1][ch];
            for (int ch = 0; ch < C; ++ch) win[fwd > 0 ? fwd - 1 : 0][ch] = 0;
#pragma GCC unroll 16
            for (int ti = 0; ti < kTapCount<K>; ++ti) {
                const Tap& t = K::taps[size_t(ti)];
                const int32_t wt = tapWeight<K>(ti, row.level(0, j));
                int32_t* r = t.di == 0 ? win[t.dj - 1] : ring[t.di] + C * (j + dir * t.dj);
                for (int ch = 0; ch < C; ++ch) r[ch] += wt * e[ch];
            }
        }
        ring.advanceDiffusion();
    });
}

template <class K, class Step>
Status collectionRegisters(Step& st, const EdParams& p, const RunControl& rc) {
    using S = Shape<K>;
    constexpr int C = Step::kChannels, rows = S::maxDi(), back = S::maxForward();
    const int w = st.width();
    RowRing<C, rows> hist(w, S::margin());  // hist[0]: errors of row i being written; hist[r]: row i - r
    return forEachRow(st, p, rc, [&](int i, int dir, Step& row) {
        const int dirs[4] = {dir, dirOf(p, i - 1), dirOf(p, i - 2), dirOf(p, i - 3)};
        int32_t* cur = hist[0];
        int32_t win[back + 1][C] = {};  // win[d-1]: error of the pixel d steps back in scan order
        for (int n = 0; n < w; ++n) {
            const int j = scanColumn(n, dir, w);
            int32_t e[C];
            collectPixel<K>(row, i, j, dirs, e, [&](const Tap& t, int col) {
                return t.di == 0 ? static_cast<const int32_t*>(win[t.dj - 1]) : hist[t.di] + C * col;
            });
            for (int d = back; d > 0; --d)
                for (int ch = 0; ch < C; ++ch) win[d][ch] = win[d - 1][ch];
            for (int ch = 0; ch < C; ++ch) win[0][ch] = cur[C * j + ch] = e[ch];
        }
        hist.advanceCollection();
    });
}

/// \brief Runs the sequential form `variant` with kernel K and step `st`.
template <class K, class Step>
Status runForm(EdVariant variant, Step& st, const EdParams& p, const RunControl& rc) {
    switch (variant) {
        case EdVariant::Diffusion:
            return diffusionPlain<K>(st, p, rc);
        case EdVariant::Collection:
            return collectionPlain<K>(st, p, rc);
        case EdVariant::DiffusionRegisters:
            return diffusionRegisters<K>(st, p, rc);
        case EdVariant::CollectionRegisters:
            return collectionRegisters<K>(st, p, rc);
    }
    return Status::error("unknown variant");
}

}  // namespace halftone::edforms
