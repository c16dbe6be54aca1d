#pragma once
// \brief The GPU section of halftone-bench: Kasagi, Nakano and Ito's Table V (2)-(5) on this GPU, the wavefront kernel
// against the published GPU methods.
#include <ostream>
#include <string>
#include <vector>

namespace halftone::bench {

/// \brief What the GPU section measures.
struct GpuBenchOptions {
    std::vector<int> sizes{1024, 2048, 4096, 8192, 16384};  ///< square images, n x n
    int runs = 0;        ///< warm runs per measurement (median); 0 = by method and size
    bool forms = true;   ///< also time each form of the wavefront kernel by name (wavefront[fast], wavefront[general])
    bool verify = true;  ///< compare every result with the SPEC reference
    std::string markdownPath;          ///< also write the full table here (empty = no file)
    std::vector<std::string> methods;  ///< only these variants (empty = every GPU method); forms go with "wavefront"
    /// instead of the table: the wavefront kernel on 16384-wide images of 1, 2, 4, ... strips (per-step and hand-off
    /// cost)
    bool diagnose = false;
    std::vector<int> diagnoseHeights{64, 128, 256, 512, 1024, 2048, 4096};  ///< heights of the diagnose runs
    std::vector<std::string> formFilter;  ///< only these wavefront forms (empty = all)
    /// the wavefront (its default form for the kernel) also with these kernels, binary and gamma, each checked against
    /// its own reference (a sequential CPU run: ~10 s at 16K) and compared with Floyd-Steinberg in the summary; runs
    /// when `methods` is empty or names "wavefront"
    std::vector<std::string> kernels{"zhou-fang"};
    /// error diffusion to a palette (docs/spec.md section 4) on a colour image, one row per palette size (empty =
    /// none); runs when `methods` is empty or names "palette"
    std::vector<int> paletteColors{16};
};

/// \brief Runs the GPU section; prints the full table, then a short 16K summary last. Returns 0, 1 on a
/// mismatch or error, 77 when no GPU is usable (the reason is printed).
int runGpuBench(const GpuBenchOptions& options, std::ostream& out);

}  // namespace halftone::bench
