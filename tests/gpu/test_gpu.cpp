// GPU error diffusion against the SPEC reference, bit for bit (plain C++: the GPU machine has no Qt).
// Every GPU method on fresh random planes of awkward sizes and on real images; the wavefront kernel over every
// kernel, level count and gamma/linear, both of its forms, cancellation and live progress;
// one 16K x 16K image per method unless --small. No usable device: prints why and exits 77 (skipped).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "core/ed/errordiffusion.h"
#include "core/ed/kernel.h"
#include "core/ed/varkerneltable.h"
#include "core/pnm.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "tests/gpu/gputest.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

using gputest::check;
using gputest::firstDiff;

std::string describe(const std::string& variant, int w, int h, const EdParams& p, const std::string& form = {}) {
    return variant + (form.empty() ? "" : "[" + form + "]") + " " + std::to_string(w) + "x" + std::to_string(h) + " " +
           p.kernel + " L=" + std::to_string(p.levels) + (p.linear ? " linear" : " gamma");
}

void exact(const std::string& variant, const Plane8& src, const EdParams& p, const Plane8& ref,
           const std::string& form = {}) {
    Plane8 out;
    const Status s = gpu::runPlane(variant, src, out, p, {}, form);
    const std::string what = describe(variant, src.width, src.height, p, form);
    if (!s) {
        check(false, what + ": " + s.message());
        return;
    }
    check(out == ref, what + (out == ref ? "" : ": " + firstDiff(out, ref)));
}

/// The gray plane of a PGM test image (core's PNM codec); the message says why not.
Status readPgm(const std::string& path, Plane8& p) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return Status::error("cannot open").withContext(path);
    pnm::FileSource in(f);
    Image image;
    const Status s = pnm::read(in, image);
    std::fclose(f);
    if (!s) return s.withContext(path);
    if (image.channelCount() != 1) return Status::error("not a gray image").withContext(path);
    p = std::move(image.channels[0]);
    return Status::ok();
}

struct Size {
    int w, h;
};

}  // namespace

int main(int argc, char** argv) {
    bool small = false, sanitize = false;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--small"))
            small = true;
        else if (!std::strcmp(argv[i], "--sanitize"))
            small = sanitize = true;  // few, tiny cases for compute-sanitizer
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            std::printf("usage: %s [--small | --sanitize] [--only VARIANT]\n", argv[0]);
            return 2;
        }
    }
    const GpuAvailability avail = gpu::probe();
    if (!avail.usable) return gputest::skipAll("no usable GPU: " + avail.reason);
    std::printf("device: %s\n", avail.deviceName.c_str());

    // awkward sizes: single pixel, single row/column, primes, not multiples of 32, smaller than a block
    std::vector<Size> sizes = {{1, 1},  {1, 57},  {57, 1},  {2, 2},    {33, 31}, {31, 33},  {5, 3},
                               {3, 70}, {97, 61}, {64, 64}, {129, 65}, {200, 3}, {1000, 7}, {2, 300}};
    if (sanitize) sizes = {{1, 1}, {1, 9}, {9, 1}, {33, 31}, {70, 37}};
    if (!small) {
        sizes.push_back({1021, 257});
        sizes.push_back({263, 1031});
    }
    const EdParams fs;  // floyd-steinberg, L = 2, gamma

    for (const gpu::MethodSpec& m : gpu::methods()) {
        if (!only.empty() && m.variant != only) continue;
        for (const Size& sz : sizes) {
            const Plane8 src = test::randomPlane(sz.w, sz.h, test::freshSeed("gpu sizes"));
            exact(m.variant, src, fs, referenceErrorDiffusion(src, fs));
        }
        // multi-level and linear light through the same tables
        for (const auto& [levels, linear] : std::vector<std::pair<int, bool>>{{4, false}, {3, true}, {256, true}}) {
            EdParams p = fs;
            p.levels = levels;
            p.linear = linear;
            const Plane8 src = test::randomPlane(77, 45, test::freshSeed("gpu levels"));
            exact(m.variant, src, p, referenceErrorDiffusion(src, p));
        }
        if (!m.allKernels) {
            EdParams p = fs;
            p.kernel = "jarvis";
            Plane8 out;
            const Status s = gpu::runPlane(m.variant, test::randomPlane(8, 8, 1), out, p);
            check(!s && !s.isUnavailable(), m.variant + " refuses jarvis with a clear error: " + s.message());
        }
    }

    // the wavefront kernel: every kernel x levels x gamma/linear on awkward sizes
    if (only.empty() || only == "wavefront") {
        for (const Kernel& k : kernels()) {
            if (k.maxDi() > 2) {
                // the strips pass errors at most two rows down: unavailable, so the registry runs it on the CPU
                EdParams p;
                p.kernel = k.name;
                Plane8 out;
                const Status s = gpu::runPlane("wavefront", test::randomPlane(9, 9, 2), out, p);
                check(s.isUnavailable() && gputest::contains(s.message(), "rows down"),
                      "wavefront leaves " + k.name + " to the CPU: " + s.message());
                continue;
            }
            for (int levels : {2, 3, 5, 17, 256})
                for (bool linear : {false, true}) {
                    if (sanitize && (levels == 3 || levels == 17 || linear)) continue;
                    EdParams p;
                    p.kernel = k.name;
                    p.levels = levels;
                    p.linear = linear;
                    for (const Size& sz :
                         std::vector<Size>{{1, 1}, {41, 1}, {1, 41}, {67, 131}, small ? Size{95, 33} : Size{333, 97}}) {
                        const Plane8 src = test::randomPlane(sz.w, sz.h, test::freshSeed("wavefront kernels"));
                        exact("wavefront", src, p, referenceErrorDiffusion(src, p));
                    }
                }
        }
        // both forms on binary Floyd-Steinberg (the fast one is the default there): widths and heights around their
        // 32-column blocks, 32- and 64-row strips and the masked first/last chunks (K rho up to 189 columns), gamma and
        // linear input
        for (const std::string& form : gpu::wavefrontForms())
            for (bool linear : {false, true}) {
                if (sanitize && linear) continue;
                EdParams p = fs;
                p.linear = linear;
                std::vector<Size> fsz = {{1, 1},    {2, 1},     {1, 2},     {31, 32},  {32, 33},   {33, 64},  {63, 65},
                                         {64, 7},   {65, 97},   {95, 3},    {96, 40},  {97, 31},   {127, 66}, {128, 1},
                                         {129, 35}, {155, 96},  {160, 130}, {191, 9},  {260, 67},  {70, 63},  {40, 128},
                                         {33, 129}, {200, 191}, {301, 193}, {45, 700}, {1100, 300}};
                if (sanitize) fsz = {{1, 1}, {33, 31}, {97, 40}, {130, 65}, {70, 200}};
                for (const Size& sz : fsz) {
                    const Plane8 src = test::randomPlane(sz.w, sz.h, test::freshSeed("wavefront forms"));
                    exact("wavefront", src, p, referenceErrorDiffusion(src, p), form);
                }
                // extremes: all black / all white rows keep errors at their bounds
                for (int v : {0, 255, 128}) {
                    Plane8 flat(173, 70);
                    std::fill(flat.data.begin(), flat.data.end(), uint8_t(v));
                    exact("wavefront", flat, p, referenceErrorDiffusion(flat, p), form);
                }
            }
        // the level-dependent kernels (Ostromoukhov; Zhou and Fang; TDED): each tap's weight is the sending pixel's,
        // TDED's threshold offset the sending level's, Zhou and Fang's threshold noise comes from the pixel's image
        // position and the seed. Sizes around the general form's 64-row strips (the row above a strip's first row is
        // read from the previous strip) and 32-column chunks, several seeds; the seed must reach the device (different
        // seeds give different references here)
        for (const Kernel& k : kernels()) {
            if (!k.levelDependent()) continue;
            for (int levels : {2, 3, 256})
                for (bool linear : {false, true})
                    for (uint32_t seed : {1u, 2u, 0x9E3779B9u}) {
                        if (!k.levelTable->noise && seed != 1) continue;
                        if (sanitize && (levels == 3 || linear || seed == 2)) continue;
                        EdParams p;
                        p.kernel = k.name;
                        p.levels = levels;
                        p.linear = linear;
                        p.seed = seed;
                        std::vector<Size> vsz = {{1, 1},     {1, 45},   {45, 1},  {2, 2},    {31, 33},
                                                 {33, 31},   {63, 64},  {64, 65}, {65, 129}, {97, 61},
                                                 {127, 130}, {131, 67}, {257, 3}, {3, 257},  {200, 191}};
                        if (sanitize)
                            vsz = {{1, 1}, {1, 9}, {9, 1}, {33, 31}, {70, 130}};
                        else if (!small)
                            vsz.insert(vsz.end(), {{1021, 263}, {263, 1031}});
                        for (const Size& sz : vsz) {
                            const Plane8 src = test::randomPlane(sz.w, sz.h, test::freshSeed("level-dependent"));
                            exact("wavefront", src, p, referenceErrorDiffusion(src, p));
                        }
                        if (sanitize) continue;
                        // a noisy gradient runs through every input level, so every row of the weight tables; flat
                        // planes at the tables' key levels keep one row of weights and the strongest modulation
                        const Plane8 g = noisyGradient(test::randomPlane(301, 197, test::freshSeed("level gradient")));
                        exact("wavefront", g, p, referenceErrorDiffusion(g, p));
                        for (int v : {0, 64, 85, 127, 128, 170, 255}) {
                            Plane8 flat(99, 70);
                            std::fill(flat.data.begin(), flat.data.end(), uint8_t(v));
                            exact("wavefront", flat, p, referenceErrorDiffusion(flat, p));
                        }
                    }
            if (k.levelTable->noise) {
                EdParams p1, p2;
                p1.kernel = p2.kernel = k.name;
                p2.seed = 2;
                const Plane8 src = test::randomPlane(90, 70, test::freshSeed("seed"));
                Plane8 o1, o2;
                const Status s1 = gpu::runPlane("wavefront", src, o1, p1), s2 = gpu::runPlane("wavefront", src, o2, p2);
                check(s1.isOk() && s2.isOk() && o1 != o2 && o1 == referenceErrorDiffusion(src, p1) &&
                          o2 == referenceErrorDiffusion(src, p2),
                      k.name + ": seeds 1 and 2 give different, exact images on the GPU");
            }
            // the timed and overlapped paths (the row above a strip's first row is read from the uploaded input)
            if (!sanitize) {
                EdParams p;
                p.kernel = k.name;
                p.seed = 5;
                const Plane8 src = test::randomPlane(1021, 257, test::freshSeed("level-dependent overlapped"));
                gpu::Timing t;
                Plane8 res;
                const Status s = gpu::timePlane("wavefront", src, p, 1, t, &res);
                check(s.isOk() && res == referenceErrorDiffusion(src, p) && t.overlappedMs > 0,
                      "timed and overlapped wavefront " + k.name + " 1021x257 exact" + (s ? "" : ": " + s.message()));
            }
            // serpentine has no wavefront (CPU fallback); the fast form is binary Floyd-Steinberg only
            {
                EdParams p;
                p.kernel = k.name;
                p.serpentine = true;
                Plane8 out;
                const Status s = gpu::runPlane("wavefront", test::randomPlane(9, 9, 2), out, p);
                check(s.isUnavailable(),
                      k.name + " serpentine on the GPU is unavailable (CPU fallback): " + s.message());
                p.serpentine = false;
                const Status f = gpu::runPlane("wavefront", test::randomPlane(9, 9, 2), out, p, {}, "fast");
                check(!f && !f.isUnavailable() && gputest::contains(f.message(), "form"),
                      k.name + " refuses the fast form: " + f.message());
            }
        }
        // the general form for every kernel is what runs without a form; naming it must give the same bits
        {
            EdParams p;
            p.kernel = "jarvis";
            p.levels = 3;
            const Plane8 src = test::randomPlane(97, 70, test::freshSeed("general form"));
            exact("wavefront", src, p, referenceErrorDiffusion(src, p), "general");
        }
        // a form that does not fit the request, or is unknown, is an error naming the problem (not unavailable: the
        // CPU fallback would hide it)
        for (const auto& [kernel, levels, form] : std::vector<std::tuple<std::string, int, std::string>>{
                 {"jarvis", 2, "fast"}, {"floyd-steinberg", 4, "fast"}, {"floyd-steinberg", 2, "f0"}}) {
            EdParams p;
            p.kernel = kernel;
            p.levels = levels;
            Plane8 out;
            const Status s = gpu::runPlane("wavefront", test::randomPlane(9, 9, 4), out, p, {}, form);
            check(!s && !s.isUnavailable() && gputest::contains(s.message(), "form"),
                  "the wavefront refuses form '" + form + "' for " + kernel + " with " + std::to_string(levels) +
                      " levels: " + s.message());
        }
        // 1-bit packed output (PBM P4 bits, 1 = black) of the fast form against the reference packed here
        for (bool linear : {false, true}) {
            if (sanitize && linear) continue;
            EdParams p = fs;
            p.linear = linear;
            std::vector<Size> psz = {{1, 1},   {7, 3},   {8, 2},    {9, 5},    {31, 33}, {33, 31},
                                     {64, 64}, {65, 97}, {129, 35}, {1000, 7}, {2, 300}};
            if (sanitize)
                psz = {{1, 1}, {9, 5}, {33, 31}, {70, 37}};
            else if (!small)
                psz.push_back({4099, 1031});
            for (const Size& sz : psz) {
                const Plane8 src = test::randomPlane(sz.w, sz.h, test::freshSeed("packed"));
                const Plane8 ref = referenceErrorDiffusion(src, p);
                const int rowBytes = (sz.w + 7) / 8;
                std::vector<uint8_t> want(size_t(rowBytes) * size_t(sz.h), 0);
                for (int y = 0; y < sz.h; ++y)
                    for (int x = 0; x < sz.w; ++x)
                        if (ref.at(y, x) == 0) want[size_t(y) * rowBytes + size_t(x / 8)] |= uint8_t(0x80u >> (x % 8));
                std::vector<uint8_t> rows;
                const Status s = gpu::runPlanePacked(src, rows, p);
                check(s.isOk() && rows == want, "packed 1-bit output " + std::to_string(sz.w) + "x" +
                                                    std::to_string(sz.h) + (linear ? " linear" : " gamma") +
                                                    (s ? "" : ": " + s.message()));
            }
        }
        for (const char* kernel : {"jarvis", "floyd-steinberg"}) {
            EdParams p = fs;
            p.kernel = kernel;
            if (p.kernel == "floyd-steinberg") p.levels = 4;
            std::vector<uint8_t> rows;
            const Status s = gpu::runPlanePacked(test::randomPlane(9, 9, 3), rows, p);
            check(!s && !s.isUnavailable(), std::string("packed output refuses ") + kernel + " with " +
                                                std::to_string(p.levels) + " levels: " + s.message());
        }
        // the timing path, including the overlapped end-to-end path (checked against the plain one inside)
        for (const Size& sz : std::vector<Size>{{1, 1}, {1021, 257}, {45, 700}}) {
            const Plane8 src = test::randomPlane(sz.w, sz.h, test::freshSeed("overlapped"));
            gpu::Timing t;
            Plane8 res;
            const Status s = gpu::timePlane("wavefront", src, fs, 1, t, &res);
            check(s.isOk() && res == referenceErrorDiffusion(src, fs) && t.overlappedMs > 0,
                  "timed and overlapped wavefront " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " exact" +
                      (s ? "" : ": " + s.message()));
        }
        // serpentine has no wavefront: unavailable, so the registry falls back to the CPU
        {
            EdParams p = fs;
            p.serpentine = true;
            Plane8 out;
            const Status s = gpu::runPlane("wavefront", test::randomPlane(9, 9, 2), out, p);
            check(s.isUnavailable(), "serpentine on the GPU is unavailable (CPU fallback): " + s.message());
        }
        // live progress and cancellation
        if (!sanitize) {
            const Plane8 src = test::randomPlane(2048, 2048, test::freshSeed("progress"));
            RunControl rc;
            int64_t lastRows = -1;
            bool monotonic = true;
            int calls = 0;
            rc.onProgress = [&](const Progress& p) {
                if (p.rowsDone < lastRows) monotonic = false;
                lastRows = p.rowsDone;
                ++calls;
            };
            Plane8 out;
            const Status s = gpu::runPlane("wavefront", src, out, fs, rc);
            check(s.isOk() && out == referenceErrorDiffusion(src, fs), "wavefront with progress reporting is exact");
            check(monotonic && lastRows == src.height && calls >= 1,
                  "progress rows are monotonic and end at the image height (last " + std::to_string(lastRows) + ")");
            RunControl stop;
            stop.stop.requestStop();
            stop.onProgress = [](const Progress&) {};
            const Plane8 big = test::randomPlane(8192, 8192, test::freshSeed("cancel"));
            const Status c = gpu::runPlane("wavefront", big, out, fs, stop);
            check(c.isCancelled(), "a stop request cancels the running kernel (got: " +
                                       (c.isOk() ? std::string("ok") : c.message()) + ")");
        }
        // the registry: the sequential entries run the wavefront kernel on the GPU; serpentine falls back with a note
        {
            Registry& r = Registry::instance();
            gpu::registerMethods(r);
            const MethodInfo* m = r.find("ed", "plain");
            check(m && m->devicesString() == "cpu,gpu", "ed/plain lists cpu,gpu");
            const MethodInfo* wave = r.find("ec", "wavefront");
            check(wave && wave->gpu, "ec/wavefront has the GPU path (beside core's CPU wavefront when present)");
            const MethodInfo* bw = r.find("ec", "bwec-rc");
            check(bw && bw->gpu && !bw->cpu, "ec/bwec-rc is a GPU-only registry entry");
            if (m) {
                RunRequest req;
                req.method = m;
                req.device = Device::Gpu;
                req.params.set("serpentine", true);
                RunResult res;
                const Plane8 src = test::randomPlane(40, 30, test::freshSeed("registry"));
                const Status s = runImage(Image::gray(src), req, res);
                EdParams p = fs;
                p.serpentine = true;
                check(s.isOk() && res.device == Device::Cpu && !res.note.empty() &&
                          res.image.channels[0] == referenceErrorDiffusion(src, p),
                      "serpentine on ed/plain --device gpu falls back to the CPU with a note: " + res.note);
                // Zhou and Fang's seed reaches the GPU through the registry's parameters
                RunRequest zf;
                zf.method = m;
                zf.device = Device::Gpu;
                zf.params.set("kernel", std::string("zhou-fang"));
                zf.params.set("seed", int64_t(7));
                zf.params.set("levels", int64_t(3));
                RunResult zres;
                const Status zs = runImage(Image::gray(src), zf, zres);
                EdParams zp;
                zp.kernel = "zhou-fang";
                zp.seed = 7;
                zp.levels = 3;
                check(zs.isOk() && zres.device == Device::Gpu &&
                          zres.image.channels[0] == referenceErrorDiffusion(src, zp),
                      "ed/plain --device gpu --kernel zhou-fang --seed 7 --levels 3 runs on the GPU, exact" +
                          (zs ? "" : ": " + zs.message()));
            }
        }
    }

    // real images
#ifdef HALFTONE_GPU_TEST_DATA
    if (!sanitize)
        for (const char* name : {"chelsea.pgm", "moon.pgm"}) {
            Plane8 img;
            if (const Status s = readPgm(std::string(HALFTONE_GPU_TEST_DATA) + "/" + name, img); !s) {
                check(false, "cannot read test image: " + s.message());
                continue;
            }
            const Plane8 ref = referenceErrorDiffusion(img, fs);
            for (const gpu::MethodSpec& m : gpu::methods())
                if (only.empty() || m.variant == only) exact(m.variant, img, fs, ref);
            // both wavefront forms on the real image too (smooth areas, long runs of one level)
            if (only.empty() || only == "wavefront")
                for (const std::string& form : gpu::wavefrontForms()) exact("wavefront", img, fs, ref, form);
            // the level-dependent kernels on the real image: two levels in gamma, three in linear light
            if (only.empty() || only == "wavefront")
                for (const Kernel& k : kernels())
                    if (k.levelDependent())
                        for (const auto& [levels, linear] : std::vector<std::pair<int, bool>>{{2, false}, {3, true}}) {
                            EdParams p;
                            p.kernel = k.name;
                            p.levels = levels;
                            p.linear = linear;
                            p.seed = 3;
                            exact("wavefront", img, p, referenceErrorDiffusion(img, p));
                        }
        }
#endif
    // both wavefront forms on a noisy gradient (the benchmark's kind of image: dark left edge, bright right edge),
    // square and awkward
    if (!sanitize && (only.empty() || only == "wavefront")) {
        std::vector<Size> gsz = {{300, 200}, {257, 97}};
        if (!small) gsz.push_back({1024, 1024});
        for (const Size& sz : gsz) {
            const Plane8 g = noisyGradient(test::randomPlane(sz.w, sz.h, test::freshSeed("gradient")));
            const Plane8 ref = referenceErrorDiffusion(g, fs);
            for (const std::string& form : gpu::wavefrontForms()) exact("wavefront", g, fs, ref, form);
        }
    }

    // 16K x 16K, every method
    if (!small) {
        const int n = 16384;
        const Plane8 src = test::randomPlane(n, n, test::freshSeed("16K"));
        const Plane8 ref = referenceErrorDiffusion(src, fs);
        for (const gpu::MethodSpec& m : gpu::methods())
            if (only.empty() || m.variant == only) exact(m.variant, src, fs, ref);
    } else {
        gputest::skip("16K x 16K (--small)");
    }
    return gputest::finish();
}
