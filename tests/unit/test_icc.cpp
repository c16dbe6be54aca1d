// Separation through ICC profiles (io/icc.h) with Ghostscript's free CMYK profiles from Debian's libgs-common:
// known patches (white, black, a neutral grey), the ink total against the profile's limit over the whole RGB cube,
// the ink limit after the transform, the intents and the input profile, convertColor and runImage through the
// separator, and every kind of bad profile refused with its file named.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/job/registry.h"
#include "core/print/separation.h"
#include "io/icc.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

/// The Ghostscript profile NAME.icc as `NAMEPath`, or a skip that names the package that ships it.
#define REQUIRE_PROFILE(name)                                              \
    const std::string name##Path = test::ghostscriptProfile(#name ".icc"); \
    HALFTONE_SKIP_WITHOUT_PROFILE(name##Path)

std::array<int, 4> separateOne(const Separator& s, int r, int g, int b) {
    const uint8_t rgb[3] = {uint8_t(r), uint8_t(g), uint8_t(b)};
    uint8_t cmyk[4] = {};
    s.separate(rgb, cmyk, 1);
    return {cmyk[0], cmyk[1], cmyk[2], cmyk[3]};
}

std::shared_ptr<const io::IccSeparator> load(const IccProfiles& p) {
    std::shared_ptr<const io::IccSeparator> s;
    const Status st = io::IccSeparator::load(p, s);
    if (!st) qWarning("%s", st.message().c_str());
    return s;
}

}  // namespace

class TestIcc : public QObject {
    Q_OBJECT
private slots:
    void knownPatches_data();
    void knownPatches();
    void inkTotalWithinTheProfilesLimit_data();
    void inkTotalWithinTheProfilesLimit();
    void inkLimitAfterTheTransform();
    void intentsAndInputProfile();
    void convertColorAndRunImageUseTheSeparator();
    void proofInksFromTheProfile();
    void madeOnceWhileTheFilesStay();
    void badProfiles_data();
    void badProfiles();
};

void TestIcc::knownPatches_data() {
    // blackInk: the profile generates black (default_cmyk, a SWOP press: rich black, K growing into the shadows) or
    // separates into C, M and Y alone (ps_cmyk, the inverse of PostScript's CMYK-to-RGB rule: K stays 0).
    // cyanLead: how much more cyan than magenta or yellow a neutral mid grey takes at least (a press's grey balance;
    // ps_cmyk's is equal C, M and Y).
    test::columns<QString, bool, int>("profile", "blackInk", "cyanLead");
    QTest::newRow("default_cmyk") << "default_cmyk.icc" << true << 8;
    QTest::newRow("ps_cmyk") << "ps_cmyk.icc" << false << 0;
}

void TestIcc::knownPatches() {
    QFETCH(QString, profile);
    QFETCH(bool, blackInk);
    QFETCH(int, cyanLead);
    const std::string path = test::ghostscriptProfile(profile.toStdString());
    HALFTONE_SKIP_WITHOUT_PROFILE(path);
    const auto sep = load({"", path, RenderingIntent::Relative});
    QVERIFY(sep);
    const double cap = sep->totalAreaCoverage() * 255 / 100;
    // White is the paper: no ink at all.
    QCOMPARE(separateOne(*sep, 255, 255, 255), (std::array<int, 4>{0, 0, 0, 0}));
    // Black is the profile's darkest colour: at least 95 % of its total ink limit and not over it (one 8-bit step of
    // rounding per ink).
    const std::array<int, 4> black = separateOne(*sep, 0, 0, 0);
    const int blackTotal = black[0] + black[1] + black[2] + black[3];
    const std::array<int, 4> grey = separateOne(*sep, 128, 128, 128);
    qInfo("%s: black %d %d %d %d (TAC %.1f %%), grey 128 -> %d %d %d %d", qPrintable(profile), black[0], black[1],
          black[2], black[3], sep->totalAreaCoverage(), grey[0], grey[1], grey[2], grey[3]);
    QVERIFY2(blackTotal <= cap + 4, qPrintable(QString("total %1, limit %2").arg(blackTotal).arg(cap)));
    QVERIFY2(blackTotal >= 0.95 * cap, qPrintable(QString("total %1, limit %2").arg(blackTotal).arg(cap)));
    if (blackInk) {
        // A rich black: nearly solid black ink under a good share of each colour ink.
        QVERIFY2(black[3] >= 200, qPrintable(QString("K %1").arg(black[3])));
        for (size_t c = 0; c < 3; ++c) QVERIFY2(black[c] >= 100, qPrintable(QString("ink %1").arg(c)));
    }
    // A neutral mid grey: the profile's grey balance, magenta and yellow close together.
    QVERIFY2(grey[0] >= grey[1] + cyanLead && grey[0] >= grey[2] + cyanLead, "the grey balance's cyan");
    QVERIFY2(std::abs(grey[1] - grey[2]) <= 16, "magenta and yellow balance");
    // Greys darken monotonically in the total ink; black ink appears only where the profile generates it.
    int previous = -1;
    for (int v = 255; v >= 0; v -= 15) {
        const std::array<int, 4> g = separateOne(*sep, v, v, v);
        const int total = g[0] + g[1] + g[2] + g[3];
        QVERIFY2(total >= previous, qPrintable(QString("grey %1").arg(v)));
        if (!blackInk) QCOMPARE(g[3], 0);
        previous = total;
    }
}

void TestIcc::inkTotalWithinTheProfilesLimit_data() {
    test::columns<QString, int>("profile", "intent");
    for (const char* p : {"default_cmyk.icc", "ps_cmyk.icc"})
        for (RenderingIntent i : {RenderingIntent::Perceptual, RenderingIntent::Relative, RenderingIntent::Saturation,
                                  RenderingIntent::Absolute})
            QTest::newRow(qPrintable(QString("%1 %2").arg(p, toString(i)))) << QString(p) << int(i);
}

void TestIcc::inkTotalWithinTheProfilesLimit() {
    // Every colour of a 52-step RGB cube (and of each axis at every value) keeps C + M + Y + K within the total area
    // coverage LittleCMS finds in the profile. The tolerance is 2 % of solid: the transform interpolates between the
    // profile's table points, and the TAC is estimated from a sampling of the same tables.
    QFETCH(QString, profile);
    QFETCH(int, intent);
    const std::string path = test::ghostscriptProfile(profile.toStdString());
    HALFTONE_SKIP_WITHOUT_PROFILE(path);
    const auto sep = load({"", path, RenderingIntent(intent)});
    QVERIFY(sep);
    const double tac = sep->totalAreaCoverage();
    QVERIFY2(tac > 100 && tac <= 400, qPrintable(QString::number(tac)));
    std::vector<uint8_t> rgb, cmyk;
    for (int r = 0; r < 256; r += 5)
        for (int g = 0; g < 256; g += 5)
            for (int b = 0; b < 256; b += 5) rgb.insert(rgb.end(), {uint8_t(r), uint8_t(g), uint8_t(b)});
    const size_t n = rgb.size() / 3;
    cmyk.resize(n * 4);
    sep->separate(rgb.data(), cmyk.data(), n);
    int most = 0;
    for (size_t i = 0; i < n; ++i)
        most = std::max(most, cmyk[i * 4] + cmyk[i * 4 + 1] + cmyk[i * 4 + 2] + cmyk[i * 4 + 3]);
    qInfo("%s %s: TAC %.1f %%, largest total %.1f %%", qPrintable(profile), toString(RenderingIntent(intent)), tac,
          most * 100.0 / 255);
    QVERIFY2(most * 100.0 / 255 <= tac + 2,
             qPrintable(QString("%1 % over the TAC %2 %").arg(most * 100.0 / 255).arg(tac)));
}

void TestIcc::inkLimitAfterTheTransform() {
    // --ink-limit beside --icc-out caps the profile's separation further, pixel by pixel (limitInk after it).
    REQUIRE_PROFILE(default_cmyk);
    const auto sep = load({"", default_cmykPath, RenderingIntent::Relative});
    QVERIFY(sep);
    const Image im = test::randomRgb(67, 41, "icc ink limit");
    SeparationParams p;
    p.separator = sep;
    const Image free = convertColor(im, ColorMode::CMYK, p);
    p.inkLimit = 200;
    const Image limited = convertColor(im, ColorMode::CMYK, p);
    int capped = 0;
    for (size_t i = 0; i < free.channels[0].size(); ++i) {
        std::array<uint8_t, 4> want;
        for (size_t c = 0; c < 4; ++c) want[c] = free.channels[c].data[i];
        limitInk(want, 200);
        int total = 0;
        for (size_t c = 0; c < 4; ++c) {
            QCOMPARE(limited.channels[c].data[i], want[c]);
            total += want[c];
        }
        QVERIFY(total <= inkCap(200));
        capped += free.channels[0].data[i] != want[0];
    }
    QVERIFY2(capped > 0, "some colours need more than 200 %");
}

void TestIcc::intentsAndInputProfile() {
    REQUIRE_PROFILE(default_cmyk);
    REQUIRE_PROFILE(a98);
    // A saturated green, outside the press's gamut: perceptual and relative colorimetric separate it differently.
    const auto relative = load({"", default_cmykPath, RenderingIntent::Relative});
    const auto perceptual = load({"", default_cmykPath, RenderingIntent::Perceptual});
    QVERIFY(relative && perceptual);
    std::vector<uint8_t> rgb;
    for (int v = 0; v < 256; v += 3) rgb.insert(rgb.end(), {uint8_t(v / 4), uint8_t(255 - v / 8), uint8_t(v / 3)});
    const size_t n = rgb.size() / 3;
    std::vector<uint8_t> a(n * 4), b(n * 4), c(n * 4);
    relative->separate(rgb.data(), a.data(), n);
    perceptual->separate(rgb.data(), b.data(), n);
    QVERIFY2(a != b, "perceptual and relative colorimetric give the same separation");
    // The same RGB numbers in Adobe RGB (1998) are more saturated colours than in sRGB: another separation.
    const auto wide = load({a98Path, default_cmykPath, RenderingIntent::Relative});
    QVERIFY(wide);
    wide->separate(rgb.data(), c.data(), n);
    QVERIFY2(a != c, "--icc-in a98.icc gives the sRGB separation");
    // Grey stays grey in both: the input profile does not tint neutrals.
    const std::array<int, 4> g1 = separateOne(*relative, 128, 128, 128), g2 = separateOne(*wide, 128, 128, 128);
    for (size_t i = 0; i < 4; ++i) QVERIFY2(std::abs(g1[i] - g2[i]) <= 20, qPrintable(QString("ink %1").arg(i)));
}

void TestIcc::convertColorAndRunImageUseTheSeparator() {
    REQUIRE_PROFILE(ps_cmyk);
    const auto sep = load({"", ps_cmykPath, RenderingIntent::Relative});
    QVERIFY(sep);
    const Image im = test::randomRgb(131, 29, "icc convertColor");  // 3799 pixels: one run of 4096, partly filled
    SeparationParams p;
    p.separator = sep;
    const Image cmyk = convertColor(im, ColorMode::CMYK, p);
    QCOMPARE(cmyk.space, ColorSpace::CMYK);
    for (size_t i = 0; i < im.channels[0].size(); i += 7) {
        const std::array<int, 4> want =
            separateOne(*sep, im.channels[0].data[i], im.channels[1].data[i], im.channels[2].data[i]);
        for (size_t c = 0; c < 4; ++c) QCOMPARE(int(cmyk.channels[c].data[i]), want[c]);
    }
    QVERIFY(cmyk.channels != convertColor(im, ColorMode::CMYK, SeparationParams{}).channels);
    // A larger image crosses several runs of the separator.
    const Image big = test::randomRgb(300, 40, "icc convertColor runs");
    const Image bigCmyk = convertColor(big, ColorMode::CMYK, p);
    const size_t last = big.channels[0].size() - 1;
    const std::array<int, 4> want =
        separateOne(*sep, big.channels[0].data[last], big.channels[1].data[last], big.channels[2].data[last]);
    for (size_t c = 0; c < 4; ++c) QCOMPARE(int(bigCmyk.channels[c].data[last]), want[c]);
    // runImage screens the separator's inks.
    RunRequest req;
    req.method = Registry::instance().find("ed", Registry::instance().defaultVariant("ed"));
    QVERIFY(req.method);
    req.color = ColorMode::CMYK;
    req.separation = p;
    RunResult viaSeparator, viaPlanes;
    QVERIFY(runImage(im, req, viaSeparator).isOk());
    req.separation = SeparationParams{};
    QVERIFY(runImage(cmyk, req, viaPlanes).isOk());
    QVERIFY(viaSeparator.image.channels == viaPlanes.image.channels);
}

void TestIcc::proofInksFromTheProfile() {
    // The proof's paper and solid inks come from the output profile: white paper, a cyan that is blue-green, a
    // black darker than the other solids.
    REQUIRE_PROFILE(default_cmyk);
    const auto sep = load({"", default_cmykPath, RenderingIntent::Relative});
    QVERIFY(sep);
    const PrintInks& inks = sep->printInks();
    QCOMPARE(inks.paper, (std::array<uint8_t, 3>{255, 255, 255}));
    QVERIFY(inks.cyan[0] < 100 && inks.cyan[2] > 150);
    QVERIFY(inks.magenta[1] < 100 && inks.magenta[0] > 150);
    QVERIFY(inks.yellow[2] < 100 && inks.yellow[0] > 200 && inks.yellow[1] > 200);
    QVERIFY(inks.black[0] < 80 && inks.black[1] < 80 && inks.black[2] < 80);
}

void TestIcc::madeOnceWhileTheFilesStay() {
    // The last separator is given again for the same files, intent and file times; a changed file or intent makes a
    // new one.
    REQUIRE_PROFILE(default_cmyk);
    QTemporaryDir dir;
    const std::string copy = dir.filePath("press.icc").toStdString();
    QVERIFY(QFile::copy(QString::fromStdString(default_cmykPath), QString::fromStdString(copy)));
    const auto a = load({"", copy, RenderingIntent::Relative});
    const auto b = load({"", copy, RenderingIntent::Relative});
    QVERIFY(a && a == b);
    const auto c = load({"", copy, RenderingIntent::Perceptual});
    QVERIFY(c && c != a);
    const auto d = load({"", copy, RenderingIntent::Perceptual});
    QVERIFY(d == c);
    std::filesystem::last_write_time(copy, std::filesystem::last_write_time(copy) + std::chrono::seconds(5));
    const auto e = load({"", copy, RenderingIntent::Perceptual});
    QVERIFY(e && e != c);
}

void TestIcc::badProfiles_data() {
    // args: which option gets the bad file (out / in); file: a name under the temporary folder made by the test, a
    // Ghostscript profile (gs:NAME), or a path as it is.
    test::columns<QString, QString, QString>("option", "file", "message");
    QTest::newRow("missing") << "out"
                             << "tmp:no-such.icc"
                             << "--icc-out: cannot read ICC profile '%1': No such file or directory";
    QTest::newRow("directory") << "out"
                               << "tmp:"
                               << "--icc-out: cannot read ICC profile '%1': not a regular file";
    QTest::newRow("/dev/zero") << "out"
                               << "/dev/zero"
                               << "--icc-out: cannot read ICC profile '%1': not a regular file";
    QTest::newRow("empty") << "out"
                           << "tmp:empty.icc"
                           << "--icc-out: '%1' is not an ICC profile: 0 bytes, too short";
    QTest::newRow("too large") << "out"
                               << "tmp:huge.icc"
                               << "--icc-out: ICC profile '%1' is larger than 64 MiB: not an ICC profile";
    QTest::newRow("png") << "out"
                         << "tmp:picture.icc"
                         << "--icc-out: '%1' is not an ICC profile";
    QTest::newRow("truncated") << "out"
                               << "tmp:truncated.icc"
                               << "--icc-out: '%1' is not an ICC profile";
    QTest::newRow("rgb as output") << "out"
                                   << "gs:default_rgb.icc"
                                   << "--icc-out: '%1' is an RGB profile; separating into inks needs a CMYK output "
                                      "profile";
    QTest::newRow("gray as output") << "out"
                                    << "gs:default_gray.icc"
                                    << "--icc-out: '%1' is a gray profile";
    QTest::newRow("cmyk as input") << "in"
                                   << "gs:ps_cmyk.icc"
                                   << "--icc-in: '%1' is a CMYK profile; the source profile of a separation must be an "
                                      "RGB one";
    QTest::newRow("missing input") << "in"
                                   << "tmp:none.icc"
                                   << "--icc-in: cannot read ICC profile '%1': No such file or directory";
}

void TestIcc::badProfiles() {
    QFETCH(QString, option);
    QFETCH(QString, file);
    QFETCH(QString, message);
    QTemporaryDir dir;
    std::string path = file.toStdString();
    if (file.startsWith("gs:")) {
        path = test::ghostscriptProfile(file.mid(3).toStdString());
        HALFTONE_SKIP_WITHOUT_PROFILE(path);
    } else if (file.startsWith("tmp:")) {
        path = dir.filePath(file.mid(4)).toStdString();
        std::ofstream f;
        if (file == "tmp:empty.icc") f.open(path, std::ios::binary);
        if (file == "tmp:huge.icc") {  // sparse: one byte over the limit
            f.open(path, std::ios::binary);
            f.close();
            std::filesystem::resize_file(path, io::kMaxIccProfileBytes + 1);
        }
        if (file == "tmp:picture.icc") {
            std::ifstream png(test::dataPath("moon.png"), std::ios::binary);
            f.open(path, std::ios::binary);
            f << png.rdbuf();
        }
        if (file == "tmp:truncated.icc") {
            const std::string whole = test::ghostscriptProfile("default_cmyk.icc");
            HALFTONE_SKIP_WITHOUT_PROFILE(whole);
            std::ifstream src(whole, std::ios::binary);
            std::string bytes((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
            f.open(path, std::ios::binary);
            f.write(bytes.data(), std::streamsize(bytes.size() / 3));
        }
        if (file == "tmp:") path = dir.path().toStdString();
    }
    IccProfiles p;
    p.output = test::ghostscriptProfile("default_cmyk.icc");
    if (option == "out") p.output = path;
    if (option == "in") {
        HALFTONE_SKIP_WITHOUT_PROFILE(p.output);
        p.input = path;
    }
    std::shared_ptr<const io::IccSeparator> sep;
    const Status s = io::IccSeparator::load(p, sep);
    QVERIFY(!s.isOk());
    QVERIFY(!sep);
    const QString want = message.arg(QString::fromStdString(path));
    QVERIFY2(QString::fromStdString(s.message()).startsWith(want),
             qPrintable(QString::fromStdString(s.message()) + "\nwanted: " + want));
}

QTEST_GUILESS_MAIN(TestIcc)
#include "test_icc.moc"
