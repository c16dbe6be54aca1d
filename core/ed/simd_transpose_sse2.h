// \brief 16 x 16 byte transpose with SSE2 (four perfect shuffles), for the SIMD band kernels.
// Included inside an anonymous namespace of each SIMD translation unit.

#ifndef HALFTONE_PREFETCH_BYTES
#define HALFTONE_PREFETCH_BYTES 1024  // how far ahead along each row the transposes prefetch
#endif

inline void transpose16(__m128i (&x)[16]) {
    for (int stage = 0; stage < 4; ++stage) {
        __m128i y[16];
        for (int i = 0; i < 8; ++i) {
            y[2 * i] = _mm_unpacklo_epi8(x[i], x[i + 8]);
            y[2 * i + 1] = _mm_unpackhi_epi8(x[i], x[i + 8]);
        }
        for (int i = 0; i < 16; ++i) x[i] = y[i];
    }
}

/// out[s * outStride + r] = rows[r][s] for r, s in 0..15
inline void transposeIn(const uint8_t* const* rows, uint8_t* out, int outStride) {
    __m128i x[16];
    for (int r = 0; r < 16; ++r) x[r] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r]));
    transpose16(x);
    for (int s = 0; s < 16; ++s) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + s * outStride), x[s]);
}

/// rows[r][s] = in[s * inStride + r] for r, s in 0..15
inline void transposeOut(const uint8_t* in, int inStride, uint8_t* const* rows) {
    __m128i x[16];
    for (int s = 0; s < 16; ++s) x[s] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + s * inStride));
    transpose16(x);
    for (int r = 0; r < 16; ++r) _mm_storeu_si128(reinterpret_cast<__m128i*>(rows[r]), x[r]);
}

/// out[s * outStride + r] = base[r][off + s]
inline void transposeInAt(const uint8_t* const* base, int64_t off, uint8_t* out, int outStride) {
    __m128i x[16];
    for (int r = 0; r < 16; ++r) x[r] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base[r] + off));
    if (HALFTONE_PREFETCH_BYTES > 0 &&
        (off & 63) == 0)  // 64 rows are too many streams for the hardware prefetcher: fetch ahead by hand
        for (int r = 0; r < 16; ++r)
            _mm_prefetch(reinterpret_cast<const char*>(base[r] + off + HALFTONE_PREFETCH_BYTES), _MM_HINT_T0);
    transpose16(x);
    for (int s = 0; s < 16; ++s) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + s * outStride), x[s]);
}

/// base[r][off + s] = in[s * inStride + r]
inline void transposeOutAt(const uint8_t* in, int inStride, uint8_t* const* base, int64_t off) {
    __m128i x[16];
    for (int s = 0; s < 16; ++s) x[s] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + s * inStride));
    transpose16(x);
    for (int r = 0; r < 16; ++r) _mm_storeu_si128(reinterpret_cast<__m128i*>(base[r] + off), x[r]);
    if (HALFTONE_PREFETCH_BYTES > 0 && (off & 63) == 0)
        for (int r = 0; r < 16; ++r)
            _mm_prefetch(reinterpret_cast<const char*>(base[r] + off + HALFTONE_PREFETCH_BYTES), _MM_HINT_T0);
}
