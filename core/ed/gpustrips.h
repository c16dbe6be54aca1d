#pragma once
// \brief The shape of the GPU wavefront kernel's strip schedule, as plain constants: the kernels in gpu/ (built as
// C++17 by nvcc) and the schedule model in core/schedule/schedule.cpp both read them, so the model and the scheduling
// view show the schedule that runs. docs/design/gpu-wavefront.md explains the kernel.
//
// A warp owns a strip of `rows` consecutive rows; row rho of a strip processes column t - K rho at the strip's step t
// (the k-delay schedule of Kasagi, Nakano and Ito inside the strip), K = the kernel's minimal delay + `extraDelay`.
// Steps run in groups of `group`: before a group starting at step g0, the strip checks the errors of the row above it
// (the last rows of the strip above) in columns g0 + K - 1 .. g0 + K - 2 + group, and waits until they are published.
// So a strip runs a whole number of groups behind the strip above: groupLag().
namespace halftone::gpustrips {

/// \brief One form of the kernel: its strip shape.
struct Shape {
    int rowSets;        ///< rows each lane owns: a strip has 32 rowSets rows
    int extraDelay;     ///< steps between a row and the row below, beyond the kernel's minimal delay
    int chunk;          ///< steps per chunk: input refill, output flush and loop granularity
    int group;          ///< steps per boundary group: the strip above's words are checked once per group
    int warpsPerBlock;  ///< warps (strips running at once) per thread block
    constexpr int rows() const { return 32 * rowSets; }
    /// \brief K: steps between a row and the row below, for a kernel whose minimal delay is `minimalDelay`.
    constexpr int delay(int minimalDelay) const { return minimalDelay + extraDelay; }
};

/// \brief The fast form (binary Floyd-Steinberg only, gpu/ed/wavefront_fast.cuh): 32-row strips at Floyd-Steinberg's
/// minimal delay 2, boundary groups of 16 steps.
inline constexpr Shape kFast{1, 0, 32, 16, 4};
/// \brief The general form (every kernel, level count and input mode, gpu/ed/wavefront.cu): 64-row strips (two row sets
/// per lane) one step slower than the kernel's minimal delay, boundary groups of 8 steps.
inline constexpr Shape kGeneral{2, 1, 32, 8, 4};

/// \brief The palette kernel (error diffusion to a colour palette, gpu/palette/palette_wavefront.cu): 32-row strips at
/// the kernel's minimal delay, boundary groups of 8 steps, the cancel flag read once per chunk.
inline constexpr Shape kPalette{1, 0, 32, 8, 4};

/// \brief Groups a strip runs behind the strip above: group J of a strip starts once group J + groupLag - 1 of the
/// strip above has published the errors it checks (its last row, column g0 + K - 2 + group, runs at that strip's step
/// g0 + K - 2 + group + K (rows - 1)). Label distance between strips in the schedule model.
constexpr int groupLag(int group, int delay, int rows) { return 1 + (group - 2 + delay * rows) / group; }
/// \brief groupLag of a form for a kernel whose minimal delay is `minimalDelay`.
constexpr int groupLag(const Shape& s, int minimalDelay) { return groupLag(s.group, s.delay(minimalDelay), s.rows()); }

}  // namespace halftone::gpustrips
