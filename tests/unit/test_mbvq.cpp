// MBVQ colour error diffusion (docs/spec.md section 6; Shaked, Arad, Fitzhugh and Sobel 1999): the quadruples
// partition the RGB cube, flat colours use only their quadruple's four colours, the printed pixels' brightness varies
// less than with plain vector error diffusion to the same eight colours, the row-ring implementation equals a
// plain full-buffer statement of the recurrence, and the registry runs it without a palette.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/ed/errordiffusion.h"
#include "core/ed/kernel.h"
#include "core/palette/mbvq.h"
#include "core/palette/paletteed.h"
#include "core/ed/quantizer.h"
#include "core/job/registry.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

/// Section 6 as written: full-size error planes, gathering each pixel's sources, mirrored taps on odd rows.
Plane8 specMbvq(const Image& rgb, const EdParams& p) {
    const Kernel* kernel = findKernel(p.kernel);
    const auto table = Quantizer(2, p.linear).inputTable();
    const Palette& pal = mbvqPalette();
    const int h = rgb.height(), w = rgb.width(), d = kernel->divisor;
    PlaneT<int32_t> err[3] = {PlaneT<int32_t>(w, h), PlaneT<int32_t>(w, h), PlaneT<int32_t>(w, h)};
    Plane8 out(w, h);
    auto odd = [&](int row) { return p.serpentine && (row & 1); };
    for (int i = 0; i < h; ++i)
        for (int n = 0; n < w; ++n) {
            const int j = odd(i) ? w - 1 - n : n;
            int32_t a[3], t[3];
            for (int c = 0; c < 3; ++c) {
                int32_t acc = 0;
                for (const Tap& tap : kernel->taps) {
                    const int si = i - tap.di, sj = j - (odd(si) ? -tap.dj : tap.dj);
                    if (si >= 0 && sj >= 0 && sj < w) acc += tap.w * err[c].at(si, sj);
                }
                a[c] = table[rgb.channels[size_t(c)].at(i, j)];
                t[c] = std::clamp(a[c] + floorDiv(acc + d / 2, d), 0, 4080);
            }
            int best = -1;
            int64_t bestD = INT64_MAX;
            for (int v : mbvqVertices(mbvqQuadruple(a[0], a[1], a[2]))) {
                int64_t dist = 0;
                for (int c = 0; c < 3; ++c) {
                    const int64_t e = t[c] - table[pal.colors[size_t(v)][size_t(c)]];
                    dist += e * e;
                }
                if (dist < bestD) bestD = dist, best = v;
            }
            out.at(i, j) = uint8_t(best);
            for (int c = 0; c < 3; ++c) err[c].at(i, j) = t[c] - table[pal.colors[size_t(best)][size_t(c)]];
        }
    return out;
}

/// Variance of the luminance (linear light, 0..1, Rec. 709 weights) of the pixels of an RGB image: the brightness
/// variation of the printed dots that Shaked et al. minimise.
double luminanceVariance(const Image& rgb) {
    double sum = 0, sum2 = 0;
    const size_t n = rgb.channels[0].size();
    for (size_t i = 0; i < n; ++i) {
        const double y = 0.2126 * srgbToLinear(rgb.channels[0].data[i] / 255.0) +
                         0.7152 * srgbToLinear(rgb.channels[1].data[i] / 255.0) +
                         0.0722 * srgbToLinear(rgb.channels[2].data[i] / 255.0);
        sum += y;
        sum2 += y * y;
    }
    const double mean = sum / double(n);
    return sum2 / double(n) - mean * mean;
}

}  // namespace

class TestMbvq : public QObject {
    Q_OBJECT
private slots:
    void quadruplesByHand();
    void quadruplesPartitionTheCube();
    void flatColoursUseOnlyTheirQuadruple_data();
    void flatColoursUseOnlyTheirQuadruple();
    void lowerBrightnessVariationThanVectorEd_data();
    void lowerBrightnessVariationThanVectorEd();
    void matchesSpecStatement_data();
    void matchesSpecStatement();
    void paletteOrderAndErrors();
    void registryRunsWithoutPalette();
};

void TestMbvq::quadruplesByHand() {
    QCOMPARE(mbvqQuadruple(4080, 4080, 4080), MbvqQuadruple::CMYW);
    QCOMPARE(mbvqQuadruple(0, 0, 0), MbvqQuadruple::KRGB);
    QCOMPARE(mbvqQuadruple(2048, 2048, 2048), MbvqQuadruple::MYGC);  // gray 128 in gamma mode
    QCOMPARE(mbvqQuadruple(1920, 1920, 1920), MbvqQuadruple::RGBM);  // gray 120
    QCOMPARE(mbvqQuadruple(4080, 0, 0), MbvqQuadruple::KRGB);        // red: on the planes, the lower side
    QCOMPARE(mbvqQuadruple(4080, 4080, 0), MbvqQuadruple::RGMY);     // yellow
    QCOMPARE(mbvqQuadruple(0, 4080, 4080), MbvqQuadruple::CMGB);     // cyan
    QCOMPARE(mbvqQuadruple(4080, 0, 4080), MbvqQuadruple::RGBM);     // magenta
    const Palette& p = mbvqPalette();
    QCOMPARE(p.size(), 8);
    QCOMPARE(p.colors[0], (Rgb8{0, 255, 255}));
    QCOMPARE(p.colors[6], (Rgb8{255, 255, 255}));
    QCOMPARE(p.colors[7], (Rgb8{0, 0, 0}));
}

void TestMbvq::quadruplesPartitionTheCube() {
    // Shaked et al.: the six quadruples are tetrahedra that partition the cube, each colour lying in the one chosen
    // for it. Barycentric coordinates of random colours in their tetrahedron are all >= 0.
    std::mt19937_64 rng(test::freshSeed("mbvq partition"));
    const Palette& p = mbvqPalette();
    for (int trial = 0; trial < 20000; ++trial) {
        const double c[3] = {double(rng() % 4081), double(rng() % 4081), double(rng() % 4081)};
        const auto v = mbvqVertices(mbvqQuadruple(int32_t(c[0]), int32_t(c[1]), int32_t(c[2])));
        double m[3][3], rhs[3];
        for (int r = 0; r < 3; ++r) {
            const double v0 = p.colors[size_t(v[0])][size_t(r)] / 255.0 * 4080;
            for (int k = 0; k < 3; ++k) m[r][k] = p.colors[size_t(v[k + 1])][size_t(r)] / 255.0 * 4080 - v0;
            rhs[r] = c[r] - v0;
        }
        const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        QVERIFY(std::abs(det) > 1);
        double lambda[3];
        for (int k = 0; k < 3; ++k) {
            double mk[3][3];
            for (int r = 0; r < 3; ++r)
                for (int q = 0; q < 3; ++q) mk[r][q] = q == k ? rhs[r] : m[r][q];
            lambda[k] = (mk[0][0] * (mk[1][1] * mk[2][2] - mk[1][2] * mk[2][1]) -
                         mk[0][1] * (mk[1][0] * mk[2][2] - mk[1][2] * mk[2][0]) +
                         mk[0][2] * (mk[1][0] * mk[2][1] - mk[1][1] * mk[2][0])) /
                        det;
        }
        const double l0 = 1 - lambda[0] - lambda[1] - lambda[2];
        QVERIFY2(l0 >= -1e-9 && lambda[0] >= -1e-9 && lambda[1] >= -1e-9 && lambda[2] >= -1e-9,
                 qPrintable(QString("%1 %2 %3 in %4")
                                .arg(c[0])
                                .arg(c[1])
                                .arg(c[2])
                                .arg(toString(mbvqQuadruple(int32_t(c[0]), int32_t(c[1]), int32_t(c[2]))))));
    }
}

void TestMbvq::flatColoursUseOnlyTheirQuadruple_data() {
    test::intRows<3>({"r", "g", "b"}, {{"mid gray 128", {128, 128, 128}},
                                       {"gray 100", {100, 100, 100}},
                                       {"gray 200", {200, 200, 200}},
                                       {"skin 224,172,150", {224, 172, 150}},
                                       {"sky 90,140,220", {90, 140, 220}},
                                       {"olive 120,130,40", {120, 130, 40}}});
}

void TestMbvq::flatColoursUseOnlyTheirQuadruple() {
    QFETCH(int, r);
    QFETCH(int, g);
    QFETCH(int, b);
    for (const Kernel& k : kernels())
        for (bool serpentine : {false, true})
            for (bool linear : {false, true}) {
                if (k.levelDependent()) continue;  // MBVQ takes the fixed kernels (levelDependentKernelsAreRefused)
                EdParams p;
                p.kernel = k.name;
                p.serpentine = serpentine;
                p.linear = linear;
                const auto table = Quantizer(2, linear).inputTable();
                const auto v = mbvqVertices(mbvqQuadruple(table[size_t(r)], table[size_t(g)], table[size_t(b)]));
                Plane8 idx;
                QVERIFY(mbvqErrorDiffusion(test::flatRgb(61, 47, {uint8_t(r), uint8_t(g), uint8_t(b)}), mbvqPalette(),
                                           p, idx)
                            .isOk());
                std::vector<int> used(8, 0);
                for (uint8_t i : idx.data) ++used[i];
                for (int c = 0; c < 8; ++c)
                    if (used[size_t(c)])
                        QVERIFY2(std::find(v.begin(), v.end(), c) != v.end(),
                                 qPrintable(QString("%1 serpentine %2 linear %3 uses colour %4")
                                                .arg(QString::fromStdString(k.name))
                                                .arg(serpentine)
                                                .arg(linear)
                                                .arg(c)));
            }
}

void TestMbvq::lowerBrightnessVariationThanVectorEd_data() {
    test::intRows<3>({"r", "g", "b"}, {{"mid gray 128", {128, 128, 128}},
                                       {"gray 90", {90, 90, 90}},
                                       {"gray 180", {180, 180, 180}},
                                       {"skin 224,172,150", {224, 172, 150}},
                                       {"sky 90,140,220", {90, 140, 220}}});
}

void TestMbvq::lowerBrightnessVariationThanVectorEd() {
    // The aim of MBVQ: a flat patch is printed with the four colours of least brightness variation, so the luminance
    // of the printed pixels varies much less than with plain vector error diffusion (docs/spec.md section 4) to the
    // same eight colours, and less than with separable (per-channel) error diffusion, in both working spaces.
    // Measured: 0.05 to 0.09 against 0.10 to 0.25 (mid gray in gamma mode: 0.047 against 0.245).
    QFETCH(int, r);
    QFETCH(int, g);
    QFETCH(int, b);
    const Image flat = test::flatRgb(128, 128, {uint8_t(r), uint8_t(g), uint8_t(b)});
    for (bool linear : {false, true}) {
        EdParams p;
        p.linear = linear;
        Plane8 idx;
        QVERIFY(mbvqErrorDiffusion(flat, mbvqPalette(), p, idx).isOk());
        const double mbvq = luminanceVariance(expandIndexed(idx, mbvqPalette()));
        const double vector =
            luminanceVariance(expandIndexed(referencePaletteErrorDiffusion(flat, mbvqPalette(), p), mbvqPalette()));
        Image separable = flat;
        for (Plane8& ch : separable.channels) ch = referenceErrorDiffusion(ch, p);
        const double sep = luminanceVariance(separable);
        qInfo("linear %d: luminance variance MBVQ %.3g, vector ED %.3g, separable ED %.3g", linear, mbvq, vector, sep);
        QVERIFY2(mbvq < 0.8 * vector, qPrintable(QString("MBVQ %1, vector ED %2").arg(mbvq).arg(vector)));
        QVERIFY2(mbvq < 0.8 * sep, qPrintable(QString("MBVQ %1, separable ED %2").arg(mbvq).arg(sep)));
    }
}

void TestMbvq::matchesSpecStatement_data() {
    test::columns<QString, bool, bool>("kernel", "serpentine", "linear");
    for (const Kernel& k : kernels())
        if (!k.levelDependent())
            for (bool s : {false, true})
                QTest::newRow(qPrintable(QString::fromStdString(k.name) + (s ? " serpentine" : "")))
                    << QString::fromStdString(k.name) << s << (k.name == "jarvis");
}

void TestMbvq::matchesSpecStatement() {
    const EdParams p = test::edParamsFromRow(false);
    std::mt19937_64 rng(test::freshSeed("mbvq spec"));
    for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {97, 1}, {1, 97}, {2, 3}, {31, 33}, {67, 41}}) {
        const Image im = test::randomRgb(w, h, rng());
        Plane8 idx;
        QVERIFY(mbvqErrorDiffusion(im, mbvqPalette(), p, idx).isOk());
        QCOMPARE(idx, specMbvq(im, p));
    }
}

void TestMbvq::paletteOrderAndErrors() {
    const Image im = test::randomRgb(40, 30, test::freshSeed("mbvq order"));
    Plane8 a, b;
    QVERIFY(mbvqErrorDiffusion(im, mbvqPalette(), {}, a).isOk());
    Palette reversed = mbvqPalette();
    std::reverse(reversed.colors.begin(), reversed.colors.end());
    QVERIFY(mbvqErrorDiffusion(im, reversed, {}, b).isOk());
    QCOMPARE(expandIndexed(b, reversed).channels, expandIndexed(a, mbvqPalette()).channels);
    Palette wrong = mbvqPalette();
    wrong.name = "almost";
    wrong.colors[3] = {254, 0, 0};
    const Status s = mbvqErrorDiffusion(im, wrong, {}, b);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("'almost'") != std::string::npos, s.message().c_str());
    wrong.colors[3] = wrong.colors[4];
    QVERIFY(!mbvqErrorDiffusion(im, wrong, {}, b).isOk());
    RunControl rc;
    rc.stop.requestStop();
    QVERIFY(mbvqErrorDiffusion(im, mbvqPalette(), {}, b, rc).isCancelled());
}

void TestMbvq::registryRunsWithoutPalette() {
    const MethodInfo* m = Registry::instance().find("ed", "mbvq");
    QVERIFY(m && m->paletteCpu && m->fixedPalette);
    QCOMPARE(m->devicesString(), std::string("cpu"));
    QVERIFY(!m->param("levels"));
    QVERIFY(m->param("kernel") && m->param("serpentine") && m->param("linear"));
    const Image im = test::randomRgb(33, 21, test::freshSeed("mbvq registry"));
    RunRequest req;
    req.method = m;
    req.params.set("kernel", std::string("stucki"));
    req.params.set("serpentine", true);
    RunResult res;
    QVERIFY(runImage(im, req, res).isOk());
    QCOMPARE(res.image.space, ColorSpace::RGB);
    QCOMPARE(int(res.image.palette.size()), 8);
    // a run to a palette: linear light by default, gamma space when the request says so
    EdParams p;
    p.kernel = "stucki";
    p.serpentine = true;
    p.linear = true;
    QCOMPARE(res.image.indices, specMbvq(im, p));
    req.paletteSpace = PaletteSpace::Gamma;
    QVERIFY(runImage(im, req, res).isOk());
    p.linear = false;
    QCOMPARE(res.image.indices, specMbvq(im, p));
    // A palette that is not the eight corners is refused with a message; the corners in another order are accepted.
    req.palette = Palette{"four", {{0, 0, 0}, {255, 255, 255}, {255, 0, 0}, {0, 0, 255}}};
    const Status s = runImage(im, req, res);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("'four'") != std::string::npos, s.message().c_str());
    Palette reversed = mbvqPalette();
    std::reverse(reversed.colors.begin(), reversed.colors.end());
    req.palette = reversed;
    QVERIFY(runImage(im, req, res).isOk());
    QCOMPARE(res.image.palette, reversed.colors);
}

QTEST_GUILESS_MAIN(TestMbvq)
#include "test_mbvq.moc"
