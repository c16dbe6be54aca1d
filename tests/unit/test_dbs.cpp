// DBS: c_pp / c_pe bookkeeping against brute force, moves never raise E, update map and threads do not change
// the result, clipping-free ramp, block-parallel within 1% of sequential on real images, progress, cancel.
#include <QtTest>
#include <QFileInfo>
#include <QImage>

#include <atomic>
#include <cmath>
#include <random>

#include "core/dbs/dbs.h"
#include "core/ed/errordiffusion.h"
#include "core/quality/metrics.h"
#include "core/job/registry.h"
#include "core/screen/screen.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

Plane8 loadGray(const QString& name) {
    QImage im(QString::fromStdString(test::dataPath(name.toStdString())));
    if (im.isNull()) return {};
    im = im.convertToFormat(QImage::Format_Grayscale8);
    Plane8 p(im.width(), im.height());
    for (int y = 0; y < im.height(); ++y) std::memcpy(p.row(y), im.constScanLine(y), size_t(im.width()));
    return p;
}

/// Random binary start and a random free mask (about 80 % free).
void randomStart(const Plane8& src, uint64_t seed, Plane8& binary, Plane8& freeMask) {
    std::mt19937_64 rng(seed);
    binary = Plane8(src.width, src.height);
    freeMask = Plane8(src.width, src.height);
    for (size_t i = 0; i < src.size(); ++i) {
        binary.data[i] = uint8_t(rng() & 1);
        freeMask.data[i] = rng() % 5 != 0;
    }
}

}  // namespace

class TestDbs : public QObject {
    Q_OBJECT
private slots:
    void filters_data();
    void filters();
    void bookkeepingMatchesBruteForce_data();
    void bookkeepingMatchesBruteForce();
    void movesNeverIncreaseError_data();
    void movesNeverIncreaseError();
    void updateMapAndThreadsKeepResult_data();
    void updateMapAndThreadsKeepResult();
    void clipFreeRampHasMinorityDots();
    void blocksWithinOnePercent_data();
    void blocksWithinOnePercent();
    void progressAndCancel_data();
    void progressAndCancel();
    void registryAndBadParameters();
    void progressFollowsConvergence_data();
    void progressFollowsConvergence();
    void errorDiffusionStartNeverWorse();
    void defaultBeatsFloydSteinberg_data();
    void defaultBeatsFloydSteinberg();
};

void TestDbs::filters_data() {
    test::columns<int, double, int>("model", "sigma", "radius");
    QTest::newRow("gaussian default") << 0 << 1.2 << 4;
    QTest::newRow("gaussian wide") << 0 << 2.5 << 6;
    QTest::newRow("gaussian w1") << 0 << 0.7 << 1;
    QTest::newRow("nasanen w4") << 1 << 0.0 << 4;
    QTest::newRow("nasanen w7") << 1 << 0.0 << 7;
}

void TestDbs::filters() {
    QFETCH(int, model);
    QFETCH(double, sigma);
    QFETCH(int, radius);
    HvsParams hp;
    hp.model = model ? HvsModel::Nasanen : HvsModel::Gaussian;
    hp.sigma = sigma;
    hp.radius = radius;
    HvsFilter f;
    QVERIFY(makeHvsFilter(hp, f).isOk());
    const int n = 2 * radius + 1;
    double s = 0;
    for (double v : f.p) s += v;
    QVERIFY(std::abs(s - 1.0) < 1e-12);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            QCOMPARE(f.p[size_t(i) * n + j], f.p[size_t(n - 1 - i) * n + size_t(n - 1 - j)]);
            QCOMPARE(f.p[size_t(i) * n + j], f.p[size_t(j) * n + i]);
        }
    // c_pp is the autocorrelation: its sum is (sum p)^2 = 1 and its peak is at 0 with value sum p^2.
    double cs = 0, p2 = 0, mx = 0;
    for (float v : f.cpp) {
        cs += v;
        mx = std::max(mx, double(v));
    }
    for (double v : f.p) p2 += v * v;
    QVERIFY(std::abs(cs - 1.0) < 1e-5);
    QVERIFY(std::abs(f.cpp0() - p2) < 1e-7);
    QCOMPARE(double(f.cpp0()), mx);
    QCOMPARE(f.cppRadius, 2 * radius);
    QCOMPARE(int(f.cpp.size()), (4 * radius + 1) * (4 * radius + 1));
    // Bad parameters are refused with a message.
    hp.radius = 0;
    QVERIFY(!makeHvsFilter(hp, f).isOk());
}

void TestDbs::bookkeepingMatchesBruteForce_data() {
    test::columns<int, int, int>("w", "h", "model");
    const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {13, 17}, {31, 29}, {40, 33}};
    for (const auto& s : sizes)
        for (int m : {0, 1})
            QTest::newRow(qPrintable(QString("%1x%2 %3").arg(s[0]).arg(s[1]).arg(m ? "nasanen" : "gaussian")))
                << s[0] << s[1] << m;
}

void TestDbs::bookkeepingMatchesBruteForce() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(int, model);
    const uint64_t seed = test::freshSeed("dbs bookkeeping");
    const Plane8 src = test::randomPlane(w, h, seed);
    HvsParams hp;
    hp.model = model ? HvsModel::Nasanen : HvsModel::Gaussian;
    HvsFilter f;
    QVERIFY(makeHvsFilter(hp, f).isOk());
    Plane8 binary, freeMask;
    randomStart(src, seed + 1, binary, freeMask);
    DbsState st;
    QVERIFY(st.init(src, f, binary, freeMask).isOk());
    double E = st.bruteForceError();
    // E = sum e c_pe equals the sum of squares of p * e (Zhang and Allebach, eq. 9).
    QVERIFY2(std::abs(st.bookkeptError() - E) <= 1e-5 * E + 1e-9,
             qPrintable(QString("%1 vs %2").arg(st.bookkeptError()).arg(E)));
    std::mt19937_64 rng(seed + 2);
    static const int nb[8][2] = {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};
    for (int k = 0; k < 60; ++k) {
        const int y = int(rng() % uint64_t(h)), x = int(rng() % uint64_t(w));
        const int which = int(rng() % 9);
        double predicted;
        if (which == 8) {
            predicted = st.toggleDelta(y, x);
            st.applyToggle(y, x);
        } else {
            const int dy = nb[which][0], dx = nb[which][1];
            if (y + dy < 0 || y + dy >= h || x + dx < 0 || x + dx >= w || st.bit(y, x) == st.bit(y + dy, x + dx))
                continue;
            predicted = st.swapDelta(y, x, dy, dx);
            st.applySwap(y, x, dy, dx);
        }
        const double E2 = st.bruteForceError();
        // dE of eq. 13 / 14 against the brute-force difference; float c_pe, so a float-sized tolerance.
        QVERIFY2(std::abs((E2 - E) - predicted) <= 2e-5 * std::max(1.0, E) + 1e-5 * std::abs(predicted),
                 qPrintable(QString("move %1: predicted %2, brute force %3").arg(k).arg(predicted).arg(E2 - E)));
        E = E2;
    }
    QVERIFY2(std::abs(st.bookkeptError() - E) <= 1e-4 * E + 1e-6,
             qPrintable(QString("%1 vs %2").arg(st.bookkeptError()).arg(E)));
}

void TestDbs::movesNeverIncreaseError_data() {
    test::columns<int, int, bool, bool>("w", "h", "swaps", "blocks");
    for (bool sw : {false, true})
        for (bool b : {false, true}) {
            const QString tag = QString(sw ? "toggle+swap" : "toggle") + (b ? " blocks" : " sequential");
            QTest::newRow(qPrintable("1x1 " + tag)) << 1 << 1 << sw << b;
            QTest::newRow(qPrintable("1x37 " + tag)) << 1 << 37 << sw << b;
            QTest::newRow(qPrintable("41x1 " + tag)) << 41 << 1 << sw << b;
            QTest::newRow(qPrintable("67x53 " + tag)) << 67 << 53 << sw << b;
        }
}

void TestDbs::movesNeverIncreaseError() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(bool, swaps);
    QFETCH(bool, blocks);
    const uint64_t seed = test::freshSeed("dbs moves");
    const Plane8 src = test::randomPlane(w, h, seed);
    HvsFilter f;
    QVERIFY(makeHvsFilter({}, f).isOk());
    Plane8 binary, freeMask;
    randomStart(src, seed + 1, binary, freeMask);
    DbsState st;
    QVERIFY(st.init(src, f, binary, freeMask).isOk());
    // Single visits: the chosen move never raises the brute-force E, and fixed pixels never change.
    std::mt19937_64 rng(seed + 2);
    double E = st.bruteForceError();
    for (int k = 0; k < 80; ++k) {
        const int y = int(rng() % uint64_t(h)), x = int(rng() % uint64_t(w));
        if (!st.isFree(y, x)) continue;
        st.visit(y, x, swaps);
        const double E2 = st.bruteForceError();
        QVERIFY2(E2 <= E + 1e-6 * E + 1e-9,
                 qPrintable(QString("visit %1 raised E from %2 to %3").arg(k).arg(E).arg(E2)));
        E = E2;
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (!freeMask.at(y, x)) QCOMPARE(st.bit(y, x), binary.at(y, x));
    // A whole run ends with an error no larger than at the start, and the reported error is the true one.
    DbsParams p;
    p.swaps = swaps;
    p.seed = seed;
    p.schedule = blocks ? DbsSchedule::Blocks : DbsSchedule::Sequential;
    p.blockSize = 17;
    Plane8 dst;
    DbsStats stats;
    QVERIFY(dbsHalftone(src, dst, p, {}, &stats).isOk());
    QVERIFY(stats.converged);
    QVERIFY(stats.error <= stats.initialError + 1e-12);
    HvsFilter f2;
    QVERIFY(makeHvsFilter(p.hvs, f2).isOk());
    const double truth = hvsWeightedError(src, dst, p.hvs);
    QVERIFY2(std::abs(stats.error - truth) <= 1e-4 * truth + 1e-9,
             qPrintable(QString("%1 vs %2").arg(stats.error).arg(truth)));
    for (uint8_t v : dst.data) QVERIFY(v == 0 || v == 255);
}

void TestDbs::updateMapAndThreadsKeepResult_data() {
    test::columns<int, int, bool>("w", "h", "clipFree");
    for (bool cf : {false, true}) {
        QTest::newRow(cf ? "97x61 clip-free" : "97x61") << 97 << 61 << cf;
        QTest::newRow(cf ? "130x7 clip-free" : "130x7") << 130 << 7 << cf;
        QTest::newRow(cf ? "5x131 clip-free" : "5x131") << 5 << 131 << cf;
    }
}

void TestDbs::updateMapAndThreadsKeepResult() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(bool, clipFree);
    const uint64_t seed = test::freshSeed("dbs update map");
    const Plane8 src = test::randomPlane(w, h, seed);
    for (DbsSchedule sch : {DbsSchedule::Sequential, DbsSchedule::Blocks}) {
        for (double warm : {0.0, kDbsWarmStart}) {
            DbsParams p;
            p.seed = seed;
            p.clipFree = clipFree;
            p.schedule = sch;
            p.warmStart = warm;
            p.blockSize = 24;  // several blocks per group even on these small images
            Plane8 a, b, c;
            const RunControl one = test::threads(1);
            const RunControl two = test::threads(2);
            QVERIFY(dbsHalftone(src, a, p, one).isOk());
            p.updateMap = false;
            QVERIFY(dbsHalftone(src, b, p, two).isOk());
            // Koge, Ito and Nakano's update map skips only pixels that cannot move: same bits with and without it.
            QCOMPARE(a.data, b.data);
            p.updateMap = true;
            QVERIFY(dbsHalftone(src, c, p, two).isOk());
            // Blocks of one group never interact, so the thread count cannot change the result.
            QCOMPARE(a.data, c.data);
        }
    }
}

void TestDbs::clipFreeRampHasMinorityDots() {
    // Levels 0..255 as 16 x 16 tiles of 32 x 32 pixels.
    const Plane8 src = grayTiles(32);
    auto minorityPerLevel = [&](const Plane8& out) {
        std::vector<int> minority(256, 0);
        for (size_t i = 0; i < src.size(); ++i) {
            const int g = src.data[i];
            const bool white = out.data[i] != 0;
            if ((g < 128 && white) || (g >= 128 && !white)) ++minority[size_t(g)];
        }
        return minority;
    };
    DbsParams p;
    p.clipFree = true;
    Plane8 cf, plain;
    QVERIFY(dbsHalftone(src, cf, p, {}).isOk());
    p.clipFree = false;
    QVERIFY(dbsHalftone(src, plain, p, {}).isOk());
    const std::vector<int> mc = minorityPerLevel(cf), mp = minorityPerLevel(plain);
    for (int g = 1; g <= 254; ++g)
        QVERIFY2(mc[size_t(g)] > 0, qPrintable(QString("clip-free: no minority dot at level %1").arg(g)));
    int clipped = 0;
    for (int g = 1; g <= 254; ++g) clipped += mp[size_t(g)] == 0;
    qInfo("plain DBS: %d of 254 levels have no minority dot (clipping)", clipped);
    QVERIFY(clipped > 0);
    QCOMPARE(mc[0], 0);
    QCOMPARE(mc[255], 0);
}

void TestDbs::blocksWithinOnePercent_data() {
    test::columns<QString, bool, QString, quint64>("image", "clipFree", "variant", "seed");
    // Seeds 1-3 every run plus one fresh seed per row (logged, replay with HALFTONE_TEST_SEED).
    for (const char* im : {"moon.png", "chelsea.png", "page.png"})
        for (bool cf : {false, true})
            for (const char* v : {"blocks", "blocks-koge"}) {
                const uint64_t fresh = test::freshSeed("dbs blocks vs sequential") % 2147483647u;
                for (uint64_t seed : {uint64_t(1), uint64_t(2), uint64_t(3), fresh})
                    QTest::newRow(
                        qPrintable(QString("%1%2 %3 seed %4").arg(im).arg(cf ? " clip-free" : "").arg(v).arg(seed)))
                        << QString(im) << cf << QString(v) << quint64(seed);
            }
}

void TestDbs::blocksWithinOnePercent() {
    QFETCH(QString, image);
    QFETCH(bool, clipFree);
    QFETCH(QString, variant);
    QFETCH(quint64, seed);
    const Plane8 src = loadGray(image);
    QVERIFY2(!src.empty(), qPrintable("cannot read tests/data/" + image));
    // The block variant with its registry defaults (block side, warm start), as the CLI and the studio run it.
    const MethodInfo* m = Registry::instance().find("dbs", variant.toStdString());
    QVERIFY(m);
    ParamValues values;
    values.set("clip-free", clipFree);
    QVERIFY(Registry::instance().resolveParams(*m, values).isOk());
    DbsParams pb = dbsParamsFrom(values);
    pb.schedule = DbsSchedule::Blocks;
    pb.seed = seed;
    // The SPEC reference: sequential DBS, raster order, same input and seed, no warm start.
    DbsParams ps;
    ps.clipFree = clipFree;
    ps.seed = seed;
    Plane8 seq, blk;
    DbsStats ss, sb;
    QVERIFY(dbsHalftone(src, seq, ps, {}, &ss).isOk());
    QVERIFY(dbsHalftone(src, blk, pb, {}, &sb).isOk());
    QVERIFY(ss.converged && sb.converged);
    const double r = sb.error / ss.error;
    qInfo("%s%s %s seed %llu: sequential E/N %.7f (%d it), blocks k = %d E/N %.7f (%d it, %d warm-start), ratio %.4f",
          qPrintable(image), clipFree ? " clip-free" : "", qPrintable(variant), (unsigned long long)seed, ss.error,
          ss.iterations, pb.blockSize, sb.error, sb.iterations, sb.warmIterations, r);
    // docs/spec.md section 2: the final E of block-parallel DBS is within 1% of sequential DBS on the same input
    // and seed. The bound is one-sided: E is what DBS minimises, so a lower E than the reference is a better halftone,
    // not a deviation (the default warm start makes it about 20% lower). Plain block DBS without the warm start ends
    // in a different local minimum whose E is +-1-2% from sequential's per seed (docs/performance.md): it would fail
    // this bound on about one seed in ten, which is why the block variants default to the warm start.
    QVERIFY2(sb.error <= 1.01 * ss.error, qPrintable(QString("seed %1: blocks E/N %2 vs sequential %3 (ratio %4)")
                                                         .arg(seed)
                                                         .arg(sb.error)
                                                         .arg(ss.error)
                                                         .arg(r)));
}

void TestDbs::progressAndCancel_data() {
    test::columns<bool, double>("blocks", "warmStart");
    QTest::newRow("sequential") << false << 0.0;
    QTest::newRow("blocks") << true << 0.0;
    QTest::newRow("blocks warm start") << true << kDbsWarmStart;
}

void TestDbs::progressAndCancel() {
    QFETCH(bool, blocks);
    QFETCH(double, warmStart);
    const Plane8 src = test::randomPlane(200, 150, test::freshSeed("dbs progress"));
    DbsParams p;
    p.schedule = blocks ? DbsSchedule::Blocks : DbsSchedule::Sequential;
    p.warmStart = warmStart;
    std::vector<Progress> seen;
    RunControl rc;
    rc.onProgress = [&](const Progress& pr) { seen.push_back(pr); };
    Plane8 dst;
    DbsStats stats;
    QVERIFY(dbsHalftone(src, dst, p, rc, &stats).isOk());
    QVERIFY(!seen.empty());
    QCOMPARE(seen.back().iteration, stats.iterations);
    QCOMPARE(stats.warmIterations > 0, warmStart > 0);
    QCOMPARE(seen.back().moves, stats.moves);
    QVERIFY(std::abs(seen.back().error - stats.error) <= 1e-3 * stats.error);
    for (size_t i = 1; i < seen.size(); ++i) QVERIFY(seen[i].iteration >= seen[i - 1].iteration);
    // Cancel from inside the progress callback once the second iteration starts.
    RunControl cancel;
    StopToken token = cancel.stop;
    cancel.onProgress = [token](const Progress& pr) {
        if (pr.iteration >= 2) token.requestStop();
    };
    const Status s = dbsHalftone(src, dst, p, cancel);
    QVERIFY(s.isCancelled());
}

void TestDbs::registryAndBadParameters() {
    Registry& r = Registry::instance();
    // One place says which DBS runs when only "dbs" is named: the variant with the lowest E/N (docs/dbs.md).
    QCOMPARE(r.defaultVariant("dbs"), std::string("sequential"));
    for (const char* v : {"blocks", "sequential", "reference", "blocks-koge"}) {
        const MethodInfo* m = r.find("dbs", v);
        QVERIFY2(m, v);
        QVERIFY(!m->exact);
        QVERIFY(m->cpu);
        const bool blocks = std::string(v).rfind("blocks", 0) == 0;
        for (const char* key : {"clip-free", "margin", "hvs", "sigma", "max-iter", "seed", "warm-start", "screen"})
            QVERIFY2(m->param(key), key);
        // Block side only where blocks exist; the start image only in raster order (the GPU starts from random dither).
        QCOMPARE(bool(m->param("block")), blocks);
        QCOMPARE(bool(m->param("threads")), blocks);
        QCOMPARE(bool(m->param("start")), !blocks);
        // The reference has no warm start and starts from random dither; the others default to the warm start;
        // sequential starts from error diffusion; Koge, Ito and Nakano's variant has k = 32.
        QCOMPARE(m->param("warm-start")->def, std::string(v) == "reference" ? 0.0 : kDbsWarmStart);
        if (blocks)
            QCOMPARE(m->param("block")->def, std::string(v) == "blocks-koge" ? 32.0 : 128.0);
        else
            QCOMPARE(m->param("start")->defaultText(),
                     std::string(v) == "reference" ? std::string("random") : std::string("error-diffusion"));
        // Applicability is data: Nasanen fields with the Nasanen model only, margin and screen with clip-free only.
        ParamValues none;
        QVERIFY(m->paramApplies(*m->param("sigma"), none));
        QVERIFY(!m->paramApplies(*m->param("distance"), none));
        QVERIFY(!m->paramApplies(*m->param("margin"), none));
        ParamValues nasanen;
        nasanen.set("hvs", std::string("nasanen"));
        nasanen.set("clip-free", true);
        QVERIFY(!m->paramApplies(*m->param("sigma"), nasanen));
        QVERIFY(m->paramApplies(*m->param("distance"), nasanen));
        QVERIFY(m->paramApplies(*m->param("margin"), nasanen));
    }
    const MethodInfo* m = r.find("dbs", "reference");
    const Plane8 src = test::randomPlane(23, 19, test::freshSeed("dbs registry"));
    RunRequest req;
    req.method = m;
    req.device = Device::Cpu;
    req.params.set("clip-free", true);
    req.params.set("hvs", std::string("nasanen"));
    req.params.set("max-iter", int64_t(3));
    req.params.set("seed", int64_t(7));
    RunResult res;
    QVERIFY(runImage(Image::gray(src), req, res).isOk());
    DbsParams p;
    p.clipFree = true;
    p.hvs.model = HvsModel::Nasanen;
    p.maxIterations = 3;
    p.seed = 7;
    Plane8 direct;
    QVERIFY(dbsHalftone(src, direct, p).isOk());
    QCOMPARE(res.image.channels[0].data, direct.data);
    // Out-of-range and unknown values name the parameter.
    req.params.set("hvs", std::string("owl"));
    Status s = runImage(Image::gray(src), req, res);
    QVERIFY(!s.isOk());
    QVERIFY(s.message().find("hvs") != std::string::npos);
    p.schedule = DbsSchedule::Blocks;
    p.blockSize = 9;
    s = dbsHalftone(src, direct, p);
    QVERIFY(!s.isOk());
    QVERIFY(s.message().find("block") != std::string::npos);
    p.blockSize = 32;
    p.warmStart = 1.5;
    s = dbsHalftone(src, direct, p);
    QVERIFY(!s.isOk());
    QVERIFY(s.message().find("warm-start") != std::string::npos);
}

void TestDbs::progressFollowsConvergence_data() {
    QTest::addColumn<QString>("variant");
    for (const char* v : {"blocks", "sequential", "reference"}) QTest::newRow(v) << QString(v);
}

void TestDbs::progressFollowsConvergence() {
    // DBS stops long before max-iter (100); the progress bar must follow the iterations and the accepted moves,
    // not max-iter: half-way through the iterations it is well on its way, and it ends at 1.
    QFETCH(QString, variant);
    const Plane8 full = loadGray("moon.png");
    QVERIFY(!full.empty());
    Plane8 src(256, 256);
    for (int y = 0; y < 256; ++y) std::memcpy(src.row(y), full.row(y + 128) + 128, 256);
    const MethodInfo* m = Registry::instance().find("dbs", variant.toStdString());
    QVERIFY(m);
    RunRequest req;
    req.method = m;
    req.device = Device::Cpu;
    std::vector<Progress> seen;
    RunControl rc;
    rc.onProgress = [&](const Progress& p) { seen.push_back(p); };
    RunResult res;
    QVERIFY(runImage(Image::gray(src), req, res, rc).isOk());
    QVERIFY(seen.size() >= 3);
    int iterations = 0;
    for (size_t i = 1; i < seen.size(); ++i) {
        QVERIFY2(
            seen[i].fraction >= seen[i - 1].fraction - 1e-12,
            qPrintable(QString("progress went back from %1 to %2").arg(seen[i - 1].fraction).arg(seen[i].fraction)));
        iterations = std::max(iterations, seen[i].iteration);
    }
    QVERIFY(iterations >= 4 && iterations < 100);
    double halfWay = 0;
    for (const Progress& p : seen)
        if (p.iteration >= 0 && p.iteration <= (iterations + 1) / 2) halfWay = std::max(halfWay, p.fraction);
    qInfo("%s: %d iterations, progress %.2f after half of them", qPrintable(variant), iterations, halfWay);
    QVERIFY2(halfWay >= 0.25, qPrintable(QString("progress only %1 after %2 of %3 iterations")
                                             .arg(halfWay)
                                             .arg((iterations + 1) / 2)
                                             .arg(iterations)));
    // The last DBS report (before runImage's own) says converged: the whole bar, and the moves in the stage text.
    const Progress* last = nullptr;
    for (const Progress& p : seen)
        if (p.iteration >= 0) last = &p;
    QVERIFY(last);
    QCOMPARE(last->fraction, 1.0);
    QVERIFY2(QString::fromStdString(last->stage).contains("moves"), last->stage.c_str());
}

void TestDbs::errorDiffusionStartNeverWorse() {
    // DBS only accepts moves that lower E, so from a Floyd-Steinberg start its E/N is at most Floyd-Steinberg's.
    const Plane8 src = test::randomPlane(97, 61, test::freshSeed("dbs error-diffusion start"));
    HvsFilter filter;
    QVERIFY(makeHvsFilter(HvsParams{}, filter).isOk());
    Plane8 fs;
    QVERIFY(errorDiffuse(src, fs, EdParams{}, EdVariant::Diffusion).isOk());
    DbsParams p;
    p.start = DbsStart::ErrorDiffusion;
    Plane8 binary, freeMask;
    QVERIFY(dbsStart(src, p, binary, freeMask).isOk());
    for (size_t i = 0; i < src.size(); ++i) QCOMPARE(int(binary.data[i]), fs.data[i] ? 1 : 0);
    Plane8 out;
    DbsStats stats;
    QVERIFY(dbsHalftone(src, out, p, {}, &stats).isOk());
    QVERIFY(stats.moves > 0);
    QVERIFY(dbsError(src, out, filter) < dbsError(src, fs, filter));
}

void TestDbs::defaultBeatsFloydSteinberg_data() {
    test::columns<QString, int>("image", "color");
    // The test images and the studio's embedded samples (resources/samples).
    for (const char* im :
         {"tests/data/moon.png", "tests/data/page.png", "tests/data/chelsea.png", "resources/samples/astronaut.png"})
        QTest::newRow(im) << QString(im) << int(ColorMode::Gray);
    for (const char* im : {"tests/data/chelsea.png", "resources/samples/astronaut.png"})
        QTest::newRow(qPrintable(QString(im) + " rgb")) << QString(im) << int(ColorMode::RGB);
}

void TestDbs::defaultBeatsFloydSteinberg() {
    // Whoever picks "dbs" with no variant and no parameters (the studio and the CLI alike) gets a halftone whose
    // HVS-weighted error E/N (the quality tab's measure) is below exact Floyd-Steinberg's on every shipped image.
    // Every DBS variant is measured with its defaults: the numbers in docs/dbs.md come from this log.
    QFETCH(QString, image);
    QFETCH(int, color);
    QImage qi(QStringLiteral(HALFTONE_SOURCE_DIR "/") + image);
    QVERIFY2(!qi.isNull(), qPrintable(image));
    Image input;
    if (ColorMode(color) == ColorMode::Gray) {
        qi = qi.convertToFormat(QImage::Format_Grayscale8);
        Plane8 p(qi.width(), qi.height());
        for (int y = 0; y < qi.height(); ++y) std::memcpy(p.row(y), qi.constScanLine(y), size_t(qi.width()));
        input = Image::gray(std::move(p));
    } else {
        qi = qi.convertToFormat(QImage::Format_RGB888);
        input.space = ColorSpace::RGB;
        for (int c = 0; c < 3; ++c) {
            Plane8 p(qi.width(), qi.height());
            for (int y = 0; y < qi.height(); ++y)
                for (int x = 0; x < qi.width(); ++x) p.at(y, x) = qi.constScanLine(y)[3 * x + c];
            input.channels.push_back(std::move(p));
        }
    }
    const Registry& r = Registry::instance();
    auto measure = [&](const std::string& method, const std::string& variant, double& en, double& seconds) {
        RunRequest req;
        req.method = r.find(method, variant);
        if (!req.method) return Status::error("no " + method + "/" + variant);
        req.device = Device::Cpu;
        req.color = ColorMode(color);
        RunResult res;
        if (Status s = runImage(input, req, res); !s) return s;
        en = 0;
        for (size_t c = 0; c < input.channels.size(); ++c)
            en += hvsWeightedError(input.channels[c], res.image.channels[c]);
        en /= double(input.channels.size());
        seconds = res.seconds;
        return Status::ok();
    };
    double fs = 0, t = 0;
    QVERIFY(measure("ed", "plain", fs, t).isOk());  // exact Floyd-Steinberg, binary (the ed defaults)
    const QString name = QFileInfo(image).baseName();
    qInfo("%s%s | ed/plain (Floyd-Steinberg) | %.7f | 1.000 | %.2f s", qPrintable(name),
          ColorMode(color) == ColorMode::RGB ? " rgb" : "", fs, t);
    const std::string def = r.defaultVariant("dbs");
    double best = std::numeric_limits<double>::infinity(), defaultEn = 0;
    for (const std::string& v : r.variants("dbs")) {
        double en = 0;
        QVERIFY(measure("dbs", v, en, t).isOk());
        qInfo("%s%s | dbs/%s%s | %.7f | %.3f | %.2f s", qPrintable(name),
              ColorMode(color) == ColorMode::RGB ? " rgb" : "", v.c_str(), v == def ? " (default)" : "", en, en / fs,
              t);
        best = std::min(best, en);
        if (v == def) defaultEn = en;
    }
    QVERIFY2(defaultEn < fs, qPrintable(QString("default dbs/%1 E/N %2 is not below Floyd-Steinberg's %3")
                                            .arg(QString::fromStdString(def))
                                            .arg(defaultEn)
                                            .arg(fs)));
    // The default is the best variant (ties within 1%: blocks of 128 and of 32 pixels land that close).
    QVERIFY2(defaultEn <= 1.01 * best, qPrintable(QString("default dbs/%1 E/N %2, best variant %3")
                                                      .arg(QString::fromStdString(def))
                                                      .arg(defaultEn)
                                                      .arg(best)));
}

QTEST_GUILESS_MAIN(TestDbs)
#include "test_dbs.moc"
