// AVX2 band kernel: 8 rows per vector, 4 vectors (32 rows) per band. Built with -mavx2 and only
// called when the processor supports it.
#include <immintrin.h>

#include <cstring>

#include "core/ed/simd_wavefront.h"

namespace halftone::par {
namespace {

struct V256 {
    using T = __m256i;
    using M = __m256i;
    static constexpr int L = 8;
    static constexpr bool kLookup128 = false;  ///< no in-register 128-entry table lookup
    static T zero() { return _mm256_setzero_si256(); }
    static T set1(int x) { return _mm256_set1_epi32(x); }
    static T load(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    static void store(int32_t* p, T v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
    static T add(T a, T b) { return _mm256_add_epi32(a, b); }
    static T sub(T a, T b) { return _mm256_sub_epi32(a, b); }
    static T andv(T a, T b) { return _mm256_and_si256(a, b); }
    static T mullo(T a, T b) { return _mm256_mullo_epi32(a, b); }
    static T xorv(T a, T b) { return _mm256_xor_si256(a, b); }
    /// a b for |a| < 2^15 and 0 <= b < 2^15: one 16-bit multiply-add (b's high half is zero), shorter than mullo
    static T mulw(T a, T b) { return _mm256_madd_epi16(a, b); }
    template <int N>
    static T shl(T a) {
        return _mm256_slli_epi32(a, N);
    }
    template <int N>
    static T sar(T a) {
        return _mm256_srai_epi32(a, N);
    }
    template <int N>
    static T srl(T a) {
        return _mm256_srli_epi32(a, N);
    }
    template <int D>
    static T shiftUp(T cur, T prev) {
        const __m256i t = _mm256_permute2x128_si256(prev, cur, 0x21);  // [prev.hi, cur.lo]
        return _mm256_alignr_epi8(cur, t, 16 - 4 * D);
    }
    static T bcast1(const int32_t* p) { return _mm256_set1_epi32(*p); }
    static T bcast2(const int32_t* p) {
        long long x;
        std::memcpy(&x, p, 8);
        return _mm256_set1_epi64x(x);
    }
    /// p[0..2] in the top three lanes (what shiftUp<3> takes from the vector below)
    static T bcast3(const int32_t* p) { return _mm256_setr_epi32(0, 0, 0, 0, 0, p[0], p[1], p[2]); }
    static T loadBytes(const uint8_t* p) {
        return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
    static void storeBytes(uint8_t* p, T v) {
        const __m256i sh = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                                            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
        const __m256i b = _mm256_shuffle_epi8(v, sh);
        const __m128i r = _mm_unpacklo_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(p), r);
    }
    static T gather(const int32_t* base, T idx) { return _mm256_i32gather_epi32(base, idx, 4); }
    static T clamp(T x, int lo, int hi) { return _mm256_min_epi32(_mm256_max_epi32(x, set1(lo)), set1(hi)); }
    template <int D>
    static T floorDiv(T x) {
        const __m256 q = _mm256_div_ps(_mm256_cvtepi32_ps(x), _mm256_set1_ps(float(D)));
        return _mm256_cvtps_epi32(_mm256_floor_ps(q));
    }
    static M gt(T a, T b) { return _mm256_cmpgt_epi32(a, b); }
    static M validCol(T j, T w) { return _mm256_and_si256(_mm256_cmpgt_epi32(w, j), _mm256_cmpgt_epi32(j, set1(-1))); }
    static T subIf(M m, T a, T b) { return _mm256_sub_epi32(a, _mm256_and_si256(m, b)); }
    static T maskz(M m, T a) { return _mm256_and_si256(m, a); }
};

#include "core/ed/simd_transpose_sse2.h"
#include "core/ed/simd_wavefront_impl.h"

}  // namespace

const SimdPathInfo& simdPathAvx2() { return pathOf<4, V256>("avx2"); }

}  // namespace halftone::par
