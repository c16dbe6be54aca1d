// Names a person types (core/job/names.h): spelling-blind matching, the alias table, suggestions by edit distance, and
// their use by the registry's lookups; and what the process may use of the machine (core/machine.h).
#include <QtTest>

#include <sched.h>

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
