// Section "parallel": on one image, in one run, every picked method (by default every registered error-diffusion
// method) with its defaults, then once per SIMD path and once on one thread for the methods that take those
// parameters; then file in / file out as a user runs it (PGM in, PBM out through the io library and runImage) for
// the baseline and the fastest method (PBM out, PGM for more than two levels), against netpbm's `pamditherbw -fs` and
// ImageMagick's `convert`; then the
// --big sizes, each method in a child process so that its peak memory is its own. Ratios are from the same run.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

#include "app/bench/bench.h"
#include "core/threads.h"
#include "io/imagefile.h"

extern char** environ;

namespace halftone::bench {

namespace {

struct Result {
    std::string name;
    double seconds = -1;  // median
    std::string exact;    // "yes", "NO", "-"
};

std::string valueText(const ParamValue& v) {
    std::ostringstream s;
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, double>) {
                char b[40];
                std::snprintf(b, sizeof b, "%.17g", x);
                s << b;
            } else {
                s << x;
            }
        },
        v);
    return s.str();
}

struct ChildResult {
    double seconds = -1;
    unsigned long long hash = 0;
    double peakMiB = 0;
    std::string error;
};

/// What a child process wrote to one stream, how it ended and what it used; `error` set when it could not start.
struct Child {
    std::string output;
    int status = 0;
    rusage usage{};
    double wall = 0;  ///< seconds from its start to its end
    bool started = false;
    std::string error;  ///< why it did not start when that was before the start itself ("cannot create a pipe")
};

/// Runs `exe` with `args` (args[0] its name) and waits for it, reading what it writes to file descriptor `captured`
/// (1 or 2); with `quietStdout` its standard output goes to /dev/null.
Child runChild(const std::string& exe, std::vector<std::string> args, int captured, bool quietStdout) {
    Child c;
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    if (pipe(fds) != 0) {
        c.error = "cannot create a pipe";
        return c;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], captured);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    if (quietStdout) posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    std::fflush(nullptr);
    pid_t pid = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const int err = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (err != 0) {
        close(fds[0]);
        return c;
    }
    c.started = true;
    char buf[4096];
    for (ssize_t k; (k = read(fds[0], buf, sizeof buf)) > 0;) c.output.append(buf, size_t(k));
    close(fds[0]);
    wait4(pid, &c.status, 0, &c.usage);
    c.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return c;
}

/// Runs `halftone-bench --memory-run ...` and reads its time, result hash and peak resident memory (counted from
/// just before the input is made).
ChildResult memoryRun(const MethodInfo& m, Device d, int side, const ParamValues& params) {
    ChildResult r;
    std::vector<std::string> args = {"halftone-bench", "--memory-run",      m.id(), "--memory-device", toString(d),
                                     "--memory-size",  std::to_string(side)};
    for (const auto& [k, v] : params.all()) {
        args.push_back("--memory-param");
        args.push_back(k + "=" + valueText(v));
    }
    const Child c = runChild("/proc/self/exe", std::move(args), 1, false);
    if (!c.started) {
        r.error = c.error.empty() ? "cannot start a child process" : c.error;
        return r;
    }
    long long hwmKiB = 0;
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 ||
        std::sscanf(c.output.c_str(), "%lf %llu %lld", &r.seconds, &r.hash, &hwmKiB) < 2) {
        r.seconds = -1;
        r.error = c.output.empty() ? "the child process failed" : c.output;
    }
    // the child's own peak since its reset; the whole process's peak where the reset is not available
    r.peakMiB = double(hwmKiB > 0 ? hwmKiB : c.usage.ru_maxrss) / 1024.0;
    return r;
}

/// One run of the `halftone` program as a separate process: wall time, peak resident memory and the stage times
/// it prints with --time (read, prepare, method, write); start-up and exit are the wall time the stages leave.
struct CliRun {
    double wall = -1, read = 0, prepare = 0, method = 0, write = 0;
    double peakMiB = 0;
    std::string error;
    double startup() const { return wall - read - prepare - method - write; }
};

/// The `halftone` program next to this one (the build tree and an installed bin directory hold both).
std::string cliPath() {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return {};
    std::string dir(buf, size_t(n));
    dir = dir.substr(0, dir.rfind('/'));
    const std::string exe = dir + "/halftone";
    return access(exe.c_str(), X_OK) == 0 ? exe : std::string();
}

CliRun runCli(const std::string& exe, const std::vector<std::string>& args) {
    CliRun r;
    std::vector<std::string> all = {"halftone"};
    all.insert(all.end(), args.begin(), args.end());
    const Child c = runChild(exe, std::move(all), 2, true);
    if (!c.started) {
        r.error = c.error.empty() ? "cannot start " + exe : c.error;
        return r;
    }
    const std::string& err = c.output;
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
        r.error = err.empty() ? "failed" : err.substr(0, err.find('\n'));
        return r;
    }
    r.wall = c.wall;
    // The program reports its own peak with --time; wait4's maxrss would include this process's (Linux carries
    // the peak of the spawning address space across exec), so it is only the fallback.
    r.peakMiB = double(c.usage.ru_maxrss) / 1024.0;
    if (const size_t at = err.find("stages: read "); at != std::string::npos)
        std::sscanf(err.c_str() + at, "stages: read %lf s, prepare %lf s, method %lf s, write %lf s; peak memory %lf",
                    &r.read, &r.prepare, &r.method, &r.write, &r.peakMiB);
    return r;
}

/// Medians of each field over `runs` runs (the first is a warm-up, not counted).
CliRun medianCli(const std::string& exe, const std::vector<std::string>& args, int runs) {
    std::vector<CliRun> all;
    for (int i = 0; i <= std::max(1, runs); ++i) {
        CliRun r = runCli(exe, args);
        if (r.wall < 0) return r;
        if (i > 0) all.push_back(r);
    }
    auto med = [&](double CliRun::*f) {
        std::vector<double> v;
        for (const CliRun& r : all) v.push_back(r.*f);
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    CliRun m;
    m.wall = med(&CliRun::wall);
    m.read = med(&CliRun::read);
    m.prepare = med(&CliRun::prepare);
    m.method = med(&CliRun::method);
    m.write = med(&CliRun::write);
    m.peakMiB = med(&CliRun::peakMiB);
    return m;
}
}  // namespace

int memoryRunChild(const std::string& id, const std::string& device, int side, const std::string& paramList) {
    const size_t slash = id.find('/');
    // a CPU run needs no GPU module: its memory is then the method's own plus the program's
    const Registry& registry = device == "gpu" ? benchRegistry() : Registry::instance();
    const MethodInfo* m =
        slash == std::string::npos ? nullptr : registry.find(id.substr(0, slash), id.substr(slash + 1));
    if (!m || side < 1) {
        std::printf("unknown method %s\n", id.c_str());
        return 2;
    }
    ParamValues params;
    std::stringstream ss(paramList);
    for (std::string kv; std::getline(ss, kv, '\n');) {
        const size_t eq = kv.find('=');
        const ParamSpec* spec = eq == std::string::npos ? nullptr : m->param(kv.substr(0, eq));
        ParamValue v;
        if (!spec || !spec->parse(kv.substr(eq + 1), v)) {
            std::printf("bad parameter %s\n", kv.c_str());
            return 2;
        }
        params.set(spec->key, v);
    }
    // Start the peak over from what is resident now (Linux: "5" resets VmHWM), so that a passing peak of the
    // program's start-up does not hide the method's own.
    if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
        std::fputs("5", f);
        std::fclose(f);
    }
    const Plane8 src = syntheticPlane(side, side);
    const Timed t = timeMethod(*m, device == "gpu" ? Device::Gpu : Device::Cpu, src, params, 1, false);
    if (t.seconds < 0) {
        std::printf("%s\n", t.error.c_str());
        return 1;
    }
    long long hwmKiB = 0;
    if (FILE* f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "VmHWM: %lld kB", &hwmKiB) == 1) break;
        std::fclose(f);
    }
    std::printf("%.9f %llu %lld\n", t.seconds, static_cast<unsigned long long>(planeHash(t.out)), hwmKiB);
    return 0;
}

int benchParallel(const BenchContext& c) {
    const int side = c.parallelSize;
    const int threads = threadsOrAll(c.threads);
    const std::vector<const MethodInfo*> methods =
        methodsFor(c, DeviceChoice::Cpu, [](const MethodInfo& m) { return m.family == "error-diffusion"; });
    std::printf("\n== parallel: %d x %d, %d thread(s), median of %d runs (%s) ==\n", side, side, threads, c.runs,
                utcNow().c_str());
    const Plane8 src = syntheticPlane(side, side);
    const double n = double(side) * side;
    int rc = 0;
    std::vector<Result> mem;
    const MethodInfo* fastest = nullptr;
    const MethodInfo* baseline = nullptr;
    double fastestSeconds = -1, baseSeconds = -1;
    auto timeRow = [&](const MethodInfo& m, Device d, const std::map<std::string, std::string>& extra,
                       const std::string& settings, bool sweep) {
        ParamValues params;
        if (Status s = paramsFor(c, m, params, extra); !s) {  // a method that cannot take the given parameters
            std::printf("  in memory  %-40s skipped: %s\n", rowName(m, d, settings).c_str(), s.message().c_str());
            return;
        }
        const Timed t = timeMethod(m, d, src, params, c.runs, true, c.threads);
        Result r{rowName(m, d, settings), t.seconds, "-"};
        if (t.seconds < 0) {
            // a SIMD path this processor lacks is a note, not a failure
            std::printf("  in memory  %-40s %s\n", r.name.c_str(), t.error.c_str());
            if (!sweep) rc = 1;
            return;
        }
        r.exact = exactness(m, src, params, t.out);
        if (r.exact == "NO") rc = 1;
        std::printf("  in memory  %-40s %9.2f ms  %6.3f ns/px  exact %s\n", r.name.c_str(), r.seconds * 1e3,
                    r.seconds / n * 1e9, r.exact.c_str());
        std::fflush(stdout);
        mem.push_back(r);
        if (settings.empty() && d == Device::Cpu) {
            if (m.id() == c.baseline) {
                baseline = &m;
                baseSeconds = t.seconds;
            }
            if (fastestSeconds < 0 || t.seconds < fastestSeconds) {
                fastest = &m;
                fastestSeconds = t.seconds;
            }
        }
    };
    for (const MethodInfo* m : methods)
        for (Device d : devicesFor(c, *m, DeviceChoice::Cpu)) {
            timeRow(*m, d, {}, {}, false);
            if (d != Device::Cpu) continue;
            if (const ParamSpec* simd = m->param("simd"); simd && simd->kind == ParamSpec::Kind::Choice)
                for (size_t i = 0; i < simd->choices.size(); ++i)
                    if (int(i) != int(simd->def))
                        timeRow(*m, d, {{"simd", simd->choices[i]}}, "simd=" + simd->choices[i], true);
            if (m->param("threads") && threads != 1) timeRow(*m, d, {{"threads", "1"}}, "threads=1", true);
        }

    // File in, file out, as a user runs it: the baseline and the fastest method of the table above.
    const std::string in = c.workDir + "/halftone-bench-" + std::to_string(side) + ".pgm";
    const std::string outBase = c.workDir + "/halftone-bench-result";
    const std::string outTool = c.workDir + "/halftone-bench-tool.pbm";
    if (!writePgmRaw(in, src)) {
        std::fprintf(stderr, "halftone-bench: cannot write %s\n", in.c_str());
        return 1;
    }
    std::vector<Result> files;
    std::vector<const MethodInfo*> fileMethods;
    if (baseline) fileMethods.push_back(baseline);
    if (fastest && fastest != baseline) fileMethods.push_back(fastest);
    for (const MethodInfo* m : fileMethods) {
        RunRequest request;
        request.method = m;
        request.device = Device::Cpu;
        if (Status s = paramsFor(c, *m, request.params); !s) continue;
        // a binary result goes to a PBM, more levels to a PGM
        const int levels = m->param("levels") ? int(request.params.getInt("levels", 2)) : 2;
        const std::string outPbm = outBase + (levels == 2 ? ".pbm" : ".pgm");
        std::vector<double> rd, di, wr;
        Status status;
        int calls = 0;
        const double total = medianSeconds(c.runs, [&] {
            const auto t0 = std::chrono::steady_clock::now();
            Image img;
            Status s = io::readImage(in, img);
            const auto t1 = std::chrono::steady_clock::now();
            RunResult result;
            if (s) s = runImage(img, request, result);
            const auto t2 = std::chrono::steady_clock::now();
            if (s) {
                s = io::writeImage(outPbm, result.image);
            }
            const auto t3 = std::chrono::steady_clock::now();
            if (!s) status = s;
            if (calls++ == 0) return;  // the warm-up run
            rd.push_back(std::chrono::duration<double>(t1 - t0).count());
            di.push_back(std::chrono::duration<double>(t2 - t1).count());
            wr.push_back(std::chrono::duration<double>(t3 - t2).count());
        });
        if (!status) {
            std::printf("  file in/out  %-38s failed: %s\n", m->id().c_str(), status.message().c_str());
            rc = 1;
            continue;
        }
        auto med = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v.empty() ? 0.0 : v[v.size() / 2];
        };
        // the PBM written must hold the method's bits
        std::string exact = "-";
        if (Image back; io::readImage(outPbm, back)) {
            Plane8 bits = back.channels.front();
            if (levels == 2)
                for (uint8_t& v : bits.data) v = v ? 255 : 0;
            exact = exactness(*m, src, request.params, bits);
        }
        std::remove(outPbm.c_str());
        if (exact == "NO") rc = 1;
        const std::string name = m->id() + " (read " + fmt(med(rd) * 1e3, 1) + ", run " + fmt(med(di) * 1e3, 1) +
                                 ", write " + fmt(med(wr) * 1e3, 1) + " ms)";
        std::printf("  file in/out  %-60s %9.2f ms  file exact %s\n", name.c_str(), total * 1e3, exact.c_str());
        files.push_back({name, total, exact});
    }
    std::vector<std::pair<std::string, double>> toolTimes;
    for (const ReferenceTool& tool : referenceTools(c)) {
        if (tool.path.empty()) {
            std::printf("  %s not installed or disabled\n", tool.name.c_str());
            continue;
        }
        const double t = timeTool(tool, in, outTool, c.runs >= 3 ? 3 : c.runs);
        std::printf("  file in/out  %-60s %9s ms\n", tool.name.c_str(), t > 0 ? fmt(t * 1e3).c_str() : "failed");
        toolTimes.push_back({tool.name, t});
    }

    // The `halftone` program as a user runs it, a process per run: start-up (loading, parsing, exit), read,
    // method, write and peak memory, against the tools above (same input, same run).
    if (const std::string exe = cliPath(); exe.empty()) {
        std::printf("  halftone program not found next to halftone-bench: CLI rows skipped\n");
    } else {
        const CliRun list = medianCli(exe, {"--list-kernels"}, std::max(c.runs, 9));
        if (list.wall >= 0)
            std::printf("  CLI          %-60s %9.2f ms\n", "halftone --list-kernels (start-up)", list.wall * 1e3);
        for (const MethodInfo* m : fileMethods) {
            RunRequest request;
            if (Status s = paramsFor(c, *m, request.params); !s) continue;
            const int levels = m->param("levels") ? int(request.params.getInt("levels", 2)) : 2;
            const std::string out = outBase + "-cli" + (levels == 2 ? ".pbm" : ".pgm");
            std::vector<std::string> args = {"--method", m->method, "--variant", m->variant,
                                             "--device", "cpu",     "--time"};
            for (const auto& [k, v] : request.params.all()) {
                if (const bool* flag = std::get_if<bool>(&v)) {  // a flag: given when true
                    if (*flag) args.push_back("--" + k);
                    continue;
                }
                args.push_back("--" + k);
                args.push_back(valueText(v));
            }
            args.push_back(in);
            args.push_back(out);
            const CliRun r = medianCli(exe, args, c.runs);
            std::remove(out.c_str());
            if (r.wall < 0) {
                std::printf("  CLI          %-60s failed: %s\n", m->id().c_str(), r.error.c_str());
                rc = 1;
                continue;
            }
            const std::string name = "halftone " + m->id() + " (start-up " + fmt(r.startup() * 1e3, 1) + ", read " +
                                     fmt(r.read * 1e3, 1) + ", run " + fmt((r.prepare + r.method) * 1e3, 1) +
                                     ", write " + fmt(r.write * 1e3, 1) + " ms)";
            std::printf("  CLI          %-60s %9.2f ms  peak RSS %.0f MiB (input + output %.0f MiB)", name.c_str(),
                        r.wall * 1e3, r.peakMiB, 2.0 * double(side) * side / (1 << 20));
            for (const auto& [tn, tt] : toolTimes)
                if (tt > 0) std::printf("  %.1fx faster than %s", tt / r.wall, tn.c_str());
            std::printf("\n");
            files.push_back({"CLI: " + name, r.wall, "-"});
        }
    }
    std::remove(in.c_str());
    std::remove(outTool.c_str());

    // Big images, each method in its own process: time, peak memory (input + output is 2 bytes a pixel).
    struct Big {
        int side;
        std::string name;
        ChildResult r;
        std::string same;
    };
    std::vector<Big> bigs;
    std::vector<const MethodInfo*> bigMethods;
    if (baseline) bigMethods.push_back(baseline);
    for (const MethodInfo* m : methods)
        if (m->cpu && m->param("threads") && m != baseline) bigMethods.push_back(m);
    if (!c.bigSizes.empty() && !bigMethods.empty()) {
        ParamValues params;
        if (paramsFor(c, *bigMethods.front(), params))
            if (const ChildResult own = memoryRun(*bigMethods.front(), Device::Cpu, 1, params); own.seconds >= 0)
                std::printf("  (peak RSS below includes the program's own %.0f MiB, measured on a 1 x 1 image)\n",
                            own.peakMiB);
    }
    for (int b : c.bigSizes) {
        unsigned long long refHash = 0;
        for (const MethodInfo* m : bigMethods) {
            ParamValues params;
            if (!paramsFor(c, *m, params)) continue;
            Big row{b, m->id(), memoryRun(*m, Device::Cpu, b, params), "-"};
            if (row.r.seconds < 0) {
                std::printf("  %5d x %-5d  %-28s failed: %s\n", b, b, row.name.c_str(), row.r.error.c_str());
                rc = 1;
                continue;
            }
            if (m->exact && m->family == "error-diffusion") {
                if (refHash == 0) refHash = row.r.hash;
                row.same = row.r.hash == refHash ? "yes" : "NO";
                if (row.same == "NO") rc = 1;
            }
            std::printf(
                "  %5d x %-5d  %-28s %9.2f ms  %6.3f ns/px  peak RSS %.0f MiB (input + output %.0f MiB)  "
                "same bits as the first exact row: %s\n",
                b, b, row.name.c_str(), row.r.seconds * 1e3, row.r.seconds / (double(b) * b) * 1e9, row.r.peakMiB,
                2.0 * b * double(b) / (1 << 20), row.same.c_str());
            std::fflush(stdout);
            bigs.push_back(row);
        }
    }

    std::printf("\n%d x %d, %d thread(s): medians from this run (tools: file to file)\n", side, side, threads);
    std::printf("| method | ms | ns/pixel | exact | vs %s |", c.baseline.c_str());
    for (const auto& [name, t] : toolTimes) std::printf(" vs %s |", name.c_str());
    std::printf("\n| --- | ---: | ---: | --- | ---: |");
    for (size_t i = 0; i < toolTimes.size(); ++i) std::printf(" ---: |");
    std::printf("\n");
    const double fileBase = !files.empty() && baseline ? files.front().seconds : -1;
    auto line = [&](const std::string& name, double t, const std::string& exact, double base) {
        std::printf("| %s | %s | %s | %s | %s |", name.c_str(), fmt(t * 1e3).c_str(), fmt(t / n * 1e9, 3).c_str(),
                    exact.c_str(), ratioText(base, t).c_str());
        for (const auto& [tn, tt] : toolTimes) std::printf(" %s |", ratioText(tt, t).c_str());
        std::printf("\n");
    };
    for (const Result& r : mem) line("in memory: " + r.name, r.seconds, r.exact, baseSeconds);
    for (const Result& r : files) line("file in/out: " + r.name, r.seconds, r.exact, fileBase);
    for (const auto& [name, t] : toolTimes)
        if (t > 0) line("file in/out: " + name, t, "-", fileBase);
    for (const Big& b : bigs)
        std::printf("| %d x %d: %s | %s | %s | %s | peak RSS %.0f MiB |\n", b.side, b.side, b.name.c_str(),
                    fmt(b.r.seconds * 1e3).c_str(), fmt(b.r.seconds / (double(b.side) * b.side) * 1e9, 3).c_str(),
                    b.same.c_str(), b.r.peakMiB);
    return rc;
}

}  // namespace halftone::bench
