#pragma once
// \brief Direct Binary Search (docs/spec.md section 2): HVS filters, the c_pp / c_pe bookkeeping of Zhang and
// Allebach (equations 13-16), sequential and block-parallel DBS, and clipping-free DBS (Koge, Ito and Nakano).
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief Which model of the human visual system weights the error.
enum class HvsModel { Gaussian, Nasanen };

/// \brief HVS filter parameters: Gaussian (sigma, truncation radius w) or Nasanen (as Zhang and Allebach use it,
/// eq. 1-5).
struct HvsParams {
    HvsModel model = HvsModel::Gaussian;
    double sigma = 1.2;       ///< Gaussian deviation in pixels
    int radius = 4;           ///< w: the filter p is truncated to (2w+1) x (2w+1); c_pp then spans (4w+1)^2
    double distance = 9.5;    ///< Nasanen: viewing distance in inches
    double dpi = 300.0;       ///< Nasanen: printer resolution in dots per inch
    double luminance = 11.0;  ///< Nasanen: average luminance Gamma in cd/m^2
};

/// \brief A sampled, normalised HVS filter p and its autocorrelation c_pp.
struct HvsFilter {
    int radius = 0;           ///< w
    std::vector<double> p;    ///< (2w+1)^2, row-major, sum 1, symmetric
    std::vector<double> p1d;  ///< 2w+1 taps when p is the outer product p1d x p1d (Gaussian), else empty
    int cppRadius = 0;        ///< 2w
    std::vector<float> cpp;   ///< (4w+1)^2, row-major, c_pp[m] = sum_n p[n] p[n+m]
    float cpp0() const { return cpp[size_t(cppRadius) * size_t(2 * cppRadius + 1) + size_t(cppRadius)]; }
    float cppAt(int dy, int dx) const {
        return cpp[size_t(dy + cppRadius) * size_t(2 * cppRadius + 1) + size_t(dx + cppRadius)];
    }
};

/// \brief Builds the filter; errors name the bad parameter.
Status makeHvsFilter(const HvsParams& params, HvsFilter& out);

/// \brief For a separable filter (p1d set): the 1-D autocorrelation a (4w+1 taps) with c_pp = a x a, in the
/// summation order every c_pe initialisation (CPU and GPU) uses; empty for non-separable filters.
std::vector<double> cppSeparableTaps(const HvsFilter& filter);

/// \brief Filters f (any real plane) with p, edges treated as zero outside; returns a plane enlarged by w
/// on every side (the full convolution), so sum of squares of p*e is the DBS error E.
PlaneT<double> hvsFullConvolution(const PlaneT<double>& f, const HvsFilter& filter);

/// \brief How DBS visits pixels.
enum class DbsSchedule {
    Sequential,  ///< raster order over the whole image (the SPEC reference)
    Blocks,      ///< four block groups (Koge, Ito and Nakano) / quad-interleaved blocks (Zhang and Allebach), threads
};

/// \brief The halftone DBS starts from.
enum class DbsStart {
    Random,          ///< random dither from a hash of seed and position (the SPEC reference)
    ErrorDiffusion,  ///< Floyd-Steinberg error diffusion: DBS then only lowers its error
};

/// \brief Everything that controls one DBS run.
struct DbsParams {
    HvsParams hvs;
    bool clipFree = false;        ///< Koge, Ito and Nakano: screen the shadows/highlights, fix their minority dots
    double margin = 9.0 / 255.0;  ///< Dm of clipping-free DBS
    const PlaneT<uint8_t>* screen = nullptr;  ///< threshold array for clip-free (nullptr = the default DBS screen)
    int maxIterations = 100;                  ///< stop after this many iterations even if moves are still accepted
    uint64_t seed = 1;                        ///< random-dither start (reproducible)
    DbsStart start =
        DbsStart::Random;   ///< start image of the free pixels (CPU only; the GPU starts from random dither)
    bool swaps = true;      ///< try swaps with the 8 neighbours besides toggles
    bool updateMap = true;  ///< Koge, Ito and Nakano's update map: skip unchanged areas (same result)
    DbsSchedule schedule = DbsSchedule::Sequential;
    /// Warm start: when > 0, DBS first runs to convergence with the HVS filter narrowed by this factor (Gaussian sigma,
    /// Nasanen viewing distance), then from that halftone with the requested filter. 0 = off, the SPEC reference.
    /// The block schedule's registry default is kDbsWarmStart: plain block DBS ends in a local minimum whose E differs
    /// from sequential DBS's by +-1-2% per seed (docs/performance.md); the warm start lowers E by about 15-20%.
    double warmStart = 0.0;
    /// Block side for DbsSchedule::Blocks, at least the c_pp support 4w+1. 128 keeps the final error within
    /// 1% of sequential DBS on the test images (32, Koge, Ito and Nakano's block side, is about 0.5% worse on
    /// average: docs/performance.md).
    int blockSize = 128;
};

/// \brief The warm-start factor the registry entries use by default, all but the reference (DbsParams::warmStart).
inline constexpr double kDbsWarmStart = 0.75;

/// \brief The HVS parameters of the warm-start phase: Gaussian sigma or Nasanen viewing distance times `scale`.
HvsParams dbsWarmStartHvs(const HvsParams& hvs, double scale);

/// \brief The checks every DBS path (CPU, GPU) makes before it starts: image size, max-iter, warm-start factor; builds
/// the HVS filter and, when the warm start is on, the narrower warm-start filter (else `warmFilter` is left empty).
Status dbsPrepareFilters(const Plane8& src, const DbsParams& params, HvsFilter& filter, HvsFilter& warmFilter);

/// \brief What a DBS run did.
struct DbsStats {
    int iterations = 0;  ///< iterations run, warm-start phase included (the last one accepted no move when converged)
    int warmIterations = 0;   ///< of which in the warm-start phase
    int64_t moves = 0;        ///< accepted toggles + swaps
    int64_t freePixels = 0;   ///< pixels DBS may change (all of them unless clip-free)
    double initialError = 0;  ///< E / N of the random start (with the requested filter)
    double error = 0;         ///< E / N of the result, recomputed from scratch
    bool converged = false;   ///< an iteration with the requested filter accepted no move
};

/// \brief Initial binary image (0/1) and free mask (1 = DBS may change it) for DBS (Kasagi, Nakano and Ito, step 1):
/// determined pixels from the screen when clip-free; elsewhere random dither (hash of seed and position) or,
/// with DbsStart::ErrorDiffusion, Floyd-Steinberg error diffusion of the source.
Status dbsStart(const Plane8& src, const DbsParams& params, Plane8& binary, Plane8& freeMask);

/// \brief The random-dither start of Koge, Ito and Nakano at (x, y): 1 with probability a/255, from a hash of seed
/// and position.
/// Shared with the GPU so both start from the same image.
inline uint32_t dbsRandomBit(uint64_t seed, int x, int y, uint8_t a) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (uint64_t(uint32_t(y)) << 32 | uint32_t(x)) + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return uint32_t((z >> 32) % 255u) < a ? 1u : 0u;
}

/// \brief The DBS state: binary image g, free mask, and c_pe = c_pp * e with e = g - f (zero outside).
/// Exposed so tests can check the bookkeeping against brute force.
class DbsState {
public:
    /// \brief Sets up g, the free mask and c_pe from scratch (double precision, then stored as float).
    Status init(const Plane8& src, const HvsFilter& filter, const Plane8& binary, const Plane8& freeMask);

    int width() const { return w_; }
    int height() const { return h_; }
    const HvsFilter& filter() const { return *filter_; }
    uint8_t bit(int y, int x) const { return g_[idxG(y, x)]; }
    bool isFree(int y, int x) const { return free_[idxG(y, x)] != 0; }
    float cpe(int y, int x) const { return cpe_[idxC(y, x)]; }

    /// \brief dE of toggling (y, x) (Zhang and Allebach, eq. 13).
    float toggleDelta(int y, int x) const;
    /// \brief dE of swapping (y, x) with its neighbour (y + dy, x + dx) of the other value (eq. 14).
    float swapDelta(int y, int x, int dy, int dx) const;
    /// \brief Applies a toggle and updates c_pe locally (eq. 12).
    void applyToggle(int y, int x);
    /// \brief Applies a swap and updates c_pe locally (eq. 16).
    void applySwap(int y, int x, int dy, int dx);

    /// \brief Tries every move at (y, x) and takes the one with the most negative dE; returns dE (0 if none).
    float visit(int y, int x, bool swaps);

    /// \brief E = sum e * c_pe from the stored c_pe (double accumulation).
    double bookkeptError() const;
    /// \brief E recomputed from scratch as the sum of squares of p * e (no bookkeeping).
    double bruteForceError() const;

    /// \brief The binary image as 0/255.
    Plane8 output() const;

    // Raw access for the DBS drivers.
    int padG() const { return 1; }
    int strideG() const { return w_ + 2; }
    int padC() const { return padC_; }
    int strideC() const { return w_ + 2 * padC_; }
    uint8_t* gData() { return g_.data(); }
    uint8_t* freeData() { return free_.data(); }
    float* cpeData() { return cpe_.data(); }
    const Plane8& source() const { return *src_; }

private:
    size_t idxG(int y, int x) const { return size_t(y + 1) * size_t(w_ + 2) + size_t(x + 1); }
    size_t idxC(int y, int x) const { return size_t(y + padC_) * size_t(w_ + 2 * padC_) + size_t(x + padC_); }
    void addCpp(int y, int x, float a);

    int w_ = 0, h_ = 0, padC_ = 0;
    const HvsFilter* filter_ = nullptr;
    const Plane8* src_ = nullptr;
    std::vector<uint8_t> g_;       ///< (w+2) x (h+2), border 0
    std::vector<uint8_t> free_;    ///< (w+2) x (h+2), border 0 (never free)
    std::vector<float> cpe_;       ///< (w + 2*2w) x (h + 2*2w)
    std::vector<int> cppOffsets_;  ///< offset in cpe_ of each c_pp tap relative to the centre, row-major
};

/// \brief DBS of one 8-bit plane; dst gets 0/255. Progress per iteration (iteration, moves, error) and per
/// row band; cancellation checked per row band / block group.
Status dbsHalftone(const Plane8& src, Plane8& dst, const DbsParams& params, const RunControl& control = {},
                   DbsStats* stats = nullptr);

/// \brief E / N of any binary halftone (0 / 255 or 0 / 1) against src with the given filter (docs/spec.md section 3).
double dbsError(const Plane8& src, const Plane8& halftone, const HvsFilter& filter);

class Registry;
class ParamValues;
struct ParamSpec;
/// \brief The DBS registry parameters every variant has (clip-free, margin, screen, hvs, sigma, radius, distance,
/// dpi, luminance, max-iter, seed, swaps, warm-start); the variants add block or start.
std::vector<ParamSpec> dbsParamSpecs();
/// \brief Reads DbsParams from resolved registry values.
DbsParams dbsParamsFrom(const ParamValues& values);
/// \brief Registers `dbs/sequential` (the default), `dbs/blocks`, `dbs/reference` and `dbs/blocks-koge`.
void registerDbsMethods(Registry& r);

}  // namespace halftone
