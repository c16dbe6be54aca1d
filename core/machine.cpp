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

/// The process's cgroup folder for `controller` ("" = the v2 unified hierarchy) from /proc/self/cgroup, under the
/// usual mount points; "" when not found.
std::string cgroupDir(const std::string& controller) {
    std::ifstream in("/proc/self/cgroup");
    for (std::string line; std::getline(in, line);) {
        // "ID:CONTROLLERS:PATH"; v2 has ID 0 and no controllers
        const size_t a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (controller.empty() ? controllers.empty()
                               : ("," + controllers + ",").find("," + controller + ",") != std::string::npos) {
            const std::string root = controller.empty() ? "/sys/fs/cgroup" : "/sys/fs/cgroup/" + controller;
            // Inside a container the cgroup namespace makes the path "/"; the mount shows the group itself.
            return root + (path == "/" ? std::string() : path);
        }
    }
    return {};
}

/// The smallest positive value of `parse(first line of NAME)` over the v2 group and its parents (a limit set on a
/// parent, e.g. a Slurm job's, binds its children too); 0 when none has one.
template <typename T, typename Parse>
T smallestUpTheTree(const std::string& name, Parse parse) {
    T best = 0;
    std::string dir = cgroupDir("");
    while (!dir.empty() && dir.size() >= std::string("/sys/fs/cgroup").size()) {
        if (const T v = parse(firstLine(dir + "/" + name)); v > 0 && (best == 0 || v < best)) best = v;
        if (dir == "/sys/fs/cgroup") break;
        dir = dir.substr(0, dir.find_last_of('/'));
    }
    return best;
}

int readAvailableCpus() {
    int cpus = 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) cpus = CPU_COUNT(&set);
    if (cpus <= 0) cpus = int(std::max(1u, std::thread::hardware_concurrency()));
    int quota = 0;
    quota = smallestUpTheTree<int>("cpu.max", cpusFromCpuMax);
    if (quota == 0)
        if (const std::string v1 = cgroupDir("cpu"); !v1.empty()) {
            const long long q = std::atoll(firstLine(v1 + "/cpu.cfs_quota_us").c_str());
            const long long p = std::atoll(firstLine(v1 + "/cpu.cfs_period_us").c_str());
            if (q > 0 && p > 0) quota = int((q + p - 1) / p);
        }
    if (quota > 0) cpus = std::min(cpus, quota);
    return std::max(1, cpus);
}

uint64_t readCgroupMemoryLimit() {
    if (const uint64_t b = smallestUpTheTree<uint64_t>("memory.max", bytesFromMemoryMax); b > 0) return b;
    if (const std::string v1 = cgroupDir("memory"); !v1.empty())
        return bytesFromMemoryMax(firstLine(v1 + "/memory.limit_in_bytes"));
    return 0;
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

uint64_t cgroupMemoryLimit() {
    static const uint64_t bytes = readCgroupMemoryLimit();
    return bytes;
}

}  // namespace halftone
