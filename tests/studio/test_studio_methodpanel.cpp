// The method panel follows the registry: every method and variant, one input per ParamSpec with its range,
// device choices disabled with the reason, and methods registered later appear after refresh(). Parameters start
// from each method's defaults (every pair of entries), apply only where they mean something, GPU-only variants are
// greyed out without a GPU, and the choice survives a restart through QSettings.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include "core/dbs/dbs.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "tests/common/qtestutil.h"
#include "widgets/methodpanel.h"
#include "widgets/numberlistedit.h"
#include "widgets/palettepanel.h"

using namespace halftone;

class TestStudioMethodPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { gpu::registerMethods(Registry::instance()); }
    void listsEveryMethod();
    void widgetsMatchSpecs_data();
    void widgetsMatchSpecs();
    void valuesResolve();
    void deviceChoices();
    void newMethodAppears();
    void sharedValuesSurviveSwitch();
    void switchStartsFromDefaults_data();
    void switchStartsFromDefaults();
    void userValuesKeptOnlyWhereMeaningIsSame_data();
    void userValuesKeptOnlyWhereMeaningIsSame();
    void reportedLeaks();
    void onlyApplicableParamsShown();
    void screenIsAChoice();
    void oneThreadControl();
    void namesAndDescriptions();
    void defaultVariantFromRegistry();
    void settingsSurviveRestart();
    void gpuOnlyVariantsGreyedOut();
    void separationControls();
};

namespace {

/// The entries a user can select here (GPU-only ones need a usable GPU).
std::vector<const MethodInfo*> selectable() {
    std::vector<const MethodInfo*> out;
    const Registry& r = Registry::instance();
    for (const MethodInfo& m : r.methods())
        if (m.runsOnCpu() || r.gpuAvailability().usable) out.push_back(&m);
    return out;
}

/// What the panel's widget for `p` shows, as registry text (paramText form).
std::string shown(const MethodPanel& panel, const ParamSpec& p) {
    const ParamValues v = panel.params();
    auto it = v.all().find(p.key);
    return it == v.all().end() ? std::string("<missing>") : paramText(it->second);
}

/// A value other than the default that the spec accepts, in the form setParam takes.
QVariant otherValue(const ParamSpec& p) {
    switch (p.kind) {
        case ParamSpec::Kind::Int:
            return qlonglong(p.def + 1 <= p.max ? p.def + 1 : p.def - 1);
        case ParamSpec::Kind::Real: {
            const double step = std::max(0.01, std::round((p.max - p.min) / 7.0 * 100) / 100);
            return p.def + step <= p.max ? p.def + step : p.def - step;
        }
        case ParamSpec::Kind::Bool:
            return p.def == 0;
        case ParamSpec::Kind::Choice:
            return p.choices.size() < 2 ? QVariant() : QString::fromStdString(p.choices[p.def == 0 ? 1 : 0]);
        case ParamSpec::Kind::Text:
            for (const auto& [value, label] : p.presets)
                if (value != p.textDefault) return QString::fromStdString(value);
            return QStringLiteral("user text");
    }
    return {};
}

std::string asText(const ParamSpec& p, const QVariant& v) {
    switch (p.kind) {
        case ParamSpec::Kind::Int:
            return paramText(int64_t(v.toLongLong()));
        case ParamSpec::Kind::Real:
            return paramText(v.toDouble());
        case ParamSpec::Kind::Bool:
            return paramText(v.toBool());
        default:
            return v.toString().toStdString();
    }
}

bool sameValue(const ParamSpec& p, const std::string& a, const std::string& b) {
    if (p.kind == ParamSpec::Kind::Real) return std::abs(std::stod(a) - std::stod(b)) < 1e-4;
    return a == b;
}

/// Every registered entry, GPU-only ones included: the pair tests pretend a GPU is usable so that those can be
/// selected too (the panel runs nothing).
void addPairs() {
    test::columns<QString, QString>("from", "to");
    const auto& all = Registry::instance().methods();
    for (const MethodInfo& a : all)
        for (const MethodInfo& b : all)
            if (&a != &b)
                QTest::newRow((a.id() + " -> " + b.id()).c_str())
                    << QString::fromStdString(a.id()) << QString::fromStdString(b.id());
}

/// Makes the registry report a usable GPU for its lifetime.
class PretendGpu {
public:
    PretendGpu() : saved_(Registry::instance().gpuAvailability()) {
        GpuAvailability a = saved_;
        a.usable = true;
        a.deviceName = "test device";
        Registry::instance().setGpuAvailability(a);
    }
    ~PretendGpu() { Registry::instance().setGpuAvailability(saved_); }

private:
    GpuAvailability saved_;
};

bool select(MethodPanel& panel, const QString& id) {
    return panel.setMethod(id.section('/', 0, 0), id.section('/', 1));
}

}  // namespace

void TestStudioMethodPanel::listsEveryMethod() {
    Registry& r = Registry::instance();
    MethodPanel panel(r);
    QCOMPARE(panel.methodCombo()->count(), int(r.methodNames().size()));
    for (const std::string& m : r.methodNames()) {
        const int i = panel.methodCombo()->findData(QString::fromStdString(m));
        QVERIFY2(i >= 0, m.c_str());
        QCOMPARE(panel.methodCombo()->itemText(i).toStdString(), r.displayName(m));
        panel.methodCombo()->setCurrentIndex(i);
        QStringList expected;
        for (const std::string& v : r.variants(m)) expected << QString::fromStdString(v);
        QStringList shown;
        for (int i = 0; i < panel.variantCombo()->count(); ++i) shown << panel.variantCombo()->itemText(i);
        QCOMPARE(shown, expected);
    }
}

void TestStudioMethodPanel::widgetsMatchSpecs_data() {
    test::columns<QString, QString>("method", "variant");
    for (const MethodInfo* m : selectable())
        QTest::newRow(m->id().c_str()) << QString::fromStdString(m->method) << QString::fromStdString(m->variant);
}

void TestStudioMethodPanel::widgetsMatchSpecs() {
    QFETCH(QString, method);
    QFETCH(QString, variant);
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod(method, variant));
    const MethodInfo* m = panel.method();
    QVERIFY(m);
    QCOMPARE(QString::fromStdString(m->id()), method + "/" + variant);
    // One widget per parameter, but the thread count (the panel's Threads control fills it) and the printer
    // resolution (the job's one DPI, the Adjust panel's, fills it).
    QCOMPARE(panel.paramKeys().size(),
             int(m->params.size()) - (m->param("threads") ? 1 : 0) - (m->param("dpi") ? 1 : 0));
    for (const ParamSpec& p : m->params) {
        if (p.key == "threads" || p.key == "dpi") continue;
        QWidget* w = panel.paramWidget(QString::fromStdString(p.key));
        QVERIFY2(w, p.key.c_str());
        switch (p.kind) {
            case ParamSpec::Kind::Int: {
                auto* s = qobject_cast<QSpinBox*>(w);
                QVERIFY(s);
                QCOMPARE(s->minimum(), int(p.min));
                QCOMPARE(s->maximum(), int(p.max));
                QCOMPARE(s->value(), int(p.def));
                break;
            }
            case ParamSpec::Kind::Real: {
                auto* d = qobject_cast<QDoubleSpinBox*>(w);
                QVERIFY(d);
                QCOMPARE(d->minimum(), p.min);
                QCOMPARE(d->maximum(), p.max);
                QVERIFY(std::abs(d->value() - p.def) < 1e-4);
                break;
            }
            case ParamSpec::Kind::Bool:
                QVERIFY(qobject_cast<QCheckBox*>(w));
                break;
            case ParamSpec::Kind::Choice: {
                auto* c = qobject_cast<QComboBox*>(w);
                QVERIFY(c);
                QCOMPARE(c->count(), int(p.choices.size()));
                // Each choice by its value, shown by its label.
                for (size_t i = 0; i < p.choices.size(); ++i) {
                    QCOMPARE(c->itemData(int(i)).toString().toStdString(), p.choices[i]);
                    QCOMPARE(c->itemText(int(i)).toStdString(), p.choiceLabel(p.choices[i]));
                }
                QCOMPARE(c->currentData().toString().toStdString(), p.choices[size_t(p.def)]);
                break;
            }
            case ParamSpec::Kind::Text: {
                if (!p.parts.empty()) {  // a list of numbers: one field per part, at the default
                    auto* list = qobject_cast<NumberListEdit*>(w);
                    QVERIFY(list);
                    QCOMPARE(list->partCount(), int(p.parts.size()));
                    QCOMPARE(list->text().toStdString(), p.textDefault);
                    break;
                }
                if (p.presets.empty()) {
                    QVERIFY(qobject_cast<QLineEdit*>(w));
                    break;
                }
                auto* c = qobject_cast<QComboBox*>(w);
                QVERIFY(c);
                QCOMPARE(c->currentData().toString().toStdString(), p.textDefault);
                break;
            }
        }
    }
}

void TestStudioMethodPanel::valuesResolve() {
    // Whatever the panel produces must pass the registry's own range check, for every method.
    MethodPanel panel(Registry::instance());
    for (const MethodInfo* m : selectable()) {
        QVERIFY(panel.setMethod(QString::fromStdString(m->method), QString::fromStdString(m->variant)));
        ParamValues v = panel.params();
        const Status s = Registry::instance().resolveParams(*m, v);
        QVERIFY2(s.isOk(), (m->id() + ": " + s.message()).c_str());
    }
    QVERIFY(panel.setMethod("ed", "plain"));
    QVERIFY(panel.setParam("levels", 5));
    QCOMPARE(panel.params().getInt("levels", 0), int64_t(5));
    QVERIFY(!panel.setParam("levels", 100000));  // out of the spec's range
    QVERIFY(panel.setParam("kernel", "jarvis"));
    QCOMPARE(panel.params().getText("kernel", ""), std::string("jarvis"));
    QVERIFY(!panel.setParam("kernel", "no-such-kernel"));
    QVERIFY(!panel.setParam("no-such-key", 1));
    QSignalSpy changed(&panel, &MethodPanel::changed);
    QVERIFY(panel.setParam("levels", 3));
    QCOMPARE(changed.count(), 1);
}

void TestStudioMethodPanel::deviceChoices() {
    Registry& r = Registry::instance();
    MethodPanel panel(r);
    auto* model = qobject_cast<QStandardItemModel*>(panel.deviceCombo()->model());
    QVERIFY(model);
    for (const MethodInfo* mp : selectable()) {
        const MethodInfo& m = *mp;
        QVERIFY(panel.setMethod(QString::fromStdString(m.method), QString::fromStdString(m.variant)));
        const bool gpuOk = m.gpu && r.gpuAvailability().usable;
        QCOMPARE(model->item(2)->isEnabled(), gpuOk);
        QCOMPARE(model->item(1)->isEnabled(), m.runsOnCpu());
        if (!gpuOk) QVERIFY(!model->item(2)->toolTip().isEmpty());  // says why
    }
    if (!r.gpuAvailability().usable) {
        auto* reason = panel.findChild<QLabel*>("gpuReason");
        QVERIFY(reason);
        QVERIFY(reason->text().contains(QString::fromStdString(r.gpuAvailability().reason)));
    }
}

void TestStudioMethodPanel::newMethodAppears() {
    // A method registered after the panel was built appears with one widget per spec after refresh().
    Registry& r = Registry::instance();
    MethodInfo m;
    m.method = "zz-test";
    m.variant = "late";
    m.family = "test";
    m.description = "registered by the test";
    ParamSpec a = intParam("count", "Count", -3, 17, 4, "an int");
    ParamSpec b = intParam("ratio", "Ratio", 0.25, 2.5, 1.0, "a real");
    b.kind = ParamSpec::Kind::Real;
    ParamSpec c = boolParam("flag", "Flag", true, "a bool");
    ParamSpec d = choiceParam("mode", "Mode", {"one", "two", "three"}, 1, "a choice");
    ParamSpec e = intParam("name", "Name", 0, 0, 0, "a text");
    e.kind = ParamSpec::Kind::Text;
    e.textDefault = "hello";
    m.params = {a, b, c, d, e};
    m.cpu = [](const Plane8& src, Plane8& dst, const ParamValues&, const RunControl&) {
        dst = src;
        return Status::ok();
    };
    MethodPanel panel(r);
    const int before = panel.methodCombo()->count();
    r.add(m);
    panel.refresh();
    QCOMPARE(panel.methodCombo()->count(), before + 1);
    QVERIFY(panel.setMethod("zz-test", "late"));
    QCOMPARE(panel.paramKeys().size(), 5);
    auto* count = qobject_cast<QSpinBox*>(panel.paramWidget("count"));
    QVERIFY(count);
    QCOMPARE(count->minimum(), -3);
    QCOMPARE(count->maximum(), 17);
    QCOMPARE(count->value(), 4);
    QCOMPARE(qobject_cast<QComboBox*>(panel.paramWidget("mode"))->currentData().toString(), QString("two"));
    QCOMPARE(qobject_cast<QLineEdit*>(panel.paramWidget("name"))->text(), QString("hello"));
    QVERIFY(qobject_cast<QCheckBox*>(panel.paramWidget("flag"))->isChecked());
    const ParamValues v = panel.params();
    QCOMPARE(v.getInt("count", 0), int64_t(4));
    QCOMPARE(v.getReal("ratio", 0), 1.0);
    QCOMPARE(v.getText("mode", ""), std::string("two"));
}

void TestStudioMethodPanel::sharedValuesSurviveSwitch() {
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("ed", "plain"));
    QVERIFY(panel.setParam("kernel", "stucki"));
    QVERIFY(panel.setParam("levels", 4));
    QVERIFY(panel.setMethod("ec", "rc"));
    QCOMPARE(panel.params().getText("kernel", ""), std::string("stucki"));
    QCOMPARE(panel.params().getInt("levels", 0), int64_t(4));
}

void TestStudioMethodPanel::switchStartsFromDefaults_data() { addPairs(); }

void TestStudioMethodPanel::switchStartsFromDefaults() {
    // Without user edits, the second entry shows exactly its own defaults, whatever was selected before.
    QFETCH(QString, from);
    QFETCH(QString, to);
    PretendGpu gpu;
    MethodPanel panel(Registry::instance());
    QVERIFY(select(panel, from));
    QVERIFY(select(panel, to));
    const MethodInfo* m = panel.method();
    QVERIFY(m);
    QCOMPARE(QString::fromStdString(m->id()), to);
    for (const ParamSpec& p : m->params) {
        if (p.key == "threads" || p.key == "dpi") continue;  // filled by the Threads control and the job's DPI
        const std::string v = shown(panel, p);
        QVERIFY2(sameValue(p, v, p.defaultText()),
                 qPrintable(QString("%1: %2 shows '%3', its default is '%4'")
                                .arg(to, QString::fromStdString(p.key), QString::fromStdString(v),
                                     QString::fromStdString(p.defaultText()))));
    }
}

void TestStudioMethodPanel::userValuesKeptOnlyWhereMeaningIsSame_data() { addPairs(); }

void TestStudioMethodPanel::userValuesKeptOnlyWhereMeaningIsSame() {
    // The user changes every parameter of the first entry; the second keeps a value only for a parameter of the same
    // meaning (same key, kind, range, choices, presets) and shows its own default everywhere else.
    QFETCH(QString, from);
    QFETCH(QString, to);
    PretendGpu gpu;
    MethodPanel panel(Registry::instance());
    QVERIFY(select(panel, from));
    const MethodInfo* a = panel.method();
    std::map<std::string, std::string> set;
    for (const ParamSpec& p : a->params) {
        const QVariant v = otherValue(p);
        if (p.key == "threads" || p.key == "dpi" || !v.isValid()) continue;
        QVERIFY2(panel.setParam(QString::fromStdString(p.key), v), p.key.c_str());
        set[p.key] = asText(p, v);
    }
    QVERIFY(select(panel, to));
    const MethodInfo* b = panel.method();
    for (const ParamSpec& p : b->params) {
        if (p.key == "threads" || p.key == "dpi") continue;
        const ParamSpec* before = a->param(p.key);
        const bool keep = before && before->sameMeaning(p) && set.count(p.key);
        const std::string expected = keep ? set[p.key] : p.defaultText();
        const std::string v = shown(panel, p);
        QVERIFY2(sameValue(p, v, expected),
                 qPrintable(QString("%1 -> %2: %3 shows '%4', expected '%5' (%6)")
                                .arg(from, to, QString::fromStdString(p.key), QString::fromStdString(v),
                                     QString::fromStdString(expected), keep ? "the user's value" : "the default")));
    }
}

void TestStudioMethodPanel::reportedLeaks() {
    MethodPanel panel(Registry::instance());
    // The reference's warm start is off; the block variant's default is on.
    QVERIFY(panel.setMethod("dbs", "reference"));
    QCOMPARE(panel.params().getReal("warm-start", -1), 0.0);
    QVERIFY(panel.setMethod("dbs", "blocks"));
    QCOMPARE(panel.params().getReal("warm-start", -1), kDbsWarmStart);
    // DBS's clip-free screen ("dbs") is not the ordered screen's value.
    QVERIFY(panel.setMethod("ordered", "screen"));
    QCOMPARE(panel.params().getText("screen", ""), std::string("bayer:8"));
    // Not even when the user chose it: the clip-free screen has another role than the ordered screen.
    QVERIFY(panel.setMethod("dbs", "blocks"));
    QVERIFY(panel.setParam("clip-free", true));
    QVERIFY(panel.setParam("screen", "blue-noise"));
    QVERIFY(panel.setMethod("ordered", "screen"));
    QCOMPARE(panel.params().getText("screen", ""), std::string("bayer:8"));
    // What the user set is kept where it means the same thing.
    QVERIFY(panel.setMethod("dbs", "reference"));
    QVERIFY(panel.setParam("warm-start", 0.5));
    QVERIFY(panel.setMethod("dbs", "blocks"));
    QCOMPARE(panel.params().getReal("warm-start", -1), 0.5);
    QVERIFY(panel.setMethod("ed", "rc"));
    QVERIFY(panel.setParam("kernel", "jarvis"));
    QVERIFY(panel.setMethod("ec", "wavefront"));
    QCOMPARE(panel.params().getText("kernel", ""), std::string("jarvis"));
    // Set back to the default, a value is the default again: the next method shows its own.
    QVERIFY(panel.setMethod("dbs", "reference"));
    QVERIFY(panel.setParam("warm-start", 0.0));
    QVERIFY(panel.setMethod("dbs", "blocks"));
    QCOMPARE(panel.params().getReal("warm-start", -1), kDbsWarmStart);
}

void TestStudioMethodPanel::onlyApplicableParamsShown() {
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("dbs", "sequential"));
    QVERIFY(panel.isParamShown("sigma"));
    for (const char* k : {"distance", "dpi", "luminance", "margin", "screen", "seed"})
        QVERIFY2(!panel.isParamShown(k), k);
    QVERIFY(!panel.paramWidget("block"));  // no blocks in raster order
    QVERIFY(panel.isParamShown("start"));
    QVERIFY(panel.setParam("hvs", "nasanen"));
    QVERIFY(!panel.isParamShown("sigma"));
    for (const char* k : {"distance", "luminance"}) QVERIFY2(panel.isParamShown(k), k);
    QVERIFY(!panel.isParamShown("dpi"));  // the job's one DPI (the Adjust panel's) fills it
    QVERIFY(panel.setParam("clip-free", true));
    QVERIFY(panel.isParamShown("margin"));
    QVERIFY(panel.isParamShown("screen"));
    QVERIFY(panel.setParam("start", "random"));
    QVERIFY(panel.isParamShown("seed"));
    QVERIFY(panel.setMethod("dbs", "blocks"));
    QVERIFY(panel.isParamShown("block"));
    QVERIFY(panel.isParamShown("seed"));
    // What the panel shows is what the registry says applies, for every entry at its defaults.
    for (const MethodInfo* m : selectable()) {
        QVERIFY(select(panel, QString::fromStdString(m->id())));
        const ParamValues v = panel.params();
        for (const ParamSpec& p : m->params)
            if (p.key != "threads" && p.key != "dpi")
                QVERIFY2(panel.isParamShown(QString::fromStdString(p.key)) == m->paramApplies(p, v),
                         (m->id() + " " + p.key).c_str());
    }
}

void TestStudioMethodPanel::screenIsAChoice() {
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("ordered", "screen"));
    auto* screen = qobject_cast<QComboBox*>(panel.paramWidget("screen"));
    QVERIFY(screen);
    QVERIFY(!screen->isEditable());
    for (const char* v : {"bayer:4", "bayer:8", "cluster:cell=8,angle=45", "blue-noise", "dbs"})
        QVERIFY2(screen->findData(QString(v)) >= 0, v);
    QVERIFY(panel.findChild<QToolButton*>("browse_screen"));  // "From file..."
    screen->setCurrentIndex(screen->findData(QStringLiteral("blue-noise")));
    QCOMPARE(panel.params().getText("screen", ""), std::string("blue-noise"));
    QTemporaryDir dir;
    const QString file = dir.filePath("thresholds.pgm");
    QVERIFY(test::writeFile(file, QByteArray("P5\n2 2\n255\n\x10\x50\x90\xd0", 15)));
    QVERIFY(panel.setParam("screen", file));
    QCOMPARE(panel.params().getText("screen", ""), file.toStdString());
    QVERIFY(screen->currentText().contains("thresholds.pgm"));
}

void TestStudioMethodPanel::oneThreadControl() {
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("ec", "wavefront"));
    QVERIFY(!panel.paramWidget("threads"));
    int spinBoxesForThreads = 0;
    for (QSpinBox* s : panel.findChildren<QSpinBox*>())
        if (s->objectName().contains("threads")) ++spinBoxesForThreads;
    QCOMPARE(spinBoxesForThreads, 1);
    panel.setThreads(3);
    QCOMPARE(panel.params().getInt("threads", -1), int64_t(3));
    QVERIFY(panel.setParam("threads", 2));
    QCOMPARE(panel.threads(), 2);
    // The control is enabled exactly for the methods that use threads.
    auto* control = panel.findChild<QSpinBox*>("threads");
    QVERIFY(control);
    for (const MethodInfo* m : selectable()) {
        QVERIFY(select(panel, QString::fromStdString(m->id())));
        QCOMPARE(control->isEnabled(), m->param("threads") != nullptr);
    }
    QVERIFY(panel.setMethod("dbs", "blocks"));
    QVERIFY(control->isEnabled());
    QVERIFY(panel.setMethod("ed", "rc"));
    QVERIFY(!control->isEnabled());
}

void TestStudioMethodPanel::namesAndDescriptions() {
    Registry& r = Registry::instance();
    // Words a user of the studio cannot follow: internal names, file paths, section numbers, project history.
    // Regular expressions, each matched at the start of a word.
    const QStringList banned = {"seed [01]", "c_pp",  "c_pe",    "CTA",   "O\\(width\\)", "SPEC",
                                "section",   "\\.md", "[Oo]urs", "issue", "session"};
    for (const MethodInfo& m : r.methods()) {
        if (m.method.rfind("zz-", 0) == 0) continue;  // registered by this test
        QStringList texts = {QString::fromStdString(m.description)};
        for (const ParamSpec& p : m.params) texts << QString::fromStdString(p.help) << QString::fromStdString(p.label);
        QVERIFY2(!m.description.empty(), m.id().c_str());
        for (const QString& t : texts)
            for (const QString& b : banned)
                QVERIFY2(!t.contains(QRegularExpression("(^|\\W)" + b)),
                         qPrintable(QString("%1: '%2' in \"%3\"").arg(QString::fromStdString(m.id()), b, t)));
    }
    for (const char* m : {"ed", "ec", "ordered", "dbs"}) QVERIFY2(r.displayName(m).size() > 8, m);
    QCOMPARE(r.displayName("ed"), std::string("Error diffusion"));
    QCOMPARE(r.displayName("dbs"), std::string("Direct binary search"));
    MethodPanel panel(r);
    for (const MethodInfo* m : selectable()) {
        QVERIFY(select(panel, QString::fromStdString(m->id())));
        const QString d = panel.descriptionText();
        const bool exactEd = m->family == "error-diffusion" && m->exact;
        QCOMPARE(d.contains("bit for bit"), exactEd);
        QCOMPARE(d.contains("not bit-identical"), m->family == "error-diffusion" && !m->exact);
    }
}

void TestStudioMethodPanel::defaultVariantFromRegistry() {
    Registry& r = Registry::instance();
    QCOMPARE(r.defaultVariant("ed"), std::string("rc"));
    QCOMPARE(r.defaultVariant("ec"), std::string("rc"));
    QCOMPARE(r.defaultVariant("dbs"), std::string("sequential"));
    MethodPanel panel(r);
    for (const std::string& m : r.methodNames()) {
        const int i = panel.methodCombo()->findData(QString::fromStdString(m));
        QVERIFY(i >= 0);
        panel.methodCombo()->setCurrentIndex(i);
        const MethodInfo* def = r.find(m, r.defaultVariant(m));
        if (def && !def->cpu && !r.gpuAvailability().usable) continue;
        QCOMPARE(panel.variantCombo()->currentText().toStdString(), r.defaultVariant(m));
    }
}

void TestStudioMethodPanel::settingsSurviveRestart() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("studio.ini");  // never the user's settings
    {
        MethodPanel panel(Registry::instance());
        QVERIFY(panel.setMethod("dbs", "blocks"));
        QVERIFY(panel.setParam("warm-start", 0.5));
        QVERIFY(panel.setParam("hvs", "nasanen"));
        panel.setColorMode(ColorMode::RGB);
        panel.setSeparation({60, 280});
        panel.setThreads(2);
        panel.setDevice(Device::Cpu);
        QSettings s(path, QSettings::IniFormat);
        panel.saveSettings(s);
    }
    QSettings s(path, QSettings::IniFormat);
    QCOMPARE(s.value("methodPanel/values/size").toInt(), 2);  // only what the user changed
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("ordered", "screen"));
    panel.restoreSettings(s);
    QVERIFY(panel.method());
    QCOMPARE(panel.method()->id(), std::string("dbs/blocks"));
    QCOMPARE(panel.params().getReal("warm-start", -1), 0.5);
    QCOMPARE(panel.params().getText("hvs", ""), std::string("nasanen"));
    QCOMPARE(panel.params().getReal("sigma", -1), 1.2);
    QCOMPARE(panel.colorMode(), ColorMode::RGB);
    QCOMPARE(panel.separation().gcr, 60);
    QCOMPARE(panel.separation().inkLimit, 280);
    QCOMPARE(panel.threads(), 2);
    QCOMPARE(panel.device(), std::optional<Device>(Device::Cpu));
    // Restored values are user values like any other: kept where they mean the same.
    QVERIFY(panel.setMethod("dbs", "reference"));
    QCOMPARE(panel.params().getReal("warm-start", -1), 0.5);
    // Settings of an entry the registry no longer has are skipped, not an error.
    QSettings bad(dir.filePath("old.ini"), QSettings::IniFormat);
    bad.setValue("methodPanel/method", "no-such-method");
    bad.setValue("methodPanel/variant", "x");
    MethodPanel other(Registry::instance());
    other.restoreSettings(bad);
    QVERIFY(other.method());
}

void TestStudioMethodPanel::gpuOnlyVariantsGreyedOut() {
    Registry& r = Registry::instance();
    const GpuAvailability saved = r.gpuAvailability();
    GpuAvailability none;
    none.usable = false;
    none.reason = "no CUDA device found (test)";
    r.setGpuAvailability(none);
    auto copy = [](const Plane8& src, Plane8& dst, const ParamValues&, const RunControl&) {
        dst = src;
        return Status::ok();
    };
    for (const char* v : {"cpu-a", "gpu-only", "cpu-b"}) {
        if (std::string(v) == "gpu-only") {
            r.attachGpu("zz-gpu", v, copy);
            continue;
        }
        MethodInfo m;
        m.method = "zz-gpu";
        m.variant = v;
        m.family = "test";
        m.description = "registered by the test";
        m.cpu = copy;
        r.add(m);
    }
    r.attachGpu("zz-gpuonly", "only", copy);
    MethodPanel panel(r);
    QVERIFY(panel.setMethod("zz-gpu", "cpu-a"));
    auto* model = qobject_cast<QStandardItemModel*>(panel.variantCombo()->model());
    QVERIFY(model);
    const int gi = panel.variantCombo()->findText("gpu-only");
    QVERIFY(gi >= 0);
    QVERIFY(!model->item(gi)->isEnabled());
    QVERIFY(model->item(gi)->toolTip().contains("no CUDA device found (test)"));
    QVERIFY(!panel.setMethod("zz-gpu", "gpu-only"));
    // A method with only GPU variants is greyed out in the method list too.
    auto* methods = qobject_cast<QStandardItemModel*>(panel.methodCombo()->model());
    QVERIFY(!methods->item(panel.methodCombo()->findData("zz-gpuonly"))->isEnabled());
    QVERIFY(!panel.setMethod("zz-gpuonly", "only"));
    // Arrowing through the variants skips it: it is never selected, so nothing can try to run it.
    panel.show();
    panel.variantCombo()->setFocus();
    QSignalSpy changed(&panel, &MethodPanel::changed);
    for (Qt::Key k : {Qt::Key_Down, Qt::Key_Down, Qt::Key_Up, Qt::Key_Up, Qt::Key_Down}) {
        QTest::keyClick(panel.variantCombo(), k);
        QVERIFY(panel.variantCombo()->currentText() != "gpu-only");
        QVERIFY(panel.method() && panel.method()->cpu);
    }
    QCOMPARE(panel.variantCombo()->currentText(), QString("cpu-b"));
    QVERIFY(changed.count() >= 2);
    r.setGpuAvailability(saved);
}

void TestStudioMethodPanel::separationControls() {
    // GCR and the ink limit are shown for per-channel CMYK only, start at the separation's defaults, change the
    // request (changed() fires) and clamp to their ranges.
    MethodPanel panel(Registry::instance());
    panel.show();
    QVERIFY(panel.setMethod("ed", "rc"));
    panel.setColorMode(ColorMode::Gray);
    QVERIFY(!panel.isSeparationShown());
    panel.setColorMode(ColorMode::RGB);
    QVERIFY(!panel.isSeparationShown());
    panel.setColorMode(ColorMode::CMYK);
    QVERIFY(panel.isSeparationShown());
    QCOMPARE(panel.separation().gcr, SeparationParams{}.gcr);
    QCOMPARE(panel.separation().inkLimit, SeparationParams{}.inkLimit);
    auto* gcr = panel.findChild<QSpinBox*>("gcr");
    auto* ink = panel.findChild<QSpinBox*>("inkLimit");
    QVERIFY(gcr && ink);
    QSignalSpy changed(&panel, &MethodPanel::changed);
    gcr->setValue(40);
    ink->setValue(300);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(panel.separation().gcr, 40);
    QCOMPARE(panel.separation().inkLimit, 300);
    gcr->setValue(150);
    ink->setValue(-5);
    QCOMPARE(panel.separation().gcr, 100);
    QCOMPARE(panel.separation().inkLimit, 0);
    QVERIFY(checkSeparation(panel.separation()).isOk());
    // A palette sets the output colours: no separation.
    QVERIFY(panel.palettePanel()->selectSpec("pico8"));
    QVERIFY(!panel.isSeparationShown());
    QVERIFY(panel.palettePanel()->selectNone());
    QVERIFY(panel.isSeparationShown());
}

QTEST_MAIN(TestStudioMethodPanel)
#include "test_studio_methodpanel.moc"
