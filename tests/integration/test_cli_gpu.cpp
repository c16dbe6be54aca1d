// The `halftone` CLI on the GPU against the CLI on the CPU, file for file: binary Floyd-Steinberg to PBM (the bits
// made on the device and written as they are), 8-bit PGM output (the wavefront's general form too), and whether a
// CPU run ever loads the CUDA driver. Plain C++ on the GPU tests' harness, so it runs on the GPU machine (no Qt);
// without a usable GPU it is skipped (exit 77) and says why.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/pnm.h"
#include "gpu/gpu.h"
#include "tests/common/testutil.h"
#include "tests/gpu/gputest.h"

using namespace halftone;
using gputest::check;
using gputest::contains;
namespace fs = std::filesystem;

namespace {

fs::path dir;

/// What a finished CLI run left.
struct Run {
    int exitCode = -1;
    std::string err;
};

std::string quoted(const std::string& s) {
    std::string q(1, '\'');
    for (char c : s) {
        if (c == '\'')
            q.append("'\\''");
        else
            q.push_back(c);
    }
    q.push_back('\'');
    return q;
}

std::string readFile(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// Runs the CLI with `args` (and `env`, "NAME=value" or empty) and collects its exit code and standard error.
Run cli(const std::vector<std::string>& args, const std::string& env = {}) {
    const fs::path errPath = dir / "stderr.txt";
    std::string cmd;
    if (!env.empty()) cmd.append("env ").append(quoted(env)).append(" ");
    cmd.append(quoted(HALFTONE_CLI_PATH));
    for (const std::string& a : args) cmd.append(" ").append(quoted(a));
    cmd.append(" 2>").append(quoted(errPath.string()));
    const int status = std::system(cmd.c_str());
    Run r;
    r.exitCode = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = readFile(errPath);
    return r;
}

std::string writePgm(const std::string& name, const Plane8& plane) {
    const fs::path p = dir / name;
    const std::vector<uint8_t> bytes = pnm::encodePgm(plane);
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return p.string();
}

/// The same job on both devices: both written, byte for byte the same file, the GPU run on the GPU (no fallback).
void sameOnBothDevices(const std::string& what, const std::string& in, const std::string& ext,
                       const std::vector<std::string>& job) {
    const std::string gpuOut = (dir / ("gpu" + ext)).string(), cpuOut = (dir / ("cpu" + ext)).string();
    fs::remove(gpuOut);
    fs::remove(cpuOut);
    std::vector<std::string> a = job;
    a.insert(a.end(), {"--time", "--device", "gpu", in, gpuOut});
    const Run g = cli(a);
    a = job;
    a.insert(a.end(), {"--device", "cpu", "--threads", "4", in, cpuOut});
    const Run c = cli(a);
    check(g.exitCode == 0 && c.exitCode == 0, what + ": both runs succeed (gpu " + std::to_string(g.exitCode) + ": " +
                                                  g.err + "; cpu " + std::to_string(c.exitCode) + ": " + c.err + ")");
    check(contains(g.err, " on gpu: ") && !contains(g.err, "ran on the CPU"),
          what + ": ran on the GPU (" + g.err + ")");
    const std::string gb = readFile(gpuOut), cb = readFile(cpuOut);
    check(!gb.empty() && gb == cb, what + ": the GPU's file equals the CPU's byte for byte (" +
                                       std::to_string(gb.size()) + " vs " + std::to_string(cb.size()) + " bytes)");
}

}  // namespace

int main() {
    const GpuAvailability a = gpu::probe();
    if (!a.usable) return gputest::skipAll("no usable GPU: " + a.reason);
    std::printf("device: %s\n", a.deviceName.c_str());
    dir = fs::temp_directory_path() / ("halftone-cli-gpu-" + std::to_string(::getpid()));
    fs::create_directories(dir);

    // awkward sizes: one pixel, one row, one column, primes, widths not a multiple of 8 or 32, several bands
    const std::vector<std::pair<int, int>> sizes = {{1, 1},   {1, 97},   {97, 1},     {7, 5},
                                                    {33, 65}, {257, 31}, {1021, 257}, {2000, 1500}};
    for (const auto& [w, h] : sizes) {
        const uint64_t seed = test::freshSeed("cli gpu");
        const std::string size = std::to_string(w) + " x " + std::to_string(h) + " (seed " + std::to_string(seed) + ")";
        const std::string in = writePgm("in.pgm", test::randomPlane(w, h, seed));
        // binary Floyd-Steinberg to PBM: the packed path
        sameOnBothDevices("ed to PBM " + size, in, ".pbm", {});
        sameOnBothDevices("ec/wavefront to PBM " + size, in, ".pbm", {"--method", "ec", "--variant", "wavefront"});
        // 8-bit output: the fast form through the 8-bit path, and the general form
        sameOnBothDevices("ed to PGM " + size, in, ".pgm", {});
        sameOnBothDevices("ed, jarvis, 3 levels, linear light, to PGM " + size, in, ".pgm",
                          {"--kernel", "jarvis", "--levels", "3", "--linear"});
        // binary but not Floyd-Steinberg to PBM: no packed form, the plane form on the GPU
        sameOnBothDevices("ed, stucki, to PBM " + size, in, ".pbm", {"--kernel", "stucki"});
    }

    // A CPU run never loads the CUDA driver; a GPU run does (so the check can tell them apart).
    const std::string in = writePgm("lazy.pgm", test::randomPlane(64, 48, test::freshSeed("cli gpu lazy")));
    const Run cpu = cli({"--device", "cpu", in, (dir / "lazy-cpu.pbm").string()}, "LD_DEBUG=files");
    const Run gpu = cli({"--device", "gpu", in, (dir / "lazy-gpu.pbm").string()}, "LD_DEBUG=files");
    check(cpu.exitCode == 0 && gpu.exitCode == 0, "the traced runs succeed");
    check(contains(gpu.err, "libcuda"), "a GPU run loads the CUDA driver (the trace shows it)");
    check(contains(cpu.err, "file=") && !contains(cpu.err, "libcuda"), "a CPU run never loads the CUDA driver");

    std::error_code ec;
    fs::remove_all(dir, ec);
    return gputest::finish();
}
