#pragma once
// \brief A memory budget in bytes, checked before anything large is allocated.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cctype>
#include <cstdio>
#include <limits>
#include <string>

#include "core/machine.h"
#include "core/status.h"

namespace halftone {

/// \brief Saturating a + b and a * b for byte counts (a budget never wraps around).
inline uint64_t addBytes(uint64_t a, uint64_t b) {
    return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}
inline uint64_t mulBytes(uint64_t a, uint64_t b) {
    if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return std::numeric_limits<uint64_t>::max();
    return a * b;
}

/// \brief "1.5 GB", "300 MB", "12 KB", "17 bytes" (decimal units, as a person reads them).
inline std::string formatBytes(uint64_t bytes) {
    char buf[64];
    if (bytes >= 1000ull * 1000 * 1000 * 1000)
        std::snprintf(buf, sizeof buf, "%.1f TB", double(bytes) / 1e12);
    else if (bytes >= 1000ull * 1000 * 1000)
        std::snprintf(buf, sizeof buf, "%.1f GB", double(bytes) / 1e9);
    else if (bytes >= 1000ull * 1000)
        std::snprintf(buf, sizeof buf, "%.0f MB", double(bytes) / 1e6);
    else if (bytes >= 1000)
        std::snprintf(buf, sizeof buf, "%.0f KB", double(bytes) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    return buf;
}

/// \brief Default memory limit: half of the memory this process may use (physical memory, or the cgroup's limit when
/// lower: containers, Slurm; core/machine.h), and at most half of the address-space limit (ulimit -v) when one is set,
/// so that a refusal comes before the allocator fails.
inline uint64_t defaultMaxMemory() {
    uint64_t limit = std::numeric_limits<uint64_t>::max();
    const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0) limit = mulBytes(uint64_t(pages), uint64_t(pageSize)) / 2;
    if (const uint64_t cgroup = cgroupMemoryLimit(); cgroup > 0) limit = std::min(limit, cgroup / 2);
    struct rlimit rl {};
    if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        limit = std::min<uint64_t>(limit, uint64_t(rl.rlim_cur) / 2);
    return limit == std::numeric_limits<uint64_t>::max() ? (uint64_t(4) << 30) : limit;
}

/// \brief Parses a byte count: "4000000000", "512M", "8G", "1.5GB", "2T" (decimal units; K, M, G, T,
/// optionally followed by B). False when the text is not such a count or is zero.
inline bool parseBytes(const std::string& text, uint64_t& out) {
    size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (...) {
        return false;
    }
    std::string unit = text.substr(used);
    for (char& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (unit.size() == 2 && unit[1] == 'B') unit.pop_back();
    double scale = 1;
    if (unit == "K")
        scale = 1e3;
    else if (unit == "M")
        scale = 1e6;
    else if (unit == "G")
        scale = 1e9;
    else if (unit == "T")
        scale = 1e12;
    else if (!unit.empty() && unit != "B")
        return false;
    const double bytes = v * scale;
    if (!(bytes >= 1) || bytes >= 1.8e19) return false;
    out = uint64_t(bytes);
    return true;
}

/// \brief Checks `bytes` (what `what` needs) against `limit`; the message says how to raise it.
inline Status checkMemory(uint64_t bytes, uint64_t limit, const std::string& what) {
    if (bytes <= limit) return Status::ok();
    return Status::error(what + " needs " + formatBytes(bytes) + ", over the memory limit of " + formatBytes(limit) +
                         "; raise it with --max-memory if this machine has the memory");
}

}  // namespace halftone
