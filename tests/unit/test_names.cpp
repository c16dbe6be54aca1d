// Names a person types (core/job/names.h): spelling-blind matching, the alias table, suggestions by edit distance, and
// their use by the registry's lookups; and what the process may use of the machine (core/machine.h).
#include <QtTest>

#include <sched.h>

#include <QTemporaryDir>

#include "core/job/job.h"
#include "core/ed/kernel.h"
#include "core/machine.h"
#include "core/job/names.h"
#include "core/palette/palette.h"
#include "core/job/registry.h"
#include "core/screen/screen.h"
#include "core/threads.h"

using namespace halftone;

class TestNames : public QObject {
    Q_OBJECT
private slots:
    void editDistanceCountsEachEdit();
    void matchIgnoresSpellingAndFollowsAliases();
    void suggestsTheNearest();
    void lookupsAgree();
    void textParametersAreCheckedWithoutAnImage();
    void cgroupTexts();
    void cgroupTrees();
    void availableCpusFollowTheAffinityMask();
};

void TestNames::editDistanceCountsEachEdit() {
    QCOMPARE(editDistance("", ""), size_t(0));
    QCOMPARE(editDistance("abc", ""), size_t(3));
    QCOMPARE(editDistance("kitten", "sitting"), size_t(3));
    QCOMPARE(editDistance("dsb", "dbs"), size_t(1));  // a swap of neighbours
    QCOMPARE(editDistance("jarvs", "jarvis"), size_t(1));
    QCOMPARE(editDistance("method", "method"), size_t(0));
}

void TestNames::matchIgnoresSpellingAndFollowsAliases() {
    const std::vector<std::string> kernels = {"floyd-steinberg", "jarvis", "sierra-lite"};
    QCOMPARE(nameKey("Floyd_Steinberg"), std::string("floydsteinberg"));
    QCOMPARE(matchName("kernel", "FloydSteinberg", kernels), std::string("floyd-steinberg"));
    QCOMPARE(matchName("kernel", "FLOYD STEINBERG", kernels), std::string("floyd-steinberg"));
    QCOMPARE(matchName("kernel", "fs", kernels), std::string("floyd-steinberg"));
    QCOMPARE(matchName("kernel", "JJN", kernels), std::string("jarvis"));
    QCOMPARE(matchName("kernel", "filter-lite", kernels), std::string("sierra-lite"));
    QCOMPARE(matchName("kernel", "stucki", kernels), std::string());
    QCOMPARE(matchName("palette", "fs", kernels), std::string());  // aliases belong to their kind
    QCOMPARE(matchName("kernel", "", kernels), std::string());
}

void TestNames::suggestsTheNearest() {
    const std::vector<std::string> options = {"--method", "--variant", "--kernel", "--max-memory", "--max-pixels"};
    QCOMPARE(nearestName("--metod", options), std::string("--method"));
    QCOMPARE(nearestName("--kernal", options), std::string("--kernel"));
    QCOMPARE(nearestName("--max-mem", options), std::string("--max-memory"));  // a start of it
    QCOMPARE(nearestName("--zzzzzz", options), std::string());
    QCOMPARE(nearestName("x", {"ed", "ec"}), std::string());
    QCOMPARE(didYouMean("jarvs", {"jarvis", "stucki"}), std::string(" (did you mean 'jarvis'?)"));
    QCOMPARE(didYouMean("qqqqq", {"jarvis", "stucki"}), std::string());
}

void TestNames::lookupsAgree() {
    QVERIFY(findKernel("FS") && findKernel("FS")->name == "floyd-steinberg");
    QVERIFY(findKernel("Jarvis-Judice-Ninke") && findKernel("Jarvis-Judice-Ninke")->name == "jarvis");
    QVERIFY(!findKernel("nope"));
    QVERIFY(findBuiltinPalette("ACEP7") && findBuiltinPalette("ACEP7")->name == "acep7");
    ColorMode c{};
    QVERIFY(parseColorMode("RGB", c) && c == ColorMode::RGB);
    JobSettings job;
    job.method = "ED";
    job.variant = "Plain";
    const MethodInfo* m = nullptr;
    QVERIFY(jobMethod(job, m).isOk());
    QCOMPARE(m->id(), std::string("ed/plain"));
    job.method = "Error diffusion";
    job.variant.clear();
    QVERIFY(jobMethod(job, m).isOk());
    QCOMPARE(m->method, std::string("ed"));
    job.method = "dsb";
    const Status s = jobMethod(job, m);
    QVERIFY(!s);
    QVERIFY2(s.message().find("did you mean 'dbs'?") != std::string::npos, s.message().c_str());
    // a Choice parameter resolves to the name it stands for, and a near miss is suggested
    const MethodInfo* ed = Registry::instance().find("ed", "plain");
    ParamValues v;
    v.set("kernel", std::string("JJN"));
    QVERIFY(Registry::instance().resolveParams(*ed, v).isOk());
    QCOMPARE(v.getText("kernel", ""), std::string("jarvis"));
    v.set("kernel", std::string("stuki"));
    const Status bad = Registry::instance().resolveParams(*ed, v);
    QVERIFY2(bad.message().find("did you mean 'stucki'?") != std::string::npos, bad.message().c_str());
}

void TestNames::textParametersAreCheckedWithoutAnImage() {
    for (const char* good : {"bayer:8", "cluster:cell=8,angle=45", "blue-noise", "blue-noise:64", "dbs"})
        QVERIFY2(checkScreenSpec(good).isOk(), good);
    for (const char* bad :
         {"bayer:7", "bayer:x", "cluster:cell=q", "blue-noise:4", "blue-noise:5000", "", "/no/such/screen.pgm", "/"})
        QVERIFY2(!checkScreenSpec(bad), bad);
    const MethodInfo* ordered = Registry::instance().find("ordered", Registry::instance().defaultVariant("ordered"));
    QVERIFY(ordered);
    ParamValues v;
    v.set("screen", std::string("bayer:6"));
    QVERIFY(!Registry::instance().resolveParams(*ordered, v));
    const MethodInfo* am = Registry::instance().find("am", "clustered");
    QVERIFY(am);
    ParamValues a;
    a.set("angles", std::string("15,75"));
    QVERIFY(!Registry::instance().resolveParams(*am, a));
    a.set("angles", std::string("15,75,0,45"));
    QVERIFY(Registry::instance().resolveParams(*am, a).isOk());
    // checks across parameters: a cell of 300 dpi / 1000 lpi = 0.3 pixels
    a.set("lpi", 1000.0);
    a.set("dpi", 300.0);
    const Status cell = Registry::instance().resolveParams(*am, a);
    QVERIFY2(!cell && cell.message().find("cells of 0.3 pixels") != std::string::npos, cell.message().c_str());
}

void TestNames::cgroupTexts() {
    QCOMPARE(cpusFromCpuMax("max 100000"), 0);
    QCOMPARE(cpusFromCpuMax("100000 100000"), 1);
    QCOMPARE(cpusFromCpuMax("150000 100000"), 2);  // rounded up
    QCOMPARE(cpusFromCpuMax("50000 100000"), 1);
    QCOMPARE(cpusFromCpuMax("400000 100000\n"), 4);
    QCOMPARE(cpusFromCpuMax(""), 0);
    QCOMPARE(cpusFromCpuMax("x 100000"), 0);
    QCOMPARE(bytesFromMemoryMax("max"), uint64_t(0));
    QCOMPARE(bytesFromMemoryMax("1073741824"), uint64_t(1) << 30);
    QCOMPARE(bytesFromMemoryMax("9223372036854771712"), uint64_t(0));  // cgroup v1's "no limit"
    QCOMPARE(bytesFromMemoryMax("12abc"), uint64_t(0));
    QCOMPARE(bytesFromMemoryMax(""), uint64_t(0));
}

void TestNames::cgroupTrees() {
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    auto write = [&](const std::string& file, const std::string& text) {
        QVERIFY(QDir().mkpath(QString::fromStdString(root + "/" + file.substr(0, file.find_last_of('/')))));
        QFile f(QString::fromStdString(root + "/" + file));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.c_str());
    };
    // cgroup v2: a Slurm-like job with its limits on the job, the process in a step below it
    write("job/cpu.max", "300000 100000\n");
    write("job/memory.max", "8589934592\n");
    write("job/step/cpu.max", "max 100000\n");
    write("job/step/memory.max", "max\n");
    CgroupLimits l = cgroupLimits("0::/job/step\n", root);
    QCOMPARE(l.cpus, 3);
    QCOMPARE(l.memory, uint64_t(8) << 30);
    // the smaller of a group's and its parent's
    write("job/step/cpu.max", "100000 100000\n");
    QCOMPARE(cgroupLimits("0::/job/step\n", root).cpus, 1);
    // none set, or a container's own root ("/"): no limits
    QCOMPARE(cgroupLimits("0::/other\n", root).cpus, 0);
    QCOMPARE(cgroupLimits("0::/\n", root).memory, uint64_t(0));
    // cgroup v1: each controller's hierarchy under its names, the quota on a parent
    write("cpu,cpuacct/slurm/job/cpu.cfs_quota_us", "200000\n");
    write("cpu,cpuacct/slurm/job/cpu.cfs_period_us", "100000\n");
    write("cpu,cpuacct/slurm/job/task/cpu.cfs_quota_us", "-1\n");
    write("cpu,cpuacct/slurm/job/task/cpu.cfs_period_us", "100000\n");
    write("memory/slurm/job/memory.limit_in_bytes", "1073741824\n");
    write("memory/slurm/job/task/memory.limit_in_bytes", "9223372036854771712\n");
    l = cgroupLimits("4:cpu,cpuacct:/slurm/job/task\n9:memory:/slurm/job/task\n1:name=systemd:/x\n", root);
    QCOMPARE(l.cpus, 2);
    QCOMPARE(l.memory, uint64_t(1) << 30);
    // the hybrid layout: v2's unified hierarchy under root/unified, consulted first
    write("unified/svc/cpu.max", "100000 100000\n");
    QCOMPARE(cgroupLimits("4:cpu,cpuacct:/slurm/job/task\n0::/svc\n", root).cpus, 1);
}

void TestNames::availableCpusFollowTheAffinityMask() {
    cpu_set_t set;
    CPU_ZERO(&set);
    QCOMPARE(::sched_getaffinity(0, sizeof set, &set), 0);
    const int mask = CPU_COUNT(&set);
    QVERIFY(availableCpus() >= 1);
    QVERIFY(availableCpus() <= mask);
    QCOMPARE(hardwareThreads(), availableCpus());
    QCOMPARE(threadsOrAll(0), availableCpus());
}

QTEST_GUILESS_MAIN(TestNames)
#include "test_names.moc"
