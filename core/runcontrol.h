#pragma once
// \brief Progress reporting and cancellation for long jobs, free of Qt.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace halftone {

/// \brief A snapshot of how far a running job is.
struct Progress {
    double fraction = 0.0;  ///< 0..1 over the whole job
    std::string stage;      ///< e.g. "channel 2/3" or "iteration 4"
    /// Wavefront position for live scheduling views: rows [0, rowsDone) are finished and
    /// row `rowsDone + r` has `frontier[r]` columns done, for the rows in flight (may be empty).
    int64_t rowsDone = -1;
    std::vector<int32_t> frontier;
    /// Method-specific counters (DBS: iteration, moves, error); NaN/-1 when unused.
    int iteration = -1;
    int64_t moves = -1;
    double error = -1.0;
};

/// \brief Shared cancellation flag; cheap to copy, checked by workers per row or step.
class StopToken {
public:
    StopToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
    void requestStop() const { flag_->store(true, std::memory_order_relaxed); }
    bool stopRequested() const { return flag_->load(std::memory_order_relaxed); }

private:
    std::shared_ptr<std::atomic<bool>> flag_;
};

/// \brief Passed to every long operation: where to report progress and how to learn of a cancel.
struct RunControl {
    std::function<void(const Progress&)> onProgress;  ///< may be empty; called from worker threads
    StopToken stop;
    int threads = 0;  ///< 0 = all hardware threads

    bool cancelled() const { return stop.stopRequested(); }
    void report(double fraction, const std::string& stage = {}) const {
        if (onProgress) {
            Progress p;
            p.fraction = fraction;
            p.stage = stage;
            onProgress(p);
        }
    }
    void report(const Progress& p) const {
        if (onProgress) onProgress(p);
    }
    /// \brief A control whose progress maps [0,1] onto [lo,hi] of this one (same stop token).
    RunControl scaled(double lo, double hi, std::string stagePrefix = {}) const {
        RunControl c;
        c.stop = stop;
        c.threads = threads;
        if (onProgress) {
            auto parent = onProgress;
            c.onProgress = [parent, lo, hi, stagePrefix](const Progress& p) {
                Progress q = p;
                q.fraction = lo + (hi - lo) * p.fraction;
                if (!stagePrefix.empty()) q.stage = p.stage.empty() ? stagePrefix : stagePrefix + ", " + p.stage;
                parent(q);
            };
        }
        return c;
    }
};

}  // namespace halftone
