#pragma once
// \brief halftone-bench: sections, shared options and helpers. Plain C++ (no Qt), so it builds in every preset
// including gpu-device. Every timed method is a registry entry run through its PlaneFunction, so a newly
// registered method is benchmarked with no change here. A new section is a bench_<name>.cpp file that defines one
// `int bench<Name>(const BenchContext&)` and one line in the table of main.cpp.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/job/registry.h"

namespace halftone::bench {

/// \brief Which devices a section times.
enum class DeviceChoice { SectionDefault, Cpu, Gpu, All };

/// \brief Options every section may use (parsed once in main.cpp).
struct BenchContext {
    std::vector<int> sizes{1024, 2048, 4096, 8192};  ///< square image sides for size sweeps
    int runs = 5;                                    ///< timed runs per measurement (median reported)
    bool runsDefault = true;                         ///< --runs not given (the gpu section then picks by method)
    int threads = 0;                                 ///< 0 = all hardware threads
    int parallelSize = 8192;                         ///< side of the parallel comparison image
    std::vector<int> bigSizes{16384, 32768};         ///< sides of the memory runs
    int dbsWidth = 4096, dbsHeight = 3072;           ///< image of the DBS section
    std::vector<const MethodInfo*> picked;           ///< --methods (empty = each section's default set)
    std::string baseline = "ec/rc";                  ///< ratios are against this method
    std::map<std::string, std::string> params;  ///< --param key=value (and --kernel), for methods that have the key
    DeviceChoice device = DeviceChoice::SectionDefault;
    std::string workDir = "/tmp";  ///< where PGM/PBM files are written
    bool usePamditherbw = true;
    bool useConvert = true;
    int paletteWidth = 6000, paletteHeight = 4000;  ///< synthetic image of the palette section
    std::string paletteImage;                       ///< or this file (--palette-image)
    std::vector<std::string> qualityImages;         ///< images of the quality section (empty: the shipped ones)
};

/// \brief One benchmark section: a name for --sections and the function that runs it.
struct BenchSection {
    const char* name;
    const char* help;
    std::function<int(const BenchContext&)> run;  ///< returns 0 on success, 1 on a mismatch or a failed method
};

// ---- Methods from the registry ----

/// \brief The registry with the GPU methods attached (gpu::registerMethods ran once).
Registry& benchRegistry();
/// \brief Parses "a/b,c" (a bare method name picks all its variants); error message names what is unknown.
Status parseMethodList(const std::string& text, std::vector<const MethodInfo*>& out);
/// \brief The picked methods when --methods was given, else the registry's entries that pass `byDefault` and have an
/// implementation for the devices the section times (`sectionDefault` unless --device).
std::vector<const MethodInfo*> methodsFor(const BenchContext& c, DeviceChoice sectionDefault,
                                          const std::function<bool(const MethodInfo&)>& byDefault);
/// \brief The devices to time `m` on in a section whose default is `sectionDefault`: only implemented ones, the GPU
/// only when usable (a note on stdout says what was skipped and why).
std::vector<Device> devicesFor(const BenchContext& c, const MethodInfo& m, DeviceChoice sectionDefault);
/// \brief The method's parameters where it has the key: registry defaults, --threads, --param values, with `extra`
/// over them (extraWins: a row's own setting such as simd=avx2) or under them (a section's defaults); checked
/// against the specs.
Status paramsFor(const BenchContext& c, const MethodInfo& m, ParamValues& out,
                 const std::map<std::string, std::string>& extra = {}, bool extraWins = true);
/// \brief "ec/wavefront", "ec/wavefront (gpu)", with extra settings appended: "ec/wavefront simd=avx2".
std::string rowName(const MethodInfo& m, Device d, const std::string& settings = {});

/// \brief One timed method on one plane.
struct Timed {
    double seconds = -1;  ///< median wall time; negative when the method failed
    std::string error;    ///< the method's message when it failed
    Plane8 out;           ///< the result of the last run
    Progress last;        ///< the last progress report (DBS: iteration, error)
};
/// \brief Runs the method's PlaneFunction for `device` once untimed (warm-up, when warmup), then `runs` timed runs;
/// `threads` goes to RunControl::threads (0 = all).
Timed timeMethod(const MethodInfo& m, Device device, const Plane8& src, const ParamValues& params, int runs,
                 bool warmup = true, int threads = 0);
/// \brief For exact error-diffusion methods: whether `out` equals the sequential reference of `src` with the
/// method's parameters ("yes" / "NO"); "-" for methods that promise no bit-exact result.
std::string exactness(const MethodInfo& m, const Plane8& src, const ParamValues& params, const Plane8& out);

// ---- Reference tools and helpers ----

/// \brief A deterministic natural-looking test plane (smooth shapes plus texture), the same in every run.
Plane8 syntheticPlane(int width, int height);
/// \brief FNV-1a hash of a plane's size and pixels (compares results without keeping them).
uint64_t planeHash(const Plane8& p);
/// \brief Median wall time in seconds of `runs` calls of fn (one untimed warm-up call first when warmup).
double medianSeconds(int runs, const std::function<void()>& fn, bool warmup = true);
/// \brief A reference tool run on a PGM file: netpbm's `pamditherbw -fs` or ImageMagick's `convert`.
struct ReferenceTool {
    std::string name;  ///< as printed: "pamditherbw -fs (netpbm)"
    std::string path;  ///< empty when not installed or disabled
};
/// \brief The reference tools of this run (netpbm and ImageMagick), with an empty path for those unavailable.
std::vector<ReferenceTool> referenceTools(const BenchContext& c);
/// \brief Times one tool converting the PGM `in` to the PBM `out` (median of runs, wall clock); negative when it
/// failed.
double timeTool(const ReferenceTool& tool, const std::string& in, const std::string& out, int runs);
/// \brief Writes `p` as a binary PGM (P5) through io/'s PNM writer (input for external tools too).
bool writePgmRaw(const std::string& path, const Plane8& p);
/// \brief Peak resident memory of this process in MiB.
double peakRssMiB();
/// \brief "12.3x": how many times faster `t` is than `reference` (both seconds); "-" when either is missing.
std::string ratioText(double reference, double t);
/// \brief "1.23" etc.
std::string fmt(double v, int digits = 2);
/// \brief Today's date and time, "2026-11-27 01:02 UTC".
std::string utcNow();

// ---- Sections (one function per bench_<name>.cpp) ----
int benchSizes(const BenchContext& c);     ///< bench_sizes.cpp: every picked method per image size, reference tools
int benchParallel(const BenchContext& c);  ///< bench_parallel.cpp: one image, SIMD and thread settings, files, memory
int benchDbs(const BenchContext& c);       ///< bench_dbs.cpp: DBS to convergence, CPU and GPU
int benchGpu(const BenchContext& c);       ///< bench_gpusection.cpp: device-resident GPU timings of registered methods
int benchPalette(const BenchContext& c);   ///< bench_palette.cpp: error diffusion to a palette against ImageMagick
int benchQuality(const BenchContext& c);   ///< bench_quality.cpp: quality measures and one-thread time of every method

/// \brief The child side of a memory run (halftone-bench --memory-run ...): runs one method once on a synthetic
/// plane and prints "seconds hash peak-KiB" on stdout. Returns the exit status.
int memoryRunChild(const std::string& id, const std::string& device, int side, const std::string& params);

}  // namespace halftone::bench
