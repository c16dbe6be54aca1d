#include "widgets/methodpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>
#include <QVBoxLayout>
#include <cmath>

namespace halftone {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

MethodPanel::MethodPanel(Registry& registry, QWidget* parent) : QWidget(parent), registry_(registry) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* form = new QFormLayout;
    methodCombo_ = new QComboBox;
    methodCombo_->setObjectName(QStringLiteral("method"));
    variantCombo_ = new QComboBox;
    variantCombo_->setObjectName(QStringLiteral("variant"));
    deviceCombo_ = new QComboBox;
    deviceCombo_->setObjectName(QStringLiteral("device"));
    deviceCombo_->addItem(tr("Auto"), QStringLiteral("auto"));
    deviceCombo_->addItem(tr("CPU"), QStringLiteral("cpu"));
    deviceCombo_->addItem(tr("GPU"), QStringLiteral("gpu"));
    threads_ = new QSpinBox;
    threads_->setObjectName(QStringLiteral("threads"));
    threads_->setRange(0, 1024);
    threads_->setSpecialValueText(tr("all (%1)").arg(QThread::idealThreadCount()));
    threads_->setToolTip(tr("worker threads for parallel CPU methods; 0 = all hardware threads"));
    color_ = new QComboBox;
    color_->setObjectName(QStringLiteral("color"));
    color_->addItem(tr("Gray"), int(ColorMode::Gray));
    color_->addItem(tr("RGB (per channel)"), int(ColorMode::RGB));
    color_->addItem(tr("CMYK (per channel)"), int(ColorMode::CMYK));
    form->addRow(tr("Method"), methodCombo_);
    form->addRow(tr("Variant"), variantCombo_);
    form->addRow(tr("Device"), deviceCombo_);
    form->addRow(tr("Threads"), threads_);
    form->addRow(tr("Colour"), color_);
    layout->addLayout(form);
    description_ = new QLabel;
    description_->setWordWrap(true);
    description_->setStyleSheet(QStringLiteral("color: palette(mid);"));
    layout->addWidget(description_);
    gpuReason_ = new QLabel;
    gpuReason_->setWordWrap(true);
    gpuReason_->setObjectName(QStringLiteral("gpuReason"));
    layout->addWidget(gpuReason_);
    paramBox_ = new QGroupBox(tr("Parameters"));
    paramForm_ = new QFormLayout(paramBox_);
    layout->addWidget(paramBox_);
    layout->addStretch(1);

    connect(methodCombo_, &QComboBox::currentIndexChanged, this, [this] {
        if (building_) return;
        fillVariants();
    });
    connect(variantCombo_, &QComboBox::currentIndexChanged, this, [this] {
        if (building_) return;
        rebuildParams();
        updateDevices();
        emit changed();
    });
    connect(deviceCombo_, &QComboBox::currentIndexChanged, this, [this] { if (!building_) emit changed(); });
    connect(threads_, &QSpinBox::valueChanged, this, [this] { if (!building_) emit changed(); });
    connect(color_, &QComboBox::currentIndexChanged, this, [this] { if (!building_) emit changed(); });
    refresh();
}

void MethodPanel::refresh() {
    const QString keepMethod = methodCombo_->currentText(), keepVariant = variantCombo_->currentText();
    building_ = true;
    methodCombo_->clear();
    for (const std::string& m : registry_.methodNames()) {
        // Tooltip: the family of the first entry of this method.
        QString family;
        for (const MethodInfo& info : registry_.methods())
            if (info.method == m) { family = q(info.family); break; }
        methodCombo_->addItem(q(m));
        methodCombo_->setItemData(methodCombo_->count() - 1, family, Qt::ToolTipRole);
    }
    building_ = false;
    if (!keepMethod.isEmpty() && setMethod(keepMethod, keepVariant)) return;
    fillVariants();
}

void MethodPanel::fillVariants() {
    building_ = true;
    variantCombo_->clear();
    for (const std::string& v : registry_.variants(methodCombo_->currentText().toStdString())) {
        variantCombo_->addItem(q(v));
        if (const MethodInfo* m = registry_.find(methodCombo_->currentText().toStdString(), v))
            variantCombo_->setItemData(variantCombo_->count() - 1, q(m->description), Qt::ToolTipRole);
    }
    building_ = false;
    rebuildParams();
    updateDevices();
    emit changed();
}

const MethodInfo* MethodPanel::method() const {
    return registry_.find(methodCombo_->currentText().toStdString(), variantCombo_->currentText().toStdString());
}

bool MethodPanel::setMethod(const QString& method, const QString& variant) {
    if (!registry_.find(method.toStdString(), variant.toStdString())) return false;
    building_ = true;
    methodCombo_->setCurrentText(method);
    variantCombo_->clear();
    for (const std::string& v : registry_.variants(method.toStdString())) variantCombo_->addItem(q(v));
    variantCombo_->setCurrentText(variant);
    building_ = false;
    rebuildParams();
    updateDevices();
    emit changed();
    return true;
}

void MethodPanel::updateDevices() {
    const MethodInfo* m = method();
    const GpuAvailability& gpu = registry_.gpuAvailability();
    auto* model = qobject_cast<QStandardItemModel*>(deviceCombo_->model());
    const bool hasCpu = m && m->cpu, hasGpu = m && m->gpu;
    QString gpuWhy;
    if (!hasGpu) gpuWhy = tr("this method has no GPU implementation");
    else if (!gpu.usable) gpuWhy = tr("no usable GPU: %1").arg(q(gpu.reason));
    model->item(1)->setEnabled(hasCpu);
    model->item(2)->setEnabled(gpuWhy.isEmpty());
    model->item(2)->setToolTip(gpuWhy.isEmpty() ? tr("GPU: %1").arg(q(gpu.deviceName)) : gpuWhy);
    if (!model->item(deviceCombo_->currentIndex())->isEnabled()) {
        building_ = true;
        deviceCombo_->setCurrentIndex(0);
        building_ = false;
    }
    gpuReason_->setText(gpu.usable ? tr("GPU: %1").arg(q(gpu.deviceName)) : tr("GPU off: %1").arg(q(gpu.reason)));
    description_->setText(m ? q(m->description) + (m->exact ? QString() : tr(" (not bit-identical to the sequential reference)")) : QString());
}

void MethodPanel::rebuildParams() {
    // Remember current values by key so shared parameters (kernel, levels) survive a method switch.
    for (auto it = paramWidgets_.begin(); it != paramWidgets_.end(); ++it) {
        QWidget* w = it.value();
        if (auto* s = qobject_cast<QSpinBox*>(w)) remembered_[it.key()] = s->value();
        else if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) remembered_[it.key()] = d->value();
        else if (auto* c = qobject_cast<QCheckBox*>(w)) remembered_[it.key()] = c->isChecked();
        else if (auto* b = qobject_cast<QComboBox*>(w)) remembered_[it.key()] = b->currentText();
        else if (auto* e = qobject_cast<QLineEdit*>(w)) remembered_[it.key()] = e->text();
    }
    while (paramForm_->rowCount() > 0) paramForm_->removeRow(0);
    paramWidgets_.clear();
    const MethodInfo* m = method();
    if (!m) return;
    building_ = true;
    for (const ParamSpec& p : m->params) {
        const QString key = q(p.key);
        const QVariant keep = remembered_.value(key);
        QWidget* w = nullptr;
        switch (p.kind) {
            case ParamSpec::Kind::Int: {
                auto* s = new QSpinBox;
                s->setRange(int(std::max(p.min, -2147483647.0)), int(std::min(p.max, 2147483647.0)));
                s->setValue(keep.isValid() ? keep.toInt() : int(p.def));
                connect(s, &QSpinBox::valueChanged, this, [this] { if (!building_) emit changed(); });
                w = s;
                break;
            }
            case ParamSpec::Kind::Real: {
                auto* d = new QDoubleSpinBox;
                d->setDecimals(4);
                d->setRange(p.min, p.max);
                d->setSingleStep(std::max(1e-4, (p.max - p.min) / 100.0));
                d->setValue(keep.isValid() ? keep.toDouble() : p.def);
                connect(d, &QDoubleSpinBox::valueChanged, this, [this] { if (!building_) emit changed(); });
                w = d;
                break;
            }
            case ParamSpec::Kind::Bool: {
                auto* c = new QCheckBox;
                c->setChecked(keep.isValid() ? keep.toBool() : p.def != 0);
                connect(c, &QCheckBox::toggled, this, [this] { if (!building_) emit changed(); });
                w = c;
                break;
            }
            case ParamSpec::Kind::Choice: {
                auto* b = new QComboBox;
                for (const std::string& c : p.choices) b->addItem(q(c));
                const int def = p.choices.empty() ? -1 : int(std::clamp(p.def, 0.0, double(p.choices.size() - 1)));
                b->setCurrentIndex(def);
                if (keep.isValid() && b->findText(keep.toString()) >= 0) b->setCurrentText(keep.toString());
                connect(b, &QComboBox::currentIndexChanged, this, [this] { if (!building_) emit changed(); });
                w = b;
                break;
            }
            case ParamSpec::Kind::Text: {
                auto* e = new QLineEdit(keep.isValid() ? keep.toString() : q(p.textDefault));
                connect(e, &QLineEdit::editingFinished, this, [this] { if (!building_) emit changed(); });
                w = e;
                break;
            }
        }
        w->setObjectName(QStringLiteral("param_") + key);
        QString tip = q(p.help);
        if (p.kind == ParamSpec::Kind::Int || p.kind == ParamSpec::Kind::Real)
            tip += tr(" [%1 .. %2]").arg(p.min).arg(p.max);
        w->setToolTip(tip);
        paramForm_->addRow(q(p.label.empty() ? p.key : p.label), w);
        paramWidgets_.insert(key, w);
    }
    paramBox_->setVisible(!m->params.empty());
    building_ = false;
}

ParamValues MethodPanel::params() const {
    ParamValues v;
    const MethodInfo* m = method();
    if (!m) return v;
    for (const ParamSpec& p : m->params) {
        QWidget* w = paramWidgets_.value(q(p.key));
        if (!w) continue;
        switch (p.kind) {
            case ParamSpec::Kind::Int: v.set(p.key, int64_t(static_cast<QSpinBox*>(w)->value())); break;
            case ParamSpec::Kind::Real: v.set(p.key, static_cast<QDoubleSpinBox*>(w)->value()); break;
            case ParamSpec::Kind::Bool: v.set(p.key, static_cast<QCheckBox*>(w)->isChecked()); break;
            case ParamSpec::Kind::Choice: v.set(p.key, static_cast<QComboBox*>(w)->currentText().toStdString()); break;
            case ParamSpec::Kind::Text: v.set(p.key, static_cast<QLineEdit*>(w)->text().toStdString()); break;
        }
    }
    return v;
}

bool MethodPanel::setParam(const QString& key, const QVariant& value) {
    QWidget* w = paramWidgets_.value(key);
    if (!w) return false;
    if (auto* s = qobject_cast<QSpinBox*>(w)) {
        if (value.toInt() < s->minimum() || value.toInt() > s->maximum()) return false;
        s->setValue(value.toInt());
    } else if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) {
        if (value.toDouble() < d->minimum() || value.toDouble() > d->maximum()) return false;
        d->setValue(value.toDouble());
    } else if (auto* c = qobject_cast<QCheckBox*>(w)) {
        c->setChecked(value.toBool());
    } else if (auto* b = qobject_cast<QComboBox*>(w)) {
        if (b->findText(value.toString()) < 0) return false;
        b->setCurrentText(value.toString());
    } else if (auto* e = qobject_cast<QLineEdit*>(w)) {
        e->setText(value.toString());
        emit changed();
    }
    return true;
}

std::optional<Device> MethodPanel::device() const {
    const QString d = deviceCombo_->currentData().toString();
    if (d == QLatin1String("cpu")) return Device::Cpu;
    if (d == QLatin1String("gpu")) return Device::Gpu;
    return std::nullopt;
}

void MethodPanel::setDevice(std::optional<Device> d) {
    deviceCombo_->setCurrentIndex(!d ? 0 : (*d == Device::Cpu ? 1 : 2));
}

ColorMode MethodPanel::colorMode() const { return ColorMode(color_->currentData().toInt()); }
void MethodPanel::setColorMode(ColorMode m) { color_->setCurrentIndex(color_->findData(int(m))); }
int MethodPanel::threads() const { return threads_->value(); }

}  // namespace halftone
