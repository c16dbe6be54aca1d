// Presets: a whole job round-trips through its JSON file, and bad files are refused with a message naming the file
// and the key; nothing is written for a job that does not validate.
#include <QtTest>

#include <QTemporaryDir>

#include <fstream>

#include "core/job/job.h"
#include "io/preset.h"
#include "tests/common/qtestutil.h"

using namespace halftone;

namespace {

JobSettings fullJob() {
    JobSettings j;
    j.method = "ed";
    j.variant = "rc";
    j.params.set("kernel", std::string("jarvis"));
    j.params.set("serpentine", true);
    j.params.set("levels", int64_t(4));
    j.color = ColorMode::CMYK;
    j.separation.gcr = 60;
    j.separation.inkLimit = 300;
    j.dotGain.inks[0] = dotGainAtMiddle(14);
    j.dotGain.inks[3] = {{25, 33.5}, {50, 66}, {75, 88.25}};
    j.device = "cpu";
    j.threads = 2;
    j.keepAlpha = true;
    j.paletteSpace = PaletteSpace::Gamma;
    j.paletteMatch = PaletteMatch::Weighted;
    j.prepare.width = 800;
    j.prepare.fit = ResizeFit::Cover;
    j.prepare.gravity = Gravity::SouthEast;
    j.prepare.rotate = 270;
    j.prepare.background = Rgb8{0x12, 0xab, 0xff};
    j.prepare.height = 600;
    j.prepare.filter = ResizeFilter::Box;
    j.prepare.linearResize = false;
    j.prepare.pixelSize = 2;
    j.prepare.blackPoint = 10;
    j.prepare.whitePoint = 240;
    j.prepare.brightness = -5.5;
    j.prepare.contrast = 12;
    j.prepare.gamma = 1.2;
    j.prepare.saturation = 150;
    j.prepare.sharpenAmount = 80;
    j.prepare.sharpenRadius = 1.5;
    j.format = "tif";
    return j;
}

Status parse(const std::string& text, JobSettings& job) { return io::parsePreset("job.json", text, job); }

}  // namespace

class TestPreset : public QObject {
    Q_OBJECT
private slots:
    void roundTripsEverySetting();
    void defaultsWriteOnlyMethodAndColour();
    void savesAndLoadsFiles();
    void badFilesAreRefused_data();
    void badFilesAreRefused();
    void unreadableAndInvalidJobsWriteNothing();
};

void TestPreset::roundTripsEverySetting() {
    const JobSettings job = fullJob();
    QVERIFY(validateJob(job));
    JobSettings back;
    const Status s = parse(io::presetJson(job), back);
    QVERIFY2(s, s.message().c_str());
    QVERIFY(back == job);
    // print size and dpi
    JobSettings print;
    print.printSize = "6x4in";
    print.dpi = 300;
    QVERIFY(parse(io::presetJson(print), back));
    QCOMPARE(back.printSize, std::string("6x4in"));
    QCOMPARE(back.dpi, 300.0);
    RunRequest request;
    PrepareSettings prepare;
    QVERIFY(resolveJob(back, nullptr, request, prepare));
    QCOMPARE(prepare.width, 1800);
    QCOMPARE(prepare.height, 1200);
    // a palette job writes its space and match; they reach the run request
    JobSettings pal;
    pal.palette = "pico8";
    const std::string text = io::presetJson(pal);
    QVERIFY(text.find("\"space\": \"linear\"") != std::string::npos);
    QVERIFY(text.find("\"match\": \"euclidean\"") != std::string::npos);
    pal.paletteMatch = PaletteMatch::Weighted;
    QVERIFY(parse(io::presetJson(pal), back));
    QCOMPARE(back.paletteMatch, PaletteMatch::Weighted);
    QCOMPARE(back.paletteSpace, PaletteSpace::Linear);
    QVERIFY(resolveJob(back, nullptr, request, prepare));
    QCOMPARE(request.paletteMatch, PaletteMatch::Weighted);
    QCOMPARE(request.paletteSpace, PaletteSpace::Linear);
    // ICC separation: the profiles' names and the intent, beside the ink limit (the profile brings the GCR)
    JobSettings icc;
    icc.color = ColorMode::CMYK;
    icc.icc = {"in.icc", "press.icc", RenderingIntent::Saturation};
    icc.separation.inkLimit = 280;
    QVERIFY(validateJob(icc));
    const std::string iccText = io::presetJson(icc);
    QVERIFY2(iccText.find("\"intent\": \"saturation\"") != std::string::npos, iccText.c_str());
    QVERIFY(parse(iccText, back));
    QVERIFY(back.icc == icc.icc);
    QCOMPARE(back.icc.output, std::string("press.icc"));
    QCOMPARE(back.separation.inkLimit, 280);
    QCOMPARE(io::presetJson(back), iccText);
}

void TestPreset::defaultsWriteOnlyMethodAndColour() {
    const std::string text = io::presetJson(JobSettings{});
    QVERIFY(text.find("\"method\": \"ed\"") != std::string::npos);
    QVERIFY(text.find("\"halftone-preset\": 1") != std::string::npos);
    QVERIFY(text.find("prepare") == std::string::npos);
    JobSettings back;
    QVERIFY(parse(text, back));
    JobSettings expected;
    expected.method = "ed";
    expected.variant = Registry::instance().defaultVariant("ed");
    QVERIFY(back == expected);
}

void TestPreset::savesAndLoadsFiles() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("job.json").toStdString();
    QVERIFY(io::savePreset(path, fullJob()));
    JobSettings back;
    QVERIFY(io::loadPreset(path, back));
    QVERIFY(back == fullJob());
}

void TestPreset::badFilesAreRefused_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("space") << "{\"halftone-preset\": 1, \"space\": \"lab\"}"
                           << "space must be linear or gamma";
    QTest::newRow("match") << "{\"halftone-preset\": 1, \"match\": 3}"
                           << "match must be a string";
    QTest::newRow("match name") << "{\"halftone-preset\": 1, \"match\": \"cie94\"}"
                                << "match must be euclidean or weighted";
    QTest::newRow("not json") << "{\"halftone-preset\": 1,\n \"method\": }"
                              << "job.json', line 2: not valid JSON";
    QTest::newRow("array") << "[1, 2]"
                           << "not a preset";
    QTest::newRow("no version") << "{\"method\": \"ed\"}"
                                << "no \"halftone-preset\"";
    QTest::newRow("future version") << "{\"halftone-preset\": 2}"
                                    << "version 2 is not supported";
    QTest::newRow("unknown key") << "{\"halftone-preset\": 1, \"metod\": \"ed\"}"
                                 << "unknown key 'metod'";
    QTest::newRow("unknown prepare key") << "{\"halftone-preset\": 1, \"prepare\": {\"brightnes\": 3}}"
                                         << "unknown key 'prepare.brightnes'";
    QTest::newRow("prepare range") << "{\"halftone-preset\": 1, \"prepare\": {\"gamma\": 0}}"
                                   << "prepare.gamma must be a number from 0.1 to 10, got 0";
    QTest::newRow("prepare kind") << "{\"halftone-preset\": 1, \"prepare\": {\"width\": \"800\"}}"
                                  << "prepare.width must be a whole number, got \"800\"";
    QTest::newRow("unknown method") << "{\"halftone-preset\": 1, \"method\": \"magic\"}"
                                    << "unknown method 'magic'";
    QTest::newRow("unknown variant") << "{\"halftone-preset\": 1, \"method\": \"ed\", \"variant\": \"x\"}"
                                     << "has no variant 'x'";
    QTest::newRow("unknown parameter") << "{\"halftone-preset\": 1, \"method\": \"ed\", \"params\": {\"colour\": 1}}"
                                       << "has no parameter 'colour'";
    QTest::newRow("parameter kind") << "{\"halftone-preset\": 1, \"method\": \"ed\", \"params\": {\"levels\": \"4\"}}"
                                    << "params.levels must be a whole number";
    QTest::newRow("parameter range") << "{\"halftone-preset\": 1, \"method\": \"ed\", \"params\": {\"levels\": 900}}"
                                     << "params.levels must be a whole number from 2 to 256, got 900";
    QTest::newRow("parameter choice")
        << "{\"halftone-preset\": 1, \"method\": \"ed\", \"params\": {\"kernel\": \"nope\"}}"
        << "unknown kernel 'nope'";
    QTest::newRow("colour") << "{\"halftone-preset\": 1, \"color\": \"hsv\"}"
                            << "color must be gray, rgb or cmyk";
    QTest::newRow("separation") << "{\"halftone-preset\": 1, \"color\": \"cmyk\", \"separation\": {\"gcr\": 120}}"
                                << "gcr";
    QTest::newRow("dot gain shape") << "{\"halftone-preset\": 1, \"dot-gain\": [[[50, 60]]]}"
                                    << "dot-gain must be four arrays (C, M, Y, K)";
    QTest::newRow("dot gain falls") << "{\"halftone-preset\": 1, \"dot-gain\": [[], [], [], [[25, 40], [50, 30]]]}"
                                    << "dot-gain black: the printed tone must rise";
    QTest::newRow("separation key") << "{\"halftone-preset\": 1, \"separation\": {\"ucr\": 1}}"
                                    << "unknown key 'separation.ucr'";
    QTest::newRow("intent") << "{\"halftone-preset\": 1, \"color\": \"cmyk\", \"separation\": {\"icc-out\": "
                               "\"p.icc\", \"intent\": \"vivid\"}}"
                            << "separation.intent must be perceptual, relative, saturation or absolute, got \"vivid\"";
    QTest::newRow("icc-out kind") << "{\"halftone-preset\": 1, \"color\": \"cmyk\", \"separation\": {\"icc-out\": 3}}"
                                  << "separation.icc-out must be a string";
    QTest::newRow("icc with gcr")
        << "{\"halftone-preset\": 1, \"color\": \"cmyk\", \"separation\": {\"icc-out\": \"p.icc\", \"gcr\": 50}}"
        << "--gcr does not apply with --icc-out 'p.icc'";
    QTest::newRow("icc without cmyk") << "{\"halftone-preset\": 1, \"separation\": {\"icc-out\": \"p.icc\"}}"
                                      << "--icc-out 'p.icc' separates into inks: it needs --color cmyk";
    QTest::newRow("device") << "{\"halftone-preset\": 1, \"device\": \"tpu\"}"
                            << "unknown device 'tpu'";
    QTest::newRow("threads") << "{\"halftone-preset\": 1, \"threads\": -3}"
                             << "threads must be a whole number from 0 to 65536, got -3";
    // Numbers that do not fit: never wrapped (2^32 + 1 is not 1) or clamped; named with their key.
    QTest::newRow("width 2^32 + 1") << "{\"halftone-preset\": 1, \"prepare\": {\"width\": 4294967297}}"
                                    << "prepare.width must be a whole number from 0 to 1048576, got 4294967297";
    QTest::newRow("threads 2^32 + 1") << "{\"halftone-preset\": 1, \"threads\": 4294967297}"
                                      << "threads must be a whole number from 0 to 65536, got 4294967297";
    QTest::newRow("ink limit 2^64")
        << "{\"halftone-preset\": 1, \"color\": \"cmyk\", \"separation\": {\"ink-limit\": 18446744073709551616}}"
        << "separation.ink-limit must be a whole number from 0 to 400";
    QTest::newRow("levels 2^64 - 1")
        << "{\"halftone-preset\": 1, \"method\": \"ed\", \"params\": {\"levels\": 18446744073709551615}}"
        << "params.levels must be a whole number from 2 to 256, got 18446744073709551615";
    QTest::newRow("pixel size 2.5") << "{\"halftone-preset\": 1, \"prepare\": {\"pixel-size\": 2.5}}"
                                    << "prepare.pixel-size must be a whole number from 1 to 1024, got 2.5";
    QTest::newRow("gamma 1e400") << "{\"halftone-preset\": 1, \"prepare\": {\"gamma\": 1e400}}"
                                 << "prepare.gamma is not a number this program can hold";
    QTest::newRow("dpi -1e400") << "{\"halftone-preset\": 1, \"dpi\": -1e400}"
                                << "dpi is not a number this program can hold";
    QTest::newRow("dpi 1e300") << "{\"halftone-preset\": 1, \"dpi\": 1e300}"
                               << "dpi must be a number from 0 to 100000, got 1e+300";
    QTest::newRow("nested 17 deep") << "{\"halftone-preset\": 1, \"dpi\": [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}"
                                    << "dpi is nested deeper than 16 levels";
    QTest::newRow("nested 100000 deep") << "{\"halftone-preset\": 1, \"prepare\": {\"gamma\": " + QString(100000, '[') +
                                               QString(100000, ']') + "}}"
                                        << "prepare.gamma is nested deeper than 16 levels";
    QTest::newRow("a long value is cut in the message")
        << "{\"halftone-preset\": 1, \"method\": [" + QString("1,").repeated(1000) + "1]}"
        << "method must be a string, got [1,1,1";
    QTest::newRow("print size") << "{\"halftone-preset\": 1, \"print-size\": \"6x4ft\", \"dpi\": 300}"
                                << "print size '6x4ft'";
    QTest::newRow("print size without dpi") << "{\"halftone-preset\": 1, \"print-size\": \"6x4in\"}"
                                            << "--dpi";
    QTest::newRow("palette on a method without")
        << "{\"halftone-preset\": 1, \"method\": \"dbs\", \"palette\": \"cga\"}"
        << "cannot halftone to a palette";
}

void TestPreset::badFilesAreRefused() {
    QFETCH(QString, text);
    QFETCH(QString, message);
    JobSettings job = fullJob();
    const Status s = parse(text.toStdString(), job);
    QVERIFY(!s);
    QVERIFY2(QString::fromStdString(s.message()).contains(message), s.message().c_str());
    QVERIFY2(s.message().find("preset 'job.json'") == 0, s.message().c_str());
    QVERIFY(job == fullJob());  // a refused preset changes nothing
}

void TestPreset::unreadableAndInvalidJobsWriteNothing() {
    QTemporaryDir dir;
    JobSettings job;
    QVERIFY(!io::loadPreset(dir.filePath("missing.json").toStdString(), job));
    const Status d = io::loadPreset(dir.path().toStdString(), job);
    QVERIFY(!d);
    QVERIFY(d.message().find("not a regular file") != std::string::npos);
    JobSettings bad;
    bad.prepare.gamma = 50;
    const std::string path = dir.filePath("bad.json").toStdString();
    QVERIFY(!io::savePreset(path, bad));
    QVERIFY(!QFile::exists(QString::fromStdString(path)));
}

QTEST_APPLESS_MAIN(TestPreset)
#include "test_preset.moc"
