// The `halftone` CLI as a process: output bits against the SPEC reference, --list formats, every bad input,
// signals at any moment, output paths and formats checked before any work.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <functional>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/ed/dotdiffusion.h"
#include "core/ed/errordiffusion.h"
#include "core/ed/kernel.h"
#include "core/job/registry.h"
#include "core/screen/ordered.h"
#include "core/screen/screen.h"
#include "gpu/gpu.h"
#include "io/atomicwrite.h"
#include "io/imagefile.h"
#include "tests/common/process.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;
namespace fs = std::filesystem;

namespace {

using Run = test::ProcessRun;

Run runCli(const QStringList& args, int timeoutMs = 120000, std::function<void()> inChild = {}) {
    return test::runProcess(HALFTONE_CLI_PATH, args, timeoutMs, std::move(inChild));
}

/// As runCli with standard input read from `inFile` and standard output written to `outFile` (either may be empty).
Run runCliPiped(const QStringList& args, const QString& inFile, const QString& outFile) {
    return test::runProcess(HALFTONE_CLI_PATH, args, 120000, {}, [&](QProcess& p) {
        if (!inFile.isEmpty()) p.setStandardInputFile(inFile);
        if (!outFile.isEmpty()) p.setStandardOutputFile(outFile);
    });
}

/// Whether `program` is on the PATH.
bool haveProgram(const char* program) { return !QStandardPaths::findExecutable(program).isEmpty(); }

/// As runCli with `name`=`value` added to the child's environment (set through QProcess: a child modifier may
/// run in a vfork child that shares this process's memory, so a setenv there would change this process too).
Run runCliWithEnv(const QStringList& args, const QString& name, const QString& value) {
    return test::runProcess(HALFTONE_CLI_PATH, args, 120000, {}, [&](QProcess& p) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(name, value);
        p.setProcessEnvironment(env);
    });
}

std::vector<std::string> dirEntries(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

/// True when process `pid` has open, in `dir`, an output being written: an unnamed O_TMPFILE file
/// (shown as "DIR/#INODE (deleted)") or a hidden ".NAME.halftone-tmp-XXXXXX.EXT".
bool hasOpen(qint64 pid, const std::string& file) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
        std::error_code ec2;
        if (fs::read_symlink(e.path(), ec2).string() == file) return true;
    }
    return false;
}

bool writingInto(qint64 pid, const std::string& dir) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
        std::error_code ec2;
        const std::string target = fs::read_symlink(e.path(), ec2).string();
        if (ec2 || target.rfind(dir + "/", 0) != 0) continue;
        if (target.find(" (deleted)") != std::string::npos || target.find(".halftone-tmp-") != std::string::npos)
            return true;
    }
    return false;
}

std::string readBytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void list();
    void listKernels();
    void matchesReference_data();
    void matchesReference();
    void defaultVariantAndTime();
    void keepAlpha();
    void badInput_data();
    void badInput();
    void hostileInputs_data();
    void hostileInputs();
    void inputNeverOverwritten();
    void readOnlyOutputDirectory();
    void interruptLeavesNoOutput();
    void signalDuringWrite_data();
    void signalDuringWrite();
    void signalWhileReading_data();
    void signalWhileReading();
    void newFilesFollowUmask();
    void nonRegularOutputRefused();
    void symlinkToFileIsFollowed();
    void outputFormatCheckedBeforeReading_data();
    void outputFormatCheckedBeforeReading();
    void lossyFormatNeedsForce();
    void compressLevels();
    void defaultMethodIsExactFloydSteinberg();
    void version();
    void atomicFile();
    void writeErrorNamesNoEmptyFile();
    void pnmRunLoadsNoOpenImageIO();
    void missingModuleIsNamed();
    void dotDiffusion();
    void blueNoiseScreens();
    // Unix conventions (docs/cli.md "Standard input and output", "Names and suggestions")
    void stdinStdoutMatchFileRun_data();
    void stdinStdoutMatchFileRun();
    void stdioUsageErrors();
    void analyzeReadsStandardInput();
    void stdioTemporariesGoOnSignal();
    void quietLeavesOutNotes();
    void suggestions_data();
    void suggestions();
    void namesAndAliases_data();
    void namesAndAliases();
    void listsAsJson();
    void helpFitsAndIsGrouped_data();
    void helpFitsAndIsGrouped();
    void helpMethod();
    void completionsAndManPage();
    void docsMatchTheProgram();
    void badValuesFoundBeforeReading_data();
    void badValuesFoundBeforeReading();

private:
    std::unique_ptr<QTemporaryDir> tmp_;
    std::string dir() const { return tmp_->path().toStdString(); }
    std::string path(const std::string& name) const { return dir() + "/" + name; }
};

void TestCli::initTestCase() {
    gpu::registerMethods(Registry::instance());  // the CLI does the same at start
    QVERIFY2(fs::exists(HALFTONE_CLI_PATH), HALFTONE_CLI_PATH);
}

void TestCli::init() {
    tmp_ = std::make_unique<QTemporaryDir>();
    QVERIFY(tmp_->isValid());
}

void TestCli::list() {
    const Run r = runCli({"--list"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.err.isEmpty());
    const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
    const auto& methods = Registry::instance().methods();
    QCOMPARE(size_t(lines.size()), methods.size());
    std::set<QString> ids;
    for (int i = 0; i < lines.size(); ++i) {
        const QStringList f = lines[i].split('\t');
        QCOMPARE(f.size(), 4);
        QCOMPARE(f[0].toStdString(), methods[size_t(i)].method);
        QCOMPARE(f[1].toStdString(), methods[size_t(i)].variant);
        QVERIFY2(f[2] == "cpu" || f[2] == "gpu" || f[2] == "cpu,gpu", qPrintable(f[2]));
        QCOMPARE(f[2].toStdString(), methods[size_t(i)].devicesString());
        QVERIFY(!f[3].isEmpty());
        ids.insert(f[0] + "/" + f[1]);
    }
    for (const char* id : {"ed/plain", "ed/rc", "ec/plain", "ec/rc"}) QVERIFY2(ids.count(id), id);
}

void TestCli::listKernels() {
    const Run r = runCli({"--list-kernels"});
    QCOMPARE(r.exitCode, 0);
    QStringList expect;
    for (const Kernel& k : kernels()) expect << QString::fromStdString(k.name);
    QCOMPARE(r.out.split('\n', Qt::SkipEmptyParts), expect);
}

void TestCli::matchesReference_data() {
    test::columns<QString, QString, QString, QString, int, bool, bool, QString, QString, QStringList>(
        "image", "method", "variant", "kernel", "levels", "linear", "serpentine", "color", "out", "extra");
    QTest::newRow("moon ed rc fs 2 pgm") << "moon.png"
                                         << "ed"
                                         << "rc"
                                         << "" << 0 << false << false << ""
                                         << "o.pgm" << QStringList{};
    QTest::newRow("moon ed plain jarvis 4 png") << "moon.png"
                                                << "ed"
                                                << "plain"
                                                << "jarvis" << 4 << false << false << "gray"
                                                << "o.png" << QStringList{};
    QTest::newRow("page ec rc stucki 2 serp tif") << "page.png"
                                                  << "ec"
                                                  << "rc"
                                                  << "stucki" << 2 << false << true << "gray"
                                                  << "o.tif" << QStringList{};
    QTest::newRow("page ec plain fs 3 linear pbm?") << "page.png"
                                                    << "ec"
                                                    << "plain"
                                                    << "floyd-steinberg" << 3 << true << false << "gray"
                                                    << "o.pgm" << QStringList{};
    QTest::newRow("page ed rc 2 linear pbm") << "page.png"
                                             << "ed"
                                             << "rc"
                                             << "" << 2 << true << false << "gray"
                                             << "o.pbm" << QStringList{};
    QTest::newRow("chelsea ed rc fs 2 rgb png") << "chelsea.png"
                                                << "ed"
                                                << "rc"
                                                << "" << 2 << false << false << "rgb"
                                                << "o.png" << QStringList{};
    QTest::newRow("chelsea ec plain 5 serp rgb ppm") << "chelsea.png"
                                                     << "ec"
                                                     << "plain"
                                                     << "jarvis" << 5 << false << true << "rgb"
                                                     << "o.ppm" << QStringList{};
    QTest::newRow("chelsea ed plain 2 cmyk tif") << "chelsea.png"
                                                 << "ed"
                                                 << "plain"
                                                 << "" << 2 << false << false << "cmyk"
                                                 << "o.tif" << QStringList{};
    QTest::newRow("chelsea gray from rgb jpeg-free") << "chelsea.png"
                                                     << "ec"
                                                     << "rc"
                                                     << "" << 16 << true << true << "gray"
                                                     << "o.png" << QStringList{};
    QTest::newRow("page jpeg input") << "page.jpg"
                                     << "ed"
                                     << "rc"
                                     << "" << 2 << false << false << ""
                                     << "o.tif" << QStringList{};
    // every kernel once, through the CLI
    for (const Kernel& k : kernels())
        QTest::newRow(qPrintable("moon ec rc " + QString::fromStdString(k.name)))
            << "moon.png"
            << "ec"
            << "rc" << QString::fromStdString(k.name) << 2 << false << false << "gray"
            << "o.png" << QStringList{};
    // every exact error-diffusion method with a CPU path that the registry holds (parallel ones with 3 threads)
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (m.family != "error-diffusion" || !m.exact || !m.cpu || !m.param("levels")) continue;
        QStringList extra{"--device", "cpu"};
        if (m.param("threads"))
            extra << "--threads"
                  << "3";
        QTest::newRow(qPrintable("registry " + QString::fromStdString(m.id())))
            << "chelsea.png" << QString::fromStdString(m.method) << QString::fromStdString(m.variant) << "jarvis" << 3
            << false << false << "rgb"
            << "o.ppm" << extra;
    }
}

void TestCli::matchesReference() {
    QFETCH(QString, image);
    QFETCH(QString, method);
    QFETCH(QString, variant);
    QFETCH(QString, kernel);
    QFETCH(int, levels);
    QFETCH(bool, linear);
    QFETCH(bool, serpentine);
    QFETCH(QString, color);
    QFETCH(QString, out);
    QFETCH(QStringList, extra);
    const std::string input = test::dataPath(image.toStdString());
    const std::string output = path(out.toStdString());
    QStringList args{"--method", method, "--variant", variant};
    if (!kernel.isEmpty()) args << "--kernel" << kernel;
    if (levels) args << "--levels" << QString::number(levels);
    if (linear) args << "--linear";
    if (serpentine) args << "--serpentine";
    if (!color.isEmpty()) args << "--color" << color;
    args << extra << QString::fromStdString(input) << QString::fromStdString(output);
    const Run r = runCli(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(dirEntries(dir()), std::vector<std::string>{out.toStdString()});

    EdParams p;
    if (!kernel.isEmpty()) p.kernel = kernel.toStdString();
    if (levels) p.levels = levels;
    p.linear = linear;
    p.serpentine = serpentine;
    Image src;
    QVERIFY(io::readImage(input, src).isOk());
    ColorMode mode = ColorMode::Gray;
    if (!color.isEmpty()) QVERIFY(parseColorMode(color.toStdString(), mode));
    const Image planes = convertColor(src, mode);
    Image got;
    const Status s = io::readImage(output, got);
    QVERIFY2(s.isOk(), s.message().c_str());
    if (out.endsWith(".ppm") || mode != ColorMode::Gray) QCOMPARE(got.channelCount(), planes.channelCount());
    QCOMPARE(got.space, planes.space);
    for (int c = 0; c < planes.channelCount(); ++c) {
        const Plane8 ref = referenceErrorDiffusion(planes.channels[size_t(c)], p);
        QVERIFY2(got.channels[size_t(c)] == ref,
                 qPrintable(QString("channel %1 differs from the SPEC reference").arg(c)));
    }
}

void TestCli::defaultVariantAndTime() {
    const Run r = runCli({"--method", "ec", "--time", QString::fromStdString(test::dataPath("page.png")),
                          QString::fromStdString(path("t.png"))});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("ec/rc on cpu: ") && r.err.contains(" s"), qPrintable(r.err));
}

void TestCli::keepAlpha() {
    // gray + alpha input; without --keep-alpha the output has no alpha, with it the alpha is copied.
    Image im = Image::gray(test::randomPlane(19, 7, test::freshSeed("keep alpha")));
    im.hasAlpha = true;
    im.alpha = test::randomPlane(19, 7, test::freshSeed("keep alpha a"));
    QVERIFY(io::writeImage(path("ga.png"), im).isOk());
    const QString in = QString::fromStdString(path("ga.png"));
    QCOMPARE(runCli({"--method", "ed", in, QString::fromStdString(path("a.png"))}).exitCode, 0);
    QCOMPARE(runCli({"--method", "ed", "--keep-alpha", in, QString::fromStdString(path("b.png"))}).exitCode, 0);
    Image a, b;
    QVERIFY(io::readImage(path("a.png"), a).isOk());
    QVERIFY(io::readImage(path("b.png"), b).isOk());
    QVERIFY(!a.hasAlpha);
    QVERIFY(b.hasAlpha);
    QVERIFY(b.alpha == im.alpha);
    QVERIFY(a.channels == b.channels);
    QVERIFY(a.channels[0] == referenceErrorDiffusion(im.channels[0], EdParams{}));
}

void TestCli::badInput_data() {
    // Arguments use @IN (a good image), @DIR (the temp dir), @OUT (its output file).
    test::columns<QStringList, int>("args", "exitCode");
    QTest::addColumn<QString>("message");  // must appear in the single stderr line; @ expands as above
    const QString m = "--method", ed = "ed";
    QTest::newRow("no arguments") << QStringList{} << 2 << "no INPUT and OUTPUT files given";
    QTest::newRow("no output") << QStringList{m, ed, "@IN"} << 2 << "INPUT and OUTPUT";
    QTest::newRow("unknown method") << QStringList{m, "nosuch", "@IN", "@OUT"} << 2 << "unknown method 'nosuch'";
    QTest::newRow("unknown variant") << QStringList{m, ed, "--variant", "zz", "@IN", "@OUT"} << 2 << "no variant 'zz'";
    QTest::newRow("unknown option") << QStringList{m, ed, "--frobnicate", "@IN", "@OUT"} << 2 << "--frobnicate";
    QTest::newRow("extra positional") << QStringList{m, ed, "@IN", "@OUT", "@DIR/third.png"} << 2 << "third.png";
    QTest::newRow("bad kernel") << QStringList{m, ed, "--kernel", "nope", "@IN", "@OUT"} << 2
                                << "unknown kernel 'nope'";
    QTest::newRow("levels too low") << QStringList{m, ed, "--levels", "1", "@IN", "@OUT"} << 2
                                    << "levels must be between";
    QTest::newRow("levels too high") << QStringList{m, "ec", "--levels", "257", "@IN", "@OUT"} << 2
                                     << "levels must be between";
    QTest::newRow("levels not a number") << QStringList{m, ed, "--levels", "many", "@IN", "@OUT"} << 2 << "many";
    QTest::newRow("bad color") << QStringList{m, ed, "--color", "lab", "@IN", "@OUT"} << 2 << "unknown --color 'lab'";
    QTest::newRow("bad device") << QStringList{m, ed, "--device", "tpu", "@IN", "@OUT"} << 2
                                << "unknown --device 'tpu'";
    QTest::newRow("negative threads") << QStringList{m, ed, "--threads", "-2", "@IN", "@OUT"} << 2 << "--threads";
    QTest::newRow("zero max pixels") << QStringList{m, ed, "--max-pixels", "0", "@IN", "@OUT"} << 2 << "--max-pixels";
    QTest::newRow("negative max pixels") << QStringList{m, ed, "--max-pixels", "-1", "@IN", "@OUT"} << 2
                                         << "--max-pixels must be a positive number of pixels, got -1";
    QTest::newRow("bad compress") << QStringList{m, ed, "--compress", "fastest", "@IN", "@OUT"} << 2
                                  << "--compress: unknown compression 'fastest'; choose fast, default, best or a level";
    QTest::newRow("compress level too high")
        << QStringList{m, ed, "--compress", "10", "@IN", "@OUT"} << 2 << "--compress: unknown compression '10'";
    QTest::newRow("jpeg without --force")
        << QStringList{"@IN", "@DIR/o.jpg"} << 1 << "cannot write '@DIR/o.jpg': JPEG is a lossy format";
    QTest::newRow("webp without --force")
        << QStringList{"@IN", "@DIR/o.webp"} << 1 << "cannot write '@DIR/o.webp': WEBP is a lossy format";
    QTest::newRow("gif cannot hold gray")
        << QStringList{"@IN", "@DIR/o.gif"} << 1 << "cannot write '@DIR/o.gif': gif does not support 1-channel";
    QTest::newRow("ico too small for the image")
        << QStringList{"@IN", "@DIR/o.ico"} << 1 << "'.ico' files hold at most 256 x 256";
    QTest::newRow("null is no file format")
        << QStringList{"@IN", "@DIR/o.null"} << 1 << "'.null' names no image file format";
    QTest::newRow("screen to jpeg") << QStringList{"screen", "--method", "bayer", "@DIR/o.jpg"} << 1
                                    << "cannot write '@DIR/o.jpg': a lossy format";
    QTest::newRow("screen to gif") << QStringList{"screen", "--method", "bayer", "@DIR/o.gif"} << 1
                                   << "cannot write '@DIR/o.gif': gif does not support";
    QTest::newRow("analyze csv onto a directory")
        << QStringList{"analyze", "--csv", "@DIR/sub.png", "@IN", "@IN"} << 1
        << "analyze: cannot write '@DIR/sub.png': is a directory, not a regular file";
    QTest::newRow("cmyk to png") << QStringList{m, ed, "--color", "cmyk", "@IN", "@OUT"} << 2
                                 << "only TIFF output holds CMYK";
    QTest::newRow("over max pixels") << QStringList{m, ed, "--max-pixels", "1000", "@IN", "@OUT"} << 1
                                     << "over the limit";
    QTest::newRow("missing input") << QStringList{m, ed, "@DIR/none.png", "@OUT"} << 1
                                   << "cannot read '@DIR/none.png': no such file";
    QTest::newRow("input is a directory")
        << QStringList{m, ed, "@DIR", "@OUT"} << 1 << "cannot read '@DIR': is a directory";
    QTest::newRow("input is a device") << QStringList{m, ed, "/dev/zero", "@OUT"} << 1
                                       << "cannot read '/dev/zero': not a regular file";
    QTest::newRow("same path") << QStringList{m, ed, "@IN", "@IN"} << 1 << "refusing to overwrite the input";
    QTest::newRow("output dir missing") << QStringList{m, ed, "@IN", "@DIR/no/such/o.png"} << 1
                                        << "cannot write '@DIR/no/such/o.png': the directory";
    QTest::newRow("output is a directory")
        << QStringList{m, ed, "@IN", "@DIR/sub.png"} << 1 << "cannot write '@DIR/sub.png': is a directory";
    QTest::newRow("unknown output extension")
        << QStringList{m, ed, "@IN", "@DIR/o.xyz"} << 1 << "cannot write '@DIR/o.xyz'";
    QTest::newRow("no output extension") << QStringList{m, ed, "@IN", "@DIR/o"} << 1 << "no file extension";
    QTest::newRow("rgb to pgm") << QStringList{m, ed, "--color", "rgb", "@IN", "@DIR/o.pgm"} << 2
                                << "cannot write '@DIR/o.pgm': PGM holds one gray channel";
    QTest::newRow("levels to pbm") << QStringList{m, ed, "--levels", "4", "@IN", "@DIR/o.pbm"} << 2
                                   << "cannot write '@DIR/o.pbm': PBM holds only black and white";
    // An option of another registered method, if any method has one that ed/rc lacks.
    const MethodInfo* edrc = Registry::instance().find("ed", "rc");
    for (const MethodInfo& mi : Registry::instance().methods())
        for (const ParamSpec& ps : mi.params)
            if (!edrc->param(ps.key) && ps.key != "threads") {
                QStringList a{m, ed, "--" + QString::fromStdString(ps.key)};
                if (ps.kind == ParamSpec::Kind::Int || ps.kind == ParamSpec::Kind::Real)
                    a << QString::number(ps.def);
                else if (ps.kind == ParamSpec::Kind::Choice)
                    a << QString::fromStdString(ps.choices.at(size_t(ps.def)));
                else if (ps.kind == ParamSpec::Kind::Text)
                    a << "x";
                a << "@IN"
                  << "@OUT";
                QTest::newRow(qPrintable("option of " + QString::fromStdString(mi.id()) + " given to ed"))
                    << a << 2 << "option --" + QString::fromStdString(ps.key) + " does not apply to method ed/rc";
                goto done;
            }
done:;
}

void TestCli::badInput() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    // The good input lives outside the temp dir, which must stay as it was.
    QTemporaryDir inDir;
    const QString in = inDir.path() + "/in.png";
    QVERIFY(QFile::copy(QString::fromStdString(test::dataPath("page.png")), in));
    const QString d = QString::fromStdString(dir());
    fs::create_directory(path("sub.png"));
    auto expand = [&](QString s) { return s.replace("@IN", in).replace("@OUT", d + "/out.png").replace("@DIR", d); };
    QStringList a;
    for (const QString& s : args) a << expand(s);
    const auto before = dirEntries(dir());
    const std::string inBytes = readBytes(in.toStdString());
    const Run r = runCli(a);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.endsWith('\n') && r.err.count('\n') == 1, qPrintable("stderr must be one line: " + r.err));
    QVERIFY2(r.err.startsWith("halftone: "), qPrintable(r.err));
    QVERIFY2(r.err.contains(expand(message)), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
    QCOMPARE(dirEntries(dir()), before);  // no output, no temporary file
    QCOMPARE(readBytes(in.toStdString()), inBytes);
}

void TestCli::hostileInputs_data() {
    test::columns<QString, QString>("file", "output");
    const QDir d(QString(HALFTONE_TEST_DATA_DIR) + "/hostile");
    int i = 0;
    for (const QString& f : d.entryList(QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(f)) << d.filePath(f) << QString(i++ % 2 ? "o.pgm" : "o.png");
}

void TestCli::hostileInputs() {
    QFETCH(QString, file);
    QFETCH(QString, output);
    const Run r = runCli({"--method", "ed", file, QString::fromStdString(dir()) + "/" + output});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.count('\n') == 1, qPrintable(r.err));
    QVERIFY2(r.err.startsWith("halftone: cannot read '" + file + "': "), qPrintable(r.err));
    QVERIFY(dirEntries(dir()).empty());
}

void TestCli::inputNeverOverwritten() {
    const std::string in = path("in.png");
    fs::copy_file(test::dataPath("page.png"), in);
    const std::string bytes = readBytes(in);
    fs::create_symlink(in, path("link.png"));
    fs::create_hard_link(in, path("hard.png"));
    for (const std::string& out : {in, path("link.png"), path("hard.png"), dir() + "/./in.png"}) {
        const Run r = runCli({"--method", "ed", QString::fromStdString(in), QString::fromStdString(out)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("refusing to overwrite the input"), qPrintable(r.err));
        QCOMPARE(readBytes(in), bytes);
    }
    QCOMPARE(dirEntries(dir()), (std::vector<std::string>{"hard.png", "in.png", "link.png"}));
}

void TestCli::readOnlyOutputDirectory() {
    if (::geteuid() == 0) QSKIP("running as root: permission bits do not stop root from writing");
    const std::string ro = path("ro");
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    const Run r = runCli(
        {"--method", "ed", QString::fromStdString(test::dataPath("page.png")), QString::fromStdString(ro + "/o.png")});
    fs::permissions(ro, fs::perms::owner_all);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("not writable"), qPrintable(r.err));
    QVERIFY(dirEntries(ro).empty());
}

void TestCli::interruptLeavesNoOutput() {
    // A job long enough to interrupt: 4 CMYK channels of a 6000 x 6000 image with the plain EC variant.
    const int n = 6000;
    Plane8 big = test::randomPlane(n, n, test::freshSeed("interrupt"));
    QVERIFY(io::writeImage(path("big.pgm"), Image::gray(big)).isOk());
    const QString out = QString::fromStdString(path("o.tif"));
    QProcess p;
    p.start(HALFTONE_CLI_PATH, {"--method", "ec", "--variant", "plain", "--kernel", "stucki", "--color", "cmyk",
                                "--progress", QString::fromStdString(path("big.pgm")), out});
    QVERIFY(p.waitForStarted());
    QByteArray err;
    QElapsedTimer t;
    t.start();
    while (!err.contains("progress") && t.elapsed() < 60000 && p.state() == QProcess::Running) {
        p.waitForReadyRead(100);
        err += p.readAllStandardError();
    }
    QVERIFY2(err.contains("progress"), err.constData());
    ::kill(pid_t(p.processId()), SIGINT);
    QVERIFY(p.waitForFinished(60000));
    err += p.readAllStandardError();
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 130);
    QVERIFY2(err.contains("halftone: interrupted by SIGINT; no output written\n"), err.constData());
    QCOMPARE(dirEntries(dir()), std::vector<std::string>{"big.pgm"});
}

void TestCli::signalDuringWrite_data() {
    test::columns<int, QString>("sig", "out");
    QTest::newRow("SIGINT png") << int(SIGINT) << "o.png";
    QTest::newRow("SIGTERM png") << int(SIGTERM) << "o.png";
    QTest::newRow("SIGHUP tif") << int(SIGHUP) << "o.tif";
    QTest::newRow("SIGQUIT tif") << int(SIGQUIT) << "o.tif";
    QTest::newRow("SIGKILL png") << int(SIGKILL) << "o.png";
    // JPEG 2000's writer needs a name with the extension: a hidden named temporary file is used.
    QTest::newRow("SIGTERM jp2 (named temporary)") << int(SIGTERM) << "o.jp2";
    QTest::newRow("SIGHUP jp2 (named temporary)") << int(SIGHUP) << "o.jp2";
}

void TestCli::signalDuringWrite() {
    QFETCH(int, sig);
    QFETCH(QString, out);
    // A quick method on a large image: the output file takes a while to encode. The signal goes out
    // once the process holds the output being written (unnamed or hidden) in the directory.
    const int n = 6000;
    QVERIFY(
        io::writeImage(path("big.pgm"), Image::gray(test::randomPlane(n, n, test::freshSeed("signal during write"))))
            .isOk());
    const std::string old = "the previous output: it must survive\n";
    {
        std::ofstream f(path(out.toStdString()), std::ios::binary);
        f << old;
    }
    QProcess p;
    p.start(HALFTONE_CLI_PATH, {"--method", "ed", "--variant", "plain", QString::fromStdString(path("big.pgm")),
                                QString::fromStdString(path(out.toStdString()))});
    QVERIFY(p.waitForStarted());
    bool seen = false;
    while (!seen && p.state() == QProcess::Running) {
        seen = writingInto(p.processId(), dir());
        if (!seen) p.waitForFinished(5);
    }
    QVERIFY2(seen,
             qPrintable("the output was never seen being written: " + QString::fromUtf8(p.readAllStandardError())));
    ::kill(pid_t(p.processId()), sig);
    QVERIFY(p.waitForFinished(60000));
    const QByteArray err = p.readAllStandardError();
    if (sig == SIGKILL) {
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    } else {
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + sig);
        const QByteArray name = sig == SIGINT    ? "SIGINT"
                                : sig == SIGTERM ? "SIGTERM"
                                : sig == SIGHUP  ? "SIGHUP"
                                                 : "SIGQUIT";
        QVERIFY2(err.endsWith("halftone: interrupted by " + name + "; no output written\n"), err.constData());
    }
    // No new output, no temporary file; the old output is untouched.
    QCOMPARE(dirEntries(dir()), (std::vector<std::string>{"big.pgm", out.toStdString()}));
    QCOMPARE(readBytes(path(out.toStdString())), old);
}

void TestCli::signalWhileReading_data() {
    QTest::addColumn<int>("sig");
    QTest::newRow("SIGINT") << int(SIGINT);
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGHUP") << int(SIGHUP);
    QTest::newRow("SIGQUIT") << int(SIGQUIT);
}

void TestCli::signalWhileReading() {
    // The signal goes out while the process holds the (large, slow to decode) input open; whether it
    // lands in the decoder or just after, the run ends with 128 + N and leaves nothing.
    QFETCH(int, sig);
    fs::create_directory(path("in"));
    const std::string in = path("in/big.png");
    QVERIFY(
        io::writeImage(in, Image::gray(test::randomPlane(5000, 5000, test::freshSeed("signal while reading")))).isOk());
    QProcess p;
    p.start(HALFTONE_CLI_PATH, {"--method", "ed", QString::fromStdString(in), QString::fromStdString(path("o.png"))});
    QVERIFY(p.waitForStarted());
    bool seen = false;
    while (!seen && p.state() == QProcess::Running) {
        seen = hasOpen(p.processId(), in);
        if (!seen) p.waitForFinished(2);
    }
    QVERIFY2(seen, "the input was never seen open");
    ::kill(pid_t(p.processId()), sig);
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 128 + sig);
    QVERIFY2(p.readAllStandardError().contains("; no output written\n"), "the message says nothing was written");
    QCOMPARE(dirEntries(dir()), std::vector<std::string>{"in"});
}

void TestCli::newFilesFollowUmask() {
    const QString in = QString::fromStdString(test::dataPath("page.png"));
    for (mode_t mask : {mode_t(022), mode_t(027), mode_t(077), mode_t(002)})
        for (const char* ext : {"png", "pgm", "jp2"}) {
            const std::string out = path('u' + std::to_string(mask) + "." + ext);
            const Run r =
                runCli({"--method", "ed", in, QString::fromStdString(out)}, 120000, [mask] { ::umask(mask); });
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            struct stat st {};
            QCOMPARE(::stat(out.c_str(), &st), 0);
            QCOMPARE(int(st.st_mode & 07777), int(0666 & ~mask));
        }
    // A replaced file keeps its own mode, whatever the umask.
    const std::string kept = path("kept.png");
    { std::ofstream(kept) << "old"; }
    fs::permissions(kept, fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
    const Run r = runCli({"--method", "ed", in, QString::fromStdString(kept)}, 120000, [] { ::umask(077); });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    struct stat st {};
    QCOMPARE(::stat(kept.c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 07777), 0604);
}

void TestCli::nonRegularOutputRefused() {
    const QString in = QString::fromStdString(test::dataPath("page.png"));
    fs::create_symlink("/dev/null", path("null.png"));
    fs::create_symlink(path("null.png"), path("chain.pgm"));
    fs::create_symlink(path("nowhere.png"), path("dangling.png"));
    QCOMPARE(::mkfifo(path("fifo.png").c_str(), 0644), 0);
    struct stat devBefore {};
    QCOMPARE(::stat("/dev/null", &devBefore), 0);
    const auto before = dirEntries(dir());
    const std::pair<const char*, const char*> cases[] = {
        {"null.png", "is a symbolic link to a character device, not to a regular file"},
        {"chain.pgm", "is a symbolic link to a character device"},
        {"dangling.png", "is a symbolic link to a missing file"},
        {"fifo.png", "is a FIFO (named pipe), not a regular file"},
    };
    for (const auto& [name, message] : cases) {
        const QString out = QString::fromStdString(path(name));
        const Run r = runCli({"--method", "ed", in, out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith("halftone: cannot write '" + out + "': " + message) && r.err.count('\n') == 1,
                 qPrintable(r.err));
    }
    // A device path given directly.
    const Run r = runCli({"--method", "ed", in, "/dev/null"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.startsWith("halftone: cannot write '/dev/null': "), qPrintable(r.err));
    QCOMPARE(dirEntries(dir()), before);
    QVERIFY(fs::is_symlink(path("null.png")));
    struct stat devAfter {};
    QCOMPARE(::stat("/dev/null", &devAfter), 0);
    QVERIFY(S_ISCHR(devAfter.st_mode));
    QCOMPARE(devAfter.st_mode, devBefore.st_mode);
    QCOMPARE(devAfter.st_rdev, devBefore.st_rdev);
}

void TestCli::symlinkToFileIsFollowed() {
    // The link stays a link; the file it names gets the halftone and keeps its mode.
    fs::create_directory(path("real"));
    { std::ofstream(path("real/o.png")) << "old"; }
    fs::permissions(path("real/o.png"), fs::perms::owner_read | fs::perms::owner_write);
    fs::create_symlink("real/o.png", path("link.png"));
    const Run r = runCli({"--method", "ed", QString::fromStdString(test::dataPath("page.png")),
                          QString::fromStdString(path("link.png"))});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(fs::is_symlink(path("link.png")));
    QCOMPARE(dirEntries(path("real")), std::vector<std::string>{"o.png"});
    Image back;
    QVERIFY(io::readImage(path("real/o.png"), back).isOk());
    Image src;
    QVERIFY(io::readImage(test::dataPath("page.png"), src).isOk());
    QVERIFY(back.channels[0] == referenceErrorDiffusion(convertColor(src, ColorMode::Gray).channels[0], EdParams{}));
    QCOMPARE(int(fs::status(path("real/o.png")).permissions() & fs::perms::all), 0600);
}

void TestCli::outputFormatCheckedBeforeReading_data() {
    QTest::addColumn<QStringList>("args");  // @OUT: in the temp dir
    test::columns<QString, QString>("out", "message");
    QTest::newRow("unknown extension") << QStringList{} << "o.xyz"
                                       << "no image format is known for the extension '.xyz'";
    QTest::newRow("gif cannot hold gray") << QStringList{} << "o.gif"
                                          << "gif does not support 1-channel images";
    QTest::newRow("hdr cannot hold gray") << QStringList{} << "o.hdr"
                                          << "(the output is a gray image; .png, .tif and .pgm hold it)";
    QTest::newRow("jpeg without --force") << QStringList{} << "o.jpg"
                                          << "JPEG is a lossy format";
    QTest::newRow("pgm cannot hold rgb") << QStringList{"--color", "rgb"} << "o.pgm"
                                         << "PGM holds one gray channel";
    QTest::newRow("png cannot hold cmyk") << QStringList{"--color", "cmyk"} << "o.png"
                                          << "only TIFF output holds CMYK";
    QTest::newRow("pbm cannot hold 4 levels") << QStringList{"--levels", "4"} << "o.pbm"
                                              << "PBM holds only black and white";
    QTest::newRow("pseudo format") << QStringList{} << "o.term"
                                   << "names no image file format";
}

void TestCli::outputFormatCheckedBeforeReading() {
    QFETCH(QStringList, args);
    QFETCH(QString, out);
    QFETCH(QString, message);
    // A valid 30000 x 30000 PGM (900 Mpixel, sparse on disk) under an address-space limit far below
    // what reading it takes: only a refusal before reading ends with the output's message (and
    // reading first would end in an input or memory message).
    const int n = 30000;
    const std::string huge = path("huge.pgm");
    {
        std::ofstream f(huge, std::ios::binary);
        f << "P5\n" << n << " " << n << "\n255\n";
    }
    fs::resize_file(huge, fs::file_size(huge) + uint64_t(n) * uint64_t(n));
    const QString output = QString::fromStdString(path(out.toStdString()));
    const Run r = runCli(QStringList{"--method", "ed"} << args << QString::fromStdString(huge) << output, 120000, [] {
#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer's shadow memory needs far more address space
        const rlimit as{rlim_t(600) << 20, rlim_t(600) << 20};
        ::setrlimit(RLIMIT_AS, &as);
#endif
    });
    QVERIFY2(r.exitCode == 1 || r.exitCode == 2, qPrintable(r.err));
    QVERIFY2(r.err.startsWith("halftone: cannot write '" + output + "': ") && r.err.count('\n') == 1,
             qPrintable(r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QCOMPARE(dirEntries(dir()), std::vector<std::string>{"huge.pgm"});
}

void TestCli::lossyFormatNeedsForce() {
    const QString in = QString::fromStdString(test::dataPath("page.png"));
    const QString out = QString::fromStdString(path("o.jpg"));
    Run r = runCli({"--method", "ed", in, out});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("lossy") && r.err.contains("--force"), qPrintable(r.err));
    QVERIFY(dirEntries(dir()).empty());
    r = runCli({"--method", "ed", "--force", in, out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.startsWith("halftone: note: writing a halftone to JPEG, a lossy format") && r.err.count('\n') == 1,
             qPrintable(r.err));
    QCOMPARE(dirEntries(dir()), std::vector<std::string>{"o.jpg"});
    Image back;
    QVERIFY(io::readImage(path("o.jpg"), back).isOk());
    // The warning is true: JPEG did not keep the dots pure black and white.
    QVERIFY(std::any_of(back.channels[0].data.begin(), back.channels[0].data.end(),
                        [](uint8_t v) { return v != 0 && v != 255; }));
}

void TestCli::compressLevels() {
    // --compress changes the file's size, never its pixels: a binary RGB halftone (4-bit indexed) and a binary gray
    // one (1-bit) at every word and at levels 0 and 9, in PNG and TIFF.
    const QString in = QString::fromStdString(test::dataPath("chelsea.png"));
    for (const char* color : {"rgb", "gray"}) {
        for (const char* ext : {"png", "tif"}) {
            Image first;
            std::vector<uintmax_t> sizes;
            for (const char* level : {"0", "fast", "default", "best", "9"}) {
                const std::string out = path(std::string("c-") + level + "." + ext);
                const Run r = runCli({"--color", color, "--compress", level, in, QString::fromStdString(out)});
                QVERIFY2(r.exitCode == 0, qPrintable(r.err));
                Image back;
                QVERIFY(io::readImage(out, back).isOk());
                if (sizes.empty()) first = back;
                QVERIFY2(back.channels == first.channels, level);
                sizes.push_back(std::filesystem::file_size(out));
            }
            // Stored is the largest (fast, which matches runs only, can beat level 9 on 1-bit dots); best is 9.
            QVERIFY2(sizes[0] > sizes[1] && sizes[0] > sizes[2] && sizes[0] > sizes[3], ext);
            QCOMPARE(sizes[3], sizes[4]);
        }
    }
}

void TestCli::defaultMethodIsExactFloydSteinberg() {
    const QString in = QString::fromStdString(test::dataPath("chelsea.png"));
    const Run r = runCli({in, QString::fromStdString(path("d.pgm"))});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    Image src, got;
    QVERIFY(io::readImage(test::dataPath("chelsea.png"), src).isOk());
    QVERIFY(io::readImage(path("d.pgm"), got).isOk());
    EdParams fs;
    fs.kernel = "floyd-steinberg";
    fs.levels = 2;
    QVERIFY(got.channels[0] == referenceErrorDiffusion(convertColor(src, ColorMode::Gray).channels[0], fs));
    // The same bytes as the method named in full.
    const Run named = runCli({"--method", "ed", in, QString::fromStdString(path("n.pgm"))});
    QCOMPARE(named.exitCode, 0);
    QCOMPARE(readBytes(path("d.pgm")), readBytes(path("n.pgm")));
}

void TestCli::version() {
    const Run r = runCli({"--version"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QString("halftone (Halftone Studio) " HALFTONE_VERSION "\n"));
    QVERIFY(QString(HALFTONE_VERSION).contains(QRegularExpression("^\\d+\\.\\d+\\.\\d+$")));
    QVERIFY(runCli({"--help"}).out.contains("--version"));
}

void TestCli::atomicFile() {
    // The writer the CLI's outputs go through: unnamed while written, in place only on commit.
    for (bool named : {false, true}) {
        const std::string target = path(named ? "named.txt" : "unnamed.txt");
        {
            io::AtomicFile f;
            QVERIFY(f.open(target, named).isOk());
            QCOMPARE(f.unnamed(), !named);
            QCOMPARE(::write(f.fd(), "abc", 3), ssize_t(3));
            // Unnamed: nothing in the directory at all; named: only the hidden temporary.
            const auto during = dirEntries(dir());
            if (!named)
                QVERIFY(during.empty());
            else
                QVERIFY(during.size() == 1 && during[0].find(".halftone-tmp-") != std::string::npos);
        }  // destroyed without commit: dropped
        QVERIFY(dirEntries(dir()).empty());
        io::AtomicFile f;
        QVERIFY(f.open(target, named).isOk());
        QCOMPARE(::write(f.fd(), "new", 3), ssize_t(3));
        QVERIFY(f.commit().isOk());
        QCOMPARE(readBytes(target), std::string("new"));
        // Replacing keeps the old file's mode; the old contents stay until the commit.
        fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
        io::AtomicFile g;
        QVERIFY(g.open(target, named).isOk());
        QCOMPARE(::write(g.fd(), "newer", 5), ssize_t(5));
        QCOMPARE(readBytes(target), std::string("new"));
        QVERIFY(g.commit().isOk());
        QCOMPARE(readBytes(target), std::string("newer"));
        QCOMPARE(int(fs::status(target).permissions() & fs::perms::all), 0640);
        fs::remove(target);
        QVERIFY(dirEntries(dir()).empty());
    }
    // Non-regular targets are refused before anything is created.
    io::AtomicFile f;
    QVERIFY(!f.open(dir()).isOk());
    QVERIFY(!f.open("/dev/null").isOk());
    QVERIFY(io::checkWritableTarget("/dev/null").message().find("character device") != std::string::npos);
}

void TestCli::writeErrorNamesNoEmptyFile() {
    // A write that fails inside the OpenEXR codec (file size limit): the message names the output, never "".
    const QString out = QString::fromStdString(path("o.exr"));
    const Run r = runCli(
        {"--method", "ed", "--color", "rgb", QString::fromStdString(test::dataPath("chelsea.png")), out}, 120000, [] {
            ::signal(SIGXFSZ, SIG_IGN);
            const rlimit fsize{10000, 10000};
            ::setrlimit(RLIMIT_FSIZE, &fsize);
        });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.startsWith("halftone: cannot write '" + out + "': ") && r.err.count('\n') == 1, qPrintable(r.err));
    QVERIFY2(!r.err.contains("\"\"") && !r.err.contains("''"), qPrintable(r.err));
    QVERIFY(dirEntries(dir()).empty());
}

void TestCli::pnmRunLoadsNoOpenImageIO() {
    // The dynamic loader lists every object it opens (LD_DEBUG=files): a PNM run and --list-kernels open neither
    // the OpenImageIO module nor OpenImageIO; a PNG run opens both (the check can tell them apart).
    const std::string in = path("lazy.pgm");
    QVERIFY(io::writeImage(in, Image::gray(test::randomPlane(37, 23, test::freshSeed("lazy io")))));
    // The trace goes to files (LD_DEBUG_OUTPUT=PREFIX gives PREFIX.PID): the program silences stderr while a decoder
    // runs, which would hide a module loaded for reading.
    int traces = 0;
    auto traced = [&](const QStringList& args) {
        const QFileInfo prefix(QString::fromStdString(path("ld-trace-" + std::to_string(++traces))));
        qputenv("LD_DEBUG_OUTPUT", prefix.absoluteFilePath().toLocal8Bit());
        Run r = runCliWithEnv(args, "LD_DEBUG", "files");
        qunsetenv("LD_DEBUG_OUTPUT");
        for (const QFileInfo& f : prefix.absoluteDir().entryInfoList({prefix.fileName() + ".*"}, QDir::Files)) {
            QFile file(f.absoluteFilePath());
            if (file.open(QIODevice::ReadOnly)) r.err += QString::fromLocal8Bit(file.readAll());
        }
        return r;
    };
    for (const QStringList& args :
         {QStringList{"--list-kernels"},
          QStringList{"--time", QString::fromStdString(in), QString::fromStdString(path("lazy.pbm"))},
          QStringList{QString::fromStdString(in), QString::fromStdString(path("lazy-out.pgm"))}}) {
        const Run r = traced(args);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("file="), "LD_DEBUG gave no trace; the check below would prove nothing");
        QVERIFY2(!r.err.contains("halftone-io-oiio") && !r.err.contains("libOpenImageIO"),
                 qPrintable(args.join(' ') + " loaded OpenImageIO"));
    }
    // PNG, JPEG, TIFF, WebP and GIF have built-in codecs (test_decoders); BMP needs the module.
    const Run bmp = traced({QString::fromStdString(in), QString::fromStdString(path("lazy.bmp"))});
    QCOMPARE(bmp.exitCode, 0);
    QVERIFY2(bmp.err.contains("halftone-io-oiio") && bmp.err.contains("libOpenImageIO"),
             "a BMP output loads the module");
    const Run bmpIn = traced({QString::fromStdString(path("lazy.bmp")), QString::fromStdString(path("lazy3.pbm"))});
    QCOMPARE(bmpIn.exitCode, 0);
    QVERIFY2(bmpIn.err.contains("halftone-io-oiio") && bmpIn.err.contains("libOpenImageIO"),
             "a BMP input loads the module");
    // the stage times of --time: read, prepare, method, write
    const Run timed = runCli({"--time", QString::fromStdString(in), QString::fromStdString(path("lazy2.pbm"))});
    QCOMPARE(timed.exitCode, 0);
    QVERIFY2(
        QRegularExpression(
            "stages: read [0-9.]+ s, prepare [0-9.]+ s, method [0-9.]+ s, write [0-9.]+ s; peak memory [0-9.]+ MiB")
            .match(timed.err)
            .hasMatch(),
        qPrintable(timed.err));
}

void TestCli::missingModuleIsNamed() {
    // Without the module, formats that need it fail with a message naming the module and the file; PNM still works.
    auto noModule = [](const QStringList& args) {
        return runCliWithEnv(args, "HALFTONE_IO_MODULE", "/nonexistent/halftone-io-oiio.so");
    };
    const QString bmp = QString::fromStdString(test::dataPath("unusual/rle8.bmp"));
    const std::string out = path("nomodule.pbm");
    Run r = noModule({bmp, QString::fromStdString(out)});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("cannot read '" + bmp + "'") && r.err.contains("halftone-io-oiio.so") &&
                 r.err.contains("could not be loaded") && r.err.contains("/nonexistent/"),
             qPrintable(r.err));
    QVERIFY(!fs::exists(out));
    const std::string in = path("nomodule.pgm");
    QVERIFY(io::writeImage(in, Image::gray(test::randomPlane(9, 5, test::freshSeed("no module")))));
    r = noModule({QString::fromStdString(in), QString::fromStdString(path("nomodule.bmp"))});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("cannot write '") && r.err.contains("halftone-io-oiio.so"), qPrintable(r.err));
    r = noModule({QString::fromStdString(in), QString::fromStdString(out)});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(fs::exists(out));
}

void TestCli::dotDiffusion() {
    // `--method dot` runs dot diffusion from the registry: each RGB channel equals the sequential reference
    // (docs/spec.md section 7) at the levels, light and thread count given; an unknown matrix is named with the known
    // ones.
    const std::string input = test::dataPath("chelsea.png");
    const std::string output = path("dot.ppm");
    const Run r =
        runCli({"--method", "dot", "--variant", "mese-vaidyanathan-16", "--levels", "3", "--linear", "--threads", "3",
                "--color", "rgb", QString::fromStdString(input), QString::fromStdString(output)});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    Image src, got;
    QVERIFY(io::readImage(input, src).isOk());
    QVERIFY(io::readImage(output, got).isOk());
    const Image planes = convertColor(src, ColorMode::RGB);
    QCOMPARE(got.channelCount(), 3);
    DotParams p;
    p.matrix = "mese-vaidyanathan-16";
    p.levels = 3;
    p.linear = true;
    for (int c = 0; c < 3; ++c)
        QVERIFY2(got.channels[size_t(c)] == referenceDotDiffusion(planes.channels[size_t(c)], p),
                 qPrintable(QString("channel %1 differs from the dot diffusion reference").arg(c)));
    const Run bad = runCli({"--method", "dot", "--variant", "bayer", QString::fromStdString(input),
                            QString::fromStdString(path("bad.png"))});
    QVERIFY(bad.exitCode != 0);
    QVERIFY2(bad.err.contains("knuth") && bad.err.contains("mese-vaidyanathan-8"), qPrintable(bad.err));
}

void TestCli::blueNoiseScreens() {
    // A frame of a spatiotemporal array written by `halftone screen` (PNG) is the spec's array; ordered dither to four
    // levels with the file equals the run with the spec and the in-process ordered dither of the gray image.
    const std::string file = path("frame1.png");
    const Run made = runCli({"screen", "--method", "void-and-cluster", "--size", "64", "--frames", "4", "--frame", "1",
                             "--seed", "7", "--quiet", QString::fromStdString(file)});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    const std::string spec = "blue-noise:size=64,seed=7,frames=4,frame=1";
    ThresholdArray want;
    QVERIFY(screenFromSpec(spec, want).isOk());
    Image written;
    QVERIFY(io::readImage(file, written).isOk());
    QCOMPARE(written.channelCount(), 1);
    QVERIFY(written.channels[0] == want);
    const std::string input = test::dataPath("chelsea.png");
    for (const std::string& screen : {file, spec}) {
        const std::string out = path("levels4.pgm");
        const Run r = runCli({"--method", "ordered", "--screen", QString::fromStdString(screen), "--levels", "4",
                              QString::fromStdString(input), QString::fromStdString(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        Image src, got;
        QVERIFY(io::readImage(input, src).isOk());
        QVERIFY(io::readImage(out, got).isOk());
        Plane8 expected;
        QVERIFY(orderedDither(convertColor(src, ColorMode::Gray).channels[0], expected, want, {}, 4).isOk());
        QVERIFY2(got.channels[0] == expected, qPrintable(QString::fromStdString(screen)));
    }
    const Run tooMany = runCli({"screen", "--method", "void-and-cluster", "--size", "512", "--frames", "8", "--quiet",
                                QString::fromStdString(path("big.png"))});
    QVERIFY(tooMany.exitCode != 0);
    QVERIFY2(tooMany.err.contains("over the limit"), qPrintable(tooMany.err));
    QVERIFY(!fs::exists(path("big.png")));
}

void TestCli::stdinStdoutMatchFileRun_data() {
    test::columns<QString, QString, QStringList>("image", "format", "options");
    QTest::newRow("png to pbm") << "page.png"
                                << "pbm" << QStringList{};
    QTest::newRow("jpeg to png, jarvis") << "page.jpg"
                                         << "png" << QStringList{"--kernel", "jarvis"};
    QTest::newRow("png to ppm, rgb") << "chelsea.png"
                                     << "ppm" << QStringList{"--color", "rgb"};
    QTest::newRow("png to png, palette") << "palette.png"
                                         << "png" << QStringList{"--palette", "acep7"};
}

void TestCli::stdinStdoutMatchFileRun() {
    QFETCH(QString, image);
    QFETCH(QString, format);
    QFETCH(QStringList, options);
    const QString input = QString::fromStdString(test::dataPath(image.toStdString()));
    const QString fileOut = QString::fromStdString(path("file." + format.toStdString()));
    Run r = runCli(options + QStringList{input, fileOut});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const std::string expected = readBytes(fileOut.toStdString());
    QVERIFY(!expected.empty());
    // - to -, file to -, - to file, and -o: the same bytes as the file run
    const QString piped = QString::fromStdString(path("piped"));
    r = runCliPiped(options + QStringList{"--format", format, "-", "-"}, input, piped);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(readBytes(piped.toStdString()) == expected, "standard input to standard output differs from a file run");
    r = runCliPiped(options + QStringList{"--format", format, input, "-"}, {}, piped);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(readBytes(piped.toStdString()) == expected);
    const QString fromStdin = QString::fromStdString(path("stdin." + format.toStdString()));
    r = runCliPiped(options + QStringList{"-", "-o", fromStdin}, input, {});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(readBytes(fromStdin.toStdString()) == expected);
    const QString withO = QString::fromStdString(path("o." + format.toStdString()));
    r = runCli(options + QStringList{input, "-o", withO});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(readBytes(withO.toStdString()) == expected);
    // no temporary file is left behind
    QVERIFY(!r.err.contains("halftone-"));
}

void TestCli::analyzeReadsStandardInput() {
    const QString original = QString::fromStdString(test::dataPath("moon.png"));
    const QString halftone = QString::fromStdString(path("ht.png"));
    QCOMPARE(runCli({"--width", "64", original, halftone}).exitCode, 0);
    const QString small = QString::fromStdString(path("small.png"));
    QCOMPARE(runCli({"--width", "64", "--method", "ed", "--kernel", "stucki", original, small}).exitCode, 0);
    const Run files = runCli({"analyze", "--json", small, halftone});
    QVERIFY2(files.exitCode == 0 && files.out.startsWith("{\"width\":64"), qPrintable(files.out + files.err));
    const Run piped = runCliPiped({"analyze", "--json", small, "-"}, halftone, {});
    QVERIFY2(piped.exitCode == 0, qPrintable(piped.err));
    QCOMPARE(piped.out, files.out);
    const Run both = runCliPiped({"analyze", "-", "-"}, halftone, {});
    QVERIFY2(both.exitCode == 2 && both.err.contains("only one of"), qPrintable(both.err));
}

void TestCli::stdioUsageErrors() {
    const QString input = QString::fromStdString(test::dataPath("page.png"));
    const QString sink = QString::fromStdString(path("sink"));
    // standard output without --format
    Run r = runCliPiped({input, "-"}, {}, sink);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--format"), qPrintable(r.err));
    // empty standard input, and bytes of no image format: errors that say "standard input"
    const QString empty = QString::fromStdString(path("empty"));
    std::ofstream(empty.toStdString()).close();
    r = runCliPiped({"-", QString::fromStdString(path("o.pbm"))}, empty, {});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("standard input"), qPrintable(r.err));
    const QString text = QString::fromStdString(path("text"));
    std::ofstream(text.toStdString()) << "not an image at all";
    r = runCliPiped({"-", QString::fromStdString(path("o.pbm"))}, text, {});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("standard input") && !r.err.contains("/stdin"), qPrintable(r.err));
    QVERIFY(!fs::exists(path("o.pbm")));
    // OUTPUT and -o both given
    r = runCli({input, QString::fromStdString(path("a.pbm")), "-o", QString::fromStdString(path("b.pbm"))});
    QCOMPARE(r.exitCode, 2);
}

void TestCli::stdioTemporariesGoOnSignal() {
    // Standard input and output are kept in a folder under TMPDIR while the job runs; SIGTERM removes it.
    const std::string tmp = path("tmp");
    fs::create_directory(tmp);
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("TMPDIR", QString::fromStdString(tmp));
    p.setProcessEnvironment(env);
    p.setStandardInputFile(QString::fromStdString(test::dataPath("chelsea.png")));
    p.setStandardOutputFile(QString::fromStdString(path("out.png")));
    p.start(HALFTONE_CLI_PATH, {"--method", "dbs", "--width", "3000", "--format", "png", "-", "-"});
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(!fs::is_empty(tmp), 20000);  // the job is under way
    ::kill(pid_t(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 128 + SIGTERM);
    QVERIFY2(fs::is_empty(tmp), "a temporary file of standard input or output was left");
}

void TestCli::quietLeavesOutNotes() {
    // a lossy output with --force gives a note; --quiet leaves it out, and an error is still printed
    const QString input = QString::fromStdString(test::dataPath("page.png"));
    Run r = runCli({"--force", input, QString::fromStdString(path("a.jpg"))});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("note:"), qPrintable(r.err));
    r = runCli({"--force", "--quiet", input, QString::fromStdString(path("b.jpg"))});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    r = runCli({"-q", QString::fromStdString(path("missing.png")), QString::fromStdString(path("c.png"))});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.contains("missing.png"));
}

void TestCli::suggestions_data() {
    test::columns<QStringList, QString>("args", "suggestion");
    const QString in = QString::fromStdString(test::dataPath("page.png"));
    QTest::newRow("option") << QStringList{"--metod", "ed", in, "o.png"} << "did you mean --method?";
    QTest::newRow("option with =") << QStringList{"--kernal=jarvis", in, "o.png"} << "did you mean --kernel?";
    QTest::newRow("batch option") << QStringList{"batch", "--out-dri", "x", in} << "did you mean --out-dir?";
    QTest::newRow("option of batch") << QStringList{"--out-dir", "x", in, "o.png"}
                                     << "option --out-dir belongs to halftone batch, not to halftone";
    QTest::newRow("option of the program") << QStringList{"batch", "-o", "x.png", "--out-dir", "x", in}
                                           << "option -o belongs to halftone, not to halftone batch";
    QTest::newRow("method") << QStringList{"--method", "dsb", in, "o.png"} << "did you mean 'dbs'?";
    QTest::newRow("variant") << QStringList{"--variant", "plian", in, "o.png"} << "did you mean 'plain'?";
    QTest::newRow("kernel") << QStringList{"--kernel", "jarvs", in, "o.png"} << "did you mean 'jarvis'?";
    QTest::newRow("palette") << QStringList{"--palette", "acep8", in, "o.png"} << "did you mean 'acep7'?";
    QTest::newRow("choice") << QStringList{"--method", "dbs", "--hvs", "nasnen", in, "o.png"}
                            << "did you mean 'nasanen'?";
    QTest::newRow("colour") << QStringList{"--color", "rbg", in, "o.png"} << "did you mean 'rgb'?";
    QTest::newRow("format") << QStringList{"--format", "pmb", in, "-"} << "did you mean 'pbm'?";
    QTest::newRow("command") << QStringList{"scren", "--size", "8", "o.pgm"} << "did you mean 'screen'?";
    QTest::newRow("help topic") << QStringList{"help", "riemersm"} << "did you mean 'riemersma'?";
}

void TestCli::suggestions() {
    QFETCH(QStringList, args);
    QFETCH(QString, suggestion);
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(suggestion), qPrintable(r.err));
    QVERIFY2(r.err.count('\n') == 1, qPrintable(r.err));  // one line
}

void TestCli::namesAndAliases_data() {
    test::columns<QStringList, QStringList>("canonical", "spelled");
    QTest::newRow("fs") << QStringList{"--kernel", "floyd-steinberg"} << QStringList{"--kernel", "fs"};
    QTest::newRow("FloydSteinberg") << QStringList{"--kernel", "floyd-steinberg"}
                                    << QStringList{"--kernel", "FloydSteinberg"};
    QTest::newRow("floyd") << QStringList{"--kernel", "floyd-steinberg"} << QStringList{"--kernel", "floyd"};
    QTest::newRow("jjn") << QStringList{"--kernel", "jarvis"} << QStringList{"--kernel", "jjn"};
    QTest::newRow("JARVIS") << QStringList{"--kernel", "jarvis"} << QStringList{"--kernel", "JARVIS"};
    QTest::newRow("ED") << QStringList{"--method", "ed"} << QStringList{"--method", "ED"};
    QTest::newRow("method fs") << QStringList{"--method", "ed"} << QStringList{"--method", "fs"};
    QTest::newRow("display name") << QStringList{"--method", "dbs"} << QStringList{"--method", "Direct binary search"};
    QTest::newRow("variant RC") << QStringList{"--variant", "rc"} << QStringList{"--variant", "RC"};
    QTest::newRow("ACEP7") << QStringList{"--palette", "acep7"} << QStringList{"--palette", "ACEP7"};
    QTest::newRow("palette acep") << QStringList{"--palette", "acep7"} << QStringList{"--palette", "acep"};
    QTest::newRow("palette Spectra") << QStringList{"--palette", "spectra6"} << QStringList{"--palette", "Spectra"};
    QTest::newRow("palette dmg") << QStringList{"--palette", "gameboy"} << QStringList{"--palette", "DMG"};
    QTest::newRow("colour RGB") << QStringList{"--color", "rgb"} << QStringList{"--color", "RGB"};
    QTest::newRow("hvs") << QStringList{"--method", "dbs", "--hvs", "nasanen"}
                         << QStringList{"--method", "dbs", "--hvs", "Nasanen"};
}

void TestCli::namesAndAliases() {
    QFETCH(QStringList, canonical);
    QFETCH(QStringList, spelled);
    const QString in = QString::fromStdString(test::dataPath("palette.png"));
    const QStringList size = {"--width", "48"};
    Run a = runCli(size + canonical + QStringList{in, QString::fromStdString(path("a.png"))});
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));
    Run b = runCli(size + spelled + QStringList{in, QString::fromStdString(path("b.png"))});
    QVERIFY2(b.exitCode == 0, qPrintable(b.err));
    QVERIFY(readBytes(path("a.png")) == readBytes(path("b.png")));
    // a preset saved from the spelled name holds the canonical one, as the studio shows it
    Run p = runCli(spelled + QStringList{"--save-preset", QString::fromStdString(path("p.json"))});
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    const std::string preset = readBytes(path("p.json"));
    QVERIFY2(preset.find("\"" + canonical.last().toStdString() + "\"") != std::string::npos, preset.c_str());
}

void TestCli::listsAsJson() {
    for (const char* list : {"--list", "--list-kernels", "--list-palettes"}) {
        const Run text = runCli({list});
        const Run json = runCli({list, "--json"});
        QCOMPARE(json.exitCode, 0);
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(json.out.toUtf8(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QVERIFY(doc.isArray());
        const QStringList lines = text.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(doc.array().size(), lines.size());
        for (int i = 0; i < lines.size(); ++i) {
            const QJsonObject o = doc.array()[i].toObject();
            const QString first = lines[i].split('\t').first();
            QCOMPARE(o.value(QString(list) == "--list" ? "method" : "name").toString(), first);
        }
    }
    const Run all = runCli({"--list", "--json"});
    const QJsonArray methods = QJsonDocument::fromJson(all.out.toUtf8()).array();
    for (const QJsonValue& v : methods)
        QCOMPARE(v.toObject().value("default").toBool(),
                 Registry::instance().defaultVariant(v.toObject().value("method").toString().toStdString()) ==
                     v.toObject().value("variant").toString().toStdString());
    // analyze --json: the figures of the text form
    const QString original = QString::fromStdString(test::dataPath("page.png"));
    const QString halftone = QString::fromStdString(path("h.png"));
    QCOMPARE(runCli({original, halftone}).exitCode, 0);
    const Run text = runCli({"analyze", original, halftone});
    const Run json = runCli({"analyze", "--json", original, halftone});
    QCOMPARE(json.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QVERIFY2(!o.isEmpty(), qPrintable(json.out));
    QVERIFY(text.out.contains(QString::asprintf("%.3f dB", o.value("psnr_db").toDouble())));
    QVERIFY(text.out.contains(QString::asprintf("%.8f", o.value("hvs_error").toDouble())));
}

void TestCli::helpFitsAndIsGrouped_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("--help") << QStringList{"--help"};
    QTest::newRow("batch") << QStringList{"batch", "--help"};
    QTest::newRow("screen") << QStringList{"screen", "--help"};
    QTest::newRow("analyze") << QStringList{"analyze", "--help"};
    QTest::newRow("teach") << QStringList{"teach", "--help"};
    QTest::newRow("help") << QStringList{"help"};
    for (const std::string& m : Registry::instance().methodNames())
        QTest::newRow(("help " + m).c_str()) << QStringList{"help", QString::fromStdString(m)};
}

void TestCli::helpFitsAndIsGrouped() {
    QFETCH(QStringList, args);
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!r.out.isEmpty());
    for (const QString& line : r.out.split('\n'))
        QVERIFY2(line.size() <= 100, qPrintable(QString("%1 columns: %2").arg(line.size()).arg(line)));
    if (args.first() != "--help" && args.first() != "batch") return;
    // the groups, in this order, then the examples
    qsizetype at = -1;
    for (const char* group : {"Input:", "Prepare (", "Method:", "Method options of ed",
                              "Colour and palette:", "Print:", "Output:", "Performance:", "Examples:"}) {
        const qsizetype found = r.out.indexOf("\n" + QString(group));
        QVERIFY2(found > at, group);
        at = found;
    }
}

void TestCli::helpMethod() {
    const Run r = runCli({"help", "ED"});
    QCOMPARE(r.exitCode, 0);
    for (const std::string& v : Registry::instance().variants("ed")) QVERIFY(r.out.contains(QString::fromStdString(v)));
    QVERIFY(r.out.contains("--kernel NAME") && r.out.contains("floyd-steinberg"));
    QVERIFY(r.out.contains("(default)"));
    QCOMPARE(runCli({"help", "batch"}).out, runCli({"batch", "--help"}).out);
    // ranges in their shortest form
    const Run dbs = runCli({"help", "dbs"});
    QVERIFY2(dbs.out.contains("(0.3..10, default 1.2)") && !dbs.out.contains("0.2999"), qPrintable(dbs.out));
}

void TestCli::completionsAndManPage() {
    const Run help = runCli({"--help"});
    QStringList longOptions;
    const QRegularExpression optionName("^  (?:-\\w, ?)?(--[a-z0-9-]+)");
    for (const QString& line : help.out.split('\n'))
        if (const auto m = optionName.match(line); m.hasMatch()) longOptions << m.captured(1);
    QVERIFY(longOptions.contains("--method") && longOptions.contains("--kernel") && longOptions.size() > 40);
    for (const char* shell : {"bash", "zsh", "fish"}) {
        const Run r = runCli({"--completion", shell});
        QCOMPARE(r.exitCode, 0);
        for (const QString& o : longOptions)
            QVERIFY2(r.out.contains(o.mid(2)), qPrintable(QString("%1 completion lacks %2").arg(shell, o)));
        QVERIFY2(r.out.contains("floyd-steinberg") && r.out.contains("acep7"), shell);  // values of --kernel, --palette
        const std::string script = path(std::string("completion.") + shell);
        std::ofstream(script) << r.out.toStdString();
        if (haveProgram(shell)) {
            const Run check = test::runProcess(shell, {"-n", QString::fromStdString(script)});
            QVERIFY2(check.exitCode == 0, qPrintable(shell + (": " + check.err)));
        }
    }
    if (haveProgram("bash")) {
        // the bash function completes a mistyped start of --method and the kernel names
        const std::string probe = path("probe.sh");
        std::ofstream(probe) << "source " << path("completion.bash") << "\n"
                             << "COMP_WORDS=(halftone --meth); COMP_CWORD=1; _halftone; echo \"${COMPREPLY[*]}\"\n"
                             << "COMP_WORDS=(halftone --kernel ja); COMP_CWORD=2; _halftone; echo \"${COMPREPLY[*]}\"\n"
                             // a flag takes no value: the word after it is a file
                             << "COMP_WORDS=(halftone --serpentine " << path("pro")
                             << "); COMP_CWORD=2; _halftone; echo \"${COMPREPLY[*]}\"\n";
        const Run r = test::runProcess("bash", {QString::fromStdString(probe)});
        QVERIFY2(r.out.contains("--method") && r.out.contains("jarvis"), qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(QString::fromStdString(path("probe.sh"))), qPrintable(r.out + r.err));
    }
    const Run man = runCli({"--man"});
    QCOMPARE(man.exitCode, 0);
    QVERIFY(man.out.startsWith(".TH HALFTONE 1"));
    for (const QString& o : longOptions) {
        QString roff = o;
        roff.replace("-", "\\-");
        QVERIFY2(man.out.contains(roff), qPrintable(o));
    }
    if (haveProgram("groff")) {
        const std::string page = path("halftone.1");
        std::ofstream(page) << man.out.toStdString();
        const Run r = test::runProcess("groff", {"-man", "-Tutf8", "-ww", "-z", QString::fromStdString(page)});
        QVERIFY2(r.exitCode == 0 && r.err.isEmpty(), qPrintable(r.err));
    }
}

void TestCli::docsMatchTheProgram() {
    // docs/cli.md's help blocks are the program's own output (scripts/update-cli-doc.py writes them).
    std::ifstream in(std::string(HALFTONE_SOURCE_DIR) + "/docs/cli.md");
    QVERIFY(in);
    const QString doc = QString::fromStdString(std::string(std::istreambuf_iterator<char>(in), {}));
    const QRegularExpression block(
        "<!-- help: (.*?) -->\\n```text\\n\\$ halftone [^\\n]*\\n(.*?)\\n```\\n<!-- end help -->",
        QRegularExpression::DotMatchesEverythingOption);
    int blocks = 0;
    for (auto it = block.globalMatch(doc); it.hasNext();) {
        const auto m = it.next();
        const QStringList args = QProcess::splitCommand(m.captured(1));
        const Run r = runCli(args);
        QCOMPARE(r.exitCode, 0);
        // The blocks are made by a build with the CUDA methods (more variants); one without lists fewer.
        if (r.out.trimmed() != m.captured(2).trimmed() && gpu::methods().empty())
            QSKIP("docs/cli.md lists the GPU variants of a CUDA build; this build has none");
        QVERIFY2(r.out.trimmed() == m.captured(2).trimmed(),
                 qPrintable("docs/cli.md: the block of `halftone " + m.captured(1) +
                            "` is out of date; run scripts/update-cli-doc.py"));
        ++blocks;
    }
    QVERIFY(blocks >= 5);
}

void TestCli::badValuesFoundBeforeReading_data() {
    test::columns<QStringList, QString>("options", "message");
    QTest::newRow("screen") << QStringList{"--method", "ordered", "--screen", "bayer:7"} << "power of two";
    QTest::newRow("screen kind") << QStringList{"--method", "ordered", "--screen", "bayr:8"} << "bayr:8";
    QTest::newRow("screen cluster") << QStringList{"--method", "ordered", "--screen", "cluster:cell=x"} << "cluster";
    QTest::newRow("blue noise size") << QStringList{"--method", "ordered", "--screen", "blue-noise:5000"} << "1024";
    QTest::newRow("blue noise frames") << QStringList{"--method", "ordered", "--screen", "blue-noise:64,frames=65"}
                                       << "frames";
    QTest::newRow("blue noise option") << QStringList{"--method", "ordered", "--screen", "blue-noise:64,sead=3"}
                                       << "sead=3";
    QTest::newRow("angles") << QStringList{"--method", "am", "--angles", "15,75"} << "--angles";
    QTest::newRow("kernel") << QStringList{"--kernel", "nope"} << "unknown kernel";
    QTest::newRow("format") << QStringList{"--format", "xyz"} << "--format";
}

void TestCli::badValuesFoundBeforeReading() {
    // The input is a FIFO with no writer: a program that opened it would wait for ever. A usage error found before
    // any file is read ends at once, with exit 2; the batch the same, once for all its files.
    QFETCH(QStringList, options);
    QFETCH(QString, message);
    const std::string fifo = path("in.png");
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    const QString out = QString::fromStdString(path("out.png"));
    Run r = runCli(options + QStringList{QString::fromStdString(fifo), out}, 20000);
    QVERIFY2(!r.crashed, "the CLI opened its input before finding the usage error");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message) && r.err.count('\n') == 1, qPrintable(r.err));
    r = runCli(QStringList{"batch", "--out-dir", QString::fromStdString(path("out"))} + options +
                   QStringList{QString::fromStdString(fifo), QString::fromStdString(fifo)},
               20000);
    QVERIFY2(!r.crashed, "the batch opened an input before finding the usage error");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.count('\n') == 1, qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
