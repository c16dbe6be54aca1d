// AVX-512 band kernel: 16 rows per vector, 4 vectors (64 rows) per band. Built with -mavx512f -mavx512bw and
// only called when the processor supports both (core/ed/parallel.cpp checks at run time).
#include <immintrin.h>

#include <cstring>

#include "core/ed/simd_wavefront.h"

namespace halftone::par {
namespace {

struct V512 {
    using T = __m512i;
    using M = __mmask16;
    static constexpr int L = 16;
    static constexpr bool kLookup128 = true;
    /// t[idx] for a table of 128 entries and 0 <= idx < 128: four two-source permutes and three blends, no gather
    static T lookup128(const int32_t* t, T idx) {
        const T a = _mm512_permutex2var_epi32(load(t), idx, load(t + 16));
        const T b = _mm512_permutex2var_epi32(load(t + 32), idx, load(t + 48));
        const T c = _mm512_permutex2var_epi32(load(t + 64), idx, load(t + 80));
        const T d = _mm512_permutex2var_epi32(load(t + 96), idx, load(t + 112));
        const __mmask16 hi32 = _mm512_test_epi32_mask(idx, set1(32));
        const __mmask16 hi64 = _mm512_test_epi32_mask(idx, set1(64));
        return _mm512_mask_blend_epi32(hi64, _mm512_mask_blend_epi32(hi32, a, b), _mm512_mask_blend_epi32(hi32, c, d));
    }
    static T minv(T a, T b) { return _mm512_min_epi32(a, b); }
    static T zero() { return _mm512_setzero_si512(); }
    static T set1(int x) { return _mm512_set1_epi32(x); }
    static T load(const int32_t* p) { return _mm512_loadu_si512(p); }
    static void store(int32_t* p, T v) { _mm512_storeu_si512(p, v); }
    static T add(T a, T b) { return _mm512_add_epi32(a, b); }
    static T sub(T a, T b) { return _mm512_sub_epi32(a, b); }
    static T andv(T a, T b) { return _mm512_and_si512(a, b); }
    static T mullo(T a, T b) { return _mm512_mullo_epi32(a, b); }
    static T xorv(T a, T b) { return _mm512_xor_si512(a, b); }
    /// a b for |a| < 2^15 and 0 <= b < 2^15: one 16-bit multiply-add (b's high half is zero), shorter than mullo
    static T mulw(T a, T b) { return _mm512_madd_epi16(a, b); }
    template <int N>
    static T shl(T a) {
        return _mm512_slli_epi32(a, N);
    }
    template <int N>
    static T sar(T a) {
        return _mm512_srai_epi32(a, N);
    }
    template <int N>
    static T srl(T a) {
        return _mm512_srli_epi32(a, N);
    }
    /// lane r of the result = lane r - D of the pair (prev, cur)
    template <int D>
    static T shiftUp(T cur, T prev) {
        return _mm512_alignr_epi32(cur, prev, 16 - D);
    }
    static T bcast1(const int32_t* p) { return _mm512_set1_epi32(*p); }
    static T bcast2(const int32_t* p) {
        long long x;
        std::memcpy(&x, p, 8);
        return _mm512_set1_epi64(x);
    }
    /// p[0..2] in the top three lanes (what shiftUp<3> takes from the vector below)
    static T bcast3(const int32_t* p) {
        return _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, p[0], p[1], p[2]);
    }
    static T loadBytes(const uint8_t* p) {
        return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static void storeBytes(uint8_t* p, T v) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(v));
    }
    static T gather(const int32_t* base, T idx) { return _mm512_i32gather_epi32(idx, base, 4); }
    static T clamp(T x, int lo, int hi) { return _mm512_min_epi32(_mm512_max_epi32(x, set1(lo)), set1(hi)); }
    /// floor(x / D), exact for |x| < D * 2^19 (see core/ed/parallel.cpp; |x| stays below 48 * 2041)
    template <int D>
    static T floorDiv(T x) {
        const __m512 q = _mm512_div_ps(_mm512_cvtepi32_ps(x), _mm512_set1_ps(float(D)));
        return _mm512_cvt_roundps_epi32(q, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    }
    static M gt(T a, T b) { return _mm512_cmpgt_epi32_mask(a, b); }
    static M validCol(T j, T w) { return _mm512_cmplt_epu32_mask(j, w); }
    static T subIf(M m, T a, T b) { return _mm512_mask_sub_epi32(a, m, a, b); }
    static T maskz(M m, T a) { return _mm512_maskz_mov_epi32(m, a); }
};

#include "core/ed/simd_transpose_sse2.h"
#include "core/ed/simd_wavefront_impl.h"

}  // namespace

const SimdPathInfo& simdPathAvx512() { return pathOf<4, V512>("avx512"); }

}  // namespace halftone::par
