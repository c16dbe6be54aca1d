// Diagnostic (not a test: timings never go in tests): how long one hand-off of a word between two thread blocks
// takes on the GPU it runs on, by ping-pong (a word goes there, its answer comes back, N times):
//   - through global memory (L2), the way the fast form's strips hand over today (st.cg / ld.cg words, polled);
//   - through distributed shared memory inside a thread-block cluster of 2 (a remote shared-memory store into the
//     partner block, polled in the block's own shared memory);
//   - between two warps of one block through shared memory (for reference);
//   - between two warps of one block through global memory, with gpu-scope words and with cta-scope strong words
//     (session 15: whether the SM's L1 would carry a hand-off between strips of one block).
//   - per line and per SM pair (session 20): the round trip through each of 4096 lines for six SM pairs, and the
//     round trip between SM 0 and every other SM (the "sm map": SMs on the other side of the L2 answer ~1.35x slower).
// docs/perf/gpu-ed.md (sessions 7, 15 and 20) quotes its output: the case for a cluster hand-off in the fast form.
//   build/gpu-device/tests/gpu/handoff_latency
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

namespace {

constexpr int kRounds = 20000;

__device__ __forceinline__ unsigned long long globalNs() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
/// A relaxed gpu-scope load (served by L2; the polls of the fast form are L2 loads too).
__device__ __forceinline__ int loadCg(const int* p) {
    return cuda::atomic_ref<const int, cuda::thread_scope_device>(*p).load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ void storeCg(int* p, int v) {
    asm volatile("st.global.cg.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
/// cta-scope strong words (`STG/LDG.E.STRONG.SM`: the SM's L1 may serve them).
__device__ __forceinline__ int loadCta(const int* p) {
    int v;
    asm volatile("ld.relaxed.cta.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void storeCta(int* p, int v) {
    asm volatile("st.relaxed.cta.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/// Blocks 0 and 1 (one thread each), words 32 ints apart (other L2 lines): block 0 sends i, block 1 answers i.
__global__ void pingGlobal(int* words, unsigned long long* ns, int rounds) {
    if (threadIdx.x != 0 || blockIdx.x > 1) return;
    int* mine = words + 32 * blockIdx.x;
    int* other = words + 32 * (blockIdx.x ^ 1);
    const unsigned long long t0 = globalNs();
    for (int i = 1; i <= rounds; ++i) {
        if (blockIdx.x == 0) {
            storeCg(other, i);
            while (loadCg(mine) != i) {
            }
        } else {
            while (loadCg(mine) != i) {
            }
            storeCg(other, i);
        }
    }
    ns[blockIdx.x] = globalNs() - t0;
}

/// Warps 0 and 1 of one block through global memory: MODE 0 with gpu-scope words (st.cg, ld.relaxed.gpu: L2, as
/// between the fast form's strips today), MODE 1 with cta-scope strong words (st.relaxed.cta, ld.relaxed.cta: the
/// memory model lets the SM's L1 serve both, which would suit strips of one block handing over; session 15).
template <int MODE>
__global__ void pingGlobalWarps(int* words, unsigned long long* ns, int rounds) {
    const int w = threadIdx.x >> 5;
    if ((threadIdx.x & 31) != 0 || w > 1) return;
    int* mine = words + 32 * w;
    int* other = words + 32 * (w ^ 1);
    auto put = [&](int v) { MODE == 0 ? storeCg(other, v) : storeCta(other, v); };
    auto get = [&]() { return MODE == 0 ? loadCg(mine) : loadCta(mine); };
    const unsigned long long t0 = globalNs();
    for (int i = 1; i <= rounds; ++i) {
        if (w == 0) {
            put(i);
            while (get() != i) {
            }
        } else {
            while (get() != i) {
            }
            put(i);
        }
    }
    ns[w] = globalNs() - t0;
}

/// Warps 0 and 1 of one block, cta-scope strong words, a fresh 128-byte line per round (as a strip's boundary words
/// move on along the row): TOUCH 0 polls the new line cold; TOUCH 1 reads the word 8 rounds ahead first (the line
/// is then in the SM's L1 before the partner stores into it).
template <int TOUCH>
__global__ void pingFreshLines(int* words, unsigned long long* ns, int rounds) {
    const int w = threadIdx.x >> 5;
    if ((threadIdx.x & 31) != 0 || w > 1) return;
    int sink = 0;
    const unsigned long long t0 = globalNs();
    for (int i = 1; i <= rounds; ++i) {
        int* mine = words + (2 * i + w) * 32;  // line 2 i + w: warp w polls it, the partner stores into it
        int* other = words + (2 * i + (w ^ 1)) * 32;
        if (TOUCH && i + 8 <= rounds) sink += loadCta(words + (2 * (i + 8) + w) * 32);
        if (w == 0) {
            storeCta(other, i);
            while (loadCta(mine) != i) {
            }
        } else {
            while (loadCta(mine) != i) {
            }
            storeCta(other, i);
        }
    }
    ns[w] = globalNs() - t0 + (sink == 12345 ? 1 : 0);
}

/// A cluster of 2 blocks: each polls a word in its own shared memory, the partner stores into it remotely.
__global__ void __cluster_dims__(2, 1, 1) pingCluster(unsigned long long* ns, int rounds) {
    __shared__ int box;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) box = 0;
    cluster.sync();
    volatile int* mine = &box;
    volatile int* other = cluster.map_shared_rank(&box, rank ^ 1u);
    if (threadIdx.x == 0) {
        const unsigned long long t0 = globalNs();
        for (int i = 1; i <= rounds; ++i) {
            if (rank == 0) {
                *other = i;
                while (*mine != i) {
                }
            } else {
                while (*mine != i) {
                }
                *other = i;
            }
        }
        ns[blockIdx.x] = globalNs() - t0;
    }
    cluster.sync();  // the partner's shared memory stays until both are done
}

/// Warps 0 and 1 of one block through shared memory.
__global__ void pingBlock(unsigned long long* ns, int rounds) {
    __shared__ volatile int box[2];
    const int w = threadIdx.x >> 5;
    if (threadIdx.x < 2) box[threadIdx.x] = 0;
    __syncthreads();
    if ((threadIdx.x & 31) == 0 && w < 2) {
        const unsigned long long t0 = globalNs();
        for (int i = 1; i <= rounds; ++i) {
            if (w == 0) {
                box[1] = i;
                while (box[0] != i) {
                }
            } else {
                while (box[1] != i) {
                }
                box[0] = i;
            }
        }
        ns[w] = globalNs() - t0;
    }
}


/// Per-line sweep (session 20): a block on SM `smA` and a block on SM `smB` ping-pong through each 128-byte line of a
/// pool in turn (A writes word 0 of the line, B answers in word 16 of the same line), `rounds` times per line; rtt[L]
/// is the mean round trip through line L in SM clock cycles. Whether the L2 slice a line lives in (near or far for
/// the two SMs) makes the hand-off slower for some addresses than for others. A side that waits too long (its partner
/// never started: no block landed on that SM) gives up and leaves rtt at 0.
__global__ void pingLineSweep(int* pool, int nLines, int rounds, int smA, int smB, unsigned* rtt, int* elect) {
    if (threadIdx.x != 0) return;
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    int role = -1;
    if (int(sm) == smA && atomicCAS(&elect[0], 0, 1) == 0) role = 0;
    else if (int(sm) == smB && atomicCAS(&elect[1], 0, 1) == 0) role = 1;
    if (role < 0) return;
    int seq = 0;
    auto waitFor = [](const int* w, int v) {
        for (long long spins = 0; loadCg(w) != v; ++spins)
            if (spins > (1ll << 24)) return false;
        return true;
    };
    for (int L = 0; L < nLines; ++L) {
        int* w0 = pool + size_t(L) * 32;
        int* w16 = w0 + 16;
        const long long t0 = clock64();
        for (int i = 0; i < rounds; ++i) {
            ++seq;
            if (role == 0) {
                storeCg(w0, seq);
                if (!waitFor(w16, seq)) return;
            } else {
                if (!waitFor(w0, seq)) return;
                storeCg(w16, seq);
            }
        }
        if (role == 0) rtt[L] = unsigned((clock64() - t0) / rounds);
    }
}

}  // namespace

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("handoff_latency: no usable GPU\n");
        return 77;
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    int* words = nullptr;
    unsigned long long* ns = nullptr;
    cudaMalloc(&words, 64 * sizeof(int));
    cudaMalloc(&ns, 2 * sizeof(unsigned long long));
    int* lines = nullptr;
    cudaMalloc(&lines, size_t(2 * kRounds + 64) * 32 * sizeof(int));
    cudaMemset(ns, 0, 2 * sizeof(unsigned long long));
    unsigned long long h[2] = {0, 0};
    std::printf("device: %s; one-way hand-off = ping-pong time / (2 x %d rounds)\n", prop.name, kRounds);
    for (int rep = 0; rep < 3; ++rep) {
        cudaMemset(words, 0, 64 * sizeof(int));
        pingGlobal<<<2, 32>>>(words, ns, kRounds);
        cudaError_t e = cudaDeviceSynchronize();
        cudaMemcpy(h, ns, sizeof h, cudaMemcpyDeviceToHost);
        int last[2] = {0, 0};
        cudaMemcpy(&last[0], words, sizeof(int), cudaMemcpyDeviceToHost);
        cudaMemcpy(&last[1], words + 32, sizeof(int), cudaMemcpyDeviceToHost);
        std::printf("global memory (L2), two blocks:          %s %.1f ns (block 1: %.1f; last words %d %d)\n",
                    e == cudaSuccess ? "" : cudaGetErrorString(e), double(h[0]) / (2.0 * kRounds),
                    double(h[1]) / (2.0 * kRounds), last[0], last[1]);
        // the other paths: one line each (one-way time of block or warp 0)
        auto report = [&](const char* what) {
            const cudaError_t err = cudaDeviceSynchronize();
            cudaMemcpy(h, ns, sizeof h, cudaMemcpyDeviceToHost);
            std::printf("%-74s %s %.1f ns\n", what, err == cudaSuccess ? "" : cudaGetErrorString(err),
                        double(h[0]) / (2.0 * kRounds));
        };
        cudaMemset(words, 0, 64 * sizeof(int));
        pingGlobalWarps<0><<<1, 64>>>(words, ns, kRounds);
        report("global memory, two warps of one block, gpu scope (L2):");
        cudaMemset(words, 0, 64 * sizeof(int));
        pingGlobalWarps<1><<<1, 64>>>(words, ns, kRounds);
        report("global memory, two warps of one block, cta scope (st/ld.relaxed.cta):");
        const size_t lineBytes = size_t(2 * kRounds + 64) * 32 * sizeof(int);
        cudaMemset(lines, 0, lineBytes);
        pingFreshLines<0><<<1, 64>>>(lines, ns, kRounds);
        report("global memory, two warps, cta scope, a fresh line per round:");
        cudaMemset(lines, 0, lineBytes);
        pingFreshLines<1><<<1, 64>>>(lines, ns, kRounds);
        report("global memory, two warps, cta scope, a fresh line per round, read 8 ahead:");
        pingCluster<<<2, 32>>>(ns, kRounds);
        report("distributed shared memory, cluster of 2:");
        pingBlock<<<1, 64>>>(ns, kRounds);
        report("shared memory, two warps of one block:");
    }

    // per-line sweep: several SM pairs, the same 4096 lines (512 KB)
    {
        const int nLines = 4096, rounds = 40;
        int* pool = nullptr;
        unsigned* rtt = nullptr;
        int* elect = nullptr;
        cudaMalloc(&pool, size_t(nLines) * 32 * sizeof(int));
        cudaMalloc(&rtt, nLines * sizeof(unsigned));
        cudaMalloc(&elect, 2 * sizeof(int));
        const int sms = prop.multiProcessorCount;
        const int pairs[][2] = {{0, 1}, {0, 2}, {0, sms / 2}, {0, sms - 1}, {sms / 2, sms / 2 + 1}, {sms - 2, sms - 1}};
        std::vector<std::vector<unsigned>> all;
        for (auto& pr : pairs) {
            cudaMemset(pool, 0, size_t(nLines) * 32 * sizeof(int));
            cudaMemset(rtt, 0, nLines * sizeof(unsigned));
            cudaMemset(elect, 0, 2 * sizeof(int));
            pingLineSweep<<<sms * 4, 32>>>(pool, nLines, rounds, pr[0], pr[1], rtt, elect);
            const cudaError_t err = cudaDeviceSynchronize();
            std::vector<unsigned> v(nLines);
            cudaMemcpy(v.data(), rtt, nLines * sizeof(unsigned), cudaMemcpyDeviceToHost);
            all.push_back(v);
            std::vector<unsigned> sorted = v;
            std::sort(sorted.begin(), sorted.end());
            auto q = [&](double f) { return sorted[size_t(f * (nLines - 1))]; };
            std::printf("line sweep SM %3d <-> SM %3d %s: round trip cycles min %u p10 %u p25 %u median %u p75 %u p90 %u max %u\n",
                        pr[0], pr[1], err == cudaSuccess ? "" : cudaGetErrorString(err), q(0), q(0.1), q(0.25), q(0.5),
                        q(0.75), q(0.9), q(1.0));
            int hist[16] = {};
            for (unsigned x : v) hist[std::min(15, int((x - q(0)) / 50))]++;
            std::printf("  histogram (50-cycle buckets from the min):");
            for (int b = 0; b < 16; ++b) std::printf(" %d", hist[b]);
            std::printf("\n");
        }
        // are the same lines fast for every pair? fraction of lines below each pair's median that are below pair 0's
        for (size_t k = 1; k < all.size(); ++k) {
            std::vector<unsigned> a0 = all[0], ak = all[k];
            std::sort(a0.begin(), a0.end());
            std::sort(ak.begin(), ak.end());
            const unsigned m0 = a0[nLines / 2], mk = ak[nLines / 2];
            int both = 0, fastK = 0;
            for (int L = 0; L < nLines; ++L)
                if (all[k][L] < mk) {
                    ++fastK;
                    both += all[0][L] < m0;
                }
            std::printf("pair %zu: of its %d lines below its median, %d are below pair 0's median\n", k, fastK, both);
        }
        // the side map: the median round trip between SM 0 and every SM k over 64 lines
        {
            std::printf("sm map (median round trip cycles with SM 0, 64 lines):");
            for (int k = 1; k < sms; ++k) {
                cudaMemset(pool, 0, size_t(64) * 32 * sizeof(int));
                cudaMemset(rtt, 0, 64 * sizeof(unsigned));  // a pair that gives up reports 0, not the previous pair's times
                cudaMemset(elect, 0, 2 * sizeof(int));
                pingLineSweep<<<sms * 4, 32>>>(pool, 64, 20, 0, k, rtt, elect);
                cudaDeviceSynchronize();
                std::vector<unsigned> v(64);
                cudaMemcpy(v.data(), rtt, 64 * sizeof(unsigned), cudaMemcpyDeviceToHost);
                std::sort(v.begin(), v.end());
                std::printf(" %d:%u", k, v[32]);
            }
            std::printf("\n");
        }
        cudaFree(pool);
        cudaFree(rtt);
        cudaFree(elect);
    }
    cudaFree(words);
    cudaFree(lines);
    cudaFree(ns);
    return 0;
}
