// Diagnostic (not a test: timings never go in tests): how long one hand-off of a word between two thread blocks
// takes on the GPU it runs on, by ping-pong (a word goes there, its answer comes back, N times):
//   - through global memory (L2), the way the fast form's strips hand over today (st.cg / ld.cg words, polled);
//   - through distributed shared memory inside a thread-block cluster of 2 (a remote shared-memory store into the
//     partner block, polled in the block's own shared memory);
//   - between two warps of one block through shared memory (for reference);
//   - between two warps of one block through global memory, with gpu-scope words and with cta-scope strong words
//     (session 15: whether the SM's L1 would carry a hand-off between strips of one block).
// docs/perf/gpu-ed.md (session 7) quotes its output: the case for a cluster hand-off in the fast form.
//   build/gpu-device/tests/gpu/handoff_latency
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdio>

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
    cudaFree(words);
    cudaFree(lines);
    cudaFree(ns);
    return 0;
}
