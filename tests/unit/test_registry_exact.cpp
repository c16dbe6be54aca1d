// Every exact error-diffusion method in the registry (whoever added it: sequential, parallel CPU,
// GPU) against the SPEC reference, bit for bit: fresh random images of awkward sizes and the real
// test images, over kernels x levels x gamma/linear x scan x thread counts.
#include <QtTest>

#include "core/ed/errordiffusion.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

std::vector<const MethodInfo*> exactMethods() {
    std::vector<const MethodInfo*> out;
    for (const MethodInfo& m : Registry::instance().methods())
        if (m.exact && m.family == "error-diffusion") out.push_back(&m);
    return out;
}

/// Runs `m` on `device` with the given ED params (and threads when the method takes them). `inPlace`: when the
/// method claims it can (MethodInfo::cpuInPlace), the CPU path runs on a copy of `src` that is its own output;
/// `ran` tells whether it did.
Status runPlane(const MethodInfo& m, Device device, const Plane8& src, const EdParams& p, int threads, Plane8& out,
                bool inPlace = false, bool* ran = nullptr) {
    ParamValues v;
    if (m.param("kernel")) v.set("kernel", p.kernel);
    if (m.param("levels")) v.set("levels", int64_t(p.levels));
    if (m.param("linear")) v.set("linear", p.linear);
    if (m.param("serpentine")) v.set("serpentine", p.serpentine);
    if (m.param("threads")) v.set("threads", int64_t(threads));
    if (Status s = Registry::instance().resolveParams(m, v); !s) return s;
    RunControl rc;
    rc.threads = threads;
    const PlaneFunction& f = device == Device::Gpu ? m.gpu : m.cpu;
    if (ran) *ran = false;
    if (inPlace) {
        if (device != Device::Cpu || !m.cpuInPlace || !m.cpuInPlace(v)) return Status::ok();
        if (ran) *ran = true;
        out = src;
        return f(out, out, v, rc);
    }
    return f(src, out, v, rc);
}

/// Which parameter combinations a method supports: methods without a kernel choice are FS-only,
/// methods without levels are binary-only, and so on.
bool supports(const MethodInfo& m, const EdParams& p) {
    if (!m.param("kernel") && p.kernel != "floyd-steinberg") return false;
    if (const ParamSpec* k = m.param("kernel"))
        if (std::find(k->choices.begin(), k->choices.end(), p.kernel) == k->choices.end()) return false;
    if (!m.param("levels") && p.levels != 2) return false;
    if (const ParamSpec* l = m.param("levels"))
        if (p.levels < l->min || p.levels > l->max) return false;
    if (!m.param("linear") && p.linear) return false;
    if (!m.param("serpentine") && p.serpentine) return false;
    return true;
}

}  // namespace

class TestRegistryExact : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void randomAwkwardSizes_data();
    void randomAwkwardSizes();
    void realImages_data();
    void realImages();
    void defaultVariants();
    void gpuProbedOnFirstUse();
    void grayRunUsesInputPlanes();
    void consumedInputBecomesTheOutput();
    void ownReferences_data();
    void ownReferences();
};

void TestRegistryExact::initTestCase() {
    gpu::registerMethods(Registry::instance());
    const auto methods = exactMethods();
    QVERIFY2(methods.size() >= 4, "the four sequential variants must be registered");
    QString names;
    for (const MethodInfo* m : methods) names += QString::fromStdString(m->id() + "[" + m->devicesString() + "] ");
    qInfo("exact methods under test: %s", qPrintable(names));
    const GpuAvailability& g = Registry::instance().gpuAvailability();
    if (!g.usable) qInfo("GPU paths skipped: %s", g.reason.c_str());
}

void TestRegistryExact::randomAwkwardSizes_data() {
    test::columns<QString, int>("id", "device");
    const bool gpu = Registry::instance().gpuAvailability().usable;
    for (const MethodInfo* m : exactMethods()) {
        if (m->cpu)
            QTest::newRow(qPrintable(QString::fromStdString(m->id() + " cpu"))) << QString::fromStdString(m->id()) << 0;
        if (m->gpu && gpu)
            QTest::newRow(qPrintable(QString::fromStdString(m->id() + " gpu"))) << QString::fromStdString(m->id()) << 1;
    }
}

void TestRegistryExact::randomAwkwardSizes() {
    QFETCH(QString, id);
    QFETCH(int, device);
    const auto slash = id.indexOf('/');
    const MethodInfo* m = Registry::instance().find(id.left(slash).toStdString(), id.mid(slash + 1).toStdString());
    QVERIFY(m);
    const std::pair<int, int> sizes[] = {{1, 1}, {97, 1}, {1, 97}, {7, 13}, {31, 33}, {33, 31}, {257, 129}, {67, 211}};
    int compared = 0;
    for (const Kernel& k : kernels())
        for (int levels : {2, 4, 256})
            for (bool linear : {false, true})
                for (bool serp : {false, true}) {
                    EdParams p;
                    p.kernel = k.name;
                    p.levels = levels;
                    p.linear = linear;
                    p.serpentine = serp;
                    if (!supports(*m, p)) continue;
                    // level-dependent kernels: the CPU variants so far
                    if (k.levelDependent() && device) continue;
                    // Full size sweep for Floyd-Steinberg binary; two sizes for the other combinations.
                    const bool full = k.name == "floyd-steinberg" && levels == 2;
                    for (size_t si = 0; si < std::size(sizes); ++si) {
                        if (!full && si != 4 && si != 6) continue;
                        const auto [w, h] = sizes[si];
                        const Plane8 src = test::randomPlane(w, h, test::freshSeed("registry exact"));
                        const Plane8 ref = referenceErrorDiffusion(src, p);
                        for (int threads : {1, 2, 3, 8}) {
                            if (!m->param("threads") && threads != 1) continue;
                            const QString where = QString("%1x%2 kernel %3 L%4 %5 %6 threads %7")
                                                      .arg(w)
                                                      .arg(h)
                                                      .arg(QString::fromStdString(k.name))
                                                      .arg(levels)
                                                      .arg(linear ? "linear" : "gamma")
                                                      .arg(serp ? "serpentine" : "raster")
                                                      .arg(threads);
                            Plane8 out;
                            const Status s = runPlane(*m, device ? Device::Gpu : Device::Cpu, src, p, threads, out);
                            if (!s)
                                QFAIL(qPrintable(QString("%1 %2x%3 %4 L%5: %6")
                                                     .arg(id)
                                                     .arg(w)
                                                     .arg(h)
                                                     .arg(QString::fromStdString(k.name))
                                                     .arg(levels)
                                                     .arg(QString::fromStdString(s.message()))));
                            if (out.data != ref.data)
                                QFAIL(qPrintable(QString("%1 differs from the reference: %2").arg(id, where)));
                            ++compared;
                            // A method that claims to run in place gives the same bits with dst the input plane.
                            bool ran = false;
                            Plane8 same;
                            QVERIFY(runPlane(*m, device ? Device::Gpu : Device::Cpu, src, p, threads, same, true, &ran)
                                        .isOk());
                            if (ran && same.data != ref.data)
                                QFAIL(qPrintable(QString("%1 in place differs from the reference: %2").arg(id, where)));
                        }
                    }
                }
    QVERIFY2(compared > 0, "method supports no tested combination");
}

void TestRegistryExact::realImages_data() {
    QTest::addColumn<QString>("file");
    const QDir dir(QStringLiteral(HALFTONE_TEST_DATA_DIR));
    const QStringList files = dir.entryList({"*.png", "*.jpg"}, QDir::Files);
    for (const QString& f : files) QTest::newRow(qPrintable(f)) << dir.filePath(f);
}

void TestRegistryExact::realImages() {
    QFETCH(QString, file);
    Image img;
    QVERIFY2(io::readImage(file.toStdString(), img).isOk(), qPrintable(file));
    const Image rgb = convertColor(img, ColorMode::RGB);
    const bool gpu = Registry::instance().gpuAvailability().usable;
    for (const MethodInfo* m : exactMethods())
        for (const char* kernel : {"floyd-steinberg", "jarvis"})
            for (int levels : {2, 4}) {
                EdParams p;
                p.kernel = kernel;
                p.levels = levels;
                if (!supports(*m, p)) continue;
                for (const Plane8& ch : rgb.channels) {
                    const Plane8 ref = referenceErrorDiffusion(ch, p);
                    for (int device : {0, 1}) {
                        if (device == 1 && !(m->gpu && gpu)) continue;
                        if (device == 0 && !m->cpu) continue;
                        Plane8 out;
                        QVERIFY(runPlane(*m, device ? Device::Gpu : Device::Cpu, ch, p, 2, out).isOk());
                        if (out.data != ref.data)
                            QFAIL(qPrintable(QString("%1 on %2 (%3 L%4) differs from the reference")
                                                 .arg(QString::fromStdString(m->id()), file, kernel)
                                                 .arg(levels)));
                    }
                }
            }
}

void TestRegistryExact::defaultVariants() {
    // The registry names one default variant per method, used by the studio and the CLI alike: it exists, runs on
    // the CPU (every build has one), and for error diffusion and collection it is exact (the same image as the
    // SPEC reference, so "ed" means Floyd-Steinberg whichever variant runs).
    const Registry& r = Registry::instance();
    for (const std::string& method : r.methodNames()) {
        const std::string v = r.defaultVariant(method);
        const MethodInfo* m = r.find(method, v);
        QVERIFY2(m, (method + "/" + v).c_str());
        QVERIFY2(m->cpu, m->id().c_str());
        if (method == "ed" || method == "ec") QVERIFY2(m->exact, m->id().c_str());
        QVERIFY2(!r.displayName(method).empty(), method.c_str());
    }
    // Unknown methods have no default; an unset default is the first variant registered.
    QVERIFY(r.defaultVariant("no-such-method").empty());
    QCOMPARE(r.defaultVariant("ordered"), r.variants("ordered").front());
}

void TestRegistryExact::gpuProbedOnFirstUse() {
    // The probe (creating a CUDA context on a GPU machine) runs on the first question, once; a state set
    // afterwards replaces it.
    Registry& r = Registry::instance();
    const GpuAvailability saved = r.gpuAvailability();
    int calls = 0;
    r.setGpuProbe([&calls] {
        ++calls;
        GpuAvailability a;
        a.usable = false;
        a.reason = "probed";
        return a;
    });
    QCOMPARE(calls, 0);
    QCOMPARE(QString::fromStdString(r.gpuAvailability().reason), QStringLiteral("probed"));
    QCOMPARE(QString::fromStdString(r.gpuAvailability().reason), QStringLiteral("probed"));
    QCOMPARE(calls, 1);
    // A CPU run never asks.
    r.setGpuProbe([&calls] {
        ++calls;
        return GpuAvailability{};
    });
    RunRequest req;
    req.method = r.find("ed", "rc");
    QVERIFY(req.method);
    req.device = Device::Cpu;
    RunResult res;
    QVERIFY(runImage(Image::gray(test::randomPlane(8, 5, test::freshSeed("probe"))), req, res).isOk());
    QCOMPARE(calls, 1);
    r.setGpuAvailability(saved);
    QCOMPARE(calls, 1);
}

void TestRegistryExact::grayRunUsesInputPlanes() {
    // No colour conversion is needed: the identity is recognised (runImage then runs on the input's planes), and
    // the result equals the reference on the same plane.
    const Image gray = Image::gray(test::randomPlane(33, 17, test::freshSeed("identity")));
    QVERIFY(isColorIdentity(gray, ColorMode::Gray, SeparationParams{}));
    QVERIFY(!isColorIdentity(gray, ColorMode::RGB, SeparationParams{}));
    const Image rgb = convertColor(gray, ColorMode::RGB);
    QVERIFY(isColorIdentity(rgb, ColorMode::RGB, SeparationParams{}));
    QVERIFY(!isColorIdentity(rgb, ColorMode::Gray, SeparationParams{}));
    const Image cmyk = convertColor(rgb, ColorMode::CMYK);
    QVERIFY(isColorIdentity(cmyk, ColorMode::CMYK, SeparationParams{}));
    SeparationParams limited;
    limited.inkLimit = 250;
    QVERIFY(!isColorIdentity(cmyk, ColorMode::CMYK, limited));
    RunRequest req;
    req.method = Registry::instance().find("ed", "rc");
    req.device = Device::Cpu;
    RunResult res;
    QVERIFY(runImage(gray, req, res).isOk());
    QCOMPARE(res.image.channelCount(), 1);
    QVERIFY(res.image.channels[0] == referenceErrorDiffusion(gray.channels[0], EdParams{}));
}

void TestRegistryExact::consumedInputBecomesTheOutput() {
    // runImage(Image&&) halftones in place where the method can: the output plane is the input's buffer (no second
    // plane allocated), with the same bits; a method that cannot, or a colour conversion, still gives the right image.
    const Plane8 src = test::randomPlane(131, 67, test::freshSeed("in place"));
    const Plane8 ref = referenceErrorDiffusion(src, EdParams{});
    for (const char* variant : {"plain", "rc", "wavefront", "trapezoid"}) {
        RunRequest req;
        req.method = Registry::instance().find("ec", variant);
        QVERIFY(req.method);
        QVERIFY(req.method->cpuInPlace);
        req.device = Device::Cpu;
        Image in = Image::gray(src);
        const uint8_t* buffer = in.channels[0].data.data();
        RunResult res;
        QVERIFY(runImage(std::move(in), req, res).isOk());
        QCOMPARE(res.image.channelCount(), 1);
        QVERIFY2(res.image.channels[0] == ref, variant);
        QCOMPARE(static_cast<const void*>(res.image.channels[0].data.data()), static_cast<const void*>(buffer));
    }
    // RGB input to a gray halftone: converted first, the input is not a plane of the output.
    RunRequest req;
    req.method = Registry::instance().find("ec", "rc");
    req.device = Device::Cpu;
    Image rgb = convertColor(Image::gray(src), ColorMode::RGB);
    RunResult res;
    QVERIFY(runImage(std::move(rgb), req, res).isOk());
    QVERIFY(res.image.channels[0] == ref);
    // A method without an in-place form (ordered dither) runs as before.
    req.method = Registry::instance().find("ordered", Registry::instance().defaultVariant("ordered"));
    QVERIFY(req.method);
    QVERIFY(!req.method->cpuInPlace);
    RunResult copy, consumed;
    QVERIFY(runImage(Image::gray(src), req, copy).isOk());
    Image again = Image::gray(src);
    QVERIFY(runImage(std::move(again), req, consumed).isOk());
    QVERIFY(copy.image.channels[0] == consumed.image.channels[0]);
}

void TestRegistryExact::ownReferences_data() {
    // Exact methods outside section 1's error diffusion (dot diffusion, ...) bring their own sequential reference.
    test::columns<QString, int>("id", "device");
    const bool gpu = Registry::instance().gpuAvailability().usable;
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (!m.exact || !m.reference) continue;
        if (m.cpu)
            QTest::newRow(qPrintable(QString::fromStdString(m.id() + " cpu"))) << QString::fromStdString(m.id()) << 0;
        if (m.gpu && gpu)
            QTest::newRow(qPrintable(QString::fromStdString(m.id() + " gpu"))) << QString::fromStdString(m.id()) << 1;
    }
}

void TestRegistryExact::ownReferences() {
    QFETCH(QString, id);
    QFETCH(int, device);
    const auto slash = id.indexOf('/');
    const MethodInfo* m = Registry::instance().find(id.left(slash).toStdString(), id.mid(slash + 1).toStdString());
    QVERIFY(m);
    const std::pair<int, int> sizes[] = {{1, 1}, {97, 1}, {1, 97}, {7, 13}, {33, 17}, {31, 33}, {257, 129}};
    int compared = 0;
    for (int levels : {2, 4, 256})
        for (bool linear : {false, true}) {
            if ((levels != 2 && !m->param("levels")) || (linear && !m->param("linear"))) continue;
            for (const auto& [w, h] : sizes) {
                const Plane8 src = test::randomPlane(w, h, test::freshSeed("registry own reference"));
                ParamValues v;
                if (m->param("levels")) v.set("levels", int64_t(levels));
                if (m->param("linear")) v.set("linear", linear);
                QVERIFY(Registry::instance().resolveParams(*m, v).isOk());
                Plane8 ref;
                QVERIFY(m->reference(src, ref, v, {}).isOk());
                for (int threads : {1, 2, 3, 8}) {
                    if (!m->param("threads") && threads != 1) continue;
                    ParamValues t = v;
                    if (m->param("threads")) t.set("threads", int64_t(threads));
                    RunControl rc;
                    rc.threads = threads;
                    Plane8 out;
                    const PlaneFunction& f = device ? m->gpu : m->cpu;
                    QVERIFY(f(src, out, t, rc).isOk());
                    if (out.data != ref.data)
                        QFAIL(qPrintable(QString("%1 differs from its reference: %2x%3 L%4 %5 threads %6")
                                             .arg(id)
                                             .arg(w)
                                             .arg(h)
                                             .arg(levels)
                                             .arg(linear ? "linear" : "gamma")
                                             .arg(threads)));
                    ++compared;
                }
            }
        }
    QVERIFY(compared > 0);
}

QTEST_GUILESS_MAIN(TestRegistryExact)
#include "test_registry_exact.moc"
