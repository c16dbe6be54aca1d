#pragma once
// \brief The parallel error-collection engine on the CPU that gray (core/ed/parallel.cpp) and palette
// (core/palette/paletteed_fast.cpp) error diffusion share: the compiled kernels and their taps, the trapezoid blocks of
// Deshpande, Misra and Narayanan (one step-block list, one barrier per block diagonal) and the wavefront bands (one
// band driver, progress counters with acquire/release, the error rows handed from band to band). Both engines run on
// the worker pool; only the per-pixel step differs (the L-level quantiser against the nearest-colour search).
#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/ed/kernel.h"
#include "core/ed/parallel.h"
#include "core/ed/parallel_kernels.h"
#include "core/runcontrol.h"
#include "core/schedule/schedule.h"
#include "core/status.h"
#include "core/workerpool.h"

namespace halftone::band {

// ---------------------------------------------------------------------------------------------
// Compiled kernels

/// \brief Index of `k` in the compile-time kernel table (core/ed/kerneltable.h), checked tap by tap; -1 when none.
int compiledKernelId(const Kernel& k);

/// \brief Calls f(std::integral_constant<int, KID>) for the compiled fixed kernel `id` and returns its result.
template <class F>
auto withKernelId(int id, F&& f) {
    return [&]<int... I>(std::integer_sequence<int, I...>) {
        decltype(f(std::integral_constant<int, 0>{})) r{};
        (void)((id == I ? (r = f(std::integral_constant<int, I>{}), true) : false) || ...);
        return r;
    }
    (std::make_integer_sequence<int, par::kKernelCount>());
}

/// \brief Tap I of kernel KID as a compile-time constant.
template <int KID, int I>
constexpr par::CTap tapOf() {
    return par::ckernel<KID>().taps[I];
}

/// \brief Calls f(std::integral_constant<int, I>) for every tap I of kernel KID, unrolled.
template <int KID, class F>
inline __attribute__((always_inline)) void forTaps(F&& f) {
    [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }
    (std::make_integer_sequence<int, par::ckernel<KID>().count>());
}

/// \brief floor((a + D/2) / D) for the divisor D of kernel KID: a shift when D is a power of two.
template <int KID>
inline int32_t divideSum(int32_t a) {
    constexpr int d = par::ckernel<KID>().divisor;
    if constexpr (par::isPow2(d))
        return (a + d / 2) >> par::log2i(d);
    else
        return floorDiv(a + d / 2, d);
}

/// \brief Error collection along one row, columns [x0, x1) in raster order, for a fixed kernel: rows[d] is the error
/// row of image row y - d (Step::kChannels values a pixel, interleaved, with zero margins; rows above the image are
/// zero). step(x, s, e) is the per-pixel step: it takes the divided error sums s and writes the pixel's errors e.
template <int KID, class Step>
inline void collectRow(int16_t* const* rows, int x0, int x1, Step& step) {
    constexpr int C = Step::kChannels;
    for (int x = x0; x < x1; ++x) {
        int32_t s[C] = {}, e[C];
        forTaps<KID>([&](auto I) {
            constexpr par::CTap t = tapOf<KID, decltype(I)::value>();
            const int16_t* p = rows[t.di] + C * (x - t.dj);
            for (int ch = 0; ch < C; ++ch) s[ch] += t.w * int32_t(p[ch]);
        });
        for (int ch = 0; ch < C; ++ch) s[ch] = divideSum<KID>(s[ch]);
        step(x, s, e);
        for (int ch = 0; ch < C; ++ch) rows[0][C * x + ch] = int16_t(e[ch]);
    }
}

/// \brief The threads a parallel method runs on: the option, else the run's, else every hardware thread; at least 1.
int threadsFor(const ParallelOptions& options, const RunControl& control);

/// \brief An error plane of int16 values with `channels` values a pixel: `top` zero rows above the image and `margin`
/// zero pixels either side of each row (|E| <= 4080 always, docs/spec.md section 1).
class ErrorPlane {
public:
    ErrorPlane(int width, int height, int top, int margin, int channels)
        : top_(top),
          offset_(size_t(channels) * size_t(margin)),
          stride_(size_t(channels) * (size_t(width) + 2 * size_t(margin))),
          data_(stride_ * (size_t(height) + size_t(top)), 0) {}
    /// \brief The first pixel of image row y (y >= -top).
    int16_t* row(int y) { return data_.data() + size_t(y + top_) * stride_ + offset_; }
    /// \brief rows[d] = row(y - d) for d = 0 .. top (up to 3).
    void rowsAt(int y, int16_t* rows[4]) {
        for (int d = 0; d < 4; ++d) rows[d] = d <= top_ ? row(y - d) : nullptr;
    }

private:
    int top_;
    size_t offset_, stride_;
    std::vector<int16_t> data_;
};

// ---------------------------------------------------------------------------------------------
// Deshpande, Misra and Narayanan, section 3.2: trapezoid blocks in knight's-move order, one barrier per block diagonal,
// error collection in raster order inside a block (the schedule "trapezoid" of core/schedule/schedule.h).

/// \brief One trapezoid run: its step-block list and the barrier its workers meet at after every step.
class TrapezoidRun {
public:
    /// \brief Plans the blocks of a width x height image for `kernel`.
    Status plan(int width, int height, const Kernel& kernel, const ParallelOptions& options, const RunControl& control);
    /// \brief Workers the run needs: the thread count, at most the widest step.
    int threads() const { return threads_; }

    /// \brief Called by every one of threads() workers: runs the blocks of each step as it claims them,
    /// segment(y, x0, x1) for each row of a block (columns [x0, x1) of row y, raster order), and meets the other
    /// workers after each step. Returns after the last step or once the run is cancelled.
    template <class Segment>
    void work(Segment&& segment) {
        for (const std::vector<std::pair<int, int>>& blocks : stepBlocks_) {
            if (stop_.load(std::memory_order_relaxed)) {
                barrier_->arrive_and_drop();
                return;
            }
            for (size_t b = next_.fetch_add(1); b < blocks.size(); b = next_.fetch_add(1)) {
                const auto [I, J] = blocks[b];
                const BlockGeometry& g = plan_.geometry;
                const int y0 = I * g.blockHeight, y1 = std::min(height_, y0 + g.blockHeight);
                for (int y = y0; y < y1; ++y) {
                    const int64_t c0 = g.columnBegin(J, y - y0);
                    const int x0 = int(std::max<int64_t>(0, c0));
                    const int x1 = int(std::min<int64_t>(width_, c0 + g.blockWidth));
                    if (x0 < x1) segment(y, x0, x1);
                }
            }
            barrier_->arrive_and_wait();
        }
    }

    /// \brief Runs perWorker(run) on threads() workers of the pool, each of which calls run.work(segment) once.
    template <class PerWorker>
    Status run(PerWorker&& perWorker) {
        WorkerPool::shared().run(threads_, [&](int) { perWorker(*this); });
        return finish();
    }

private:
    struct OnStep {
        TrapezoidRun* run;
        void operator()() noexcept { run->stepDone(); }
    };
    void stepDone() noexcept;
    Status finish();

    int width_ = 0, height_ = 0, threads_ = 1;
    const RunControl* control_ = nullptr;
    SchedulePlan plan_;
    std::vector<std::vector<std::pair<int, int>>> stepBlocks_;  ///< the blocks (strip, block) of each step
    std::unique_ptr<std::barrier<OnStep>> barrier_;
    std::atomic<bool> stop_{false};
    std::atomic<size_t> next_{0};
    size_t step_ = 0;
    std::chrono::steady_clock::time_point lastReport_;
};

// ---------------------------------------------------------------------------------------------
// Wavefront bands (the schedule "wavefront" of core/schedule/schedule.h): thread t owns bands t, t + T, ...; inside a
// band of B rows, step s processes column s - k r of band row r (Kasagi, Nakano and Ito's k-delay), and a band runs
// ahead as far as the progress counter of the band above allows (acquire/release, no barriers).

/// \brief The bands of one wavefront run, their progress counters, progress reports and cancel.
class WaveBands {
public:
    /// \brief Bands of `bandRows` rows over a width x height image for `kernel`, on at most `threads` threads;
    /// `steps` is the number of steps of a full band (progress reports count them).
    WaveBands(int width, int height, int bandRows, const Kernel& kernel, int threads, int64_t steps,
              const RunControl& control);

    int bands() const { return bands_; }
    int threads() const { return threads_; }
    int bandRows() const { return bandRows_; }
    /// \brief Slots of the hand-off rows: band b writes its last rows to slot b mod slots(), read by band b + 1. The
    /// slot's previous reader, band b - threads(), ran before on the same thread, so no slot is overwritten while read.
    int slots() const { return threads_ + 1; }

    /// \brief Waits until the band above has finished every pixel that steps [.., t1) of `band` read; reports
    /// progress; false when the run is cancelled.
    bool wait(int band, int64_t t1);
    /// \brief Steps [0, t1) of `band` are done and their error rows written.
    void publish(int band, int64_t t1) { progress_[size_t(band)].store(t1, std::memory_order_release); }

    /// \brief Runs the bands on the worker pool: makeBand(tid) is called once on each worker and returns a callable
    /// runBand(b) -> bool (false: cancelled) that the worker calls for its bands tid, tid + threads(), ...
    template <class MakeBand>
    Status run(MakeBand&& makeBand) {
        WorkerPool::shared().run(threads_, [&](int tid) {
            auto runBand = makeBand(tid);
            for (int b = tid; b < bands_; b += threads_) {
                if (!runBand(b)) {
                    abort_.store(true);
                    return;
                }
                publish(b, INT64_MAX / 2);
            }
        });
        return finish();
    }

private:
    void report();
    Status finish();

    int width_, height_, bandRows_, delay_, maxLeft_, bands_, threads_;
    int64_t steps_;
    const RunControl& control_;
    std::unique_ptr<std::atomic<int64_t>[]> progress_;  ///< steps done per band
    std::atomic<bool> abort_{false};
    std::atomic<int64_t> lastReportNs_{-1'000'000'000};
    std::chrono::steady_clock::time_point start_;
};

/// \brief The error rows handed from band to band: WaveBands::slots() slots of `rows` rows of `rowLength` values, each
/// row's first pixel `offset` values in (its zero margin).
template <class T>
class HandoffRows {
public:
    HandoffRows(int slots, int rows, size_t rowLength, size_t offset)
        : slots_(slots),
          rows_(rows),
          rowLength_(rowLength),
          offset_(offset),
          data_(size_t(slots) * size_t(rows) * rowLength, 0) {}
    /// \brief Row d of band `band`'s slot (d = 0: the band's last row).
    T* row(int band, int d) {
        return data_.data() + (size_t(band % slots_) * size_t(rows_) + size_t(d)) * rowLength_ + offset_;
    }

private:
    int slots_, rows_;
    size_t rowLength_, offset_;
    std::vector<T> data_;
};

}  // namespace halftone::band
