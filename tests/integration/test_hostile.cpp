// Hardening: hostile files and paths through the loader and the CLI (one-line message, non-zero exit, no
// partial output, input untouched), unusual-but-valid files halftoned bit for bit against the SPEC
// reference, and a full disk while saving (RLIMIT_FSIZE) that leaves the old output intact.
// Corpus: tests/data/hostile/ and tests/data/unusual/ (regenerate with tests/data/make_hostile.py).
#include <QtTest>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/ed/errordiffusion.h"
#include "io/imagefile.h"
#include "tests/common/process.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;
namespace fs = std::filesystem;

namespace {

using Run = test::ProcessRun;

/// Runs the CLI; `fsizeLimit` > 0 caps the size of any file it writes (a full disk), SIGXFSZ ignored
/// so the write fails with EFBIG instead of killing the process.
Run runCli(const QStringList& args, rlim_t fsizeLimit = 0) {
    std::function<void()> inChild;
    if (fsizeLimit > 0)
        inChild = [fsizeLimit] {
            ::signal(SIGXFSZ, SIG_IGN);
            const struct rlimit rl { fsizeLimit, fsizeLimit };
            ::setrlimit(RLIMIT_FSIZE, &rl);
        };
    return test::runProcess(HALFTONE_CLI_PATH, args, 120000, inChild);
}

QByteArray sha256(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return "unreadable";
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return h.result().toHex();
}

std::vector<std::string> listing(const std::string& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string readBytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
}

bool oneLine(const QString& s) { return s.count('\n') == 1 && s.endsWith('\n') && !s.contains('\r'); }

QString q(const std::string& s) { return QString::fromStdString(s); }

/// The planes make_hostile.py wrote for `name`: expected/NAME.cN.pgm and NAME.a.pgm.
bool expectedImage(const std::string& name, ColorSpace space, Image& out) {
    const std::string base = test::dataPath("unusual/expected/" + name);
    out = Image{};
    out.space = space;
    for (int c = 0; fs::exists(base + ".c" + std::to_string(c) + ".pgm"); ++c) {
        Image p;
        if (!io::readImage(base + ".c" + std::to_string(c) + ".pgm", p).isOk()) return false;
        out.channels.push_back(p.channels[0]);
    }
    if (fs::exists(base + ".a.pgm")) {
        Image p;
        if (!io::readImage(base + ".a.pgm", p).isOk()) return false;
        out.hasAlpha = true;
        out.alpha = p.channels[0];
    }
    return !out.channels.empty();
}

/// EXIF orientation by hand (the tag's definition: 3 = 180, 6 = 90 clockwise, 8 = 90 counter-clockwise).
Plane8 rotated(const Plane8& in, int orientation) {
    const int w = in.width, h = in.height;
    if (orientation == 3) {
        Plane8 o(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) o.at(h - 1 - y, w - 1 - x) = in.at(y, x);
        return o;
    }
    Plane8 o(h, w);  // width h, height w
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (orientation == 6)
                o.at(x, h - 1 - y) = in.at(y, x);  // row x, column h-1-y
            else
                o.at(w - 1 - x, y) = in.at(y, x);
        }
    return o;
}

/// Reads `output` and compares every channel with the SPEC reference on `planes` (default ED parameters).
void compareWithReference(const std::string& output, const Image& planes) {
    Image got;
    const Status s = io::readImage(output, got);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(got.width(), planes.width());
    QCOMPARE(got.height(), planes.height());
    QCOMPARE(got.channelCount(), planes.channelCount());
    for (int c = 0; c < planes.channelCount(); ++c)
        QVERIFY2(got.channels[size_t(c)] == referenceErrorDiffusion(planes.channels[size_t(c)], EdParams{}),
                 qPrintable(QString("channel %1 of %2 differs from the SPEC reference").arg(c).arg(q(output))));
}

}  // namespace

class TestHostile : public QObject {
    Q_OBJECT
private slots:
    void init();
    void hostileFiles_data();
    void hostileFiles();
    void hostilePaths_data();
    void hostilePaths();
    void badOutputs_data();
    void badOutputs();
    void fullDisk_data();
    void fullDisk();
    void unusualFiles_data();
    void unusualFiles();
    void exifRotation_data();
    void exifRotation();
    void memoryBombs_data();
    void memoryBombs();
    void convertedColours_data();
    void convertedColours();
    void sparseZeros();
    void validPngOverBudget();
    void outOfMemoryInMethod();
    void methodMemoryBudget();
    void hostilePresets_data();
    void hostilePresets();
    void outputsNeverOverwriteInputs_data();
    void outputsNeverOverwriteInputs();
    void wrongNumbersAreRefused_data();
    void wrongNumbersAreRefused();
    void sizesThatDoNotFit();
    void pixelSizeBomb();
    void jpegBudgetBeforeDecoding();
    void unreadableSubFolder();

private:
    std::unique_ptr<QTemporaryDir> tmp_;
    std::string dir() const { return tmp_->path().toStdString(); }
    std::string path(const std::string& name) const { return dir() + "/" + name; }
};

void TestHostile::init() {
    tmp_ = std::make_unique<QTemporaryDir>();
    QVERIFY(tmp_->isValid());
}

void TestHostile::hostileFiles_data() {
    QTest::addColumn<QString>("file");
    const QDir d(QString(HALFTONE_TEST_DATA_DIR) + "/hostile");
    const QStringList files = d.entryList(QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 30);
    for (const QString& f : files) QTest::newRow(qPrintable(f)) << d.filePath(f);
}

void TestHostile::hostileFiles() {
    QFETCH(QString, file);
    const std::string f = file.toStdString();
    const QByteArray before = sha256(file);

    Image im;
    io::ReadInfo info;
    const Status s = io::readImage(f, im, {}, &info);
    QVERIFY2(!s.isOk(), "a hostile file was accepted");
    QVERIFY2(s.message().rfind("cannot read '" + f + "': ", 0) == 0, s.message().c_str());
    QVERIFY2(s.message().find('\n') == std::string::npos, s.message().c_str());
    if (file.contains("/huge-")) QVERIFY2(s.message().find("over the limit") != std::string::npos, s.message().c_str());
    if (file.contains("/zero-"))
        QVERIFY2(s.message().find("zero") != std::string::npos || s.message().find("mpty") != std::string::npos,
                 s.message().c_str());

    // The CLI, to every output kind, with and without an old output file in the way.
    writeBytes(path("old.png"), "old output, must survive\n");
    const std::vector<std::string> listed = listing(dir());
    for (const char* out : {"o.png", "o.tif", "o.pgm", "old.png"}) {
        const Run r = runCli({"--method", "ed", file, q(path(out))});
        QVERIFY2(!r.crashed, qPrintable(r.err));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(oneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.startsWith("halftone: cannot read '" + file + "': "), qPrintable(r.err));
        QCOMPARE(listing(dir()), listed);  // no output, no temporary file
    }
    QCOMPARE(readBytes(path("old.png")), std::string("old output, must survive\n"));
    QCOMPARE(sha256(file), before);  // input never modified
}

void TestHostile::hostilePaths_data() {
    QTest::addColumn<QString>("input");    // @DIR = a fresh temporary directory
    QTest::addColumn<QString>("message");  // expected in the one-line error
    QTest::newRow("directory") << "@DIR/sub"
                               << "is a directory";
    QTest::newRow("directory named .png") << "@DIR/sub.png"
                                          << "is a directory";
    QTest::newRow("/dev/null") << "/dev/null"
                               << "not a regular file";
    QTest::newRow("/dev/zero") << "/dev/zero"
                               << "not a regular file";
    QTest::newRow("/dev/urandom") << "/dev/urandom"
                                  << "not a regular file";
    QTest::newRow("fifo (would block a reader)") << "@DIR/fifo.png"
                                                 << "not a regular file";
    QTest::newRow("symlink to /dev/zero") << "@DIR/zero.png"
                                          << "not a regular file";
    QTest::newRow("dangling symlink") << "@DIR/dangling.png"
                                      << "no such file";
    QTest::newRow("missing") << "@DIR/none.png"
                             << "no such file";
    QTest::newRow("path through a file") << "@DIR/file.png/x.png"
                                         << "";
    QTest::newRow("empty path") << ""
                                << "";
}

void TestHostile::hostilePaths() {
    QFETCH(QString, input);
    QFETCH(QString, message);
    fs::create_directory(path("sub"));
    fs::create_directory(path("sub.png"));
    QCOMPARE(::mkfifo(path("fifo.png").c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", path("zero.png"));
    fs::create_symlink(path("nowhere.png"), path("dangling.png"));
    fs::copy_file(test::dataPath("moon.png"), path("file.png"));
    input.replace("@DIR", q(dir()));
    const std::string in = input.toStdString();

    Image im;
    const Status s = io::readImage(in, im);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().rfind("cannot read '" + in + "': ", 0) == 0, s.message().c_str());
    QVERIFY2(s.message().find('\n') == std::string::npos, s.message().c_str());
    if (!message.isEmpty()) QVERIFY2(s.message().find(message.toStdString()) != std::string::npos, s.message().c_str());

    const std::vector<std::string> listed = listing(dir());
    const Run r = runCli({"--method", "ed", input, q(path("o.png"))});
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QVERIFY2(r.exitCode == 1 || (in.empty() && r.exitCode == 2), qPrintable(r.err));
    QVERIFY2(oneLine(r.err), qPrintable(r.err));
    if (!in.empty()) QVERIFY2(r.err.contains("'" + input + "'"), qPrintable(r.err));
    if (!message.isEmpty()) QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QCOMPARE(listing(dir()), listed);
    QCOMPARE(sha256(q(path("file.png"))), sha256(q(test::dataPath("moon.png"))));
}

void TestHostile::badOutputs_data() {
    QTest::addColumn<QString>("output");  // @DIR = a fresh temporary directory
    QTest::addColumn<QString>("message");
    QTest::newRow("missing directory") << "@DIR/no/such/o.png"
                                       << "does not exist";
    QTest::newRow("under a regular file") << "@DIR/file.png/o.png"
                                          << "is not a directory";
    QTest::newRow("under a regular file, pgm") << "@DIR/file.png/o.pgm"
                                               << "is not a directory";
    QTest::newRow("output is a directory") << "@DIR/sub.png"
                                           << "is a directory";
    // Read-only for root too: /proc refuses new files whatever the permission bits say.
    QTest::newRow("/proc (no new files, even for root)") << "/proc/halftone-hostile-test.png"
                                                         << "";
    QTest::newRow("read-only mount") << "@RO/halftone-hostile-test.png"
                                     << "";
    QTest::newRow("non-root: mode 0555 directory") << "@DIR/ro/o.png"
                                                   << "not writable";
}

void TestHostile::badOutputs() {
    QFETCH(QString, output);
    QFETCH(QString, message);
    if (output.startsWith("@RO")) {
        // A mount that is read-only (EROFS stops root as well), if this machine has one we can find.
        QString ro;
        QFile mounts("/proc/self/mounts");
        if (mounts.open(QIODevice::ReadOnly))
            for (const QByteArray& line : mounts.readAll().split('\n')) {
                const QList<QByteArray> f = line.split(' ');
                if (f.size() > 3 && f[3].split(',').contains("ro") && QFileInfo(f[1]).isDir() && f[1] != "/proc" &&
                    !f[1].startsWith("/proc/") && ::access(f[1].constData(), W_OK) != 0) {
                    ro = QString::fromUtf8(f[1]);
                    break;
                }
            }
        if (ro.isEmpty()) QSKIP("no read-only mount found on this machine");
        output.replace("@RO", ro);
    }
    if (output.startsWith("@DIR/ro/")) {
        if (::geteuid() == 0)
            QSKIP("running as root: permission bits do not stop root (see the /proc and read-only mount rows)");
        fs::create_directory(path("ro"));
        fs::permissions(path("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    }
    fs::create_directory(path("sub.png"));
    fs::copy_file(test::dataPath("moon.png"), path("file.png"));
    output.replace("@DIR", q(dir()));
    const std::string out = output.toStdString();
    const std::string parent = fs::path(out).parent_path().string();
    const std::vector<std::string> listed = listing(dir()), parentListed = listing(parent);

    const Run r = runCli({"--method", "ed", q(test::dataPath("moon.png")), output});
    if (fs::exists(path("ro"))) fs::permissions(path("ro"), fs::perms::owner_all);
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(oneLine(r.err), qPrintable(r.err));
    QVERIFY2(r.err.startsWith("halftone: cannot write '" + output + "': "), qPrintable(r.err));
    if (!message.isEmpty()) QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QCOMPARE(listing(dir()), listed);
    const bool proc = output.startsWith("/proc/");  // /proc's listing changes by itself (processes)
    if (!proc) QCOMPARE(listing(parent), parentListed);
    QVERIFY(!fs::exists(out) || fs::is_directory(out));
    QCOMPARE(sha256(q(path("file.png"))), sha256(q(test::dataPath("moon.png"))));

    // The library call says the same without the CLI's early check.
    Image im;
    QVERIFY(io::readImage(test::dataPath("moon.png"), im).isOk());
    const Status s = io::writeImage(out, im);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().rfind("cannot write '" + out + "': ", 0) == 0, s.message().c_str());
    if (!proc) QCOMPARE(listing(parent), parentListed);
}

void TestHostile::fullDisk_data() {
    test::columns<QString, QString>("out", "color");
    QTest::addColumn<double>("fraction");  // of the output's full size the disk has room for
    QTest::addColumn<bool>("oldFile");     // an output file exists before the run
    for (const char* ext : {"png", "tif", "pgm", "pbm"})
        for (double f : {0.0, 0.5, 0.97})
            for (bool old : {false, true})
                QTest::newRow(
                    qPrintable(QString("%1 at %2%%%3").arg(ext).arg(int(f * 100)).arg(old ? ", old file" : "")))
                    << QString("o.%1").arg(ext) << "gray" << f << old;
    for (bool old : {false, true}) {
        QTest::newRow(qPrintable(QString("rgb ppm at 50%%1").arg(old ? ", old file" : ""))) << "o.ppm"
                                                                                            << "rgb" << 0.5 << old;
        QTest::newRow(qPrintable(QString("cmyk tif at 50%%1").arg(old ? ", old file" : ""))) << "o.tif"
                                                                                             << "cmyk" << 0.5 << old;
    }
}

void TestHostile::fullDisk() {
    QFETCH(QString, out);
    QFETCH(QString, color);
    QFETCH(double, fraction);
    QFETCH(bool, oldFile);
    const QString input = q(test::dataPath("chelsea.png"));
    const QByteArray inputSum = sha256(input);

    // The full output size first, in a directory of its own.
    fs::create_directory(path("full"));
    const std::string full = path("full/" + out.toStdString());
    Run r = runCli({"--method", "ed", "--color", color, input, q(full)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto size = rlim_t(fs::file_size(full));
    QVERIFY(size > 1000);
    const rlim_t limit = std::max<rlim_t>(1, rlim_t(double(size) * fraction));

    fs::create_directory(path("disk"));
    const std::string target = path("disk/" + out.toStdString());
    const std::string old = "the previous output: it must survive a failed save\n";
    if (oldFile) writeBytes(target, old);
    const std::vector<std::string> listed = listing(path("disk"));
    r = runCli({"--method", "ed", "--color", color, input, q(target)}, limit);
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QVERIFY2(r.exitCode == 1,
             qPrintable(QString("exit %1, limit %2 of %3 bytes: %4").arg(r.exitCode).arg(limit).arg(size).arg(r.err)));
    QVERIFY2(oneLine(r.err), qPrintable(r.err));
    QVERIFY2(r.err.startsWith("halftone: cannot write '" + q(target) + "': "), qPrintable(r.err));
    QCOMPARE(listing(path("disk")), listed);  // no partial file, no temporary file
    if (oldFile) QCOMPARE(readBytes(target), old);
    QCOMPARE(sha256(input), inputSum);

    // With room enough the same command succeeds and writes the same pixels (TIFF bytes hold a date).
    r = runCli({"--method", "ed", "--color", color, input, q(target)}, size + 4096);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Image a, b;
    QVERIFY(io::readImage(target, a).isOk());
    QVERIFY(io::readImage(full, b).isOk());
    QCOMPARE(a.channelCount(), b.channelCount());
    for (int c = 0; c < a.channelCount(); ++c) QVERIFY(a.channels[size_t(c)] == b.channels[size_t(c)]);
}

void TestHostile::unusualFiles_data() {
    QTest::addColumn<QString>("name");        // file in tests/data/unusual/
    QTest::addColumn<int>("space");           // ColorSpace of the loaded image
    QTest::addColumn<QString>("note");        // expected in ReadInfo::notes and on the CLI's stderr
    QTest::addColumn<QString>("sourceType");  // ReadInfo::sourceType
    const int G = int(ColorSpace::Gray), R = int(ColorSpace::RGB), K = int(ColorSpace::CMYK);
    QTest::newRow("16-bit gray png") << "gray16.png" << G << ""
                                     << "uint16";
    QTest::newRow("16-bit rgb png") << "rgb16.png" << R << ""
                                    << "uint16";
    QTest::newRow("16-bit rgba png") << "rgba16.png" << R << ""
                                     << "uint16";
    QTest::newRow("gray+alpha png") << "gray-alpha.png" << G << ""
                                    << "uint8";
    QTest::newRow("rgba png") << "rgba.png" << R << ""
                              << "uint8";
    QTest::newRow("palette + tRNS png") << "palette-trns.png" << R << ""
                                        << "uint8";
    // OpenImageIO 2.4 reports no oiio:BitsPerSample for sub-byte PNG, so the loader says uint8.
    QTest::newRow("2-bit gray png") << "gray2bit.png" << G << ""
                                    << "uint8";
    QTest::newRow("half gray tif") << "half-gray.tif" << G << ""
                                   << "half";
    QTest::newRow("float rgb tif") << "float-rgb.tif" << R << ""
                                   << "float";
    QTest::newRow("float gray+alpha tif") << "float-gray-alpha.tif" << G << ""
                                          << "float";
    QTest::newRow("cmyk tif") << "cmyk.tif" << K << ""
                              << "uint8";
    QTest::newRow("16-bit cmyk tif") << "cmyk16.tif" << K << ""
                                     << "uint16";
    QTest::newRow("multi-page tif") << "multi-page.tif" << G << "only the first image"
                                    << "uint8";
    QTest::newRow("pgm maxval 1000") << "gray-maxval1000.pgm" << G << ""
                                     << "uint16";
    QTest::newRow("wide 100000 x 1") << "wide-100000x1.png" << G << ""
                                     << "uint8";
    QTest::newRow("tall 1 x 100000") << "tall-1x100000.png" << G << ""
                                     << "uint8";
    // Colour meaning from the file's tags, not the channel count.
    QTest::newRow("separated tif, one black ink") << "separated-black.tif" << G << ""
                                                  << "uint8";
    QTest::newRow("separated tif, one unnamed ink") << "separated-1ink.tif" << G << ""
                                                    << "uint8";
    QTest::newRow("separated tif, cyan + black") << "separated-cyan-black.tif" << K << ""
                                                 << "uint8";
    QTest::newRow("cmyk psd (stored inverted)") << "cmyk-psd.psd" << K << ""
                                                << "uint8";
    QTest::newRow("cmyk psd, rle") << "cmyk-psd-rle.psd" << K << ""
                                   << "uint8";
    QTest::newRow("luminance/chroma exr") << "luma-chroma.exr" << R << ""
                                          << "float";
    QTest::newRow("white luminance/chroma exr") << "white-luma-chroma.exr" << R << ""
                                                << "float";
    QTest::newRow("tiled exr, partial edge tiles") << "tiled.exr" << R << ""
                                                   << "float";
    // Files OpenImageIO 2.4 refuses: an end-of-line code on the last RLE row, a 256-pixel ICO entry.
    QTest::newRow("rle8 bmp") << "rle8.bmp" << R << ""
                              << "uint8";
    QTest::newRow("256 x 256 ico entry") << "icon-256.ico" << R << ""
                                         << "uint8";
}

void TestHostile::unusualFiles() {
    QFETCH(QString, name);
    QFETCH(int, space);
    QFETCH(QString, note);
    QFETCH(QString, sourceType);
    const QString file = q(test::dataPath("unusual/" + name.toStdString()));
    const std::string stem = fs::path(name.toStdString()).stem().string();
    const QByteArray before = sha256(file);

    Image expected;
    QVERIFY(expectedImage(stem, ColorSpace(space), expected));
    Image got;
    io::ReadInfo info;
    const Status s = io::readImage(file.toStdString(), got, {}, &info);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(int(got.space), space);
    QCOMPARE(q(info.sourceType), sourceType);
    QCOMPARE(got.channelCount(), expected.channelCount());
    for (int c = 0; c < got.channelCount(); ++c)
        QVERIFY2(got.channels[size_t(c)] == expected.channels[size_t(c)],
                 qPrintable(QString("channel %1 differs").arg(c)));
    QCOMPARE(got.hasAlpha, expected.hasAlpha);
    if (expected.hasAlpha) QVERIFY2(got.alpha == expected.alpha, "alpha differs");
    if (note.isEmpty())
        QVERIFY2(info.notes.empty(), info.notes.c_str());
    else
        QVERIFY2(q(info.notes).contains(note), info.notes.c_str());

    // The CLI halftones it: gray always, and the file's own colour model.
    std::vector<std::pair<ColorMode, QString>> runs{{ColorMode::Gray, "o.pgm"}, {ColorMode::Gray, "o.png"}};
    if (space == int(ColorSpace::RGB)) runs.push_back({ColorMode::RGB, "o.ppm"});
    if (space == int(ColorSpace::CMYK))
        runs.push_back({ColorMode::CMYK, "o.tif"}), runs.push_back({ColorMode::RGB, "o.png"});
    for (const auto& [mode, out] : runs) {
        const std::string output = path(out.toStdString());
        fs::remove(output);
        const Run r = runCli({"--method", "ed", "--color", toString(mode), file, q(output)});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(r.err));
        if (note.isEmpty())
            QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        else
            QVERIFY2(r.err.contains(file + ": ") && r.err.contains(note) && oneLine(r.err), qPrintable(r.err));
        compareWithReference(output, convertColor(expected, mode));
        if (QTest::currentTestFailed()) return;
    }
    QCOMPARE(sha256(file), before);
}

void TestHostile::exifRotation_data() {
    QTest::addColumn<int>("orientation");
    QTest::newRow("3: 180 degrees") << 3;
    QTest::newRow("6: 90 clockwise") << 6;
    QTest::newRow("8: 90 counter-clockwise") << 8;
}

void TestHostile::exifRotation() {
    QFETCH(int, orientation);
    // exif-N.jpg are exif-1.jpg (no tag) plus an APP1 segment with the tag: same pixels, stored upright-less.
    Image upright, tagged;
    QVERIFY(io::readImage(test::dataPath("unusual/exif-1.jpg"), upright).isOk());
    const std::string file = test::dataPath("unusual/exif-" + std::to_string(orientation) + ".jpg");
    QVERIFY(io::readImage(file, tagged).isOk());
    QCOMPARE(upright.width(), 48);
    QCOMPARE(upright.height(), 20);
    const bool swap = orientation != 3;
    QCOMPARE(tagged.width(), swap ? 20 : 48);
    QCOMPARE(tagged.height(), swap ? 48 : 20);
    const Image expected = Image::gray(rotated(upright.channels[0], orientation));
    QVERIFY(tagged.channels[0] == expected.channels[0]);

    const std::string output = path("o.pgm");
    const Run r = runCli({"--method", "ed", q(file), q(output)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    compareWithReference(output, expected);
}

void TestHostile::memoryBombs_data() {
    QTest::addColumn<QString>("file");      // in tests/data/hostile/
    QTest::addColumn<QStringList>("args");  // extra CLI arguments
    QTest::addColumn<QString>("message");   // expected in the one-line error
    const QStringList oneGig{"--max-memory", "1G"};
    QTest::newRow("gif screen 2^29..2^30 pixels")
        << "gif-screen-32768x24576.gif" << QStringList{} << "larger than the GIF decoder can hold";
    QTest::newRow("same, --max-pixels raised")
        << "gif-screen-32768x24576.gif" << QStringList{"--max-pixels", "4000000000"}
        << "larger than the GIF decoder can hold";
    QTest::newRow("tiled float tif") << "bomb-tiled-float-30000x30000.tif" << oneGig
                                     << "over the memory limit of 1.0 GB";
    QTest::newRow("tiled exr") << "bomb-tiled-exr-30000x30000.exr" << oneGig << "over the memory limit";
    QTest::newRow("cmyk+alpha tif with no data")
        << "bomb-cmyka-nodata-30000x30000.tif" << oneGig << "over the memory limit";
    // A stream of zeros inflates at most 1032 to 1: these hold far too little data for their size.
    QTest::newRow("16-bit png of zeros") << "bomb-png16-zeros-30000x30000.png" << QStringList{}
                                         << "compressed data can hold";
    QTest::newRow("interlaced png") << "bomb-interlaced-32768x32767.png" << QStringList{} << "compressed data can hold";
    QTest::newRow("png in ico") << "bomb-ico-png-32768x32767.ico" << QStringList{} << "compressed data can hold";
    QTest::newRow("jpeg with 2000 scans") << "jpeg-2000-scans.jpg" << QStringList{} << "more than 256 scans";
    QTest::newRow("separated tif with spot inks") << "separated-spot-inks.tif" << QStringList{} << "'PANTONE 300 C'";
    QTest::newRow("exr channels L, a, b")
        << "exr-lab-channels.exr" << QStringList{} << "are not RGB, luminance or luminance/chroma";
    // A 104-byte PSD declaring 30000 x 30000 CMYK: refused from its size before 3.6 GB of planes (raw and PackBits).
    QTest::newRow("psd 104 bytes for 30000 x 30000") << "psd-cmyk-30000x30000-104-bytes.psd" << QStringList{}
                                                     << "needs at least 3.6 GB of image data, the file holds 64 bytes";
    QTest::newRow("psd rle 30000 x 30000")
        << "psd-cmyk-rle-30000x30000.psd" << QStringList{} << "of image data, the file holds 64 bytes";
    // A few hundred bytes of coded data declaring 30000 x 30000: refused before libjpeg's coefficient buffer.
    QTest::newRow("progressive jpeg 30000 x 30000") << "jpeg-progressive-30000x30000.jpg" << QStringList{}
                                                    << "bytes of coded data cannot hold a 30000 x 30000 image";
    QTest::newRow("baseline jpeg 30000 x 30000")
        << "jpeg-baseline-30000x30000.jpg" << QStringList{} << "bytes of coded data cannot hold a 30000 x 30000 image";
    // ExtraSamples twice, the second longer than the samples: the reader once placed inks below its table.
    QTest::newRow("tiff extrasamples twice")
        << "tiff-extrasamples-twice.tif" << QStringList{} << "tag 338 appears twice";
    // Found by fuzzing: a 4 x 4 Lab file of one channel, which OpenImageIO's reader read past (a crash).
    QTest::newRow("psd lab with 1 channel")
        << "fuzz-psd-lab-1-channel.psd" << QStringList{} << "corrupt PSD: Lab colour with 1 channel (it needs 3)";
    QTest::newRow("tiff 40 extrasamples of 5")
        << "tiff-extrasamples-40-of-5.tif" << QStringList{} << "40 extra samples of 5 samples a pixel";
}

void TestHostile::memoryBombs() {
    QFETCH(QString, file);
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const QString input = q(test::dataPath("hostile/" + file.toStdString()));
    const std::vector<std::string> listed = listing(dir());
    for (const QString& cmd : {QString("halftone"), QString("analyze"), QString("screen")}) {
        QStringList a;
        if (cmd == "halftone")
            a = QStringList{"--method", "ed"} + args + QStringList{input, q(path("o.png"))};
        else if (cmd == "analyze")
            a = QStringList{"analyze", input, input};
        else
            a = QStringList{"--method", "ordered", "--screen", input, q(test::dataPath("moon.png")), q(path("o.png"))};
        if (cmd != "halftone" && !args.isEmpty() && args.front() == "--max-memory")
            continue;  // only the main command has it
        const Run r = runCli(a);
        QVERIFY2(!r.crashed, qPrintable(cmd + ": " + r.err));
        QVERIFY2(r.exitCode == 1, qPrintable(QString("%1: exit %2: %3").arg(cmd).arg(r.exitCode).arg(r.err)));
        QVERIFY2(oneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains("'" + input + "'"), qPrintable(r.err));
        if (cmd == "halftone") QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QCOMPARE(listing(dir()), listed);
    }
    // The library refuses with the same limit before allocating the planes.
    Image im;
    io::ReadOptions ro;
    ro.maxMemory = uint64_t(1000000000);
    if (args.contains("--max-pixels")) ro.maxPixels = 4000000000ull;
    const Status s = io::readImage(input.toStdString(), im, ro);
    QVERIFY(!s.isOk());
    QVERIFY2(q(s.message()).contains(message), s.message().c_str());
}

void TestHostile::convertedColours_data() {
    // Files whose samples are not RGB: converted by their tags (libtiff's YCbCr, CIELab D50 -> sRGB here).
    test::columns<QString, int, int, int, int>("file", "x", "r", "g", "b");
    QTest::addColumn<int>("tolerance");  // 8-bit colour conversions round differently; the point is white, not gray
    QTest::newRow("ycbcr white") << "ycbcr.tif" << 0 << 255 << 255 << 255 << 1;
    QTest::newRow("ycbcr black") << "ycbcr.tif" << 4 << 0 << 0 << 0 << 1;
    QTest::newRow("ycbcr gray") << "ycbcr.tif" << 8 << 128 << 128 << 128 << 2;
    QTest::newRow("ycbcr red") << "ycbcr.tif" << 12 << 255 << 0 << 0 << 3;
    QTest::newRow("cielab white") << "cielab.tif" << 0 << 255 << 255 << 255 << 1;
    QTest::newRow("cielab black") << "cielab.tif" << 4 << 0 << 0 << 0 << 1;
    QTest::newRow("cielab L* 46.7") << "cielab.tif" << 8 << 111 << 111 << 111 << 2;
    QTest::newRow("cielab red") << "cielab.tif" << 12 << 255 << 0 << 0 << 10;  // a*, b* in whole units
}

void TestHostile::convertedColours() {
    QFETCH(QString, file);
    QFETCH(int, x);
    QFETCH(int, r);
    QFETCH(int, g);
    QFETCH(int, b);
    QFETCH(int, tolerance);
    Image im;
    const Status s = io::readImage(test::dataPath("unusual/" + file.toStdString()), im);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(int(im.space), int(ColorSpace::RGB));
    const int want[3] = {r, g, b};
    for (int y = 0; y < im.height(); ++y)
        for (int xx = x; xx < x + 4; ++xx)
            for (int c = 0; c < 3; ++c)
                QVERIFY2(std::abs(int(im.channels[size_t(c)].at(y, xx)) - want[c]) <= tolerance,
                         qPrintable(QString("(%1, %2) channel %3 is %4, want %5")
                                        .arg(xx)
                                        .arg(y)
                                        .arg(c)
                                        .arg(im.channels[size_t(c)].at(y, xx))
                                        .arg(want[c])));
}

void TestHostile::sparseZeros() {
    // 4 GiB of zeros named .png (a sparse file: no disk used): refused from its first bytes, not probed by
    // every reader OpenImageIO has.
    const std::string file = path("zeros.png");
    { std::ofstream f(file, std::ios::binary); }
    fs::resize_file(file, uint64_t(4) << 30);
    Image im;
    const Status s = io::readImage(file, im);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("not an image file of any supported format") != std::string::npos, s.message().c_str());
    const Run r = runCli({"--method", "ed", q(file), q(path("o.png"))});
    QVERIFY2(!r.crashed && r.exitCode == 1 && oneLine(r.err), qPrintable(r.err));
    QVERIFY2(r.err.contains("not an image file"), qPrintable(r.err));
    QVERIFY(!fs::exists(path("o.png")));
}

void TestHostile::outOfMemoryInMethod() {
    // The method's allocations fail (an address-space limit, as under ulimit -v): one line naming the
    // input and exit 1, never std::bad_alloc through main.
#ifdef __SANITIZE_ADDRESS__
    QSKIP(
        "an address-space limit cannot be combined with AddressSanitizer's shadow memory; the release run covers this");
#endif
    const int side = 12000;
    Plane8 p(side, side);
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) p.at(y, x) = uint8_t((x * 7 + y * 3) >> 4);
    const std::string input = path("big.png");
    QVERIFY(io::writeImage(input, Image::gray(std::move(p))).isOk());
    QProcess proc;
    proc.setChildProcessModifier([] {
        const rlim_t limit = rlim_t(1200) << 20;
        const struct rlimit rl { limit, limit };
        ::setrlimit(RLIMIT_AS, &rl);
    });
    proc.start(HALFTONE_CLI_PATH, {"--method", "dbs", q(input), q(path("o.png"))});
    QVERIFY(proc.waitForFinished(300000));
    const QString err = QString::fromUtf8(proc.readAllStandardError());
    QVERIFY2(proc.exitStatus() == QProcess::NormalExit, qPrintable(err));
    QVERIFY2(proc.exitCode() == 1, qPrintable(QString("exit %1: %2").arg(proc.exitCode()).arg(err)));
    QVERIFY2(oneLine(err), qPrintable(err));
    QVERIFY2(err.contains(q(input)) && (err.contains("out of memory") || err.contains("memory limit")),
             qPrintable(err));
    QVERIFY(!fs::exists(path("o.png")));
}

void TestHostile::methodMemoryBudget() {
    // DBS keeps double-precision planes: its working memory counts against --max-memory before the run starts,
    // so a run that cannot fit is refused at once with the numbers; a light method on the same image still runs.
    const int side = 1500;
    Plane8 p(side, side);
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) p.at(y, x) = uint8_t((x + y) & 255);
    const std::string input = path("mid.png");
    QVERIFY(io::writeImage(input, Image::gray(std::move(p))).isOk());
    QProcess proc;
    proc.start(HALFTONE_CLI_PATH, {"--method", "dbs", "--max-memory", "50M", q(input), q(path("dbs.png"))});
    QVERIFY(proc.waitForFinished(60000));
    QString err = QString::fromUtf8(proc.readAllStandardError());
    QVERIFY2(proc.exitStatus() == QProcess::NormalExit && proc.exitCode() == 1, qPrintable(err));
    QVERIFY2(oneLine(err), qPrintable(err));
    QVERIFY2(
        err.contains(q(input)) && err.contains("dbs/sequential on 1500 x 1500 needs") && err.contains("--max-memory"),
        qPrintable(err));
    QVERIFY(!fs::exists(path("dbs.png")));
    proc.start(HALFTONE_CLI_PATH, {"--method", "ed", "--max-memory", "50M", q(input), q(path("ed.png"))});
    QVERIFY(proc.waitForFinished(60000));
    err = QString::fromUtf8(proc.readAllStandardError());
    QVERIFY2(proc.exitStatus() == QProcess::NormalExit && proc.exitCode() == 0, qPrintable(err));
    QVERIFY(fs::exists(path("ed.png")));
}

namespace {

QString data(const std::string& name) { return q(test::dataPath(name)); }

/// Runs the CLI as the unprivileged user "nobody" when the tests run as root (permission bits do not stop root).
Run runCliUnprivileged(const QStringList& args) {
    return test::runProcess(HALFTONE_CLI_PATH, args, 120000, [] {
        if (::geteuid() == 0) {
            if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(99);
        }
    });
}

}  // namespace

void TestHostile::hostilePresets_data() {
    QTest::addColumn<QString>("file");  // in tests/data/hostile/presets/
    QTest::addColumn<QString>("key");   // the message names it
    QTest::newRow("width 2^32 + 1") << "width-2pow32-plus-1.json"
                                    << "prepare.width must be a whole number";
    QTest::newRow("threads 2^32 + 1") << "threads-2pow32-plus-1.json"
                                      << "threads must be a whole number";
    QTest::newRow("gcr 2^64") << "gcr-2pow64.json"
                              << "separation.gcr must be a whole number";
    QTest::newRow("levels 2^64 - 1") << "levels-uint64-max.json"
                                     << "params.levels must be a whole number";
    QTest::newRow("gamma 1e400") << "gamma-1e400.json"
                                 << "prepare.gamma is not a number this program can hold";
    QTest::newRow("dpi 1e400") << "dpi-1e400.json"
                               << "dpi is not a number this program can hold";
    QTest::newRow("dpi 1e300 with a print size") << "dpi-1e300.json"
                                                 << "dpi must be a number from 0 to 100000";
    QTest::newRow("pixel size 2.5") << "pixel-size-half.json"
                                    << "prepare.pixel-size must be a whole number";
    QTest::newRow("array 100000 deep") << "array-100000-deep.json"
                                       << "dpi is nested deeper than 16 levels";
    QTest::newRow("object 20000 deep") << "object-20000-deep.json"
                                       << "is nested deeper than 16 levels";
}

void TestHostile::hostilePresets() {
    // Each preset is refused before any work, naming the file and the key, with exit 2, in single runs and in batch
    // alike; nothing is written.
    QFETCH(QString, file);
    QFETCH(QString, key);
    const QString preset = data("hostile/presets/" + file.toStdString());
    const QByteArray before = sha256(preset);
    const std::vector<std::string> listed = listing(dir());
    for (const bool batch : {false, true}) {
        const QStringList args =
            batch ? QStringList{"batch", "--preset", preset, "--out-dir", q(path("out")), data("moon.png")}
                  : QStringList{"--preset", preset, data("moon.png"), q(path("o.png"))};
        const Run r = runCli(args);
        QVERIFY2(!r.crashed, qPrintable(r.err));
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(oneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains("preset '" + preset + "'") && r.err.contains(key), qPrintable(r.err));
        QCOMPARE(listing(dir()), listed);
    }
    QCOMPARE(sha256(preset), before);
}

void TestHostile::outputsNeverOverwriteInputs_data() {
    // @IN = the input image, @LINK = a symlink to it, @HARD = a hard link to it, @PAL = a palette file, @OUT = the
    // output, @DIR = a folder holding the input (batch).
    test::columns<QStringList, QString>("args", "message");
    QTest::newRow("preset onto the input")
        << QStringList{"--save-preset", "@IN", "@IN", "@OUT"} << "--save-preset '@IN' is also INPUT '@IN'";
    QTest::newRow("preset onto a symlink to the input")
        << QStringList{"--save-preset", "@LINK", "@IN", "@OUT"} << "--save-preset '@LINK' is the same file as INPUT";
    QTest::newRow("preset onto a hard link to the input")
        << QStringList{"--save-preset", "@HARD", "@IN", "@OUT"} << "--save-preset '@HARD' is the same file as INPUT";
    QTest::newRow("preset onto the palette")
        << QStringList{"--palette", "@PAL", "--save-preset", "@PAL", "@IN", "@OUT"} << "is also --palette '@PAL'";
    QTest::newRow("preset onto the palette, no image")
        << QStringList{"--palette", "@PAL", "--save-preset", "@PAL"} << "is also --palette '@PAL'";
    QTest::newRow("preset onto the output")
        << QStringList{"--save-preset", "@OUT", "@IN", "@OUT"} << "'@OUT' are the same file";
    QTest::newRow("palette onto the palette")
        << QStringList{"--palette", "@PAL", "--save-palette", "@PAL", "@IN", "@OUT"}
        << "--save-palette '@PAL' is also --palette '@PAL'";
    QTest::newRow("output onto a symlink to the input") << QStringList{"@IN", "@LINK"} << "is the same file as INPUT";
    QTest::newRow("batch: preset onto an input in the folder")
        << QStringList{"batch", "--save-preset", "@LINK", "--out-dir", "@OUTDIR", "@DIR"}
        << "--save-preset '@LINK' is also INPUT '@LINK'";
}

void TestHostile::outputsNeverOverwriteInputs() {
    // Every path a run writes (OUTPUT, --save-preset, --save-palette) is checked against every path it reads (INPUT,
    // --palette, the batch's files) by file identity: refused with both named, every file byte-identical, no output.
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    fs::create_directories(path("in"));
    const std::string in = path("in/photo.png");
    fs::copy_file(test::dataPath("moon.png"), in);
    fs::create_symlink(in, path("link.png"));
    fs::create_hard_link(in, path("hard.png"));
    writeBytes(path("pal.hex"), "000000\nffffff\n808080\n");
    const std::map<QString, QString> at = {{"@IN", q(in)},
                                           {"@LINK", q(path("link.png"))},
                                           {"@HARD", q(path("hard.png"))},
                                           {"@PAL", q(path("pal.hex"))},
                                           {"@OUT", q(path("out.png"))},
                                           {"@OUTDIR", q(path("outdir"))},
                                           {"@DIR", q(path("in"))}};
    auto expand = [&](QString s) {
        for (const auto& [k, v] : at) s.replace(k, v);
        return s;
    };
    if (args.contains("batch")) fs::create_symlink(in, path("in/link.png"));  // inside the folder: an input itself
    QStringList a;
    for (const QString& x : args) a << expand(x);
    if (args.contains("batch")) a.replaceInStrings(q(path("link.png")), q(path("in/link.png")));
    const QByteArray image = sha256(q(in)), palette = sha256(q(path("pal.hex")));
    const Run r = runCli(a);
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QVERIFY2(r.exitCode == 1, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QVERIFY2(oneLine(r.err), qPrintable(r.err));
    QString want = expand(message);
    if (args.contains("batch")) want.replace(q(path("link.png")), q(path("in/link.png")));
    QVERIFY2(r.err.contains(want), qPrintable(r.err + " lacks " + want));
    QCOMPARE(sha256(q(in)), image);
    QCOMPARE(sha256(q(path("pal.hex"))), palette);
    QVERIFY(!fs::exists(path("out.png")));
    QVERIFY(!fs::exists(path("outdir")));
}

void TestHostile::wrongNumbersAreRefused_data() {
    QTest::addColumn<QStringList>("args");  // before INPUT OUTPUT (batch: the whole command but the input)
    QTest::addColumn<QString>("message");
    QTest::newRow("dpi nan") << QStringList{"--dpi", "nan"} << "--dpi must be a number from 0 to 100000, got nan";
    QTest::newRow("dpi inf") << QStringList{"--dpi", "inf"} << "--dpi must be a number from 0 to 100000, got inf";
    QTest::newRow("gamma nan") << QStringList{"--gamma", "nan"} << "--gamma must be a number from 0.1 to 10, got nan";
    QTest::newRow("scale -nan") << QStringList{"--scale", "-nan"} << "--scale must be a number from 0 to 64";
    QTest::newRow("width 2^32 + 1") << QStringList{"--width", "4294967297"}
                                    << "--width must be a whole number from 0 to 1048576, got 4294967297";
    QTest::newRow("threads 2^32 + 1") << QStringList{"--threads", "4294967297"}
                                      << "--threads must be a whole number from 0 to 65536, got 4294967297";
    QTest::newRow("pixel size 2^31") << QStringList{"--pixel-size", "2147483648"}
                                     << "--pixel-size must be a whole number from 1 to 1024, got 2147483648";
    QTest::newRow("gcr 2^32 + 60") << QStringList{"--color", "cmyk", "--gcr", "4294967356"}
                                   << "--gcr must be a whole number from 0 to 100";
    QTest::newRow("empty --palette") << QStringList{"--palette", ""} << "--palette: needs a value, got an empty string";
    QTest::newRow("empty --preset") << QStringList{"--preset", ""} << "--preset: needs a value, got an empty string";
    QTest::newRow("empty --save-palette")
        << QStringList{"--palette", "cga", "--save-palette", ""} << "--save-palette: needs a value";
    QTest::newRow("empty --save-preset") << QStringList{"--save-preset", ""} << "--save-preset: needs a value";
    QTest::newRow("empty --kernel") << QStringList{"--kernel", ""} << "--kernel: needs a value";
    QTest::newRow("batch: empty --shard")
        << QStringList{"batch", "--shard", "", "--out-dir", "@OUTDIR"} << "--shard: needs a value";
    QTest::newRow("batch: empty --palette")
        << QStringList{"batch", "--palette", "", "--out-dir", "@OUTDIR"} << "--palette: needs a value";
    QTest::newRow("batch: dpi nan") << QStringList{"batch", "--dpi", "nan", "--out-dir", "@OUTDIR"} << "--dpi must be";
}

void TestHostile::wrongNumbersAreRefused() {
    // Numbers that would wrap, NaN and empty values (an unset shell variable): usage errors (exit 2) before any work.
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const bool batch = args.contains("batch");
    QStringList a = args;
    a.replaceInStrings("@OUTDIR", q(path("outdir")));
    a << data("moon.png");
    if (!batch) a << q(path("o.png"));
    const Run r = runCli(a);
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QVERIFY2(oneLine(r.err), qPrintable(r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(!fs::exists(path("o.png")) && !fs::exists(path("outdir")));
}

void TestHostile::sizesThatDoNotFit() {
    // A 4096 x 1 strip made 600000 tall would be 2457600000 wide (over int): refused, never a silently wrong size.
    Plane8 strip(4096, 1);
    for (int x = 0; x < 4096; ++x) strip.at(0, x) = uint8_t(x);
    const std::string input = path("strip.png");
    QVERIFY(io::writeImage(input, Image::gray(std::move(strip))).isOk());
    Run r = runCli({"--height", "600000", q(input), q(path("o.png"))});
    QVERIFY2(!r.crashed && r.exitCode == 1 && oneLine(r.err), qPrintable(r.err));
    QVERIFY2(r.err.contains("resizing 4096 x 1 to 2457600000 x 600000 pixels") && r.err.contains("1048576"),
             qPrintable(r.err));
    QVERIFY(!fs::exists(path("o.png")));
    // Both sides given and stretched: 2.4 Gpixel is over the pixel limit before anything is allocated.
    r = runCli({"--width", "4096", "--height", "600000", "--fit", "stretch", q(input), q(path("o.png"))});
    QVERIFY2(!r.crashed && r.exitCode == 1 && oneLine(r.err), qPrintable(r.err));
    QVERIFY2(r.err.contains("the prepared image") && r.err.contains("over the limit"), qPrintable(r.err));
    QVERIFY(!fs::exists(path("o.png")));
    // A size that fits is made exactly.
    r = runCli({"--height", "3", q(input), q(path("o.png"))});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Image out;
    QVERIFY(io::readImage(path("o.png"), out).isOk());
    QCOMPARE(out.width(), 12288);
    QCOMPARE(out.height(), 3);
}

void TestHostile::pixelSizeBomb() {
    // --pixel-size 16 to a 16384 x 16384 output (268 MB) under --max-memory 100M: refused before the method runs,
    // naming both options; within the budget the same command writes the enlarged output.
    Plane8 p(1024, 1024);
    for (int y = 0; y < 1024; ++y)
        for (int x = 0; x < 1024; ++x) p.at(y, x) = uint8_t((x ^ y) & 255);
    const std::string input = path("small.png");
    QVERIFY(io::writeImage(input, Image::gray(std::move(p))).isOk());
    Run r = runCli({"--width", "16384", "--pixel-size", "16", "--max-memory", "100M", q(input), q(path("o.png"))});
    QVERIFY2(!r.crashed && r.exitCode == 1 && oneLine(r.err), qPrintable(r.err));
    QVERIFY2(r.err.contains("--pixel-size 16 enlarges the halftone to 16384 x 16384") &&
                 r.err.contains("--max-memory") && r.err.contains("over the memory limit of 100 MB"),
             qPrintable(r.err));
    QVERIFY(!fs::exists(path("o.png")));
    r = runCli({"--width", "2048", "--pixel-size", "16", "--max-memory", "100M", q(input), q(path("o.png"))});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Image out;
    QVERIFY(io::readImage(path("o.png"), out).isOk());
    QCOMPARE(out.width(), 2048);
}

void TestHostile::jpegBudgetBeforeDecoding() {
    // A progressive JPEG's coefficients (2 bytes a sample, the whole image) are allocated when libjpeg starts
    // decoding: the budget must refuse the file from its header, before that. The file below has enough coded bytes
    // for its 12000 x 12000 blocks (garbage, which libjpeg would decode with warnings) and a heap limit under the
    // 288 MB of coefficients: a refusal after the decoder started would fail with the allocator's words instead.
#ifdef __SANITIZE_ADDRESS__
    QSKIP("a data-size limit cannot be combined with AddressSanitizer's shadow memory; the release run covers this");
#endif
    const std::string base = readBytes(test::dataPath("unusual/progressive.jpg"));
    std::string jpeg = base;
    const size_t sof = jpeg.find("\xff\xc2");
    QVERIFY(sof != std::string::npos);
    const int side = 12000;
    jpeg[sof + 5] = char(side >> 8), jpeg[sof + 6] = char(side & 255), jpeg[sof + 7] = char(side >> 8),
               jpeg[sof + 8] = char(side & 255);
    const size_t sos = jpeg.find("\xff\xda");
    QVERIFY(sos != std::string::npos);
    const size_t data = sos + 2 + ((uint8_t(jpeg[sos + 2]) << 8) | uint8_t(jpeg[sos + 3]));
    jpeg.insert(data, std::string(size_t(side / 8) * (side / 8) / 8 + 1000, '\x55'));
    const std::string file = path("coefficients.jpg");
    writeBytes(file, jpeg);
    const Run r = test::runProcess(HALFTONE_CLI_PATH, {"--max-memory", "100M", q(file), q(path("o.png"))}, 120000, [] {
        const rlim_t limit = rlim_t(250) << 20;
        const struct rlimit rl { limit, limit };
        ::setrlimit(RLIMIT_DATA, &rl);
    });
    QVERIFY2(!r.crashed && r.exitCode == 1 && oneLine(r.err), qPrintable(r.err));
    QVERIFY2(r.err.contains("reading this 12000 x 12000 JPEG image needs") &&
                 r.err.contains("over the memory limit of 100 MB"),
             qPrintable(r.err));
    QVERIFY(!fs::exists(path("o.png")));
}

void TestHostile::unreadableSubFolder() {
    // A sub-folder of a batch tree that cannot be read is reported by name and counted as failed (exit 1); the
    // readable files are still halftoned.
    fs::create_directories(path("tree/locked"));
    fs::copy_file(test::dataPath("moon.png"), path("tree/moon.png"));
    fs::copy_file(test::dataPath("moon.png"), path("tree/locked/hidden.png"));
    fs::permissions(dir(), fs::perms::all);  // the unprivileged run reaches the tree and writes the outputs
    fs::permissions(path("tree"), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(path("tree/locked"), fs::perms::none);
    fs::create_directories(path("out"));
    fs::permissions(path("out"), fs::perms::all);
    const Run r = runCliUnprivileged({"batch", "--out-dir", q(path("out")), q(path("tree"))});
    fs::permissions(path("tree/locked"), fs::perms::owner_all);
    QVERIFY2(r.exitCode != 99, "cannot run as an unprivileged user");
    QVERIFY2(!r.crashed && r.exitCode == 1, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QVERIFY2(r.err.contains(q(path("tree/locked"))) && r.err.contains("cannot read the folder"), qPrintable(r.err));
    QVERIFY2(r.err.contains("1 written") && r.err.contains("1 failed"), qPrintable(r.err));
    QVERIFY(fs::exists(path("out/moon.png")));
}

namespace {

uint32_t crc32(const QByteArray& d) {
    uint32_t c = 0xFFFFFFFFu;
    for (char ch : d) {
        c ^= uint8_t(ch);
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

QByteArray pngChunk(const char* type, const QByteArray& data) {
    QByteArray body = QByteArray(type, 4) + data, out;
    QDataStream s(&out, QIODevice::WriteOnly);
    s << quint32(data.size());
    out += body;
    QByteArray crc;
    QDataStream c(&crc, QIODevice::WriteOnly);
    c << quint32(crc32(body));
    return out + crc;
}

}  // namespace

void TestHostile::validPngOverBudget() {
    // A valid 16-bit RGBA PNG of zeros, 3000 x 3000: 72 MB of samples from 70 KB. It reads, and a
    // memory limit under its 36 MB of planes refuses it from the header, before decoding.
    const int w = 3000, h = 3000;
    QByteArray raw(qsizetype(h) * (1 + w * 8), '\0');
    QByteArray z = qCompress(raw, 9).mid(4);  // zlib stream without Qt's length prefix
    QByteArray ihdr;
    QDataStream s(&ihdr, QIODevice::WriteOnly);
    s << quint32(w) << quint32(h) << quint8(16) << quint8(6) << quint8(0) << quint8(0) << quint8(0);
    const QByteArray png =
        QByteArray("\x89PNG\r\n\x1a\n", 8) + pngChunk("IHDR", ihdr) + pngChunk("IDAT", z) + pngChunk("IEND", {});
    const std::string file = path("zeros16.png");
    writeBytes(file, png.toStdString());
    Image im;
    QVERIFY2(io::readImage(file, im).isOk(), "a valid PNG of zeros was refused");
    QCOMPARE(im.width(), w);
    QVERIFY(im.hasAlpha);
    const Run r = runCli({"--method", "ed", "--max-memory", "30M", q(file), q(path("o.png"))});
    QVERIFY2(!r.crashed && r.exitCode == 1 && oneLine(r.err), qPrintable(r.err));
    QVERIFY2(r.err.contains("3000 x 3000 RGB + alpha image needs") && r.err.contains("over the memory limit of 30 MB"),
             qPrintable(r.err));
    QVERIFY(!fs::exists(path("o.png")));
}

QTEST_GUILESS_MAIN(TestHostile)
#include "test_hostile.moc"
