// Portable band kernel without intrinsics: 4 "lanes" in plain arrays, 8 vectors (32 rows) per band,
// exact integer floor division. Runs on any x86-64 (and elsewhere); also the reference for the SIMD paths.
#include <cstring>

#include "core/simd_wavefront.h"

namespace halftone::par {
namespace {

struct VS {
    struct T {
        int32_t v[4];
    };
    using M = T;
    static constexpr int L = 4;
    template <class F> static T map(F f) {
        T r;
        for (int i = 0; i < 4; ++i) r.v[i] = f(i);
        return r;
    }
    static T zero() { return T{{0, 0, 0, 0}}; }
    static T set1(int x) { return T{{x, x, x, x}}; }
    static T load(const int32_t* p) { return map([&](int i) { return p[i]; }); }
    static void store(int32_t* p, T v) { std::memcpy(p, v.v, sizeof v.v); }
    static T add(T a, T b) { return map([&](int i) { return a.v[i] + b.v[i]; }); }
    static T sub(T a, T b) { return map([&](int i) { return a.v[i] - b.v[i]; }); }
    static T andv(T a, T b) { return map([&](int i) { return a.v[i] & b.v[i]; }); }
    static T mullo(T a, T b) { return map([&](int i) { return a.v[i] * b.v[i]; }); }
    template <int N> static T shl(T a) { return map([&](int i) { return int32_t(uint32_t(a.v[i]) << N); }); }
    template <int N> static T sar(T a) { return map([&](int i) { return a.v[i] >> N; }); }
    template <int N> static T srl(T a) { return map([&](int i) { return int32_t(uint32_t(a.v[i]) >> N); }); }
    template <int D> static T shiftUp(T cur, T prev) {
        return map([&](int i) { return i < D ? prev.v[4 - D + i] : cur.v[i - D]; });
    }
    static T bcast1(const int32_t* p) { return set1(*p); }
    static T bcast2(const int32_t* p) { return T{{p[0], p[1], p[0], p[1]}}; }
    static T loadBytes(const uint8_t* p) { return map([&](int i) { return int32_t(p[i]); }); }
    static void storeBytes(uint8_t* p, T v) {
        for (int i = 0; i < 4; ++i) p[i] = uint8_t(v.v[i]);
    }
    static T gather(const int32_t* base, T idx) { return map([&](int i) { return base[idx.v[i]]; }); }
    static T clamp(T x, int lo, int hi) {
        return map([&](int i) { return x.v[i] < lo ? lo : (x.v[i] > hi ? hi : x.v[i]); });
    }
    template <int D> static T floorDiv(T x) {
        return map([&](int i) {
            const int32_t q = x.v[i] / D;
            return (x.v[i] % D != 0 && x.v[i] < 0) ? q - 1 : q;
        });
    }
    static M gt(T a, T b) { return map([&](int i) { return a.v[i] > b.v[i] ? -1 : 0; }); }
    static M validCol(T j, T w) { return map([&](int i) { return (j.v[i] >= 0 && j.v[i] < w.v[i]) ? -1 : 0; }); }
    static T subIf(M m, T a, T b) { return map([&](int i) { return a.v[i] - (m.v[i] & b.v[i]); }); }
    static T maskz(M m, T a) { return map([&](int i) { return m.v[i] & a.v[i]; }); }
};

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
