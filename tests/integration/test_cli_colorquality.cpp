// `halftone` as a process with colour methods: MBVQ writes an RGB image of the eight corner colours without
// --palette, and `halftone analyze` reports the filtered Delta E 2000 for colour images (0 for a copy) and leaves it
// out for gray ones.
#include <QtTest>

#include <QTemporaryDir>

#include <set>

#include "core/quality/metrics.h"
#include "io/imagefile.h"
#include "tests/common/process.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

test::ProcessRun runCli(const QStringList& args) { return test::runProcess(HALFTONE_CLI_PATH, args); }

QString chelsea() { return QString::fromStdString(test::dataPath("chelsea.png")); }

/// The number after "Delta E 2000, filtered" in analyze's output, or NaN.
double deltaE(const QString& out) {
    for (const QString& line : out.split('\n'))
        if (line.startsWith("Delta E 2000, filtered"))
            return line.mid(int(strlen("Delta E 2000, filtered"))).trimmed().section(' ', 0, 0).toDouble();
    return qQNaN();
}

}  // namespace

class TestCliColorQuality : public QObject {
    Q_OBJECT
private slots:
    void mbvqWritesEightColours();
    void analyzeDeltaE();
};

void TestCliColorQuality::mbvqWritesEightColours() {
    QTemporaryDir dir;
    const QString out = dir.filePath("mbvq.png");
    const auto r = runCli({"--method", "ed", "--variant", "mbvq", "--linear", chelsea(), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Image im;
    QVERIFY(io::readImage(out.toStdString(), im).isOk());
    QCOMPARE(im.space, ColorSpace::RGB);
    std::set<std::array<int, 3>> colours;
    for (size_t i = 0; i < im.channels[0].size(); ++i)
        colours.insert({im.channels[0].data[i], im.channels[1].data[i], im.channels[2].data[i]});
    for (const auto& c : colours)
        for (int v : c) QVERIFY(v == 0 || v == 255);
    QVERIFY(colours.size() >= 6);  // a colour photograph uses most corners
}

void TestCliColorQuality::analyzeDeltaE() {
    QTemporaryDir dir;
    auto copy = runCli({"analyze", chelsea(), chelsea()});
    QVERIFY2(copy.exitCode == 0, qPrintable(copy.err));
    QCOMPARE(deltaE(copy.out), 0.0);
    const QString mbvq = dir.filePath("mbvq.png"), gray = dir.filePath("gray.png");
    QCOMPARE(runCli({"--method", "ed", "--variant", "mbvq", "--linear", chelsea(), mbvq}).exitCode, 0);
    const auto a = runCli({"analyze", chelsea(), mbvq});
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));
    // The printed value is the library's, to three decimals.
    Image orig, ht;
    QVERIFY(io::readImage(chelsea().toStdString(), orig).isOk());
    QVERIFY(io::readImage(mbvq.toStdString(), ht).isOk());
    const double expected = filteredDeltaE2000(orig, ht);
    QVERIFY2(std::abs(deltaE(a.out) - expected) < 0.0006, qPrintable(a.out));
    QVERIFY(expected > 1 && expected < 15);
    // Gray against gray: no colour line.
    QCOMPARE(runCli({chelsea(), gray}).exitCode, 0);
    const auto g = runCli({"analyze", gray, gray});
    QCOMPARE(g.exitCode, 0);
    QVERIFY(!g.out.contains("Delta E"));
}

QTEST_GUILESS_MAIN(TestCliColorQuality)
#include "test_cli_colorquality.moc"
