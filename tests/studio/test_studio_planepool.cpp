// After a GPU run the studio makes a plane ready for the next run in the background and hands the planes of the
// results it drops to the PlanePool; its next GPU run of the same size takes one. A result still held (cached, shown,
// or borrowed by a display image) is never recycled, and every result equals the CPU's. Without a device the GPU path
// is a stand-in that keeps dst's memory as gpu::runPlane does.
#include <QThreadPool>
#include <QtTest>
#include <atomic>

#include "core/ed/errordiffusion.h"
#include "core/planepool.h"
#include "core/job/registry.h"
#include "tests/common/standin.h"
#include "tests/common/testutil.h"
#include "tests/studio/studioutil.h"
#include "widgets/jobrunner.h"

using namespace halftone;

namespace {

/// The GPU-path stand-in: binary Floyd-Steinberg written into dst's own memory when dst has the src's size.
const MethodInfo* standInMethod() {
    Registry& r = Registry::instance();
    if (const MethodInfo* m = r.find("zz-pool", "overwrite")) return m;
    MethodInfo m = test::testMethodInfo("zz-pool", "overwrite",
                                        "binary Floyd-Steinberg, GPU path kept in dst's memory (test only)");
    m.cpu = [](const Plane8& src, Plane8& dst, const ParamValues&, const RunControl&) {
        dst = referenceErrorDiffusion(src, EdParams{});
        return Status::ok();
    };
    m.gpu = &test::overwritingGpu;
    r.add(std::move(m));
    return r.find("zz-pool", "overwrite");
}

}  // namespace

class TestStudioPlanePool : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void runsTakeReadyPlanes();
    void heldResultIsNeverRecycled();

private:
    const MethodInfo* method_ = nullptr;
    JobResultPtr run(JobRunner& runner, const std::shared_ptr<const Image>& image, quint64 id);
    Plane8 cpuResult(const Image& image);
};

void TestStudioPlanePool::initTestCase() {
    test::startStudioTest("test_studio_planepool");
    if (Registry::instance().gpuAvailability().usable) {
        method_ = Registry::instance().find("ec", "wavefront");
        qInfo("GPU: %s", Registry::instance().gpuAvailability().deviceName.c_str());
    } else {
        GpuAvailability a;
        a.usable = true;
        a.deviceName = "test stand-in";
        Registry::instance().setGpuAvailability(a);
        method_ = standInMethod();
    }
    QVERIFY(method_ && method_->gpu && method_->cpu);
}

void TestStudioPlanePool::init() {
    // A GPU result of the function before asks for the next planes in the background (PlanePool::prepare on Qt's
    // global thread pool): let that finish before the pool is emptied, or it lands in this function's counts.
    QThreadPool::globalInstance()->waitForDone();
    PlanePool::instance().clear();
}

JobResultPtr TestStudioPlanePool::run(JobRunner& runner, const std::shared_ptr<const Image>& image, quint64 id) {
    QSignalSpy done(&runner, &JobRunner::finished);
    QSignalSpy failed(&runner, &JobRunner::failed);
    JobRequest r;
    r.image = image;
    r.imageId = id;
    r.method = method_;
    r.device = Device::Gpu;
    r.perceived = false;
    runner.submit(r);
    if (!(done.count() == 1 || done.wait(20000))) return nullptr;
    if (failed.count() != 0) return nullptr;
    return done.at(0).at(1).value<JobResultPtr>();
}

Plane8 TestStudioPlanePool::cpuResult(const Image& image) {
    RunRequest req;
    req.method = method_;
    req.device = Device::Cpu;
    RunResult res;
    if (!runImage(image, req, res)) return {};
    return res.image.channels[0];
}

void TestStudioPlanePool::runsTakeReadyPlanes() {
    JobRunner runner;
    PlanePool& pool = PlanePool::instance();
    QVERIFY(pool.limit() >= kResultPlanePoolBytes);
    const auto image = test::randomGrayImage(301, 199, "studio planepool");
    const Plane8 want = cpuResult(*image);
    const PlanePool::Stats before = pool.stats();
    JobResultPtr first = run(runner, image, 1);
    QVERIFY(first && first->halftone);
    QCOMPARE(first->device, Device::Gpu);
    QVERIFY(first->halftone->channels[0] == want);
    // the first result stays cached and shown; a plane for the next run is made in the background
    QTRY_COMPARE(pool.stats().keptPlanes, uint64_t(1));
    QCOMPARE(pool.stats().prepared, before.prepared + 1);
    // the same picture again under another id (no cache hit): the run takes the ready plane
    int seen = test::g_recycledSeen;
    JobResultPtr second = run(runner, image, 2);
    QVERIFY(second && second->halftone);
    QCOMPARE(second->device, Device::Gpu);
    QCOMPARE(pool.stats().taken, before.taken + 1);
    if (method_->method == "zz-pool") QCOMPARE(test::g_recycledSeen.load(), seen + 1);
    QVERIFY(second->halftone->channels[0] == want);
    QVERIFY(first->halftone->channels[0] == want);
    QTRY_COMPARE(pool.stats().keptPlanes, uint64_t(1));
    // the studio drops both results (out of the cache, off the screen): their planes are kept too
    first.reset();
    second.reset();
    runner.clearCache();
    QTRY_COMPARE(pool.stats().keptPlanes, uint64_t(3));
    // a different picture of the same size in a recycled plane: exact too
    seen = test::g_recycledSeen;
    const auto other = test::randomGrayImage(301, 199, "studio planepool other");
    JobResultPtr third = run(runner, other, 3);
    QVERIFY(third && third->halftone);
    QCOMPARE(pool.stats().taken, before.taken + 2);
    if (method_->method == "zz-pool") QCOMPARE(test::g_recycledSeen.load(), seen + 1);
    QVERIFY(third->halftone->channels[0] == cpuResult(*other));
}

void TestStudioPlanePool::heldResultIsNeverRecycled() {
    JobRunner runner;
    PlanePool& pool = PlanePool::instance();
    const auto image = test::randomGrayImage(157, 89, "studio planepool held");
    const Plane8 want = cpuResult(*image);
    JobResultPtr held = run(runner, image, 1);
    QVERIFY(held && held->halftone);
    QTRY_COMPARE(pool.stats().keptPlanes, uint64_t(1));  // the plane made for the next run, not the result's
    // out of the cache but still held (shown): nothing released
    runner.clearCache();
    QCOMPARE(pool.stats().keptPlanes, uint64_t(1));
    const auto other = test::randomGrayImage(157, 89, "studio planepool held other");
    JobResultPtr next = run(runner, other, 2);
    QVERIFY(next && next->halftone);
    QVERIFY(held->halftone->channels[0] == want);
    QVERIFY(next->halftone->channels[0] == cpuResult(*other));
    QVERIFY(next->halftone->channels[0].data.data() != held->halftone->channels[0].data.data());
    QTRY_COMPARE(pool.stats().keptPlanes, uint64_t(1));
    runner.clearCache();
    next.reset();
    QCOMPARE(pool.stats().keptPlanes, uint64_t(2));
    // a display image still borrows the gray plane: dropping the result alone releases nothing
    QImage display = held->display;
    QCOMPARE(display.constBits(), held->halftone->channels[0].data.data());
    held.reset();
    QCOMPARE(pool.stats().keptPlanes, uint64_t(2));
    QCOMPARE(display.constBits()[0], want.data[0]);
    display = QImage();
    QCOMPARE(pool.stats().keptPlanes, uint64_t(3));
}

QTEST_MAIN(TestStudioPlanePool)
#include "test_studio_planepool.moc"
