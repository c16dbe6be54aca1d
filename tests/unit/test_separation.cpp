// Separation into inks (docs/spec.md "Separation into inks"): hand-computed pixels, the defaults against the earlier
// formula, the overlap model, GCR moving coverage from C + M + Y to K, the ink limit on every pixel, runImage.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/job/registry.h"
#include "core/print/dotgain.h"
#include "core/print/separation.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

Image chelsea() {
    Image im;
    const Status s = io::readImage(test::dataPath("chelsea.png"), im);
    if (!s) qFatal("cannot read chelsea.png: %s", s.message().c_str());
    return im;
}

std::array<int, 4> inkSums(const Image& cmyk) {
    std::array<int, 4> sum{};
    for (size_t c = 0; c < 4; ++c)
        for (uint8_t v : cmyk.channels[c].data) sum[c] += v;
    return sum;
}

}  // namespace

class TestSeparation : public QObject {
    Q_OBJECT
private slots:
    void handComputed_data();
    void handComputed();
    void defaultsKeepTheFullBlackSeparation();
    void overlapModelReproducesTheColour();
    void gcrMovesCoverageToBlack();
    void inkLimitOnEveryPixel_data();
    void inkLimitOnEveryPixel();
    void cmykInputGetsTheInkLimit();
    void ranges();
    void runImageUsesTheSeparation();
    void dotGainCompensation();
    void dotGainCurves();
};

void TestSeparation::handComputed_data() {
    test::columns<int, int, int, int, int, QList<int>>("r", "g", "b", "gcr", "limit", "cmyk");
    // Worked in docs/spec.md "Separation into inks": C0, M0, Y0 = 155, 105, 55; grey 55.
    QTest::newRow("mid colour, gcr 0: no black") << 100 << 150 << 200 << 0 << 400 << QList<int>{155, 105, 55, 0};
    QTest::newRow("mid colour, gcr 40") << 100 << 150 << 200 << 40 << 400 << QList<int>{146, 91, 36, 22};
    QTest::newRow("mid colour, gcr 100") << 100 << 150 << 200 << 100 << 400 << QList<int>{128, 64, 0, 55};
    QTest::newRow("white") << 255 << 255 << 255 << 100 << 0 << QList<int>{0, 0, 0, 0};
    QTest::newRow("black, gcr 0") << 0 << 0 << 0 << 0 << 400 << QList<int>{255, 255, 255, 0};
    QTest::newRow("black, gcr 50") << 0 << 0 << 0 << 50 << 400 << QList<int>{255, 255, 255, 128};
    QTest::newRow("black, gcr 50, limit 300") << 0 << 0 << 0 << 50 << 300 << QList<int>{212, 212, 212, 128};
    QTest::newRow("black, gcr 100") << 0 << 0 << 0 << 100 << 400 << QList<int>{0, 0, 0, 255};
    QTest::newRow("black, limit 80: black alone capped") << 0 << 0 << 0 << 100 << 80 << QList<int>{0, 0, 0, 204};
    QTest::newRow("dark, gcr 100") << 10 << 20 << 30 << 100 << 400 << QList<int>{170, 85, 0, 225};
    QTest::newRow("dark, gcr 100, limit 150") << 10 << 20 << 30 << 100 << 150 << QList<int>{104, 52, 0, 225};
    QTest::newRow("grey, gcr 0") << 40 << 40 << 40 << 0 << 400 << QList<int>{215, 215, 215, 0};
    QTest::newRow("grey, gcr 100: black only") << 40 << 40 << 40 << 100 << 400 << QList<int>{0, 0, 0, 215};
}

void TestSeparation::handComputed() {
    QFETCH(int, r);
    QFETCH(int, g);
    QFETCH(int, b);
    QFETCH(int, gcr);
    QFETCH(int, limit);
    QFETCH(QList<int>, cmyk);
    const auto v = separatePixel(uint8_t(r), uint8_t(g), uint8_t(b), SeparationParams{gcr, limit});
    QCOMPARE((QList<int>{v[0], v[1], v[2], v[3]}), cmyk);
}

void TestSeparation::defaultsKeepTheFullBlackSeparation() {
    // Every sRGB colour: the defaults (gcr 100, no limit) give K = 255 - max(R, G, B) and
    // C = (255 - R - K) x 255 / (255 - K) rounded, the separation --color cmyk always made.
    for (int r = 0; r < 256; ++r)
        for (int g = 0; g < 256; ++g)
            for (int b = 0; b < 256; ++b) {
                const auto v = separatePixel(uint8_t(r), uint8_t(g), uint8_t(b), SeparationParams{});
                const int k = 255 - std::max({r, g, b}), den = 255 - k;
                const int rgb[3] = {r, g, b};
                bool same = v[3] == k;
                for (int c = 0; c < 3; ++c)
                    same = same && v[size_t(c)] == (den == 0 ? 0 : ((255 - rgb[c] - k) * 255 + den / 2) / den);
                if (!same) QFAIL(qPrintable(QString("differs at %1,%2,%3").arg(r).arg(g).arg(b)));
            }
}

void TestSeparation::overlapModelReproducesTheColour() {
    // With independently placed dots the paper free of cyan and black is (1 - c)(1 - k); the separation keeps it
    // equal to R / 255 for every GCR, within the rounding of c (half a level, times 1 - k).
    std::mt19937_64 rng(test::freshSeed("overlap model"));
    for (int i = 0; i < 200000; ++i) {
        const uint8_t r = uint8_t(rng()), g = uint8_t(rng()), b = uint8_t(rng());
        const int gcr = int(rng() % 101);
        const auto v = separatePixel(r, g, b, SeparationParams{gcr, 400});
        const uint8_t rgb[3] = {r, g, b};
        for (int c = 0; c < 3; ++c) {
            const double free = (255.0 - v[size_t(c)]) * (255.0 - v[3]) / 255.0;
            if (std::abs(free - rgb[c]) > 0.5 + 1e-9)
                QFAIL(qPrintable(QString("rgb %1,%2,%3 gcr %4: channel %5 reproduces %6")
                                     .arg(r)
                                     .arg(g)
                                     .arg(b)
                                     .arg(gcr)
                                     .arg(c)
                                     .arg(free)));
        }
    }
}

void TestSeparation::gcrMovesCoverageToBlack() {
    const Image im = chelsea();
    Image previous;
    std::array<int, 4> previousSum{};
    for (int gcr = 0; gcr <= 100; gcr += 10) {
        const Image cmyk = convertColor(im, ColorMode::CMYK, SeparationParams{gcr, 400});
        QCOMPARE(cmyk.space, ColorSpace::CMYK);
        QCOMPARE(cmyk.channelCount(), 4);
        const std::array<int, 4> sum = inkSums(cmyk);
        if (gcr == 0) QCOMPARE(sum[3], 0);
        if (gcr > 0) {
            // Strictly more black and strictly less colour ink over the picture...
            QVERIFY2(sum[3] > previousSum[3], qPrintable(QString("gcr %1").arg(gcr)));
            QVERIFY2(sum[0] + sum[1] + sum[2] < previousSum[0] + previousSum[1] + previousSum[2],
                     qPrintable(QString("gcr %1").arg(gcr)));
            // ...and on every pixel K never falls and no colour ink grows.
            for (size_t i = 0; i < cmyk.channels[0].size(); ++i) {
                QVERIFY(cmyk.channels[3].data[i] >= previous.channels[3].data[i]);
                for (size_t c = 0; c < 3; ++c) QVERIFY(cmyk.channels[c].data[i] <= previous.channels[c].data[i]);
            }
        }
        previous = cmyk;
        previousSum = sum;
    }
}

void TestSeparation::inkLimitOnEveryPixel_data() {
    test::columns<int, int>("gcr", "limit");
    for (int gcr : {0, 30, 70, 100})
        for (int limit : {0, 60, 100, 180, 240, 300, 333})
            QTest::newRow(qPrintable(QString("gcr %1 limit %2").arg(gcr).arg(limit))) << gcr << limit;
}

void TestSeparation::inkLimitOnEveryPixel() {
    QFETCH(int, gcr);
    QFETCH(int, limit);
    static const Image im = chelsea();
    const Image free = convertColor(im, ColorMode::CMYK, SeparationParams{gcr, 400});
    const Image limited = convertColor(im, ColorMode::CMYK, SeparationParams{gcr, limit});
    const int cap = limit * 255 / 100;
    int capped = 0;
    for (size_t i = 0; i < im.channels[0].size(); ++i) {
        int total = 0, freeTotal = 0;
        for (size_t c = 0; c < 4; ++c) {
            total += limited.channels[c].data[i];
            freeTotal += free.channels[c].data[i];
            QVERIFY(limited.channels[c].data[i] <= free.channels[c].data[i]);  // the limit only removes ink
        }
        QVERIFY2(total <= cap, qPrintable(QString("pixel %1: %2 > %3").arg(i).arg(total).arg(cap)));
        if (freeTotal <= cap) {
            for (size_t c = 0; c < 4; ++c) QCOMPARE(limited.channels[c].data[i], free.channels[c].data[i]);
        } else {
            ++capped;
            // K is kept where it fits; the colour inks are scaled by one factor (each floored).
            const int k = free.channels[3].data[i];
            QCOMPARE(int(limited.channels[3].data[i]), std::min(k, cap));
            const int cmy = freeTotal - k;
            for (size_t c = 0; c < 3; ++c)
                QCOMPARE(int(limited.channels[c].data[i]), k >= cap ? 0 : free.channels[c].data[i] * (cap - k) / cmy);
            QVERIFY(total >= cap - 3);  // the floors lose at most one level per ink
        }
    }
    if (limit <= 180) QVERIFY(capped > 0);  // the picture has pixels over the lower limits
}

void TestSeparation::cmykInputGetsTheInkLimit() {
    Image in;
    in.space = ColorSpace::CMYK;
    for (int v : {250, 200, 150, 100}) in.channels.push_back(Plane8(3, 2, uint8_t(v)));
    QCOMPARE(convertColor(in, ColorMode::CMYK, SeparationParams{0, 400}).channels, in.channels);
    const Image out = convertColor(in, ColorMode::CMYK, SeparationParams{100, 300});
    // Limit 300: cap 765, and the 700 of ink fit.
    QCOMPARE(out.channels, in.channels);
    const Image tight = convertColor(in, ColorMode::CMYK, SeparationParams{100, 200});
    // cap 510, room 410 for 600: 250 x 410 / 600 = 170, 200 x 410 / 600 = 136, 150 x 410 / 600 = 102.
    QCOMPARE(int(tight.channels[0].at(1, 2)), 170);
    QCOMPARE(int(tight.channels[1].at(0, 0)), 136);
    QCOMPARE(int(tight.channels[2].at(0, 1)), 102);
    QCOMPARE(int(tight.channels[3].at(1, 1)), 100);
}

void TestSeparation::ranges() {
    QVERIFY(checkSeparation({0, 0}).isOk());
    QVERIFY(checkSeparation({100, 400}).isOk());
    QVERIFY(checkSeparation({101, 300}).message().find("--gcr") != std::string::npos);
    QVERIFY(checkSeparation({-1, 300}).message().find("--gcr") != std::string::npos);
    QVERIFY(checkSeparation({50, 401}).message().find("--ink-limit") != std::string::npos);
    QCOMPARE(inkCap(300), 765);
    QCOMPARE(inkCap(250), 637);
}

void TestSeparation::runImageUsesTheSeparation() {
    const Image im = chelsea();
    RunRequest req;
    req.method = Registry::instance().find("ordered", "screen");
    QVERIFY(req.method);
    req.color = ColorMode::CMYK;
    req.device = Device::Cpu;
    std::array<int, 4> previous{};
    for (int gcr : {0, 50, 100}) {
        req.separation = {gcr, 400};
        RunResult res;
        QVERIFY(runImage(im, req, res).isOk());
        QCOMPARE(res.image.space, ColorSpace::CMYK);
        const std::array<int, 4> sum = inkSums(res.image);
        if (gcr > 0) {
            QVERIFY(sum[3] > previous[3]);
            QVERIFY(sum[0] + sum[1] + sum[2] < previous[0] + previous[1] + previous[2]);
        }
        previous = sum;
    }
    req.separation = {100, 500};
    RunResult res;
    const Status s = runImage(im, req, res);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("--ink-limit") != std::string::npos, s.message().c_str());
}

void TestSeparation::dotGainCompensation() {
    // 15 % at 50 %: the curve through (50, 65), zero gain at paper and solid.
    const DotGainCurve curve = dotGainAtMiddle(15);
    const std::array<uint8_t, 256> printed = dotGainPrinted(curve), asked = halftone::dotGainCompensation(curve);
    QCOMPARE(int(printed[128]), int(std::lround((0.502 + 4 * 0.15 * 0.502 * 0.498) * 255)));
    QCOMPARE(int(asked[0]), 0);
    QCOMPARE(int(asked[255]), 255);
    // Compensated, then printed: the wanted tone within one level; and less ink asked for in between.
    for (int v = 0; v < 256; ++v) {
        QVERIFY2(std::abs(int(printed[asked[size_t(v)]]) - v) <= 1, qPrintable(QString::number(v)));
        QVERIFY(asked[size_t(v)] <= v);
        if (v >= 16 && v <= 240) QVERIFY(asked[size_t(v)] < v);  // near paper and solid the gain is under a level
        if (v > 0) QVERIFY(asked[size_t(v)] >= asked[size_t(v) - 1]);
    }
    // On a CMYK image: each ink by its own curve; no curve, no change.
    DotGain gain;
    QVERIFY(parseDotGainPercents("10,20,0,15", gain).isOk());
    Image rgb;
    rgb.space = ColorSpace::RGB;
    for (int v : {140, 110, 95}) rgb.channels.push_back(Plane8(3, 2, uint8_t(v)));
    const Image plain = convertColor(rgb, ColorMode::CMYK, SeparationParams{});
    Image gained = plain;
    compensateDotGain(gained, gain);
    for (size_t c = 0; c < 4; ++c) {
        const uint8_t want = halftone::dotGainCompensation(gain.inks[c])[plain.channels[c].data[0]];
        QCOMPARE(gained.channels[c].data[0], want);
    }
    QCOMPARE(gained.channels[2].data[0], plain.channels[2].data[0]);  // yellow: no gain
    QVERIFY(gained.channels[1].data[0] < plain.channels[1].data[0]);
}

void TestSeparation::dotGainCurves() {
    DotGain g;
    QVERIFY(parseDotGainCurve("# nominal printed\n25 33\n50 64\n75 86\n", g).isOk());
    for (const DotGainCurve& c : g.inks) QCOMPARE(c.size(), size_t(3));
    QCOMPARE(int(dotGainPrinted(g.inks[0])[255 / 2 + 1]), int(std::lround(64.2 * 2.55)) - 0);
    QVERIFY(parseDotGainCurve("50 60 62 58 66\n", g).isOk());
    QCOMPARE(g.inks[3], (DotGainCurve{{50, 66}}));
    for (const char* bad :
         {"", "# nothing\n", "50\n", "50 60 70\n", "50 40\n60 30\n", "50 120\n", "x y\n", "50 60\n50 60 62 58 66\n"})
        QVERIFY2(!parseDotGainCurve(bad, g).isOk(), bad);
    for (const char* bad : {"", "x", "15,", "15,16", "30", "-1", "nan"})
        QVERIFY2(!parseDotGainPercents(bad, g).isOk(), bad);
    QVERIFY(parseDotGainPercents("0", g).isOk());
    QVERIFY(g.empty());
}

QTEST_APPLESS_MAIN(TestSeparation)
#include "test_separation.moc"
