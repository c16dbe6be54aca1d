#pragma once
// \brief Launch wrappers for the kernels in wavefront.cu and publishedmethods.cu (plain C++: no CUDA syntax).
// Every wrapper only enqueues work on `stream` and returns the launch error; memory, transfers and
// synchronisation belong to gpumethods.cpp.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace halftone::gpu {

/// \brief Device-side quantizer tables: scale-16 input table (256) and, for S clamped to [0, 4080],
/// the packed level entry Q_k | (v_k << 16) (4081 entries), both made on the host from core's Quantizer.
struct QuantTables {
    const int32_t* input = nullptr;
    const int32_t* level = nullptr;
};
inline constexpr int kLevelTableSize = 4081;
/// \brief Entries of WavefrontArgs::levelWeights: three tables of 256 (right weight, down-left | down weights, Z).
inline constexpr int kLevelWeightsSize = 3 * 256;
/// \brief Arguments of the persistent warp-strip wavefront kernel (both forms).
struct WavefrontArgs {
    const uint8_t* in = nullptr;  ///< pitched 8-bit input
    uint8_t* out = nullptr;       ///< pitched 8-bit output (or 1-bit packed rows when packed)
    int pitch = 0;                ///< bytes per row of in/out, multiple of 32, >= width
    int outPitch = 0;             ///< bytes per row of out
    int width = 0, height = 0;
    uint32_t* boundary = nullptr;  ///< [strips][2][boundaryStride] words (epoch << 16 | uint16 error)
    int boundaryStride = 0;
    uint32_t epoch = 1;                ///< 1..65535, new per launch; tags boundary words of this launch
    int* stripCounter = nullptr;       ///< zeroed before the launch: work-stealing strip index
    int* abortFlag = nullptr;          ///< device flag: set when a cancel was seen
    volatile int* rowsDone = nullptr;  ///< mapped host progress counter (may be null)
    /// Overlapped end-to-end path: a strip waits until bandReady[row / bandRows] == epoch (its input
    /// arrived) and, once its output is stored, sets stripDone[strip] = epoch in mapped host memory.
    const int* bandReady = nullptr;
    int bandRows = 0;
    volatile int* stripDone = nullptr;
    QuantTables q;
    /// Level-dependent kernels (Ostromoukhov; Zhou and Fang; Li and Allebach), general form only: kLevelWeightsSize
    /// entries made on the host from core's Kernel::weight() and modulationWord(), for each 8-bit input level a of the
    /// sending pixel: W_right(a) at [a], W_downLeft(a) | W_down(a) << 16 at [256 + a], and the modulation word
    /// Z(a) | T_L(a) << 19 at [512 + a] (0 when the kernel does not modulate its threshold). Null for a fixed kernel.
    const int32_t* levelWeights = nullptr;
    uint32_t seed = 1;     ///< seed of Zhou and Fang's position noise (EdParams::seed)
    int threshold = 2040;  ///< L = 2 fast path: level 1 iff S > threshold
    int binaryFast = 1;    ///< L = 2 (level 0 -> 0/0, level 1 -> 4080/255)
    int gammaInput = 1;    ///< input table is A = 16 a (gamma mode): the fast form computes it
    /// Fast form only: when set, the output goes here as 1-bit rows (PBM P4 bits: leftmost pixel in the
    /// most significant bit, 1 = black = output 0, bits past the width 0) instead of `out`.
    uint8_t* packed = nullptr;
    int packedPitch = 0;  ///< bytes per packed row, pitch / 8
};

/// \brief Sets flag[index] = value (stream-ordered after a band's copy: the band's input has arrived).
cudaError_t launchSetFlag(int* flag, int index, int value, cudaStream_t stream);

/// \brief The two forms of the wavefront kernel: the general one (every kernel, level count and input mode; strips of
/// 64 rows) and the fast one (binary Floyd-Steinberg only; strips of 32 rows, gpu/ed/wavefront_fast.cuh).
enum class WavefrontForm { General, Fast };

/// \brief Rows one warp owns in a form.
int wavefrontStripRows(WavefrontForm form);

/// \brief True when `form` is compiled for (kernel index, binary or multi-level).
bool wavefrontHasForm(int kernelIndex, WavefrontForm form, bool binary);

/// \brief Launches the wavefront kernel (kernelIndex = position in core's kernels()); grid from the SM count.
cudaError_t launchWavefront(int kernelIndex, WavefrontForm form, const WavefrontArgs& a, int smCount,
                            cudaStream_t stream);

// ---- Kasagi, Nakano and Ito, section IV: k-delay pixel-per-thread on global memory (Floyd-Steinberg) ----

/// \brief The global-memory variants.
enum class GlobalVariant { Ped3, Ped2Atomic, Ped2Double, Pec2 };

/// \brief Buffers of the global-memory variants (layout plain i*W+j, or permuted (j + k*i)*H + i).
struct GlobalArgs {
    const uint8_t* in = nullptr;
    uint8_t* out = nullptr;
    int32_t* work = nullptr;    ///< accumulators (PED) or errors (PEC), zeroed
    int32_t* rowErr = nullptr;  ///< PED2 double: error of each row at the current step
    int width = 0, height = 0;
    int delay = 2;
    bool permuted = false;
    QuantTables q;
};
/// \brief Enqueues steps [t0, t1) of one variant (one launch per step; two for Ped2Double).
cudaError_t launchGlobalSteps(GlobalVariant v, const GlobalArgs& a, int t0, int t1, cudaStream_t stream);
/// \brief Kasagi, Nakano and Ito's data permutation, a row-wise shift + transpose (forward: plain -> permuted, else
/// back).
cudaError_t launchPermute(const uint8_t* src, uint8_t* dst, int width, int height, int delay, bool forward,
                          cudaStream_t stream);

/// \brief Knight-order storage of Deshpande, Misra and Narayanan (2011): offsets[t] = first index of step t (t = j + 2
/// i).
struct KnightArgs {
    const uint8_t* in = nullptr;  ///< knight order
    uint8_t* out = nullptr;       ///< knight order
    int32_t* err = nullptr;       ///< knight order
    int width = 0, height = 0;
    const int64_t* offsets = nullptr;  ///< host array, steps + 1 entries
    QuantTables q;
};
/// \brief One launch per step t in [t0, t1] (pixel per thread, knight-move addressing).
cudaError_t launchKnightSteps(const KnightArgs& a, int t0, int t1, cudaStream_t stream);
/// \brief Plain <-> knight order (device offsets table, steps + 1 entries).
cudaError_t launchKnightPermute(const uint8_t* src, uint8_t* dst, int width, int height, const int64_t* devOffsets,
                                bool forward, cudaStream_t stream);

/// \brief CPU-GPU hybrid of Deshpande, Misra and Narayanan (2011): the GPU takes columns [cpuCols, W); edges through
/// mapped host memory.
struct HybridArgs {
    const uint8_t* in = nullptr;  ///< plain device input
    uint8_t* out = nullptr;       ///< plain device output
    int32_t* err = nullptr;       ///< plain device errors
    int width = 0, height = 0, cpuCols = 0;
    const volatile int32_t* cpuEdge = nullptr;  ///< E(i, cpuCols - 1), written by the CPU (sentinel until then)
    volatile int32_t* gpuEdge = nullptr;        ///< E(i, cpuCols), written by the GPU
    QuantTables q;
};
inline constexpr int32_t kEdgeSentinel = INT32_MIN;
cudaError_t launchHybridSteps(const HybridArgs& a, cudaStream_t stream);

// ---- Kasagi, Nakano and Ito, section V: parallelogram blocks in shared memory, one launch per label ----

/// \brief BWED/BWEC buffers: C holds the last row's errors of every block row, R the last three
/// errors of the left block for every image row (Kasagi, Nakano and Ito's boundary arrays).
struct BlockArgs {
    const uint8_t* in = nullptr;
    uint8_t* out = nullptr;
    int32_t* C = nullptr;  ///< [blockRows][width]
    int32_t* R = nullptr;  ///< [3][height]
    int width = 0, height = 0;
    bool diffusion = false;  ///< BWED (true) or BWEC
    bool registers = false;  ///< register caching
    QuantTables q;
};
inline constexpr int kBlock = 32;  ///< parallelogram block: 32 rows x 32 pixels, shifted 2 per row
inline constexpr int kBlockSkew = 2;
/// \brief Block columns of the parallelogram tiling (x = (j + 2 (i mod 32)) / 32).
inline int blockCols(int width) { return (width - 1 + kBlockSkew * (kBlock - 1)) / kBlock + 1; }
inline int blockRows(int height) { return (height + kBlock - 1) / kBlock; }
/// \brief Labels: block (y, x) runs in launch 3 y + x.
inline int blockLabels(int width, int height) { return 3 * (blockRows(height) - 1) + blockCols(width); }
/// \brief Enqueues one launch per label of `labels` (the schedule model's non-empty labels, in order).
cudaError_t launchBlockLabels(const BlockArgs& a, const int32_t* labels, int count, cudaStream_t stream);

}  // namespace halftone::gpu
