// Portable band kernel without intrinsics: 4 "lanes" in plain arrays, 8 vectors (32 rows) per band,
// exact integer floor division. Runs on any x86-64 (and elsewhere); also the reference for the SIMD paths.
#include <cstring>

#include "core/simd_wavefront.h"

namespace halftone::par {
namespace {

#define HT_AI [[gnu::always_inline]] static inline
#define HT_LOOP(expr)                            \
    T r;                                         \
    for (int i = 0; i < 4; ++i) r.v[i] = (expr); \
    return r

struct VS {
    struct T {
        int32_t v[4];
    };
    using M = T;
    static constexpr int L = 4;
    static constexpr bool kLookup128 = false;  ///< no in-register 128-entry table lookup
    HT_AI T zero() { return T{{0, 0, 0, 0}}; }
    HT_AI T set1(int x) { return T{{x, x, x, x}}; }
    HT_AI T load(const int32_t* p) { HT_LOOP(p[i]); }
    HT_AI void store(int32_t* p, T v) { std::memcpy(p, v.v, sizeof v.v); }
    // add and sub wrap modulo 2^32 like the vector instructions (the position hash of Zhou and Fang's modulation
    // relies on it; error sums never come near the limits)
    HT_AI T add(T a, T b) { HT_LOOP(int32_t(uint32_t(a.v[i]) + uint32_t(b.v[i]))); }
    HT_AI T sub(T a, T b) { HT_LOOP(int32_t(uint32_t(a.v[i]) - uint32_t(b.v[i]))); }
    HT_AI T andv(T a, T b) { HT_LOOP(a.v[i] & b.v[i]); }
    HT_AI T mullo(T a, T b) { HT_LOOP(int32_t(uint32_t(a.v[i]) * uint32_t(b.v[i]))); }
    HT_AI T xorv(T a, T b) { HT_LOOP(a.v[i] ^ b.v[i]); }
    HT_AI T mulw(T a, T b) { HT_LOOP(a.v[i] * b.v[i]); }
    template <int N>
    HT_AI T shl(T a) {
        HT_LOOP(int32_t(uint32_t(a.v[i]) << N));
    }
    template <int N>
    HT_AI T sar(T a) {
        HT_LOOP(a.v[i] >> N);
    }
    template <int N>
    HT_AI T srl(T a) {
        HT_LOOP(int32_t(uint32_t(a.v[i]) >> N));
    }
    template <int D>
    HT_AI T shiftUp(T cur, T prev) {
        HT_LOOP(i < D ? prev.v[4 - D + i] : cur.v[i - D]);
    }
    HT_AI T bcast1(const int32_t* p) { return set1(*p); }
    HT_AI T bcast2(const int32_t* p) { return T{{p[0], p[1], p[0], p[1]}}; }
    HT_AI T bcast3(const int32_t* p) { return T{{0, p[0], p[1], p[2]}}; }
    HT_AI T loadBytes(const uint8_t* p) { HT_LOOP(int32_t(p[i])); }
    HT_AI void storeBytes(uint8_t* p, T v) {
        for (int i = 0; i < 4; ++i) p[i] = uint8_t(v.v[i]);
    }
    HT_AI T gather(const int32_t* base, T idx) { HT_LOOP(base[idx.v[i]]); }
    HT_AI T clamp(T x, int lo, int hi) { HT_LOOP(x.v[i] < lo ? lo : (x.v[i] > hi ? hi : x.v[i])); }
    /// exact integer floor division (no float)
    template <int D>
    HT_AI T floorDiv(T x) {
        HT_LOOP(x.v[i] / D - ((x.v[i] % D != 0 && x.v[i] < 0) ? 1 : 0));
    }
    HT_AI M gt(T a, T b) { HT_LOOP(a.v[i] > b.v[i] ? -1 : 0); }
    HT_AI M validCol(T j, T w) { HT_LOOP((j.v[i] >= 0 && j.v[i] < w.v[i]) ? -1 : 0); }
    HT_AI T subIf(M m, T a, T b) { HT_LOOP(a.v[i] - (m.v[i] & b.v[i])); }
    HT_AI T maskz(M m, T a) { HT_LOOP(m.v[i] & a.v[i]); }
};
#undef HT_LOOP
#undef HT_AI

inline void transposeIn(const uint8_t* const* rows, uint8_t* out, int outStride) {
    for (int s = 0; s < 16; ++s)
        for (int r = 0; r < 16; ++r) out[s * outStride + r] = rows[r][s];
}
inline void transposeOut(const uint8_t* in, int inStride, uint8_t* const* rows) {
    for (int r = 0; r < 16; ++r)
        for (int s = 0; s < 16; ++s) rows[r][s] = in[s * inStride + r];
}

inline void transposeInAt(const uint8_t* const* base, int64_t off, uint8_t* out, int outStride) {
    for (int s = 0; s < 16; ++s)
        for (int r = 0; r < 16; ++r) out[s * outStride + r] = base[r][off + s];
}
inline void transposeOutAt(const uint8_t* in, int inStride, uint8_t* const* base, int64_t off) {
    for (int r = 0; r < 16; ++r)
        for (int s = 0; s < 16; ++s) base[r][off + s] = in[s * inStride + r];
}

#include "core/simd_wavefront_impl.h"

SimdPathInfo makeInfo() {
    SimdPathInfo info{};
    info.name = "scalar";
    fillPath<8, VS>(info);
    return info;
}

}  // namespace

const SimdPathInfo& simdPathScalar() {
    static const SimdPathInfo info = makeInfo();
    return info;
}

}  // namespace halftone::par
