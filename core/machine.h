#pragma once
// \brief What this process may use of the machine: processors (the CPU affinity mask and the cgroup's CPU quota) and
// memory (the cgroup's limit). Defaults of thread counts, batch jobs and memory budgets follow them, so that
// `taskset -c 0`, a container or a Slurm allocation is respected.
#include <cstdint>
#include <string>

namespace halftone {

/// \brief Processors this process may run on, at least 1: the smaller of the affinity mask's count
/// (sched_getaffinity) and the cgroup's quota (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us, rounded
/// up); the machine's count when neither is known. Read once per process.
int availableCpus();

/// \brief The cgroup's memory limit in bytes (cgroup v2 memory.max, v1 memory.limit_in_bytes), or 0 when there is
/// none. Read once per process.
uint64_t cgroupMemoryLimit();

/// \brief What a process's cgroups allow: processors (0 = no quota) and bytes (0 = no limit).
struct CgroupLimits {
    int cpus = 0;
    uint64_t memory = 0;
};

/// \brief The limits of the cgroups that `membership` (the text of /proc/self/cgroup) names, read under `root` (where
/// the cgroup file systems are mounted, /sys/fs/cgroup): the smallest over the process's group and its parents, from
/// cgroup v2 (`cpu.max`, `memory.max`; at the root, or at root/unified in the hybrid layout), else from v1
/// (`cpu.cfs_quota_us` / `cpu.cfs_period_us`, `memory.limit_in_bytes`, each controller's hierarchy mounted under its
/// controllers' names, "cpu,cpuacct").
CgroupLimits cgroupLimits(const std::string& membership, const std::string& root);

/// \brief Processors a cgroup v2 `cpu.max` text allows ("max 100000": 0 = no quota; "150000 100000": 2, rounded
/// up); 0 when the text is not such a line.
int cpusFromCpuMax(const std::string& text);

/// \brief Bytes a cgroup `memory.max` / `memory.limit_in_bytes` text allows; 0 for "max", for v1's "no limit"
/// value (near 2^63) and for text that is not a number.
uint64_t bytesFromMemoryMax(const std::string& text);

}  // namespace halftone
