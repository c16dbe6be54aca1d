// Parallel exact error collection (trapezoid blocks, wavefront bands on every SIMD path this CPU
// has) against the SPEC reference, bit for bit, on fresh random images of awkward sizes and on
// real images; plus progress, cancellation, path selection and the registry entries.
#include <QtTest>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <mutex>

#include "core/ed/errordiffusion.h"
#include "core/ed/kernel.h"
#include "core/ed/parallel.h"
#include "core/job/registry.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

struct Method {
    std::string name;  // "trapezoid" or "wavefront/<path>"
    SimdPath simd = SimdPath::Auto;
};

std::vector<Method> methods() {
    std::vector<Method> m{{"trapezoid", SimdPath::Auto}};
    for (SimdPath p : supportedSimdPaths()) m.push_back({std::string("wavefront/") + toString(p), p});
    return m;
}

Status runMethod(const std::string& name, SimdPath simd, const Plane8& src, Plane8& dst, const EdParams& p, int threads,
                 const RunControl& rc = {}, int blockWidth = 0) {
    ParallelOptions o;
    o.threads = threads;
    o.simd = simd;
    o.blockWidth = blockWidth;
    if (name == "trapezoid") return trapezoidErrorDiffusion(src, dst, p, o, rc);
    return wavefrontErrorDiffusion(src, dst, p, o, rc);
}

}  // namespace

class TestParallel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void matchesReference_data();
    void matchesReference();
    void realImages_data();
    void realImages();
    void tallImageManyBands();
    void longDelayKernelsInTheInterior();
    void serpentineFallsBackExactly();
    void floatFloorDivisionIsExact();
    void progressAndFrontier();
    void cancellation();
    void simdSelection();
    void registryEntries();
    void badInput();
};

void TestParallel::initTestCase() {
    QStringList paths;
    for (SimdPath p : supportedSimdPaths()) paths << toString(p);
    qInfo("SIMD paths tested on this CPU: %s", qPrintable(paths.join(", ")));
    QVERIFY(!supportedSimdPaths().empty());
    QCOMPARE(supportedSimdPaths().back(), SimdPath::Scalar);
}

void TestParallel::matchesReference_data() {
    test::columns<QString, int, QString, int, int>("method", "simd", "kernel", "width", "height");
    const QList<QPair<int, int>> sizes = {{1, 1},   {1, 97},  {97, 1},    {2, 3},   {7, 13},
                                          {31, 33}, {17, 70}, {257, 129}, {61, 200}};
    for (const Method& m : methods())
        for (const Kernel& k : kernels())
            for (const auto& s : sizes)
                QTest::addRow("%s/%s/%dx%d", m.name.c_str(), k.name.c_str(), s.first, s.second)
                    << QString::fromStdString(m.name) << int(m.simd) << QString::fromStdString(k.name) << s.first
                    << s.second;
}

void TestParallel::matchesReference() {
    QFETCH(QString, method);
    QFETCH(int, simd);
    QFETCH(QString, kernel);
    QFETCH(int, width);
    QFETCH(int, height);
    const std::string name = method.startsWith("trapezoid") ? "trapezoid" : "wavefront";
    const Plane8 src = test::randomPlane(width, height, test::freshSeed("test_parallel"));
    struct Mode {
        int levels;
        bool linear;
    };
    for (Mode mode : {Mode{2, false}, Mode{2, true}, Mode{3, false}, Mode{4, true}, Mode{17, false}, Mode{256, true},
                      Mode{256, false}}) {
        EdParams p;
        p.kernel = kernel.toStdString();
        p.levels = mode.levels;
        p.linear = mode.linear;
        const Plane8 ref = referenceErrorDiffusion(src, p);
        // 1 thread, 2 threads, more threads than rows/bands; the trapezoid also with tiny blocks
        for (int threads : {1, 2, 5}) {
            for (int bw : {0, 3}) {
                if (bw && name != "trapezoid") continue;
                Plane8 out;
                const Status st = runMethod(name, SimdPath(simd), src, out, p, threads, {}, bw);
                QVERIFY2(st.isOk(), st.message().c_str());
                if (out.data != ref.data)
                    QFAIL(qPrintable(QString("levels %1 linear %2 threads %3 block %4: %5")
                                         .arg(mode.levels)
                                         .arg(mode.linear)
                                         .arg(threads)
                                         .arg(bw)
                                         .arg(test::firstDifferenceText(out, ref))));
            }
        }
    }
}

void TestParallel::realImages_data() { test::realImageRows({"floyd-steinberg", "jarvis", "sierra-lite"}, {2, 4}); }

void TestParallel::realImages() {
    const test::RealImageRow row = test::realImageRow();
    QVERIFY2(row.status.isOk(), row.status.message().c_str());
    const Plane8& src = row.gray;
    const EdParams& p = row.params;
    const Plane8 ref = referenceErrorDiffusion(src, p);
    for (const Method& m : methods()) {
        Plane8 out;
        const std::string name = m.name == "trapezoid" ? "trapezoid" : "wavefront";
        QVERIFY(runMethod(name, m.simd, src, out, p, 2).isOk());
        QVERIFY2(out.data == ref.data,
                 qPrintable(QString::fromStdString(m.name) + ": " + test::firstDifferenceText(out, ref)));
    }
}

void TestParallel::tallImageManyBands() {
    // many bands per thread, band slots reused, a short last band; 3 threads on however many cores
    const Plane8 src = test::randomPlane(203, 611, test::freshSeed("tall"));
    for (const char* k : {"floyd-steinberg", "stucki", "atkinson"}) {
        EdParams p;
        p.kernel = k;
        const Plane8 ref = referenceErrorDiffusion(src, p);
        for (const Method& m : methods()) {
            Plane8 out;
            QVERIFY(runMethod(m.name == "trapezoid" ? "trapezoid" : "wavefront", m.simd, src, out, p, 3).isOk());
            QVERIFY2(out.data == ref.data,
                     qPrintable(QString::fromStdString(m.name) + " " + k + ": " + test::firstDifferenceText(out, ref)));
        }
    }
}

void TestParallel::serpentineFallsBackExactly() {
    const Plane8 src = test::randomPlane(45, 37, test::freshSeed("serpentine"));
    EdParams p;
    p.serpentine = true;
    p.kernel = "stucki";
    const Plane8 ref = referenceErrorDiffusion(src, p);
    for (const Method& m : methods()) {
        Plane8 out;
        QVERIFY(runMethod(m.name == "trapezoid" ? "trapezoid" : "wavefront", m.simd, src, out, p, 2).isOk());
        QCOMPARE(out.data, ref.data);
    }
}

void TestParallel::longDelayKernelsInTheInterior() {
    // The SIMD band's unchecked interior needs every row's 16 columns inside the image: sb >= k (bandRows - 1), so
    // kernels of delay 4 (three columns back: shiau-fan2; three rows down: stevenson-arce) need images wider than
    // 4 x 63 columns on the 64-row AVX-512 band. One wide image per such kernel, every path, two and 17 levels.
    const Plane8 src = test::randomPlane(700, 150, test::freshSeed("long delay interior"));
    int tested = 0;
    for (const Kernel& k : kernels()) {
        if (k.minimalDelay() < 4) continue;
        for (int levels : {2, 17}) {
            EdParams p;
            p.kernel = k.name;
            p.levels = levels;
            const Plane8 ref = referenceErrorDiffusion(src, p);
            for (const Method& m : methods()) {
                Plane8 out;
                const Status st = runMethod(m.name == "trapezoid" ? "trapezoid" : "wavefront", m.simd, src, out, p, 2);
                QVERIFY2(st.isOk(), st.message().c_str());
                QVERIFY2(out.data == ref.data, qPrintable(QString("%1 %2 L%3: %4")
                                                              .arg(QString::fromStdString(m.name))
                                                              .arg(QString::fromStdString(k.name))
                                                              .arg(levels)
                                                              .arg(test::firstDifferenceText(out, ref))));
                ++tested;
            }
        }
    }
    QVERIFY(tested >= 4);
}

void TestParallel::floatFloorDivisionIsExact() {
    // The SIMD paths divide by non-power-of-two divisors (Jarvis 48, Stucki 42) in float and round
    // down. |E| <= 2040, so the dividend acc + D/2 stays within D * 2041; check a range 16x wider.
    for (const Kernel& k : kernels()) {
        if (k.levelDependent()) continue;  // D = 2^14 is divided by a shift on every path
        const int d = k.divisor;
        const int lim = d * 2041 * 16;
        for (int x = -lim; x <= lim; ++x) {
            const int f = int(std::floor(float(x) / float(d)));
            if (f != floorDiv(x, d))
                QFAIL(qPrintable(QString("x=%1 D=%2: %3 vs %4").arg(x).arg(d).arg(f).arg(floorDiv(x, d))));
        }
    }
}

void TestParallel::progressAndFrontier() {
    const Plane8 src = test::randomPlane(3000, 700, test::freshSeed("progress"));
    EdParams p;
    for (const std::string name : {"wavefront", "trapezoid"}) {
        std::mutex mu;
        std::vector<Progress> seen;
        RunControl rc;
        rc.onProgress = [&](const Progress& pr) {
            std::lock_guard<std::mutex> lock(mu);
            seen.push_back(pr);
        };
        Plane8 out;
        // the scalar path is slow enough to produce intermediate reports on any machine
        QVERIFY(runMethod(name, SimdPath::Scalar, src, out, p, 2, rc, name == "trapezoid" ? 16 : 0).isOk());
        QVERIFY(!seen.empty());
        QCOMPARE(seen.back().fraction, 1.0);
        double last = -1;
        for (const Progress& pr : seen) {
            QVERIFY(pr.fraction >= 0.0 && pr.fraction <= 1.0);
            if (pr.rowsDone >= 0) QVERIFY(pr.rowsDone <= src.height);
            for (int32_t f : pr.frontier) QVERIFY(f >= 0 && f <= src.width);
            if (pr.fraction < 1.0) QVERIFY(pr.fraction >= last - 1e-9 || name == "wavefront");
            last = pr.fraction;
        }
    }
}

void TestParallel::cancellation() {
    const Plane8 src = test::randomPlane(2000, 1500, test::freshSeed("cancel"));
    EdParams p;
    for (const Method& m : methods()) {
        const std::string name = m.name == "trapezoid" ? "trapezoid" : "wavefront";
        // stopped before it starts
        RunControl rc;
        rc.stop.requestStop();
        Plane8 out;
        QVERIFY(runMethod(name, m.simd, src, out, p, 2, rc, name == "trapezoid" ? 8 : 0).isCancelled());
        // stopped from the first progress report
        RunControl rc2;
        const StopToken token = rc2.stop;
        rc2.onProgress = [token](const Progress&) { token.requestStop(); };
        const Status st = runMethod(name, m.simd, src, out, p, 2, rc2, name == "trapezoid" ? 8 : 0);
        QVERIFY2(st.isCancelled(),
                 qPrintable(QString::fromStdString(m.name) + ": " + QString::fromStdString(st.message())));
    }
}

void TestParallel::simdSelection() {
    SimdPath p;
    QVERIFY(parseSimdPath("avx2", p));
    QCOMPARE(p, SimdPath::Avx2);
    QVERIFY(!parseSimdPath("neon", p));
    qputenv("HALFTONE_SIMD", "scalar");
    QVERIFY(resolveSimdPath(SimdPath::Auto, p).isOk());
    QCOMPARE(p, SimdPath::Scalar);
    qputenv("HALFTONE_SIMD", "bogus");
    Status st = resolveSimdPath(SimdPath::Auto, p);
    QVERIFY(!st.isOk());
    QVERIFY2(st.message().find("HALFTONE_SIMD") != std::string::npos, st.message().c_str());
    Plane8 out;
    QVERIFY(!wavefrontErrorDiffusion(Plane8(4, 4, 9), out, EdParams{}, ParallelOptions{}).isOk());
    qunsetenv("HALFTONE_SIMD");
    QVERIFY(resolveSimdPath(SimdPath::Auto, p).isOk());
    QCOMPARE(p, supportedSimdPaths().front());
    // an explicit path wins over the environment
    qputenv("HALFTONE_SIMD", "bogus");
    QVERIFY(resolveSimdPath(SimdPath::Scalar, p).isOk());
    qunsetenv("HALFTONE_SIMD");
    for (SimdPath s : supportedSimdPaths()) QVERIFY(simdBandRows(s) >= 16);
}

void TestParallel::registryEntries() {
    Registry& r = Registry::instance();
    for (const char* v : {"trapezoid", "wavefront"}) {
        const MethodInfo* m = r.find("ec", v);
        QVERIFY2(m, v);
        QVERIFY(m->cpu);
        QVERIFY(m->exact);
        QVERIFY(m->param("threads"));
        QVERIFY(m->param("kernel"));
        QCOMPARE(m->schedule, std::string(v));
        // RGB through runImage: per-channel planes, bit-identical to the reference per channel
        Image rgb;
        rgb.space = ColorSpace::RGB;
        for (int c = 0; c < 3; ++c) rgb.channels.push_back(test::randomPlane(53, 41, test::freshSeed("rgb")));
        RunRequest req;
        req.method = m;
        req.color = ColorMode::RGB;
        req.params.set("threads", int64_t(2));
        req.params.set("kernel", std::string("burkes"));
        req.params.set("levels", int64_t(3));
        RunResult res;
        const Status st = runImage(rgb, req, res);
        QVERIFY2(st.isOk(), st.message().c_str());
        EdParams p;
        p.kernel = "burkes";
        p.levels = 3;
        for (int c = 0; c < 3; ++c)
            QCOMPARE(res.image.channels[size_t(c)].data, referenceErrorDiffusion(rgb.channels[size_t(c)], p).data);
    }
    const MethodInfo* w = r.find("ec", "wavefront");
    ParamValues bad;
    bad.set("simd", std::string("neon"));
    QVERIFY(!r.resolveParams(*w, bad).isOk());
}

void TestParallel::badInput() {
    Plane8 out;
    EdParams p;
    p.levels = 1;
    Status st = wavefrontErrorDiffusion(Plane8(5, 5), out, p, {});
    QVERIFY(!st.isOk());
    QVERIFY2(st.message().find("levels") != std::string::npos, st.message().c_str());
    p.levels = 2;
    p.kernel = "nope";
    st = trapezoidErrorDiffusion(Plane8(5, 5), out, p, {});
    QVERIFY(!st.isOk());
    QVERIFY(st.message().find("unknown kernel") != std::string::npos);
    p.kernel = "floyd-steinberg";
    QVERIFY(!wavefrontErrorDiffusion(Plane8(), out, p, {}).isOk());
}

QTEST_GUILESS_MAIN(TestParallel)
#include "test_parallel.moc"
