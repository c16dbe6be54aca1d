// Blue-noise threshold arrays: void-and-cluster ranks are permutations and reproducible from the seed, the spectrum
// of the arrays and of their flat tints (low-frequency power far below white noise's, anisotropy near 0 dB), the
// spatiotemporal frames, ordered dither to gray levels and to a palette with them, specs and the file round trip.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/job/registry.h"
#include "core/palette/paletteordered.h"
#include "core/pnm.h"
#include "core/quality/metrics.h"
#include "core/screen/bluenoise.h"
#include "core/screen/ordered.h"
#include "core/screen/screen.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

Plane8 flatTint(const ThresholdArray& t, int g, int levels = 2) {
    Plane8 src(t.width, t.height, uint8_t(g)), dst;
    if (!orderedDither(src, dst, t, {}, levels).isOk()) return {};
    return dst;
}

RadialSpectrum spectrumOf(const Plane8& p) {
    RadialSpectrum s;
    if (!radialSpectrum(p, s).isOk()) return {};
    return s;
}

ThresholdArray whiteNoiseScreen(int n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    ThresholdArray t(n, n);
    for (uint8_t& v : t.data) v = uint8_t(rng() % 255);
    return t;
}

bool isPermutation(const PlaneT<int32_t>& rank) {
    std::vector<int32_t> sorted = rank.data;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
        if (sorted[i] != int32_t(i)) return false;
    return true;
}

/// The output values v_k of docs/spec.md section 1.
int levelValue(int k, int levels) { return (510 * k + levels - 1) / (2 * (levels - 1)); }

/// Void-and-cluster as Ulichney states it, each extreme found by a scan over every entry (the first of the extreme
/// energy), with the generator's energy sums in the generator's order: the ranks the generator's row and heap
/// searches must reproduce.
std::vector<PlaneT<int32_t>> plainVoidAndCluster(int n, int frames, uint64_t seed) {
    const double sigma = 1.5;
    const int r = std::min((n - 1) / 2, int(std::ceil(4 * sigma))),
              rt = std::min(frames / 2, int(std::ceil(4 * sigma)));
    const int plane = n * n, N = plane * frames;
    std::vector<double> e(static_cast<size_t>(N), 0.0);
    std::vector<uint8_t> b(static_cast<size_t>(N), 0);
    auto change = [&](std::vector<double>& en, std::vector<uint8_t>& bits, int i, int s) {
        bits[size_t(i)] = s > 0;
        const int z = i / plane, rem = i % plane, y = rem / n, x = rem % n;
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx)
                en[size_t(z) * plane + size_t((y + dy + n) % n) * n + size_t((x + dx + n) % n)] +=
                    s * std::exp(-(dx * dx + dy * dy) / (2 * sigma * sigma));
        for (int dz = -rt; dz <= rt; ++dz)
            if (dz != 0)
                en[size_t(((z + dz) % frames + frames) % frames) * plane + size_t(rem)] +=
                    s * std::exp(-(dz * dz) / (2 * sigma * sigma));
    };
    auto extreme = [&](const std::vector<double>& en, const std::vector<uint8_t>& bits, bool dots) {
        int best = -1;
        for (int i = 0; i < N; ++i)
            if (bits[size_t(i)] == dots &&
                (best < 0 || (dots ? en[size_t(i)] > en[size_t(best)] : en[size_t(i)] < en[size_t(best)])))
                best = i;
        return best;
    };
    std::mt19937_64 rng(seed);
    const int ones = std::max(1, N / 10);
    for (int placed = 0; placed < ones;) {
        const int i = int(rng() % uint64_t(N));
        if (b[size_t(i)]) continue;
        change(e, b, i, 1);
        ++placed;
    }
    for (int guard = 0; guard < 10 * N; ++guard) {
        const int c = extreme(e, b, true);
        change(e, b, c, -1);
        const int v = extreme(e, b, false);
        change(e, b, v, 1);
        if (v == c) break;
    }
    std::vector<int32_t> rank(static_cast<size_t>(N));
    std::vector<double> e1 = e;
    std::vector<uint8_t> b1 = b;
    for (int k = ones - 1; k >= 0; --k) {
        const int c = extreme(e1, b1, true);
        change(e1, b1, c, -1);
        rank[size_t(c)] = k;
    }
    for (int k = ones; k < N; ++k) {
        const int v = extreme(e, b, false);
        change(e, b, v, 1);
        rank[size_t(v)] = k;
    }
    std::vector<PlaneT<int32_t>> out;
    for (int z = 0; z < frames; ++z) {
        std::vector<std::pair<int32_t, int>> order;
        for (int i = 0; i < plane; ++i) order.push_back({rank[size_t(z) * plane + size_t(i)], i});
        std::sort(order.begin(), order.end());
        PlaneT<int32_t> p(n, n, 0);
        for (int i = 0; i < plane; ++i) p.data[size_t(order[size_t(i)].second)] = i;
        out.push_back(std::move(p));
    }
    return out;
}

constexpr int kTints[] = {16, 32, 64, 128, 192, 240};
constexpr double kLowFrequency = 0.15;

}  // namespace

class TestBlueNoise : public QObject {
    Q_OBJECT
private slots:
    void ranksArePermutations_data();
    void ranksArePermutations();
    void sameAsPlainScan_data();
    void sameAsPlainScan();
    void reproducibleFromSeed();
    void spectrum_data();
    void spectrum();
    void framesDecorrelateInTime();
    void orderedToLevels_data();
    void orderedToLevels();
    void orderedToPalette();
    void specs();
    void fileRoundTrip();
};

void TestBlueNoise::ranksArePermutations_data() {
    test::intRows<2>({"size", "frames"}, {{"8", {8, 1}},
                                          {"13 (prime)", {13, 1}},
                                          {"64", {64, 1}},
                                          {"100", {100, 1}},
                                          {"32 x 4 frames", {32, 4}},
                                          {"16 x 3 frames", {16, 3}}});
}

void TestBlueNoise::ranksArePermutations() {
    QFETCH(int, size);
    QFETCH(int, frames);
    std::vector<PlaneT<int32_t>> ranks;
    QVERIFY(voidAndClusterRanks(size, frames, test::freshSeed("void-and-cluster"), ranks).isOk());
    QCOMPARE(int(ranks.size()), frames);
    for (const PlaneT<int32_t>& r : ranks) {
        QCOMPARE(r.width, size);
        QCOMPARE(r.height, size);
        QVERIFY(isPermutation(r));
        // The thresholds: gray g turns exactly ceil(g N / 255) entries white.
        const ThresholdArray t = thresholdsFromRanks(r);
        const int64_t N = int64_t(size) * size;
        for (int g : {0, 1, 77, 128, 254, 255}) {
            const Plane8 p = flatTint(t, g);
            QCOMPARE(int64_t(std::count(p.data.begin(), p.data.end(), 255)), (int64_t(g) * N + 254) / 255);
        }
    }
    // Spatiotemporal frames differ from each other.
    for (int z = 1; z < frames; ++z) QVERIFY(ranks[size_t(z)].data != ranks[0].data);
}

void TestBlueNoise::sameAsPlainScan_data() {
    test::intRows<2>({"size", "frames"},
                     {{"8", {8, 1}}, {"13 (prime)", {13, 1}}, {"40", {40, 1}}, {"12 x 5 frames", {12, 5}}});
}

void TestBlueNoise::sameAsPlainScan() {
    QFETCH(int, size);
    QFETCH(int, frames);
    const uint64_t seed = test::freshSeed("void-and-cluster");
    std::vector<PlaneT<int32_t>> got;
    QVERIFY(voidAndClusterRanks(size, frames, seed, got).isOk());
    const std::vector<PlaneT<int32_t>> want = plainVoidAndCluster(size, frames, seed);
    QCOMPARE(int(got.size()), int(want.size()));
    for (size_t z = 0; z < got.size(); ++z) QCOMPARE(got[z].data, want[z].data);
}

void TestBlueNoise::reproducibleFromSeed() {
    const uint64_t seed = test::freshSeed("void-and-cluster");
    std::vector<PlaneT<int32_t>> a, b, c;
    QVERIFY(voidAndClusterRanks(48, 1, seed, a).isOk());
    QVERIFY(voidAndClusterRanks(48, 1, seed, b).isOk());
    QVERIFY(voidAndClusterRanks(48, 1, seed + 1, c).isOk());
    QCOMPARE(a.front().data, b.front().data);
    QVERIFY(a.front().data != c.front().data);
    // The cached screen of a spec is the generator's.
    ThresholdArray t;
    QVERIFY(screenFromSpec("blue-noise:size=48,seed=" + std::to_string(seed), t).isOk());
    QCOMPARE(t.data, thresholdsFromRanks(a.front()).data);
    // Cancelling stops the generator.
    RunControl stop;
    stop.stop.requestStop();
    QVERIFY(voidAndClusterRanks(64, 1, seed, a, stop).isCancelled());
}

void TestBlueNoise::spectrum_data() {
    QTest::addColumn<QString>("spec");
    QTest::newRow("blue-noise (64)") << "blue-noise";
    QTest::newRow("blue-noise:128") << "blue-noise:128";
    QTest::newRow("seed 9, 96") << "blue-noise:size=96,seed=9";
    QTest::newRow("spatiotemporal frame 3 of 8") << "blue-noise:size=64,frames=8,frame=3";
}

void TestBlueNoise::spectrum() {
    QFETCH(QString, spec);
    ThresholdArray t;
    QVERIFY(screenFromSpec(spec.toStdString(), t).isOk());
    const ThresholdArray white = whiteNoiseScreen(t.width, test::freshSeed("white noise"));
    ThresholdArray bayer8, bayer;
    QVERIFY(bayerScreen(8, bayer8).isOk());
    bayer = ThresholdArray(t.width, t.height);
    for (int y = 0; y < t.height; ++y)
        for (int x = 0; x < t.width; ++x) bayer.at(y, x) = bayer8.at(y % 8, x % 8);
    // The array itself, then its binary patterns at light, middle and dark tints: low-frequency power far below white
    // noise's, and isotropic. Bayer's regular pattern, with its low power, fails the anisotropy bound (about 13 dB),
    // so the bound separates blue noise from a periodic screen.
    const RadialSpectrum array = spectrumOf(t);
    QVERIFY(lowFrequencyRatio(array, kLowFrequency) < 0.02);
    QVERIFY(std::abs(meanAnisotropy(array)) < 2.0);
    for (int g : kTints) {
        const RadialSpectrum b = spectrumOf(flatTint(t, g));
        const RadialSpectrum w = spectrumOf(flatTint(white, g));
        const double blue = lowFrequencyRatio(b, kLowFrequency), noise = lowFrequencyRatio(w, kLowFrequency);
        const double aniso = meanAnisotropy(b), bayerAniso = meanAnisotropy(spectrumOf(flatTint(bayer, g)));
        qInfo("tint %3d: low-frequency power / variance %.3f (white noise %.3f), anisotropy %.2f dB (Bayer %.2f dB)", g,
              blue, noise, aniso, bayerAniso);
        QVERIFY2(blue < 0.2 && blue < 0.25 * noise,
                 qPrintable(QString("tint %1: %2 against %3").arg(g).arg(blue).arg(noise)));
        QVERIFY2(std::abs(aniso) < 2.0, qPrintable(QString("tint %1: anisotropy %2 dB").arg(g).arg(aniso)));
        QVERIFY(bayerAniso > 6.0);
    }
}

void TestBlueNoise::framesDecorrelateInTime() {
    // 16 frames of 32 x 32: each frame's tint is blue noise in space, and each pixel's on/off sequence over the frames
    // has little power at low temporal frequencies, unlike 16 arrays of independent seeds (about 1).
    constexpr int T = 16, n = 32, g = 128;
    const uint64_t seed = test::freshSeed("spatiotemporal");
    std::vector<PlaneT<int32_t>> st;
    QVERIFY(voidAndClusterRanks(n, T, seed, st).isOk());
    auto temporalLowRatio = [&](const std::vector<Plane8>& bits) {
        double low = 0, var = 0;
        for (int i = 0; i < n * n; ++i) {
            double mean = 0;
            for (const Plane8& b : bits) mean += b.data[size_t(i)] / 255.0 / T;
            std::complex<double> c1 = 0, c2 = 0;
            for (int z = 0; z < T; ++z) {
                const double v = bits[size_t(z)].data[size_t(i)] / 255.0 - mean;
                var += v * v;
                c1 += v * std::polar(1.0, -2 * M_PI * z / T);
                c2 += v * std::polar(1.0, -4 * M_PI * z / T);
            }
            low += std::norm(c1) + std::norm(c2);
        }
        return (low / 2) / (var * T / (T - 1));  // mean power of the two lowest bins over the mean of all T - 1
    };
    std::vector<Plane8> stBits, seedBits;
    for (int z = 0; z < T; ++z) {
        const ThresholdArray frame = thresholdsFromRanks(st[size_t(z)]);
        stBits.push_back(flatTint(frame, g));
        QVERIFY(lowFrequencyRatio(spectrumOf(stBits.back()), kLowFrequency) < 0.2);
        std::vector<PlaneT<int32_t>> one;
        QVERIFY(voidAndClusterRanks(n, 1, seed + 1 + uint64_t(z), one).isOk());
        seedBits.push_back(flatTint(thresholdsFromRanks(one.front()), g));
    }
    const double st_ = temporalLowRatio(stBits), seeds = temporalLowRatio(seedBits);
    qInfo("temporal low-frequency power / variance at tint %d: spatiotemporal %.3f, independent seeds %.3f", g, st_,
          seeds);
    QVERIFY(st_ < 0.5);
    QVERIFY(seeds > 0.6);
}

void TestBlueNoise::orderedToLevels_data() {
    QTest::addColumn<int>("levels");
    for (int l : {2, 3, 4, 7, 16, 256}) QTest::addRow("L%d", l) << l;
}

void TestBlueNoise::orderedToLevels() {
    QFETCH(int, levels);
    ThresholdArray t;
    QVERIFY(screenFromSpec("blue-noise:32", t).isOk());
    // Against a plain statement of the rule on random images of awkward sizes.
    for (const auto& [w, h] : {std::pair{1, 1}, {1, 37}, {53, 1}, {67, 41}}) {
        const Plane8 src = test::randomPlane(w, h, test::freshSeed("levels image"));
        Plane8 dst;
        QVERIFY(orderedDither(src, dst, t, {}, levels).isOk());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int a = src.at(y, x), th = t.at(y % t.height, x % t.width);
                int k = 0;
                while (k < levels - 2 && levelValue(k + 1, levels) <= a) ++k;
                const int lo = levelValue(k, levels), hi = levelValue(k + 1, levels);
                const int want = 255 * (a - lo) > th * (hi - lo) ? hi : lo;
                QVERIFY2(dst.at(y, x) == want,
                         qPrintable(QString("(%1, %2) gray %3 threshold %4").arg(x).arg(y).arg(a).arg(th)));
            }
        if (levels == 2)
            for (size_t i = 0; i < src.size(); ++i)
                QCOMPARE(int(dst.data[i]), src.data[i] > t.at(int(i) / w % t.height, int(i) % w % t.width) ? 255 : 0);
    }
    // Over one period a flat gray keeps its mean within one level of 8 bits, using only its two neighbouring values.
    for (int g = 0; g < 256; g += 5) {
        const Plane8 p = flatTint(t, g, levels);
        double mean = 0;
        for (uint8_t v : p.data) mean += v;
        mean /= double(p.size());
        QVERIFY2(std::abs(mean - g) <= 1.0, qPrintable(QString("gray %1: mean %2").arg(g).arg(mean)));
        std::vector<uint8_t> values = p.data;
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        QVERIFY(values.size() <= 2);
    }
    // The registry's ordered method takes the levels parameter.
    const MethodInfo* m = Registry::instance().find("ordered", "screen");
    QVERIFY(m && m->param("levels"));
    ParamValues v;
    v.set("screen", std::string("blue-noise:32"));
    v.set("levels", int64_t(levels));
    const Plane8 src = test::randomPlane(45, 29, test::freshSeed("registry levels"));
    Plane8 viaRegistry, direct;
    QVERIFY(m->cpu(src, viaRegistry, v, {}).isOk());
    QVERIFY(orderedDither(src, direct, t, {}, levels).isOk());
    QCOMPARE(viaRegistry.data, direct.data);
    QVERIFY(!orderedDither(src, direct, t, {}, 1).isOk());
}

void TestBlueNoise::orderedToPalette() {
    // Black and white as a palette: the plan mixes them in linear light and the blue-noise screen picks; a flat tint
    // keeps its linear-light mean and its pattern is blue noise.
    Palette bw;
    bw.name = "bw";
    bw.colors = {{0, 0, 0}, {255, 255, 255}};
    ThresholdArray t;
    QVERIFY(screenFromSpec("blue-noise:64", t).isOk());
    for (int g : {64, 128, 188}) {
        const Image flat = test::flatRgb(64, 64, {uint8_t(g), uint8_t(g), uint8_t(g)});
        Plane8 idx;
        QVERIFY(orderedPaletteDither(flat, bw, t, 64, PaletteMatch::Weighted, idx).isOk());
        double white = 0;
        for (uint8_t i : idx.data) {
            QVERIFY(i <= 1);
            white += i;
        }
        white /= double(idx.size());
        const double x = g / 255.0, lin = x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
        qInfo("gray %d: white share %.4f, linear light %.4f", g, white, lin);
        QVERIFY(std::abs(white - lin) < 1.0 / 64 + 1e-9);
        Plane8 pattern(64, 64);
        for (size_t i = 0; i < idx.size(); ++i) pattern.data[i] = idx.data[i] ? 255 : 0;
        QVERIFY(lowFrequencyRatio(spectrumOf(pattern), kLowFrequency) < 0.2);
    }
    // Through the registry's palette form with a blue-noise spec, to a seven-colour palette: only palette indices.
    const MethodInfo* m = Registry::instance().find("ordered", "screen");
    QVERIFY(m && m->paletteCpu);
    Palette seven;
    seven.name = "seven";
    seven.colors = {{0, 0, 0}, {255, 255, 255}, {0, 255, 0}, {0, 0, 255}, {255, 0, 0}, {255, 255, 0}, {255, 128, 0}};
    ParamValues v;
    v.set("screen", std::string("blue-noise:size=32,seed=4"));
    const Image rgb = test::randomRgb(71, 43, "palette image");
    Plane8 viaRegistry, direct;
    QVERIFY(m->paletteCpu(rgb, seven, viaRegistry, v, {}).isOk());
    QVERIFY(screenFromSpec("blue-noise:size=32,seed=4", t).isOk());
    QVERIFY(orderedPaletteDither(rgb, seven, t, kDefaultMixingPlan, PaletteMatch::Weighted, direct).isOk());
    QCOMPARE(viaRegistry.data, direct.data);
    QVERIFY(*std::max_element(direct.data.begin(), direct.data.end()) < 7);
}

void TestBlueNoise::specs() {
    ThresholdArray t, u;
    QVERIFY(screenFromSpec("blue-noise:40", t).isOk());
    QCOMPARE(t.width, 40);
    QVERIFY(screenFromSpec("blue-noise:size=40,seed=1", u).isOk());
    QCOMPARE(t.data, u.data);
    // Frame K of T is frame K mod T of the spatiotemporal ranks.
    std::vector<PlaneT<int32_t>> ranks;
    QVERIFY(voidAndClusterRanks(24, 4, 5, ranks).isOk());
    QVERIFY(screenFromSpec("blue-noise:24,seed=5,frames=4,frame=6", t).isOk());
    QCOMPARE(t.data, thresholdsFromRanks(ranks[2]).data);
    for (const char* good : {"blue-noise", "blue-noise:8", "blue-noise:size=1024", "blue-noise:64,seed=0,frames=64",
                             "blue-noise:frames=2,frame=99"}) {
        QVERIFY2(checkScreenSpec(good).isOk(), good);
    }
    const std::pair<const char*, const char*> bad[] = {
        {"blue-noise:7", "from 8 to 1024"},
        {"blue-noise:1025", "from 8 to 1024"},
        {"blue-noise:64.5", "whole size"},
        {"blue-noise:seed=-1", "seed"},
        {"blue-noise:frames=0", "frames"},
        {"blue-noise:frames=65", "frames"},
        {"blue-noise:size=512,frames=8", "over the limit"},
        {"blue-noise:64,colour=1", "colour=1"},
        {"blue-noise:64,frame=x", "frame"},
    };
    for (const auto& [spec, words] : bad) {
        const Status s = checkScreenSpec(spec);
        QVERIFY2(!s.isOk() && s.message().find(words) != std::string::npos,
                 qPrintable(QString("%1: %2").arg(spec, QString::fromStdString(s.message()))));
        QVERIFY(!screenFromSpec(spec, t).isOk());
    }
}

void TestBlueNoise::fileRoundTrip() {
    // An array written as a PGM (as `halftone screen` writes it) and read back as a screen file is the same array.
    // Full-range textures are rescaled.
    ThresholdArray t;
    QVERIFY(screenFromSpec("blue-noise:size=64,seed=3", t).isOk());
    const std::vector<uint8_t> bytes = pnm::encodePgm(t);
    ThresholdArray back;
    QVERIFY(parsePgm(bytes.data(), bytes.size(), back).isOk());
    QCOMPARE(back.data, t.data);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("blue64.pgm").toStdString();
    {
        std::ofstream f(path, std::ios::binary);
        f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    QVERIFY(checkScreenSpec(path).isOk());
    QVERIFY(screenFromSpec(path, back).isOk());
    QCOMPARE(back.width, 64);
    QCOMPARE(back.data, t.data);
    // A full-range texture (values 0..255, each 16 times here): rescaled to 0..254, so white stays white and every
    // gray keeps its share of white within one level of 256.
    std::vector<PlaneT<int32_t>> ranks;
    QVERIFY(voidAndClusterRanks(64, 1, 3, ranks).isOk());
    Plane8 texture(64, 64);
    for (size_t i = 0; i < texture.size(); ++i) texture.data[i] = uint8_t(ranks[0].data[i] / 16);
    const std::string full = dir.filePath("full-range.pgm").toStdString();
    {
        const std::vector<uint8_t> b = pnm::encodePgm(texture);
        std::ofstream f(full, std::ios::binary);
        f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    }
    ThresholdArray rescaled;
    QVERIFY(screenFromSpec(full, rescaled).isOk());
    QCOMPARE(int(*std::max_element(rescaled.data.begin(), rescaled.data.end())), 254);
    for (size_t i = 0; i < texture.size(); ++i) QCOMPARE(int(rescaled.data[i]), 255 * texture.data[i] / 256);
    for (int g = 0; g < 256; ++g) {
        const Plane8 p = flatTint(rescaled, g);
        const double white = double(std::count(p.data.begin(), p.data.end(), 255)) / double(p.size());
        QVERIFY2(std::abs(white - g / 255.0) <= 1.0 / 256 + 1e-9, qPrintable(QString("gray %1: %2").arg(g).arg(white)));
    }
    // Ordered dither with the file equals ordered dither with the spec.
    const Plane8 src = test::randomPlane(83, 61, test::freshSeed("file screen"));
    Plane8 a, b;
    QVERIFY(orderedDither(src, a, t, {}, 4).isOk());
    QVERIFY(orderedDither(src, b, back, {}, 4).isOk());
    QCOMPARE(a.data, b.data);
}

QTEST_GUILESS_MAIN(TestBlueNoise)
#include "test_bluenoise.moc"
