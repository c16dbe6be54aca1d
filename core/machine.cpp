#include "core/machine.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace halftone {

namespace {

/// The first line of a small file, or "" when it cannot be read.
std::string firstLine(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (in) std::getline(in, line);
    return line;
}

/// The smallest positive `valueAt(folder)` over `dir` and its parents up to `top` (a limit set on a parent, e.g. a
/// Slurm job's, binds its children too); 0 when none has one.
template <typename T, typename ValueAt>
T smallestUpTheTree(std::string dir, const std::string& top, ValueAt valueAt) {
    T best = 0;
    while (dir.size() >= top.size()) {
        if (const T v = valueAt(dir); v > 0 && (best == 0 || v < best)) best = v;
        if (dir == top) break;
        dir = dir.substr(0, dir.find_last_of('/'));
    }
    return best;
}

/// The value `parse` reads from the first line of a cgroup folder's file `name`.
template <typename Parse>
auto fileValue(const std::string& name, Parse parse) {
    return [name, parse](const std::string& dir) { return parse(firstLine(dir + "/" + name)); };
}

/// Processors a cgroup v1 folder's cpu.cfs_quota_us / cpu.cfs_period_us allow, rounded up; 0 for no quota.
int cpusFromCfsQuota(const std::string& dir) {
    const long long q = std::atoll(firstLine(dir + "/cpu.cfs_quota_us").c_str());
    const long long p = std::atoll(firstLine(dir + "/cpu.cfs_period_us").c_str());
    return q > 0 && p > 0 ? int(std::min<long long>((q + p - 1) / p, 1 << 20)) : 0;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

CgroupLimits cgroupLimits(const std::string& membership, const std::string& root) {
    CgroupLimits limits;
    std::istringstream lines(membership);
    std::string v2Path, cpuHierarchy, cpuPath, memoryHierarchy, memoryPath;
    for (std::string line; std::getline(lines, line);) {
        // "ID:CONTROLLERS:PATH"; v2 has ID 0 and no controllers
        const size_t a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        // Inside a container the cgroup namespace makes the path "/": the mount shows the group itself.
        const std::string rel = path == "/" ? std::string() : path;
        if (controllers.empty()) v2Path = rel;
        if (("," + controllers + ",").find(",cpu,") != std::string::npos) {
            cpuHierarchy = controllers;
            cpuPath = rel;
        }
        if (("," + controllers + ",").find(",memory,") != std::string::npos) {
            memoryHierarchy = controllers;
            memoryPath = rel;
        }
    }
    // cgroup v2: the unified hierarchy at the root (or at root/unified beside v1's controllers, the hybrid layout).
    for (const std::string& top : {root, root + "/unified"}) {
        if (limits.cpus == 0)
            limits.cpus = smallestUpTheTree<int>(top + v2Path, top, fileValue("cpu.max", cpusFromCpuMax));
        if (limits.memory == 0)
            limits.memory = smallestUpTheTree<uint64_t>(top + v2Path, top, fileValue("memory.max", bytesFromMemoryMax));
    }
    // cgroup v1: each controller's own hierarchy, mounted under its controllers' names ("cpu,cpuacct").
    if (limits.cpus == 0 && !cpuHierarchy.empty())
        limits.cpus =
            smallestUpTheTree<int>(root + "/" + cpuHierarchy + cpuPath, root + "/" + cpuHierarchy, cpusFromCfsQuota);
    if (limits.memory == 0 && !memoryHierarchy.empty())
        limits.memory =
            smallestUpTheTree<uint64_t>(root + "/" + memoryHierarchy + memoryPath, root + "/" + memoryHierarchy,
                                        fileValue("memory.limit_in_bytes", bytesFromMemoryMax));
    return limits;
}

namespace {

/// The limits of this process's cgroups.
const CgroupLimits& processCgroupLimits() {
    static const CgroupLimits limits = cgroupLimits(readFile("/proc/self/cgroup"), "/sys/fs/cgroup");
    return limits;
}

int readAvailableCpus() {
    int cpus = 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) cpus = CPU_COUNT(&set);
    if (cpus <= 0) cpus = int(std::max(1u, std::thread::hardware_concurrency()));
    if (const int quota = processCgroupLimits().cpus; quota > 0) cpus = std::min(cpus, quota);
    return std::max(1, cpus);
}

}  // namespace

int cpusFromCpuMax(const std::string& text) {
    std::istringstream in(text);
    std::string quota;
    long long period = 0;
    if (!(in >> quota >> period) || period <= 0 || quota == "max") return 0;
    char* end = nullptr;
    errno = 0;
    const long long q = std::strtoll(quota.c_str(), &end, 10);
    if (errno != 0 || !end || *end != '\0' || q <= 0) return 0;
    return int(std::min<long long>((q + period - 1) / period, 1 << 20));
}

uint64_t bytesFromMemoryMax(const std::string& text) {
    if (text.empty() || text == "max") return 0;
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (errno != 0 || !end || (*end != '\0' && *end != '\n') || v == 0) return 0;
    // cgroup v1 writes "no limit" as the largest page-aligned signed 64-bit value
    if (v >= (uint64_t(1) << 62)) return 0;
    return uint64_t(v);
}

int availableCpus() {
    static const int cpus = readAvailableCpus();
    return cpus;
}

uint64_t cgroupMemoryLimit() { return processCgroupLimits().memory; }

}  // namespace halftone
