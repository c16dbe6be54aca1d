// Helpers shared by the halftone-bench sections: methods from the registry, timing, reference tools.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <sstream>

#include "app/bench/bench.h"
#include "core/ed/errordiffusion.h"
#include "gpu/gpu.h"
#include "io/imagefile.h"

namespace halftone::bench {

Registry& benchRegistry() {
    static Registry& r = []() -> Registry& {
        Registry& reg = Registry::instance();
        gpu::registerMethods(reg);
        return reg;
    }();
    return r;
}

Status parseMethodList(const std::string& text, std::vector<const MethodInfo*>& out) {
    const Registry& r = benchRegistry();
    out.clear();
    std::stringstream ss(text);
    std::string item;
    auto add = [&](const MethodInfo* m) {
        if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    };
    while (std::getline(ss, item, ',')) {
        if (item.empty()) continue;
        const size_t slash = item.find('/');
        if (slash == std::string::npos) {
            bool any = false;
            for (const MethodInfo& m : r.methods())
                if (m.method == item) {
                    add(&m);
                    any = true;
                }
            if (!any) return Status::error("unknown method '" + item + "' (halftone-bench --list shows the methods)");
            continue;
        }
        const MethodInfo* m = r.find(item.substr(0, slash), item.substr(slash + 1));
        if (!m) return Status::error("unknown method '" + item + "' (halftone-bench --list shows the methods)");
        add(m);
    }
    if (out.empty()) return Status::error("--methods names no method");
    return Status::ok();
}

std::vector<const MethodInfo*> methodsFor(const BenchContext& c, DeviceChoice sectionDefault,
                                          const std::function<bool(const MethodInfo&)>& byDefault) {
    if (!c.picked.empty()) return c.picked;
    const DeviceChoice want = c.device == DeviceChoice::SectionDefault ? sectionDefault : c.device;
    std::vector<const MethodInfo*> v;
    for (const MethodInfo& m : benchRegistry().methods()) {
        const bool runs = (want != DeviceChoice::Gpu && m.cpu) || (want != DeviceChoice::Cpu && m.gpu);
        if (runs && byDefault(m)) v.push_back(&m);
    }
    return v;
}

std::vector<Device> devicesFor(const BenchContext& c, const MethodInfo& m, DeviceChoice sectionDefault) {
    const DeviceChoice want = c.device == DeviceChoice::SectionDefault ? sectionDefault : c.device;
    std::vector<Device> d;
    const bool wantCpu = want == DeviceChoice::Cpu || want == DeviceChoice::All;
    const bool wantGpu = want == DeviceChoice::Gpu || want == DeviceChoice::All;
    if (wantCpu && m.cpu) d.push_back(Device::Cpu);
    if (wantGpu && m.gpu) {
        const GpuAvailability& a = benchRegistry().gpuAvailability();
        if (a.usable)
            d.push_back(Device::Gpu);
        else if (!c.picked.empty() || want == DeviceChoice::Gpu)
            std::printf("(%s on the GPU skipped: %s)\n", m.id().c_str(), a.reason.c_str());
    }
    if (d.empty() && !c.picked.empty() && !(wantGpu && m.gpu))
        std::printf("(%s skipped: it has no %s implementation)\n", m.id().c_str(), wantCpu ? "CPU" : "GPU");
    return d;
}

Status paramsFor(const BenchContext& c, const MethodInfo& m, ParamValues& out,
                 const std::map<std::string, std::string>& extra, bool extraWins) {
    out = ParamValues();
    std::map<std::string, std::string> all = extraWins ? std::map<std::string, std::string>() : extra;
    if (c.threads > 0 && m.param("threads")) all["threads"] = std::to_string(c.threads);
    for (const auto& [k, v] : c.params) all[k] = v;
    if (extraWins)
        for (const auto& [k, v] : extra) all[k] = v;
    for (const auto& [key, text] : all) {
        const ParamSpec* spec = m.param(key);
        if (!spec) continue;
        ParamValue value;
        if (Status s = spec->parse(text, value); !s) return s;
        out.set(key, value);
    }
    return benchRegistry().resolveParams(m, out);
}

std::string rowName(const MethodInfo& m, Device d, const std::string& settings) {
    std::string s = m.id();
    if (d == Device::Gpu) s += " (gpu)";
    if (!settings.empty()) s += " " + settings;
    return s;
}

Timed timeMethod(const MethodInfo& m, Device device, const Plane8& src, const ParamValues& params, int runs,
                 bool warmup, int threads) {
    Timed t;
    const PlaneFunction& fn = device == Device::Gpu ? m.gpu : m.cpu;
    if (!fn) {
        t.error = std::string("no ") + toString(device) + " implementation";
        return t;
    }
    std::mutex mu;
    RunControl rc;
    rc.threads = threads;
    rc.onProgress = [&](const Progress& p) {
        std::lock_guard<std::mutex> lock(mu);
        if (p.iteration >= 0 || t.last.iteration < 0) t.last = p;
    };
    Status status;
    t.seconds = medianSeconds(
        runs,
        [&] {
            if (!status) return;
            status = fn(src, t.out, params, rc);
        },
        warmup);
    if (!status) {
        t.seconds = -1;
        t.error = status.message();
    }
    return t;
}

std::string exactness(const MethodInfo& m, const Plane8& src, const ParamValues& params, const Plane8& out) {
    if (m.exact && m.reference) {
        // A method with its own sequential reference (dot diffusion): compared with that.
        Plane8 ref;
        if (!m.reference(src, ref, params, {})) return "-";
        return out == ref ? "yes" : "NO";
    }
    if (!m.exact || m.family != "error-diffusion") return "-";
    // One reference per image and parameter set: the sequential SPEC transcription is slow.
    static std::map<std::pair<uint64_t, std::string>, Plane8> cache;
    const EdParams p = edParamsFrom(params);
    const std::string key = p.kernel + "/" + std::to_string(p.levels) + "/" + std::to_string(p.linear) + "/" +
                            std::to_string(p.serpentine) + "/" + std::to_string(src.width) + "x" +
                            std::to_string(src.height);
    const uint64_t h = planeHash(src);
    auto it = cache.find({h, key});
    if (it == cache.end()) {
        if (cache.size() > 4) cache.clear();
        it = cache.emplace(std::make_pair(h, key), referenceErrorDiffusion(src, p)).first;
    }
    return out == it->second ? "yes" : "NO";
}

uint64_t planeHash(const Plane8& p) {
    uint64_t h = 1469598103934665603ull ^ (uint64_t(uint32_t(p.width)) << 32 | uint32_t(p.height));
    for (uint8_t v : p.data) h = (h ^ v) * 1099511628211ull;
    return h;
}

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

namespace {

std::string findTool(const char* name) {
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
        const std::string p = std::string(dir) + "/" + name;
        if (access(p.c_str(), X_OK) == 0) return p;
    }
    return {};
}

}  // namespace

std::vector<ReferenceTool> referenceTools(const BenchContext& c) {
    // ImageMagick is called as /usr/bin/convert: the first `convert` on PATH may be something else.
    return {{"pamditherbw -fs (netpbm)", c.usePamditherbw ? findTool("pamditherbw") : std::string()},
            {"convert -dither FloydSteinberg (ImageMagick)",
             c.useConvert && access("/usr/bin/convert", X_OK) == 0 ? std::string("/usr/bin/convert") : std::string()}};
}

double timeTool(const ReferenceTool& tool, const std::string& in, const std::string& out, int runs) {
    if (tool.path.empty()) return -1;
    const bool netpbm = tool.path.find("pamditherbw") != std::string::npos;
    bool failed = false;
    const double t = medianSeconds(
        runs,
        [&] {
            std::fflush(nullptr);  // the child must not inherit (and later flush) buffered output
            const pid_t pid = fork();
            if (pid == 0) {
                const int devnull = open("/dev/null", O_WRONLY);
                if (devnull >= 0) dup2(devnull, 2);
                if (netpbm) {
                    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                    if (fd < 0 || dup2(fd, 1) < 0) _exit(127);
                    execl(tool.path.c_str(), "pamditherbw", "-fs", in.c_str(), static_cast<char*>(nullptr));
                } else {
                    execl(tool.path.c_str(), "convert", in.c_str(), "-colorspace", "Gray", "-dither", "FloydSteinberg",
                          "-monochrome", out.c_str(), static_cast<char*>(nullptr));
                }
                _exit(127);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = true;
        },
        false);
    return failed ? -1.0 : t;
}

bool writePgmRaw(const std::string& path, const Plane8& p) { return bool(io::writeImage(path, Image::gray(p))); }

double peakRssMiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) / 1024.0;
}

std::string ratioText(double reference, double t) {
    if (reference <= 0 || t <= 0) return "-";
    const double r = reference / t;
    return fmt(r, r >= 100 ? 0 : r >= 10 ? 1 : r >= 0.1 ? 2 : 4) + "x";
}

std::string fmt(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    return date;
}

}  // namespace halftone::bench
