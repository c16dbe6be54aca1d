#pragma once
// \brief The GPU module's plain C++ API: no CUDA types. Falls back (Status::unavailable) when no device is usable.
#include <string>
#include <vector>

#include "core/ed/errordiffusion.h"
#include "core/job/registry.h"

namespace halftone::gpu {

/// \brief Probes for a usable CUDA device once; the reason says why not (no driver, no GPU, not built). Waits for a
/// start-up that startInBackground() began instead of repeating it.
GpuAvailability probe();

/// \brief Starts the device on a background thread and returns at once: probes it, creates the CUDA context, loads the
/// wavefront kernel with a first tiny run and allocates the pinned staging memory. `likely` names the job that will
/// run (its kernel and levels pick the wavefront form to load); null loads both forms (a program that will run many
/// kinds of job, such as the studio). Later calls do nothing. A program calls it as soon as it knows a GPU method may
/// run (the CLI before reading the input, the studio at start), so the start-up overlaps other work; a program that
/// never calls it (or probe()) never creates a CUDA context.
void startInBackground(const EdParams* likely = nullptr);

/// \brief True once startInBackground() was called in this process.
bool startedInBackground();

/// \brief What the background start-up took, in seconds: all of it (-1 when it was not started) and its parts.
struct StartTimes {
    double total = -1;
    double context = 0;  ///< probe and CUDA context
    double kernels = 0;  ///< the first tiny run of each wavefront form loaded
    double staging = 0;  ///< the pinned staging memory
};

/// \brief The background start-up's times; waits for it to end.
StartTimes backgroundStartTimes();

/// \brief Seconds the background start-up took (probe, context, first run), or -1 when it was not started; waits for
/// it to end.
double backgroundStartSeconds();

/// \brief Frees the device buffers and pinned staging memory kept between runs (the next run allocates them again).
void releaseDeviceCache();

/// \brief Registers every GPU method (and attaches GPU paths to existing entries) and records availability.
void registerMethods(Registry& registry);

/// \brief One GPU error-diffusion method as the registry, the tests and the benchmark name it.
struct MethodSpec {
    std::string method;        ///< "ed" or "ec"
    std::string variant;       ///< e.g. "wavefront", "bwec-rc", "ped2-atomic-perm"
    std::string description;   ///< one line, naming the paper and section it follows
    bool allKernels = false;   ///< false: Floyd-Steinberg only
    bool cpuAssisted = false;  ///< handover/hybrid: part of the work runs on the CPU
    std::string schedule;      ///< what it runs in the schedule model (core/schedule/schedule.h)
};

/// \brief Every GPU method, the wavefront kernel ("wavefront") first, then the published methods it is compared with.
const std::vector<MethodSpec>& methods();

/// \brief Halftones one plane with the GPU method `variant`; dst is resized (kept when it has the right size).
/// The wavefront kernel runs host to host with its transfers overlapped: the input goes up in bands through pinned
/// staging memory while the kernel runs (each strip waits for its band) and finished bands come back as the kernel
/// goes on; its device buffers stay allocated between runs of the same size and parameters. Exact (docs/spec.md) for
/// every kernel/level/linear combination the method supports; otherwise Status::error. No usable device, out of memory
/// or a kernel error give Status::unavailable (callers fall back to the CPU). `form` picks the wavefront kernel's form
/// (see wavefrontForms()); empty = the fastest one compiled for the request (the fast form for binary Floyd-Steinberg,
/// the general form otherwise).
Status runPlane(const std::string& variant, const Plane8& src, Plane8& dst, const EdParams& params,
                const RunControl& control = {}, const std::string& form = {});

/// \brief Binary Floyd-Steinberg straight to 1-bit rows: PBM P4 layout, (W + 7) / 8 bytes per row, leftmost
/// pixel in the most significant bit, 1 = black (output 0), bits past the width 0. The wavefront's fast form writes
/// the bits on the device, so only W H / 8 bytes come back. Other kernels or level counts: Status::error;
/// no usable device: Status::unavailable.
Status runPlanePacked(const Plane8& src, std::vector<uint8_t>& rows, const EdParams& params,
                      const RunControl& control = {});

/// \brief Timings of one method on one plane (milliseconds, medians over `runs` warm runs).
struct Timing {
    double h2dMs = 0;         ///< host (pinned) -> device copy of the 8-bit input
    double deviceMs = 0;      ///< device-resident: input already on the device to output on the device (CUDA events)
    double d2hMs = 0;         ///< device -> host (pinned) copy of the output
    double endToEndMs = 0;    ///< host 8-bit in -> host out (pinned), host clock
    double overlappedMs = 0;  ///< wavefront only: end to end with chunked, overlapped transfers (0 = not measured)
    double packedEndToEndMs = 0;  ///< wavefront, binary FS: host 8-bit in -> host 1-bit rows out (0 = not measured)
    double packedD2hMs = 0;       ///< the 1-bit rows' device -> host copy
    int runs = 0;
    bool cpuAssisted = false;  ///< deviceMs includes CPU work (handover/hybrid), measured with the host clock
};

/// \brief Measures a method on `src` and returns the last result in `result` (may be null).
Status timePlane(const std::string& variant, const Plane8& src, const EdParams& params, int runs, Timing& timing,
                 Plane8* result = nullptr, const std::string& form = {});

/// \brief Error diffusion to a colour palette (docs/spec.md section 4) with the wavefront kernel, bit for bit the
/// sequential result: `rgb` holds three planes R, G, B (or one gray plane, used as R = G = B); `indices` gets each
/// pixel's palette index. Every kernel, 2..256 colours, gamma or linear light (params.levels is ignored). Serpentine
/// scans (no wavefront parallelism), images over 2^30 pixels, no usable device, out of memory or a kernel error give
/// Status::unavailable (callers run it on the CPU).
Status paletteErrorDiffusion(const Image& rgb, const Palette& palette, const EdParams& params, Plane8& indices,
                             const RunControl& control = {});

/// \brief Timings of paletteErrorDiffusion (h2dMs: the three planes; deviceMs: device-resident, planes on the device
/// to indices on the device; d2hMs: the indices; endToEndMs: host planes to host indices, pinned); the last result
/// goes to `result` (may be null).
Status timePalette(const Image& rgb, const Palette& palette, const EdParams& params, int runs, Timing& timing,
                   Plane8* result = nullptr);

/// \brief The forms of the wavefront kernel: "fast" (binary Floyd-Steinberg only, the default there) and "general"
/// (every kernel, level count and input mode).
std::vector<std::string> wavefrontForms();

}  // namespace halftone::gpu
