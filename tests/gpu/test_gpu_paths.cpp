// The product's own path on the GPU: `halftone` run as a process, the way a user runs it, for every registered GPU
// variant, every kernel the GPU wavefront offers, 2 and 4 levels, palettes of 2, 16 and 256 colours and the GPU DBS
// variants, on images of 1 x 1, 64 x 64, 512 x 512 and 4096 x 3072 (and the real test images). Each GPU output is
// compared bit for bit with the CPU's sequential result (`--device cpu --variant plain`; DBS with the same variant on
// the CPU). Fresh processes for single runs, and `halftone batch` for two runs in one process (the device and its
// buffers kept between them, as in the studio).
//
// Every process runs under a watchdog: a case that does not finish within its limit fails with its name (method,
// variant, kernel, levels, palette, image size), its threads' stacks are printed when a debugger is on the PATH, and
// the process is killed, so a hang can neither stop the suite nor go unnoticed. Plain C++ on the GPU tests' harness
// (the GPU machine has no Qt); without a usable GPU it is skipped (exit 77) and says why.
//
// Usage: test_gpu_paths [--small] [--repeat N] [--jobs N] [--limit SECONDS] [--verbose]
//   --small   sizes up to 512 x 512 and the real images only
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/image.h"
#include "core/ed/kernel.h"
#include "core/pnm.h"
#include "gpu/gpu.h"
#include "tests/gpu/gputest.h"

using namespace halftone;
using gputest::check;
namespace fs = std::filesystem;

namespace {

fs::path dir;
double limitSeconds = 60;

std::string readFile(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string joined(const std::vector<std::string>& args) {
    std::string s;
    for (const std::string& a : args) s.append(s.empty() ? "" : " ").append(a);
    return s;
}

/// What one process left: its exit code (-1 when it was killed by the watchdog or a signal) and its standard error.
struct Run {
    int exitCode = -1;
    bool hung = false;
    double seconds = 0;
    std::string err;
};

/// Prints the stacks of every thread of `pid` with the first debugger found (cuda-gdb on the GPU machine, gdb
/// elsewhere), so that a hang says where it waits.
void printStacks(pid_t pid, const std::string& name) {
    for (const char* dbg : {"cuda-gdb", "/usr/local/cuda/bin/cuda-gdb", "gdb"}) {
        const std::string which = std::string("command -v ") + dbg + " >/dev/null 2>&1";
        if (std::system(which.c_str()) != 0) continue;
        std::printf("---- stacks of the hung process (%s) ----\n", name.c_str());
        std::fflush(stdout);
        const std::string cmd = "timeout 60 " + std::string(dbg) + " -p " + std::to_string(pid) +
                                " -batch -ex 'info threads' -ex 'thread apply all bt 25' 2>&1 | grep -E "
                                "'^(#|Thread|\\*| +[0-9]+ +Thread)' | head -200";
        if (std::system(cmd.c_str()) != 0) std::printf("(the debugger could not attach)\n");
        std::printf("---- end of stacks ----\n");
        std::fflush(stdout);
        return;
    }
}

/// Runs `halftone` with `args` under the watchdog: killed after `limit` seconds (its stacks printed first).
Run runHalftone(const std::vector<std::string>& args, const std::string& name, double limit = 0) {
    static std::atomic<int> serial{0};
    const fs::path errPath = dir / ("stderr-" + std::to_string(serial++) + ".txt");
    std::vector<std::string> argv = {HALFTONE_CLI_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (std::string& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    Run r;
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            ::dup2(fd, 2);
            ::dup2(fd, 1);
            ::close(fd);
        }
        ::execv(cargv[0], cargv.data());
        _exit(127);
    }
    if (pid < 0) {
        r.err = "fork failed";
        return r;
    }
    const double lim = limit > 0 ? limit : limitSeconds;
    int status = 0;
    for (;;) {
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (w == pid) break;
        if (r.seconds > lim) {
            r.hung = true;
            printStacks(pid, name);
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!r.hung && WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
    r.err = readFile(errPath);
    std::error_code ec;
    fs::remove(errPath, ec);
    return r;
}

/// One image of the matrix: a gray PGM and a colour PPM of the same size.
struct Input {
    std::string name;  ///< e.g. "512x512" or "moon"
    fs::path gray, color;
    bool large = false;
};

/// Writes a binary PGM (one plane) or PPM (three planes, interleaved).
void writePnmFile(const fs::path& path, const std::vector<const Plane8*>& planes) {
    const Plane8& p0 = *planes.front();
    std::ofstream f(path, std::ios::binary);
    f << (planes.size() == 1 ? "P5\n" : "P6\n") << p0.width << " " << p0.height << "\n255\n";
    std::vector<char> row(size_t(p0.width) * planes.size());
    for (int y = 0; y < p0.height; ++y) {
        for (int x = 0; x < p0.width; ++x)
            for (size_t c = 0; c < planes.size(); ++c) row[size_t(x) * planes.size() + c] = char(planes[c]->at(y, x));
        f.write(row.data(), std::streamsize(row.size()));
    }
}

/// The colour form of a gray plane: each channel a different function of it, so a palette search meets real colours.
void writeColorForm(const fs::path& path, const Plane8& g, std::mt19937& rng) {
    Plane8 r(g.width, g.height), gr(g.width, g.height), b(g.width, g.height);
    for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x) {
            const int v = g.at(y, x);
            r.at(y, x) = uint8_t(v);
            gr.at(y, x) = uint8_t(((v * 3 + x) / 4 + int(rng() % 32)) & 255);
            b.at(y, x) = uint8_t((255 - v / 2 - (y & 31)) & 255);
        }
    writePnmFile(path, {&r, &gr, &b});
}

Input makeInput(int w, int h, uint32_t seed) {
    std::mt19937 rng(seed);
    Plane8 gray(w, h);
    // a ramp, noise and flat patches in bands of 16 rows: every level, long runs and sharp edges
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int ramp = w > 1 ? 255 * x / (w - 1) : 128;
            const int band = (y / 16) % 3;
            gray.at(y, x) = uint8_t(band == 0 ? ramp : band == 1 ? int(rng() & 255) : ((x / 32) % 2 ? 0 : 255));
        }
    Input in;
    in.name = std::to_string(w) + "x" + std::to_string(h);
    in.gray = dir / (in.name + ".pgm");
    in.color = dir / (in.name + ".ppm");
    in.large = size_t(w) * size_t(h) > 1000000;
    writePnmFile(in.gray, {&gray});
    writeColorForm(in.color, gray, rng);
    return in;
}

/// A real test image (tests/gpu/data) and its colour form.
Input realInput(const std::string& name) {
    Input in;
    in.name = name;
    in.gray = fs::path(HALFTONE_GPU_TEST_DATA) / (name + ".pgm");
    std::FILE* f = std::fopen(in.gray.c_str(), "rb");
    if (!f) return in;
    pnm::FileSource src(f);
    Image img;
    const Status s = pnm::read(src, img);
    std::fclose(f);
    if (s && img.channelCount() == 1) {
        std::mt19937 rng(7);
        in.color = dir / (name + ".ppm");
        writeColorForm(in.color, img.channels[0], rng);
    }
    return in;
}

/// A palette file of 256 distinct colours (a 6 x 7 x 6 cube and grays), as a user's .hex file.
fs::path palette256() {
    const fs::path p = dir / "palette256.hex";
    std::ofstream f(p);
    int n = 0;
    char line[32];
    for (int r = 0; r < 6; ++r)
        for (int g = 0; g < 7; ++g)
            for (int b = 0; b < 6; ++b, ++n) {
                std::snprintf(line, sizeof line, "%02X%02X%02X\n", r * 51, g * 255 / 6, b * 51);
                f << line;
            }
    for (int k = 0; n < 256; ++k, ++n) {
        const int v = 8 + k * 12;
        std::snprintf(line, sizeof line, "%02X%02X%02X\n", v, v + 1, v + 3);
        f << line;
    }
    return p;
}

/// One case: the GPU run, compared bit for bit with its CPU reference.
struct Case {
    std::string name;
    std::vector<std::string> gpuArgs, cpuArgs;  ///< options without input and output
    fs::path input;
    std::string ext;       ///< output extension: pgm or ppm
    std::string noteWant;  ///< a line the GPU run must print (a CPU fallback's note), empty = none
    bool large = false;
    fs::path reference;  ///< the CPU reference's output (shared by the cases with the same CPU run)
};

std::mutex printMutex;
using gputest::counts;

/// Runs fn(0) .. fn(n - 1), `jobs` at a time.
void forEach(size_t n, int jobs, const std::function<void(size_t)>& fn) {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < jobs; ++t)
        pool.emplace_back([&] {
            for (size_t i; (i = next++) < n;) fn(i);
        });
    for (std::thread& t : pool) t.join();
}

/// Makes the CPU references of every case once (cases with the same CPU run share one), `jobs` at a time.
void makeReferences(std::vector<Case>& cases, int jobs) {
    std::vector<std::string> keys;
    std::vector<size_t> first;  // a case of each distinct reference
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::string key = joined(cases[i].cpuArgs) + " " + cases[i].input.string();
        const auto it = std::find(keys.begin(), keys.end(), key);
        const size_t k = size_t(it - keys.begin());
        if (it == keys.end()) {
            keys.push_back(key);
            first.push_back(i);
        }
        cases[i].reference = dir / ("ref" + std::to_string(k) + "." + cases[i].ext);
    }
    forEach(first.size(), jobs, [&](size_t k) {
        const Case& c = cases[first[k]];
        std::vector<std::string> args = c.cpuArgs;
        args.insert(args.end(), {c.input.string(), c.reference.string()});
        const Run r = runHalftone(args, c.name + " (CPU reference)", c.large ? limitSeconds * 2 : limitSeconds);
        std::lock_guard<std::mutex> lock(printMutex);
        check(!r.hung && r.exitCode == 0, "CPU reference runs: " + c.name + (r.hung ? " (hung) " : " ") + r.err);
    });
    std::printf("%zu CPU references for %zu cases\n", first.size(), cases.size());
}

void runCase(const Case& c, size_t index) {
    const fs::path out = dir / ("g" + std::to_string(index) + "." + c.ext);
    std::vector<std::string> args = c.gpuArgs;
    args.insert(args.end(), {c.input.string(), out.string()});
    const double lim = c.large ? limitSeconds * 2 : limitSeconds;
    const Run g = runHalftone(args, c.name, lim);
    std::lock_guard<std::mutex> lock(printMutex);
    if (g.hung) {
        check(false, "HANG: no result after " + std::to_string(int(lim)) + " s: " + c.name + " [halftone " +
                         joined(args) + "]");
        return;
    }
    check(g.exitCode == 0, "GPU run exits 0: " + c.name + " (exit " + std::to_string(g.exitCode) + ") " + g.err);
    if (g.exitCode != 0) return;
    const std::string a = readFile(out), b = readFile(c.reference);
    check(!a.empty() && a == b, "GPU equals CPU bit for bit: " + c.name);
    if (!c.noteWant.empty())
        check(gputest::contains(g.err, c.noteWant), "note '" + c.noteWant + "' printed: " + c.name + ": " + g.err);
    for (const char* word : {"general form", "fast form"})
        check(!gputest::contains(g.err, word), std::string("no '") + word + "' in the messages: " + c.name);
    if (counts().verbose) std::printf("   %s: %.2f s\n", c.name.c_str(), g.seconds);
    std::error_code ec;
    fs::remove(out, ec);
}

std::string methodOf(const gpu::MethodSpec& m) { return m.method; }

}  // namespace

int main(int argc, char** argv) {
    bool small = false;
    int repeat = 1, jobs = int(std::clamp(std::thread::hardware_concurrency() / 2, 2u, 8u));
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--small") small = true;
        if (a == "--verbose") counts().verbose = true;
        if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
        if (a == "--jobs" && i + 1 < argc) jobs = std::max(1, std::atoi(argv[++i]));
        if (a == "--limit" && i + 1 < argc) limitSeconds = std::max(1.0, std::atof(argv[++i]));
    }
    const GpuAvailability avail = gpu::probe();
    if (!avail.usable) return gputest::skipAll("no usable GPU: " + avail.reason);
    std::printf("device: %s\n", avail.deviceName.c_str());
    dir = fs::temp_directory_path() / ("halftone-gpu-paths-" + std::to_string(::getpid()));
    fs::create_directories(dir);

    std::vector<Input> inputs = {makeInput(1, 1, 1), makeInput(64, 64, 2), makeInput(512, 512, 3), realInput("moon"),
                                 realInput("chelsea")};
    if (!small) inputs.push_back(makeInput(4096, 3072, 4));
    const fs::path pal256 = palette256();

    std::vector<Case> cases;
    for (const Input& in : inputs) {
        for (const gpu::MethodSpec& m : gpu::methods()) {
            std::vector<std::string> kernelNames = {"floyd-steinberg"};
            if (m.allKernels) {
                kernelNames.clear();
                for (const Kernel& k : kernels())
                    if (!in.large || k.name == "floyd-steinberg" || k.name == "jarvis" || k.name == "zhou-fang" ||
                        k.name == "stevenson-arce")
                        kernelNames.push_back(k.name);
            }
            for (const std::string& k : kernelNames)
                for (int levels : {2, 4}) {
                    Case c;
                    c.name = methodOf(m) + "/" + m.variant + " kernel " + k + ", " + std::to_string(levels) +
                             " levels, " + in.name;
                    const std::vector<std::string> common = {"--kernel", k, "--levels", std::to_string(levels)};
                    c.gpuArgs = {"--device", "gpu", "--method", methodOf(m), "--variant", m.variant};
                    c.gpuArgs.insert(c.gpuArgs.end(), common.begin(), common.end());
                    c.cpuArgs = {"--device", "cpu", "--method", "ed", "--variant", "plain"};
                    c.cpuArgs.insert(c.cpuArgs.end(), common.begin(), common.end());
                    c.input = in.gray;
                    c.ext = "pgm";
                    c.large = in.large;
                    if (const Kernel* kk = findKernel(k); kk && kk->maxDi() > 2) c.noteWant = "runs on the CPU";
                    cases.push_back(c);
                }
        }
        if (!in.color.empty())
            for (const std::string& pal : {std::string("bw"), std::string("pico8"), pal256.string()})
                for (const bool linear : {false, true}) {
                    Case c;
                    const std::string palName = pal == pal256.string() ? "a 256-colour file" : pal;
                    c.name = "ec/wavefront palette " + palName + (linear ? ", linear" : ", gamma") + ", " + in.name;
                    std::vector<std::string> common = {"--palette", pal};
                    if (linear) common.push_back("--linear");
                    c.gpuArgs = {"--device", "gpu", "--method", "ec", "--variant", "wavefront"};
                    c.gpuArgs.insert(c.gpuArgs.end(), common.begin(), common.end());
                    c.cpuArgs = {"--device", "cpu", "--method", "ed", "--variant", "plain"};
                    c.cpuArgs.insert(c.cpuArgs.end(), common.begin(), common.end());
                    c.input = in.color;
                    c.ext = "ppm";
                    c.large = in.large;
                    cases.push_back(c);
                }
        // GPU DBS: the block variants, with and without the clipping-free start, against the same variant on the CPU
        if (in.name != "1x1")
            for (const std::string& v : {std::string("blocks"), std::string("blocks-koge")})
                for (const bool clipFree : {false, true}) {
                    Case c;
                    c.name = "dbs/" + v + (clipFree ? " clip-free, " : ", ") + in.name;
                    std::vector<std::string> common = {"--method", "dbs", "--variant", v};
                    if (clipFree) common.push_back("--clip-free");
                    c.gpuArgs = {"--device", "gpu"};
                    c.gpuArgs.insert(c.gpuArgs.end(), common.begin(), common.end());
                    c.cpuArgs = {"--device", "cpu"};
                    c.cpuArgs.insert(c.cpuArgs.end(), common.begin(), common.end());
                    c.input = in.gray;
                    c.ext = "pgm";
                    c.large = in.large;
                    cases.push_back(c);
                }
    }

    makeReferences(cases, jobs);
    for (int rep = 1; rep <= repeat; ++rep) {
        std::printf("round %d of %d: %zu cases in fresh processes, %d at a time\n", rep, repeat, cases.size(), jobs);
        std::fflush(stdout);
        const auto t0 = std::chrono::steady_clock::now();
        forEach(cases.size(), jobs, [&](size_t i) { runCase(cases[i], i); });

        // Two runs in one process, the device and its buffers kept between them: a batch of every image, twice (two
        // folders), on the GPU wavefront and on a published method, against the single CPU runs.
        for (const std::string& variant : {std::string("wavefront"), std::string("bwec-rc")}) {
            const fs::path a = dir / "batch-in" / "a", b = dir / "batch-in" / "b", out = dir / "batch-out";
            fs::remove_all(dir / "batch-in");
            fs::remove_all(out);
            fs::create_directories(a);
            fs::create_directories(b);
            for (const Input& in : inputs) {
                fs::copy_file(in.gray, a / (in.name + ".pgm"));
                fs::copy_file(in.gray, b / (in.name + ".pgm"));
            }
            const std::string name = "batch of " + std::to_string(2 * inputs.size()) + " images in one process, ec/" +
                                     variant + " on the GPU";
            const Run g = runHalftone({"batch", "--device", "gpu", "--method", "ec", "--variant", variant, "--jobs",
                                       "1", "--format", "pgm", "--out-dir", out.string(), (dir / "batch-in").string()},
                                      name, limitSeconds * 4);
            if (g.hung) {
                check(false, "HANG: " + name);
                continue;
            }
            check(g.exitCode == 0, name + " exits 0: " + g.err);
            for (const Input& in : inputs) {
                const fs::path ref = dir / ("ref-" + in.name + ".pgm");
                const Run r = runHalftone(
                    {"--device", "cpu", "--method", "ed", "--variant", "plain", in.gray.string(), ref.string()},
                    "CPU reference of " + in.name);
                const std::string want = readFile(ref);
                for (const char* sub : {"a", "b"})
                    check(r.exitCode == 0 && !want.empty() && readFile(out / sub / (in.name + ".pgm")) == want,
                          name + ": " + sub + "/" + in.name + " equals the CPU bit for bit");
            }
        }
        std::printf("round %d: %.1f s\n", rep,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        std::fflush(stdout);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return gputest::finish();
}
