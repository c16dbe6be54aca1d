#pragma once
// \brief The lesson trace: error diffusion on a tiny image run step by step under a schedule of the schedule model,
// with every number a pixel reads, computes and sends (docs/teaching.md). A race runs a naive parallel order the way
// parallel hardware would: every pixel of a step reads the errors as they stood before the step, so a read of an
// error not yet written reads 0 and is flagged.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/image.h"
#include "core/schedule/schedule.h"
#include "core/status.h"

namespace halftone {

/// \brief Largest side of a lesson image: every number of every pixel is kept and shown.
inline constexpr int kLessonMaxSide = 32;

/// \brief An error passed between two pixels: the other pixel, the weight as the exact fraction
/// numerator / denominator of docs/spec.md, the error and its term of the receiver's sum.
struct LessonShare {
    int row = 0, col = 0;  ///< the sender (in LessonPixel::collected) or the receiver (in LessonPixel::sent)
    int numerator = 0;
    int denominator = 1;
    int32_t error = 0;  ///< the sender's error at scale 16 as read (0 for a read before the write)
    /// The term added to the receiver's sum: numerator x error where the sum is rounded once (error diffusion,
    /// Riemersma), the share rounded on its own where each is (dot diffusion).
    int32_t term = 0;
    /// A race: the receiver reads before the sender writes (collected: it read 0; sent: the error is lost).
    bool early = false;
};

/// \brief One pixel's arithmetic at its step (scale 16, docs/spec.md sections 1, 7 and 8).
struct LessonPixel {
    int row = 0, col = 0, step = 0;
    uint8_t input = 0;
    int32_t scaled = 0;  ///< A, the input at scale 16
    std::vector<LessonShare> collected;
    int32_t sum = 0;           ///< the sum of the collected terms
    int32_t correction = 0;    ///< the sum rounded as the method rounds it
    int32_t total = 0;         ///< S = A + correction
    int32_t perturbation = 0;  ///< Zhou and Fang's threshold modulation P (0 for other kernels)
    int level = 0;             ///< the level index k
    uint8_t output = 0;        ///< v_k
    int32_t target = 0;        ///< Q_k
    int32_t error = 0;         ///< the error this pixel sends
    std::vector<LessonShare> sent;
    int earlyReads = 0;  ///< collected errors read before they were written
};

/// \brief Block size (width, height) a lesson gives a block schedule so that a tiny image shows several blocks and
/// steps (the methods' own, such as 32 x 32, fill it whole); (0, 0) for the others.
std::pair<int, int> lessonBlockSize(const std::string& schedule);

/// \brief Threads a lesson sizes trapezoid blocks for (the same on every machine).
inline constexpr int kLessonThreads = 4;

/// \brief What a lesson runs: the schedule (a name of scheduleNames() or raceScheduleNames()), the kernel and levels.
struct LessonOptions {
    std::string schedule = "knight";
    std::string kernel = "floyd-steinberg";
    int levels = 2;
    /// Allows the naive orders of raceScheduleNames(); an exact schedule run as a race shows no early read.
    bool race = false;
    /// Block sizes of 0 take lessonBlockSize(), threads 0 kLessonThreads.
    ScheduleOptions scheduleOptions;
};

/// \brief How much a schedule can run at once.
struct LessonStats {
    int steps = 0;
    int64_t maxParallelism = 0;  ///< the most units (pixels or blocks) of one step
    /// Pixel times with one processor per unit: the sum over steps of the largest number of pixels a unit of the
    /// step processes one after another (the number of non-empty steps for a pixel schedule).
    int64_t criticalPath = 0;
    /// The longest chain of dependencies of the arithmetic itself: no exact schedule has fewer pixel times.
    int64_t dependencyChain = 0;
};

/// \brief A traced lesson: every pixel's arithmetic in processing order, grouped by step.
struct LessonTrace {
    Schedule schedule;
    std::string arithmetic;  ///< "error diffusion, Floyd-Steinberg", "dot diffusion", "Riemersma"
    std::string kernel;      ///< the kernel name (error diffusion), else empty
    int levels = 2;
    bool race = false;
    Plane8 input;
    std::vector<LessonPixel> pixels;  ///< in processing order
    std::vector<size_t> stepBegin;    ///< pixels of step s: [stepBegin[s], stepBegin[s + 1])
    PlaneT<int32_t> order;            ///< each pixel's index in `pixels`
    Plane8 output;                    ///< the traced result
    Plane8 sequential;                ///< the sequential engine's result (the proof compares the two)
    int64_t differing = 0;            ///< pixels where output != sequential
    int64_t earlyReads = 0;           ///< reads of errors not yet written, over all pixels
    LessonStats stats;

    int steps() const { return int(stepBegin.empty() ? 0 : stepBegin.size() - 1); }
    const LessonPixel& at(int row, int col) const { return pixels[size_t(order.at(row, col))]; }
    /// \brief True when the final image equals the sequential one bit for bit.
    bool proved() const { return differing == 0; }
};

/// \brief The naive parallel orders a race runs: "rows" (every pixel of a row at once) and "2-delay" (pixel (i, j) at
/// step 2i + j whatever the kernel reaches).
std::vector<std::string> raceScheduleNames();

/// \brief Every schedule a lesson can run: scheduleNames() and then raceScheduleNames().
std::vector<std::string> lessonScheduleNames();

/// \brief A horizontal ramp from black to white, width x height, the default lesson image.
Plane8 lessonRamp(int width, int height);

/// \brief The width x height crop of the middle of `src` (the whole of a smaller side).
Plane8 lessonCrop(const Plane8& src, int width, int height);

/// \brief Runs the lesson: `src` at most kLessonMaxSide on each side.
Status traceLesson(const Plane8& src, const LessonOptions& options, LessonTrace& out);

/// \brief Palette entries of a lesson frame after the output levels (renderLessonFrame()).
enum class LessonInk : uint8_t { Grid, Step, Early, Differs, Pending };

/// \brief A lesson frame: the image after step `step` (-1: before the first), `cell` pixels a side per image pixel
/// with a one-pixel grid. Processed pixels show their output, pending ones a pale form of their input; the pixels of
/// the step are framed (red where they read an error early), and after the last step every pixel that differs from
/// the sequential result is crossed. An indexed RGB image: palette entries 0 .. levels - 1 are the output values,
/// then the inks of LessonInk, then 16 pending shades.
Image renderLessonFrame(const LessonTrace& trace, int step, int cell);

/// \brief A handout page: the frames of steps first .. last (at most `columns` x `rows` of them) in a grid on white,
/// with the palette of renderLessonFrame().
Image renderLessonPage(const LessonTrace& trace, int first, int last, int columns, int cell);

/// \brief Index of the first palette entry of `ink` in a lesson frame of `levels` levels.
int lessonInkIndex(int levels, LessonInk ink);

/// \brief Cell size of the frames of a lesson, so that a frame is about 480 pixels wide.
int lessonCellSize(int width, int height);

}  // namespace halftone
