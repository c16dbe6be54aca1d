#pragma once
// \brief How many threads a parallel method runs on: one rule for the CPU methods, the schedules and the
// benchmark (a thread count of 0 means every hardware thread, as RunControl::threads documents).
#include <thread>

namespace halftone {

/// \brief The hardware threads of this machine, at least 1 (std::thread::hardware_concurrency may answer 0).
inline int hardwareThreads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : int(n);
}

/// \brief `requested` when it is positive, else every hardware thread.
inline int threadsOrAll(int requested) { return requested > 0 ? requested : hardwareThreads(); }

}  // namespace halftone
