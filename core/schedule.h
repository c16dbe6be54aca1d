#pragma once
// \brief The one schedule model: which pixels or blocks run at each step of a parallel method.
// Used by the CPU parallel code, the GPU launch plans, the dependency tests and the studio's view.
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/kernel.h"
#include "core/status.h"

namespace halftone {

/// \brief Options a schedule may use (block size, delay, threads).
struct ScheduleOptions {
    int blockWidth = 0;   ///< 0 = the method's default (e.g. 32 for parallelogram blocks)
    int blockHeight = 0;  ///< 0 = the method's default
    int delay = 0;        ///< k of k-delay; 0 = kernel's minimalDelay()
    int threads = 0;      ///< for CPU block methods that size blocks by thread count; 0 = hardware
};

/// \brief A concrete schedule for one image size and kernel.
struct Schedule {
    std::string name;          ///< e.g. "raster", "serpentine", "k-delay", "knight", "parallelogram", ...
    std::string description;
    int width = 0, height = 0;  ///< image size in pixels
    int steps = 0;              ///< number of steps
    /// Step at which each pixel is processed (width x height). Pixels of one step may run in parallel.
    PlaneT<int32_t> pixelStep;
    /// Unit (block) id of each pixel, -1 for pixel schedules where each pixel is its own unit.
    PlaneT<int32_t> pixelUnit;
    int units = 0;                          ///< number of blocks (or pixels)
    std::vector<int32_t> unitStep;          ///< step of each unit
    std::vector<int64_t> parallelism;       ///< units processed at each step (size = steps)
    /// Order within a unit matters for block schedules: pixels of a unit are processed in raster
    /// order (serpentine for the serpentine schedule) after every unit of earlier steps.
};

/// \brief Names of every schedule the model knows, for lists in the CLI and the studio.
std::vector<std::string> scheduleNames();

/// \brief Builds the schedule `name` for a width x height image and a kernel.
Status makeSchedule(const std::string& name, int width, int height, const Kernel& kernel,
                    const ScheduleOptions& options, Schedule& out);

/// \brief Checks that every pixel is processed exactly once and strictly after all its sources
/// (for pixel schedules) or, for block schedules, in an order consistent with raster order inside a unit.
Status verifySchedule(const Schedule& s, const Kernel& kernel, bool serpentine = false);

}  // namespace halftone
