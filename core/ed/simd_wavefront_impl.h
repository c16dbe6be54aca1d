// \brief The band kernel of the wavefront method, written once over a vector type V and included by
// each core/ed/simd_*.cpp inside an anonymous namespace (so every ISA gets its own private copy).
//
// Band of G = V::L * NV rows; lane r (row i0 + r) processes column j = t - k*r at step t, the
// k-delay parallel scan of Kasagi, Nakano and Ito, section IV. A source (di, dj) of lane r was processed by lane
// r - di at step t - (dj + k*di), so the error sum is a sum of lane-shifted vectors from a short
// history ring kept in registers (register caching, Kasagi, Nakano and Ito, section III). Lanes 0..di-1 take
// their sources from the band above through small per-step boundary arrays.
//
// Requires before inclusion: V with L, T, M and the operations used below; transposeIn/transposeOut.

template <int... I>
struct IntSeq {};
template <int N, int... I>
struct MakeSeqImpl : MakeSeqImpl<N - 1, N - 1, I...> {};
template <int... I>
struct MakeSeqImpl<0, I...> {
    using type = IntSeq<I...>;
};
template <int N>
using MakeSeq = typename MakeSeqImpl<N>::type;

template <class V, int Wt>
[[gnu::always_inline]] inline typename V::T mulConst(typename V::T x) {
    if constexpr (Wt == 1)
        return x;
    else if constexpr (isPow2(Wt))
        return V::template shl<log2i(Wt)>(x);
    else if constexpr (isPow2(Wt - 1))
        return V::add(V::template shl<log2i(Wt - 1)>(x), x);
    else if constexpr (isPow2(Wt + 1))
        return V::sub(V::template shl<log2i(Wt + 1)>(x), x);
    else
        return V::mullo(x, V::set1(Wt));
}

// Table lookups by byte stay plain loads: a vectoriser would turn them into gathers, which are slow on many processors.
#if defined(__GNUC__) && !defined(__clang__)
#define HALFTONE_SCALAR_LOOPS [[gnu::optimize("no-tree-vectorize")]]
#else
#define HALFTONE_SCALAR_LOOPS
#endif

template <int KID, int NV, class V>
struct Band {
    static constexpr CKernel K = ckernel<KID>();
    static constexpr int k = cdelay(K);
    static constexpr int maxDi = cmaxDi(K);
    static constexpr int maxLag = cmaxLag(K);
    static constexpr int HS = maxLag < 4 ? 4 : (maxLag < 8 ? 8 : 16);
    static constexpr int L = V::L;
    static constexpr int G = L * NV;
    static constexpr int D = K.divisor;
    static constexpr int maxLeftC = cmaxLeft(K);
    static constexpr int maxRight = [] {
        int m = 0;
        for (int i = 0; i < K.count; ++i) m = K.taps[i].dj > m ? K.taps[i].dj : m;
        return m;
    }();
    static_assert(maxDi <= kMaxBandDi && maxDi <= L, "band kernel handles taps reaching at most three rows up");
    static_assert(maxLag <= HS, "the history ring holds every source step");
    /// A level-dependent kernel (docs/spec.md section 1): the history keeps W_t(a) E per tap t, made by the sender
    /// from its own input byte, so the receiver only adds (the taps' w is 1).
    static constexpr bool var = KID >= kKernelCount;
    static constexpr bool mod = var && varModulated(var ? KID - kKernelCount : 0);
    static constexpr bool noise = mod && varNoise(KID - kKernelCount);
    static constexpr int NT = var ? K.count : 1;  ///< history rings: errors, or one per tap
    /// The per-level tables are symmetric (level a uses row min(a, 255 - a)): looked up in registers where the
    /// instruction set can (AVX-512), else staged per chunk with plain loads.
    static constexpr bool vlut = var && V::kLookup128;
    /// The modulation words in registers too where they are symmetric for every level count (Zhou and Fang's, as the
    /// weights); TDED's threshold offsets depend on the level count (kernel->modulationWord(a, L)) and are mirrored
    /// only for L = 2, so they are staged per chunk like the weights of other instruction sets.
    static constexpr bool zlut = vlut && mod && varSymmetricWords(KID - kKernelCount);
    using T = typename V::T;
    using M = typename V::M;

    // Weighted sum over the taps with row offset DI, from the history ring at step phase HU.
    template <int DI, int HU, int I = 0>
    [[gnu::always_inline]] static inline T tapSum(const T (&hist)[NT][HS][NV], int v, T acc, bool& any) {
        if constexpr (I == K.count) {
            return acc;
        } else {
            constexpr CTap tp = K.taps[I];
            if constexpr (tp.di == DI) {
                constexpr int lag = tp.dj + k * tp.di;
                constexpr int slot = ((HU - lag) % HS + HS) % HS;
                const T term = mulConst<V, tp.w>(hist[var ? I : 0][slot][v]);
                acc = any ? V::add(acc, term) : term;
                any = true;
            }
            return tapSum<DI, HU, I + 1>(hist, v, acc, any);
        }
    }

    template <int DI>
    static constexpr bool hasRow() {
        for (int i = 0; i < K.count; ++i)
            if (K.taps[i].di == DI) return true;
        return false;
    }

    template <int HU>
    [[gnu::always_inline]] static inline void step(T (&hist)[NT][HS][NV], const T (&kr)[NV], const T (&hb)[NV],
                                                   const T wv, int t, int u, const uint8_t* inRow, const int32_t* wRow,
                                                   const int32_t* zRow, uint8_t* outRow, int32_t* lastE,
                                                   const int32_t* b1, const int32_t* b2, const int32_t* b3,
                                                   const BandJob& job) {
        T s1[NV], s2[NV], s3[NV], s0[NV];
        for (int v = 0; v < NV; ++v) {
            bool any = false;
            s0[v] = tapSum<0, HU>(hist, v, V::zero(), any);
            if (!any) s0[v] = V::zero();
            if constexpr (hasRow<1>()) {
                any = false;
                s1[v] = tapSum<1, HU>(hist, v, V::zero(), any);
            }
            if constexpr (hasRow<2>()) {
                any = false;
                s2[v] = tapSum<2, HU>(hist, v, V::zero(), any);
            }
            if constexpr (hasRow<3>()) {
                any = false;
                s3[v] = tapSum<3, HU>(hist, v, V::zero(), any);
            }
        }
        const T tv = V::set1(t);
        for (int v = 0; v < NV; ++v) {
            T rest = V::set1(D / 2);
            if constexpr (hasRow<1>())
                rest = V::add(rest, V::template shiftUp<1>(s1[v], v ? s1[v - 1] : V::bcast1(b1)));
            if constexpr (hasRow<2>())
                rest = V::add(rest, V::template shiftUp<2>(s2[v], v ? s2[v - 1] : V::bcast2(b2)));
            if constexpr (hasRow<3>())
                rest = V::add(rest, V::template shiftUp<3>(s3[v], v ? s3[v - 1] : V::bcast3(b3)));
            const T bytes = V::loadBytes(inRow + v * L);
            const T a = job.gammaInput ? V::template shl<4>(bytes) : V::gather(job.inputTable, bytes);
            const T acc = V::add(s0[v], rest);
            T q;
            if constexpr (isPow2(D))
                q = V::template sar<log2i(D)>(acc);
            else
                q = V::template floorDiv<D>(acc);
            const T s = V::add(a, q);
            T dec = s;  // the value the level is chosen from
            if constexpr (mod) {
                // the perturbation P = ((u Z(a)) >> 14) + T_L(a) from the modulation word Z | T_L << 19, u the top 7
                // bits of the hash of (i, j, seed) (Zhou and Fang's noise; absent for Li and Allebach's thresholds)
                namespace vt = varkerneltable;
                T z;
                if constexpr (zlut) {
                    z = V::lookup128(job.modScale, V::minv(bytes, V::sub(V::set1(255), bytes)));
                } else
                    z = V::load(zRow + v * L);
                T p = V::template sar<vt::kScaleBits>(z);
                if constexpr (noise) {
                    T h = V::add(hb[v], V::set1(int32_t(uint32_t(t) * vt::kHashCol)));
                    h = V::mullo(V::xorv(h, V::template srl<16>(h)), V::set1(int32_t(vt::kMix1)));
                    h = V::mullo(V::xorv(h, V::template srl<15>(h)), V::set1(int32_t(vt::kMix2)));
                    h = V::xorv(h, V::template srl<16>(h));
                    const T zs = V::andv(z, V::set1((1 << vt::kScaleBits) - 1));
                    p = V::add(p, V::template srl<14>(V::mullo(V::template srl<25>(h), zs)));
                }
                dec = V::sub(s, p);
            }
            T e, o;
            if (job.binary) {
                const M m = V::gt(dec, V::set1(job.threshold0));
                e = V::subIf(m, s, V::set1(job.binaryTarget1));
                o = V::maskz(m, V::set1(job.binaryValue1));
            } else {
                const T ent = V::gather(job.levelLut, V::clamp(dec, 0, 4080));
                e = V::sub(s, V::andv(ent, V::set1(0xFFFF)));
                o = V::template srl<16>(ent);
            }
            const M valid = V::validCol(V::sub(tv, kr[v]), wv);
            e = V::maskz(valid, e);
            if constexpr (var) {
                // the sender's weights W_right | W_downLeft << 16, W_down = D - both (docs/spec.md section 1)
                T wp;
                if constexpr (vlut)
                    wp = V::lookup128(job.varWeights, V::minv(bytes, V::sub(V::set1(255), bytes)));
                else
                    wp = V::load(wRow + v * L);
                const T pr = V::mulw(e, V::andv(wp, V::set1(0xFFFF)));
                const T pdl = V::mulw(e, V::template srl<16>(wp));
                hist[0][HU][v] = pr;
                hist[1][HU][v] = pdl;
                hist[2][HU][v] = V::sub(V::sub(V::template shl<log2i(D)>(e), pr), pdl);
            } else {
                (void)hb;
                hist[0][HU][v] = e;
            }
            V::storeBytes(outRow + v * L, o);
            if (v == NV - 1) V::store(lastE, e);
        }
        (void)u;
    }

    /// Per-lane table values of the 16 staged steps (level-dependent kernels): the packed weights and Z(a), looked up
    /// from the staged bytes once per chunk with plain loads (cheaper than a gather per step).
    struct Staged {
        alignas(64) int32_t w[var && !vlut ? 16 : 1][var && !vlut ? G : 1];
        alignas(64) int32_t z[mod && !zlut ? 16 : 1][mod && !zlut ? G : 1];
    };

    template <int U0, int... Us>
    [[gnu::always_inline]] static inline void steps16(T (&hist)[NT][HS][NV], const T (&kr)[NV], const T (&hb)[NV],
                                                      const T wv, int sb, const uint8_t (*in)[G], const Staged& st,
                                                      uint8_t (*out)[G], int32_t (*lastE)[L], const int32_t* b1,
                                                      const int32_t* b2, const int32_t* b3, const BandJob& job) {
        // U0 + Us... = 0..15; history phase = step index mod HS (sb is a multiple of 16, hence of HS)
        step<U0 % HS>(hist, kr, hb, wv, sb + U0, U0, in[U0], st.w[var && !vlut ? U0 : 0], st.z[mod && !zlut ? U0 : 0],
                      out[U0], lastE[U0], b1 + U0, b2 + 2 * U0, b3 + 3 * U0, job);
        if constexpr (sizeof...(Us) > 0) steps16<Us...>(hist, kr, hb, wv, sb, in, st, out, lastE, b1, b2, b3, job);
    }

    HALFTONE_SCALAR_LOOPS static void stage(const uint8_t (*in)[G], Staged& st, const BandJob& job) {
        if constexpr (vlut) {
            if constexpr (mod && !zlut)
                for (int s = 0; s < 16; ++s)
                    for (int r = 0; r < G; ++r) st.z[s][r] = job.modScale[in[s][r]];
        } else if constexpr (mod) {
            for (int s = 0; s < 16; ++s)
                for (int r = 0; r < G; ++r) {
                    const uint8_t a = in[s][r];
                    st.w[s][r] = job.varWeights[a];
                    st.z[s][r] = job.modScale[a];
                }
        } else if constexpr (var) {
            for (int s = 0; s < 16; ++s)
                for (int r = 0; r < G; ++r) st.w[s][r] = job.varWeights[in[s][r]];
        }
        (void)in, (void)st, (void)job;
    }

    static bool run(const BandJob& job) {
        const int W = job.width;
        const int rows = job.rows;
        const int64_t total = ((int64_t(W) + int64_t(k) * (G - 1)) + 15) / 16 * 16;
        const int chunk = 256;
        T hist[NT][HS][NV];
        for (int n = 0; n < NT; ++n)
            for (int h = 0; h < HS; ++h)
                for (int v = 0; v < NV; ++v) hist[n][h][v] = V::zero();
        T kr[NV];
        T hb[NV];  // the noise hash of lane r less its column term: (i0 + r) C_row - k r C_col + seed C_seed
        {
            alignas(64) int32_t tmp[G];
            for (int r = 0; r < G; ++r) tmp[r] = r < rows ? k * r : 0x40000000;
            for (int v = 0; v < NV; ++v) kr[v] = V::load(tmp + v * L);
            namespace vt = varkerneltable;
            for (int r = 0; r < G; ++r)
                tmp[r] = int32_t(uint32_t(job.firstRow + r) * vt::kHashRow - uint32_t(k * r) * vt::kHashCol +
                                 job.seed * vt::kHashSeed);
            for (int v = 0; v < NV; ++v) hb[v] = V::load(tmp + v * L);
        }
        // weight of tap I for the source at column c of the row above the band (W_t(a) of its byte when
        // level-dependent)
        const uint8_t* inAbove = job.src - job.srcStride;  // read only while prevErr[0] is set (the band above exists)
        auto tapW = [&](int I, int64_t c) -> int32_t {
            if constexpr (var) {
                const int32_t wp = job.varWeights[inAbove[c]];
                return I == 0 ? (wp & 0xFFFF) : (I == 1 ? (wp >> 16) : D - (wp & 0xFFFF) - (wp >> 16));
            } else {
                (void)c;
                return K.taps[I].w;
            }
        };
        const T wv = V::set1(W);
        alignas(64) uint8_t in[16][G];
        Staged staged;
        alignas(64) uint8_t out[16][G];
        alignas(64) int32_t lastE[16][L];
        alignas(64) int32_t b1[chunk + 16];
        alignas(64) int32_t b2[2 * (chunk + 16)];
        alignas(64) int32_t b3[3 * (chunk + 16)];
        alignas(16) uint8_t zero16[16] = {};
        alignas(16) uint8_t tmpIn[G][16];
        alignas(16) uint8_t tmpOut[G][16];
        const uint8_t* inPtr[G];
        uint8_t* outPtr[G];
        // row r's pixel at step t lives at base[r] + t (column t - k*r); only used in the interior
        const uint8_t* inBase[G];
        uint8_t* outBase[G];
        for (int r = 0; r < G; ++r) {
            inBase[r] = r < rows ? job.src + r * job.srcStride - int64_t(k) * r : nullptr;
            outBase[r] = r < rows ? job.dst + r * job.dstStride - int64_t(k) * r : nullptr;
        }
        // the boundary sums of step t0 + i: one from one row up, two from two rows up, three from three rows up
        auto storeSums = [&](int64_t i, int32_t a1, int32_t a20, int32_t a21, int32_t a30, int32_t a31, int32_t a32) {
            b1[i] = a1;
            b2[2 * i] = a20;
            b2[2 * i + 1] = a21;
            b3[3 * i] = a30;
            b3[3 * i + 1] = a31;
            b3[3 * i + 2] = a32;
        };
        for (int64_t t0 = 0; t0 < total; t0 += chunk) {
            const int64_t t1 = t0 + chunk < total ? t0 + chunk : total;
            if (!job.wait(job.ctx, t1)) return false;
            // boundary sums from the band above, per step (zero outside the image); the interior
            // range needs no bounds checks: every column read, t-dj and t-k-dj, lies in [0, W)
            int64_t lo = t0, hi = t0;
            if (job.prevErr[0] && (maxDi < 2 || job.prevErr[1]) && (maxDi < 3 || job.prevErr[2])) {
                constexpr int kLo = (maxDi > 2 ? (maxDi - 1) * k : k) + maxRight;
                lo = t0 > kLo ? t0 : kLo;
                hi = t1 < int64_t(W) - maxLeftC ? t1 : int64_t(W) - maxLeftC;
                if (hi < lo) hi = lo;
                const int32_t* e1 = job.prevErr[0];
                const int32_t* e2 = job.prevErr[1];
                const int32_t* e3 = job.prevErr[2];
                for (int64_t t = lo; t < hi; ++t) {
                    int32_t a1 = 0, a20 = 0, a21 = 0, a30 = 0, a31 = 0, a32 = 0;
                    [&]<int... I>(IntSeq<I...>) {
                        ((K.taps[I].di == 1 ? (a1 += tapW(I, t - K.taps[I].dj) * e1[t - K.taps[I].dj]) : 0), ...);
                        ((K.taps[I].di == 2 ? (a20 += K.taps[I].w * e2[t - K.taps[I].dj],
                                               a21 += K.taps[I].w * e1[t - k - K.taps[I].dj])
                                            : 0),
                         ...);
                        ((K.taps[I].di == 3 ? (a30 += K.taps[I].w * e3[t - K.taps[I].dj],
                                               a31 += K.taps[I].w * e2[t - k - K.taps[I].dj],
                                               a32 += K.taps[I].w * e1[t - 2 * k - K.taps[I].dj])
                                            : 0),
                         ...);
                    }
                    (MakeSeq<K.count>{});
                    storeSums(t - t0, a1, a20, a21, a30, a31, a32);
                }
            }
            for (int64_t t = t0; t < t1; ++t) {
                if (t == lo && hi > lo) {
                    t = hi - 1;
                    continue;
                }
                int32_t a1 = 0, a20 = 0, a21 = 0, a30 = 0, a31 = 0, a32 = 0;
                for (int i = 0; i < K.count; ++i) {
                    const CTap tp = K.taps[i];
                    if (tp.di == 1) {
                        const int64_t c = t - tp.dj;
                        if (job.prevErr[0] && c >= 0 && c < W) a1 += tapW(i, c) * job.prevErr[0][c];
                    } else if (tp.di == 2) {
                        const int64_t c0 = t - tp.dj;
                        if (job.prevErr[1] && c0 >= 0 && c0 < W) a20 += tp.w * job.prevErr[1][c0];
                        const int64_t c1 = t - k - tp.dj;
                        if (job.prevErr[0] && c1 >= 0 && c1 < W) a21 += tp.w * job.prevErr[0][c1];
                    } else if (tp.di == 3) {
                        const int64_t c0 = t - tp.dj;
                        if (job.prevErr[2] && c0 >= 0 && c0 < W) a30 += tp.w * job.prevErr[2][c0];
                        const int64_t c1 = t - k - tp.dj;
                        if (job.prevErr[1] && c1 >= 0 && c1 < W) a31 += tp.w * job.prevErr[1][c1];
                        const int64_t c2 = t - 2 * k - tp.dj;
                        if (job.prevErr[0] && c2 >= 0 && c2 < W) a32 += tp.w * job.prevErr[0][c2];
                    }
                }
                storeSums(t - t0, a1, a20, a21, a30, a31, a32);
            }
            for (int64_t sb = t0; sb < t1; sb += 16) {
                if (rows == G && sb - int64_t(k) * (G - 1) >= 0 && sb + 16 <= W) {
                    // interior: every row's 16 columns lie inside the image
                    for (int g = 0; g < G; g += 16) transposeInAt(inBase + g, sb, &in[0][g], G);
                    stage(in, staged, job);
                    steps16<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>(
                        hist, kr, hb, wv, int(sb), in, staged, out, lastE, b1 + (sb - t0), b2 + 2 * (sb - t0),
                        b3 + 3 * (sb - t0), job);
                    for (int g = 0; g < G; g += 16) transposeOutAt(&out[0][g], G, outBase + g, sb);
                    for (int d = 0; d < maxDi; ++d) {
                        int32_t* dstE = job.nextErr[d];
                        if (!dstE) continue;
                        int32_t* e = dstE + (sb - int64_t(k) * (G - 1 - d));
                        for (int x = 0; x < 16; ++x) e[x] = lastE[x][L - 1 - d];
                    }
                    continue;
                }
                // edges: gather 16 columns of each row (skewed by k per row), transpose to one byte per lane per step
                for (int r = 0; r < G; ++r) {
                    const int64_t c0 = sb - int64_t(k) * r;
                    if (r >= rows || c0 + 16 <= 0 || c0 >= W) {
                        inPtr[r] = zero16;
                    } else if (c0 >= 0 && c0 + 16 <= W) {
                        inPtr[r] = job.src + r * job.srcStride + c0;
                    } else {
                        const uint8_t* row = job.src + r * job.srcStride;
                        for (int x = 0; x < 16; ++x) {
                            const int64_t c = c0 + x;
                            tmpIn[r][x] = (c >= 0 && c < W) ? row[c] : 0;
                        }
                        inPtr[r] = tmpIn[r];
                    }
                }
                for (int g = 0; g < G; g += 16) transposeIn(inPtr + g, &in[0][g], G);
                stage(in, staged, job);
                steps16<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>(
                    hist, kr, hb, wv, int(sb), in, staged, out, lastE, b1 + (sb - t0), b2 + 2 * (sb - t0),
                    b3 + 3 * (sb - t0), job);
                bool partial[G];
                for (int r = 0; r < G; ++r) {
                    const int64_t c0 = sb - int64_t(k) * r;
                    partial[r] = false;
                    if (r >= rows || c0 + 16 <= 0 || c0 >= W) {
                        outPtr[r] = tmpOut[r];
                    } else if (c0 >= 0 && c0 + 16 <= W) {
                        outPtr[r] = job.dst + r * job.dstStride + c0;
                    } else {
                        outPtr[r] = tmpOut[r];
                        partial[r] = true;
                    }
                }
                for (int g = 0; g < G; g += 16) transposeOut(&out[0][g], G, outPtr + g);
                for (int r = 0; r < G; ++r) {
                    if (!partial[r]) continue;
                    const int64_t c0 = sb - int64_t(k) * r;
                    uint8_t* row = job.dst + r * job.dstStride;
                    for (int x = 0; x < 16; ++x) {
                        const int64_t c = c0 + x;
                        if (c >= 0 && c < W) row[c] = tmpOut[r][x];
                    }
                }
                // error rows the band below reads
                for (int d = 0; d < maxDi; ++d) {
                    int32_t* dstE = job.nextErr[d];
                    if (!dstE) continue;
                    const int r = G - 1 - d;
                    for (int x = 0; x < 16; ++x) {
                        const int64_t c = sb + x - int64_t(k) * r;
                        if (c >= 0 && c < W) dstE[c] = lastE[x][L - 1 - d];
                    }
                }
            }
            job.publish(job.ctx, t1);
        }
        return true;
    }
};

template <int NV, class V, int... I>
inline void fillKernels(SimdPathInfo& info, IntSeq<I...>) {
    ((info.kernels[I] = &Band<I, NV, V>::run), ...);
}

template <int NV, class V, int... I>
inline void fillVarKernels(SimdPathInfo& info, IntSeq<I...>) {
    ((info.varKernels[I] = &Band<kKernelCount + I, NV, V>::run), ...);
}

/// \brief The path of vector type V, NV vectors a band, made on first use.
template <int NV, class V>
const SimdPathInfo& pathOf(const char* name) {
    static const SimdPathInfo info = [name] {
        SimdPathInfo i{};
        i.name = name;
        i.lanes = V::L;
        i.bandRows = V::L * NV;
        i.chunk = 256;
        fillKernels<NV, V>(i, MakeSeq<kKernelCount>{});
        fillVarKernels<NV, V>(i, MakeSeq<kVarKernelCount>{});
        return i;
    }();
    return info;
}
