// The Gaussian HVS filter behind the studio's "perceived" view (docs/spec.md section 2: sigma 1.2, w = 4).
#include <QtTest>
#include <cmath>

#include "core/quality/hvsfilter.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

class TestStudioHvsFilter : public QObject {
    Q_OBJECT
private slots:
    void tapsNormalised();
    void constantStaysConstant();
    void matchesDirect2D_data();
    void matchesDirect2D();
    void linearLight();
    void badInput();
    void cancels();
};

void TestStudioHvsFilter::tapsNormalised() {
    const std::vector<double> t = hvsGaussianTaps({});
    QCOMPARE(int(t.size()), 9);
    double sum = 0;
    for (double v : t) sum += v;
    QVERIFY(std::abs(sum - 1.0) < 1e-12);
    QCOMPARE(t[0], t[8]);
    QVERIFY(t[4] > t[3] && t[3] > t[2]);
    QVERIFY(std::abs(t[5] / t[4] - std::exp(-0.5 / (1.2 * 1.2))) < 1e-12);
}

void TestStudioHvsFilter::constantStaysConstant() {
    for (int v : {0, 1, 128, 254, 255}) {
        Plane8 out;
        QVERIFY(hvsFilter(Plane8(13, 7, uint8_t(v)), out).isOk());
        for (uint8_t o : out.data) QCOMPARE(int(o), v);
    }
}

void TestStudioHvsFilter::matchesDirect2D_data() {
    test::columns<int, int, double, int>("w", "h", "sigma", "radius");
    QTest::newRow("1x1") << 1 << 1 << 1.2 << 4;
    QTest::newRow("1x17") << 1 << 17 << 1.2 << 4;
    QTest::newRow("19x1") << 19 << 1 << 1.2 << 4;
    QTest::newRow("31x23") << 31 << 23 << 1.2 << 4;
    QTest::newRow("37x29 sigma 2 w 6") << 37 << 29 << 2.0 << 6;
    QTest::newRow("sigma 0 = identity") << 11 << 5 << 0.0 << 3;
}

void TestStudioHvsFilter::matchesDirect2D() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(double, sigma);
    QFETCH(int, radius);
    const Plane8 src = test::randomPlane(w, h, test::freshSeed("hvs filter"));
    Plane8 out;
    QVERIFY(hvsFilter(src, out, {sigma, radius}).isOk());
    QCOMPARE(out.width, w);
    QCOMPARE(out.height, h);
    // The direct 2-D sum of the normalised truncated Gaussian with clamped edges, in double precision.
    // The filter keeps the row pass in float, so the rounded results may differ by one level where the
    // exact value lies within float rounding of a .5 boundary; nothing more.
    const std::vector<double> t = hvsGaussianTaps({sigma, radius});
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double acc = 0;
            for (int i = -radius; i <= radius; ++i)
                for (int j = -radius; j <= radius; ++j)
                    acc += t[size_t(i + radius)] * t[size_t(j + radius)] *
                           src.at(std::clamp(y + i, 0, h - 1), std::clamp(x + j, 0, w - 1));
            QVERIFY2(std::abs(int(out.at(y, x)) - int(std::lround(acc))) <= 1,
                     qPrintable(QString("(%1,%2)").arg(y).arg(x)));
            if (sigma == 0) QCOMPARE(out.at(y, x), src.at(y, x));
        }
}

void TestStudioHvsFilter::linearLight() {
    HvsFilterParams lin;
    lin.linear = true;
    // Constants survive the decode, filter, encode round trip.
    for (int v : {0, 1, 50, 128, 254, 255}) {
        Plane8 out;
        QVERIFY(hvsFilter(Plane8(11, 9, uint8_t(v)), out, lin).isOk());
        for (uint8_t o : out.data) QCOMPARE(int(o), v);
    }
    // A fine black/white checkerboard emits half the light: seen in linear light it is sRGB 188, not 128,
    // which is how a linear-light halftone of mid gray must look from a distance.
    Plane8 cb(32, 32);
    for (int y = 0; y < 32; ++y)
        for (int x = 0; x < 32; ++x) cb.at(y, x) = ((x + y) & 1) ? 255 : 0;
    Plane8 g, l;
    QVERIFY(hvsFilter(cb, g).isOk());
    QVERIFY(hvsFilter(cb, l, lin).isOk());
    QVERIFY(std::abs(int(g.at(16, 16)) - 128) <= 2);
    QVERIFY2(std::abs(int(l.at(16, 16)) - 188) <= 2, qPrintable(QString::number(l.at(16, 16))));
}

void TestStudioHvsFilter::badInput() {
    Plane8 out;
    QVERIFY(!hvsFilter(Plane8(), out).isOk());
    QVERIFY(!hvsFilter(Plane8(3, 3), out, {-1.0, 4}).isOk());
    QVERIFY(!hvsFilter(Plane8(3, 3), out, {1.2, -1}).isOk());
}

void TestStudioHvsFilter::cancels() {
    RunControl rc;
    rc.stop.requestStop();
    Plane8 out;
    QVERIFY(hvsFilter(Plane8(100, 100, 7), out, {}, rc).isCancelled());
}

QTEST_MAIN(TestStudioHvsFilter)
#include "test_studio_hvsfilter.moc"
