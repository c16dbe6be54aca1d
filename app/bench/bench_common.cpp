// Helpers shared by the halftone-bench sections.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "app/bench/bench.h"
#include "io/imagefile.h"

namespace halftone::bench {

Plane8 syntheticPlane(int w, int h) {
    // separable smooth shapes, a texture and deterministic noise: cheap enough for 32K x 32K
    const size_t nw = size_t(w), nh = size_t(h);
    std::vector<double> sx(nw), cx(nw), sy(nh), cy(nh), ey(nh);
    for (int x = 0; x < w; ++x) {
        sx[size_t(x)] = std::sin(6.1 * x / w);
        cx[size_t(x)] = std::cos(6.1 * x / w);
    }
    for (int y = 0; y < h; ++y) {
        sy[size_t(y)] = std::sin(2.3 * y / h);
        cy[size_t(y)] = std::cos(2.3 * y / h);
        ey[size_t(y)] = 70 * std::cos(4.7 * y / h);
    }
    Plane8 p(w, h);
    uint32_t rng = 12345u;
    for (int y = 0; y < h; ++y) {
        uint8_t* row = p.row(y);
        for (int x = 0; x < w; ++x) {
            rng = rng * 1664525u + 1013904223u;
            const double v = 128 + ey[size_t(y)] * (sx[size_t(x)] * cy[size_t(y)] + cx[size_t(x)] * sy[size_t(y)]) +
                             double(((x >> 4) ^ (y >> 4)) & 31) + double(int(rng >> 27)) - 31;
            row[x] = uint8_t(std::clamp(v, 0.0, 255.0));
        }
    }
    return p;
}

double medianSeconds(int runs, const std::function<void()>& fn, bool warmup) {
    if (warmup) fn();
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto a = std::chrono::steady_clock::now();
        fn();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

std::string findPamditherbw() {
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
        const std::string p = std::string(dir) + "/pamditherbw";
        if (access(p.c_str(), X_OK) == 0) return p;
    }
    return {};
}

bool writePgmRaw(const std::string& path, const Plane8& p) { return bool(io::writeImage(path, Image::gray(p))); }

double timePamditherbw(const std::string& tool, const std::string& in, const std::string& out, int runs) {
    bool failed = false;
    const double t = medianSeconds(
        runs,
        [&] {
            std::fflush(nullptr);  // the child must not inherit (and later flush) our buffered output
            const pid_t pid = fork();
            if (pid == 0) {
                const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                if (fd < 0 || dup2(fd, 1) < 0) _exit(127);
                execl(tool.c_str(), "pamditherbw", "-fs", in.c_str(), static_cast<char*>(nullptr));
                _exit(127);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = true;
        },
        false);
    return failed ? -1.0 : t;
}

double peakRssMiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) / 1024.0;
}

std::string fmt(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

}  // namespace halftone::bench
