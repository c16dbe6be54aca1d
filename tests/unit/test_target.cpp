// Targets: every built-in device halftones an image of awkward size to exactly its frame and writes only its driver's
// codes (or only black and white for a 1-bit device); Spectra 6's codes skip 4; target files parse, round-trip and
// refuse bad values with the key named; presets keep the target; a target and a palette together are refused; the
// simulated panel shows each pixel's ink in its shown colour, from the result's codes and from its file colours alike,
// and its Delta E is the filtered Delta E 2000 of that view.
#include <QtTest>

#include <set>

#include "core/job/job.h"
#include "core/job/registry.h"
#include "core/palette/panel.h"
#include "core/quality/metrics.h"
#include "io/preset.h"
#include "io/targetfile.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

/// Runs `job` on `in` as the file job does: resolve, prepare, run.
Status runJob(const JobSettings& job, const Image& in, RunResult& out) {
    RunRequest request;
    PrepareSettings prepare;
    if (Status s = resolveJob(job, &in, request, prepare); !s) return s;
    Image prepared;
    if (Status s = prepareImage(in, prepare, prepared); !s) return s;
    return runImage(prepared, request, out);
}

/// The built-in target of the current data row's "name" column, and a job for it on the CPU.
std::pair<const Target*, JobSettings> rowTargetJob() {
    QFETCH(QString, name);
    JobSettings job;
    job.target = name.toStdString();
    job.device = "cpu";
    return {findBuiltinTarget(job.target), job};
}

}  // namespace

class TestTarget : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { io::installTargetFileReader(); }
    void builtinTargetsAreValid();
    void outputHasTheFrameAndOnlyTheCodes_data();
    void outputHasTheFrameAndOnlyTheCodes();
    void spectraCodesSkipFour();
    void printSizeAndDpiOfAnEngraver();
    void targetFilesRoundTrip();
    void badTargetFilesAreRefused_data();
    void badTargetFilesAreRefused();
    void presetsNameATarget();
    void namesAndConflicts();
    void simulatedPanelShowsTheShownColours_data();
    void simulatedPanelShowsTheShownColours();
    void simulatedPanelRefusesForeignColours();
};

void TestTarget::builtinTargetsAreValid() {
    QVERIFY(builtinTargets().size() >= 15);
    std::set<std::string> names;
    for (const Target& t : builtinTargets()) {
        QVERIFY2(t.validate(), t.name.c_str());
        QVERIFY2(names.insert(t.name).second, t.name.c_str());
        QVERIFY2(!t.source.empty(), t.name.c_str());
        const Palette written = t.writtenPalette();
        for (const TargetInk& k : t.inks) QCOMPARE(written.colors[size_t(k.code)], k.nominal);
    }
    // The two ACeP panels Pimoroni measured separately keep their own colours.
    const Target* small = findBuiltinTarget("inky-impression-5.7");
    const Target* large = findBuiltinTarget("inky-impression-7.3");
    QVERIFY(small && large);
    QVERIFY(small->shownPalette() != large->shownPalette());
}

void TestTarget::outputHasTheFrameAndOnlyTheCodes_data() {
    QTest::addColumn<QString>("name");
    for (const Target& t : builtinTargets()) QTest::newRow(t.name.c_str()) << QString::fromStdString(t.name);
}

void TestTarget::outputHasTheFrameAndOnlyTheCodes() {
    auto [target, job] = rowTargetJob();
    QVERIFY(target);
    const Target& t = *target;
    if (t.width == 0) {  // a device without a frame: the size from the print size, filled
        job.printSize = "0.5x0.3in";
        job.prepare.fit = ResizeFit::Cover;
    }
    // A 3:2 photo of prime size: cover crops it to the frame.
    const Image in = test::randomRgb(97, 61, test::freshSeed("target"));
    RunResult r;
    const Status s = runJob(job, in, r);
    QVERIFY2(s, s.message().c_str());
    const int w = t.width ? t.width : int(std::lround(0.5 * t.dpi));
    const int h = t.height ? t.height : t.width ? int(std::lround(61.0 * t.width / 97)) : int(std::lround(0.3 * t.dpi));
    QCOMPARE(r.image.width(), w);
    QCOMPARE(r.image.height(), h);
    if (t.inks.empty()) {
        QCOMPARE(r.image.space, ColorSpace::Gray);
        for (uint8_t v : r.image.channels[0].data) QVERIFY(v == 0 || v == 255);
        return;
    }
    const std::vector<uint8_t> codes = t.codes();
    const std::set<uint8_t> allowed(codes.begin(), codes.end());
    std::set<uint8_t> used;
    for (uint8_t v : r.image.indices.data) used.insert(v);
    for (uint8_t v : used) QVERIFY2(allowed.count(v), qPrintable(QStringLiteral("index %1").arg(v)));
    QVERIFY(used.size() >= 2);
    QCOMPARE(r.image.palette, t.writtenPalette().colors);
    // The RGB planes are the written (nominal) colours at the codes: the file shows what the driver's palette says.
    for (size_t i = 0; i < r.image.indices.size(); i += 101)
        for (int c = 0; c < 3; ++c)
            QCOMPARE(r.image.channels[size_t(c)].data[i], r.image.palette[r.image.indices.data[i]][size_t(c)]);
}

void TestTarget::spectraCodesSkipFour() {
    for (const char* name : {"inky-impression-7.3-spectra6", "waveshare-7.3e"}) {
        const Target* t = findBuiltinTarget(name);
        QVERIFY(t);
        QCOMPARE(t->codes(), (std::vector<uint8_t>{0, 1, 2, 3, 5, 6}));
        // Patches of the blue and green the panel shows land on codes 5 and 6, never on 4.
        Image in;
        in.space = ColorSpace::RGB;
        in.channels = {Plane8(16, 16, 0), Plane8(16, 16, 0), Plane8(16, 16, 0)};
        const Rgb8 blue = t->inks[4].shown, green = t->inks[5].shown;
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 16; ++x)
                for (size_t c = 0; c < 3; ++c) in.channels[c].at(y, x) = x < 8 ? blue[c] : green[c];
        JobSettings job;
        job.target = name;
        job.prepare.width = 16;  // the job's own size wins over the target's frame
        job.prepare.height = 16;
        RunResult r;
        QVERIFY(runJob(job, in, r));
        QCOMPARE(r.image.width(), 16);
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 16; ++x) QCOMPARE(int(r.image.indices.at(y, x)), x < 8 ? 5 : 6);
        for (uint8_t v : r.image.indices.data) QVERIFY(v != 4);
    }
}

void TestTarget::printSizeAndDpiOfAnEngraver() {
    JobSettings job;
    job.target = "laser-engraver";
    job.printSize = "1x0.5in";
    job.dpi = 600;  // the job's resolution wins over the target's 254
    RunResult r;
    QVERIFY(runJob(job, test::randomRgb(40, 20, test::freshSeed("engraver")), r));
    QCOMPARE(r.image.width(), 600);
    QCOMPARE(r.image.height(), 300);
    JobSettings applied;
    QVERIFY(applyTarget(job, applied));
    QCOMPARE(applied.dpi, 600.0);
    job.dpi = 0;
    QVERIFY(applyTarget(job, applied));
    QCOMPARE(applied.dpi, 254.0);
    QCOMPARE(applied.color, ColorMode::Gray);
}

void TestTarget::targetFilesRoundTrip() {
    Target t = *findBuiltinTarget("inky-impression-7.3-spectra6");
    t.name = "my-frame";
    t.inks[1].shown = {180, 178, 170};  // a white measured under daylight
    Target back;
    const Status s = io::parseTargetFile("my-frame.json", io::targetJson(t), back);
    QVERIFY2(s, s.message().c_str());
    QCOMPARE(back.name, t.name);
    QCOMPARE(back.width, t.width);
    QCOMPARE(back.height, t.height);
    QCOMPARE(back.codes(), t.codes());
    QCOMPARE(back.shownPalette(), t.shownPalette());
    QCOMPARE(back.writtenPalette(), t.writtenPalette());
    // Through a file and resolveTarget, as --target path/to/file.json reads it.
    QTemporaryDir dir;
    const std::string path = dir.filePath("frame.json").toStdString();
    {
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(io::targetJson(t)));
    }
    Target viaFile;
    QVERIFY(resolveTarget(path, viaFile));
    QCOMPARE(viaFile.shownPalette(), t.shownPalette());
    // A minimal file: shown colours only, codes in order.
    const char* minimal = R"({"halftone-target": 1, "name": "bw-panel", "width": 200, "height": 100,
        "inks": [{"shown": "#202020"}, {"shown": "#d0d0c8"}]})";
    QVERIFY(io::parseTargetFile("m.json", minimal, back));
    QCOMPARE(back.codes(), (std::vector<uint8_t>{0, 1}));
    QCOMPARE(back.inks[1].nominal, (Rgb8{0xd0, 0xd0, 0xc8}));
}

void TestTarget::badTargetFilesAreRefused_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("word");
    QTest::newRow("not json") << "{"
                              << "not valid JSON";
    QTest::newRow("no version") << R"({"name": "x"})"
                                << "halftone-target";
    QTest::newRow("unknown key") << R"({"halftone-target": 1, "name": "x", "colour": 1})"
                                 << "colour";
    QTest::newRow("bad colour")
        << R"({"halftone-target": 1, "name": "x", "inks": [{"shown": "#12"}, {"shown": "#fff"}]})"
        << "inks[0].shown";
    QTest::newRow("same code") << R"({"halftone-target": 1, "name": "x", "inks": [{"shown": "#000", "code": 1},
        {"shown": "#fff", "code": 1}]})"
                               << "code 1";
    QTest::newRow("code range") << R"({"halftone-target": 1, "name": "x", "inks": [{"shown": "#000", "code": 300},
        {"shown": "#fff"}]})"
                                << "inks[0].code";
    QTest::newRow("one ink") << R"({"halftone-target": 1, "name": "x", "inks": [{"shown": "#000"}]})"
                             << "2 to 256";
    QTest::newRow("no colour") << R"({"halftone-target": 1, "name": "x", "inks": [{"name": "a"}, {"shown": "#fff"}]})"
                               << "needs a colour";
    QTest::newRow("width") << R"({"halftone-target": 1, "name": "x", "width": -3})"
                           << "width";
}

void TestTarget::badTargetFilesAreRefused() {
    QFETCH(QString, text);
    QFETCH(QString, word);
    Target t;
    const Status s = io::parseTargetFile("bad.json", text.toStdString(), t);
    QVERIFY(!s);
    QVERIFY2(s.message().find("bad.json") != std::string::npos, s.message().c_str());
    QVERIFY2(s.message().find(word.toStdString()) != std::string::npos, s.message().c_str());
}

void TestTarget::presetsNameATarget() {
    JobSettings job;
    job.method = "ed";
    job.target = "waveshare-7.3e";
    job.prepare.fit = ResizeFit::Contain;
    job.prepare.background = Rgb8{255, 255, 255};
    JobSettings back;
    const Status s = io::parsePreset("p.json", io::presetJson(job), back);
    QVERIFY2(s, s.message().c_str());
    QCOMPARE(back.target, job.target);
    QVERIFY(back.prepare == job.prepare);
    JobSettings again;
    QVERIFY(io::parsePreset("p.json", io::presetJson(back), again));
    QVERIFY(again == back);
    // The target's frame with the preset's contain fit: 800 x 480 letterboxed.
    RunResult r;
    QVERIFY(runJob(back, test::randomRgb(30, 30, test::freshSeed("preset target")), r));
    QCOMPARE(r.image.width(), 800);
    QCOMPARE(r.image.height(), 480);
}

void TestTarget::namesAndConflicts() {
    Target t;
    QVERIFY(resolveTarget("Inky_Impression_5.7", t));
    QCOMPARE(t.name, std::string("inky-impression-5.7"));
    const Status unknown = resolveTarget("inky-impresion-5.7", t);
    QVERIFY(!unknown);
    QVERIFY2(unknown.message().find("did you mean 'inky-impression-5.7'") != std::string::npos,
             unknown.message().c_str());
    JobSettings job;
    job.target = "inky-what-red";
    job.palette = "bwr";
    const Status both = validateJob(job);
    QVERIFY(!both);
    QVERIFY2(both.message().find("leave out the palette") != std::string::npos, both.message().c_str());
    QVERIFY(!resolveTarget("/nonexistent/frame.json", t));
}

void TestTarget::simulatedPanelShowsTheShownColours_data() { outputHasTheFrameAndOnlyTheCodes_data(); }

void TestTarget::simulatedPanelShowsTheShownColours() {
    auto [target, job] = rowTargetJob();
    QVERIFY(target);
    const Target& t = *target;
    job.prepare.width = 41;  // the job's own size, so that every device runs on the same small image
    job.prepare.height = 29;
    const Image in = test::randomRgb(41, 29, test::freshSeed("panel"));
    RunResult r;
    const Status s = runJob(job, in, r);
    QVERIFY2(s, s.message().c_str());
    Image shown;
    QVERIFY(simulatePanel(t, r.image, shown));
    QCOMPARE(shown.space, ColorSpace::RGB);
    QCOMPARE(shown.width(), 41);
    QCOMPARE(shown.height(), 29);
    for (size_t i = 0; i < shown.channels[0].size(); ++i) {
        Rgb8 want{};
        if (t.inks.empty()) {
            want.fill(r.image.channels[0].data[i]);
        } else {
            const auto ink = std::find_if(t.inks.begin(), t.inks.end(),
                                          [&](const TargetInk& k) { return k.code == r.image.indices.data[i]; });
            QVERIFY(ink != t.inks.end());
            want = ink->shown;
        }
        for (size_t c = 0; c < 3; ++c) QCOMPARE(shown.channels[c].data[i], want[c]);
    }
    // From a file's colours (no indices: an indexed file is expanded when read) the same view.
    Image colours = r.image;
    colours.palette.clear();
    colours.indices = Plane8();
    Image fromColours;
    QVERIFY(simulatePanel(t, colours, fromColours));
    for (size_t c = 0; c < 3; ++c) QVERIFY(fromColours.channels[c] == shown.channels[c]);
    // The measure is the filtered Delta E 2000 of the view; with the nominal colours shown it is that of the file.
    double de = 0;
    QVERIFY(panelDeltaE2000(t, in, r.image, de));
    QCOMPARE(de, filteredDeltaE2000(in, shown));
    Target ideal = t;
    for (TargetInk& k : ideal.inks) k.shown = k.nominal;
    double deIdeal = 0;
    QVERIFY(panelDeltaE2000(ideal, in, r.image, deIdeal));
    QCOMPARE(deIdeal, filteredDeltaE2000(in, r.image));
    if (ideal.shownPalette() != t.shownPalette()) QVERIFY2(std::abs(de - deIdeal) > 0.1, t.name.c_str());
    // Seen at a resolution and distance: the eye's Gaussian.
    PanelViewing far;
    far.dpi = 128;
    far.distanceInches = 40;
    double deFar = 0;
    QVERIFY(panelDeltaE2000(t, in, r.image, deFar, far));
    QCOMPARE(deFar,
             filteredDeltaE2000(in, shown, eyeSigmaPixels({128, 40}), int(std::ceil(3 * eyeSigmaPixels({128, 40})))));
}

void TestTarget::simulatedPanelRefusesForeignColours() {
    const Target& t = *findBuiltinTarget("inky-impression-7.3-spectra6");
    Image im = test::randomRgb(5, 3, test::freshSeed("foreign"));
    for (Plane8& p : im.channels) p.data.assign(p.size(), 255);
    im.channels[1].at(2, 4) = 128;  // one pixel that is none of the driver's colours
    Image shown;
    const Status s = simulatePanel(t, im, shown);
    QVERIFY(!s);
    QVERIFY2(QString::fromStdString(s.message()).contains("pixel (4, 2) is #ff80ff"), s.message().c_str());
    // Two inks with one nominal colour: a file cannot tell them apart.
    Target twin = t;
    twin.inks[2].nominal = twin.inks[3].nominal;
    QVERIFY(!simulatePanel(twin, im, shown));
    // Sizes that differ are named.
    double de = 0;
    const Status size = panelDeltaE2000(t, test::randomRgb(6, 3, test::freshSeed("foreign")), im, de);
    QVERIFY2(QString::fromStdString(size.message()).contains("6 x 3") &&
                 QString::fromStdString(size.message()).contains("5 x 3"),
             size.message().c_str());
}

QTEST_APPLESS_MAIN(TestTarget)
#include "test_target.moc"
