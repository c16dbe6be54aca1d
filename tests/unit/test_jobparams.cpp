// The operations a parameter owns in core (core/job/registry.h: ParamSpec::defaultValue, parse, paramText) and the job
// rules front ends share (core/job/job.h: applyJobDpi, jobUsesGpu): what the CLI, presets, the benchmark and the
// studio adapt to instead of switching on the parameter's kind.
#include <QtTest>

#include "core/job/job.h"
#include "core/job/registry.h"

using namespace halftone;

class TestJobParams : public QObject {
    Q_OBJECT
private slots:
    void defaultsHaveTheKindsType();
    void defaultsOfEveryRegisteredParameterResolve();
    void parseReadsEachKind();
    void parseRefusesWhatTheKindCannotHold();
    void dpiBecomesTheParameterOfMethodsThatModelAPrinter();
    void aCpuJobDoesNotUseTheGpu();
};

void TestJobParams::defaultsHaveTheKindsType() {
    QVERIFY(std::holds_alternative<int64_t>(intParam("n", "N", 0, 10, 3, "").defaultValue()));
    QCOMPARE(std::get<int64_t>(intParam("n", "N", 0, 10, 3, "").defaultValue()), int64_t(3));
    QCOMPARE(std::get<bool>(boolParam("b", "B", true, "").defaultValue()), true);
    QCOMPARE(std::get<std::string>(choiceParam("c", "C", {"x", "y", "z"}, 2, "").defaultValue()), std::string("z"));
    ParamSpec real = intParam("r", "R", 0, 1, 0.25, "");
    real.kind = ParamSpec::Kind::Real;
    QCOMPARE(std::get<double>(real.defaultValue()), 0.25);
    ParamSpec text;
    text.kind = ParamSpec::Kind::Text;
    text.textDefault = "bayer:8";
    QCOMPARE(std::get<std::string>(text.defaultValue()), std::string("bayer:8"));
    QCOMPARE(text.defaultText(), std::string("bayer:8"));
    QCOMPARE(boolParam("b", "B", false, "").defaultText(), std::string("false"));
}

void TestJobParams::defaultsOfEveryRegisteredParameterResolve() {
    // Each default, given explicitly, resolves to itself: the typed default is what resolveParams fills in.
    for (const MethodInfo& m : Registry::instance().methods()) {
        ParamValues filled;
        QVERIFY(Registry::instance().resolveParams(m, filled));
        for (const ParamSpec& p : m.params) {
            ParamValues given;
            given.set(p.key, p.defaultValue());
            QVERIFY2(Registry::instance().resolveParams(m, given), (m.id() + " " + p.key).c_str());
            QCOMPARE(paramText(given.all().at(p.key)), paramText(filled.all().at(p.key)));
            QCOMPARE(given.all().at(p.key).index(), p.defaultValue().index());
        }
    }
}

void TestJobParams::parseReadsEachKind() {
    ParamValue v;
    QVERIFY(intParam("n", "N", 0, 100, 1, "").parse("42", v));
    QCOMPARE(std::get<int64_t>(v), int64_t(42));
    ParamSpec real = intParam("r", "R", 0, 10, 1, "");
    real.kind = ParamSpec::Kind::Real;
    QVERIFY(real.parse("2.5", v));
    QCOMPARE(std::get<double>(v), 2.5);
    for (const char* on : {"true", "1", "yes", "on"}) {
        QVERIFY(boolParam("b", "B", false, "").parse(on, v));
        QCOMPARE(std::get<bool>(v), true);
    }
    for (const char* off : {"false", "0", "no", "off"}) {
        QVERIFY(boolParam("b", "B", true, "").parse(off, v));
        QCOMPARE(std::get<bool>(v), false);
    }
    QVERIFY(choiceParam("c", "C", {"x", "y"}, 0, "").parse("y", v));
    QCOMPARE(std::get<std::string>(v), std::string("y"));
    // The text form of a value reads back as the same value.
    for (const ParamValue& x : {ParamValue(int64_t(-7)), ParamValue(0.1), ParamValue(true)}) {
        ParamSpec s = intParam("k", "K", -10, 10, 0, "");
        s.kind = x.index() == 0 ? ParamSpec::Kind::Int : x.index() == 1 ? ParamSpec::Kind::Real : ParamSpec::Kind::Bool;
        ParamValue back;
        QVERIFY(s.parse(paramText(x), back));
        QVERIFY(back == x);
    }
}

void TestJobParams::parseRefusesWhatTheKindCannotHold() {
    ParamValue v = int64_t(5);
    const Status s = intParam("levels", "Levels", 2, 256, 2, "").parse("4x", v);
    QVERIFY(!s);
    QCOMPARE(s.message(), std::string("parameter levels cannot take the value '4x'"));
    QCOMPARE(std::get<int64_t>(v), int64_t(5));  // left as it was
    QVERIFY(!intParam("n", "N", 0, 1, 0, "").parse("", v));
    QVERIFY(!boolParam("b", "B", false, "").parse("maybe", v));
    ParamSpec real = intParam("r", "R", 0, 10, 1, "");
    real.kind = ParamSpec::Kind::Real;
    QVERIFY(!real.parse("1.5.2", v));
}

void TestJobParams::dpiBecomesTheParameterOfMethodsThatModelAPrinter() {
    const Registry& r = Registry::instance();
    for (const MethodInfo& m : r.methods()) {
        ParamValues p;
        applyJobDpi(m, 600, p);
        QCOMPARE(p.has("dpi"), m.param("dpi") != nullptr);
        if (m.param("dpi")) QCOMPARE(p.getReal("dpi", 0), 600.0);
        ParamValues none;
        applyJobDpi(m, 0, none);
        QVERIFY(!none.has("dpi"));
        // The job's one DPI: its own when set, else the method's (given or default), else unset.
        JobSettings job;
        QCOMPARE(jobDpi(job, m), m.param("dpi") ? m.param("dpi")->def : 0.0);
        job.params.set("dpi", 850.0);
        QCOMPARE(jobDpi(job, m), m.param("dpi") ? 850.0 : 0.0);
        job.dpi = 1200;
        QCOMPARE(jobDpi(job, m), 1200.0);
    }
}

void TestJobParams::aCpuJobDoesNotUseTheGpu() {
    JobSettings job;
    job.device = "cpu";
    QVERIFY(!jobUsesGpu(job));
    job.device = "auto";
    // This test links no GPU module: no GPU is usable, so no job uses one.
    QVERIFY(!jobUsesGpu(job));
    job.method = "no-such-method";
    QVERIFY(!jobUsesGpu(job));
}

QTEST_GUILESS_MAIN(TestJobParams)
#include "test_jobparams.moc"
