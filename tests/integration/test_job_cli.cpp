// The whole job from the command line, as processes: prepare options, presets, and `halftone batch` (mixed formats,
// nested folders, broken files among good ones, --skip-existing, shards), each batch output identical to the single
// command's.
#include <QtTest>

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <vector>

#include <OpenImageIO/imageio.h>

#include "tests/common/process.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

test::ProcessRun cli(const QStringList& args) { return test::runProcess(HALFTONE_CLI_PATH, args, 300000); }

QByteArray digest(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return "missing";
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

/// What a run made, without the writer's timestamp (a TIFF's DateTime): size, channels, sample type, resolution
/// and a digest of the pixels.
QByteArray decoded(const QString& path) {
    auto in = OIIO::ImageInput::open(path.toStdString());
    if (!in) return "unreadable";
    const OIIO::ImageSpec spec = in->spec();
    std::vector<unsigned char> pixels(spec.image_bytes());
    if (!in->read_image(0, 0, 0, spec.nchannels, spec.format, pixels.data())) return "unreadable pixels";
    return QByteArray::number(spec.width) + " x " + QByteArray::number(spec.height) + " x " +
           QByteArray::number(spec.nchannels) + " " + spec.format.c_str() + " at " +
           QByteArray::number(spec.get_float_attribute("XResolution", 0)) + " dpi: " +
           QCryptographicHash::hash(QByteArray(reinterpret_cast<const char*>(pixels.data()), qsizetype(pixels.size())),
                                    QCryptographicHash::Sha256)
               .toHex();
}

QString data(const char* name) { return QString::fromStdString(test::dataPath(name)); }

QStringList filesUnder(const QString& dir) {
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) out << QDir(dir).relativeFilePath(it.next());
    out.sort();
    return out;
}

/// A folder of inputs: PNG, JPEG, PGM (converted by the CLI itself), nested, one broken file and one text file.
void makeInputs(const QString& root) {
    QDir().mkpath(root + "/sub/deeper");
    QFile::copy(data("moon.png"), root + "/moon.png");
    QFile::copy(data("page.jpg"), root + "/sub/page.jpg");
    QFile::copy(data("chelsea.png"), root + "/sub/deeper/chelsea.png");
    QFile broken(root + "/sub/broken.png");
    broken.open(QIODevice::WriteOnly);
    broken.write("not a png at all");
    broken.close();
    QFile notes(root + "/notes.txt");
    notes.open(QIODevice::WriteOnly);
    notes.write("not an image");
}

}  // namespace

class TestJobCli : public QObject {
    Q_OBJECT
private slots:
    void resizeAndPixelSize();
    void printSizeWritesItsResolution();
    void badPrepareValuesAreUsageErrors();
    void presetRoundTripGivesTheSameOutput();
    void presetRoundTripEveryOption_data();
    void presetRoundTripEveryOption();
    void presetJobsCoverEveryOption();
    void presetRoundTripBatchFormat();
    void presetErrorsNameTheFile();
    void batchMatchesSingleRunsAndReportsFailures();
    void batchSkipExistingAndCollisions();
    void shardsAreDisjointAndComplete();
    void everyClashListedAtOnce();
    void batchUsageErrorOnce();
    void suffixRunIntoTheInputFolderCanRunAgain();
    void savePresetKeepsTheFormat();
    void timePerFileUnderJobs();
    void affinityMaskLimitsTheJobs();
};

void TestJobCli::resizeAndPixelSize() {
    QTemporaryDir dir;
    const QString out = dir.filePath("small.pgm");
    auto r = cli({"--width", "100", data("moon.png"), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readLine().startsWith("P5"));
    const QList<QByteArray> size = f.readLine().trimmed().split(' ');
    QCOMPARE(size.value(0), QByteArray("100"));
    // pixel size 4: every 4 x 4 block is one value
    const QString px = dir.filePath("px.pgm");
    r = cli({"--width", "64", "--pixel-size", "4", data("moon.png"), px});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile g(px);
    QVERIFY(g.open(QIODevice::ReadOnly));
    QCOMPARE(g.readLine().trimmed(), QByteArray("P5"));
    const QList<QByteArray> wh = g.readLine().trimmed().split(' ');
    const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
    QCOMPARE(w, 64);
    g.readLine();
    const QByteArray pixels = g.readAll();
    QCOMPARE(pixels.size(), w * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) QCOMPARE(pixels[y * w + x], pixels[(y / 4 * 4) * w + x / 4 * 4]);
}

void TestJobCli::printSizeWritesItsResolution() {
    QTemporaryDir dir;
    const QString out = dir.filePath("print.tif");
    auto r = cli({"--print-size", "2x1in", "--dpi", "150", "--fit", "stretch", data("moon.png"), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    auto in = OIIO::ImageInput::open(out.toStdString());
    QVERIFY(in);
    const OIIO::ImageSpec& spec = in->spec();
    QCOMPARE(spec.width, 300);
    QCOMPARE(spec.height, 150);
    QCOMPARE(qRound(spec.get_float_attribute("XResolution", 0)), 150);
    QCOMPARE(spec.get_string_attribute("ResolutionUnit"), std::string("in"));
}

void TestJobCli::badPrepareValuesAreUsageErrors() {
    QTemporaryDir dir;
    const QString out = dir.filePath("x.png");
    for (const QStringList& args :
         {QStringList{"--gamma", "0"}, QStringList{"--brightness", "300"},
          QStringList{"--print-size", "6x4ft", "--dpi", "300"}, QStringList{"--print-size", "6x4in"},
          QStringList{"--resize-filter", "magic"}, QStringList{"--fit", "crop-ish"}, QStringList{"--rotate", "45"},
          QStringList{"--background", "nope"}, QStringList{"--gravity", "up"},
          QStringList{"--black-point", "200", "--white-point", "100"}}) {
        const auto r = cli(QStringList(args) << data("moon.png") << out);
        QVERIFY2(r.exitCode == 2, qPrintable(args.join(' ') + ": " + r.err));
        QVERIFY(!QFile::exists(out));
    }
}

void TestJobCli::presetRoundTripGivesTheSameOutput() {
    QTemporaryDir dir;
    const QString preset = dir.filePath("job.json");
    const QStringList job = {"--method", "ed",  "--kernel",   "jarvis", "--serpentine", "--width", "120",
                             "--gamma",  "1.3", "--contrast", "10"};
    auto r = cli(QStringList(job) << "--save-preset" << preset);  // no files: only the preset
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(QFile::exists(preset));
    r = cli(QStringList(job) << data("chelsea.png") << dir.filePath("direct.png"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = cli({"--preset", preset, data("chelsea.png"), dir.filePath("preset.png")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(digest(dir.filePath("preset.png")), digest(dir.filePath("direct.png")));
    // an option on the command line overrides the preset
    r = cli({"--preset", preset, "--kernel", "floyd-steinberg", data("chelsea.png"), dir.filePath("fs.png")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(digest(dir.filePath("fs.png")) != digest(dir.filePath("direct.png")));
}

namespace {

/// One job of the preset round trip: its options and the output's extension.
struct PresetJob {
    const char* name;
    QStringList options;
    const char* extension;
};

/// Jobs that together give every option a preset keeps (halftone --list-options) a value other than its default.
const std::vector<PresetJob>& presetJobs() {
    static const std::vector<PresetJob> jobs = {
        {"am cmyk print",
         {"--method", "am", "--color", "cmyk", "--gcr", "60", "--ink-limit", "280", "--lpi", "50", "--dpi", "400",
          "--angles", "15,75,0,45", "--dot", "elliptic", "--scale", "0.5"},
         "tif"},
        {"am gray, print size",
         {"--method", "am", "--print-size", "2x1.5in", "--dpi", "150", "--lpi", "30", "--angles", "30", "--dot",
          "line"},
         "png"},
        {"ed, every prepare option",
         {"--method",
          "ed",
          "--kernel",
          "stucki",
          "--serpentine",
          "--levels",
          "3",
          "--width",
          "150",
          "--height",
          "90",
          "--fit",
          "stretch",
          "--resize-filter",
          "bicubic",
          "--resize-space",
          "gamma",
          "--black-point",
          "10",
          "--white-point",
          "240",
          "--brightness",
          "5",
          "--contrast",
          "-10",
          "--gamma",
          "1.4",
          "--saturation",
          "80",
          "--sharpen",
          "50",
          "--sharpen-radius",
          "1.5",
          "--threads",
          "1",
          "--device",
          "cpu",
          "--color",
          "rgb"},
         "png"},
        {"pixel size, keep alpha", {"--scale", "0.3", "--pixel-size", "3", "--keep-alpha"}, "png"},
        {"palette", {"--method", "ed", "--palette", "cga", "--width", "100"}, "png"},
        {"palette space and match",
         {"--method", "ed", "--palette", "acep7", "--space", "gamma", "--match", "weighted", "--width", "80"},
         "png"},
        {"ed variant, linear, seed, format",
         {"--method", "ed", "--variant", "plain", "--kernel", "zhou-fang", "--seed", "7", "--linear", "--format", "pgm",
          "--width", "90"},
         "png"},
        {"ordered screen and plan",
         {"--method", "ordered", "--screen", "bayer:4", "--palette", "bwr", "--plan", "3", "--width", "64"},
         "png"},
        {"dbs sequential",
         {"--method",   "dbs",   "--start",  "random",  "--warm-start", "0.5", "--swaps=false",
          "--max-iter", "3",     "--sigma",  "1.4",     "--radius",     "3",   "--clip-free",
          "--margin",   "12",    "--screen", "bayer:8", "--seed",       "5",   "--width",
          "64",         "--dpi", "300"},
         "png"},
        {"dbs blocks",
         {"--method", "dbs", "--variant", "blocks", "--block", "24", "--radius", "4", "--width", "64"},
         "png"},
        {"dbs nasanen",
         {"--method", "dbs", "--hvs", "nasanen", "--distance", "12", "--luminance", "20", "--width", "48"},
         "png"},
        {"ec simd", {"--method", "ec", "--variant", "wavefront", "--simd", "scalar", "--width", "70"}, "png"},
        {"framing",
         {"--width", "80", "--height", "60", "--fit", "cover", "--gravity", "north", "--rotate", "90", "--background",
          "#336699", "--color", "rgb"},
         "png"},
        {"target, tone and gamut", {"--target", "inky-impression-5.7", "--tone", "s-curve", "--gamut", "clip"}, "png"},
        {"am cmyk dot gain",
         {"--method", "am", "--color", "cmyk", "--dot-gain", "15", "--lpi", "40", "--scale", "0.4"},
         "tif"},
        {"am cmyk through ICC profiles",
         {"--method", "am", "--color", "cmyk", "--icc-out",
          QString::fromStdString(test::ghostscriptProfile("ps_cmyk.icc")), "--icc-in",
          QString::fromStdString(test::ghostscriptProfile("a98.icc")), "--intent", "perceptual", "--ink-limit", "300",
          "--lpi", "40", "--scale", "0.4"},
         "tif"},
    };
    return jobs;
}

}  // namespace

void TestJobCli::presetRoundTripEveryOption_data() {
    // Every job option, each with a value other than its default: saved with --save-preset and loaded with --preset,
    // the run writes the same bytes as the options given directly, and the preset saved again is the same file.
    test::columns<QStringList, QString>("job", "extension");
    for (const PresetJob& j : presetJobs()) QTest::newRow(j.name) << j.options << QString(j.extension);
}

void TestJobCli::presetJobsCoverEveryOption() {
    // The option table says which options a preset keeps; each of them is given in one of the jobs above, so an
    // option added to the table without a round trip fails here.
    const auto r = cli({"--list-options", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QJsonParseError error;
    const QJsonArray options = QJsonDocument::fromJson(r.out.toUtf8(), &error).array();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QSet<QString> given;
    for (const PresetJob& j : presetJobs())
        for (const QString& o : j.options)
            if (o.startsWith("--")) given.insert(o.section('=', 0, 0));
    QStringList kept, missing;
    for (const QJsonValue& v : options) {
        const QJsonObject o = v.toObject();
        if (!o.value("preset").toBool()) continue;
        kept << o.value("name").toString();
        if (!given.contains(o.value("name").toString())) missing << o.value("name").toString();
    }
    QVERIFY2(kept.size() > 40, qPrintable(kept.join(' ')));
    for (const char* name : {"--width", "--method", "--format", "--kernel", "--angles", "--palette", "--space"})
        QVERIFY2(kept.contains(name), name);
    for (const char* name : {"--preset", "--save-preset", "--save-palette", "--out-dir", "--jobs", "--time"})
        QVERIFY2(!kept.contains(name), name);
    QVERIFY2(missing.isEmpty(), qPrintable("no preset job gives " + missing.join(", ")));
}

void TestJobCli::presetRoundTripEveryOption() {
    QFETCH(QStringList, job);
    QFETCH(QString, extension);
    for (const QString& a : job)
        if (a.endsWith(".icc")) HALFTONE_SKIP_WITHOUT_PROFILE(a.toStdString());
    QTemporaryDir dir;
    const QString preset = dir.filePath("job.json"), again = dir.filePath("again.json");
    const QString input = data("chelsea.png");
    auto r = cli(QStringList(job) << "--save-preset" << preset);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = cli(QStringList(job) << input << dir.filePath("direct." + extension));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = cli({"--preset", preset, input, dir.filePath("preset." + extension)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(decoded(dir.filePath("preset." + extension)), decoded(dir.filePath("direct." + extension)));
    r = cli({"--preset", preset, "--save-preset", again});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile a(preset), b(again);
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(b.readAll()), QString::fromUtf8(a.readAll()));
}

void TestJobCli::presetRoundTripBatchFormat() {
    // `halftone batch --format tif --save-preset P` keeps the format: `halftone batch --preset P` writes the same
    // files.
    QTemporaryDir dir;
    const QString in = dir.filePath("in"), preset = dir.filePath("batch.json");
    QDir().mkpath(in);
    QFile::copy(data("moon.png"), in + "/moon.png");
    QFile::copy(data("chelsea.png"), in + "/chelsea.png");
    auto r = cli({"batch", "--format", "tif", "--width", "100", "--save-preset", preset, "--out-dir",
                  dir.filePath("direct"), in});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = cli({"batch", "--preset", preset, "--out-dir", dir.filePath("preset"), in});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(filesUnder(dir.filePath("preset")), QStringList({"chelsea.tif", "moon.tif"}));
    for (const QString& f : filesUnder(dir.filePath("direct")))
        QCOMPARE(decoded(dir.filePath("preset/" + f)), decoded(dir.filePath("direct/" + f)));
}

void TestJobCli::presetErrorsNameTheFile() {
    QTemporaryDir dir;
    const QString preset = dir.filePath("bad.json");
    QVERIFY(test::writeFile(preset, "{\"halftone-preset\": 1, \"prepare\": {\"gamma\": 99}}"));
    const QString out = dir.filePath("x.png");
    const auto r = cli({"--preset", preset, data("moon.png"), out});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("bad.json") && r.err.contains("gamma"), qPrintable(r.err));
    QVERIFY(!QFile::exists(out));
}

void TestJobCli::batchMatchesSingleRunsAndReportsFailures() {
    QTemporaryDir dir;
    const QString in = dir.filePath("in"), out = dir.filePath("out");
    makeInputs(in);
    const QStringList job = {"--width", "160", "--kernel", "stucki"};
    const auto r = cli(QStringList{"batch", "--out-dir", out, "--jobs", "2"} << job << in);
    QCOMPARE(r.exitCode, 1);  // the broken file failed, the others were written
    QVERIFY2(r.err.contains(in + "/sub/broken.png: "), qPrintable(r.err));
    QVERIFY2(r.err.contains("3 written") && r.err.contains("1 failed"), qPrintable(r.err));
    const QStringList expected = {"moon.png", "sub/deeper/chelsea.png", "sub/page.png"};
    QCOMPARE(filesUnder(out), expected);  // no partial or temporary file for the broken one
    // each output is the single command's output
    for (const QString& rel : expected) {
        QString source = rel;
        if (rel == "sub/page.png") source = "sub/page.jpg";
        const QString single = dir.filePath("single.png");
        QFile::remove(single);
        const auto s = cli(QStringList(job) << in + "/" + source << single);
        QVERIFY2(s.exitCode == 0, qPrintable(s.err));
        QCOMPARE(digest(out + "/" + rel), digest(single));
    }
    // the format and suffix
    const QString pbm = dir.filePath("pbm");
    const auto p = cli({"batch", "--out-dir", pbm, "--format", "pbm", "--suffix", "-ht", in + "/moon.png"});
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    QCOMPARE(filesUnder(pbm), QStringList{"moon-ht.pbm"});
}

void TestJobCli::batchSkipExistingAndCollisions() {
    QTemporaryDir dir;
    const QString in = dir.filePath("in"), out = dir.filePath("out");
    makeInputs(in);
    QFile::remove(in + "/sub/broken.png");
    auto r = cli({"batch", "--out-dir", out, in});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QByteArray before = digest(out + "/moon.png");
    QFile::remove(out + "/sub/page.png");
    QFile marker(out + "/moon.png");  // an existing output is left alone with --skip-existing
    QVERIFY(marker.open(QIODevice::Append));
    marker.write("x");
    marker.close();
    const QByteArray changed = digest(out + "/moon.png");
    r = cli({"batch", "--out-dir", out, "--skip-existing", in});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("1 written, 2 skipped"), qPrintable(r.err));
    QCOMPARE(digest(out + "/moon.png"), changed);
    QVERIFY(changed != before);
    QVERIFY(QFile::exists(out + "/sub/page.png"));
    // two inputs that map to one output: refused before any work, both named
    QFile::copy(data("moon.png"), in + "/sub/page.png");
    const QString fresh = dir.filePath("fresh");
    r = cli({"batch", "--out-dir", fresh, in});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("page.jpg") && r.err.contains("page.png"), qPrintable(r.err));
    QVERIFY(!QFile::exists(fresh));
}

void TestJobCli::shardsAreDisjointAndComplete() {
    QTemporaryDir dir;
    const QString in = dir.filePath("in");
    QDir().mkpath(in);
    for (int i = 0; i < 12; ++i) QFile::copy(data("moon.png"), in + QString("/m%1.png").arg(i));
    QSet<QString> all;
    int total = 0;
    for (int k = 1; k <= 3; ++k) {
        const QString out = dir.filePath(QString("out%1").arg(k));
        const auto r = cli({"batch", "--out-dir", out, "--width", "32", "--shard", QString("%1/3").arg(k), in});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList files = QDir(out).exists() ? filesUnder(out) : QStringList{};
        total += int(files.size());
        for (const QString& f : files) all.insert(f);
    }
    QCOMPARE(total, 12);
    QCOMPARE(int(all.size()), 12);
    const auto bad = cli({"batch", "--out-dir", dir.filePath("x"), "--shard", "4/3", in});
    QCOMPARE(bad.exitCode, 2);
}

void TestJobCli::everyClashListedAtOnce() {
    QTemporaryDir dir;
    const QString in = dir.filePath("in");
    QDir().mkpath(in + "/sub");
    for (const char* name : {"a.png", "a.jpg", "b.png", "b.gif", "sub/c.png", "sub/c.tif", "alone.png"})
        QVERIFY(QFile::copy(data("moon.png"), in + "/" + name));
    const QString out = dir.filePath("out");
    const auto r = cli({"batch", "--out-dir", out, in});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("3 output names clash"), qPrintable(r.err));
    for (const char* name : {"a.png", "a.jpg", "b.png", "b.gif", "sub/c.png", "sub/c.tif"})
        QVERIFY2(r.err.contains(in + "/" + name), name);
    QVERIFY(!r.err.contains("alone.png"));
    QVERIFY(!QFile::exists(out));
}

void TestJobCli::batchUsageErrorOnce() {
    // A job that cannot apply to the outputs is one usage error (exit 2), not one failure per file.
    QTemporaryDir dir;
    const QString in = dir.filePath("in");
    QDir().mkpath(in);
    for (int i = 0; i < 6; ++i) QVERIFY(QFile::copy(data("moon.png"), in + QString("/m%1.png").arg(i)));
    const QString out = dir.filePath("out");
    auto r = cli({"batch", "--jobs", "2", "--color", "cmyk", "--out-dir", out, in});  // CMYK needs TIFF
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.count('\n') == 1 && r.err.contains("TIFF"), qPrintable(r.err));
    QVERIFY(!QDir(out).exists() || filesUnder(out).isEmpty());
    r = cli({"batch", "--format", "jpg", "--out-dir", out, in});  // lossy, without --force
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.count('\n') == 1 && r.err.contains("--force"), qPrintable(r.err));
    // the job against the outputs' format, and a screen's cell on the device: found once, before any file is read
    for (const QStringList& job :
         {QStringList{"--color", "rgb", "--format", "pbm"}, QStringList{"--levels", "4", "--format", "pbm"},
          QStringList{"--palette", "gray4", "--format", "pgm"},
          QStringList{"--method", "am", "--lpi", "1000", "--dpi", "300"}}) {
        r = cli(QStringList{"batch", "--jobs", "2", "--out-dir", out} << job << in);
        QVERIFY2(r.exitCode == 2, qPrintable(job.join(' ') + ": " + r.err));
        QVERIFY2(r.err.count('\n') == 1, qPrintable(job.join(' ') + ": " + r.err));
        QVERIFY(!QDir(out).exists() || filesUnder(out).isEmpty());
    }
    r = cli({"batch", "--shard", "5/4", "--out-dir", out, dir.filePath("missing")});  // options before the inputs
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("5/4") || r.err.contains("shard"), qPrintable(r.err));
}

void TestJobCli::suffixRunIntoTheInputFolderCanRunAgain() {
    QTemporaryDir dir;
    const QString in = dir.filePath("in");
    QDir().mkpath(in + "/sub");
    QVERIFY(QFile::copy(data("moon.png"), in + "/moon.png"));
    QVERIFY(QFile::copy(data("page.png"), in + "/sub/page.png"));
    const QStringList run = {"batch", "--width", "64", "--suffix", "-ht", "--out-dir", in, in};
    auto r = cli(run);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList expected = {"moon-ht.png", "moon.png", "sub/page-ht.png", "sub/page.png"};
    QCOMPARE(filesUnder(in), expected);
    const QByteArray first = digest(in + "/moon-ht.png");
    // again: the outputs are not taken for inputs (no moon-ht-ht.png), the same files are written
    r = cli(run);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("2 written") && r.err.contains("2 files named *-ht.png"), qPrintable(r.err));
    QCOMPARE(filesUnder(in), expected);
    QCOMPARE(digest(in + "/moon-ht.png"), first);
    // and with --skip-existing: nothing to do
    r = cli(QStringList(run) << "--skip-existing");
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("0 written, 2 skipped, 0 failed"), qPrintable(r.err));
    QCOMPARE(filesUnder(in), expected);
}

void TestJobCli::savePresetKeepsTheFormat() {
    QTemporaryDir dir;
    const QString preset = dir.filePath("p.json");
    auto r = cli({"--format", "PBM", "--kernel", "jjn", "--width", "40", "--save-preset", preset});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile f(preset);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY2(text.contains("\"format\"") && text.contains("\"pbm\"") && text.contains("\"jarvis\""), text.constData());
    // the preset's format names the batch's outputs and standard output's format
    const QString out = dir.filePath("out");
    r = cli({"batch", "--preset", preset, "--out-dir", out, data("moon.png")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(filesUnder(out), QStringList{"moon.pbm"});
    // batch --save-preset keeps --format too
    const QString second = dir.filePath("q.json");
    r = cli({"batch", "--format", "tif", "--out-dir", out, "--save-preset", second, data("moon.png")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile g(second);
    QVERIFY(g.open(QIODevice::ReadOnly));
    QVERIFY(g.readAll().contains("\"tif\""));
}

void TestJobCli::timePerFileUnderJobs() {
    QTemporaryDir dir;
    const QString in = dir.filePath("in");
    QDir().mkpath(in);
    const int files = 6;
    for (int i = 0; i < files; ++i) QVERIFY(QFile::copy(data("moon.png"), in + QString("/m%1.png").arg(i)));
    auto r = cli({"batch", "--jobs", "2", "--time", "--width", "48", "--out-dir", dir.filePath("out"), in});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    for (int i = 0; i < files; ++i) {
        const QString name = in + QString("/m%1.png").arg(i);
        QVERIFY2(r.err.contains("halftone: " + name + ": ed/rc on cpu: "), qPrintable(r.err));
        QVERIFY2(r.err.contains("halftone: " + name + ": start-up "), qPrintable(r.err));
        QVERIFY2(r.err.contains("halftone: " + name + ": stages: read "), qPrintable(r.err));
    }
    // --json: one object per file, each line whole
    r = cli({"batch", "--jobs", "2", "--time", "--json", "--width", "48", "--out-dir", dir.filePath("json"), in});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QSet<QString> inputs;
    QSet<double> startups;
    for (const QString& line : r.err.split('\n', Qt::SkipEmptyParts)) {
        if (!line.startsWith('{')) continue;
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(line.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(line));
        QCOMPARE(o.value("method").toString(), QString("ed/rc"));
        QVERIFY(o.value("startup_s").toDouble() > 0 && o.contains("read_s") && o.contains("write_s"));
        inputs.insert(o.value("input").toString());
        startups.insert(o.value("startup_s").toDouble());
    }
    QCOMPARE(int(inputs.size()), files);
    // the start-up is the program's before the batch's first file (PNG needs no module loaded on the way), the same
    // for every file, not the time the file waited for the others
    QCOMPARE(int(startups.size()), 1);
    // a single file through standard input names it "-"
    QProcess p;
    p.setStandardInputFile(data("moon.png"));
    p.setStandardOutputFile(dir.filePath("o.pbm"));
    p.start(HALFTONE_CLI_PATH, {"--time", "--json", "--format", "pbm", "-", "-"});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject o = QJsonDocument::fromJson(p.readAllStandardError().trimmed()).object();
    QCOMPARE(o.value("input").toString(), QString("-"));
    QCOMPARE(o.value("output").toString(), QString("-"));
}

void TestJobCli::affinityMaskLimitsTheJobs() {
    const QString taskset = QStandardPaths::findExecutable("taskset");
    if (taskset.isEmpty()) QSKIP("taskset is not installed");
    QTemporaryDir dir;
    const QString in = dir.filePath("in");
    QDir().mkpath(in);
    for (int i = 0; i < 4; ++i) QVERIFY(QFile::copy(data("moon.png"), in + QString("/m%1.png").arg(i)));
    // one processor: one file at a time by default (and one thread each)
    const auto r = test::runProcess(taskset,
                                    {"-c", "0", HALFTONE_CLI_PATH, "batch", "--width", "32", "--device", "cpu",
                                     "--out-dir", dir.filePath("out"), in},
                                    300000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("(4 files, 1 at once"), qPrintable(r.err));
    // --jobs given is kept
    const auto two = test::runProcess(taskset,
                                      {"-c", "0", HALFTONE_CLI_PATH, "batch", "--jobs", "2", "--width", "32",
                                       "--device", "cpu", "--out-dir", dir.filePath("two"), in},
                                      300000);
    QVERIFY2(two.err.contains("(4 files, 2 at once"), qPrintable(two.err));
}

QTEST_GUILESS_MAIN(TestJobCli)
#include "test_job_cli.moc"
