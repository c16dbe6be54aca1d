// Riemersma's dither (docs/spec.md section 8; Riemersma 1998): the generalised Hilbert curve visits every pixel of
// awkward sizes once with unit steps, the weights are the article's, the implementation equals a literal statement of
// the section, flat patches keep their tone (and the dead zone the 16-entry list implies is where the section says),
// runs are deterministic, and progress and cancellation work through RunControl and the registry.
#include <QtTest>

#include <cmath>
#include <set>
#include <vector>

#include "core/ed/quantizer.h"
#include "core/job/registry.h"
#include "core/ed/riemersma.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

/// Section 7 as written: the curve as a list, the error list as a vector (oldest first), floor division.
Plane8 specRiemersma(const Plane8& src, const RiemersmaParams& p) {
    const Quantizer q(p.levels, p.linear);
    Plane8 out(src.width, src.height);
    std::vector<int32_t> list(16, 0);
    for (const auto& [i, j] : curveOrder(src.width, src.height)) {
        int64_t acc = 0;
        for (int n = 0; n < 16; ++n) acc += int64_t(kRiemersmaWeights[size_t(n)]) * list[size_t(n)];
        const int32_t a = q.input(src.at(i, j));
        const int32_t s = a + int32_t(std::floor((double(acc) + 8.0) / 16.0));
        int k = 0;
        for (int c = 1; c < p.levels; ++c)
            if (std::abs(s - q.targets()[size_t(c)]) < std::abs(s - q.targets()[size_t(k)])) k = c;
        out.at(i, j) = q.values()[size_t(k)];
        list.erase(list.begin());
        list.push_back(a - q.targets()[size_t(k)]);
    }
    return out;
}

/// Pixel (row, col) at distance d along the classic Hilbert curve of an n x n square, n a power of two.
std::pair<int, int> hilbertAt(int n, int d) {
    int x = 0, y = 0;
    for (int s = 1; s < n; s *= 2, d /= 4) {
        const int rx = 1 & (d / 2), ry = 1 & (d ^ rx);
        if (ry == 0) {
            if (rx == 1) x = s - 1 - x, y = s - 1 - y;
            std::swap(x, y);
        }
        x += s * rx;
        y += s * ry;
    }
    return {y, x};
}

double mean(const Plane8& p) {
    double s = 0;
    for (uint8_t v : p.data) s += v;
    return s / double(p.data.size());
}

}  // namespace

class TestRiemersma : public QObject {
    Q_OBJECT
private slots:
    void curveVisitsEveryPixelOnce_data();
    void curveVisitsEveryPixelOnce();
    void squaresArePlainHilbert();
    void weightsAreTheArticles();
    void handComputedRow();
    void matchesTheSection_data();
    void matchesTheSection();
    void flatPatchesKeepTheirTone_data();
    void flatPatchesKeepTheirTone();
    void deadZoneOfTheShortList();
    void deterministicAndRegistered();
    void progressAndCancel();
    void refusesBadLevels();
};

void TestRiemersma::curveVisitsEveryPixelOnce_data() {
    test::sizeRows({{1, 1},
                    {1, 37},
                    {37, 1},
                    {2, 2},
                    {3, 3},
                    {7, 13},
                    {13, 7},
                    {33, 17},
                    {17, 33},
                    {31, 29},
                    {64, 64},
                    {5, 200},
                    {200, 5},
                    {1, 1000},
                    {97, 61},
                    {2, 3},
                    {3, 2},
                    {127, 128}});
}

void TestRiemersma::curveVisitsEveryPixelOnce() {
    QFETCH(int, w);
    QFETCH(int, h);
    const auto order = curveOrder(w, h);
    QCOMPARE(int64_t(order.size()), int64_t(w) * h);
    QCOMPARE(order.front(), std::make_pair(0, 0));  // from the top-left pixel
    std::vector<char> seen(size_t(w) * size_t(h), 0);
    int diagonal = 0;
    for (size_t n = 0; n < order.size(); ++n) {
        const auto [i, j] = order[n];
        QVERIFY2(i >= 0 && i < h && j >= 0 && j < w, qPrintable(QString("(%1, %2) outside").arg(i).arg(j)));
        QVERIFY2(!seen[size_t(i) * w + j], qPrintable(QString("(%1, %2) visited twice").arg(i).arg(j)));
        seen[size_t(i) * w + j] = 1;
        if (n == 0) continue;
        const int di = std::abs(i - order[n - 1].first), dj = std::abs(j - order[n - 1].second);
        // a curve: each step goes to a neighbour, diagonally at most once (odd sizes)
        QVERIFY2(di <= 1 && dj <= 1 && di + dj >= 1, qPrintable(QString("jump at step %1").arg(n)));
        if (di + dj == 2) ++diagonal;
    }
    QVERIFY2(diagonal <= 1, qPrintable(QString("%1 diagonal steps").arg(diagonal)));
    // the walk can be stopped: a visitor that says stop after 5 pixels sees 5
    int visited = 0;
    const bool finished = forEachCurvePixel(w, h, [&](int, int) { return ++visited < 5; });
    QCOMPARE(finished, int64_t(w) * h < 5);
    QCOMPARE(visited, int(std::min<int64_t>(5, int64_t(w) * h)));
}

void TestRiemersma::squaresArePlainHilbert() {
    for (int n : {1, 2, 4, 8, 32, 128}) {
        const auto order = curveOrder(n, n);
        for (int d = 0; d < n * n; ++d) QCOMPARE(order[size_t(d)], hilbertAt(n, d));
    }
}

void TestRiemersma::weightsAreTheArticles() {
    // Riemersma's init_weights: v = 1, then v *= exp(log(MAX) / (SIZE - 1)); each weight is (int)(v + 0.5)
    const double m = std::exp(std::log(double(kRiemersmaDivisor)) / (kRiemersmaListLength - 1));
    double v = 1.0;
    for (int i = 0; i < kRiemersmaListLength; ++i, v *= m) QCOMPARE(kRiemersmaWeights[size_t(i)], int(v + 0.5));
    QCOMPARE(kRiemersmaWeights.front(), 1);
    QCOMPARE(kRiemersmaWeights.back(), kRiemersmaDivisor);
}

void TestRiemersma::handComputedRow() {
    // One row of three 100s, two levels, gamma: A = 1600.
    // 1: S = 1600 -> 0, E = 1600. 2: acc = 16 * 1600, S = 3200 -> 255, E = -2480.
    // 3: acc = 13 * 1600 + 16 * (-2480) = -18880, floor((-18880 + 8) / 16) = -1180, S = 420 -> 0.
    Plane8 src(3, 1, 100), dst;
    QVERIFY(riemersmaDither(src, dst, {}, {}).isOk());
    QCOMPARE(dst.data, (std::vector<uint8_t>{0, 255, 0}));
}

void TestRiemersma::matchesTheSection_data() {
    test::columns<int, int, int, bool>("w", "h", "levels", "linear");
    int n = 0;
    for (const QSize s : {QSize(1, 1), QSize(1, 41), QSize(41, 1), QSize(33, 17), QSize(64, 64), QSize(97, 61)})
        for (int levels : {2, 3, 17, 256}) {
            const bool linear = (n++ % 3) == 1;
            QTest::addRow("%dx%d L%d %s", s.width(), s.height(), levels, linear ? "linear" : "gamma")
                << s.width() << s.height() << levels << linear;
        }
}

void TestRiemersma::matchesTheSection() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(int, levels);
    QFETCH(bool, linear);
    const Plane8 src = test::randomPlane(w, h, test::freshSeed("riemersma section"));
    RiemersmaParams p;
    p.levels = levels;
    p.linear = linear;
    Plane8 dst;
    QVERIFY(riemersmaDither(src, dst, p, {}).isOk());
    QVERIFY(dst == specRiemersma(src, p));
}

void TestRiemersma::flatPatchesKeepTheirTone_data() {
    test::columns<int, int>("gray", "levels");
    for (int g : {32, 64, 100, 128, 160, 192, 224}) QTest::addRow("%d L2", g) << g << 2;
    for (int g : {8, 40, 128, 240}) QTest::addRow("%d L4", g) << g << 4;
}

void TestRiemersma::flatPatchesKeepTheirTone() {
    QFETCH(int, gray);
    QFETCH(int, levels);
    const Plane8 src(96, 80, uint8_t(gray));
    RiemersmaParams p;
    p.levels = levels;
    Plane8 dst;
    QVERIFY(riemersmaDither(src, dst, p, {}).isOk());
    // the list corrects only the last 16 errors, so the mean follows the input to within a few levels, not exactly
    QVERIFY2(std::abs(mean(dst) - gray) < 3.0, qPrintable(QString("mean %1 for gray %2").arg(mean(dst)).arg(gray)));
    // with 256 levels every input is a level: the output is the input
    p.levels = 256;
    QVERIFY(riemersmaDither(src, dst, p, {}).isOk());
    QVERIFY(dst == src);
}

void TestRiemersma::deadZoneOfTheShortList() {
    // Two levels, gamma: with every error equal to A the correction is at most floor((89 A + 8) / 16), so a gray
    // below 20 never reaches the threshold 2040 (and, by symmetry, one above 235 never falls to black).
    auto run = [](int g) {
        Plane8 dst;
        riemersmaDither(Plane8(40, 30, uint8_t(g)), dst, {}, {});
        return dst;
    };
    for (int g : {1, 10, 19}) QCOMPARE(mean(run(g)), 0.0);
    for (int g : {236, 245, 254}) QCOMPARE(mean(run(g)), 255.0);
    QVERIFY(mean(run(20)) > 0);
    QVERIFY(mean(run(235)) < 255);
}

void TestRiemersma::deterministicAndRegistered() {
    const MethodInfo* m = Registry::instance().find("riemersma", "hilbert");
    QVERIFY(m);
    QVERIFY(m->cpu);
    QVERIFY(!m->gpu);
    const Plane8 src = test::randomPlane(131, 77, test::freshSeed("riemersma registry"));
    ParamValues v;
    v.set("levels", int64_t(3));
    v.set("linear", true);
    QVERIFY(Registry::instance().resolveParams(*m, v).isOk());
    Plane8 a, b;
    QVERIFY(m->cpu(src, a, v, {}).isOk());
    QVERIFY(m->cpu(src, b, v, {}).isOk());
    QVERIFY(a == b);
    RiemersmaParams p;
    p.levels = 3;
    p.linear = true;
    QVERIFY(a == specRiemersma(src, p));
    // through runImage, per channel of an RGB image
    RunRequest req;
    req.method = m;
    req.color = ColorMode::RGB;
    Image rgb;
    rgb.space = ColorSpace::RGB;
    for (int c = 0; c < 3; ++c) rgb.channels.push_back(test::randomPlane(45, 33, uint64_t(c) + 7));
    RunResult res;
    QVERIFY2(runImage(rgb, req, res).isOk(), "runImage");
    QCOMPARE(int(res.image.channels.size()), 3);
    for (int c = 0; c < 3; ++c) {
        Plane8 want;
        QVERIFY(riemersmaDither(rgb.channels[size_t(c)], want, {}, {}).isOk());
        QVERIFY(res.image.channels[size_t(c)] == want);
    }
}

void TestRiemersma::progressAndCancel() {
    const Plane8 src = test::randomPlane(1024, 1024, 5);
    std::vector<double> seen;
    RunControl rc;
    rc.onProgress = [&](const Progress& p) { seen.push_back(p.fraction); };
    Plane8 dst;
    QVERIFY(riemersmaDither(src, dst, {}, rc).isOk());
    QVERIFY(seen.size() >= 3);
    for (size_t i = 1; i < seen.size(); ++i) QVERIFY(seen[i] >= seen[i - 1]);
    QCOMPARE(seen.back(), 1.0);
    // a stop requested while running ends the walk
    RunControl stop;
    stop.onProgress = [&](const Progress& p) {
        if (p.fraction > 0 && p.fraction < 1) stop.stop.requestStop();
    };
    QVERIFY(riemersmaDither(src, dst, {}, stop).isCancelled());
    RunControl before;
    before.stop.requestStop();
    QVERIFY(riemersmaDither(src, dst, {}, before).isCancelled());
}

void TestRiemersma::refusesBadLevels() {
    Plane8 dst;
    for (int levels : {0, 1, 257}) {
        RiemersmaParams p;
        p.levels = levels;
        const Status s = riemersmaDither(Plane8(4, 4, 9), dst, p, {});
        QVERIFY2(!s && !s.isCancelled(), qPrintable(QString::number(levels)));
    }
}

QTEST_GUILESS_MAIN(TestRiemersma)
#include "test_riemersma.moc"
