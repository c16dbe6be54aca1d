#pragma once
// \brief How many threads a parallel method runs on: one rule for the CPU methods, the schedules and the
// benchmark (a thread count of 0 means every hardware thread, as RunControl::threads documents).
#include "core/machine.h"

namespace halftone {

/// \brief The processors this process may use, at least 1: the CPU affinity mask (taskset, cpusets) and the
/// cgroup's CPU quota (containers, Slurm), not the machine's count (core/machine.h).
inline int hardwareThreads() { return availableCpus(); }

/// \brief `requested` when it is positive, else every hardware thread.
inline int threadsOrAll(int requested) { return requested > 0 ? requested : hardwareThreads(); }

}  // namespace halftone
