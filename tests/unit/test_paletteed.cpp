// Error diffusion to a colour palette (docs/spec.md section 4): the reference pinned on hand-computed cases, the
// exact nearest-colour grid against the full search, and every registered palette form (every MethodInfo with
// paletteCpu, each wavefront with several thread counts and band heights) against the reference bit for bit, on
// fresh random images of awkward sizes, every kernel, raster and serpentine, gamma and linear light, the euclidean
// and the weighted match, palettes of 2, 3, 16 and 256 colours and with repeated colours, gray input, and the real
// images of tests/data; and the host form of the GPU's 64-bit keys (gpu/palette/palette_keys.h) against the search.
#include <QtTest>

#include <random>

#include "core/ed/errordiffusion.h"
#include "core/ed/kernel.h"
#include "core/palette/nearestcolor.h"
#include "core/palette/paletteed.h"
#include "core/ed/parallel.h"
#include "core/ed/quantizer.h"
#include "core/job/registry.h"
#include "gpu/palette/palette_keys.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

/// One way to run a palette form: a registry entry with extra parameter values.
struct Form {
    const MethodInfo* method;
    std::map<std::string, std::string> extra;  ///< "threads", "simd"
    std::string name() const {
        std::string s = method->id();
        for (const auto& [k, v] : extra) s += " " + k + "=" + v;
        return s;
    }
};

/// Every registered palette form; methods with a thread count run with 1, 2 and 3 threads (exhaustive) or 2, methods
/// with a SIMD choice with every path this processor has (the wavefront's band height follows it).
std::vector<Form> forms(bool exhaustive = true) {
    std::vector<Form> out;
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (!m.paletteCpu || !m.exact) continue;  // ordered dither and MBVQ have palette forms of their own rules
        std::vector<std::map<std::string, std::string>> settings{{}};
        if (m.param("threads")) {
            settings = {{{"threads", "2"}}};
            if (exhaustive) settings = {{{"threads", "1"}}, {{"threads", "2"}}, {{"threads", "3"}}};
        }
        if (m.param("simd")) {
            std::vector<std::map<std::string, std::string>> more;
            for (const auto& s : settings)
                for (SimdPath p : supportedSimdPaths()) {
                    auto t = s;
                    t["simd"] = toString(p);
                    more.push_back(t);
                }
            settings = more;
        }
        for (const auto& s : settings) out.push_back({&m, s});
    }
    return out;
}

ParamValues valuesFor(const Form& f, const EdParams& p) {
    ParamValues v;
    v.set("kernel", p.kernel);
    v.set("linear", p.linear);
    if (f.method->param("serpentine")) v.set("serpentine", p.serpentine);
    for (const auto& [k, val] : f.extra) {
        if (k == "threads")
            v.set(k, int64_t(std::stoi(val)));
        else
            v.set(k, val);
    }
    return v;
}

Status runForm(const Form& f, const Image& rgb, const Palette& pal, const EdParams& p, Plane8& out,
               const RunControl& rc = {}) {
    ParamValues v = valuesFor(f, p);
    if (Status s = Registry::instance().resolveParams(*f.method, v); !s) return s;
    v.set(kPaletteMatchKey, std::string(toString(p.match)));  // as runImage sets it: not a method parameter
    return f.method->paletteCpu(rgb, pal, out, v, rc);
}

Palette blackWhite() { return Palette{"bw", {{0, 0, 0}, {255, 255, 255}}}; }

/// Palettes by name: "bw", "3", "16", "256", "repeated" (colours that appear twice or more, some adjacent).
Palette paletteNamed(const QString& kind, uint64_t seed) {
    if (kind == "bw") return blackWhite();
    if (kind == "repeated") {
        Palette p = test::randomPalette(6, seed);
        p.colors.insert(p.colors.begin() + 2, p.colors[4]);  // a later copy before the original
        p.colors.push_back(p.colors[0]);
        p.colors.push_back(p.colors[0]);
        p.colors.push_back({255, 255, 255});
        p.colors.push_back({0, 0, 0});
        p.colors.push_back({255, 255, 255});
        return p;
    }
    return test::randomPalette(kind.toInt(), seed);
}

QString describe(const EdParams& p, int w, int h, const QString& palette) {
    return QString("%1 %2x%3 %4 %5 %6 palette %7")
        .arg(QString::fromStdString(p.kernel))
        .arg(w)
        .arg(h)
        .arg(p.serpentine ? "serpentine" : "raster")
        .arg(p.linear ? "linear" : "gamma")
        .arg(toString(p.match))
        .arg(palette);
}

/// Every form against the reference on `rgb`; returns the first mismatch or an empty string.
QString checkAllForms(const Image& rgb, const Palette& pal, const EdParams& p, const Plane8& ref,
                      bool exhaustive = true) {
    for (const Form& f : forms(exhaustive)) {
        Plane8 out;
        const Status s = runForm(f, rgb, pal, p, out);
        if (!s) return QString::fromStdString(f.name() + ": " + s.message());
        if (out.data != ref.data || !out.sameSize(ref))
            return QString::fromStdString(f.name()) + ": " + test::firstDifferenceText(out, ref);
    }
    return {};
}

/// Section 1, gray, L = 2, in raster or serpentine order, with the scan position of the first pixel whose S leaves
/// [0, 4080] (where section 4's clamp acts); -1 when none does.
int64_t firstClampedPixel(const Plane8& src, const EdParams& params) {
    const Kernel* kernel = findKernel(params.kernel);
    const Quantizer q(2, params.linear);
    const int h = src.height, w = src.width, d = kernel->divisor;
    PlaneT<int32_t> err(w, h);
    auto odd = [&](int row) { return params.serpentine && (row & 1); };
    for (int i = 0; i < h; ++i)
        for (int n = 0; n < w; ++n) {
            const int j = odd(i) ? w - 1 - n : n;
            int32_t acc = 0;
            for (const Tap& t : kernel->taps) {
                const int si = i - t.di, sj = j - (odd(si) ? -t.dj : t.dj);
                if (si >= 0 && sj >= 0 && sj < w) acc += t.w * err.at(si, sj);
            }
            const int32_t s = q.input(src.at(i, j)) + floorDiv(acc + d / 2, d);
            if (s < 0 || s > 4080) return int64_t(i) * w + n;
            err.at(i, j) = s - q.targets()[size_t(q.level(s))];
        }
    return -1;
}

}  // namespace

class TestPaletteEd : public QObject {
    Q_OBJECT
private slots:
    void registeredForms();
    void referenceHandComputed();
    void referenceWeightsAndTies();
    void nearestColorIsExact_data();
    void nearestColorIsExact();
    void gpuKeysMatchNearest_data();
    void gpuKeysMatchNearest();
    void formsMatchReference_data();
    void formsMatchReference();
    void blackWhiteDiffersFromGrayOnlyWhereClamped();
    void repeatedColourSmallerIndexWins();
    void realImages_data();
    void realImages();
    void runImagePalettePath();
    void badInput();
    void cancellation();
    void sharedEngineAwkwardSizes();
};

void TestPaletteEd::registeredForms() {
    // the sequential variants, the wavefront and the trapezoid blocks have a palette form; every form is exact
    for (const char* id : {"ed/plain", "ed/rc", "ec/plain", "ec/rc", "ec/wavefront", "ec/trapezoid"}) {
        const std::string s(id);
        const MethodInfo* m = Registry::instance().find(s.substr(0, 2), s.substr(3));
        QVERIFY2(m && m->paletteCpu, id);
        QVERIFY(m->exact);
    }
    QVERIFY(forms().size() >= 9);
}

void TestPaletteEd::referenceHandComputed() {
    // 3x2 gray image (R = G = B), black/white, Floyd-Steinberg, gamma; worked by hand from section 4:
    // (0,0) A=3200 S=3200 -> white, E=-880          (0,1) A=4080 acc=-6160 S=3695 -> white, E=-385
    // (0,2) A=160 acc=-2695 S=-8 -> T=0 black, E=0   (the clamp: section 1 keeps E=-8)
    // (1,0) A=0 acc=-5555 S=-347 -> T=0 black, E=0  (1,1) A=2048 acc=-2805 S=1873 -> black, E=1873
    // (1,2) A=4080 acc=12726 S=4875 -> T=4080 white
    // Gray input and gray targets: both matches measure w_R + w_G + w_B times the same square, so both agree.
    Plane8 g(3, 2);
    const uint8_t px[6] = {200, 255, 10, 0, 128, 255};
    std::copy(px, px + 6, g.data.begin());
    for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted}) {
        EdParams p;
        p.match = match;
        const Plane8 out = referencePaletteErrorDiffusion(Image::gray(g), blackWhite(), p);
        const std::vector<uint8_t> want = {1, 1, 0, 0, 0, 1};
        QCOMPARE(out.data, want);
        // every form agrees on it
        QCOMPARE(checkAllForms(Image::gray(g), blackWhite(), p, out), QString());
    }
}

void TestPaletteEd::referenceWeightsAndTies() {
    EdParams p;
    auto one = [&](Rgb8 c, const Palette& pal) {
        Image im;
        im.space = ColorSpace::RGB;
        for (int ch = 0; ch < 3; ++ch) im.channels.push_back(Plane8(1, 1, c[size_t(ch)]));
        return int(referencePaletteErrorDiffusion(im, pal, p).data[0]);
    };
    // (128,128,0) between red and green: equal euclidean distances, a tie that the smaller index wins in either
    // order; 299 dR^2 + 587 dG^2 + 114 dB^2 favours green
    const Palette rg{"rg", {{255, 0, 0}, {0, 255, 0}}};
    const Palette gr{"gr", {{0, 255, 0}, {255, 0, 0}}};
    p.match = PaletteMatch::Euclidean;
    QCOMPARE(one({128, 128, 0}, rg), 0);
    QCOMPARE(one({128, 128, 0}, gr), 0);
    // (0,160,200) to green or blue: euclidean 95^2 + 200^2 = 49025 against 160^2 + 55^2 = 28625 takes blue;
    // weighted 587 * 95^2 + 114 * 200^2 = 9857675 against 587 * 160^2 + 114 * 55^2 = 15372050 takes green
    const Palette gb{"gb", {{0, 255, 0}, {0, 0, 255}}};
    QCOMPARE(one({0, 160, 200}, gb), 1);
    p.match = PaletteMatch::Weighted;
    QCOMPARE(one({0, 160, 200}, gb), 0);
    QCOMPARE(one({128, 128, 0}, rg), 1);
    QCOMPARE(one({128, 128, 0}, gr), 0);
    // a tie: 127 lies halfway between 0 and 254 in every channel; the smaller index wins in either order
    const Palette a{"a", {{0, 0, 0}, {254, 254, 254}}}, b{"b", {{254, 254, 254}, {0, 0, 0}}};
    QCOMPARE(one({127, 127, 127}, a), 0);
    QCOMPARE(one({127, 127, 127}, b), 0);
    // a repeated colour: the first copy
    const Palette rep{"rep", {{9, 9, 9}, {200, 10, 10}, {200, 10, 10}}};
    QCOMPARE(one({220, 0, 0}, rep), 1);
    // the nearest of the search agrees with the reference's on these
    for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted})
        for (const Palette& pal : {rg, gr, gb, a, b, rep}) {
            const PaletteTargets pt(pal, false, match);
            NearestColor nc(pt);
            for (int v : {0, 2032, 2040, 4080}) QCOMPARE(nc.nearest(v, v, 0), pt.nearest(v, v, 0));
        }
}

void TestPaletteEd::nearestColorIsExact_data() {
    QTest::addColumn<int>("colors");
    QTest::addColumn<bool>("linear");
    QTest::addColumn<int>("shift");
    QTest::addColumn<bool>("weighted");
    for (bool weighted : {false, true}) {
        const char* m = weighted ? "weighted" : "euclidean";
        for (int n : {2, 3, 4, 16, 64, 256})
            for (bool lin : {false, true})
                for (int shift : {0, 5, 7, 9})
                    QTest::addRow("%d colours %s %s shift %d", n, lin ? "linear" : "gamma", m, shift)
                        << n << lin << shift << weighted;
        // clustered colours make many near-ties and long candidate lists
        QTest::addRow("256 clustered %s", m) << -256 << false << 0 << weighted;
        QTest::addRow("16 clustered %s", m) << -16 << false << 0 << weighted;
    }
}

void TestPaletteEd::nearestColorIsExact() {
    QFETCH(int, colors);
    QFETCH(bool, linear);
    QFETCH(int, shift);
    QFETCH(bool, weighted);
    const uint64_t seed = test::freshSeed("nearestColorIsExact");
    std::mt19937_64 rng(seed);
    Palette pal;
    if (colors > 0) {
        pal = test::randomPalette(colors, seed);
    } else {
        for (int i = 0; i < -colors; ++i)
            pal.colors.push_back({uint8_t(100 + rng() % 4), uint8_t(100 + rng() % 4), uint8_t(100 + rng() % 4)});
    }
    if (pal.colors.size() > 2) pal.colors[2] = pal.colors[1];  // a repeated colour
    const PaletteTargets pt(pal, linear, weighted ? PaletteMatch::Weighted : PaletteMatch::Euclidean);
    NearestColor nc(pt, shift);
    auto check = [&](int r, int g, int b) {
        const int want = pt.nearest(r, g, b), got = nc.nearest(r, g, b);
        if (want != got)
            QFAIL(qPrintable(QString("seed %1: at (%2,%3,%4) search %5 vs full %6")
                                 .arg(seed)
                                 .arg(r)
                                 .arg(g)
                                 .arg(b)
                                 .arg(got)
                                 .arg(want)));
    };
    for (int i = 0; i < 100000; ++i) check(int(rng() % 4081), int(rng() % 4081), int(rng() % 4081));
    // cell corners and the points halfway between targets (where ties live)
    const int step = 1 << nc.shift(), side = 4080 / step + 1;
    auto corners = [&](int r, int g, int b) {
        check(r, g, b);
        check(std::min(r + step - 1, 4080), std::min(g + step - 1, 4080), std::min(b + step - 1, 4080));
    };
    if (side <= 64) {
        for (int r = 0; r <= 4080; r += step)
            for (int g = 0; g <= 4080; g += step)
                for (int b = 0; b <= 4080; b += step) corners(r, g, b);
    } else {  // fine cells: a sample of them
        for (int i = 0; i < 100000; ++i)
            corners(int(rng() % side) * step, int(rng() % side) * step, int(rng() % side) * step);
    }
    for (int i = 0; i < pt.size(); ++i)
        for (int j = 0; j < pt.size(); j += 1 + pt.size() / 16) {
            const auto &a = pt.targets[size_t(i)], &b = pt.targets[size_t(j)];
            check((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2);
            check(a[0], a[1], a[2]);
        }
}

void TestPaletteEd::gpuKeysMatchNearest_data() {
    QTest::addColumn<QString>("palette");
    QTest::addColumn<bool>("linear");
    QTest::addColumn<bool>("weighted");
    for (const char* pal : {"bw", "3", "16", "17", "256", "repeated"})
        for (bool lin : {false, true})
            for (bool weighted : {false, true})
                QTest::addRow("%s %s %s", pal, lin ? "linear" : "gamma", weighted ? "weighted" : "euclidean")
                    << QString(pal) << lin << weighted;
}

void TestPaletteEd::gpuKeysMatchNearest() {
    // The keys the GPU compares (built on the host, gpu/palette/palette_keys.h) pick the reference's colour: random
    // colours, the cube's corners, every target and the midpoints between targets (ties).
    QFETCH(QString, palette);
    QFETCH(bool, linear);
    QFETCH(bool, weighted);
    const uint64_t seed = test::freshSeed("gpuKeys");
    const Palette pal = paletteNamed(palette, seed);
    const PaletteTargets pt(pal, linear, weighted ? PaletteMatch::Weighted : PaletteMatch::Euclidean);
    const gpu::PaletteKeys keys = gpu::makePaletteKeys(pt.targets, pt.weights);
    std::mt19937_64 rng(seed);
    std::vector<std::array<int32_t, 3>> points;
    for (int i = 0; i < 20000; ++i)
        points.push_back({int32_t(rng() % 4081), int32_t(rng() % 4081), int32_t(rng() % 4081)});
    for (int32_t r : {0, 4080})
        for (int32_t g : {0, 4080})
            for (int32_t b : {0, 4080}) points.push_back({r, g, b});
    for (const auto& a : pt.targets) {
        points.push_back(a);
        for (const auto& b : pt.targets)
            if (rng() % 8 == 0) points.push_back({(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2});
    }
    for (const auto& t : points) {
        const int want = pt.nearest(t[0], t[1], t[2]), got = gpu::nearestByKeys(keys, t[0], t[1], t[2]);
        if (want != got)
            QFAIL(qPrintable(QString("seed %1: at (%2,%3,%4) keys %5 vs reference %6")
                                 .arg(seed)
                                 .arg(t[0])
                                 .arg(t[1])
                                 .arg(t[2])
                                 .arg(got)
                                 .arg(want)));
    }
    // the bounds of palette_keys.h: every a below 2^31 (weighted) or 2^21 (euclidean), keys below 2^44 or 2^35
    const int aBits = weighted ? 31 : 21, keyBits = weighted ? 44 : 35;
    for (int i = 0; i < keys.size; ++i) {
        for (int c = 0; c < 3; ++c) QVERIFY(keys.a[c][i] < (uint32_t(1) << aBits));
        QVERIFY(gpu::paletteKey(keys, i, 4080, 4080, 4080) < (uint64_t(1) << keyBits));
        QVERIFY(gpu::paletteKey(keys, i, 0, 0, 0) < (uint64_t(1) << keyBits));
    }
}

void TestPaletteEd::formsMatchReference_data() {
    test::columns<QString, QString>("kernel", "palette");
    // Under the sanitizers the 256-colour rows, which walk the same code as the 16-colour ones through longer
    // candidate lists, run for the first two kernels only (one and two rows of reach).
    int index = 0;
    for (const Kernel& k : kernels()) {
        if (k.levelDependent()) continue;
        for (const char* pal : {"bw", "3", "16", "256", "repeated"})
            if (!(test::kUnderSanitizer && index >= 2 && std::string(pal) == "256"))
                QTest::addRow("%s %s", k.name.c_str(), pal) << QString::fromStdString(k.name) << QString(pal);
        ++index;
    }
}

void TestPaletteEd::formsMatchReference() {
    QFETCH(QString, kernel);
    QFETCH(QString, palette);
    const uint64_t seed = test::freshSeed("formsMatchReference");
    const Palette pal = paletteNamed(palette, seed);
    // awkward sizes: 1x1, one row, one column, primes, not multiples of 32 (nor of any band height), and tall
    // images with many bands per thread (hand-off slots reused)
    const std::vector<std::pair<int, int>> sizes = {{1, 1},  {1, 9},   {9, 1},   {2, 2},   {3, 37},
                                                    {37, 3}, {13, 17}, {31, 33}, {67, 41}, {20, 151}};
    uint64_t n = 0;
    for (const auto& [w, h] : sizes)
        for (bool serp : {false, true})
            for (bool lin : {false, true})
                for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted}) {
                    EdParams p;
                    p.kernel = kernel.toStdString();
                    p.serpentine = serp;
                    p.linear = lin;
                    p.match = match;
                    const bool gray = (++n % 5) == 0;
                    const Image im =
                        gray ? Image::gray(test::randomPlane(w, h, seed + n)) : test::randomRgb(w, h, seed + n);
                    const Plane8 ref = referencePaletteErrorDiffusion(im, pal, p);
                    const QString d = checkAllForms(im, pal, p, ref);
                    QVERIFY2(d.isEmpty(), qPrintable(QString("seed %1, %2%3: %4")
                                                         .arg(seed)
                                                         .arg(describe(p, w, h, palette))
                                                         .arg(gray ? " (gray input)" : "")
                                                         .arg(d)));
                }
}

void TestPaletteEd::blackWhiteDiffersFromGrayOnlyWhereClamped() {
    // With black/white and gray input, section 4 is section 1 at L = 2 except that S is clamped: the two agree on
    // every pixel scanned before the first S outside [0, 4080], and everywhere when there is none.
    const uint64_t seed = test::freshSeed("blackWhite");
    int identical = 0, differing = 0;
    for (const Kernel& k : kernels())
        for (bool serp : {false, true})
            for (bool lin : {false, true})
                if (!k.levelDependent())
                    for (int v = 0; v < 6; ++v) {
                        EdParams p;
                        p.kernel = k.name;
                        p.serpentine = serp;
                        p.linear = lin;
                        const int w = 23 + v * 7, h = 11 + v * 3;
                        Plane8 src = test::randomPlane(w, h, seed + uint64_t(v) * 31 + uint64_t(k.taps.size()));
                        if (v % 2 == 1)  // a mid-gray image keeps S in range: no clamp at all
                            for (uint8_t& x : src.data) x = uint8_t(96 + x % 64);
                        const Plane8 gray = referenceErrorDiffusion(src, p);
                        const Plane8 idx = referencePaletteErrorDiffusion(Image::gray(src), blackWhite(), p);
                        const int64_t first = firstClampedPixel(src, p);
                        int64_t firstDiff = -1;
                        for (int i = 0; i < h && firstDiff < 0; ++i)
                            for (int n = 0; n < w; ++n) {
                                const int j = serp && (i & 1) ? w - 1 - n : n;
                                if ((idx.at(i, j) ? 255 : 0) != gray.at(i, j)) {
                                    firstDiff = int64_t(i) * w + n;
                                    break;
                                }
                            }
                        const QString what = QString("seed %1, %2").arg(seed).arg(describe(p, w, h, "bw"));
                        if (first < 0) QVERIFY2(firstDiff < 0, qPrintable(what + ": differs without a clamp"));
                        if (firstDiff >= 0)
                            QVERIFY2(first >= 0 && firstDiff > first,
                                     qPrintable(what + ": differs at or before the first clamp"));
                        (firstDiff < 0 ? identical : differing)++;
                    }
    // both cases occur: the clamp changes some images and leaves others alone
    QVERIFY(identical > 0);
    QVERIFY(differing > 0);
}

void TestPaletteEd::repeatedColourSmallerIndexWins() {
    const uint64_t seed = test::freshSeed("repeated");
    const Palette pal = paletteNamed("repeated", seed);
    std::vector<bool> later(pal.colors.size(), false);
    for (size_t k = 0; k < pal.colors.size(); ++k)
        for (size_t j = 0; j < k; ++j) later[k] = later[k] || pal.colors[j] == pal.colors[k];
    for (bool lin : {false, true}) {
        EdParams p;
        p.linear = lin;
        p.match = lin ? PaletteMatch::Euclidean : PaletteMatch::Weighted;
        const Image im = test::randomRgb(61, 47, seed);
        for (const Form& f : forms()) {
            Plane8 out;
            QVERIFY(runForm(f, im, pal, p, out));
            for (uint8_t k : out.data) QVERIFY2(!later[k], qPrintable(QString::fromStdString(f.name())));
        }
    }
}

void TestPaletteEd::realImages_data() {
    test::columns<QString, QString, QString>("file", "palette", "kernel");
    for (const char* f : {"moon.png", "chelsea.png", "page.png"})
        for (const char* pal : {"bw", "16", "256"})
            for (const char* k : {"floyd-steinberg", "jarvis", "atkinson"})
                QTest::addRow("%s %s %s", f, pal, k) << f << pal << k;
}

void TestPaletteEd::realImages() {
    QFETCH(QString, file);
    QFETCH(QString, palette);
    QFETCH(QString, kernel);
    Image img;
    const Status rs = io::readImage(test::dataPath(file.toStdString()), img);
    QVERIFY2(rs, rs.message().c_str());
    const Image rgb = convertColor(img, ColorMode::RGB);
    const uint64_t seed = test::freshSeed("realImages");
    const Palette pal = paletteNamed(palette, seed);
    for (int mode = 0; mode < 4; ++mode) {
        EdParams p;
        p.kernel = kernel.toStdString();
        p.serpentine = mode == 1 || mode == 2;
        p.linear = mode >= 2;  // both working spaces and both matches, across the two scans
        p.match = mode % 2 ? PaletteMatch::Weighted : PaletteMatch::Euclidean;
        const Plane8 ref = referencePaletteErrorDiffusion(rgb, pal, p);
        const QString d = checkAllForms(rgb, pal, p, ref, false);
        QVERIFY2(d.isEmpty(), qPrintable(QString("seed %1, %2 %3: %4")
                                             .arg(seed)
                                             .arg(file)
                                             .arg(describe(p, rgb.width(), rgb.height(), palette))
                                             .arg(d)));
    }
}

void TestPaletteEd::runImagePalettePath() {
    // through runImage, as the CLI and the studio run it: RGB out, indices and palette attached
    const uint64_t seed = test::freshSeed("runImage");
    // The request's space and match replace the method's own "linear"; by default linear light and the euclidean
    // match.
    const Palette pal = test::randomPalette(16, seed);
    const Image im = test::randomRgb(45, 29, seed);
    for (int mode = 0; mode < 5; ++mode) {
        EdParams p;
        p.linear = mode % 2 == 0;
        p.match = mode < 2 || mode == 4 ? PaletteMatch::Euclidean : PaletteMatch::Weighted;
        const Plane8 ref = referencePaletteErrorDiffusion(im, pal, p);
        for (const Form& f : forms()) {
            RunRequest req;
            req.method = f.method;
            EdParams other = p;
            other.linear = !p.linear;  // the method's own value does not decide a palette run
            req.params = valuesFor(f, other);
            if (mode < 4) {  // mode 4: the defaults
                req.paletteSpace = p.linear ? PaletteSpace::Linear : PaletteSpace::Gamma;
                req.paletteMatch = p.match;
            }
            req.palette = pal;
            req.device = Device::Cpu;
            RunResult res;
            const Status s = runImage(im, req, res);
            QVERIFY2(s, qPrintable(QString::fromStdString(f.name() + ": " + s.message())));
            QVERIFY2(res.image.indices == ref, qPrintable(test::firstDifferenceText(res.image.indices, ref)));
            QCOMPARE(res.image.channelCount(), 3);
            for (size_t i = 0; i < ref.size(); ++i)
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(res.image.channels[size_t(c)].data[i], pal.colors[ref.data[i]][size_t(c)]);
        }
    }
}

void TestPaletteEd::badInput() {
    const Image im = test::randomRgb(5, 5, 1);
    EdParams p;
    for (const Form& f : forms()) {
        Plane8 out;
        const Palette one{"one", {{1, 2, 3}}};
        QVERIFY(!runForm(f, im, one, p, out));
        Palette tooMany = test::randomPalette(257, 2);
        QVERIFY(!runForm(f, im, tooMany, p, out));
        Image cmyk = im;
        cmyk.channels.push_back(cmyk.channels[0]);
        const Status s = runForm(f, cmyk, blackWhite(), p, out);
        QVERIFY(!s);
        QVERIFY2(s.message().find("channels") != std::string::npos, s.message().c_str());
    }
}

void TestPaletteEd::cancellation() {
    const Image im = test::randomRgb(300, 200, 3);
    EdParams p;
    for (const Form& f : forms()) {
        RunControl rc;
        rc.stop.requestStop();
        Plane8 out;
        const Status s = runForm(f, im, test::randomPalette(16, 4), p, out, rc);
        QVERIFY2(s.isCancelled(), qPrintable(QString::fromStdString(f.name() + ": " + s.message())));
    }
}

// The band engine gray and palette share (core/ed/bandengine.h), called directly: trapezoid blocks 3 and 8 columns wide
// columns and as the schedule picks them, wavefront bands on more threads than bands, on every SIMD path's band height.
void TestPaletteEd::sharedEngineAwkwardSizes() {
    const uint64_t seed = test::freshSeed("sharedEngineAwkwardSizes");
    const std::vector<std::pair<int, int>> sizes = {{1, 1}, {1, 23}, {23, 1}, {2, 5}, {7, 3}, {29, 31}, {53, 97}};
    const Palette pal = test::randomPalette(12, seed);
    uint64_t n = 0;
    for (const Kernel& k : kernels()) {
        if (k.levelDependent()) continue;
        for (const auto& [w, h] : sizes) {
            EdParams p;
            p.kernel = k.name;
            p.linear = (++n % 2) == 0;
            const Image im = test::randomRgb(w, h, seed + n);
            const Plane8 ref = referencePaletteErrorDiffusion(im, pal, p);
            const QString where = QString("seed %1, %2").arg(seed).arg(describe(p, w, h, "random 12"));
            // one engine run with options o, compared with the reference
            auto check = [&](auto engine, const ParallelOptions& o, const QString& form) {
                Plane8 out;
                QVERIFY(engine(im, pal, out, p, o, RunControl{}).isOk());
                QVERIFY2(out == ref, qPrintable(where + " " + form + ": " + test::firstDifferenceText(out, ref)));
            };
            for (int threads : {1, 2, 5}) {
                ParallelOptions o;
                o.threads = threads;
                for (int bw : {0, 3, 8}) {
                    o.blockWidth = bw;
                    check(trapezoidPaletteErrorDiffusion, o,
                          QString("trapezoid threads %1 block %2").arg(threads).arg(bw));
                }
                o.blockWidth = 0;
                for (SimdPath simd : supportedSimdPaths()) {
                    o.simd = simd;
                    check(wavefrontPaletteErrorDiffusion, o,
                          QString("wavefront threads %1 %2").arg(threads).arg(toString(simd)));
                }
            }
        }
    }
}

QTEST_APPLESS_MAIN(TestPaletteEd)
#include "test_paletteed.moc"
