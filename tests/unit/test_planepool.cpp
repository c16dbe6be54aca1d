// The PlanePool keeps released planes up to its limit and hands them out by pixel count, from any thread; runImage
// takes its GPU output planes from it, and an old result's pixels never reach a new result (CPU runs, GPU-path runs,
// a GPU failure that falls back to the CPU).
#include <QtTest>
#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "core/ed/errordiffusion.h"
#include "core/planepool.h"
#include "core/job/registry.h"
#include "tests/common/qtestutil.h"
#include "tests/common/standin.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

Plane8 garbage(int w, int h, uint32_t seed) {
    Plane8 p(w, h);
    std::mt19937 rng(seed);
    for (uint8_t& v : p.data) v = uint8_t(rng() % 251 + 3);  // never the 0/255 of a binary result
    return p;
}

/// A GPU-path stand-in that scribbles over dst and then fails as a lost device does (the run falls back to the CPU).
Status failingGpu(const Plane8& src, Plane8& dst, const ParamValues&, const RunControl&) {
    if (!dst.sameSize(src)) dst = Plane8(src.width, src.height);
    std::fill(dst.data.begin(), dst.data.begin() + std::ptrdiff_t(dst.size() / 2), uint8_t(77));
    return Status::unavailable("device lost");
}

const MethodInfo* testMethod(const char* variant, PlaneFunction gpu) {
    Registry& r = Registry::instance();
    if (const MethodInfo* m = r.find("pooltest", variant)) return m;
    MethodInfo m = test::testMethodInfo("pooltest", variant, "reference on the CPU (test only)", "error-diffusion");
    m.cpu = [](const Plane8& src, Plane8& dst, const ParamValues&, const RunControl&) {
        if (!dst.empty()) return Status::error("the CPU path got a used plane");  // CPU functions get an empty dst
        dst = referenceErrorDiffusion(src, EdParams{});
        return Status::ok();
    };
    m.gpu = std::move(gpu);
    r.add(std::move(m));
    return r.find("pooltest", variant);
}

}  // namespace

class TestPlanePool : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        GpuAvailability a;
        a.usable = true;
        a.deviceName = "test stand-in";
        Registry::instance().setGpuAvailability(a);
    }
    void init() {
        PlanePool::instance().clear();
        PlanePool::instance().setLimit(0);
    }
    void takesByPixelCount();
    void keepsWithinLimit();
    void limitZeroKeepsNothing();
    void releasesWholeImage();
    void preparesUpToCountAndLimit();
    void sharedImageReleasedByLastOwner();
    void threadsShareOnePool();
    void cpuRunsIgnoreGarbage_data();
    void cpuRunsIgnoreGarbage();
    void gpuRunTakesRecycledPlane();
    void gpuFallbackGetsFreshPlane();
};

void TestPlanePool::takesByPixelCount() {
    PlanePool pool(1 << 20);
    QVERIFY(pool.take(10, 20).empty());
    pool.release(garbage(10, 20, 1));
    pool.release(garbage(7, 7, 2));
    QVERIFY(pool.take(11, 20).empty());  // 220 pixels: none kept
    const Plane8 p = pool.take(20, 10);  // 200 pixels, the other shape
    QCOMPARE(p.width, 20);
    QCOMPARE(p.height, 10);
    QCOMPARE(p.size(), size_t(200));
    QVERIFY(pool.take(20, 10).empty());
    QVERIFY(pool.take(0, 5).empty());
    const PlanePool::Stats s = pool.stats();
    QCOMPARE(s.taken, uint64_t(1));
    QCOMPARE(s.missed, uint64_t(3));  // an empty size is no request
    QCOMPARE(s.keptPlanes, uint64_t(1));
    QCOMPARE(s.keptBytes, uint64_t(49));
    pool.release(Plane8());  // an empty plane is not kept
    QCOMPARE(pool.stats().keptPlanes, uint64_t(1));
}

void TestPlanePool::keepsWithinLimit() {
    PlanePool pool(1000);
    pool.release(garbage(20, 20, 1));  // 400
    pool.release(garbage(10, 30, 2));  // 300: 700 kept
    pool.release(garbage(10, 40, 3));  // 400: the oldest goes
    PlanePool::Stats s = pool.stats();
    QCOMPARE(s.keptBytes, uint64_t(700));
    QCOMPARE(s.keptPlanes, uint64_t(2));
    QCOMPARE(s.dropped, uint64_t(1));
    QCOMPARE(pool.take(20, 15).size(), size_t(300));
    pool.release(garbage(40, 40, 4));  // 1600: over the limit alone, freed
    QCOMPARE(pool.stats().keptBytes, uint64_t(400));
    QCOMPARE(pool.stats().dropped, uint64_t(2));
    pool.setLimit(100);  // a lower limit frees at once
    QCOMPARE(pool.stats().keptBytes, uint64_t(0));
    QCOMPARE(pool.limit(), uint64_t(100));
}

void TestPlanePool::limitZeroKeepsNothing() {
    PlanePool pool;
    pool.release(garbage(4, 4, 1));
    QCOMPARE(pool.stats().keptPlanes, uint64_t(0));
    QVERIFY(pool.take(4, 4).empty());
}

void TestPlanePool::releasesWholeImage() {
    PlanePool pool(1 << 20);
    Image im;
    im.space = ColorSpace::RGB;
    for (int c = 0; c < 3; ++c) im.channels.push_back(garbage(8, 8, c));
    im.hasAlpha = true;
    im.alpha = garbage(8, 8, 9);
    im.indices = garbage(8, 8, 10);
    pool.release(std::move(im));
    QVERIFY(im.channels.empty());
    QVERIFY(!im.hasAlpha);
    QCOMPARE(pool.stats().keptPlanes, uint64_t(5));
}

void TestPlanePool::preparesUpToCountAndLimit() {
    PlanePool pool(1000);
    pool.release(garbage(10, 10, 1));
    pool.prepare(10, 10, 3);  // one kept already: two made
    PlanePool::Stats s = pool.stats();
    QCOMPARE(s.prepared, uint64_t(2));
    QCOMPARE(s.keptPlanes, uint64_t(3));
    pool.prepare(10, 10, 3);  // enough kept: none made
    QCOMPARE(pool.stats().prepared, uint64_t(2));
    pool.prepare(20, 20, 4);  // 400 pixels: two fit the limit (pushing out the oldest small one)
    s = pool.stats();
    QCOMPARE(s.prepared, uint64_t(4));
    QCOMPARE(s.keptBytes, uint64_t(1000));
    QCOMPARE(pool.take(20, 20).size(), size_t(400));
    pool.prepare(40, 40, 1);  // over the limit alone: nothing made
    QCOMPARE(pool.stats().prepared, uint64_t(4));
    pool.prepare(0, 3, 1);
    QCOMPARE(pool.stats().prepared, uint64_t(4));
}

void TestPlanePool::sharedImageReleasedByLastOwner() {
    PlanePool pool(1 << 20);
    std::shared_ptr<const Image> a = sharedPooledImage(Image::gray(garbage(16, 16, 1)), pool);
    std::shared_ptr<const Image> b = a;
    a.reset();
    QCOMPARE(pool.stats().keptPlanes, uint64_t(0));  // still owned: never recycled
    QCOMPARE(b->channels[0].size(), size_t(256));
    b.reset();
    QCOMPARE(pool.stats().keptPlanes, uint64_t(1));
    QCOMPARE(pool.take(16, 16).size(), size_t(256));
}

void TestPlanePool::threadsShareOnePool() {
    PlanePool pool(64 * 64 * 16);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&pool, &wrong, t] {
            for (int i = 0; i < 2000; ++i) {
                const int w = 32 + 32 * ((t + i) % 2);
                Plane8 p = pool.take(w, 64);
                if (p.empty()) p = Plane8(w, 64);
                if (p.width != w || p.height != 64 || p.size() != size_t(w) * 64) ++wrong;
                pool.release(std::move(p));
            }
        });
    for (std::thread& t : threads) t.join();
    QCOMPARE(wrong.load(), 0);
    const PlanePool::Stats s = pool.stats();
    QVERIFY(s.keptBytes <= pool.limit());
    QCOMPARE(s.taken + s.missed, uint64_t(8 * 2000));
    QCOMPARE(s.released, uint64_t(8 * 2000));
    uint64_t bytes = 0;
    for (uint64_t n = s.keptPlanes; n > 0; --n) {
        Plane8 p = pool.take(32, 64);
        if (p.empty()) p = pool.take(64, 64);
        bytes += p.size();
    }
    QCOMPARE(bytes, s.keptBytes);
}

void TestPlanePool::cpuRunsIgnoreGarbage_data() {
    test::columns<QString, QString, int>("method", "variant", "threads");
    QTest::newRow("ed/plain") << "ed"
                              << "plain" << 1;
    QTest::newRow("ec/wavefront 1 thread") << "ec"
                                           << "wavefront" << 1;
    QTest::newRow("ec/wavefront 4 threads") << "ec"
                                            << "wavefront" << 4;
}

void TestPlanePool::cpuRunsIgnoreGarbage() {
    QFETCH(QString, method);
    QFETCH(QString, variant);
    QFETCH(int, threads);
    const MethodInfo* m = Registry::instance().find(method.toStdString(), variant.toStdString());
    if (!m) QSKIP("method not registered");
    PlanePool& pool = PlanePool::instance();
    pool.setLimit(uint64_t(1) << 24);
    const int w = 257, h = 131;
    const Image input = Image::gray(test::randomPlane(w, h, test::freshSeed("planepool cpu")));
    const Plane8 ref = referenceErrorDiffusion(input.channels[0], EdParams{});
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 3; ++i) pool.release(garbage(w, h, uint32_t(round * 10 + i)));
        RunRequest req;
        req.method = m;
        req.device = Device::Cpu;
        RunControl rc;
        rc.threads = threads;
        RunResult res;
        QVERIFY(runImage(input, req, res, rc));
        QCOMPARE(res.device, Device::Cpu);
        QVERIFY(res.image.channels[0] == ref);
        pool.release(std::move(res.image));
    }
}

void TestPlanePool::gpuRunTakesRecycledPlane() {
    const MethodInfo* m = testMethod("overwrite", &test::overwritingGpu);
    PlanePool& pool = PlanePool::instance();
    pool.setLimit(uint64_t(1) << 24);
    const int w = 199, h = 101;
    Image input;
    input.space = ColorSpace::RGB;
    for (int c = 0; c < 3; ++c) input.channels.push_back(test::randomPlane(w, h, test::freshSeed("planepool gpu")));
    for (int i = 0; i < 2; ++i) pool.release(garbage(w, h, uint32_t(i)));
    test::g_recycledSeen = 0;
    RunRequest req;
    req.method = m;
    req.device = Device::Gpu;
    req.color = ColorMode::RGB;
    RunResult res;
    QVERIFY(runImage(input, req, res));
    QCOMPARE(res.device, Device::Gpu);
    QCOMPARE(test::g_recycledSeen.load(), 2);  // two kept planes for three channels: the third is new
    QCOMPARE(pool.stats().taken, uint64_t(2));
    for (int c = 0; c < 3; ++c)
        QVERIFY(res.image.channels[size_t(c)] == referenceErrorDiffusion(input.channels[size_t(c)], EdParams{}));
    // the result's planes back, a second run takes all three
    pool.release(std::move(res.image));
    RunResult again;
    QVERIFY(runImage(input, req, again));
    QCOMPARE(test::g_recycledSeen.load(), 5);
    for (int c = 0; c < 3; ++c)
        QVERIFY(again.image.channels[size_t(c)] == referenceErrorDiffusion(input.channels[size_t(c)], EdParams{}));
}

void TestPlanePool::gpuFallbackGetsFreshPlane() {
    const MethodInfo* m = testMethod("failing", &failingGpu);
    PlanePool& pool = PlanePool::instance();
    pool.setLimit(uint64_t(1) << 24);
    const int w = 64, h = 48;
    const Image input = Image::gray(test::randomPlane(w, h, test::freshSeed("planepool fallback")));
    pool.release(garbage(w, h, 5));
    RunRequest req;
    req.method = m;
    req.device = Device::Gpu;
    RunResult res;
    QVERIFY(runImage(input, req, res));
    QCOMPARE(res.device, Device::Cpu);
    QVERIFY(res.note.find("device lost") != std::string::npos);
    QVERIFY(res.image.channels[0] == referenceErrorDiffusion(input.channels[0], EdParams{}));
    QCOMPARE(pool.stats().keptPlanes, uint64_t(1));  // the scribbled plane went back, not into the result
}

QTEST_GUILESS_MAIN(TestPlanePool)
#include "test_planepool.moc"
