// Quality measures (docs/spec.md section 3): HVS-weighted error, filtered PSNR, tone curve, radial spectrum.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/dbs.h"
#include "core/errordiffusion.h"
#include "core/metrics.h"
#include "core/ordered.h"
#include "core/screen.h"
#include "tests/common/testutil.h"

using namespace halftone;

class TestMetrics : public QObject {
    Q_OBJECT
private slots:
    void hvsErrorMatchesDbs_data();
    void hvsErrorMatchesDbs();
    void psnr();
    void psnrCopyAboveHalftones_data();
    void psnrCopyAboveHalftones();
    void psnrLinearLight();
    void centralCrop();
    void toneCurve();
    void spectrumKnownPatterns_data();
    void spectrumKnownPatterns();
    void spectrumParseval();
};

void TestMetrics::hvsErrorMatchesDbs_data() {
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::newRow("1x1") << 1 << 1;
    QTest::newRow("1x23") << 1 << 23;
    QTest::newRow("29x1") << 29 << 1;
    QTest::newRow("53x41") << 53 << 41;
}

void TestMetrics::hvsErrorMatchesDbs() {
    QFETCH(int, w);
    QFETCH(int, h);
    const Plane8 src = test::randomPlane(w, h, test::freshSeed("metrics hvs"));
    QCOMPARE(hvsWeightedError(src, src), 0.0);
    Plane8 dst;
    DbsStats st;
    QVERIFY(dbsHalftone(src, dst, DbsParams{}, {}, &st).isOk());
    const double e = hvsWeightedError(src, dst);
    HvsFilter f;
    QVERIFY(makeHvsFilter({}, f).isOk());
    // Brute force (sum of squares of p * e) against the c_pp route and against what DBS reported.
    QVERIFY(std::abs(e - dbsError(src, dst, f)) <= 1e-9 * e + 1e-15);
    QVERIFY(std::abs(e - st.error) <= 1e-4 * e + 1e-12);
    // A plain threshold at 128 is much worse than DBS.
    Plane8 thr(w, h);
    for (size_t i = 0; i < src.size(); ++i) thr.data[i] = src.data[i] > 127 ? 255 : 0;
    QVERIFY(hvsWeightedError(src, thr) >= e);
    QVERIFY(std::isnan(hvsWeightedError(src, Plane8(w + 1, h))));
}

void TestMetrics::psnr() {
    const Plane8 src = grayRamp(256, 64);
    QVERIFY(std::isinf(filteredPsnr(src, src, 0.0, 0)));
    QVERIFY(std::isnan(filteredPsnr(src, Plane8(3, 3))));
    Plane8 ordered, thr(src.width, src.height);
    QVERIFY(orderedDither(src, ordered, defaultBlueNoiseScreen()).isOk());
    for (size_t i = 0; i < src.size(); ++i) thr.data[i] = src.data[i] > 127 ? 255 : 0;
    const double pOrdered = filteredPsnr(src, ordered), pThr = filteredPsnr(src, thr);
    qInfo("filtered PSNR on a ramp: blue-noise ordered %.2f dB, threshold %.2f dB", pOrdered, pThr);
    QVERIFY(pOrdered > pThr + 6);
    // Constant image against its own value: every filtered value equals the original (renormalised edges).
    Plane8 c(17, 13, 200);
    QVERIFY(filteredPsnr(c, c) > 100.0);
}

void TestMetrics::psnrCopyAboveHalftones_data() {
    QTest::addColumn<bool>("linear");
    QTest::newRow("gamma") << false;
    QTest::newRow("linear light") << true;
}

void TestMetrics::psnrCopyAboveHalftones() {
    QFETCH(bool, linear);
    // A photograph-like input: a ramp with a smooth random texture (fresh seed, logged).
    const Plane8 noise = test::randomPlane(97, 61, test::freshSeed("metrics psnr copy"));
    Plane8 src(97, 61);
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x) src.at(y, x) = uint8_t((x * 200) / 96 + noise.at(y, x) / 8 + 10);
    // docs/spec.md section 3: both images are filtered, so a copy of the original is perfect.
    QVERIFY(std::isinf(filteredPsnr(src, src, 1.2, 4, linear)));
    Plane8 nearCopy = src;
    for (uint8_t& v : nearCopy.data) v = uint8_t(std::min(255, v + 1));
    const double pNear = filteredPsnr(src, nearCopy, 1.2, 4, linear);
    QVERIFY2(pNear > 45, qPrintable(QString::number(pNear)));
    // Every binary halftone stays far below.
    for (const char* kernel : {"floyd-steinberg", "jarvis"}) {
        EdParams ep;
        ep.kernel = kernel;
        ep.linear = linear;
        Plane8 fs;
        QVERIFY(errorDiffuse(src, fs, ep, EdVariant::Diffusion).isOk());
        const double p = filteredPsnr(src, fs, 1.2, 4, linear);
        qInfo("%s %s: copy inf, +1 copy %.2f dB, halftone %.2f dB", kernel, linear ? "linear" : "gamma", pNear, p);
        QVERIFY2(p < 40, qPrintable(QString::number(p)));
        QVERIFY(p > 10);
        QVERIFY(pNear > p + 10);
    }
    Plane8 ordered;
    QVERIFY(orderedDither(src, ordered, defaultBlueNoiseScreen()).isOk());
    QVERIFY(filteredPsnr(src, ordered, 1.2, 4, linear) < 40);
}

void TestMetrics::psnrLinearLight() {
    // Error diffusion in linear light reproduces linear-light means: measured in linear light it beats
    // its gamma measure's verdict of the gamma-diffused image, and the other way round.
    const Plane8 src = grayRamp(256, 64);
    EdParams gamma, lin;
    lin.linear = true;
    Plane8 g, l;
    QVERIFY(errorDiffuse(src, g, gamma, EdVariant::Diffusion).isOk());
    QVERIFY(errorDiffuse(src, l, lin, EdVariant::Diffusion).isOk());
    const double gInGamma = filteredPsnr(src, g), lInGamma = filteredPsnr(src, l);
    const double gInLinear = filteredPsnr(src, g, 1.2, 4, true), lInLinear = filteredPsnr(src, l, 1.2, 4, true);
    qInfo("gamma ED: %.2f dB gamma, %.2f dB linear; linear ED: %.2f dB gamma, %.2f dB linear", gInGamma, gInLinear,
          lInGamma, lInLinear);
    QVERIFY(lInLinear > lInGamma + 3);
    QVERIFY(gInGamma > gInLinear);
    QVERIFY(lInLinear > gInLinear);
}

void TestMetrics::centralCrop() {
    Plane8 p(7, 5);
    for (size_t i = 0; i < p.size(); ++i) p.data[i] = uint8_t(i);
    const Plane8 c = halftone::centralCrop(p, 3, 2);
    QCOMPARE(c.width, 3);
    QCOMPARE(c.height, 2);
    QCOMPARE(int(c.at(0, 0)), int(p.at(1, 2)));
    QCOMPARE(int(c.at(1, 2)), int(p.at(2, 4)));
    QCOMPARE(halftone::centralCrop(p, 100, 100).data, p.data);
}

void TestMetrics::toneCurve() {
    const Plane8 ramp = grayTiles(16);
    Plane8 out;
    ThresholdArray b;
    QVERIFY(bayerScreen(16, b).isOk());
    QVERIFY(orderedDither(ramp, out, b).isOk());
    const ToneCurve t = halftone::toneCurve(ramp, out);
    // A 16x16 tile of Bayer 16 turns exactly ceil(256 g / 255) of its 256 pixels white.
    for (int g = 0; g < 256; ++g) {
        QCOMPARE(t.count[size_t(g)], int64_t(256));
        QCOMPARE(t.meanOut[size_t(g)], 255.0 * ((256 * g + 254) / 255) / 256.0);
    }
    QVERIFY(t.maxDeviation <= 1.0);
    Plane8 thr(ramp.width, ramp.height);
    for (size_t i = 0; i < ramp.size(); ++i) thr.data[i] = ramp.data[i] > 127 ? 255 : 0;
    QVERIFY(halftone::toneCurve(ramp, thr).maxDeviation >= 127);
    const Plane8 r = grayRamp(256, 2);
    for (int x = 0; x < 256; ++x) QCOMPARE(int(r.at(1, x)), x);
}

void TestMetrics::spectrumKnownPatterns_data() {
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::newRow("64x64") << 64 << 64;
    QTest::newRow("40x24") << 40 << 24;
}

void TestMetrics::spectrumKnownPatterns() {
    QFETCH(int, w);
    QFETCH(int, h);
    // Checkerboard: all power at (1/2, 1/2), the ring at 0.707 cycles/pixel.
    Plane8 cb(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) cb.at(y, x) = ((x + y) & 1) ? 255 : 0;
    RadialSpectrum s;
    QVERIFY(radialSpectrum(cb, s).isOk());
    QCOMPARE(s.variance, 0.25);
    size_t peak = 0;
    for (size_t i = 0; i < s.power.size(); ++i)
        if (s.power[i] > s.power[peak]) peak = i;
    QVERIFY(std::abs(s.frequency[peak] - std::sqrt(0.5)) <= 1.0 / std::min(w, h));
    // Vertical stripes of period 4: power only on the horizontal axis at 1/4 (and 1/2 harmonics of a square wave).
    Plane8 st(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) st.at(y, x) = (x % 4) < 2 ? 255 : 0;
    QVERIFY(radialSpectrum(st, s).isOk());
    peak = 0;
    for (size_t i = 0; i < s.power.size(); ++i)
        if (s.power[i] > s.power[peak]) peak = i;
    QVERIFY(std::abs(s.frequency[peak] - 0.25) <= 1.0 / std::min(w, h));
    // One direction only: the ring is strongly anisotropic (variance >> mean^2 gives a high dB value).
    QVERIFY(s.anisotropy[peak] > 5.0);
    QVERIFY(!radialSpectrum(Plane8(3, 3), s).isOk());
    QVERIFY(!radialSpectrum(Plane8(2000, 8), s).isOk());
}

void TestMetrics::spectrumParseval() {
    const Plane8 p = test::randomPlane(48, 36, test::freshSeed("metrics parseval"));
    RadialSpectrum s;
    QVERIFY(radialSpectrum(p, s).isOk());
    double total = 0;
    for (size_t i = 0; i < s.power.size(); ++i) total += s.power[i] * s.samples[i];
    // Parseval: the mean of the periodogram over all W x H frequencies (DC is 0) equals the variance.
    QVERIFY(std::abs(total / (48.0 * 36.0) - s.variance) <= 1e-9 * s.variance);
    qInfo("spectrum backend: %s", s.backend.c_str());
    QCOMPARE(s.backend == "fftw3", metricsHaveFftw());
}

QTEST_GUILESS_MAIN(TestMetrics)
#include "test_metrics.moc"
