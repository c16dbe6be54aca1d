#pragma once
// \brief halftone-bench: sections, shared options and helpers. Plain C++ (no Qt, no OpenImageIO), so
// it builds in every preset including gpu-device. A new section is a bench_<name>.cpp file that
// defines one `int bench<Name>(const BenchContext&)` and one line in the table of main.cpp.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/image.h"

namespace halftone::bench {

/// \brief Options every section may use (parsed once in main.cpp).
struct BenchContext {
    std::vector<int> sizes{1024, 2048, 4096, 8192};  ///< square image sides for size sweeps
    int runs = 5;                                    ///< timed runs per measurement (median reported)
    int threads = 0;                                 ///< 0 = all hardware threads
    int parallelSize = 8192;                         ///< side of the parallel comparison image
    std::vector<int> bigSizes{16384, 32768};         ///< sides of the memory runs
    std::string kernel = "floyd-steinberg";
    std::string workDir = "/tmp";                    ///< where PGM/PBM files are written
    bool usePamditherbw = true;
};

/// \brief One benchmark section: a name for --sections and the function that runs it.
struct BenchSection {
    const char* name;
    const char* help;
    std::function<int(const BenchContext&)> run;  ///< returns 0 on success
};

/// \brief A deterministic natural-looking test plane (smooth shapes plus texture), the same in every run.
Plane8 syntheticPlane(int width, int height);
/// \brief Median wall time in seconds of `runs` calls of fn (one untimed warm-up call first when warmup).
double medianSeconds(int runs, const std::function<void()>& fn, bool warmup = true);
/// \brief Path of pamditherbw when netpbm is installed, else empty.
std::string findPamditherbw();
/// \brief Writes `p` as a binary PGM (P5) through io/'s built-in PNM writer (input for external tools too).
bool writePgmRaw(const std::string& path, const Plane8& p);
/// \brief Times `pamditherbw -fs in > out` (median of runs, wall clock); negative when it failed.
double timePamditherbw(const std::string& tool, const std::string& in, const std::string& out, int runs);
/// \brief Peak resident memory of this process in MiB.
double peakRssMiB();
/// \brief "1.23" etc.
std::string fmt(double v, int digits = 2);

// Sections (one function per bench_<name>.cpp).
int benchTable5(const BenchContext& c);    ///< bench_cpu.cpp: seed 000 Table V (1), sequential ED/EC/RC
int benchParallel(const BenchContext& c);  ///< bench_parallel.cpp: issue 3 comparison, file in/out, big images
int benchDbs(const BenchContext& c);       ///< bench_dbs.cpp: issue 6, clip-free DBS 4096 x 3072, CPU and GPU
int benchGpu(const BenchContext& c);       ///< bench_gpu.cpp: issue 5, seed 000 Table V (2)-(5) on the GPU, every GPU method and ours

}  // namespace halftone::bench
