// The method panel follows the registry: every method and variant, one input per ParamSpec with its range,
// device choices disabled with the reason, and methods registered later appear after refresh().
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QtTest>

#include "core/registry.h"
#include "gpu/gpu.h"
#include "widgets/methodpanel.h"

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
};

void TestStudioMethodPanel::listsEveryMethod() {
    Registry& r = Registry::instance();
    MethodPanel panel(r);
    QCOMPARE(panel.methodCombo()->count(), int(r.methodNames().size()));
    for (const std::string& m : r.methodNames()) {
        QVERIFY2(panel.methodCombo()->findText(QString::fromStdString(m)) >= 0, m.c_str());
        panel.methodCombo()->setCurrentText(QString::fromStdString(m));
        QStringList expected;
        for (const std::string& v : r.variants(m)) expected << QString::fromStdString(v);
        QStringList shown;
        for (int i = 0; i < panel.variantCombo()->count(); ++i) shown << panel.variantCombo()->itemText(i);
        QCOMPARE(shown, expected);
    }
}

void TestStudioMethodPanel::widgetsMatchSpecs_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("variant");
    for (const MethodInfo& m : Registry::instance().methods())
        QTest::newRow(m.id().c_str()) << QString::fromStdString(m.method) << QString::fromStdString(m.variant);
}

void TestStudioMethodPanel::widgetsMatchSpecs() {
    QFETCH(QString, method);
    QFETCH(QString, variant);
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod(method, variant));
    const MethodInfo* m = panel.method();
    QVERIFY(m);
    QCOMPARE(QString::fromStdString(m->id()), method + "/" + variant);
    QCOMPARE(panel.paramKeys().size(), int(m->params.size()));
    for (const ParamSpec& p : m->params) {
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
            case ParamSpec::Kind::Bool: QVERIFY(qobject_cast<QCheckBox*>(w)); break;
            case ParamSpec::Kind::Choice: {
                auto* c = qobject_cast<QComboBox*>(w);
                QVERIFY(c);
                QCOMPARE(c->count(), int(p.choices.size()));
                for (size_t i = 0; i < p.choices.size(); ++i) QCOMPARE(c->itemText(int(i)).toStdString(), p.choices[i]);
                QCOMPARE(c->currentText().toStdString(), p.choices[size_t(p.def)]);
                break;
            }
            case ParamSpec::Kind::Text: QVERIFY(qobject_cast<QLineEdit*>(w)); break;
        }
    }
}

void TestStudioMethodPanel::valuesResolve() {
    // Whatever the panel produces must pass the registry's own range check, for every method.
    MethodPanel panel(Registry::instance());
    for (const MethodInfo& m : Registry::instance().methods()) {
        QVERIFY(panel.setMethod(QString::fromStdString(m.method), QString::fromStdString(m.variant)));
        ParamValues v = panel.params();
        const Status s = Registry::instance().resolveParams(m, v);
        QVERIFY2(s.isOk(), (m.id() + ": " + s.message()).c_str());
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
    for (const MethodInfo& m : r.methods()) {
        QVERIFY(panel.setMethod(QString::fromStdString(m.method), QString::fromStdString(m.variant)));
        const bool gpuOk = m.gpu && r.gpuAvailability().usable;
        QCOMPARE(model->item(2)->isEnabled(), gpuOk);
        QCOMPARE(model->item(1)->isEnabled(), bool(m.cpu));
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
    ParamSpec a{"count", "Count", ParamSpec::Kind::Int, -3, 17, 4, {}, {}, "an int"};
    ParamSpec b{"ratio", "Ratio", ParamSpec::Kind::Real, 0.25, 2.5, 1.0, {}, {}, "a real"};
    ParamSpec c{"flag", "Flag", ParamSpec::Kind::Bool, 0, 1, 1, {}, {}, "a bool"};
    ParamSpec d{"mode", "Mode", ParamSpec::Kind::Choice, 0, 0, 1, {"one", "two", "three"}, {}, "a choice"};
    ParamSpec e{"name", "Name", ParamSpec::Kind::Text, 0, 0, 0, {}, "hello", "a text"};
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
    QCOMPARE(qobject_cast<QComboBox*>(panel.paramWidget("mode"))->currentText(), QString("two"));
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

QTEST_MAIN(TestStudioMethodPanel)
#include "test_studio_methodpanel.moc"
