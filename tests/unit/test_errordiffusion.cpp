// Every sequential ED/EC variant against the SPEC reference, bit for bit.
#include <QFile>
#include <QRegularExpression>
#include <QtTest>

#include "core/ed/errordiffusion.h"
#include "core/ed/quantizer.h"
#include "core/job/registry.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

class TestErrorDiffusion : public QObject {
    Q_OBJECT
private slots:
    void handComputed4x4();
    void quantizerLevels();
    void quantizerTies();
    void minimalDelay();
    void kernelsAreTheSpecTable();
    void variantsMatchReference_data();
    void variantsMatchReference();
    void registryRunsSameBits();
    void cancellationStops();
    void badParameters();
    void gpuFailureFallsBackToCpu();
};

void TestErrorDiffusion::handComputed4x4() {
    // Constant 128 gray, Floyd-Steinberg, binary. Worked by hand from the SPEC recurrence:
    // row 0: A=2048 everywhere. p(0,0): S=2048 > 2040 -> 255, E=-2032.
    // p(0,1): acc=7*-2032=-14224, floor((-14224+8)/16)=-889 (floor of -888.5) -> S=1159 -> 0, E=1159.
    // p(0,2): acc=7*1159=8113, floor(8121/16)=507 -> S=2555 -> 255, E=-1525.
    // p(0,3): acc=7*-1525=-10675, floor(-10667/16)=-667 -> S=1381 -> 0, E=1381.
    Plane8 src(4, 4, 128);
    EdParams p;
    const Plane8 ref = referenceErrorDiffusion(src, p);
    QCOMPARE(int(ref.at(0, 0)), 255);
    QCOMPARE(int(ref.at(0, 1)), 0);
    QCOMPARE(int(ref.at(0, 2)), 255);
    QCOMPARE(int(ref.at(0, 3)), 0);
    // row 1, p(1,0): sources (0,0) via (1,0,5): 5*-2032, (0,1) via (1,-1,3): 3*1159
    // acc = -10160 + 3477 = -6683; floor((-6683+8)/16) = floor(-417.19) = -418; S = 1630 -> 0, E = 1630.
    QCOMPARE(int(ref.at(1, 0)), 0);
    // p(1,1): (1,0) via (0,1,7): 7*1630=11410; (0,0) via (1,1,1): -2032; (0,1) via (1,0,5): 5795;
    // (0,2) via (1,-1,3): -4575. acc = 10598, floor(10606/16) = 662, S = 2710 -> 255.
    QCOMPARE(int(ref.at(1, 1)), 255);
    // All four variants give the same 16 pixels.
    for (EdVariant v :
         {EdVariant::Diffusion, EdVariant::Collection, EdVariant::DiffusionRegisters, EdVariant::CollectionRegisters}) {
        Plane8 out;
        QVERIFY(errorDiffuse(src, out, p, v).isOk());
        QCOMPARE(out.data, ref.data);
    }
    // Mean tone is preserved roughly: 128/255 ~ half of the 16 pixels on.
    int on = 0;
    for (uint8_t v : ref.data) on += v == 255;
    QVERIFY(on >= 7 && on <= 9);
}

void TestErrorDiffusion::quantizerLevels() {
    Quantizer q4(4, false);
    QCOMPARE(q4.values(), (std::vector<uint8_t>{0, 85, 170, 255}));
    QCOMPARE(q4.targets(), (std::vector<int32_t>{0, 1360, 2720, 4080}));
    Quantizer q2(2, false);
    QCOMPARE(q2.level(2040), 0);  // the seeds' rule: S <= 2040 gives 0
    QCOMPARE(q2.level(2041), 1);
    QCOMPARE(q2.level(-5000), 0);
    QCOMPARE(q2.level(9000), 1);
    Quantizer lin(2, true);
    QCOMPARE(lin.input(255), 4080);
    QCOMPARE(lin.input(0), 0);
    QCOMPARE(lin.input(128), int(std::lround(4080.0 * srgbToLinear(128 / 255.0))));
    for (int L : {2, 3, 4, 7, 16, 255, 256}) {
        Quantizer q(L, false);
        QCOMPARE(int(q.values().front()), 0);
        QCOMPARE(int(q.values().back()), 255);
        QCOMPARE(int(q.values().size()), L);
    }
}

void TestErrorDiffusion::quantizerTies() {
    // Brute force: level() picks the nearest target, ties to the smaller k, for every S in range.
    for (int L : {2, 3, 5, 16, 256})
        for (bool linear : {false, true}) {
            Quantizer q(L, linear);
            for (int s = -9000; s <= 13000; s += 1) {
                int best = 0;
                for (int k = 1; k < L; ++k)
                    if (std::abs(s - q.targets()[size_t(k)]) < std::abs(s - q.targets()[size_t(best)])) best = k;
                if (q.level(s) != best)
                    QFAIL(qPrintable(
                        QString("L=%1 linear=%2 S=%3: %4 != %5").arg(L).arg(linear).arg(s).arg(q.level(s)).arg(best)));
            }
        }
}

void TestErrorDiffusion::minimalDelay() {
    QCOMPARE(findKernel("floyd-steinberg")->minimalDelay(), 2);
    QCOMPARE(findKernel("jarvis")->minimalDelay(), 3);
    QCOMPARE(findKernel("sierra-lite")->minimalDelay(), 2);
    QCOMPARE(findKernel("atkinson")->minimalDelay(), 2);
    // lower rows reaching two or three columns back, and Stevenson and Arce's three rows down
    QCOMPARE(findKernel("fan")->minimalDelay(), 3);
    QCOMPARE(findKernel("shiau-fan")->minimalDelay(), 3);
    QCOMPARE(findKernel("shiau-fan2")->minimalDelay(), 4);
    QCOMPARE(findKernel("stevenson-arce")->minimalDelay(), 4);
    QCOMPARE(findKernel("stevenson-arce")->maxDi(), 3);
    QCOMPARE(findKernel("hocevar-niger")->minimalDelay(), 2);
}

void TestErrorDiffusion::kernelsAreTheSpecTable() {
    // docs/spec.md section 1 lists every kernel with its integers; the table in the code must be that table
    QFile f(QStringLiteral(HALFTONE_SOURCE_DIR "/docs/spec.md"));
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString text = QString::fromUtf8(f.readAll());
    const QRegularExpression row(QStringLiteral("^\\| `([a-z0-9-]+)`[^|]*\\|([^|]*)\\|\\s*(\\d+)\\s*\\|$"),
                                 QRegularExpression::MultilineOption);
    const QRegularExpression tap(QStringLiteral("\\((-?\\d+),(-?\\d+),(\\d+)\\)"));
    int rows = 0;
    for (auto m = row.globalMatch(text); m.hasNext();) {
        const auto r = m.next();
        const Kernel* k = findKernel(r.captured(1).toStdString());
        QVERIFY2(k, qPrintable(r.captured(1)));
        QCOMPARE(k->divisor, r.captured(3).toInt());
        std::vector<Tap> taps;
        for (auto t = tap.globalMatch(r.captured(2)); t.hasNext();) {
            const auto c = t.next();
            taps.push_back({c.captured(1).toInt(), c.captured(2).toInt(), c.captured(3).toInt()});
        }
        QCOMPARE(int(taps.size()), int(k->taps.size()));
        for (size_t i = 0; i < taps.size(); ++i) {
            QCOMPARE(taps[i].di, k->taps[i].di);
            QCOMPARE(taps[i].dj, k->taps[i].dj);
            QCOMPARE(taps[i].w, k->taps[i].w);
        }
        ++rows;
    }
    // The level-dependent kernels have a subsection of their own (their weights are tables, not one row).
    const auto fixed =
        std::count_if(kernels().begin(), kernels().end(), [](const Kernel& k) { return !k.levelDependent(); });
    QCOMPARE(rows, int(fixed));
}

void TestErrorDiffusion::variantsMatchReference_data() {
    std::vector<std::string> names;
    for (const Kernel& k : kernels()) names.push_back(k.name);
    test::edModeRows(names, {2, 3, 4, 256});
}

void TestErrorDiffusion::variantsMatchReference() {
    const EdParams p = test::edParamsFromRow();
    const std::pair<int, int> sizes[] = {{1, 1}, {97, 1}, {1, 97}, {7, 13}, {31, 33}, {257, 129}};
    for (auto [w, h] : sizes) {
        const Plane8 src = test::randomPlane(w, h, test::freshSeed("variantsMatchReference"));
        const Plane8 ref = referenceErrorDiffusion(src, p);
        for (EdVariant v : {EdVariant::Diffusion, EdVariant::Collection, EdVariant::DiffusionRegisters,
                            EdVariant::CollectionRegisters}) {
            Plane8 out;
            QVERIFY(errorDiffuse(src, out, p, v).isOk());
            if (out.data != ref.data)
                QFAIL(qPrintable(QString("variant %1 differs at %2x%3").arg(int(v)).arg(w).arg(h)));
        }
    }
}

void TestErrorDiffusion::registryRunsSameBits() {
    Registry& r = Registry::instance();
    const Plane8 src = test::randomPlane(61, 37, test::freshSeed("registry"));
    EdParams p;
    p.kernel = "stucki";
    p.levels = 3;
    const Plane8 ref = referenceErrorDiffusion(src, p);
    for (const char* method : {"ed", "ec"})
        for (const char* variant : {"plain", "rc"}) {
            const MethodInfo* m = r.find(method, variant);
            QVERIFY(m);
            QCOMPARE(QString::fromStdString(m->devicesString()).startsWith("cpu"), true);
            RunRequest req;
            req.method = m;
            req.device = Device::Cpu;
            req.params.set("kernel", std::string("stucki"));
            req.params.set("levels", int64_t(3));
            RunResult res;
            QVERIFY(runImage(Image::gray(src), req, res).isOk());
            QCOMPARE(res.image.channels.at(0).data, ref.data);
        }
}

void TestErrorDiffusion::cancellationStops() {
    const Plane8 src = test::randomPlane(300, 300, test::freshSeed("cancel"));
    RunControl rc;
    int calls = 0;
    rc.onProgress = [&](const Progress&) {
        if (++calls == 1) rc.stop.requestStop();
    };
    Plane8 out;
    const Status s = errorDiffuse(src, out, EdParams{}, EdVariant::CollectionRegisters, rc);
    QVERIFY(s.isCancelled());
    QCOMPARE(calls, 1);
}

void TestErrorDiffusion::badParameters() {
    Plane8 src(3, 3, 10), out;
    EdParams p;
    p.kernel = "nope";
    Status s = errorDiffuse(src, out, p, EdVariant::Collection);
    QVERIFY(!s.isOk());
    QVERIFY(QString::fromStdString(s.message()).contains("unknown kernel 'nope'"));
    p.kernel = "jarvis";
    p.levels = 1;
    s = errorDiffuse(src, out, p, EdVariant::Collection);
    QVERIFY(QString::fromStdString(s.message()).contains("between 2 and 256"));
    const MethodInfo* m = Registry::instance().find("ec", "rc");
    ParamValues v;
    v.set("levels", int64_t(999));
    QVERIFY(!Registry::instance().resolveParams(*m, v).isOk());
}

void TestErrorDiffusion::gpuFailureFallsBackToCpu() {
    // A GPU path that fails as "unavailable" (out of memory, a kernel error) must not lose the job:
    // runImage reruns the plane on the CPU and says why. Checked with a stand-in GPU function so it
    // runs on machines without a GPU; the real CUDA paths return the same status (gpu/cudacheck.h).
    Registry& r = Registry::instance();
    const GpuAvailability saved = r.gpuAvailability();
    MethodInfo m = *r.find("ec", "rc");
    m.variant = "fault-test";
    int gpuCalls = 0;
    m.gpu = [&](const Plane8&, Plane8&, const ParamValues&, const RunControl&) {
        ++gpuCalls;
        return Status::unavailable("out of memory allocating 17179869184 bytes (injected)");
    };
    r.add(m);
    GpuAvailability fake;
    fake.usable = true;
    fake.reason.clear();
    r.setGpuAvailability(fake);
    const Plane8 src = test::randomPlane(45, 29, test::freshSeed("gpu fallback"));
    RunRequest req;
    req.method = r.find("ec", "fault-test");
    req.device = Device::Gpu;
    req.color = ColorMode::RGB;
    RunResult res;
    const Status s = runImage(Image::gray(src), req, res);
    r.setGpuAvailability(saved);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(res.device, Device::Cpu);
    QVERIFY(QString::fromStdString(res.note).contains("out of memory"));
    QCOMPARE(gpuCalls, 1);  // after the first failure the remaining channels go straight to the CPU
    const Plane8 ref = referenceErrorDiffusion(src, EdParams{});
    for (const Plane8& ch : res.image.channels) QCOMPARE(ch.data, ref.data);
    // A GPU error that is not "unavailable" (a real bug) is reported, not hidden.
    MethodInfo* mm = r.findMutable("ec", "fault-test");
    mm->gpu = [](const Plane8&, Plane8&, const ParamValues&, const RunControl&) {
        return Status::error("kernel produced garbage");
    };
    r.setGpuAvailability(fake);
    const Status e = runImage(Image::gray(src), req, res);
    r.setGpuAvailability(saved);
    QVERIFY(!e.isOk());
    QVERIFY(QString::fromStdString(e.message()).contains("garbage"));
}

QTEST_GUILESS_MAIN(TestErrorDiffusion)
#include "test_errordiffusion.moc"
