#pragma once
// \brief Persistent worker threads for the CPU methods that run many short parallel steps (DBS runs one
// per block group and iteration): threads are started once and reused, never spawned per step.
#include <cstdint>
#include <functional>
#include <string>

#include "core/runcontrol.h"

namespace halftone {

/// \brief A process-wide set of reusable worker threads.
///
/// `run(n, fn)` calls fn(0) .. fn(n - 1) at the same time, fn(0) on the calling thread and the others on
/// idle workers (a worker is started only when none is idle), and returns once all have finished. Callers
/// on different threads each get their own workers, so concurrent jobs neither wait for nor share one
/// another's threads, and the n calls of one run are truly concurrent (they may wait on each other).
/// An exception thrown by any fn(i) is rethrown by run() after every call has finished.
class WorkerPool {
public:
    /// \brief The pool shared by every caller in the process.
    static WorkerPool& shared();

    /// \brief Runs fn(0) .. fn(n - 1) concurrently and waits for all of them; n <= 0 does nothing.
    void run(int n, const std::function<void(int)>& fn);

    /// \brief Workers started so far (idle or busy); for tests.
    int started() const;

    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    ~WorkerPool();

private:
    WorkerPool();
    struct Worker;
    struct State;
    State* state_ = nullptr;
};

/// \brief Runs fn(begin, end, worker) over [0, count) in pieces of `chunk` that up to `threads` workers of the shared
/// pool claim in turn (worker < threads). Once `control` is cancelled no piece is claimed and the result is false.
/// Worker 0 reports the finished fraction to `control`, with `stage`.
bool parallelChunks(int64_t count, int64_t chunk, int threads, const RunControl& control, const std::string& stage,
                    const std::function<void(int64_t begin, int64_t end, int worker)>& fn);

}  // namespace halftone
