// Ordered dither and screens: Koge, Ito and Nakano's rule, Bayer, clustered dot, void-and-cluster, the DBS screen
// generator (level counts, stacking, blue-noise spectrum), the shipped default screen, screen specs and bad files.
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>

#include "core/quality/metrics.h"
#include "core/screen/ordered.h"
#include "core/pnm.h"
#include "core/job/registry.h"
#include "core/screen/screen.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {
/// Number of entries of each threshold value 0..255.
std::vector<int> histogram(const ThresholdArray& t) {
    std::vector<int> h(256, 0);
    for (uint8_t v : t.data) ++h[v];
    return h;
}
int whiteCount(const ThresholdArray& t, int g) {
    Plane8 src(t.width, t.height, uint8_t(g)), dst;
    if (!orderedDither(src, dst, t).isOk()) return -1;
    return int(std::count(dst.data.begin(), dst.data.end(), 255));
}
}  // namespace

class TestOrdered : public QObject {
    Q_OBJECT
private slots:
    void ruleOnRandomImages_data();
    void ruleOnRandomImages();
    void bayer();
    void clusteredDot_data();
    void clusteredDot();
    void voidAndCluster();
    void dbsScreenGenerator_data();
    void dbsScreenGenerator();
    void defaultScreenIsShipped();
    void specsAndBadInput();
    void registryRunsOrdered();
};

void TestOrdered::ruleOnRandomImages_data() {
    test::columns<int, int, int, int>("w", "h", "sw", "sh");
    const int sizes[][4] = {{1, 1, 1, 1},    {1, 31, 3, 5},     {37, 1, 8, 8},
                            {61, 47, 17, 1}, {100, 33, 64, 64}, {7, 5, 16, 16}};
    for (const auto& s : sizes)
        QTest::newRow(qPrintable(QString("%1x%2 screen %3x%4").arg(s[0]).arg(s[1]).arg(s[2]).arg(s[3])))
            << s[0] << s[1] << s[2] << s[3];
}

void TestOrdered::ruleOnRandomImages() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(int, sw);
    QFETCH(int, sh);
    const uint64_t seed = test::freshSeed("ordered rule");
    const Plane8 src = test::randomPlane(w, h, seed);
    std::mt19937_64 rng(seed + 1);
    ThresholdArray t(sw, sh);
    for (uint8_t& v : t.data) v = uint8_t(rng() % 256);
    Plane8 dst;
    QVERIFY(orderedDither(src, dst, t).isOk());
    QCOMPARE(dst.width, w);
    QCOMPARE(dst.height, h);
    // Koge, Ito and Nakano, section 2.1: 0 where a <= t(i mod m, j mod m), 1 (255) otherwise.
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) QCOMPARE(int(dst.at(y, x)), src.at(y, x) <= t.at(y % sh, x % sw) ? 0 : 255);
}

void TestOrdered::bayer() {
    ThresholdArray t;
    QVERIFY(bayerScreen(2, t).isOk());
    // Ranks [[0, 2], [3, 1]] -> floor(255 r / 4).
    QCOMPARE(t.data, (std::vector<uint8_t>{0, 127, 191, 63}));
    for (int n : {4, 8, 16, 64}) {
        QVERIFY(bayerScreen(n, t).isOk());
        QCOMPARE(t.width, n);
        const int N = n * n;
        // Gray g turns exactly ceil(g N / 255) entries white.
        for (int g : {0, 1, 17, 128, 200, 254, 255}) QCOMPARE(whiteCount(t, g), int((int64_t(g) * N + 254) / 255));
    }
    QVERIFY(!bayerScreen(6, t).isOk());
    QVERIFY(!bayerScreen(512, t).isOk());
}

void TestOrdered::clusteredDot_data() {
    test::columns<double, double, bool, int>("cell", "angle", "elliptic", "side");
    QTest::newRow("8 at 0") << 8.0 << 0.0 << false << 8;
    QTest::newRow("8 at 45") << 8.0 << 45.0 << false << 12;         // (6, 6): 72 / 6
    QTest::newRow("6 at 45 elliptic") << 6.0 << 45.0 << true << 8;  // (4, 4): 32 / 4
    QTest::newRow("10 at 15") << 10.0 << 15.0 << false << 109;      // (10, 3): 109 / 1
}

void TestOrdered::clusteredDot() {
    QFETCH(double, cell);
    QFETCH(double, angle);
    QFETCH(bool, elliptic);
    QFETCH(int, side);
    ClusterParams p;
    p.cell = cell;
    p.angle = angle;
    p.dot = elliptic ? ClusterParams::Dot::Elliptic : ClusterParams::Dot::Round;
    ThresholdArray t;
    QVERIFY(clusteredDotScreen(p, t).isOk());
    QCOMPARE(t.width, side);
    QCOMPARE(t.height, side);
    const int N = side * side;
    for (int g : {0, 30, 128, 250, 255}) QCOMPARE(whiteCount(t, g), int((int64_t(g) * N + 254) / 255));
    // Clustered: at gray 230 the black pixels form dots, so most black pixels have a black 4-neighbour
    // (a dispersed Bayer array at the same gray has none).
    Plane8 src(side * 2, side * 2, 230), dst;
    QVERIFY(orderedDither(src, dst, t).isOk());
    int black = 0, clustered = 0;
    for (int y = 1; y + 1 < dst.height; ++y)
        for (int x = 1; x + 1 < dst.width; ++x)
            if (!dst.at(y, x)) {
                ++black;
                clustered += !dst.at(y - 1, x) || !dst.at(y + 1, x) || !dst.at(y, x - 1) || !dst.at(y, x + 1);
            }
    QVERIFY(black > 0);
    QVERIFY2(clustered * 10 >= black * 7,
             qPrintable(QString("%1 of %2 black pixels clustered").arg(clustered).arg(black)));
}

void TestOrdered::voidAndCluster() {
    ThresholdArray t;
    QVERIFY(voidAndClusterScreen(64, test::freshSeed("void-and-cluster"), t).isOk());
    const int N = 64 * 64;
    const std::vector<int> h = histogram(t);
    for (int v = 0; v < 255; ++v) QVERIFY(h[size_t(v)] == N / 255 || h[size_t(v)] == N / 255 + 1);
    QCOMPARE(h[255], 0);
    // Blue noise: at mid gray almost no power at low frequencies; a random (white-noise) screen has lots.
    Plane8 mid(64, 64, 128), dst;
    QVERIFY(orderedDither(mid, dst, t).isOk());
    RadialSpectrum s;
    QVERIFY(radialSpectrum(dst, s).isOk());
    const double blue = lowFrequencyRatio(s, 0.15);
    std::mt19937_64 rng(test::freshSeed("white noise"));
    ThresholdArray white(64, 64);
    for (uint8_t& v : white.data) v = uint8_t(rng() % 255);
    QVERIFY(orderedDither(mid, dst, white).isOk());
    QVERIFY(radialSpectrum(dst, s).isOk());
    const double noise = lowFrequencyRatio(s, 0.15);
    qInfo("low-frequency power / variance: void-and-cluster %.3f, white noise %.3f", blue, noise);
    QVERIFY(blue < 0.1);
    QVERIFY(noise > 0.4);
    QVERIFY(!voidAndClusterScreen(4, 1, t).isOk());
}

void TestOrdered::dbsScreenGenerator_data() {
    QTest::addColumn<int>("size");
    QTest::newRow("17 (the c_pp support)") << 17;
    QTest::newRow("64") << 64;
    QTest::newRow("96") << 96;
}

void TestOrdered::dbsScreenGenerator() {
    QFETCH(int, size);
    DbsScreenParams p;
    p.size = size;
    p.seed = test::freshSeed("dbs screen");
    ThresholdArray t;
    std::vector<double> fractions;
    RunControl rc;
    rc.onProgress = [&](const Progress& pr) { fractions.push_back(pr.fraction); };
    QVERIFY(dbsScreen(p, t, rc).isOk());
    QCOMPARE(t.width, size);
    QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
    const int64_t N = int64_t(size) * size;
    // Every level g has round(g N / 255) white pixels (Koge, Ito and Nakano: N / 255 entries per threshold value) ...
    for (int g = 0; g <= 255; ++g) {
        int64_t white = 0;
        for (uint8_t v : t.data) white += g > v;
        QCOMPARE(white, (int64_t(g) * N * 2 + 255) / 510);
    }
    // ... and the levels stack: every pixel white at g is white at g + 1.
    Plane8 prev(size, size, 0);
    for (int g = 0; g <= 255; ++g) {
        Plane8 src(size, size, uint8_t(g)), dst;
        QVERIFY(orderedDither(src, dst, t).isOk());
        for (size_t i = 0; i < dst.size(); ++i) QVERIFY(!(prev.data[i] && !dst.data[i]));
        prev = dst;
    }
    if (size >= 64) {
        // Mid gray has little low-frequency energy (blue noise).
        Plane8 mid(size, size, 128), dst;
        QVERIFY(orderedDither(mid, dst, t).isOk());
        RadialSpectrum s;
        QVERIFY(radialSpectrum(dst, s).isOk());
        const double r = lowFrequencyRatio(s, 0.15);
        qInfo("DBS screen %d: low-frequency power / variance at mid gray %.4f", size, r);
        QVERIFY(r < 0.1);
    }
    // Cancellation.
    RunControl stop;
    stop.stop.requestStop();
    QVERIFY(dbsScreen(p, t, stop).isCancelled());
    p.size = 16;
    QVERIFY(!dbsScreen(p, t).isOk());
}

void TestOrdered::defaultScreenIsShipped() {
    // The embedded resources/screens/dbs512.pgm, not the 128 x 128 fallback.
    const ThresholdArray& t = defaultDbsScreen();
    QCOMPARE(t.width, 512);
    QCOMPARE(t.height, 512);
    std::ifstream f(std::string(HALFTONE_SOURCE_DIR) + "/resources/screens/dbs512.pgm", std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ThresholdArray file;
    QVERIFY(parsePgm(bytes.data(), bytes.size(), file).isOk());
    QCOMPARE(file.data, t.data);
    const std::vector<int> h = histogram(t);
    QCOMPARE(h[255], 0);
    Plane8 mid(512, 512, 128), dst;
    QVERIFY(orderedDither(mid, dst, t).isOk());
    Plane8 crop(256, 256);
    for (int y = 0; y < 256; ++y) std::copy(dst.row(y), dst.row(y) + 256, crop.row(y));
    RadialSpectrum s;
    QVERIFY(radialSpectrum(crop, s).isOk());
    QVERIFY(lowFrequencyRatio(s, 0.15) < 0.1);
}

void TestOrdered::specsAndBadInput() {
    ThresholdArray t;
    QVERIFY(screenFromSpec("bayer:16", t).isOk());
    QCOMPARE(t.width, 16);
    QVERIFY(screenFromSpec("cluster:cell=8,angle=0,dot=elliptic", t).isOk());
    QCOMPARE(t.width, 8);
    QVERIFY(screenFromSpec("blue-noise", t).isOk());
    QCOMPARE(t.width, 64);
    QVERIFY(screenFromSpec("dbs", t).isOk());
    QCOMPARE(t.width, 512);
    Status s = screenFromSpec("bayer:7", t);
    QVERIFY(!s.isOk());
    QVERIFY(s.message().find("power of two") != std::string::npos);
    s = screenFromSpec("cluster:size=3", t);
    QVERIFY(!s.isOk());
    QVERIFY(s.message().find("size=3") != std::string::npos);
    s = screenFromSpec("/nonexistent/screen.pgm", t);
    QVERIFY(!s.isOk());
    QVERIFY(s.message().find("/nonexistent/screen.pgm") != std::string::npos);
    // Hostile PGMs: each refused with a message, never a crash.
    const std::vector<std::string> bad = {"",
                                          "P5",
                                          "P2\n2 2\n255\n0 0 0 0",
                                          "P5\n2 2\n65535\n12345678",
                                          "P5\n4 4\n255\nabc",
                                          "P5\n99999999 99999999\n255\n",
                                          "P5\n-3 2\n255\n"};
    for (const std::string& b : bad) {
        s = parsePgm(reinterpret_cast<const uint8_t*>(b.data()), b.size(), t);
        QVERIFY2(!s.isOk() && !s.message().empty(), qPrintable(QString::fromStdString(b)));
    }
    // Round trip through a file with the built-in loader.
    ThresholdArray b8;
    QVERIFY(bayerScreen(8, b8).isOk());
    const std::string path = QDir::tempPath().toStdString() + "/halftone_test_screen.pgm";
    const std::vector<uint8_t> enc = pnm::encodePgm(b8);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(enc.data()), std::streamsize(enc.size()));
    QVERIFY(screenFromSpec(path, t).isOk());
    QCOMPARE(t.data, b8.data);
    std::remove(path.c_str());
    // The codec itself with its default limits (no memory limit: the GPU tests read their images this way), and
    // with a limit too small for the image.
    pnm::MemorySource src(enc.data(), enc.size());
    Image im;
    const Status read = pnm::read(src, im);
    QVERIFY2(read.isOk(), read.message().c_str());
    QCOMPARE(im.channels.at(0).data, b8.data);
    pnm::MemorySource again(enc.data(), enc.size());
    pnm::Limits tight;
    tight.maxMemory = 16;
    QVERIFY(!pnm::read(again, im, tight).isOk());
}

void TestOrdered::registryRunsOrdered() {
    const MethodInfo* m = Registry::instance().find("ordered", "screen");
    QVERIFY(m);
    QVERIFY(m->param("screen"));
    const Plane8 src = test::randomPlane(45, 29, test::freshSeed("ordered registry"));
    RunRequest req;
    req.method = m;
    req.params.set("screen", std::string("bayer:4"));
    RunResult res;
    QVERIFY(runImage(Image::gray(src), req, res).isOk());
    ThresholdArray t;
    QVERIFY(bayerScreen(4, t).isOk());
    Plane8 direct;
    QVERIFY(orderedDither(src, direct, t).isOk());
    QCOMPARE(res.image.channels[0].data, direct.data);
    req.params.set("screen", std::string("bayer:3"));
    QVERIFY(!runImage(Image::gray(src), req, res).isOk());
}

QTEST_GUILESS_MAIN(TestOrdered)
#include "test_ordered.moc"
