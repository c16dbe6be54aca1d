// Quality measures (docs/spec.md section 3): HVS-weighted error, filtered PSNR, tone curve and tone error, radial
// spectrum and anisotropy.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/dbs/dbs.h"
#include "core/ed/errordiffusion.h"
#include "core/quality/metrics.h"
#include "core/screen/ordered.h"
#include "core/ed/quantizer.h"
#include "core/screen/screen.h"
#include "tests/common/qtestutil.h"
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
    void filteredMeasuresMatchTheDefinition_data();
    void filteredMeasuresMatchTheDefinition();
    void centralCrop();
    void toneCurve();
    void spectrumKnownPatterns_data();
    void spectrumKnownPatterns();
    void spectrumParseval();
    void toneErrorOnStaircase();
    void tilesOfPlane();
    void bartlettAverage();
    void anisotropyKnownPatterns_data();
    void anisotropyKnownPatterns();
    void ciede2000Sharma_data();
    void ciede2000Sharma();
    void labOfKnownColours();
    void filteredDeltaE();
    void seenDeltaERanksAsHvsError();
};

void TestMetrics::hvsErrorMatchesDbs_data() { test::sizeRows({{1, 1}, {1, 23}, {29, 1}, {53, 41}}); }

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

namespace {

/// Section 3's truncated Gaussian written as defined, one output at a time: along the rows, then down the columns,
/// the taps outside the image dropped and the others' weights renormalised.
std::vector<double> blurAsDefined(std::vector<double> v, int W, int H, double sigma, int radius) {
    auto weight = [&](int i) { return sigma > 0 ? std::exp(-double(i * i) / (2 * sigma * sigma)) : double(i == 0); };
    auto pass = [&](const std::vector<double>& in, bool down) {
        std::vector<double> out(in.size());
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                double acc = 0, ws = 0;
                for (int i = -radius; i <= radius; ++i) {
                    const int xx = down ? x : x + i, yy = down ? y + i : y;
                    if (xx < 0 || xx >= W || yy < 0 || yy >= H) continue;
                    acc += weight(i) * in[size_t(yy) * size_t(W) + size_t(xx)];
                    ws += weight(i);
                }
                out[size_t(y) * size_t(W) + size_t(x)] = acc / ws;
            }
        return out;
    };
    return pass(pass(v, false), true);
}

std::vector<double> valuesOf(const Plane8& p, const std::function<double(uint8_t)>& f) {
    std::vector<double> v(p.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = f(p.data[i]);
    return v;
}

bool near(double a, double b) { return a == b || std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

}  // namespace

void TestMetrics::filteredMeasuresMatchTheDefinition_data() {
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::addColumn<double>("sigma");
    QTest::addColumn<int>("radius");
    // Sizes below, at and above the kernel and the engine's bands of rows (64), primes among them.
    for (auto [w, h] :
         std::vector<std::pair<int, int>>{{1, 1}, {1, 23}, {23, 1}, {3, 2}, {97, 61}, {131, 67}, {67, 131}, {257, 199}})
        for (auto [sigma, radius] : std::vector<std::pair<double, int>>{{1.2, 4}, {3.0, 9}, {0.0, 0}})
            QTest::newRow(qPrintable(QString("%1x%2 sigma %3 r %4").arg(w).arg(h).arg(sigma).arg(radius)))
                << w << h << sigma << radius;
}

void TestMetrics::filteredMeasuresMatchTheDefinition() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(double, sigma);
    QFETCH(int, radius);
    const uint64_t seed = test::freshSeed("metrics filtered");
    const Plane8 a = test::randomPlane(w, h, seed), b = test::randomPlane(w, h, seed + 1);
    const size_t n = a.size();
    // Filtered PSNR, as stored and in linear light.
    for (bool linear : {false, true}) {
        auto value = [&](uint8_t v) { return linear ? 255.0 * srgbToLinear(v / 255.0) : double(v); };
        const auto fa = blurAsDefined(valuesOf(a, value), w, h, sigma, radius),
                   fb = blurAsDefined(valuesOf(b, value), w, h, sigma, radius);
        double mse = 0;
        for (size_t i = 0; i < n; ++i) mse += (fb[i] - fa[i]) * (fb[i] - fa[i]);
        const double expected = 10.0 * std::log10(255.0 * 255.0 / (mse / double(n)));
        const double got = filteredPsnr(a, b, sigma, radius, linear);
        QVERIFY2(near(got, expected),
                 qPrintable(QString("%1 against %2").arg(got, 0, 'g', 17).arg(expected, 0, 'g', 17)));
    }
    // SSIM (its own window: sigma 1.5, radius 5), once a size.
    if (sigma == 1.2) {
        auto id = [](uint8_t v) { return double(v); };
        const auto x = valuesOf(a, id), y = valuesOf(b, id);
        std::vector<double> xx(n), yy(n), xy(n);
        for (size_t i = 0; i < n; ++i) xx[i] = x[i] * x[i], yy[i] = y[i] * y[i], xy[i] = x[i] * y[i];
        const auto mx = blurAsDefined(x, w, h, 1.5, 5), my = blurAsDefined(y, w, h, 1.5, 5),
                   sxx = blurAsDefined(xx, w, h, 1.5, 5), syy = blurAsDefined(yy, w, h, 1.5, 5),
                   sxy = blurAsDefined(xy, w, h, 1.5, 5);
        const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
        double sum = 0;
        for (size_t i = 0; i < n; ++i) {
            const double vx = sxx[i] - mx[i] * mx[i], vy = syy[i] - my[i] * my[i], cxy = sxy[i] - mx[i] * my[i];
            sum += (2 * mx[i] * my[i] + c1) * (2 * cxy + c2) / ((mx[i] * mx[i] + my[i] * my[i] + c1) * (vx + vy + c2));
        }
        QVERIFY(near(ssim(a, b), sum / double(n)));
    }
    // Filtered Delta E 2000 of two colour images.
    Image ca, cb;
    ca.space = cb.space = ColorSpace::RGB;
    for (int c = 0; c < 3; ++c) {
        ca.channels.push_back(test::randomPlane(w, h, seed + 2 + uint64_t(c)));
        cb.channels.push_back(test::randomPlane(w, h, seed + 5 + uint64_t(c)));
    }
    auto lin = [](uint8_t v) { return srgbToLinear(v / 255.0); };
    std::array<std::vector<double>, 6> f;
    for (size_t c = 0; c < 3; ++c) {
        f[c] = blurAsDefined(valuesOf(ca.channels[c], lin), w, h, sigma, radius);
        f[c + 3] = blurAsDefined(valuesOf(cb.channels[c], lin), w, h, sigma, radius);
    }
    double de = 0;
    for (size_t i = 0; i < n; ++i)
        de += ciede2000(linearSrgbToLab(f[0][i], f[1][i], f[2][i]), linearSrgbToLab(f[3][i], f[4][i], f[5][i]));
    QVERIFY(near(filteredDeltaE2000(ca, cb, sigma, radius), de / double(n)));
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

void TestMetrics::spectrumKnownPatterns_data() { test::sizeRows({{64, 64}, {40, 24}}); }

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

void TestMetrics::toneErrorOnStaircase() {
    const Plane8 ramp = grayStaircase(3, 5);
    QCOMPARE(ramp.width, 768);
    QCOMPARE(ramp.height, 5);
    for (int x = 0; x < ramp.width; ++x) QCOMPARE(int(ramp.at(4, x)), x / 3);
    // A perfect reproduction has no tone error.
    ToneCurve t = halftone::toneCurve(ramp, ramp);
    QCOMPARE(t.meanDeviation, 0.0);
    QCOMPARE(t.maxDeviation, 0.0);
    QCOMPARE(t.worstLevel, 0);
    // A threshold at 128 is off by g below and by 255 - g above: mean (2 x 8128) / 256 = 63.5, max 127 at 127.
    Plane8 thr(ramp.width, ramp.height);
    for (size_t i = 0; i < ramp.size(); ++i) thr.data[i] = ramp.data[i] > 127 ? 255 : 0;
    t = halftone::toneCurve(ramp, thr);
    QCOMPARE(t.meanDeviation, 63.5);
    QCOMPARE(t.maxDeviation, 127.0);
    QCOMPARE(t.worstLevel, 127);
    // Bayer 16 over whole 16 x 16 periods: each level within one gray level (ceil(256 g / 255) of 256 pixels white).
    const Plane8 tall = grayStaircase(16, 64);
    Plane8 out;
    ThresholdArray b;
    QVERIFY(bayerScreen(16, b).isOk());
    QVERIFY(orderedDither(tall, out, b).isOk());
    t = halftone::toneCurve(tall, out);
    QVERIFY2(t.maxDeviation <= 1.0, qPrintable(QString::number(t.maxDeviation)));
    QVERIFY(t.meanDeviation > 0 && t.meanDeviation < t.maxDeviation);
    // Floyd-Steinberg keeps the mean of each level closely (the error it carries is bounded).
    Plane8 fs;
    QVERIFY(errorDiffuse(tall, fs, EdParams{}, EdVariant::Diffusion).isOk());
    t = halftone::toneCurve(tall, fs);
    qInfo("Floyd-Steinberg on a 16-column staircase: tone error mean %.3f, max %.3f at %d", t.meanDeviation,
          t.maxDeviation, t.worstLevel);
    QVERIFY(t.meanDeviation < 1.0);
    QVERIFY(t.maxDeviation < 4.0);
    // No level in common: nothing to measure.
    QCOMPARE(halftone::toneCurve(ramp, Plane8(2, 2)).worstLevel, -1);
}

void TestMetrics::tilesOfPlane() {
    Plane8 p(10, 7);
    for (size_t i = 0; i < p.size(); ++i) p.data[i] = uint8_t(i);
    const std::vector<Plane8> t = tilesOf(p, 3, 1);
    QCOMPARE(int(t.size()), 2);  // (10 - 2) / 3 = 2 across, (7 - 2) / 3 = 1 down
    QCOMPARE(int(t[0].at(0, 0)), int(p.at(1, 1)));
    QCOMPARE(int(t[1].at(2, 2)), int(p.at(3, 6)));
    QVERIFY(tilesOf(p, 8, 0).empty());
    QVERIFY(tilesOf(p, 0, 0).empty());
    QCOMPARE(int(tilesOf(p, 1, 0).size()), 70);
}

void TestMetrics::bartlettAverage() {
    const Plane8 a = test::randomPlane(32, 24, test::freshSeed("metrics bartlett"));
    RadialSpectrum one, same, two;
    QVERIFY(radialSpectrum(a, one).isOk());
    QCOMPARE(one.periodograms, 1);
    // K copies of one patch average to its own periodogram.
    QVERIFY(radialSpectrum(std::vector<Plane8>{a, a, a}, same).isOk());
    QCOMPARE(same.periodograms, 3);
    QCOMPARE(same.power.size(), one.power.size());
    for (size_t i = 0; i < one.power.size(); ++i) {
        QVERIFY(std::abs(same.power[i] - one.power[i]) <= 1e-12 * (one.power[i] + 1e-12));
        QVERIFY(!std::isfinite(one.anisotropy[i]) || std::abs(same.anisotropy[i] - one.anisotropy[i]) < 1e-6);
    }
    // Two patches: the mean of their periodograms (Parseval: total power is the mean of the two variances).
    Plane8 b = a;
    for (uint8_t& v : b.data) v = uint8_t(255 - v / 2);
    RadialSpectrum sb;
    QVERIFY(radialSpectrum(b, sb).isOk());
    QVERIFY(radialSpectrum(std::vector<Plane8>{a, b}, two).isOk());
    double total = 0;
    for (size_t i = 0; i < two.power.size(); ++i) {
        QVERIFY(std::abs(two.power[i] - (one.power[i] + sb.power[i]) / 2) <= 1e-12 + 1e-9 * two.power[i]);
        total += two.power[i] * two.samples[i];
    }
    QVERIFY(std::abs(total / (32.0 * 24.0) - two.variance) <= 1e-9 * two.variance);
    QVERIFY(std::abs(two.variance - (one.variance + sb.variance) / 2) <= 1e-12);
    QVERIFY(!radialSpectrum(std::vector<Plane8>{}, two).isOk());
    QVERIFY(!radialSpectrum(std::vector<Plane8>{a, Plane8(24, 32)}, two).isOk());
    // One value everywhere holds no power: no anisotropy to report.
    QVERIFY(radialSpectrum(Plane8(16, 16, 77), one).isOk());
    QVERIFY(std::isnan(meanAnisotropy(one)));
}

void TestMetrics::anisotropyKnownPatterns_data() {
    QTest::addColumn<int>("tiles");
    QTest::newRow("1 periodogram") << 1;
    QTest::newRow("16 periodograms") << 16;
}

void TestMetrics::anisotropyKnownPatterns() {
    QFETCH(int, tiles);
    constexpr int side = 128;
    std::mt19937_64 rng(test::freshSeed("metrics anisotropy"));
    std::vector<Plane8> noise, lines;
    for (int k = 0; k < tiles; ++k) {
        // Binary white noise: isotropic, every ring's samples spread as exponentially as their mean.
        Plane8 n(side, side);
        for (uint8_t& v : n.data) v = (rng() & 1) ? 255 : 0;
        noise.push_back(std::move(n));
        // Random vertical lines: all power on the horizontal frequency axis, two samples of each ring.
        Plane8 l(side, side);
        std::vector<uint8_t> column(side);
        for (uint8_t& v : column) v = (rng() & 1) ? 255 : 0;
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) l.at(y, x) = column[size_t(x)];
        lines.push_back(std::move(l));
    }
    RadialSpectrum s;
    QVERIFY(radialSpectrum(noise, s).isOk());
    const double floor = -10 * std::log10(double(tiles)), aNoise = meanAnisotropy(s);
    QVERIFY(radialSpectrum(lines, s).isOk());
    const double aLines = meanAnisotropy(s);
    qInfo("%d periodogram(s): white noise %.2f dB (floor %.2f dB), vertical lines %.2f dB", tiles, aNoise, floor,
          aLines);
    // Ulichney: K averaged periodograms of an isotropic random pattern sit at -10 log10 K dB; the tolerance covers the
    // spread of the estimate (and the log's bias) in the smallest rings.
    QVERIFY2(std::abs(aNoise - floor) < 1.0, qPrintable(QString::number(aNoise)));
    // Lines: two of about 2 pi r samples per ring hold all the power, so var / mean^2 is about pi r: well above 10 dB.
    QVERIFY2(aLines > 10.0, qPrintable(QString::number(aLines)));
    // The same lines turned by 90 degrees measure the same.
    std::vector<Plane8> turned;
    for (const Plane8& l : lines) {
        Plane8 t(side, side);
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) t.at(y, x) = l.at(x, y);
        turned.push_back(std::move(t));
    }
    QVERIFY(radialSpectrum(turned, s).isOk());
    QVERIFY(std::abs(meanAnisotropy(s) - aLines) < 1e-6);
}

void TestMetrics::ciede2000Sharma_data() {
    // Sharma, Wu and Dalal (2005), Table 1: all 34 pairs (L1, a1, b1, L2, a2, b2, Delta E 2000 to four decimals).
    test::columns<double, double, double, double, double, double, double>("L1", "a1", "b1", "L2", "a2", "b2", "dE");
    const double table[34][7] = {
        {50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425},
        {50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615},
        {50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412},
        {50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000},
        {50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000},
        {50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000},
        {50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669},
        {50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669},
        {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792},
        {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792},
        {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195},
        {50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195},
        {50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045},
        {50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045},
        {50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461},
        {50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065},
        {50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492},
        {50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977},
        {50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030},
        {50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535},
        {50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000},
        {50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000},
        {50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000},
        {50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000},
        {60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644},
        {63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630},
        {61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731},
        {35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645},
        {22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373},
        {36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146},
        {90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441},
        {90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381},
        {6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377},
        {2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082},
    };
    for (int i = 0; i < 34; ++i)
        QTest::newRow(qPrintable(QString("pair %1").arg(i + 1)))
            << table[i][0] << table[i][1] << table[i][2] << table[i][3] << table[i][4] << table[i][5] << table[i][6];
}

void TestMetrics::ciede2000Sharma() {
    QFETCH(double, L1);
    QFETCH(double, a1);
    QFETCH(double, b1);
    QFETCH(double, L2);
    QFETCH(double, a2);
    QFETCH(double, b2);
    QFETCH(double, dE);
    // The table gives four decimals: the difference must round to it, in both orders (the formula is symmetric).
    const double d12 = ciede2000({L1, a1, b1}, {L2, a2, b2}), d21 = ciede2000({L2, a2, b2}, {L1, a1, b1});
    QVERIFY2(std::abs(d12 - dE) <= 0.00005 + 1e-12, qPrintable(QString::number(d12, 'f', 6)));
    QVERIFY2(std::abs(d21 - dE) <= 0.00005 + 1e-12, qPrintable(QString::number(d21, 'f', 6)));
    QCOMPARE(ciede2000({L1, a1, b1}, {L1, a1, b1}), 0.0);
}

void TestMetrics::labOfKnownColours() {
    const Lab white = linearSrgbToLab(1, 1, 1), black = linearSrgbToLab(0, 0, 0);
    QVERIFY(std::abs(white.L - 100) < 1e-9 && std::abs(white.a) < 1e-9 && std::abs(white.b) < 1e-9);
    QVERIFY(std::abs(black.L) < 1e-9 && std::abs(black.a) < 1e-9 && std::abs(black.b) < 1e-9);
    // sRGB red, green and blue (the usual D65 values, to the precision of the four-digit matrix).
    const Lab r = linearSrgbToLab(1, 0, 0), g = linearSrgbToLab(0, 1, 0), b = linearSrgbToLab(0, 0, 1);
    QVERIFY2(std::abs(r.L - 53.24) < 0.05 && std::abs(r.a - 80.09) < 0.1 && std::abs(r.b - 67.20) < 0.1,
             qPrintable(QString("%1 %2 %3").arg(r.L).arg(r.a).arg(r.b)));
    QVERIFY2(std::abs(g.L - 87.73) < 0.05 && std::abs(g.a + 86.18) < 0.1 && std::abs(g.b - 83.18) < 0.1,
             qPrintable(QString("%1 %2 %3").arg(g.L).arg(g.a).arg(g.b)));
    QVERIFY2(std::abs(b.L - 32.30) < 0.05 && std::abs(b.a - 79.19) < 0.1 && std::abs(b.b + 107.86) < 0.1,
             qPrintable(QString("%1 %2 %3").arg(b.L).arg(b.a).arg(b.b)));
    // Mid gray: L* of Y = 0.5 is 76.07.
    QVERIFY(std::abs(linearSrgbToLab(0.5, 0.5, 0.5).L - 76.069) < 0.01);
}

void TestMetrics::filteredDeltaE() {
    auto rgb = [](int w, int h, std::array<uint8_t, 3> c) {
        Image im;
        im.space = ColorSpace::RGB;
        for (uint8_t v : c) im.channels.emplace_back(w, h, v);
        return im;
    };
    const Image orange = rgb(40, 30, {230, 120, 20});
    QCOMPARE(filteredDeltaE2000(orange, orange), 0.0);
    QVERIFY(std::isnan(filteredDeltaE2000(orange, rgb(41, 30, {0, 0, 0}))));
    QVERIFY(std::isnan(filteredDeltaE2000(orange, Image{})));
    // Flat against flat: the filter keeps a flat colour, so the mean is that pair's CIEDE2000 (linear light, Lab).
    const Image teal = rgb(40, 30, {20, 130, 140});
    auto lab = [](std::array<uint8_t, 3> c) {
        return linearSrgbToLab(srgbToLinear(c[0] / 255.0), srgbToLinear(c[1] / 255.0), srgbToLinear(c[2] / 255.0));
    };
    QVERIFY(std::abs(filteredDeltaE2000(orange, teal) - ciede2000(lab({230, 120, 20}), lab({20, 130, 140}))) < 1e-9);
    // A black and white checkerboard is seen, through the filter, as the gray of half the light: compared with that
    // gray (sRGB 188, linear 0.5029) it scores far better than with black or white.
    Image checker = rgb(48, 48, {0, 0, 0});
    for (int y = 0; y < 48; ++y)
        for (int x = 0; x < 48; ++x)
            for (auto& ch : checker.channels) ch.at(y, x) = (x + y) % 2 ? 255 : 0;
    const double toGray = filteredDeltaE2000(rgb(48, 48, {188, 188, 188}), checker);
    const double toBlack = filteredDeltaE2000(rgb(48, 48, {0, 0, 0}), checker);
    QVERIFY2(toGray < 2.0, qPrintable(QString::number(toGray)));
    QVERIFY(toBlack > 30);
    // Gray images are compared as R = G = B.
    const Plane8 g = test::randomPlane(33, 27, test::freshSeed("metrics delta e"));
    Image g3;
    g3.space = ColorSpace::RGB;
    g3.channels.assign(3, g);
    QCOMPARE(filteredDeltaE2000(Image::gray(g), g3), 0.0);
}

void TestMetrics::seenDeltaERanksAsHvsError() {
    // A photograph-like gray image: smooth shading, a disc, fine texture.
    const int W = 301, H = 233;
    const Plane8 noise = test::randomPlane(W, H, test::freshSeed("seen delta e"));
    Plane8 gray(W, H);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const double dx = x - W / 2.0, dy = y - H / 2.0;
            double v = 40 + 170.0 * x / (W - 1) + 20 * std::sin(y / 9.0);
            if (dx * dx + dy * dy < 60 * 60) v = 230 - 150.0 * y / (H - 1);
            v += (noise.at(y, x) - 127.5) / 16;
            gray.at(y, x) = uint8_t(std::clamp(v, 0.0, 255.0));
        }
    struct Result {
        std::string name;
        Plane8 halftone;
    };
    std::vector<Result> results;
    for (const char* k : {"floyd-steinberg", "jarvis", "stucki", "atkinson"}) {
        EdParams p;
        p.kernel = k;
        results.push_back({k, referenceErrorDiffusion(gray, p)});
    }
    for (const char* spec : {"bayer:8", "bayer:2", "cluster:cell=8,angle=45"}) {
        ThresholdArray t;
        QVERIFY(screenFromSpec(spec, t).isOk());
        Plane8 out;
        QVERIFY(orderedDither(gray, out, t).isOk());
        results.push_back({spec, out});
    }
    const Image original = Image::gray(gray);
    QCOMPARE(seenDeltaE2000(original, original, false), 0.0);
    QCOMPARE(seenDeltaE2000(original, original, true), 0.0);
    // Under the default viewing conditions every pair of results is ordered as E/N orders it.
    for (size_t i = 0; i < results.size(); ++i)
        for (size_t j = 0; j < results.size(); ++j) {
            const double ei = hvsWeightedError(gray, results[i].halftone),
                         ej = hvsWeightedError(gray, results[j].halftone);
            const double di = seenDeltaE2000(original, Image::gray(results[i].halftone), false);
            const double dj = seenDeltaE2000(original, Image::gray(results[j].halftone), false);
            QVERIFY2((ei < ej) == (di < dj), qPrintable(QString("%1: E/N %2, seen dE %3; %4: E/N %5, seen dE %6")
                                                            .arg(QString::fromStdString(results[i].name))
                                                            .arg(ei)
                                                            .arg(di)
                                                            .arg(QString::fromStdString(results[j].name))
                                                            .arg(ej)
                                                            .arg(dj)));
        }
    // The default: a 96 dpi screen seen from 18 inches, 1.51 pixels.
    QVERIFY(std::abs(eyeSigmaPixels({}) - 96 * 18 * std::tan(0.05 * M_PI / 180)) < 1e-12);
    // Farther away the eye averages more: a clustered dot scores better.
    ViewingConditions far;
    far.distanceInches = 72;
    QVERIFY(seenDeltaE2000(original, Image::gray(results.back().halftone), false, far) <
            seenDeltaE2000(original, Image::gray(results.back().halftone), false));
}

QTEST_GUILESS_MAIN(TestMetrics)
#include "test_metrics.moc"
