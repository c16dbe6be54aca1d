// The `halftone` CLI for print: `--color cmyk` with --gcr and --ink-limit or through an ICC profile (--icc-out), the
// AM screen's options, the 1-bit separations it writes (four inks in one TIFF, or one plate per ink with --plates)
// read back with libtiff, their resolution, and the proof.
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <tiffio.h>

#include "core/print/dotgain.h"
#include "core/print/printpreview.h"
#include "core/quality/metrics.h"

#include "core/job/registry.h"
#include "io/filejob.h"
#include "io/icc.h"
#include "io/imagefile.h"
#include "tests/common/process.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

test::ProcessRun runCli(const QStringList& args) { return test::runProcess(HALFTONE_CLI_PATH, args); }

/// What libtiff reads from a separation: its tags and its 1-bit samples unpacked to 0 and 255, one plane per ink.
struct Separation {
    uint32_t width = 0, height = 0;
    uint16_t bits = 0, samples = 0, photometric = 0, inkSet = 0, inks = 0;
    std::vector<std::string> inkNames;
    std::string pageName;
    float xdpi = 0, ydpi = 0;
    uint16_t unit = 0;
    std::vector<Plane8> planes;
};

bool readSeparation(const std::string& path, Separation& s) {
    TIFF* t = TIFFOpen(path.c_str(), "r");
    if (!t) return false;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &s.width);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &s.height);
    TIFFGetField(t, TIFFTAG_BITSPERSAMPLE, &s.bits);
    TIFFGetField(t, TIFFTAG_SAMPLESPERPIXEL, &s.samples);
    TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &s.photometric);
    TIFFGetField(t, TIFFTAG_INKSET, &s.inkSet);
    TIFFGetField(t, TIFFTAG_NUMBEROFINKS, &s.inks);
    const char* names = nullptr;
    if (TIFFGetField(t, TIFFTAG_INKNAMES, &names) && names)
        for (int i = 0; i < s.samples; ++i) {
            s.inkNames.emplace_back(names);
            names += s.inkNames.back().size() + 1;
        }
    if (const char* page = nullptr; TIFFGetField(t, TIFFTAG_PAGENAME, &page) && page) s.pageName = page;
    TIFFGetField(t, TIFFTAG_XRESOLUTION, &s.xdpi);
    TIFFGetField(t, TIFFTAG_YRESOLUTION, &s.ydpi);
    TIFFGetField(t, TIFFTAG_RESOLUTIONUNIT, &s.unit);
    s.planes.assign(s.samples, Plane8(int(s.width), int(s.height)));
    std::vector<uint8_t> row(size_t(TIFFScanlineSize64(t)));
    bool ok = s.bits == 1;
    for (uint32_t y = 0; ok && y < s.height; ++y) {
        ok = TIFFReadScanline(t, row.data(), y, 0) >= 0;
        for (uint32_t x = 0; ok && x < s.width; ++x)
            for (uint32_t c = 0; c < s.samples; ++c) {
                const uint32_t bit = x * s.samples + c;
                s.planes[c].at(int(y), int(x)) = (row[bit / 8] >> (7 - bit % 8)) & 1 ? 255 : 0;
            }
    }
    TIFFClose(t);
    return ok;
}

QByteArray fileBytes(const QString& name) {
    QFile f(name);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

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
    void platesAndProof();
    void resolutionIsTheScreens_data();
    void resolutionIsTheScreens();
    void dotGainIsCompensated();
    void gcrMovesInkToBlack();
    void inkLimitReachesTheSeparation();
    void cmykInputKeepsItsInks();
    void analyzeAsPrinted();
    void iccSeparationWritesPlates();
    void iccProfileIsNeverOverwritten();
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

    // As stored: four 1-bit samples, photometric separated, InkSet CMYK, the inks named, tagged 1200 dpi.
    Separation sep;
    QVERIFY(readSeparation(out, sep));
    QCOMPARE(sep.samples, uint16_t(4));
    QCOMPARE(sep.bits, uint16_t(1));
    QCOMPARE(sep.photometric, uint16_t(PHOTOMETRIC_SEPARATED));
    QCOMPARE(sep.inkSet, uint16_t(INKSET_CMYK));
    QCOMPARE(sep.inks, uint16_t(4));
    QCOMPARE(sep.inkNames, (std::vector<std::string>{"Cyan", "Magenta", "Yellow", "Black"}));
    QCOMPARE(sep.unit, uint16_t(RESUNIT_INCH));
    QCOMPARE(sep.xdpi, 1200.0f);
    QCOMPARE(sep.ydpi, 1200.0f);
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
    QCOMPARE(int(sep.width), res.image.width());
    QCOMPARE(int(sep.height), res.image.height());
    for (size_t c = 0; c < 4; ++c) {
        QVERIFY(inked(res.image.channels[c]) > 0);
        QVERIFY2(sep.planes[c] == res.image.channels[c], qPrintable(QString("ink %1 differs").arg(c)));
    }
    // The halftone reader takes it back as CMYK.
    Image back;
    QVERIFY(io::readImage(out, back).isOk());
    QCOMPARE(back.space, ColorSpace::CMYK);
    QVERIFY(back.channels == res.image.channels);
}

void TestCliPrint::platesAndProof() {
    // --plates: one 1-bit TIFF per ink beside OUTPUT's name, each a separation of one named ink at the screen's
    // resolution, holding that ink of the four-ink file; --proof: the RGB picture of the print.
    const std::string all = path("all.tif"), out = path("plates.tif"), proof = path("proof.png");
    const QStringList job = {"--method", "am",  "--color", "cmyk", "--lpi", "100",
                             "--dpi",    "800", "--gcr",   "50",   input()};
    test::ProcessRun r = runCli(QStringList(job) << QString::fromStdString(all));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = runCli(QStringList(job) << "--plates"
                                << "--proof" << QString::fromStdString(proof) << QString::fromStdString(out));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(!QFile::exists(QString::fromStdString(out)));
    Separation four;
    QVERIFY(readSeparation(all, four));
    Image composite;
    composite.space = ColorSpace::CMYK;
    const char* names[4] = {"Cyan", "Magenta", "Yellow", "Black"};
    const char* files[4] = {"plates-cyan.tif", "plates-magenta.tif", "plates-yellow.tif", "plates-black.tif"};
    for (int c = 0; c < 4; ++c) {
        Separation plate;
        QVERIFY2(readSeparation(path(files[c]), plate), files[c]);
        QCOMPARE(plate.samples, uint16_t(1));
        QCOMPARE(plate.bits, uint16_t(1));
        // a bilevel plate: 1 = ink shows black, the ink named in PageName (no ink tags, which would make readers
        // take it for a CMYK file)
        QCOMPARE(plate.photometric, uint16_t(PHOTOMETRIC_MINISWHITE));
        QCOMPARE(plate.pageName, std::string(names[c]));
        QVERIFY(plate.inkNames.empty());
        QCOMPARE(plate.xdpi, 800.0f);
        QCOMPARE(plate.ydpi, 800.0f);
        QCOMPARE(plate.unit, uint16_t(RESUNIT_INCH));
        QVERIFY2(plate.planes[0] == four.planes[size_t(c)], files[c]);
        composite.channels.push_back(plate.planes[0]);
    }
    Image shown;
    QVERIFY(io::readImage(proof, shown).isOk());
    QCOMPARE(shown.space, ColorSpace::RGB);
    QVERIFY(shown.channels == simulatePrint(composite).channels);
    // Any reader takes a plate back as a black-and-white picture of the ink: ink black, paper white.
    Image cyan;
    QVERIFY(io::readImage(path(files[0]), cyan).isOk());
    QCOMPARE(cyan.space, ColorSpace::Gray);
    Plane8 seen = four.planes[0];
    for (uint8_t& v : seen.data) v = uint8_t(255 - v);
    QVERIFY(cyan.channels[0] == seen);
}

void TestCliPrint::resolutionIsTheScreens_data() {
    // input: "72" (chelsea.png, whose pHYs says 72 dpi) or "400" (the same pixels tagged 400 dpi). An AM screen is
    // tagged with the resolution it was built at, --dpi or its own 600; other methods carry the input's through.
    test::columns<QString, QStringList, float, double>("input", "args", "dpi", "screenDpi");
    const QStringList am = {"--method", "am", "--color", "cmyk"};
    QTest::newRow("am, no --dpi: the screen's 600") << "400" << am << 600.0f << 600.0;
    QTest::newRow("am, --dpi 800") << "400"
                                   << (QStringList(am) << "--dpi"
                                                       << "800")
                                   << 800.0f << 800.0;
    QTest::newRow("am gray, no --dpi: the screen's 600") << "72" << QStringList{"--method", "am"} << 600.0f << 600.0;
    QTest::newRow("am gray, --dpi 1200") << "72" << QStringList{"--method", "am", "--dpi", "1200"} << 1200.0f << 1200.0;
    QTest::newRow("ed, the input's 400") << "400" << QStringList{"--color", "cmyk"} << 400.0f << 0.0;
    QTest::newRow("ed, --scale 2: twice the input's 400")
        << "400" << QStringList{"--color", "cmyk", "--scale", "2"} << 800.0f << 0.0;
    QTest::newRow("ed gray, the input's 72") << "72" << QStringList{} << 72.01f << 0.0;
}

void TestCliPrint::resolutionIsTheScreens() {
    QFETCH(QString, input);
    QFETCH(QStringList, args);
    QFETCH(float, dpi);
    QFETCH(double, screenDpi);
    Image src;
    QVERIFY(io::readImage(test::dataPath("chelsea.png"), src).isOk());
    std::string in = test::dataPath("chelsea.png");
    if (input == "400") {
        in = path("tagged.png");
        io::WriteOptions wo;
        wo.dpi = 400;
        QVERIFY(io::writeImage(in, src, wo).isOk());
        io::ReadInfo info;
        Image back;
        QVERIFY(io::readImage(in, back, {}, &info).isOk());
        QCOMPARE(info.dpi, 400.0);
    }
    const std::string out = path("o.tif");
    const test::ProcessRun r = runCli(QStringList(args) << QString::fromStdString(in) << QString::fromStdString(out));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    if (screenDpi > 0 && !args.contains("--dpi"))  // the input's other resolution is named
        QVERIFY2(r.err.contains("states " + input + " dpi") || r.err.contains("states 72.01 dpi"), qPrintable(r.err));
    Separation sep;
    QVERIFY(readSeparation(out, sep));
    QCOMPARE(sep.bits, uint16_t(1));
    QCOMPARE(sep.xdpi, dpi);
    QCOMPARE(sep.ydpi, dpi);
    QCOMPARE(sep.unit, uint16_t(RESUNIT_INCH));
    if (screenDpi <= 0) return;
    // The screen was built at that resolution: the same run in-process with the dpi parameter set makes these pixels.
    RunRequest req;
    req.method = Registry::instance().find("am", "clustered");
    req.color = args.contains("cmyk") ? ColorMode::CMYK : ColorMode::Gray;
    req.params.set("dpi", screenDpi);
    RunResult res;
    QVERIFY(runImage(src, req, res).isOk());
    QCOMPARE(sep.planes.size(), res.image.channels.size());
    for (size_t c = 0; c < sep.planes.size(); ++c)
        QVERIFY2(sep.planes[c] == res.image.channels[c], qPrintable(QString("plane %1").arg(c)));
}

void TestCliPrint::dotGainIsCompensated() {
    // --dot-gain: the separated inks are compensated before screening, so every ink is screened lighter; the same run
    // in-process on the compensated separation makes the same plates. A curve file does the same.
    const std::string plain = path("plain.tif"), gained = path("gained.tif"), curved = path("curved.tif");
    const QStringList job = {"--method", "am", "--color", "cmyk", "--gcr", "50", "--ink-limit", "300", input()};
    QCOMPARE(runCli(QStringList(job) << QString::fromStdString(plain)).exitCode, 0);
    test::ProcessRun r = runCli(QStringList(job) << "--dot-gain"
                                                 << "10,20,0,15" << QString::fromStdString(gained));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Image a, b;
    QVERIFY(io::readImage(plain, a).isOk());
    QVERIFY(io::readImage(gained, b).isOk());
    QVERIFY(inked(b.channels[0]) < inked(a.channels[0]));
    QVERIFY(inked(b.channels[1]) < inked(a.channels[1]));
    QCOMPARE(inked(b.channels[2]), inked(a.channels[2]));  // yellow: no gain
    QVERIFY(inked(b.channels[3]) < inked(a.channels[3]));
    Image src;
    QVERIFY(io::readImage(test::dataPath("chelsea.png"), src).isOk());
    Image cmyk = convertColor(src, ColorMode::CMYK, SeparationParams{50, 300});
    DotGain gain;
    QVERIFY(parseDotGainPercents("10,20,0,15", gain).isOk());
    compensateDotGain(cmyk, gain);
    RunRequest req;
    req.method = Registry::instance().find("am", "clustered");
    req.color = ColorMode::CMYK;
    req.separation = {50, 300};
    RunResult res;
    QVERIFY(runImage(cmyk, req, res).isOk());
    QVERIFY(b.channels == res.image.channels);
    // The same gains as a curve file of one curve per ink.
    QFile curve(dir_->filePath("gain.txt"));
    QVERIFY(curve.open(QIODevice::WriteOnly));
    QString text = "# nominal  C M Y K\n";
    for (size_t i = 0; i < gain.inks[0].size(); ++i)
        text += QString("%1 %2 %3 %4 %5\n")
                    .arg(gain.inks[0][i].first)
                    .arg(gain.inks[0][i].second, 0, 'g', 17)
                    .arg(gain.inks[1][i].second, 0, 'g', 17)
                    .arg(gain.inks[0][i].first)
                    .arg(gain.inks[3][i].second, 0, 'g', 17);
    curve.write(text.toUtf8());
    curve.close();
    r = runCli(QStringList(job) << "--dot-gain" << curve.fileName() << QString::fromStdString(curved));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Image c;
    QVERIFY(io::readImage(curved, c).isOk());
    QVERIFY(c.channels == b.channels);
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

void TestCliPrint::analyzeAsPrinted() {
    // An 85 lpi screen on 1200 dpi, measured as printed and seen from 30 cm (docs/quality.md, "Measured as printed"):
    // the figure the studio's quality panel shows, far above the one at screen pixels.
    const std::string out = path("am.png");
    const QString inches = QString::number(30 / 2.54, 'g', 17);
    const test::ProcessRun run =
        runCli({"--method", "am", "--lpi", "85", "--dpi", "1200", input(), QString::fromStdString(out)});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const test::ProcessRun a = runCli(
        {"analyze", "--json", "--view-dpi", "1200", "--view-distance", inches, input(), QString::fromStdString(out)});
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));
    const QJsonObject o = QJsonDocument::fromJson(a.out.toUtf8()).object();
    Image src, ht;
    QVERIFY(io::readImage(test::dataPath("chelsea.png"), src).isOk());
    QVERIFY(io::readImage(out, ht).isOk());
    const double expected = seenPsnr(convertColor(src, ColorMode::Gray).channels[0],
                                     convertColor(ht, ColorMode::Gray).channels[0], ViewingConditions{1200, 30 / 2.54});
    QCOMPARE(o.value("psnr_printed_db").toDouble(), expected);
    QCOMPARE(o.value("view_dpi").toDouble(), 1200.0);
    QCOMPARE(o.value("view_distance_in").toDouble(), 30 / 2.54);
    QVERIFY2(expected > o.value("psnr_db").toDouble() + 10, qPrintable(a.out));
    const test::ProcessRun text =
        runCli({"analyze", "--view-dpi", "1200", "--view-distance", inches, input(), QString::fromStdString(out)});
    QVERIFY2(
        text.out.contains(QString::asprintf("PSNR, as printed         %.3f dB (1200 dpi seen from 11.811", expected)),
        qPrintable(text.out));
    // A distance without a resolution says what it needs.
    const test::ProcessRun bad = runCli({"analyze", "--view-distance", "12", input(), QString::fromStdString(out)});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--view-dpi"), qPrintable(bad.err));
}

void TestCliPrint::iccSeparationWritesPlates() {
    // --icc-out: the separation through Ghostscript's default_cmyk.icc, screened into four 1-bit plates that differ
    // from the built-in formula's and are exactly the in-process run through the same profile; the proof shows the
    // profile's paper and inks; --ink-limit caps the profile's separation further.
    const std::string profile = test::ghostscriptProfile("default_cmyk.icc");
    HALFTONE_SKIP_WITHOUT_PROFILE(profile);
    const QStringList job = {"--method", "am", "--color", "cmyk", "--lpi", "100", "--dpi", "800", input()};
    const std::string builtin = path("builtin.tif"), out = path("icc.tif"), proof = path("proof.png");
    test::ProcessRun r = runCli(QStringList(job) << "--plates" << QString::fromStdString(builtin));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = runCli(QStringList(job) << "--icc-out" << QString::fromStdString(profile) << "--plates"
                                << "--proof" << QString::fromStdString(proof) << QString::fromStdString(out));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(!QFile::exists(QString::fromStdString(out)));

    Image src;
    QVERIFY(io::readImage(test::dataPath("chelsea.png"), src).isOk());
    std::shared_ptr<const io::IccSeparator> sep;
    QVERIFY(io::IccSeparator::load({"", profile, RenderingIntent::Relative}, sep).isOk());
    RunRequest req;
    req.method = Registry::instance().find("am", "clustered");
    req.color = ColorMode::CMYK;
    req.separation.separator = sep;
    req.params.set("lpi", 100.0);
    req.params.set("dpi", 800.0);
    RunResult res;
    QVERIFY(runImage(src, req, res).isOk());
    Image composite;
    composite.space = ColorSpace::CMYK;
    int differing = 0;
    for (size_t c = 0; c < 4; ++c) {
        Separation plate, formula;
        const std::string ink = kInkNames[c];
        QVERIFY(readSeparation(io::platePath(out, ink), plate));
        QVERIFY(readSeparation(io::platePath(builtin, ink), formula));
        QCOMPARE(plate.bits, uint16_t(1));
        QCOMPARE(plate.samples, uint16_t(1));
        QCOMPARE(plate.pageName, ink);
        QVERIFY2(plate.planes[0] == res.image.channels[c], ink.c_str());
        QVERIFY(inked(plate.planes[0]) > 0);
        differing += plate.planes[0] != formula.planes[0];
        composite.channels.push_back(plate.planes[0]);
    }
    QCOMPARE(differing, 4);  // every ink: the profile's grey balance and black generation are not the formula's
    Image shown;
    QVERIFY(io::readImage(proof, shown).isOk());
    QVERIFY(shown.channels == simulatePrint(composite, sep->printInks()).channels);
    QVERIFY(shown.channels != simulatePrint(composite).channels);

    // --ink-limit beside the profile: applied after its transform, as in-process.
    const std::string limited = path("limited.tif");
    r = runCli(QStringList(job) << "--icc-out" << QString::fromStdString(profile) << "--ink-limit"
                                << "200" << QString::fromStdString(limited));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    req.separation.inkLimit = 200;
    QVERIFY(runImage(src, req, res).isOk());
    Image got;
    QVERIFY(io::readImage(limited, got).isOk());
    QVERIFY(got.channels == res.image.channels);
}

void TestCliPrint::iccProfileIsNeverOverwritten() {
    // The profiles are inputs: OUTPUT, a plate or --save-preset onto one of them is refused, the file unchanged.
    const std::string original = test::ghostscriptProfile("default_cmyk.icc");
    HALFTONE_SKIP_WITHOUT_PROFILE(original);
    const QString profile = QString::fromStdString(path("press.icc"));
    const QString blackPlate = QString::fromStdString(path("plates-black.tif"));  // a profile under a plate's name
    QVERIFY(QFile::copy(QString::fromStdString(original), profile));
    QVERIFY(QFile::copy(QString::fromStdString(original), blackPlate));
    const QByteArray before = fileBytes(profile);
    const QStringList job = {"--method", "am", "--color", "cmyk", "--icc-out"};
    const QString plates = QString::fromStdString(path("plates.tif"));
    for (const QStringList& args :
         {QStringList(job) << profile << input() << profile, QStringList(job) << profile << "--save-preset" << profile,
          QStringList(job) << blackPlate << "--plates" << input() << plates}) {
        const test::ProcessRun r = runCli(args);
        QVERIFY2(r.exitCode == 1, qPrintable(args.join(' ')));
        QVERIFY2(r.err.contains("refusing to overwrite the input") && r.err.contains("--icc-out"), qPrintable(r.err));
        QCOMPARE(fileBytes(profile), before);
        QCOMPARE(fileBytes(blackPlate), before);
    }
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
    QTest::newRow("plates without cmyk") << QStringList{"--method", "am", "--plates"} << "o.tif" << 2
                                         << "--plates needs --color cmyk";
    QTest::newRow("proof without cmyk") << QStringList{"--method", "am", "--proof", "p.png"} << "o.tif" << 2
                                        << "--proof needs --color cmyk";
    QTest::newRow("dot gain without cmyk") << QStringList{"--method", "am", "--dot-gain", "15"} << "o.tif" << 2
                                           << "--dot-gain applies only to --color cmyk";
    QTest::newRow("dot gain too large") << QStringList{"--color", "cmyk", "--dot-gain", "30"} << "o.tif" << 2
                                        << "--dot-gain '30' must be a percent of gain at 50 %";
    QTest::newRow("dot gain file missing") << QStringList{"--color", "cmyk", "--dot-gain", "no-such-curve.txt"}
                                           << "o.tif" << 2 << "cannot read --dot-gain curve file 'no-such-curve.txt'";
    QTest::newRow("lpi on ed") << QStringList{"--method", "ed", "--lpi", "80"} << "o.png" << 2
                               << "option --lpi does not apply to method ed";
    // ICC separation: bad profiles name the file (exit 1), options that do not fit are usage errors (exit 2).
    const QString cmykProfile = QString::fromStdString(test::ghostscriptProfile("default_cmyk.icc"));
    const QString rgbProfile = QString::fromStdString(test::ghostscriptProfile("default_rgb.icc"));
    const QString png = QString::fromStdString(test::dataPath("moon.png"));
    QTest::newRow("icc-out missing") << QStringList{"--color", "cmyk", "--icc-out", "no-such.icc"} << "o.tif" << 1
                                     << "--icc-out: cannot read ICC profile 'no-such.icc': No such file or directory";
    QTest::newRow("icc-out not a profile") << QStringList{"--color", "cmyk", "--icc-out", png} << "o.tif" << 1
                                           << "--icc-out: '" + png + "' is not an ICC profile";
    QTest::newRow("icc-out rgb profile") << QStringList{"--color", "cmyk", "--icc-out", rgbProfile} << "o.tif" << 1
                                         << "--icc-out: '" + rgbProfile +
                                                "' is an RGB profile; separating into inks needs a CMYK output profile";
    QTest::newRow("icc-out rgb profile, plates")
        << QStringList{"--method", "am", "--color", "cmyk", "--plates", "--icc-out", rgbProfile} << "o.tif" << 1
        << "--icc-out: '" + rgbProfile + "' is an RGB profile";
    QTest::newRow("icc-in cmyk profile") << QStringList{"--color",   "cmyk",     "--icc-out",
                                                        cmykProfile, "--icc-in", cmykProfile}
                                         << "o.tif" << 1 << "--icc-in: '" + cmykProfile + "' is a CMYK profile";
    QTest::newRow("icc-out without cmyk")
        << QStringList{"--icc-out", cmykProfile} << "o.png" << 2 << "--icc-out applies only to --color cmyk";
    QTest::newRow("gcr with icc-out") << QStringList{"--color", "cmyk", "--icc-out", cmykProfile, "--gcr", "100"}
                                      << "o.tif" << 2 << "--gcr does not apply with --icc-out";
    QTest::newRow("intent without icc-out")
        << QStringList{"--color", "cmyk", "--intent", "perceptual"} << "o.tif" << 2 << "--intent needs --icc-out";
    QTest::newRow("icc-in without icc-out") << QStringList{"--color", "cmyk", "--icc-in", rgbProfile} << "o.tif" << 2
                                            << "needs --icc-out, the CMYK profile to separate into";
    QTest::newRow("unknown intent") << QStringList{"--color", "cmyk", "--icc-out", cmykProfile, "--intent", "vivid"}
                                    << "o.tif" << 2 << "unknown --intent 'vivid'";
}

void TestCliPrint::errors() {
    QFETCH(QStringList, args);
    QFETCH(QString, output);
    QFETCH(int, code);
    QFETCH(QString, message);
    for (const QString& a : args)
        if (a.startsWith(QString::fromStdString(test::ghostscriptProfile(""))))
            HALFTONE_SKIP_WITHOUT_PROFILE(a.toStdString());
    const std::string out = path(output.toStdString());
    const test::ProcessRun r = runCli(args << input() << QString::fromStdString(out));
    QCOMPARE(r.exitCode, code);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(!QFile::exists(QString::fromStdString(out)));
    for (const char* ink : kInkNames) QVERIFY(!QFile::exists(QString::fromStdString(io::platePath(out, ink))));
}

void TestCliPrint::helpListsTheOptions() {
    const test::ProcessRun r = runCli({"--help"});
    QCOMPARE(r.exitCode, 0);
    for (const char* flag :
         {"--gcr", "--ink-limit", "--icc-out", "--icc-in", "--intent", "--lpi", "--dpi", "--angles", "--dot"})
        QVERIFY2(r.out.contains(flag), flag);
    const test::ProcessRun list = runCli({"--list"});
    QVERIFY(list.out.contains("am\tclustered\tcpu\t"));
}

QTEST_GUILESS_MAIN(TestCliPrint)
#include "test_cli_print.moc"
