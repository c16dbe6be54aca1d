// SSE4.1 band kernel: 4 rows per vector, 8 vectors (32 rows) per band. Built with -msse4.1 and only
// called when the processor supports it.
#include <immintrin.h>

#include <cstring>

#include "core/ed/simd_wavefront.h"

namespace halftone::par {
namespace {

struct V128 {
    using T = __m128i;
    using M = __m128i;
    static constexpr int L = 4;
    static constexpr bool kLookup128 = false;  ///< no in-register 128-entry table lookup
    static T zero() { return _mm_setzero_si128(); }
    static T set1(int x) { return _mm_set1_epi32(x); }
    static T load(const int32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
    static void store(int32_t* p, T v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
    static T add(T a, T b) { return _mm_add_epi32(a, b); }
    static T sub(T a, T b) { return _mm_sub_epi32(a, b); }
    static T andv(T a, T b) { return _mm_and_si128(a, b); }
    static T mullo(T a, T b) { return _mm_mullo_epi32(a, b); }
    static T xorv(T a, T b) { return _mm_xor_si128(a, b); }
    /// a b for |a| < 2^15 and 0 <= b < 2^15: one 16-bit multiply-add (b's high half is zero), shorter than mullo
    static T mulw(T a, T b) { return _mm_madd_epi16(a, b); }
    template <int N>
    static T shl(T a) {
        return _mm_slli_epi32(a, N);
    }
    template <int N>
    static T sar(T a) {
        return _mm_srai_epi32(a, N);
    }
    template <int N>
    static T srl(T a) {
        return _mm_srli_epi32(a, N);
    }
    template <int D>
    static T shiftUp(T cur, T prev) {
        return _mm_alignr_epi8(cur, prev, 16 - 4 * D);
    }
    static T bcast1(const int32_t* p) { return _mm_set1_epi32(*p); }
    static T bcast2(const int32_t* p) {
        long long x;
        std::memcpy(&x, p, 8);
        return _mm_set1_epi64x(x);
    }
    /// p[0..2] in the top three lanes (what shiftUp<3> takes from the vector below)
    static T bcast3(const int32_t* p) { return _mm_setr_epi32(0, p[0], p[1], p[2]); }
    static T loadBytes(const uint8_t* p) {
        int32_t x;
        std::memcpy(&x, p, 4);
        return _mm_cvtepu8_epi32(_mm_cvtsi32_si128(x));
    }
    static void storeBytes(uint8_t* p, T v) {
        const __m128i b =
            _mm_shuffle_epi8(v, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        const int32_t x = _mm_cvtsi128_si32(b);
        std::memcpy(p, &x, 4);
    }
    static T gather(const int32_t* base, T idx) {
        alignas(16) int32_t i[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(i), idx);
        return _mm_setr_epi32(base[i[0]], base[i[1]], base[i[2]], base[i[3]]);
    }
    static T clamp(T x, int lo, int hi) { return _mm_min_epi32(_mm_max_epi32(x, set1(lo)), set1(hi)); }
    template <int D>
    static T floorDiv(T x) {
        const __m128 q = _mm_div_ps(_mm_cvtepi32_ps(x), _mm_set1_ps(float(D)));
        return _mm_cvtps_epi32(_mm_floor_ps(q));
    }
    static M gt(T a, T b) { return _mm_cmpgt_epi32(a, b); }
    static M validCol(T j, T w) { return _mm_and_si128(_mm_cmpgt_epi32(w, j), _mm_cmpgt_epi32(j, set1(-1))); }
    static T subIf(M m, T a, T b) { return _mm_sub_epi32(a, _mm_and_si128(m, b)); }
    static T maskz(M m, T a) { return _mm_and_si128(m, a); }
};

#include "core/ed/simd_transpose_sse2.h"
#include "core/ed/simd_wavefront_impl.h"

}  // namespace

const SimdPathInfo& simdPathSse() { return pathOf<8, V128>("sse"); }

}  // namespace halftone::par
