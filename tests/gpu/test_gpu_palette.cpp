// Error diffusion to a colour palette on the GPU (docs/spec.md section 4) against the reference, bit for bit (plain
// C++: the GPU machine has no Qt). First, in every build, the 64-bit keys of the GPU's nearest-colour search against
// PaletteTargets::nearest (ties included); then, with a usable GPU, the palette wavefront on fresh random images of
// awkward sizes, every kernel, gamma and linear light, the euclidean and the weighted match, palettes of 2, 3, 16, 17
// and 256 colours and palettes with
// repeated colours, gray input, serpentine (unavailable: it runs on the CPU), progress, cancel and runImage's palette
// path. No usable device: the key checks still count, then exit 77 (skipped).
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/ed/kernel.h"
#include "core/palette/paletteed.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "gpu/palette/palette_keys.h"
#include "tests/common/testutil.h"
#include "tests/gpu/gputest.h"

using namespace halftone;

namespace {

using gputest::check;
using gputest::firstDiff;

struct Size {
    int w, h;
};

/// A palette whose colours repeat: ties between equal colours must go to the smaller index.
Palette repeatedPalette() {
    Palette p;
    p.name = "repeated";
    p.colors = {{255, 255, 255}, {0, 0, 0}, {255, 0, 0},     {0, 0, 0},       {0, 128, 255},
                {255, 0, 0},     {0, 0, 0}, {255, 255, 255}, {128, 128, 128}, {0, 128, 255}};
    return p;
}

/// Colours that tie in distance from many points (gray steps, and pairs mirrored about mid-gray).
Palette tiePalette() {
    Palette p;
    p.name = "ties";
    p.colors = {{64, 64, 64}, {192, 192, 192}, {0, 0, 0}, {255, 255, 255}, {128, 0, 128}, {128, 255, 128}};
    return p;
}

std::string describe(int w, int h, const Palette& pal, const EdParams& p) {
    return std::to_string(w) + "x" + std::to_string(h) + " " + p.kernel + " " + pal.name + " (" +
           std::to_string(pal.size()) + " colours)" + (p.linear ? " linear " : " gamma ") + toString(p.match);
}

void exact(const Image& rgb, const Palette& pal, const EdParams& p) {
    const Plane8 ref = referencePaletteErrorDiffusion(rgb, pal, p);
    Plane8 out;
    const Status s = gpu::paletteErrorDiffusion(rgb, pal, p, out);
    const std::string what = describe(rgb.width(), rgb.height(), pal, p);
    if (findKernel(p.kernel)->maxDi() > 2) {
        // the strips pass errors at most two rows down: unavailable, so runImage runs it on the CPU
        check(s.isUnavailable() && gputest::contains(s.message(), "rows down"),
              what + " left to the CPU: " + s.message());
        return;
    }
    if (!s) {
        check(false, what + ": " + s.message());
        return;
    }
    check(out == ref, what + (out == ref ? "" : ": " + firstDiff(out, ref)));
}

/// The keys against core's nearest: random colours, every palette point and the midpoints between pairs (ties).
void checkKeys(const Palette& pal, bool linear, PaletteMatch match, uint64_t seed) {
    const PaletteTargets pt(pal, linear, match);
    const gpu::PaletteKeys keys = gpu::makePaletteKeys(pt.targets, pt.weights);
    std::mt19937_64 rng(seed);
    std::vector<std::array<int32_t, 3>> points;
    for (int i = 0; i < 4000; ++i)
        points.push_back({int32_t(rng() % 4081), int32_t(rng() % 4081), int32_t(rng() % 4081)});
    for (int32_t a : {0, 4080})
        for (int32_t b : {0, 4080})
            for (int32_t c : {0, 4080}) points.push_back({a, b, c});
    for (const auto& t : pt.targets) points.push_back(t);
    for (int i = 0; i < 400; ++i) {
        const auto& x = pt.targets[rng() % pt.targets.size()];
        const auto& y = pt.targets[rng() % pt.targets.size()];
        std::array<int32_t, 3> m;
        for (int c = 0; c < 3; ++c) m[size_t(c)] = (x[size_t(c)] + y[size_t(c)]) / 2;
        points.push_back(m);
    }
    int bad = 0;
    std::string first;
    for (const auto& t : points) {
        const int want = pt.nearest(t[0], t[1], t[2]);
        const int got = gpu::nearestByKeys(keys, t[0], t[1], t[2]);
        if (want != got && bad++ == 0)
            first = " (first at T = " + std::to_string(t[0]) + "," + std::to_string(t[1]) + "," + std::to_string(t[2]) +
                    ": keys " + std::to_string(got) + ", reference " + std::to_string(want) + ")";
    }
    check(bad == 0, "keys match PaletteTargets::nearest on " + std::to_string(points.size()) + " colours, " + pal.name +
                        " (" + std::to_string(pal.size()) + ")" + (linear ? " linear " : " gamma ") + toString(match) +
                        first);
}

}  // namespace

int main(int argc, char** argv) {
    bool small = false, sanitize = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--small"))
            small = true;
        else if (!std::strcmp(argv[i], "--sanitize"))
            small = sanitize = true;  // few, tiny cases for compute-sanitizer
        else {
            std::printf("usage: %s [--small | --sanitize]\n", argv[0]);
            return 2;
        }
    }

    Palette bw;
    bw.name = "black-white";
    bw.colors = {{0, 0, 0}, {255, 255, 255}};
    const std::vector<Palette> palettes = {bw,
                                           test::randomPalette(2, test::freshSeed("palette 2")),
                                           test::randomPalette(3, test::freshSeed("palette 3")),
                                           test::randomPalette(16, test::freshSeed("palette 16")),
                                           test::randomPalette(17, test::freshSeed("palette 17")),
                                           test::randomPalette(256, test::freshSeed("palette 256")),
                                           repeatedPalette(),
                                           tiePalette()};

    // the search's arithmetic, in every build
    for (const Palette& pal : palettes)
        for (bool linear : {false, true})
            for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted})
                checkKeys(pal, linear, match, test::freshSeed("keys"));

#ifdef HALFTONE_HAVE_CUDA
    // the level-dependent kernels take their weights from a gray level: refused with a clear error, as on the CPU (not
    // unavailable, which would send the request to the CPU path only to be refused there); checked before the device,
    // so in every CUDA build
    for (const Kernel& k : kernels()) {
        if (!k.levelDependent()) continue;
        EdParams p;
        p.kernel = k.name;
        Plane8 out;
        const Status s =
            gpu::paletteErrorDiffusion(test::randomRgb(20, 20, "palette level-dependent"), palettes[3], p, out);
        check(!s && !s.isUnavailable() && gputest::contains(s.message(), "fixed kernels"),
              "the GPU palette path refuses " + k.name + ": " + s.message());
    }
#endif

    const GpuAvailability avail = gpu::probe();
    if (!avail.usable) {
        std::printf("no usable GPU (%s): the GPU cases are skipped\n", avail.reason.c_str());
        return gputest::finish() != 0 ? 1 : gputest::kSkipped;
    }
    std::printf("device: %s\n", avail.deviceName.c_str());

    // awkward sizes: single pixel, single row/column, primes, around the 32-row strips, not multiples of 32
    std::vector<Size> sizes = {{1, 1},    {1, 57},  {57, 1},  {2, 2},    {33, 31},  {31, 33},
                               {5, 3},    {3, 70},  {97, 61}, {64, 64},  {129, 65}, {200, 3},
                               {1000, 7}, {2, 300}, {61, 97}, {127, 33}, {37, 131}};
    if (sanitize) sizes = {{1, 1}, {1, 9}, {9, 1}, {33, 31}, {70, 37}};
    if (!small) sizes.push_back({2000, 1500});

    // every palette on the sizes, Floyd-Steinberg, gamma, both matches
    const EdParams fs;
    for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted})
        for (const Palette& pal : palettes) {
            if (sanitize && pal.size() != 16 && pal.size() != 256 && pal.name != "repeated") continue;
            EdParams p;
            p.match = match;
            for (const Size& sz : sizes) {
                if (sz.w * sz.h > 1000000 && pal.size() != 16 && pal.size() != 256) continue;  // the large one: 16, 256
                exact(test::randomRgb(sz.w, sz.h, "palette sizes"), pal, p);
            }
        }

    // every fixed kernel x gamma/linear x both matches x palettes on awkward sizes (one- and two-row kernels, masked
    // edges)
    for (const Kernel& k : kernels())
        for (bool linear : {false, true})
            for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted})
                for (const Palette& pal : palettes) {
                    if (k.levelDependent()) continue;  // refused below
                    if (sanitize && (linear || (pal.size() != 16 && pal.name != "repeated"))) continue;
                    if (small && pal.size() == 3) continue;
                    EdParams p;
                    p.kernel = k.name;
                    p.linear = linear;
                    p.match = match;
                    for (const Size& sz :
                         std::vector<Size>{{1, 1}, {41, 1}, {1, 41}, {67, 131}, small ? Size{95, 33} : Size{333, 97}})
                        exact(test::randomRgb(sz.w, sz.h, "palette kernels"), pal, p);
                }
    if (!small) {
        // a larger image per kernel with 16 colours (linear light, the matches in turn), and flat extremes that push
        // S past the clamp
        for (const Kernel& k : kernels()) {
            if (k.levelDependent()) continue;
            EdParams p;
            p.kernel = k.name;
            p.linear = true;
            p.match = k.taps.size() % 2 ? PaletteMatch::Weighted : PaletteMatch::Euclidean;
            exact(test::randomRgb(1031, 517, "palette kernels large"), palettes[3], p);
        }
    }
    for (int v : {0, 255, 128}) {
        Image flat;
        flat.space = ColorSpace::RGB;
        for (int c = 0; c < 3; ++c) {
            Plane8 pl(173, 70);
            std::fill(pl.data.begin(), pl.data.end(), uint8_t(c == 1 ? 255 - v : v));
            flat.channels.push_back(pl);
        }
        for (const Palette& pal : {palettes[1], palettes[3], repeatedPalette()}) exact(flat, pal, fs);
    }

    // gray input: one plane used as R = G = B
    {
        const Image gray = Image::gray(test::randomPlane(150, 77, test::freshSeed("palette gray")));
        for (const Palette& pal : {bw, palettes[3], tiePalette()}) exact(gray, pal, fs);
    }

    // serpentine has no wavefront: the GPU path says so (unavailable, so runImage runs it on the CPU)
    {
        EdParams p;
        p.serpentine = true;
        Plane8 out;
        const Status s = gpu::paletteErrorDiffusion(test::randomRgb(20, 20, "palette serpentine"), palettes[3], p, out);
        check(!s && s.isUnavailable() && gputest::contains(s.message(), "serpentine"),
              "serpentine is unavailable on the GPU with its reason: " + s.message());
    }
    // a palette outside 2..256 colours is an error, not unavailable
    {
        Palette one;
        one.colors = {{1, 2, 3}};
        Plane8 out;
        const Status s = gpu::paletteErrorDiffusion(test::randomRgb(8, 8, "palette one"), one, fs, out);
        check(!s && !s.isUnavailable(), "a one-colour palette is refused: " + s.message());
    }

    // progress reaches the last row; a stop request cancels the running kernel
    if (!sanitize) {
        const Image rgb = test::randomRgb(small ? 300 : 1500, small ? 200 : 1200, "palette progress");
        int64_t lastRows = -1;
        bool monotonic = true;
        RunControl rc;
        rc.onProgress = [&](const Progress& pr) {
            if (pr.rowsDone < lastRows) monotonic = false;
            lastRows = pr.rowsDone;
        };
        Plane8 out;
        const Status s = gpu::paletteErrorDiffusion(rgb, palettes[3], fs, out, rc);
        check(s.isOk() && out == referencePaletteErrorDiffusion(rgb, palettes[3], fs),
              "exact with progress reporting: " + s.message());
        check(monotonic && lastRows == rgb.height(),
              "progress rows are monotonic and end at the image height (last " + std::to_string(lastRows) + ")");
        RunControl stop;
        stop.stop.requestStop();
        const Image big = test::randomRgb(4096, 4096, "palette cancel");
        const Status c = gpu::paletteErrorDiffusion(big, palettes[3], fs, out, stop);
        check(c.isCancelled(),
              "a stop request cancels the running kernel (got: " + (c.isOk() ? std::string("ok") : c.message()) + ")");
    }

    // runImage's palette path picks the GPU for ec/wavefront and the sequential entries, with the request's space and
    // match (linear light and euclidean by default)
    {
        Registry& reg = Registry::instance();
        gpu::registerMethods(reg);
        const Image rgb = test::randomRgb(211, 97, "palette runImage");
        for (const auto& [method, variant] :
             std::vector<std::pair<std::string, std::string>>{{"ec", "wavefront"}, {"ed", "plain"}, {"ec", "rc"}})
            for (int mode = 0; mode < 3; ++mode) {
                const MethodInfo* m = reg.find(method, variant);
                if (!m) {
                    gputest::skip(method + "/" + variant + " is not registered in this build");
                    continue;
                }
                RunRequest req;
                req.method = m;
                req.palette = palettes[3];
                req.device = Device::Gpu;
                req.params.set("kernel", std::string("stucki"));
                EdParams p;
                p.kernel = "stucki";
                p.linear = mode != 1;
                p.match = mode == 2 ? PaletteMatch::Weighted : PaletteMatch::Euclidean;
                if (mode == 1) req.paletteSpace = PaletteSpace::Gamma;
                if (mode == 2) req.paletteMatch = PaletteMatch::Weighted;
                RunResult res;
                const Status s = runImage(rgb, req, res);
                const Plane8 ref = referencePaletteErrorDiffusion(rgb, palettes[3], p);
                check(s.isOk() && res.device == Device::Gpu && res.image.indices == ref,
                      "runImage " + m->id() + " to a palette on the GPU: " + (s ? res.note : s.message()) +
                          (s && !(res.image.indices == ref) ? " " + firstDiff(res.image.indices, ref) : ""));
            }
    }
    return gputest::finish();
}
