// The `halftone` CLI's palette options as a process: --list-palettes, --show-palette, bad palette files and names
// refused before any work (exit code, file and line in the message, nothing written), and, with a method that has
// a palette form, indexed output that holds the palette's colours; --space and --match (linear light and the
// euclidean match by default) against the reference, and --keep-alpha as an indexed PNG with a tRNS chunk; `analyze
// --target` prints the simulated panel's Delta E of core/palette/panel.h.
#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>

#include <filesystem>
#include <fstream>
#include <set>

#include <sys/stat.h>

#include "core/palette/palette.h"
#include "core/palette/paletteed.h"
#include "core/palette/target.h"
#include "core/palette/panel.h"
#include "core/job/job.h"
#include "core/job/registry.h"
#include "core/quality/metrics.h"
#include "io/imagefile.h"
#include "tests/common/process.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;
namespace fs = std::filesystem;

namespace {

test::ProcessRun runCli(const QStringList& args) { return test::runProcess(HALFTONE_CLI_PATH, args, 120000); }

QString q(const std::string& s) { return QString::fromStdString(s); }

const std::string kPalettes = std::string(HALFTONE_TEST_DATA_DIR) + "/palettes/";

std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The methods as the CLI sees them (its registry includes the GPU palette forms found at start-up), asked once:
/// `ids` all "method/variant", `withPalette` those the CLI says can halftone to a palette.
struct CliMethods {
    QStringList ids, withPalette;
};

const CliMethods& cliMethods() {
    static const CliMethods info = [] {
        CliMethods c;
        for (const MethodInfo& m : Registry::instance().methods()) c.ids << q(m.id());
        // A method without a palette form is refused before the input is read, naming those that have one; a
        // method with one gets as far as the (missing) input.
        for (const MethodInfo& m : Registry::instance().methods()) {
            const auto r = runCli({"--method", q(m.method), "--variant", q(m.variant), "--palette", "bw",
                                   "/nonexistent/in.png", "/nonexistent/out.png"});
            const int at = r.err.indexOf("methods that can: ");
            if (r.exitCode == 2 && at >= 0) {
                const QString list = r.err.mid(at + 18).trimmed();
                if (list != "none in this build") c.withPalette = list.split(", ");
                return c;
            }
        }
        c.withPalette = c.ids;
        return c;
    }();
    return info;
}

/// A method ("method/variant") the CLI refuses to run to a palette, or empty.
QString plainMethod() {
    for (const QString& id : cliMethods().ids)
        if (!cliMethods().withPalette.contains(id)) return id;
    return {};
}

/// A method that halftones to a palette on this machine (a GPU-only palette form needs a GPU), or empty.
QString usablePaletteMethod() {
    static const QString found = [] {
        QTemporaryDir dir;
        for (const QString& id : cliMethods().withPalette) {
            const QStringList mv = id.split('/');
            const auto r = runCli({"--method", mv[0], "--variant", mv[1], "--palette", "bw",
                                   q(test::dataPath("moon.png")), dir.path() + "/probe.png"});
            if (r.exitCode == 0) return id;
        }
        return QString();
    }();
    return found;
}

/// --method M --variant V for an id "M/V".
QStringList methodArgs(const QString& id) {
    const QStringList mv = id.split('/');
    return {"--method", mv[0], "--variant", mv[1]};
}

}  // namespace

class TestPaletteCli : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> tmp_;
    std::string path(const std::string& name) const { return tmp_->path().toStdString() + "/" + name; }
    std::vector<std::string> entries() const {
        std::vector<std::string> v;
        for (const auto& e : fs::directory_iterator(tmp_->path().toStdString())) v.push_back(e.path().filename());
        std::sort(v.begin(), v.end());
        return v;
    }

private slots:
    void init() {
        tmp_ = std::make_unique<QTemporaryDir>();
        QVERIFY(tmp_->isValid());
    }

    void listPalettes() {
        const auto r = runCli({"--list-palettes"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), int(builtinPalettes().size()));
        for (int i = 0; i < lines.size(); ++i) {
            const QStringList f = lines[i].split('\t');
            QCOMPARE(f.size(), 4);
            const BuiltinPalette& b = builtinPalettes()[size_t(i)];
            QCOMPARE(f[0], q(b.name));
            QCOMPARE(f[1], q(b.group));
            QCOMPARE(f[2].toInt(), b.palette.size());
            QCOMPARE(f[3], q(b.description));
        }
        for (const char* name :
             {"bwr", "bwy", "gray4", "acep7", "spectra6", "cga", "ega", "gameboy", "c64", "pico8", "mac16", "websafe"})
            QVERIFY2(r.out.contains(QString(name) + "\t"), name);
    }

    void showPalette() {
        // A built-in and a file: the listing is itself a .hex palette with the same colours.
        for (const std::string& spec : {std::string("pico8"), kPalettes + "c64.act", kPalettes + "ega.gpl"}) {
            const auto r = runCli({"--show-palette", q(spec)});
            QCOMPARE(r.exitCode, 0);
            Palette shown, expected;
            QVERIFY(parsePaletteFile("shown.hex", r.out.toStdString(), shown).isOk());
            QVERIFY(resolvePalette(spec, nullptr, expected).isOk());
            QCOMPARE(shown.colors, expected.colors);
        }
        const auto bad = runCli({"--show-palette", q(kPalettes + "bad/bad-digit.hex")});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(q("palette file '" + kPalettes + "bad/bad-digit.hex', line 4:")),
                 qPrintable(bad.err));
        QCOMPARE(runCli({"--show-palette", "auto:8"}).exitCode, 2);
    }

    void badPaletteFiles_data() {
        test::stringRows<2>({"file", "where"},
                            {{"bad hex digit", "bad/bad-digit.hex", "', line 4: expected a colour as RRGGBB"},
                             {"one colour", "bad/one-colour.gpl", "': holds only 1 colour"},
                             {"no gpl header", "bad/no-header.gpl", "', line 1: a GIMP palette starts"},
                             {"over 255", "bad/over-255.gpl", "', line 3: value 256 is over 255"},
                             {"truncated act", "bad/truncated.act", "': an Adobe colour table is 768 or 772 bytes"},
                             {"257 colours", "bad/too-many.hex", "', line 257: more than 256 colours"},
                             {"empty", "bad/empty.hex", "': holds no colours"},
                             {"unknown format", "bad/unknown.xyz", "': not a palette file this program reads"},
                             {"missing", "bad/missing.gpl", "': cannot be read"}});
    }
    void badPaletteFiles() {
        QFETCH(QString, file);
        QFETCH(QString, where);
        const std::string palette = kPalettes + file.toStdString();
        const std::string out = path("out.png");
        const auto r = runCli({"--palette", q(palette), q(test::dataPath("moon.png")), q(out)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith("halftone: palette file '" + q(palette) + where), qPrintable(r.err));
        QCOMPARE(r.err.count('\n'), 1);  // one line
        QVERIFY(entries().empty());      // nothing written, not even a temporary file
    }

    void paletteIsAFifo() {
        // Refused at once (a reader of a FIFO would wait for a writer forever).
        QTemporaryDir other;
        const std::string fifo = other.path().toStdString() + "/inks.gpl";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const auto r = runCli({"--palette", q(fifo), q(test::dataPath("moon.png")), q(path("out.png"))});
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(q("palette file '" + fifo + "': cannot be read: not a regular file")),
                 qPrintable(r.err));
        QVERIFY(entries().empty());
    }

    void badPaletteSpecs_data() {
        test::columns<QStringList, int, QString>("args", "exitCode", "message");
        QTest::newRow("auto:1") << QStringList{"--palette", "auto:1"} << 2
                                << "auto:N needs a number of colours N from 2 to 256";
        QTest::newRow("auto:257") << QStringList{"--palette", "auto:257"} << 2 << "from 2 to 256";
        QTest::newRow("auto:") << QStringList{"--palette", "auto:"} << 2 << "from 2 to 256";
        QTest::newRow("auto:x") << QStringList{"--palette", "auto:x"} << 2 << "from 2 to 256";
        QTest::newRow("unknown name") << QStringList{"--palette", "pico9"} << 2 << "unknown palette 'pico9'";
        QTest::newRow("save without palette")
            << QStringList{"--save-palette", "p.hex"} << 2 << "--save-palette needs --palette";
        QTest::newRow("save to unknown format")
            << QStringList{"--palette", "bw", "--save-palette", "p.png"} << 2 << "unknown extension '.png'";
    }
    void badPaletteSpecs() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QDir::setCurrent(tmp_->path());
        const auto r = runCli(args + QStringList{q(test::dataPath("moon.png")), q(path("out.png"))});
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(entries().empty());
    }

    void methodWithoutPaletteForm() {
        const QString m = plainMethod();
        if (m.isEmpty()) QSKIP("every method of this build has a palette form");
        const auto r =
            runCli(methodArgs(m) + QStringList{"--palette", "bwr", q(test::dataPath("moon.png")), q(path("out.png"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("method " + m + " cannot halftone to a palette; methods that can: "),
                 qPrintable(r.err));
        QVERIFY(entries().empty());
    }

    void outputThatCannotHoldColour() {
        // A palette output is RGB: PGM and PBM are refused before any work, whatever the method.
        if (cliMethods().withPalette.isEmpty()) QSKIP("no method of this build has a palette form");
        const auto r = runCli(methodArgs(cliMethods().withPalette.front()) +
                              QStringList{"--palette", "gray4", q(test::dataPath("moon.png")), q(path("out.pgm"))});
        QCOMPARE(r.exitCode, 2);  // a usage error: the job does not fit the format
        QVERIFY2(r.err.contains("cannot write"), qPrintable(r.err));
        QVERIFY(entries().empty());
    }

    void indexedOutput_data() {
        test::columns<QString, QString>("palette", "output");
        QTest::newRow("builtin to png") << "pico8"
                                        << "out.png";
        QTest::newRow("file to tif") << q(kPalettes + "gameboy.pal") << "out.tif";
        QTest::newRow("auto:8 to png") << "auto:8"
                                       << "out.png";
        QTest::newRow("bwr to ppm (RGB)") << "bwr"
                                          << "out.ppm";
    }
    void indexedOutput() {
        QFETCH(QString, palette);
        QFETCH(QString, output);
        const QString m = usablePaletteMethod();
        if (m.isEmpty()) QSKIP("no method of this build halftones to a palette on this machine");
        const std::string out = path(output.toStdString()), saved = path("used.gpl");
        const QStringList args =
            methodArgs(m) +
            QStringList{"--palette", palette, "--save-palette", q(saved), q(test::dataPath("chelsea.png")), q(out)};
        const auto r = runCli(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Palette used;
        QVERIFY(loadPaletteFile(saved, used).isOk());
        if (palette == "auto:8") {
            QCOMPARE(used.size(), 8);
        } else {
            Palette expected;
            QVERIFY(resolvePalette(palette.toStdString(), nullptr, expected).isOk());
            QCOMPARE(used.colors, expected.colors);
        }
        Image back;
        QVERIFY(io::readImage(out, back).isOk());
        QCOMPARE(back.space, ColorSpace::RGB);
        const std::set<Rgb8> allowed(used.colors.begin(), used.colors.end());
        std::set<Rgb8> seen;
        for (size_t i = 0; i < back.channels[0].size(); ++i)
            seen.insert({back.channels[0].data[i], back.channels[1].data[i], back.channels[2].data[i]});
        for (const Rgb8& c : seen) QVERIFY(allowed.count(c));
        QVERIFY(seen.size() >= 2);
        const std::string bytes = readBytes(out);
        if (output.endsWith(".png")) {
            // Colour type 3, and the PLTE chunk is the palette in its order (index k = colour k).
            QCOMPARE(int(uint8_t(bytes[25])), 3);
            const size_t plte = bytes.find("PLTE");
            QVERIFY(plte != std::string::npos);
            std::string expected;
            for (const Rgb8& c : used.colors) expected += std::string{char(c[0]), char(c[1]), char(c[2])};
            QCOMPARE(bytes.substr(plte + 4, expected.size()), expected);
            QCOMPARE(int(uint8_t(bytes[plte - 1])) + 256 * int(uint8_t(bytes[plte - 2])), int(expected.size()));
        }
        // The same command gives the same file (auto:N included).
        const std::string first = bytes;
        QVERIFY(fs::remove(out));
        QCOMPARE(runCli(args).exitCode, 0);
        QVERIFY(readBytes(out) == first);
    }

    void spaceAndMatch_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<bool>("linear");
        QTest::addColumn<bool>("weighted");
        QTest::newRow("default") << QStringList{} << true << false;
        QTest::newRow("gamma") << QStringList{"--space", "gamma"} << false << false;
        QTest::newRow("weighted") << QStringList{"--match", "weighted"} << true << true;
        QTest::newRow("gamma weighted") << QStringList{"--space", "gamma", "--match", "Weighted"} << false << true;
        QTest::newRow("--linear") << QStringList{"--linear", "--match", "euclidean"} << true << false;
    }
    void spaceAndMatch() {
        // Error diffusion to a palette through the CLI equals the reference of section 4 with the space and match
        // asked for, pixel for pixel.
        QFETCH(QStringList, options);
        QFETCH(bool, linear);
        QFETCH(bool, weighted);
        const std::string out = path("out.png");
        const auto r = runCli(QStringList{"--method", "ed", "--variant", "plain", "--palette", "pico8"} + options +
                              QStringList{q(test::dataPath("chelsea.png")), q(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Image in, back;
        QVERIFY(io::readImage(test::dataPath("chelsea.png"), in).isOk());
        QVERIFY(io::readImage(out, back).isOk());
        EdParams p;
        p.linear = linear;
        p.match = weighted ? PaletteMatch::Weighted : PaletteMatch::Euclidean;
        Palette pal;
        QVERIFY(resolvePalette("pico8", nullptr, pal).isOk());
        const Image want = expandIndexed(referencePaletteErrorDiffusion(convertColor(in, ColorMode::RGB), pal, p), pal);
        for (int c = 0; c < 3; ++c) QVERIFY(back.channels[size_t(c)] == want.channels[size_t(c)]);
        // and the four settings give four different images
        p.match = weighted ? PaletteMatch::Euclidean : PaletteMatch::Weighted;
        const Image other =
            expandIndexed(referencePaletteErrorDiffusion(convertColor(in, ColorMode::RGB), pal, p), pal);
        QVERIFY(!(other.channels[0] == want.channels[0] && other.channels[1] == want.channels[1] &&
                  other.channels[2] == want.channels[2]));
    }

    void spaceAndMatchUsage_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("message");
        QTest::newRow("both spaces") << QStringList{"--palette", "pico8", "--linear", "--space", "gamma"}
                                     << "--linear is --space linear";
        QTest::newRow("unknown match") << QStringList{"--palette", "pico8", "--match", "cie76"} << "--match 'cie76'";
        QTest::newRow("unknown space") << QStringList{"--palette", "pico8", "--space", "lab"} << "--space 'lab'";
        QTest::newRow("match without palette") << QStringList{"--match", "weighted"} << "needs --palette";
    }
    void spaceAndMatchUsage() {
        QFETCH(QStringList, options);
        QFETCH(QString, message);
        const auto r = runCli(options + QStringList{q(test::dataPath("chelsea.png")), q(path("out.png"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(entries().empty());
    }

    void keepAlphaIndexed() {
        // An RGBA input with opaque, clear and half-clear areas: with --keep-alpha and a palette the output is an
        // indexed PNG (colour type 3) with a tRNS chunk, whose pixels read back as the palette's colours with the
        // input's alpha.
        const Image rgb =
            convertColor(Image::gray(test::randomPlane(41, 23, test::freshSeed("keep-alpha"))), ColorMode::RGB);
        Image in = rgb;
        in.hasAlpha = true;
        in.alpha = Plane8(41, 23, 255);
        for (int y = 0; y < 23; ++y)
            for (int x = 0; x < 41; ++x)
                if (x < 10)
                    in.alpha.at(y, x) = 0;
                else if (x < 14)
                    in.alpha.at(y, x) = 128;
        const std::string src = path("in.png"), out = path("out.png");
        QVERIFY(io::writeImage(src, in).isOk());
        const auto r = runCli({"--palette", "pico8", "--keep-alpha", q(src), q(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const std::string bytes = readBytes(out);
        QCOMPARE(int(uint8_t(bytes[25])), 3);
        QVERIFY(bytes.find("tRNS") != std::string::npos);
        Image back;
        QVERIFY(io::readImage(out, back).isOk());
        QVERIFY(back.hasAlpha);
        QVERIFY(back.alpha == in.alpha);
        Palette pal;
        QVERIFY(resolvePalette("pico8", nullptr, pal).isOk());
        const std::set<Rgb8> allowed(pal.colors.begin(), pal.colors.end());
        for (size_t i = 0; i < back.channels[0].size(); ++i)
            QVERIFY(allowed.count({back.channels[0].data[i], back.channels[1].data[i], back.channels[2].data[i]}));
        // without --keep-alpha: indexed, no tRNS
        QVERIFY(fs::remove(out));
        QCOMPARE(runCli({"--palette", "pico8", q(src), q(out)}).exitCode, 0);
        QVERIFY(readBytes(out).find("tRNS") == std::string::npos);
    }

    void targetsWriteTheFrameAndTheDriversPalette() {
        const auto list = runCli({"--list-targets"});
        QCOMPARE(list.exitCode, 0);
        QCOMPARE(list.out.split('\n', Qt::SkipEmptyParts).size(), int(builtinTargets().size()));
        QVERIFY(list.out.contains("inky-impression-7.3-spectra6\te-paper\t800x480\t6 colours, codes 0,1,2,3,5,6\t"));
        // Spectra 6: 800 x 480 from a 3:2 photo, an indexed PNG whose palette holds the driver's colours at codes
        // 0..6 (4 unused, black).
        const std::string out = path("frame.png");
        const auto r = runCli({"--target", "Waveshare-7.3E", q(test::dataPath("chelsea.png")), q(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const std::string bytes = readBytes(out);
        QCOMPARE(int(uint8_t(bytes[25])), 3);
        const size_t plte = bytes.find("PLTE");
        QVERIFY(plte != std::string::npos);
        const std::string entries = bytes.substr(plte + 4, 21);
        const std::string want("\x00\x00\x00\xff\xff\xff\xff\xff\x00\xff\x00\x00\x00\x00\x00\x00\x00\xff\x00\xff\x00",
                               21);
        QCOMPARE(int(uint8_t(bytes[plte - 1])), 21);  // seven entries
        QVERIFY(entries == want);
        Image back;
        QVERIFY(io::readImage(out, back).isOk());
        QCOMPARE(back.width(), 800);
        QCOMPARE(back.height(), 480);
        // Usage errors before any work: a palette beside a target, an unknown target, a bad target file.
        QCOMPARE(runCli({"--target", "waveshare-7.3e", "--palette", "bw", "/nonexistent/in.png", q(out)}).exitCode, 2);
        const auto unknown = runCli({"--target", "waveshare-7.3", "/nonexistent/in.png", q(out)});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("did you mean"), qPrintable(unknown.err));
        const std::string bad = path("bad.json");
        {
            std::ofstream f(bad);
            f << R"({"halftone-target": 1, "name": "x", "inks": [{"shown": "#000"}, {"shown": "#fff", "code": 0}]})";
        }
        const auto file = runCli({"--target", q(bad), "/nonexistent/in.png", q(out)});
        QCOMPARE(file.exitCode, 2);
        QVERIFY2(file.err.contains("bad.json") && file.err.contains("code 0"), qPrintable(file.err));
        QCOMPARE(runCli({"--tone", "auto", "/nonexistent/in.png", q(out)}).exitCode, 2);
    }

    /// `halftone analyze --target` prints panelDeltaE2000 of the file against the original prepared to the frame;
    /// the number follows the colours the target shows.
    void analyzeSimulatedPanel() {
        const std::string target = "inky-impression-7.3-spectra6", photo = test::dataPath("chelsea.png");
        const std::string out = path("frame.png");
        const auto r = runCli({"--target", q(target), q(photo), q(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto panelDeltaE = [&](const QStringList& extra, const std::string& spec, double* plain = nullptr) {
            const auto a =
                runCli(QStringList{"analyze", "--json", "--target", q(spec)} + extra + QStringList{q(photo), q(out)});
            if (a.exitCode != 0) qWarning("%s", qPrintable(a.err));
            const QJsonObject o = QJsonDocument::fromJson(a.out.toUtf8()).object();
            if (plain) *plain = o.value("delta_e_2000").toDouble(qQNaN());
            return o.value("panel_delta_e_2000").toDouble(qQNaN());
        };
        // The core's number on the same pixels: the photo prepared as `--target` prepares it, the file as written.
        Image original, prepared, written;
        QVERIFY(io::readImage(photo, original));
        QVERIFY(io::readImage(out, written));
        JobSettings job, applied;
        job.target = target;
        QVERIFY(applyTarget(job, applied));
        QVERIFY(prepareImage(original, applied.prepare, prepared));
        const Target& t = *findBuiltinTarget(target);
        double want = 0;
        QVERIFY(panelDeltaE2000(t, prepared, written, want));
        const double measured = panelDeltaE({}, target);
        QCOMPARE(measured, want);
        // The same target with the driver's nominal colours shown: another number, that of the file itself.
        const std::string ideal = path("ideal.json");
        {
            std::ofstream f(ideal);
            f << R"({"halftone-target": 1, "name": "ideal", "width": 800, "height": 480, "inks": [)";
            for (size_t k = 0; k < t.inks.size(); ++k) {
                char ink[128];
                const Rgb8& c = t.inks[k].nominal;
                std::snprintf(ink, sizeof ink, R"(%s{"name": "%s", "code": %d, "nominal": "#%02x%02x%02x"})",
                              k ? ", " : "", t.inks[k].name.c_str(), t.inks[k].code, c[0], c[1], c[2]);
                f << ink;
            }
            f << "]}";
        }
        double plain = 0;
        const double nominal = panelDeltaE({}, ideal, &plain);
        QVERIFY2(std::abs(nominal - measured) > 0.5, qPrintable(QStringLiteral("%1 %2").arg(nominal).arg(measured)));
        QCOMPARE(nominal, plain);
        // Seen at the panel's resolution from a distance: the eye's Gaussian.
        PanelViewing viewing;
        viewing.dpi = 127;
        viewing.distanceInches = 20;
        QVERIFY(panelDeltaE2000(t, prepared, written, want, viewing));
        QCOMPARE(panelDeltaE({"--view-dpi", "127", "--view-distance", "20"}, target), want);
        // A file of another device's colours, and a lone --view-dpi, are refused.
        const std::string pico = path("pico8.png");
        QCOMPARE(
            runCli({"--palette", "pico8", "--width", "800", "--height", "480", "--fit", "cover", q(photo), q(pico)})
                .exitCode,
            0);
        const auto foreign = runCli({"analyze", "--target", q(target), q(photo), q(pico)});
        QCOMPARE(foreign.exitCode, 1);
        QVERIFY2(foreign.err.contains("pico8.png") && foreign.err.contains("none of the colours"),
                 qPrintable(foreign.err));
        QCOMPARE(runCli({"analyze", "--target", q(target), "--view-dpi", "127", q(photo), q(out)}).exitCode, 2);
        QCOMPARE(runCli({"analyze", "--target", "no-such-panel", q(photo), q(out)}).exitCode, 2);
    }

    void framingOptions() {
        const std::string out = path("framed.png");
        for (const char* fit : {"cover", "contain", "stretch"}) {
            const auto r = runCli({"--width", "80", "--height", "48", "--fit", fit, "--gravity", "north", "--rotate",
                                   "90", "--background", "#336699", q(test::dataPath("chelsea.png")), q(out)});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            Image back;
            QVERIFY(io::readImage(out, back).isOk());
            QCOMPARE(back.width(), 80);
            QCOMPARE(back.height(), 48);
        }
        QCOMPARE(runCli({"--fit", "fill-ish", "/nonexistent/in.png", q(out)}).exitCode, 2);
        QCOMPARE(runCli({"--rotate", "45", "/nonexistent/in.png", q(out)}).exitCode, 2);
        QCOMPARE(runCli({"--gravity", "up", "/nonexistent/in.png", q(out)}).exitCode, 2);
        const auto colour = runCli({"--background", "#12345", "/nonexistent/in.png", q(out)});
        QCOMPARE(colour.exitCode, 2);
        QVERIFY2(colour.err.contains("--background '#12345'"), qPrintable(colour.err));
    }
};

QTEST_GUILESS_MAIN(TestPaletteCli)
#include "test_palette_cli.moc"
