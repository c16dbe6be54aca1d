#pragma once
// \brief The one schedule model: which pixels or blocks run at each step of a parallel method.
// Used by the CPU parallel code, the GPU launch plans, the dependency tests and the studio's view.
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/ed/kernel.h"
#include "core/status.h"

namespace halftone {

struct ClassMatrix;

/// \brief Options a schedule may use (block size, delay, threads).
struct ScheduleOptions {
    int blockWidth = 0;   ///< 0 = the method's default (e.g. 32 for parallelogram blocks)
    int blockHeight = 0;  ///< 0 = the method's default
    int delay = 0;        ///< k of k-delay; 0 = kernel's minimalDelay()
    int threads = 0;      ///< for CPU block methods that size blocks by thread count; 0 = hardware
    int levels = 2;       ///< output levels: the GPU wavefront runs its fast form for binary Floyd-Steinberg
};

/// \brief A concrete schedule for one image size and kernel.
struct Schedule {
    std::string name;  ///< e.g. "raster", "serpentine", "k-delay", "knight", "parallelogram", ...
    std::string description;
    int width = 0, height = 0;  ///< image size in pixels
    int steps = 0;              ///< number of steps
    /// Step at which each pixel is processed (width x height). Pixels of one step may run in parallel.
    PlaneT<int32_t> pixelStep;
    /// Unit (block) id of each pixel, -1 for pixel schedules where each pixel is its own unit.
    PlaneT<int32_t> pixelUnit;
    int units = 0;                     ///< number of blocks (or pixels)
    std::vector<int32_t> unitStep;     ///< step of each unit
    std::vector<int64_t> parallelism;  ///< units processed at each step (size = steps)
    /// Dot diffusion: the class matrix tiled over the image; pixel (i, j) runs at the step of its class and after
    /// its lower-class 8-neighbours, whatever the kernel (core/ed/dotdiffusion.h). Null for every other schedule.
    const ClassMatrix* classMatrix = nullptr;
    /// Order within a unit matters for block schedules: pixels of a unit are processed in raster
    /// order (serpentine for the serpentine schedule) after every unit of earlier steps.
};

/// \brief Geometry of a skewed-block schedule (parallelogram blocks of Kasagi, Nakano and Ito, trapezoid
/// blocks of Deshpande, Misra and Narayanan, wavefront bands): the image is cut into strips of `blockHeight` rows; in
/// local row r of a strip, block J covers columns [J*blockWidth - skew*r, J*blockWidth - skew*r + blockWidth) (clipped
/// to the image, so edge blocks are trapezoids). Block (I, J) has label stripOffset*I + J; blocks with one label are
/// independent.
struct BlockGeometry {
    int blockWidth = 1;
    int blockHeight = 1;
    int skew = 0;  ///< columns each row is shifted left against the row above
    int stripOffset =
        1;           ///< label distance between strips (3 for Kasagi, Nakano and Ito's FS blocks, 2 = knight order)
    int strips = 0;  ///< ceil(height / blockHeight)
    int blocksPerStrip = 0;  ///< block columns J = 0 .. blocksPerStrip-1 (some may be empty at the edges)

    int label(int strip, int block) const { return stripOffset * strip + block; }
    /// \brief Block column J of pixel (row, col).
    int blockOf(int row, int col) const;
    /// \brief First column (unclipped) of block J in local row r of its strip.
    int64_t columnBegin(int block, int localRow) const {
        return int64_t(block) * blockWidth - int64_t(skew) * localRow;
    }
};

/// \brief What a schedule is without per-pixel planes: cheap for any image size (32K x 32K included).
/// The CPU parallel code and the GPU launch plans use this; makeSchedule() adds the planes.
struct SchedulePlan {
    std::string name;
    std::string description;
    int width = 0, height = 0;
    bool blocks = false;          ///< block schedule (geometry valid) or pixel schedule
    bool sequentialRows = false;  ///< raster / serpentine: one pixel per step
    int delay = 0;                ///< k of the pixel wavefront (k-delay, knight) and of in-block wavefronts
    BlockGeometry geometry;       ///< valid when blocks
    int64_t steps = 0;
    /// For block schedules: non-empty labels in order; step s runs the blocks of label stepLabel[s].
    std::vector<int32_t> stepLabel;
    /// Dot diffusion: the class matrix whose class c is step c (see Schedule::classMatrix).
    const ClassMatrix* classMatrix = nullptr;
};

/// \brief Plans schedule `name` for a width x height image (no per-pixel memory).
Status planSchedule(const std::string& name, int width, int height, const Kernel& kernel,
                    const ScheduleOptions& options, SchedulePlan& out);

/// \brief Smallest label distance between strips so that every source block of a skewed-block
/// geometry has a smaller label than its receiver (or is the receiver itself, in raster order).
int minimalStripOffset(const Kernel& kernel, int blockWidth, int blockHeight, int skew);

/// \brief True when block (strip, J) of the geometry contains at least one pixel of a width x height image.
bool blockNonEmpty(const BlockGeometry& g, int strip, int block, int width, int height);

/// \brief Smallest k at which no two pixels of one k-delay step diffuse error into the same pixel: what
/// pushing errors (diffusion) needs without atomics, where pulling them (collection) needs only
/// kernel.minimalDelay() (Kasagi, Nakano and Ito, section IV: 3-delay PED for Floyd-Steinberg). 0 when two
/// taps have the same offset.
int conflictFreeDelay(const Kernel& kernel);

/// \brief True when the GPU wavefront kernel runs its fast form (core/ed/gpustrips.h: kFast) for this kernel and level
/// count, else its general form (kGeneral).
bool gpuWavefrontFast(const Kernel& kernel, int levels);

/// \brief Names of every schedule the model knows, for lists in the CLI and the studio.
std::vector<std::string> scheduleNames();

/// \brief Builds the schedule `name` for a width x height image and a kernel.
Status makeSchedule(const std::string& name, int width, int height, const Kernel& kernel,
                    const ScheduleOptions& options, Schedule& out);

/// \brief Checks that every pixel is processed exactly once and strictly after all its sources
/// (for pixel schedules) or, for block schedules, in an order consistent with raster order inside a unit.
/// A dot-diffusion schedule's sources are the lower-class 8-neighbours of its class matrix, not the kernel's taps.
Status verifySchedule(const Schedule& s, const Kernel& kernel, bool serpentine = false);

}  // namespace halftone
