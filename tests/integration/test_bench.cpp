// halftone-bench as a process: it lists every registered method, runs picked methods by their registry names in
// every section on tiny images, refuses bad usage with exit status 2, and speaks product vocabulary. No timings
// are checked.
#include <QtTest>

#include <QRegularExpression>

#include "core/job/registry.h"
#include "tests/common/process.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

using Run = test::ProcessRun;

Run runBench(const QStringList& args, int timeoutMs = 300000) {
    return test::runProcess(HALFTONE_BENCH_PATH, args, timeoutMs);
}

/// Words a user cannot follow: lab-notebook names for papers and work periods.
const QRegularExpression kNotebookWords(QStringLiteral("(session|issue) [0-9]+|seed 00[0-4]|\\bours\\b"),
                                        QRegularExpression::CaseInsensitiveOption);

/// Small, quick settings for every run (no reference tools: they are optional on a build machine).
QStringList tiny(QStringList args) {
    return args << "--runs"
                << "1"
                << "--no-pamditherbw"
                << "--no-convert"
                << "--workdir" << QDir::tempPath();
}

}  // namespace

class TestBench : public QObject {
    Q_OBJECT
private slots:
    void listHasEveryCpuMethod();
    void pickedMethodRuns_data();
    void pickedMethodRuns();
    void parallelSection();
    void parallelSectionWithLevels();
    void parameterSomeMethodsCannotTake();
    void dbsSection();
    void gpuSectionWithoutGpuSucceeds();
    void paletteSection();
    void qualitySection();
    void qualitySectionMissingImage();
    void badUsage_data();
    void badUsage();
    void productVocabulary_data();
    void productVocabulary();
};

void TestBench::listHasEveryCpuMethod() {
    const Run r = runBench({"--list"});
    QCOMPARE(r.exitCode, 0);
    const QStringList lines = r.out.split('\n');
    int cpuMethods = 0;
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (!m.cpu) continue;
        ++cpuMethods;
        const QString id = QString::fromStdString(m.id());
        bool found = false;
        for (const QString& line : lines) {
            const QStringList cols = line.split(' ', Qt::SkipEmptyParts);
            if (cols.size() >= 2 && cols[0] == id) {
                found = true;
                QVERIFY2(cols[1].split(',').contains("cpu"), qPrintable(line));
            }
        }
        QVERIFY2(found, qPrintable(id + " missing from --list:\n" + r.out));
    }
    QVERIFY(cpuMethods >= 5);
}

void TestBench::pickedMethodRuns_data() {
    QTest::addColumn<QString>("id");
    for (const MethodInfo& m : Registry::instance().methods())
        if (m.cpu) QTest::newRow(m.id().c_str()) << QString::fromStdString(m.id());
}

void TestBench::pickedMethodRuns() {
    QFETCH(QString, id);
    const Run r = runBench(tiny({"--sections", "sizes", "--methods", id, "--sizes", "64,33"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    // one line per size, named by the registry id, and the method's row in the table
    QRegularExpression line(QStringLiteral("^\\s*64 x 64\\s+%1\\s").arg(QRegularExpression::escape(id)),
                            QRegularExpression::MultilineOption);
    QVERIFY2(line.match(r.out).hasMatch(), qPrintable(r.out));
    QVERIFY2(r.out.contains("| " + id + " |"), qPrintable(r.out));
    QVERIFY2(!r.out.contains("exact NO"), qPrintable(r.out));
}

void TestBench::parallelSection() {
    const Run r = runBench(tiny({"--sections", "parallel", "--methods", "ec/rc,ec/wavefront", "--parallel-size", "96",
                                 "--big", "128", "--threads", "2"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("in memory  ec/wavefront "), qPrintable(r.out));
    QVERIFY2(r.out.contains("ec/wavefront threads=1"), qPrintable(r.out));  // the one-thread row of a threaded method
    QVERIFY2(r.out.contains(QRegularExpression("file in/out  ec/rc .*file exact yes")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression("128 x 128\\s+ec/wavefront .*peak RSS [0-9]+ MiB.*: yes")),
             qPrintable(r.out));
    QVERIFY2(!r.out.contains(" NO"), qPrintable(r.out));
}

void TestBench::parallelSectionWithLevels() {
    // four output levels: the file run writes a PGM (a PBM holds two) and reads back the method's exact values
    const Run r = runBench(tiny({"--sections", "parallel", "--methods", "ec/rc,ec/wavefront", "--parallel-size", "80",
                                 "--big", "0", "--param", "levels=4", "--kernel", "jarvis"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QRegularExpression("file in/out  ec/rc .*file exact yes")), qPrintable(r.out));
    QVERIFY2(!r.out.contains(" NO"), qPrintable(r.out));
}

void TestBench::parameterSomeMethodsCannotTake() {
    // --kernel jarvis suits the CPU methods; a GPU method that has only Floyd-Steinberg is skipped with a note
    const Run r = runBench(tiny({"--sections", "sizes", "--sizes", "40", "--kernel", "jarvis", "--device", "all"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QRegularExpression("40 x 40\\s+ec/wavefront .*exact yes")), qPrintable(r.out));
}

void TestBench::dbsSection() {
    const Run r = runBench(tiny({"--sections", "dbs", "--dbs-size", "40x24", "--device", "cpu"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    for (const MethodInfo& m : Registry::instance().methods())
        if (m.family == "dbs" && m.cpu)
            QVERIFY2(r.out.contains("| " + QString::fromStdString(m.id()) + " "),
                     qPrintable(QString::fromStdString(m.id()) + " missing:\n" + r.out));
}

void TestBench::gpuSectionWithoutGpuSucceeds() {
    // With a usable GPU this times one published method on a tiny image; without one it says why and succeeds.
    // A build without CUDA registers no GPU method at all: then the section runs with no method picked.
    const bool hasGpuMethods = runBench({"--list"}).out.contains("ec/bwec-rc");
    QStringList args{"--sections", "gpu", "--sizes", "64", "--big", "0"};
    if (hasGpuMethods)
        args << "--methods"
             << "ec/bwec-rc";
    const Run r = runBench(tiny(args));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("ec/bwec-rc") || r.out.contains("bwec-rc") || r.out.contains("no usable GPU") ||
                 r.out.contains("no picked method"),
             qPrintable(r.out));
}

void TestBench::badUsage_data() {
    test::columns<QStringList, QString>("args", "message");
    QTest::newRow("unknown method") << QStringList{"--methods", "ed/nonesuch"} << "unknown method 'ed/nonesuch'";
    QTest::newRow("unknown section") << QStringList{"--sections", "nonesuch"} << "unknown section 'nonesuch'";
    QTest::newRow("unknown parameter") << QStringList{"--param", "nonesuch=1"} << "parameter 'nonesuch'";
    QTest::newRow("bad parameter value") << QStringList{"--param", "levels=many"} << "levels";
    QTest::newRow("parameter out of range") << QStringList{"--param", "levels=9999"} << "levels";
    QTest::newRow("parameter without value") << QStringList{"--param", "levels"} << "KEY=VALUE";
    QTest::newRow("unknown device") << QStringList{"--device", "tpu"} << "unknown --device 'tpu'";
    QTest::newRow("bad sizes") << QStringList{"--sizes", "12,abc"} << "--sizes";
    QTest::newRow("unknown baseline") << QStringList{"--baseline", "ed/nonesuch"} << "unknown --baseline";
    QTest::newRow("bad dbs size") << QStringList{"--dbs-size", "40"} << "--dbs-size";
}

void TestBench::badUsage() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = runBench(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(!r.out.contains("=="), qPrintable(r.out));  // no section started
}

void TestBench::paletteSection() {
    // every method with a palette form is timed and checked bit for bit; the search table covers 2..256 colours
    const Run r = runBench(tiny({"--sections", "palette", "--palette-size", "53x29"}));
    QCOMPARE(r.exitCode, 0);
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (!m.paletteCpu || !m.exact) continue;
        const QRegularExpression line(
            "^" + QRegularExpression::escape(QString::fromStdString(m.id())) + "\\s+[0-9.]+ ms .* exact yes$",
            QRegularExpression::MultilineOption);
        QVERIFY2(line.match(r.out).hasMatch(), qPrintable(QString::fromStdString(m.id()) + " missing:\n" + r.out));
    }
    QVERIFY2(!r.out.contains("exact NO"), qPrintable(r.out));
    QVERIFY2(r.out.contains("| 256 |"), qPrintable(r.out));
    QVERIFY2(r.out.contains("not installed or disabled"), qPrintable(r.out));  // --no-convert says so
}

void TestBench::qualitySection() {
    // The settings come from the registry: each kernel (here fixed by --kernel), both scan orders, every preset screen;
    // the exact variants that give one image share a row.
    const QString page = QString::fromStdString(test::dataPath("page.png"));
    const Run r = runBench(tiny({"--sections", "quality", "--methods", "ed/rc,ec/rc,ordered/screen", "--kernel",
                                 "floyd-steinberg", "--quality-images", page}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("| ed, ec (2 exact variants) | raster |"), qPrintable(r.out));
    QVERIFY2(r.out.contains("| ed, ec (2 exact variants) | serpentine |"), qPrintable(r.out));
    const MethodInfo* ordered = Registry::instance().find("ordered", "screen");
    QVERIFY(ordered && ordered->param("screen"));
    for (const auto& [value, label] : ordered->param("screen")->presets)
        QVERIFY2(r.out.contains("| ordered/screen | " + QString::fromStdString(label) + " |"),
                 qPrintable(QString::fromStdString(label) + " missing:\n" + r.out));
    QVERIFY2(r.out.contains("page.png (384 x 191)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("### Best of each measure"), qPrintable(r.out));
    QVERIFY2(!r.out.contains("not measured"), qPrintable(r.out));
    const QRegularExpressionMatch m = kNotebookWords.match(r.out + r.err);
    QVERIFY2(!m.hasMatch(), qPrintable(m.captured(0)));
}

void TestBench::qualitySectionMissingImage() {
    const QString missing = QDir::temp().filePath("halftone-bench-no-such-image.png");
    const Run r = runBench(tiny({"--sections", "quality", "--methods", "ed/rc", "--quality-images", missing}));
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(missing), qPrintable(r.err));
}

void TestBench::productVocabulary_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("help") << QStringList{"--help"};
    QTest::newRow("list") << QStringList{"--list"};
    QTest::newRow("sizes") << tiny({"--sections", "sizes", "--sizes", "48"});
    QTest::newRow("parallel") << tiny({"--sections", "parallel", "--parallel-size", "48", "--big", "0"});
    QTest::newRow("palette") << tiny({"--sections", "palette", "--palette-size", "48x40"});
}

void TestBench::productVocabulary() {
    QFETCH(QStringList, args);
    const Run r = runBench(args);
    QCOMPARE(r.exitCode, 0);
    const QRegularExpressionMatch m = kNotebookWords.match(r.out + r.err);
    QVERIFY2(!m.hasMatch(), qPrintable("'" + m.captured(0) + "' in the output of " + args.join(' ')));
}

QTEST_GUILESS_MAIN(TestBench)
#include "test_bench.moc"
