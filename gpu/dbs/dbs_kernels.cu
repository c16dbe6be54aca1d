// DBS on the GPU: Koge, Ito and Nakano (2014), section 4 (four block groups, one CUDA block per image block, the
// block's error matrix in shared memory) with the c_pp / c_pe updates of Zhang and Allebach (eq. 12-16). The arithmetic
// and the visiting order are those of core's DbsSchedule::Blocks, so the result is bit-identical to the CPU for the
// same block side.
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

#include "gpu/dbs/dbs_launch.h"

namespace halftone::gpu::dbsdev {

namespace {

constexpr int kTile = 8;  // update-map tile side, as core's UpdateMap::TS

// The same hash as core's dbsRandomBit (splitmix64 of seed and position).
__device__ __forceinline__ uint32_t randomBit(uint64_t seed, int x, int y, uint8_t a) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (uint64_t(uint32_t(y)) << 32 | uint32_t(x)) + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return uint32_t((z >> 32) % 255u) < a ? 1u : 0u;
}

__global__ void startKernel(DbsDeviceState s, uint64_t seed, int clipFree, double margin, const uint8_t* screen, int sw,
                            int sh) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= s.width) return;
    const uint8_t a = s.src[size_t(y) * s.width + x];
    const double f = a / 255.0;
    uint8_t b = uint8_t(randomBit(seed, x, y, a));
    uint8_t fr = 1;
    if (clipFree && (f < margin || f > 1.0 - margin)) {
        const int t = screen[size_t(y % sh) * sw + (x % sw)];
        const bool shadow = f < margin;
        const uint8_t v = shadow ? (a > t ? 1 : 0) : (255 - int(a) > t ? 0 : 1);
        if ((shadow && v == 1) || (!shadow && v == 0)) {
            b = v;
            fr = 0;
        }
    }
    const size_t ig = size_t(y + 1) * (s.width + 2) + size_t(x + 1);
    s.g[ig] = b;
    s.freeMask[ig] = fr;
}

__global__ void errorKernel(DbsDeviceState s, double* e) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= s.width) return;
    e[size_t(y) * s.width + x] =
        double(s.g[size_t(y + 1) * (s.width + 2) + size_t(x + 1)]) - s.src[size_t(y) * s.width + x] / 255.0;
}

// Row pass of the separable c_pp: t(y, x) = sum_j a[j] e(y, x - j), j ascending (as core's computeCpe).
__global__ void rowPass(DbsDeviceState s, const double* a, const double* e, double* t) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    const int W = s.width, R = s.cppRadius;
    if (x >= W) return;
    const int j0 = max(-R, x - (W - 1)), j1 = min(R, x);
    double acc = 0;
    for (int j = j0; j <= j1; ++j) acc = __dadd_rn(acc, __dmul_rn(a[j + R], e[size_t(y) * W + (x - j)]));
    t[size_t(y) * W + x] = acc;
}

// Column pass, i ascending, stored as float into the padded c_pe.
__global__ void colPass(DbsDeviceState s, const double* a, const double* t) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    const int W = s.width, H = s.height, R = s.cppRadius;
    if (x >= W) return;
    const int i0 = max(-R, y - (H - 1)), i1 = min(R, y);
    double acc = 0;
    for (int i = i0; i <= i1; ++i) acc = __dadd_rn(acc, __dmul_rn(a[i + R], t[size_t(y - i) * W + x]));
    s.cpe[size_t(y + s.pad) * (W + 2 * s.pad) + size_t(x + s.pad)] = float(acc);
}

// Non-separable c_pp (Nasanen): i then j ascending over valid terms, as core's computeCpe.
__global__ void directPass(DbsDeviceState s, const double* e) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    const int W = s.width, H = s.height, R = s.cppRadius, m = 2 * R + 1;
    if (x >= W) return;
    double acc = 0;
    for (int i = -R; i <= R; ++i) {
        const int ys = y - i;
        if (ys < 0 || ys >= H) continue;
        for (int j = -R; j <= R; ++j) {
            const int xs = x - j;
            if (xs < 0 || xs >= W) continue;
            acc = __dadd_rn(acc, __dmul_rn(double(s.cpp[(i + R) * m + (j + R)]), e[size_t(ys) * W + xs]));
        }
    }
    s.cpe[size_t(y + s.pad) * (W + 2 * s.pad) + size_t(x + s.pad)] = float(acc);
}

__constant__ int kNbY[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
__constant__ int kNbX[8] = {-1, 0, 1, -1, 1, -1, 0, 1};

// One warp per image block of the group. Lanes 0..8 evaluate the toggle and the eight swaps of a pixel, a warp
// reduction picks the best (ties: the lower index, as the CPU's strict "<" in toggle-then-neighbour order), and
// all lanes update the block's c_pe region in shared memory.
__global__ void __launch_bounds__(32) groupKernel(DbsDeviceState s, int bs, int py, int px, int nbx, int it, int swaps,
                                                  int updateMap, float eps, double* gainOut) {
    extern __shared__ float sh[];
    const int R = s.cppRadius, m = 2 * R + 1, P = R + 1;
    const int side = bs + 2 * P;
    float* scpp = sh;
    int* soff = reinterpret_cast<int*>(scpp + m * m);
    float* reg = reinterpret_cast<float*>(soff + m * m);
    const int lane = threadIdx.x;
    const int b = blockIdx.x;
    const int bx = 2 * (b % nbx) + px, by = 2 * (b / nbx) + py;
    const int W = s.width, H = s.height;
    const int x0 = bx * bs, y0 = by * bs;
    if (x0 >= W || y0 >= H) return;
    const int x1 = min(W, x0 + bs), y1 = min(H, y0 + bs);
    const int rw = (x1 - x0) + 2 * P, rh = (y1 - y0) + 2 * P;
    const int strideC = W + 2 * s.pad, sG = W + 2;
    for (int i = lane; i < m * m; i += 32) {
        scpp[i] = s.cpp[i];
        soff[i] = (i / m - R) * side + (i % m - R);
    }
    float* gcpe = s.cpe + size_t(y0 - P + s.pad) * strideC + size_t(x0 - P + s.pad);
    for (int r = 0; r < rh; ++r)
        for (int c = lane; c < rw; c += 32) reg[r * side + c] = gcpe[size_t(r) * strideC + c];
    __syncwarp();
    const float cpp0 = scpp[R * m + R];
    float cppNb = 0.f;
    int offG = 0, offR = 0;
    if (lane >= 1 && lane <= 8) {
        const int k = lane - 1;
        cppNb = scpp[(kNbY[k] + R) * m + (kNbX[k] + R)];
        offG = kNbY[k] * sG + kNbX[k];
        offR = kNbY[k] * side + kNbX[k];
    }
    const int span = 2 * s.reach + 1;
    unsigned long long moves = 0;
    double gain = 0;
    // Only this warp writes the tiles it reads during a launch (same-group blocks are further apart than the
    // marks reach), and __syncwarp orders those writes, so plain cached loads are enough.
    int* active = s.activeUntil;
    for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) {
            const size_t ig = size_t(y + 1) * sG + size_t(x + 1);
            if (!s.freeMask[ig]) continue;
            if (updateMap && active[(y / kTile) * s.tilesX + (x / kTile)] < it) {
                x |= kTile - 1;
                continue;
            }
            const uint8_t g0 = s.g[ig];
            const float a0 = g0 ? -1.f : 1.f;
            const int lc = (y - y0 + P) * side + (x - x0 + P);
            const float t = cpp0 + 2 * a0 * reg[lc];
            float d = FLT_MAX;
            if (lane == 0) {
                d = t;
            } else if (lane <= 8 && swaps) {
                const size_t j = ig + offG;
                if (s.freeMask[j] && s.g[j] != g0) d = t + cpp0 - 2 * a0 * reg[lc + offR] - 2 * cppNb;
            }
            // Warp argmin: floats mapped to order-preserving unsigned keys, one redux for the minimum, a ballot for
            // the lowest lane holding it (the CPU's first strict minimum in toggle-then-neighbour order).
            const uint32_t bits = __float_as_uint(d);
            const uint32_t key = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
            const uint32_t kmin = __reduce_min_sync(0xffffffffu, key);
            const int idx = __ffs(__ballot_sync(0xffffffffu, key == kmin)) - 1;
            d = __shfl_sync(0xffffffffu, d, idx);
            if (!(d < -eps)) continue;
            __syncwarp();  // every lane's reads of reg and g above happen before the updates below
            const int nbk = idx - 1;
            const int pG = idx > 0 ? kNbY[nbk] * sG + kNbX[nbk] : 0;
            const int pR = idx > 0 ? kNbY[nbk] * side + kNbX[nbk] : 0;
            if (lane == 0) {
                s.g[ig] ^= 1;
                if (idx > 0) s.g[ig + pG] ^= 1;
            }
            for (int i = lane; i < m * m; i += 32) reg[lc + soff[i]] += a0 * scpp[i];
            __syncwarp();
            if (idx > 0) {
                for (int i = lane; i < m * m; i += 32) reg[lc + pR + soff[i]] += -a0 * scpp[i];
                __syncwarp();
            }
            if (updateMap) {
                const int ty = y / kTile, tx = x / kTile;
                for (int i = lane; i < span * span; i += 32) {
                    const int a = ty - s.reach + i / span, c = tx - s.reach + i % span;
                    if (a >= 0 && a < s.tilesY && c >= 0 && c < s.tilesX) active[a * s.tilesX + c] = it + 1;
                }
            }
            __syncwarp();
            ++moves;
            gain += d;
        }
    }
    __syncwarp();
    for (int r = 0; r < rh; ++r)
        for (int c = lane; c < rw; c += 32) gcpe[size_t(r) * strideC + c] = reg[r * side + c];
    if (lane == 0 && moves) {
        atomicAdd(s.moves, moves);
        atomicAdd(gainOut, gain);
    }
}

// The warp-scan layout: one CTA per image block of the group. All threads move the block's state between global and
// shared memory: c_pe of the block and its margin, g and the free mask of the block and its one-pixel ring (one byte
// each: bit 0 g, bit 1 free) and the block's update-map tiles. Warp 0 then scans the block in raster order 32 pixels at
// a time: every lane evaluates the toggle and the eight swaps of its own pixel from the current state (shared memory
// only, all loads issued before the comparisons), a ballot finds the FIRST lane whose best move is accepted, that move
// is applied (c_pe, g, update map) and the scan resumes right after it. Pixels before the accepted one were evaluated
// on exactly the state the sequential in-block scan sees, so the result is bit-identical to core's DbsSchedule::Blocks,
// while a rejected pixel costs 1/32 of a step. Blocks whose update-map tiles are all settled are skipped without any
// copy.
constexpr int kScanThreads = 256;
constexpr int kTapsPerLane = 10;  // c_pp taps per lane kept in registers: (4w+1)^2 <= 320, i.e. w <= 4 (the default)

__host__ __device__ inline size_t scanSharedLayout(int bs, int R, size_t* offAct, size_t* offGf) {
    const int m = 2 * R + 1, side = bs + 2 * (R + 1), tiles = (bs + kTile - 1) / kTile;
    const size_t act = size_t(m) * m * (sizeof(float) + sizeof(int)) + size_t(side) * side * sizeof(float);
    const size_t gf = act + size_t(tiles) * tiles * sizeof(int);
    if (offAct) *offAct = act;
    if (offGf) *offGf = gf;
    return gf + size_t(bs + 2) * (bs + 2);
}

__global__ void __launch_bounds__(kScanThreads)
    scanGroupKernel(DbsDeviceState s, int bs, int py, int px, int nbx, int it, int swaps, int updateMap, float eps,
                    double* gainOut) {
    extern __shared__ float sh[];
    const int R = s.cppRadius, m = 2 * R + 1, P = R + 1;
    const int side = bs + 2 * P;
    size_t offAct = 0, offGf = 0;
    scanSharedLayout(bs, R, &offAct, &offGf);
    float* scpp = sh;
    int* soff = reinterpret_cast<int*>(scpp + m * m);
    float* reg = reinterpret_cast<float*>(soff + m * m);
    int* sact = reinterpret_cast<int*>(reinterpret_cast<char*>(sh) + offAct);
    uint8_t* sgf = reinterpret_cast<uint8_t*>(sh) + offGf;
    const int tid = threadIdx.x, lane = tid & 31;
    const int b = blockIdx.x;
    const int bx = 2 * (b % nbx) + px, by = 2 * (b / nbx) + py;
    const int W = s.width, H = s.height;
    const int x0 = bx * bs, y0 = by * bs;
    if (x0 >= W || y0 >= H) return;  // uniform over the CTA
    const int x1 = min(W, x0 + bs), y1 = min(H, y0 + bs);
    // bs is a multiple of the tile side, so the block covers whole tiles.
    const int tx0 = x0 / kTile, ty0 = y0 / kTile, ntx = (x1 - x0 + kTile - 1) / kTile,
              nty = (y1 - y0 + kTile - 1) / kTile;
    const int tstride = (bs + kTile - 1) / kTile;
    int* active = s.activeUntil;
    if (updateMap) {
        // No active tile = no pixel of the block is visited in this launch (only this block marks its tiles).
        int any = 0;
        for (int i = tid; i < ntx * nty; i += blockDim.x) {
            const int v = active[(ty0 + i / ntx) * s.tilesX + tx0 + i % ntx];
            sact[(i / ntx) * tstride + i % ntx] = v;
            any |= v >= it;
        }
        if (!__syncthreads_or(any)) return;
    }
    const int rw = (x1 - x0) + 2 * P, rh = (y1 - y0) + 2 * P;
    const int strideC = W + 2 * s.pad, sG = W + 2, gs = bs + 2;
    const int gw = (x1 - x0) + 2, gh = (y1 - y0) + 2;
    for (int i = tid; i < m * m; i += blockDim.x) {
        scpp[i] = s.cpp[i];
        soff[i] = (i / m - R) * side + (i % m - R);
    }
    float* gcpe = s.cpe + size_t(y0 - P + s.pad) * strideC + size_t(x0 - P + s.pad);
    for (int i = tid; i < rw * rh; i += blockDim.x) {
        const int r = i / rw, c = i - r * rw;
        reg[r * side + c] = gcpe[size_t(r) * strideC + c];
    }
    // g and free of rows y0-1 .. y1 and columns x0-1 .. x1 (the padded arrays have a zero border, so always in range).
    const size_t g00 = size_t(y0) * sG + size_t(x0);  // padded index of (y0 - 1, x0 - 1)
    for (int i = tid; i < gw * gh; i += blockDim.x) {
        const int r = i / gw, c = i - r * gw;
        const size_t ig = g00 + size_t(r) * sG + c;
        sgf[r * gs + c] = uint8_t(s.g[ig] | (s.freeMask[ig] << 1));
    }
    __syncthreads();
    if (tid < 32) {
        const float cpp0 = scpp[R * m + R];
        float cppNb[8];
        int offL[8], offR[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const int dy = k < 3 ? -1 : (k < 5 ? 0 : 1);
            const int dx = (k == 0 || k == 3 || k == 5) ? -1 : ((k == 1 || k == 6) ? 0 : 1);
            cppNb[k] = scpp[(dy + R) * m + (dx + R)];
            offL[k] = dy * gs + dx;
            offR[k] = dy * side + dx;
        }
        // This lane's share of c_pp (taps lane, lane + 32, ...) in registers, so a c_pe update is one batch of
        // independent shared loads, then the adds, then the stores (the taps of one update are distinct addresses).
        const int mm = m * m;
        const bool cached = mm <= 32 * kTapsPerLane;
        int toff[kTapsPerLane];
        float tcpp[kTapsPerLane];
#pragma unroll
        for (int j = 0; j < kTapsPerLane; ++j) {
            const int i = lane + 32 * j;
            toff[j] = i < mm ? soff[i] : 0;
            tcpp[j] = i < mm ? scpp[i] : 0.f;
        }
        const auto addCpp = [&](int base, float a) {
            if (cached) {
                float v[kTapsPerLane];
#pragma unroll
                for (int j = 0; j < kTapsPerLane; ++j)
                    if (lane + 32 * j < mm) v[j] = reg[base + toff[j]];
#pragma unroll
                for (int j = 0; j < kTapsPerLane; ++j)
                    if (lane + 32 * j < mm) reg[base + toff[j]] = v[j] + a * tcpp[j];
            } else {
                for (int i = lane; i < mm; i += 32) reg[base + soff[i]] += a * scpp[i];
            }
        };
        const int span = 2 * s.reach + 1;
        unsigned long long moves = 0;
        double gain = 0;
        int y = y0, xs = x0;
        while (y < y1) {
            const int x = xs + lane;
            bool accept = false;
            float best = 0.f, a0 = 0.f;
            int move = 0;
            if (x < x1) {
                const int li = (y - y0 + 1) * gs + (x - x0 + 1);
                const int lc = (y - y0 + P) * side + (x - x0 + P);
                const int c0 = sgf[li];
                const bool act = !updateMap || sact[((y - y0) / kTile) * tstride + (x - x0) / kTile] >= it;
                if ((c0 & 2) && act) {
                    const int g0 = c0 & 1;
                    a0 = g0 ? -1.f : 1.f;
                    // core's Visitor: the same expressions in the same order (the products by 2 and +-1 are exact).
                    const float t = cpp0 + 2 * a0 * reg[lc];
                    best = t;
                    if (swaps) {
                        int nb[8];
                        float ce[8];
#pragma unroll
                        for (int k = 0; k < 8; ++k) {
                            nb[k] = sgf[li + offL[k]];
                            ce[k] = reg[lc + offR[k]];
                        }
#pragma unroll
                        for (int k = 0; k < 8; ++k) {
                            const float d = t + cpp0 - 2 * a0 * ce[k] - 2 * cppNb[k];
                            if ((nb[k] & 2) && (nb[k] & 1) != g0 && d < best) {
                                best = d;
                                move = k + 1;
                            }
                        }
                    }
                    accept = best < -eps;
                }
            }
            const unsigned acc = __ballot_sync(0xffffffffu, accept);
            if (!acc) {
                xs += 32;
                if (xs >= x1) {
                    xs = x0;
                    ++y;
                }
                continue;
            }
            const int src = __ffs(acc) - 1;
            const int mv = __shfl_sync(0xffffffffu, move, src);
            const float d = __shfl_sync(0xffffffffu, best, src);
            const float a = __shfl_sync(0xffffffffu, a0, src);
            const int mx = xs + src;
            __syncwarp();  // every lane's reads of the shared state above happen before the updates below
            const int li = (y - y0 + 1) * gs + (mx - x0 + 1);
            const int lc = (y - y0 + P) * side + (mx - x0 + P);
            int pL = 0, pR = 0;
            if (mv > 0) {
                const int k = mv - 1;
                const int dy = k < 3 ? -1 : (k < 5 ? 0 : 1);
                const int dx = (k == 0 || k == 3 || k == 5) ? -1 : ((k == 1 || k == 6) ? 0 : 1);
                pL = dy * gs + dx;
                pR = dy * side + dx;
            }
            if (lane == 0) {
                sgf[li] ^= 1;
                if (mv > 0) sgf[li + pL] ^= 1;
            }
            addCpp(lc, a);
            if (mv > 0) {
                __syncwarp();
                addCpp(lc + pR, -a);
            }
            if (updateMap) {
                // Global marks for the neighbours' later launches; the block's own tiles also in shared memory.
                const int ty = y / kTile, tx = mx / kTile;
                for (int i = lane; i < span * span; i += 32) {
                    const int ta = ty - s.reach + i / span, tc = tx - s.reach + i % span;
                    if (ta >= 0 && ta < s.tilesY && tc >= 0 && tc < s.tilesX) {
                        active[ta * s.tilesX + tc] = it + 1;
                        if (ta >= ty0 && ta < ty0 + nty && tc >= tx0 && tc < tx0 + ntx)
                            sact[(ta - ty0) * tstride + (tc - tx0)] = it + 1;
                    }
                }
            }
            __syncwarp();
            ++moves;
            gain += d;
            xs = mx + 1;
            if (xs >= x1) {
                xs = x0;
                ++y;
            }
        }
        if (lane == 0 && moves) {
            atomicAdd(s.moves, moves);
            atomicAdd(gainOut, gain);
        }
    }
    __syncthreads();
    for (int i = tid; i < rw * rh; i += blockDim.x) {
        const int r = i / rw, c = i - r * rw;
        gcpe[size_t(r) * strideC + c] = reg[r * side + c];
    }
    for (int i = tid; i < gw * gh; i += blockDim.x) {
        const int r = i / gw, c = i - r * gw;
        s.g[g00 + size_t(r) * sG + c] = sgf[r * gs + c] & 1;
    }
}

__global__ void outputKernel(DbsDeviceState s, uint8_t* out) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= s.width) return;
    out[size_t(y) * s.width + x] = s.g[size_t(y + 1) * (s.width + 2) + size_t(x + 1)] ? 255 : 0;
}

dim3 pixelGrid(const DbsDeviceState& s) { return dim3(unsigned((s.width + 127) / 128), unsigned(s.height)); }

}  // namespace

cudaError_t launchStart(const DbsDeviceState& s, uint64_t seed, bool clipFree, double margin, const uint8_t* screen,
                        int screenW, int screenH, cudaStream_t stream) {
    startKernel<<<pixelGrid(s), 128, 0, stream>>>(s, seed, clipFree ? 1 : 0, margin, screen, screenW, screenH);
    return cudaGetLastError();
}

cudaError_t launchCpe(const DbsDeviceState& s, const double* a1d, double* scratchE, double* scratchT,
                      cudaStream_t stream) {
    errorKernel<<<pixelGrid(s), 128, 0, stream>>>(s, scratchE);
    if (a1d) {
        rowPass<<<pixelGrid(s), 128, 0, stream>>>(s, a1d, scratchE, scratchT);
        colPass<<<pixelGrid(s), 128, 0, stream>>>(s, a1d, scratchT);
    } else {
        directPass<<<pixelGrid(s), 128, 0, stream>>>(s, scratchE);
    }
    return cudaGetLastError();
}

size_t groupSharedBytes(int bs, int cppRadius) {
    const int m = 2 * cppRadius + 1, side = bs + 2 * (cppRadius + 1);
    return size_t(m) * m * (sizeof(float) + sizeof(int)) + size_t(side) * side * sizeof(float);
}

using GroupKernel = void (*)(DbsDeviceState, int, int, int, int, int, int, int, float, double*);

// One launch of a block-group kernel: one CTA per block (by, bx) with by % 2 == py and bx % 2 == px. `configured`
// remembers the dynamic shared memory already allowed for this kernel.
cudaError_t launchGroupKernel(GroupKernel kernel, size_t& configured, size_t shmem, int threads,
                              const DbsDeviceState& s, int bs, int py, int px, int iteration, bool swaps,
                              bool updateMap, float eps, double* gain, cudaStream_t stream) {
    const int nbxAll = (s.width + bs - 1) / bs, nbyAll = (s.height + bs - 1) / bs;
    const int nbx = (nbxAll - px + 1) / 2, nby = (nbyAll - py + 1) / 2;
    if (nbx <= 0 || nby <= 0) return cudaSuccess;
    if (shmem > 48 * 1024 && shmem > configured) {
        const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shmem));
        if (e != cudaSuccess) return e;
        configured = shmem;
    }
    kernel<<<unsigned(nbx * nby), unsigned(threads), shmem, stream>>>(s, bs, py, px, nbx, iteration, swaps ? 1 : 0,
                                                                      updateMap ? 1 : 0, eps, gain);
    return cudaGetLastError();
}

cudaError_t launchGroup(const DbsDeviceState& s, int bs, int py, int px, int iteration, bool swaps, bool updateMap,
                        float eps, double* gain, cudaStream_t stream) {
    static size_t configured = 0;
    return launchGroupKernel(groupKernel, configured, groupSharedBytes(bs, s.cppRadius), 32, s, bs, py, px, iteration,
                             swaps, updateMap, eps, gain, stream);
}

size_t scanSharedBytes(int bs, int cppRadius) { return scanSharedLayout(bs, cppRadius, nullptr, nullptr); }

cudaError_t launchScanGroup(const DbsDeviceState& s, int bs, int py, int px, int iteration, bool swaps, bool updateMap,
                            float eps, double* gain, cudaStream_t stream) {
    static size_t configured = 0;
    return launchGroupKernel(scanGroupKernel, configured, scanSharedBytes(bs, s.cppRadius), kScanThreads, s, bs, py, px,
                             iteration, swaps, updateMap, eps, gain, stream);
}

cudaError_t launchOutput(const DbsDeviceState& s, uint8_t* out, cudaStream_t stream) {
    outputKernel<<<pixelGrid(s), 128, 0, stream>>>(s, out);
    return cudaGetLastError();
}

}  // namespace halftone::gpu::dbsdev
