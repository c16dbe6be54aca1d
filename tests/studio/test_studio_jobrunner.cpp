// Jobs run off the UI thread: results equal the SPEC reference bit for bit, the cache answers repeats,
// a newer request supersedes an older one, and a cancel stops a job mid-way leaving the runner usable.
#include <QtTest>
#include <atomic>
#include <thread>

#include "core/ed/errordiffusion.h"
#include "core/job/registry.h"
#include "tests/common/qtestutil.h"
#include "tests/studio/studioutil.h"
#include "tests/common/testutil.h"
#include "widgets/jobrunner.h"

using namespace halftone;

class TestStudioJobRunner : public QObject {
    Q_OBJECT
private slots:
    void descriptionsTellResultsApart();
    void psnrOfCopyIsInfinite();
    void linearLightSeenInLinearLight();
    void initTestCase() { test::registerSlowMethod(); }
    void runMatchesReference_data();
    void runMatchesReference();
    void cacheAnswersRepeat();
    void newerSupersedesOlder();
    void cancelStopsMidWay();
    void progressCarriesWavefront();
    void errorIsReported();
};

void TestStudioJobRunner::runMatchesReference_data() {
    test::columns<QString, QString, QString, int, int, int>("method", "variant", "kernel", "levels", "w", "h");
    const QList<QSize> sizes = {{1, 1}, {1, 37}, {41, 1}, {31, 17}, {97, 61}};
    int i = 0;
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (m.family != "error-diffusion" || !m.cpu) continue;
        for (const char* k : {"floyd-steinberg", "jarvis"})
            for (int L : {2, 3}) {
                const QSize s = sizes[i++ % sizes.size()];
                QTest::addRow("%s %s L%d %dx%d", m.id().c_str(), k, L, s.width(), s.height())
                    << QString::fromStdString(m.method) << QString::fromStdString(m.variant) << k << L << s.width()
                    << s.height();
            }
    }
}

void TestStudioJobRunner::runMatchesReference() {
    QFETCH(QString, method);
    QFETCH(QString, variant);
    QFETCH(QString, kernel);
    QFETCH(int, levels);
    QFETCH(int, w);
    QFETCH(int, h);
    JobRunner runner;
    QSignalSpy done(&runner, &JobRunner::finished);
    QSignalSpy failed(&runner, &JobRunner::failed);
    JobRequest r;
    r.image = test::randomGrayImage(w, h, "jobrunner reference");
    r.imageId = 1;
    r.method = Registry::instance().find(method.toStdString(), variant.toStdString());
    QVERIFY(r.method);
    r.params.set("kernel", kernel.toStdString());
    r.params.set("levels", int64_t(levels));
    r.device = Device::Cpu;
    runner.submit(r);
    QVERIFY(done.wait(20000) || done.count() == 1);
    QCOMPARE(failed.count(), 0);
    const JobResultPtr res = done.at(0).at(1).value<JobResultPtr>();
    QVERIFY(res && res->halftone);
    EdParams p;
    p.kernel = kernel.toStdString();
    p.levels = levels;
    const Plane8 ref = referenceErrorDiffusion(r.image->channels[0], p);
    QVERIFY(res->halftone->channels[0] == ref);
    // The display image shows exactly those pixels.
    QCOMPARE(res->display.size(), QSize(w, h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) QCOMPARE(int(res->display.constScanLine(y)[x]), int(ref.at(y, x)));
    QVERIFY(!res->perceived.isNull());
    QCOMPARE(res->perceived.size(), QSize(w, h));
}

void TestStudioJobRunner::cacheAnswersRepeat() {
    JobRunner runner;
    QSignalSpy done(&runner, &JobRunner::finished);
    JobRequest r;
    r.image = test::randomGrayImage(64, 48, "cache");
    r.imageId = 7;
    r.method = Registry::instance().find("ed", "rc");
    r.device = Device::Cpu;
    runner.submit(r);
    QVERIFY(done.wait(20000));
    const JobResultPtr first = done.at(0).at(1).value<JobResultPtr>();
    QCOMPARE(done.at(0).at(2).toBool(), false);
    // Same request with the defaults written out: same canonical key, answered from the cache.
    JobRequest again = r;
    again.params.set("levels", int64_t(2));
    QCOMPARE(JobRunner::cacheKey(again), JobRunner::cacheKey(r));
    runner.submit(again);
    QVERIFY(done.wait(5000));
    QCOMPARE(done.at(1).at(2).toBool(), true);
    QCOMPARE(done.at(1).at(1).value<JobResultPtr>().get(), first.get());
    // A different parameter, device choice or image is a different key.
    JobRequest other = r;
    other.params.set("levels", int64_t(3));
    QVERIFY(JobRunner::cacheKey(other) != JobRunner::cacheKey(r));
    other = r;
    other.device.reset();
    QVERIFY(JobRunner::cacheKey(other) != JobRunner::cacheKey(r));
    other = r;
    other.imageId = 8;
    QVERIFY(JobRunner::cacheKey(other) != JobRunner::cacheKey(r));
}

void TestStudioJobRunner::newerSupersedesOlder() {
    JobRunner runner;
    QSignalSpy done(&runner, &JobRunner::finished);
    QSignalSpy failed(&runner, &JobRunner::failed);
    JobRequest slow;
    slow.image = test::randomGrayImage(64, 400, "supersede");  // about 0.8 s
    slow.imageId = 2;
    slow.method = Registry::instance().find("zz-slow", "rows");
    slow.perceived = false;
    const quint64 g1 = runner.submit(slow);
    JobRequest fast = slow;
    fast.method = Registry::instance().find("ed", "plain");
    const quint64 g2 = runner.submit(fast);
    QVERIFY(g2 > g1);
    QVERIFY(done.wait(20000));
    runner.waitForDone();
    QCoreApplication::processEvents();
    QCOMPARE(done.count(), 1);  // only the newer result is delivered
    QCOMPARE(done.at(0).at(0).toULongLong(), g2);
    QCOMPARE(done.at(0).at(1).value<JobResultPtr>()->methodId, QString("ed/plain"));
    QCOMPARE(failed.count(), 0);  // the superseded job's cancel is not reported
}

void TestStudioJobRunner::cancelStopsMidWay() {
    JobRunner runner;
    QSignalSpy done(&runner, &JobRunner::finished);
    QSignalSpy failed(&runner, &JobRunner::failed);
    QSignalSpy progress(&runner, &JobRunner::progress);
    JobRequest slow;
    slow.image = test::randomGrayImage(32, 5000, "cancel");  // 10 s if not stopped
    slow.imageId = 3;
    slow.method = Registry::instance().find("zz-slow", "rows");
    slow.perceived = false;
    test::g_slowRowsRun = 0;
    runner.submit(slow);
    QVERIFY(runner.busy());
    QVERIFY(progress.wait(5000));  // it is running
    runner.cancel();
    QVERIFY(failed.wait(5000));
    QCOMPARE(failed.at(0).at(2).toBool(), true);  // cancelled, not an error
    QCOMPARE(done.count(), 0);
    QVERIFY(test::g_slowRowsRun.load() < 5000);  // stopped mid-way
    QVERIFY(!runner.busy());
    // The runner stays usable: the next job completes.
    JobRequest next = slow;
    next.image = test::randomGrayImage(20, 20, "after cancel");
    next.imageId = 4;
    next.method = Registry::instance().find("ed", "plain");
    runner.submit(next);
    QVERIFY(done.wait(20000));
    QCOMPARE(done.at(0).at(1).value<JobResultPtr>()->halftone->width(), 20);
}

void TestStudioJobRunner::progressCarriesWavefront() {
    JobRunner runner;
    QSignalSpy progress(&runner, &JobRunner::progress);
    QSignalSpy done(&runner, &JobRunner::finished);
    JobRequest slow;
    slow.image = test::randomGrayImage(10, 150, "wavefront");
    slow.imageId = 5;
    slow.method = Registry::instance().find("zz-slow", "rows");
    slow.perceived = false;
    runner.submit(slow);
    QVERIFY(done.wait(20000));
    QVERIFY(progress.count() >= 1);
    bool sawRows = false;
    for (const auto& args : progress) {
        const qint64 rows = args.at(3).toLongLong();
        const QVector<int> frontier = args.at(4).value<QVector<int>>();
        if (rows > 0) {
            sawRows = true;
            QVERIFY(rows <= 150);
            QCOMPARE(frontier.size(), 1);
            QCOMPARE(frontier[0], 5);
        }
    }
    QVERIFY(sawRows);
}

void TestStudioJobRunner::errorIsReported() {
    JobRunner runner;
    QSignalSpy failed(&runner, &JobRunner::failed);
    JobRequest r;
    r.image = test::randomGrayImage(8, 8, "error");
    r.method = Registry::instance().find("ed", "plain");
    r.params.set("levels", int64_t(1));  // below the spec's minimum of 2
    runner.submit(r);
    QVERIFY(failed.wait(5000));
    QCOMPARE(failed.at(0).at(2).toBool(), false);
    QVERIFY2(failed.at(0).at(1).toString().contains("levels"), qPrintable(failed.at(0).at(1).toString()));
}

void TestStudioJobRunner::descriptionsTellResultsApart() {
    const MethodInfo* ed = Registry::instance().find("ed", "plain");
    QVERIFY(ed);
    ParamValues defaults;
    const ResultDescription plain = describeResult(*ed, defaults, ColorMode::Gray, Device::Cpu);
    QCOMPARE(plain.shortText, QString("ed/plain, gray [cpu]"));
    QVERIFY(plain.longText.contains("Kernel: floyd-steinberg (default)"));
    QVERIFY(plain.longText.contains("Colour mode: gray"));
    ParamValues p;
    p.set("kernel", std::string("jarvis"));
    p.set("levels", int64_t(4));
    p.set("linear", true);
    const ResultDescription d = describeResult(*ed, p, ColorMode::RGB, Device::Cpu);
    QCOMPARE(d.shortText, QString("ed/plain jarvis, RGB, 4 levels, linear [cpu]"));
    QVERIFY(d.longText.contains("Kernel: jarvis"));
    QVERIFY(!d.longText.contains("Kernel: jarvis (default)"));
    QVERIFY(d.longText.contains("Linear light: on"));
    QCOMPARE(describeResult(*ed, p, ColorMode::CMYK, std::nullopt).shortText,
             QString("ed/plain jarvis, CMYK, 4 levels, linear"));
    // Parameters that change only the speed stay out of the short form.
    for (const MethodInfo& m : Registry::instance().methods())
        if (m.param("threads")) {
            ParamValues t;
            t.set("threads", int64_t(3));
            const ResultDescription td = describeResult(m, t, ColorMode::Gray, Device::Cpu);
            QVERIFY2(!td.shortText.contains("threads"), qPrintable(td.shortText));
            QVERIFY(td.longText.contains(": 3"));
            break;
        }
}

void TestStudioJobRunner::psnrOfCopyIsInfinite() {
    const Image im = Image::gray(test::randomPlane(40, 30, test::freshSeed("jobrunner psnr")));
    double db = 0;
    QString region;
    measurePsnr(im, im, false, db, region);
    QVERIFY(std::isinf(db));
    QVERIFY(region.isEmpty());
    JobRequest r;
    r.image = std::make_shared<const Image>(im);
    r.method = Registry::instance().find("ed", "plain");
    r.device = Device::Cpu;
    r.perceived = false;
    JobResult out;
    QVERIFY(runJob(r, {}, out).isOk());
    QVERIFY2(out.psnrDb > 5 && out.psnrDb < 40,
             qPrintable(QString::number(out.psnrDb)));  // measured even without the view
    // A CMYK halftone is measured as shown (RGB), like an RGB one: its near-empty ink planes do not flatter it.
    Image colour;
    colour.space = ColorSpace::RGB;
    for (int c = 0; c < 3; ++c) {
        Plane8 p(64, 48);
        for (int y = 0; y < 48; ++y)
            for (int x = 0; x < 64; ++x) p.at(y, x) = uint8_t(40 + (x * 3 + y * (c + 1)) % 170);
        colour.channels.push_back(p);
    }
    r.image = std::make_shared<const Image>(colour);
    double byMode[2] = {};
    for (int i = 0; i < 2; ++i) {
        r.color = i == 0 ? ColorMode::RGB : ColorMode::CMYK;
        JobResult res;
        QVERIFY(runJob(r, {}, res).isOk());
        byMode[i] = res.psnrDb;
        measurePsnr(convertColor(*res.halftone, ColorMode::RGB), colour, false, db, region);
        QCOMPARE(res.psnrDb, db);
    }
    qInfo("RGB %.2f dB, CMYK %.2f dB", byMode[0], byMode[1]);
    QVERIFY(byMode[1] < byMode[0]);  // four independent binary ink planes look noisier than three
    // Wider than 2048 pixels: measured on a central crop, and the result says so.
    const Image wide = Image::gray(Plane8(2100, 3, 90));
    measurePsnr(wide, wide, true, db, region);
    QCOMPARE(region, QString("central 2048 x 3 crop"));
}

void TestStudioJobRunner::linearLightSeenInLinearLight() {
    // Flat gray 128 diffused in linear light turns about 22% of the pixels white (lin(128/255) = 0.216).
    // Seen through the HVS filter in linear light that is gray 128 again; averaged as gamma values it
    // would look far darker (about 55), which is not what the eye sees.
    JobRequest r;
    r.image = std::make_shared<const Image>(Image::gray(Plane8(96, 64, 128)));
    r.method = Registry::instance().find("ed", "plain");
    r.device = Device::Cpu;
    r.params.set("linear", true);
    JobResult out;
    QVERIFY(runJob(r, {}, out).isOk());
    QVERIFY(!out.perceived.isNull());
    double sum = 0;
    int n = 0;
    for (int y = 16; y < 48; ++y)
        for (int x = 16; x < 80; ++x, ++n) sum += qGray(out.perceived.pixel(x, y));
    const double mean = sum / n;
    QVERIFY2(std::abs(mean - 128) < 10, qPrintable(QString::number(mean)));
    QVERIFY2(out.psnrDb > 20, qPrintable(QString::number(out.psnrDb)));  // measured in linear light too
}

QTEST_MAIN(TestStudioJobRunner)
#include "test_studio_jobrunner.moc"
