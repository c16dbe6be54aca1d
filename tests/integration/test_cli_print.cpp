// The `halftone` CLI for print: `--color cmyk` with --gcr and --ink-limit, the AM screen's options, and the CMYK
// TIFF it writes (four inks, photometric "separated"), read back with OpenImageIO.
#include <QTemporaryDir>
#include <QtTest>

#include <OpenImageIO/imageio.h>

#include "core/job/registry.h"
#include "io/imagefile.h"
#include "tests/common/process.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

test::ProcessRun runCli(const QStringList& args) { return test::runProcess(HALFTONE_CLI_PATH, args); }

int64_t inked(const Plane8& p) {
    int64_t n = 0;
    for (uint8_t v : p.data) n += v == 255;
    return n;
}

}  // namespace

class TestCliPrint : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cmykAmWritesSeparatedTiff();
    void gcrMovesInkToBlack();
    void inkLimitReachesTheSeparation();
    void cmykInputKeepsItsInks();
    void errors_data();
    void errors();
    void helpListsTheOptions();

private:
    std::unique_ptr<QTemporaryDir> dir_;
    std::string path(const std::string& name) const {
        return dir_->filePath(QString::fromStdString(name)).toStdString();
    }
    QString input() const { return QString::fromStdString(test::dataPath("chelsea.png")); }
};

void TestCliPrint::init() {
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
}

void TestCliPrint::cmykAmWritesSeparatedTiff() {
    const std::string out = path("o.tif");
    const test::ProcessRun r =
        runCli({"--method", "am", "--color", "cmyk", "--lpi", "85", "--dpi", "1200", "--angles", "15,75,0,45", "--dot",
                "elliptic", "--gcr", "60", "--ink-limit", "280", input(), QString::fromStdString(out)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));

    // As stored (OpenImageIO's raw colour: no conversion to RGB): four 8-bit samples, photometric separated (5),
    // InkSet CMYK (1).
    OIIO::ImageSpec config;
    config.attribute("oiio:RawColor", 1);
    auto in = OIIO::ImageInput::open(out, &config);
    QVERIFY(in);
    const OIIO::ImageSpec spec = in->spec();
    QCOMPARE(spec.nchannels, 4);
    QCOMPARE(spec.format, OIIO::TypeDesc(OIIO::TypeDesc::UINT8));
    QCOMPARE(spec.get_int_attribute("tiff:PhotometricInterpretation", -1), 5);
    QCOMPARE(spec.get_string_attribute("tiff:ColorSpace"), std::string("CMYK"));
    std::vector<uint8_t> raw(size_t(in->spec().width) * size_t(in->spec().height) * 4);
    QVERIFY(in->read_image(0, 0, 0, 4, OIIO::TypeDesc::UINT8, raw.data()));
    in->close();

    // The same run in-process: the file holds exactly its four binary planes, one per ink.
    Image src;
    QVERIFY(io::readImage(test::dataPath("chelsea.png"), src).isOk());
    RunRequest req;
    req.method = Registry::instance().find("am", "clustered");
    req.color = ColorMode::CMYK;
    req.separation = {60, 280};
    req.params.set("lpi", 85.0);
    req.params.set("dpi", 1200.0);
    req.params.set("angles", std::string("15,75,0,45"));
    req.params.set("dot", std::string("elliptic"));
    RunResult res;
    QVERIFY(runImage(src, req, res).isOk());
    QCOMPARE(spec.width, res.image.width());
    QCOMPARE(spec.height, res.image.height());
    for (size_t c = 0; c < 4; ++c) {
        const Plane8& plane = res.image.channels[c];
        QVERIFY(inked(plane) > 0);
        for (size_t i = 0; i < plane.size(); ++i)
            if (raw[i * 4 + c] != plane.data[i]) QFAIL(qPrintable(QString("ink %1 differs at pixel %2").arg(c).arg(i)));
    }
    // The halftone reader takes it back as CMYK.
    Image back;
    QVERIFY(io::readImage(out, back).isOk());
    QCOMPARE(back.space, ColorSpace::CMYK);
    QVERIFY(back.channels == res.image.channels);
}

void TestCliPrint::gcrMovesInkToBlack() {
    int64_t previousK = -1, previousCmy = -1;
    for (int gcr : {0, 50, 100}) {
        const std::string out = path("gcr" + std::to_string(gcr) + ".tif");
        const test::ProcessRun r = runCli(
            {"--method", "am", "--color", "cmyk", "--gcr", QString::number(gcr), input(), QString::fromStdString(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Image im;
        QVERIFY(io::readImage(out, im).isOk());
        QCOMPARE(im.channelCount(), 4);
        const int64_t k = inked(im.channels[3]);
        const int64_t cmy = inked(im.channels[0]) + inked(im.channels[1]) + inked(im.channels[2]);
        if (gcr == 0) QCOMPARE(k, int64_t(0));
        if (previousK >= 0) {
            QVERIFY2(k > previousK, qPrintable(QString("gcr %1").arg(gcr)));
            QVERIFY2(cmy < previousCmy, qPrintable(QString("gcr %1").arg(gcr)));
        }
        previousK = k;
        previousCmy = cmy;
    }
}

void TestCliPrint::inkLimitReachesTheSeparation() {
    // Error diffusion per ink keeps each ink's mean: with --ink-limit 150 and no GCR the four inks together
    // cover at most 150 % of the area (plus the diffusion's rounding at the edges).
    const std::string out = path("limit.tif");
    const test::ProcessRun r = runCli({"--method", "ed", "--color", "cmyk", "--gcr", "0", "--ink-limit", "150", input(),
                                       QString::fromStdString(out)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Image im;
    QVERIFY(io::readImage(out, im).isOk());
    int64_t all = 0;
    for (const Plane8& p : im.channels) all += inked(p);
    const double pixels = double(im.width()) * im.height();
    QVERIFY2(all / pixels <= 1.5 + 0.005, qPrintable(QString::number(all / pixels)));
    const std::string free = path("free.tif");
    QCOMPARE(
        runCli({"--method", "ed", "--color", "cmyk", "--gcr", "0", input(), QString::fromStdString(free)}).exitCode, 0);
    Image unlimited;
    QVERIFY(io::readImage(free, unlimited).isOk());
    int64_t allFree = 0;
    for (const Plane8& p : unlimited.channels) allFree += inked(p);
    QVERIFY(allFree / pixels > 1.6);  // the picture needs more than the limit without it
}

void TestCliPrint::cmykInputKeepsItsInks() {
    // A separated input is not separated again: --gcr is noted as not applying, the ink limit still applies.
    const QString in = QString::fromStdString(test::dataPath("unusual/cmyk.tif"));
    const std::string out = path("o.tif");
    const test::ProcessRun r = runCli(
        {"--method", "am", "--color", "cmyk", "--gcr", "30", "--ink-limit", "200", in, QString::fromStdString(out)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("already separated into inks: --gcr does not apply"), qPrintable(r.err));
    Image src, got;
    QVERIFY(io::readImage(in.toStdString(), src).isOk());
    QVERIFY(io::readImage(out, got).isOk());
    QVERIFY(convertColor(src, ColorMode::CMYK, SeparationParams{100, 200}).channels != src.channels);  // over 200 %
    RunRequest req;
    req.method = Registry::instance().find("am", "clustered");
    req.color = ColorMode::CMYK;
    req.separation = {100, 200};
    RunResult res;
    QVERIFY(runImage(src, req, res).isOk());
    QVERIFY(got.channels == res.image.channels);
}

void TestCliPrint::errors_data() {
    test::columns<QStringList, QString, int, QString>("args", "output", "code", "message");
    QTest::newRow("gcr over 100") << QStringList{"--color", "cmyk", "--gcr", "150"} << "o.tif" << 2
                                  << "--gcr must be a whole number from 0 to 100, got 150";
    QTest::newRow("ink limit over 400") << QStringList{"--color", "cmyk", "--ink-limit", "1000"} << "o.tif" << 2
                                        << "--ink-limit must be a whole number from 0 to 400, got 1000";
    QTest::newRow("gcr without cmyk") << QStringList{"--gcr", "50"} << "o.png" << 2
                                      << "--gcr applies only to --color cmyk";
    QTest::newRow("ink limit with rgb") << QStringList{"--color", "rgb", "--ink-limit", "300"} << "o.png" << 2
                                        << "--ink-limit applies only to --color cmyk";
    QTest::newRow("cmyk am to png") << QStringList{"--method", "am", "--color", "cmyk"} << "o.png" << 2
                                    << "only TIFF output holds CMYK";
    // a malformed --angles is a usage error found before the input is read
    QTest::newRow("bad angles") << QStringList{"--method", "am", "--angles", "15,75"} << "o.png" << 2
                                << "--angles '15,75' must be four angles";
    // a cell too small for the device: a usage error as well, found by the method's check across parameters
    QTest::newRow("cells too small") << QStringList{"--method", "am", "--lpi", "400", "--dpi", "600"} << "o.png" << 2
                                     << "at least 2 pixels wide";
    QTest::newRow("unknown dot") << QStringList{"--method", "am", "--dot", "star"} << "o.png" << 2
                                 << "unknown dot 'star'; choose one of: round, elliptic, square, line";
    QTest::newRow("lpi on ed") << QStringList{"--method", "ed", "--lpi", "80"} << "o.png" << 2
                               << "option --lpi does not apply to method ed";
}

void TestCliPrint::errors() {
    QFETCH(QStringList, args);
    QFETCH(QString, output);
    QFETCH(int, code);
    QFETCH(QString, message);
    const std::string out = path(output.toStdString());
    const test::ProcessRun r = runCli(args << input() << QString::fromStdString(out));
    QCOMPARE(r.exitCode, code);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(!QFile::exists(QString::fromStdString(out)));
}

void TestCliPrint::helpListsTheOptions() {
    const test::ProcessRun r = runCli({"--help"});
    QCOMPARE(r.exitCode, 0);
    for (const char* flag : {"--gcr", "--ink-limit", "--lpi", "--dpi", "--angles", "--dot"})
        QVERIFY2(r.out.contains(flag), flag);
    const test::ProcessRun list = runCli({"--list"});
    QVERIFY(list.out.contains("am\tclustered\tcpu\t"));
}

QTEST_GUILESS_MAIN(TestCliPrint)
#include "test_cli_print.moc"
