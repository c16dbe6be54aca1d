// Portable band kernel without intrinsics: 4 lanes in a generic vector of GCC and Clang, 8 vectors (32 rows) per
// band, exact integer floor division. Runs on any x86-64 (and elsewhere); also the reference for the SIMD paths.
// Whole-vector operators keep the band functions small enough to compile quickly at any optimisation level.
#include <cstring>

#include "core/ed/simd_wavefront.h"

namespace halftone::par {
namespace {

#define HT_AI [[gnu::always_inline]] static inline
#define HT_LANES(f) \
    T { f(0), f(1), f(2), f(3) }

struct VS {
    /// four lanes as a generic vector of GCC and Clang (no intrinsics): element-wise operators, lowered to whatever
    /// the target has
    using T = int32_t __attribute__((vector_size(16)));
    using U = uint32_t __attribute__((vector_size(16)));
    using M = T;
    static constexpr int L = 4;
    static constexpr bool kLookup128 = false;  ///< no in-register 128-entry table lookup
    HT_AI T zero() { return T{0, 0, 0, 0}; }
    HT_AI T set1(int x) { return T{x, x, x, x}; }
    HT_AI T load(const int32_t* p) {
        T r;
        std::memcpy(&r, p, sizeof r);
        return r;
    }
    HT_AI void store(int32_t* p, T v) { std::memcpy(p, &v, sizeof v); }
    // add, sub and mullo wrap modulo 2^32 like the vector instructions (the position hash of Zhou and Fang's
    // modulation relies on it; error sums never come near the limits)
    HT_AI T add(T a, T b) { return T(U(a) + U(b)); }
    HT_AI T sub(T a, T b) { return T(U(a) - U(b)); }
    HT_AI T andv(T a, T b) { return a & b; }
    HT_AI T mullo(T a, T b) { return T(U(a) * U(b)); }
    HT_AI T xorv(T a, T b) { return a ^ b; }
    HT_AI T mulw(T a, T b) { return T(U(a) * U(b)); }
    template <int N>
    HT_AI T shl(T a) {
        return T(U(a) << N);
    }
    template <int N>
    HT_AI T sar(T a) {
        return a >> N;
    }
    template <int N>
    HT_AI T srl(T a) {
        return T(U(a) >> N);
    }
    template <int D>
    HT_AI T shiftUp(T cur, T prev) {
#define HT_F(i) (i < D ? prev[(4 - D + i) & 3] : cur[(i - D) & 3])
        return HT_LANES(HT_F);
#undef HT_F
    }
    HT_AI T bcast1(const int32_t* p) { return set1(*p); }
    HT_AI T bcast2(const int32_t* p) { return T{p[0], p[1], p[0], p[1]}; }
    HT_AI T bcast3(const int32_t* p) { return T{0, p[0], p[1], p[2]}; }
    HT_AI T loadBytes(const uint8_t* p) { return T{p[0], p[1], p[2], p[3]}; }
    HT_AI void storeBytes(uint8_t* p, T v) {
        for (int i = 0; i < 4; ++i) p[i] = uint8_t(v[i]);
    }
    HT_AI T gather(const int32_t* base, T idx) {
#define HT_F(i) base[idx[i]]
        return HT_LANES(HT_F);
#undef HT_F
    }
    HT_AI T clamp(T x, int lo, int hi) {
#define HT_F(i) (x[i] < lo ? lo : (x[i] > hi ? hi : x[i]))
        return HT_LANES(HT_F);
#undef HT_F
    }
    /// exact integer floor division (no float)
    template <int D>
    HT_AI T floorDiv(T x) {
#define HT_F(i) (x[i] / D - ((x[i] % D != 0 && x[i] < 0) ? 1 : 0))
        return HT_LANES(HT_F);
#undef HT_F
    }
    HT_AI M gt(T a, T b) { return M(a > b); }
    HT_AI M validCol(T j, T w) { return M((j >= zero()) & (j < w)); }
    HT_AI T subIf(M m, T a, T b) { return sub(a, m & b); }
    HT_AI T maskz(M m, T a) { return m & a; }
};
#undef HT_LANES
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

#include "core/ed/simd_wavefront_impl.h"

}  // namespace

const SimdPathInfo& simdPathScalar() { return pathOf<8, VS>("scalar"); }

}  // namespace halftone::par
