// Tone and gamut mapping into a palette's colours (core/palette/gamut.h): ramps keep their order and land on the
// palette's black-to-white range, the s-curve steepens the mid-tones, out-of-gamut patches move onto the gamut at
// constant L* and hue (clip) or with their order kept (compress), in-gamut colours stay, the hull of flat and gray
// palettes, the image form against the per-colour form, and the job's checks.
#include <QtTest>

#include <cmath>

#include "core/ed/quantizer.h"
#include "core/job/job.h"
#include "core/palette/gamut.h"
#include "core/quality/metrics.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

Lab lab(const Rgb8& c) {
    return linearSrgbToLab(srgbToLinear(c[0] / 255.0), srgbToLinear(c[1] / 255.0), srgbToLinear(c[2] / 255.0));
}

std::array<double, 3> linear(const Rgb8& c) {
    return {srgbToLinear(c[0] / 255.0), srgbToLinear(c[1] / 255.0), srgbToLinear(c[2] / 255.0)};
}

double hueDegrees(const Lab& l) { return std::atan2(l.b, l.a) * 180.0 / 3.14159265358979; }

const Palette& measured() { return findBuiltinPalette("acep7-measured")->palette; }

}  // namespace

class TestGamut : public QObject {
    Q_OBJECT
private slots:
    void rampsLandOnThePaletteRange_data();
    void rampsLandOnThePaletteRange();
    void sCurveSteepensMidTones();
    void clipMovesOntoTheGamutAtConstantLightnessAndHue();
    void compressKeepsOrderAndInGamutColours();
    void flatAndGrayPalettes();
    void imageFormMatchesTheColourForm();
    void jobsNeedAPalette();
};

void TestGamut::rampsLandOnThePaletteRange_data() {
    QTest::addColumn<int>("tone");
    QTest::newRow("auto") << int(ToneMap::Auto);
    QTest::newRow("s-curve") << int(ToneMap::SCurve);
}

void TestGamut::rampsLandOnThePaletteRange() {
    QFETCH(int, tone);
    const PaletteGamut g(measured());
    QVERIFY(g.blackL() > 15 && g.blackL() < 25);  // #393039
    QVERIFY(std::abs(g.whiteL() - 100.0) < 1e-6);
    double previous = -1;
    for (int v = 0; v < 256; ++v) {
        const Rgb8 out = mapColor({uint8_t(v), uint8_t(v), uint8_t(v)}, g, ToneMap(tone), GamutMap::None);
        const double L = lab(out).L;
        QVERIFY2(L >= previous - 0.3,
                 qPrintable(QStringLiteral("level %1: L* %2 after %3").arg(v).arg(L).arg(previous)));
        previous = std::max(previous, L);
        if (v == 0) QVERIFY2(std::abs(L - g.blackL()) < 0.5, qPrintable(QString::number(L)));
        if (v == 255) QVERIFY2(std::abs(L - g.whiteL()) < 0.5, qPrintable(QString::number(L)));
        QVERIFY(L >= g.blackL() - 0.5);  // nothing darker than the panel's black: the shadows are kept
    }
}

void TestGamut::sCurveSteepensMidTones() {
    const PaletteGamut g(measured());
    auto L = [&](int v, ToneMap t) {
        return lab(mapColor({uint8_t(v), uint8_t(v), uint8_t(v)}, g, t, GamutMap::None)).L;
    };
    // L* 25 and 75 of the input: the s-curve puts the quarter-tones further apart than the linear map.
    const int quarter = 59, threeQuarters = 190;  // sRGB grays of L* about 25 and 75
    QVERIFY(L(quarter, ToneMap::SCurve) < L(quarter, ToneMap::Auto) - 1);
    QVERIFY(L(threeQuarters, ToneMap::SCurve) > L(threeQuarters, ToneMap::Auto) + 1);
    QVERIFY(std::abs(L(0, ToneMap::SCurve) - L(0, ToneMap::Auto)) < 0.5);
    QVERIFY(std::abs(L(255, ToneMap::SCurve) - L(255, ToneMap::Auto)) < 0.5);
}

void TestGamut::clipMovesOntoTheGamutAtConstantLightnessAndHue() {
    const PaletteGamut g(measured());
    // The palette's own colours are in its gamut and stay.
    for (const Rgb8& c : measured().colors) {
        QVERIFY(g.contains(linear(c)));
        const Rgb8 out = mapColor(c, g, ToneMap::None, GamutMap::Clip);
        for (size_t k = 0; k < 3; ++k) QVERIFY(std::abs(int(out[k]) - int(c[k])) <= 1);
    }
    const Rgb8 patches[] = {{0, 0, 255}, {255, 0, 0}, {0, 200, 0}, {255, 0, 255}, {0, 255, 255}, {40, 120, 200}};
    for (const Rgb8& c : patches) {
        QVERIFY(!g.contains(linear(c)));
        const Rgb8 out = mapColor(c, g, ToneMap::None, GamutMap::Clip);
        const Lab a = lab(c), b = lab(out);
        const QString what =
            QStringLiteral("%1,%2,%3 -> %4,%5,%6").arg(c[0]).arg(c[1]).arg(c[2]).arg(out[0]).arg(out[1]).arg(out[2]);
        QVERIFY2(std::abs(a.L - b.L) < 1.5, qPrintable(what));                    // constant L*
        QVERIFY2(std::hypot(b.a, b.b) < std::hypot(a.a, a.b), qPrintable(what));  // less chroma
        double dh = std::abs(hueDegrees(a) - hueDegrees(b));
        dh = std::min(dh, 360 - dh);
        // The ray starts on the palette's gray axis, which is a little purple here (#393039): the hue moves a few
        // degrees where little chroma is left.
        QVERIFY2(std::hypot(b.a, b.b) < 5 || dh < 20, qPrintable(what + QStringLiteral(" hue %1").arg(dh)));
        // On the surface: clipping again moves it by at most the 8-bit rounding.
        const Rgb8 again = mapColor(out, g, ToneMap::None, GamutMap::Clip);
        for (size_t k = 0; k < 3; ++k) QVERIFY2(std::abs(int(again[k]) - int(out[k])) <= 2, qPrintable(what));
    }
}

void TestGamut::compressKeepsOrderAndInGamutColours() {
    const PaletteGamut g(measured());
    // Near-gray colours, well inside: unchanged.
    for (const Rgb8& c : {Rgb8{120, 118, 121}, Rgb8{200, 200, 198}, Rgb8{90, 92, 95}}) {
        const Rgb8 out = mapColor(c, g, ToneMap::None, GamutMap::Compress);
        for (size_t k = 0; k < 3; ++k) QVERIFY(std::abs(int(out[k]) - int(c[k])) <= 1);
    }
    // A row of blues of rising chroma at L* 45 and one hue: compress keeps them apart and in order, inside the
    // gamut; clip puts the outer ones onto one surface colour.
    double lastCompressed = -1;
    int distinctClipped = 0;
    Rgb8 lastClipped{1, 2, 3};
    int steps = 0;
    for (double chroma = 2; chroma <= 80; chroma += 6) {
        const double hue = -70 * 3.14159265358979 / 180;
        const std::array<double, 3> v = labToLinearSrgb({45, chroma * std::cos(hue), chroma * std::sin(hue)});
        if (*std::min_element(v.begin(), v.end()) < 0 || *std::max_element(v.begin(), v.end()) > 1) break;
        Rgb8 c{};
        for (size_t k = 0; k < 3; ++k)
            c[k] = uint8_t(
                std::lround(255 * (v[k] <= 0.0031308 ? 12.92 * v[k] : 1.055 * std::pow(v[k], 1 / 2.4) - 0.055)));
        const Rgb8 out = mapColor(c, g, ToneMap::None, GamutMap::Compress);
        const double mapped = std::hypot(lab(out).a, lab(out).b);
        QVERIFY2(
            mapped > lastCompressed - 0.5,
            qPrintable(QStringLiteral("chroma %1: mapped %2 after %3").arg(chroma).arg(mapped).arg(lastCompressed)));
        lastCompressed = std::max(lastCompressed, mapped);
        const Rgb8 again = mapColor(out, g, ToneMap::None, GamutMap::Clip);
        for (size_t k = 0; k < 3; ++k) QVERIFY(std::abs(int(again[k]) - int(out[k])) <= 2);  // inside the gamut
        const Rgb8 clipped = mapColor(c, g, ToneMap::None, GamutMap::Clip);
        distinctClipped += clipped != lastClipped;
        lastClipped = clipped;
        ++steps;
    }
    QVERIFY(steps >= 6);
    QVERIFY2(distinctClipped < steps, "clip merges the colours beyond the surface");
}

void TestGamut::flatAndGrayPalettes() {
    // Black, white and red: a triangle in linear light. Its colours are inside, blue is not.
    const PaletteGamut bwr(findBuiltinPalette("bwr")->palette);
    QVERIFY(bwr.contains(linear({255, 0, 0})));
    QVERIFY(bwr.contains({0.5, 0.25, 0.25}));
    QVERIFY(!bwr.contains(linear({0, 0, 255})));
    const Rgb8 blue = mapColor({0, 0, 255}, bwr, ToneMap::None, GamutMap::Clip);
    QVERIFY(bwr.contains(linear(blue)) || std::abs(int(blue[0]) - int(blue[1])) <= 2);
    // Four grays: a segment; every colour clips to a gray of its lightness.
    const PaletteGamut gray(findBuiltinPalette("gray4")->palette);
    const Rgb8 out = mapColor({200, 40, 40}, gray, ToneMap::None, GamutMap::Clip);
    QVERIFY(std::abs(int(out[0]) - int(out[1])) <= 1 && std::abs(int(out[1]) - int(out[2])) <= 1);
    QVERIFY(std::abs(lab(out).L - lab({200, 40, 40}).L) < 1.5);
}

void TestGamut::imageFormMatchesTheColourForm() {
    const Palette& p = findBuiltinPalette("spectra6-measured")->palette;
    const PaletteGamut g(p);
    Image im = test::randomRgb(67, 31, test::freshSeed("gamut image"));
    // Table nodes (multiples of about 8) map exactly; the rest within the interpolation's error.
    for (int c = 0; c < 3; ++c) im.channels[size_t(c)].at(0, 0) = uint8_t(c == 2 ? 255 : 0);
    const Image before = im;
    QVERIFY(mapToPalette(im, p, ToneMap::None, GamutMap::None));
    QVERIFY(im.channels == before.channels);
    QVERIFY(mapToPalette(im, p, ToneMap::Auto, GamutMap::Compress));
    const Rgb8 exact = mapColor({0, 0, 255}, g, ToneMap::Auto, GamutMap::Compress);
    for (size_t c = 0; c < 3; ++c) QCOMPARE(im.channels[c].at(0, 0), exact[c]);
    int worst = 0;
    double sum = 0;
    for (int y = 0; y < im.height(); ++y)
        for (int x = 0; x < im.width(); ++x) {
            const Rgb8 in = {before.channels[0].at(y, x), before.channels[1].at(y, x), before.channels[2].at(y, x)};
            const Rgb8 want = mapColor(in, g, ToneMap::Auto, GamutMap::Compress);
            for (size_t c = 0; c < 3; ++c) {
                const int d = std::abs(int(im.channels[c].at(y, x)) - int(want[c]));
                worst = std::max(worst, d);
                sum += d;
            }
        }
    // The 33-node table interpolates a map that bends at the gamut's surface and the knee: a stated tolerance, a
    // large one for the few colours next to a bend and a small one on average.
    const double mean = sum / (3.0 * im.width() * im.height());
    qInfo("table against the exact map: largest difference %d of 255, mean %.2f", worst, mean);
    QVERIFY2(worst <= 40 && mean <= 3, qPrintable(QStringLiteral("largest %1, mean %2").arg(worst).arg(mean)));
}

void TestGamut::jobsNeedAPalette() {
    JobSettings job;
    job.tone = ToneMap::Auto;
    QVERIFY(!validateJob(job));
    job.palette = "acep7-measured";
    QVERIFY(validateJob(job));
    job.palette.clear();
    job.target = "thermal-58mm-203";
    QVERIFY(!validateJob(job));
    job.target = "inky-impression-5.7";
    job.gamut = GamutMap::Compress;
    QVERIFY(validateJob(job));
    RunRequest r;
    PrepareSettings prepare;
    QVERIFY(resolveJob(job, nullptr, r, prepare));
    QCOMPARE(r.tone, ToneMap::Auto);
    QCOMPARE(r.gamut, GamutMap::Compress);
    QCOMPARE(prepare.width, 600);
}

QTEST_APPLESS_MAIN(TestGamut)
#include "test_gamut.moc"
