#include "widgets/methodpanel.h"

#include "core/threads.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "core/job/job.h"
#include "io/screenfile.h"
#include "widgets/formrows.h"
#include "widgets/numberlistedit.h"
#include "widgets/palettepanel.h"
#include "widgets/paramvariant.h"

namespace halftone {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

/// The key of the method's own thread-count parameter; the panel's Threads control fills it.
const QString kThreadsKey = QStringLiteral("threads");
/// The key of the output levels, which a palette run ignores (docs/spec.md section 4).
const std::string kLevelsKey = "levels";

/// Whether `v` is the spec's default (reals to the spin box's 4 decimals).
bool isDefault(const ParamSpec& p, const QVariant& v) {
    switch (p.kind) {
        case ParamSpec::Kind::Int:
            return v.toLongLong() == std::llround(p.def);
        case ParamSpec::Kind::Real:
            return std::abs(v.toDouble() - p.def) < 5e-5;
        case ParamSpec::Kind::Bool:
            return v.toBool() == (p.def != 0);
        case ParamSpec::Kind::Choice:
        case ParamSpec::Kind::Text:
            return v.toString().toStdString() == p.defaultText();
    }
    return true;
}

/// Whether the widget for `p` can show `v` (range, choices).
bool fits(const ParamSpec& p, const QVariant& v) {
    switch (p.kind) {
        case ParamSpec::Kind::Int:
            return v.toLongLong() >= p.min && v.toLongLong() <= p.max;
        case ParamSpec::Kind::Real:
            return v.toDouble() >= p.min && v.toDouble() <= p.max;
        case ParamSpec::Kind::Bool:
            return true;
        case ParamSpec::Kind::Choice:
            return std::find(p.choices.begin(), p.choices.end(), v.toString().toStdString()) != p.choices.end();
        case ParamSpec::Kind::Text:
            return true;
    }
    return false;
}

/// A label for a Text value that is not one of the presets (a file, or a spec typed on the command line).
QString customLabel(const QString& value) {
    const QFileInfo f(value);
    return f.exists() ? QObject::tr("%1 (file)").arg(f.fileName()) : value;
}

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
    threads_->setSpecialValueText(tr("all (%1)").arg(hardwareThreads()));
    color_ = new QComboBox;
    color_->setObjectName(QStringLiteral("color"));
    color_->addItem(tr("Gray"), int(ColorMode::Gray));
    color_->addItem(tr("RGB (per channel)"), int(ColorMode::RGB));
    color_->addItem(tr("CMYK (per channel)"), int(ColorMode::CMYK));
    addFormRows(form, {{tr("Method"), methodCombo_},
                       {tr("Variant"), variantCombo_},
                       {tr("Device"), deviceCombo_},
                       {tr("Threads"), threads_},
                       {tr("Colour"), color_}});
    layout->addLayout(form);
    // CMYK separation (docs/spec.md "Separation into inks"): only for per-channel CMYK.
    separationBox_ = new QWidget;
    separationBox_->setObjectName(QStringLiteral("separation"));
    auto* sepForm = new QFormLayout(separationBox_);
    sepForm->setContentsMargins(0, 0, 0, 0);
    const SeparationParams defaults;
    gcr_ = new QSpinBox;
    gcr_->setObjectName(QStringLiteral("gcr"));
    gcr_->setRange(0, 100);
    gcr_->setSuffix(QStringLiteral(" %"));
    gcr_->setValue(defaults.gcr);
    gcr_->setToolTip(
        tr("Grey component replacement: the share of the common grey of cyan, magenta and yellow "
           "printed with black ink instead (100 %: neutrals in black alone; 0 %: no black)."));
    inkLimit_ = new QSpinBox;
    inkLimit_->setObjectName(QStringLiteral("inkLimit"));
    inkLimit_->setRange(0, 400);
    inkLimit_->setSuffix(QStringLiteral(" %"));
    inkLimit_->setValue(defaults.inkLimit);
    inkLimit_->setSpecialValueText(tr("0 % (no ink)"));
    inkLimit_->setToolTip(
        tr("Total ink limit: cyan + magenta + yellow + black never exceed this much of one "
           "solid ink (400 %: no limit; presses often need 240-320 %)."));
    sepForm->addRow(tr("Black (GCR)"), gcr_);
    sepForm->addRow(tr("Ink limit"), inkLimit_);
    layout->addWidget(separationBox_);
    description_ = wrappedLabel(QStringLiteral("description"));
    description_->setStyleSheet(QStringLiteral("color: palette(mid);"));
    layout->addWidget(description_);
    gpuReason_ = new QLabel;
    gpuReason_->setWordWrap(true);
    gpuReason_->setObjectName(QStringLiteral("gpuReason"));
    layout->addWidget(gpuReason_);
    palette_ = new PalettePanel;
    layout->addWidget(palette_);
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
    connect(deviceCombo_, &QComboBox::currentIndexChanged, this, [this] {
        if (!building_) emit changed();
    });
    connect(threads_, &QSpinBox::valueChanged, this, [this] {
        if (!building_) emit changed();
    });
    connect(color_, &QComboBox::currentIndexChanged, this, [this] {
        updateColourChoice();
        if (!building_) emit changed();
    });
    for (QSpinBox* box : {gcr_, inkLimit_})
        connect(box, &QSpinBox::valueChanged, this, [this] {
            if (!building_) emit changed();
        });
    connect(palette_, &PalettePanel::changed, this, [this] {
        updateDevices();  // a palette run uses the method's palette form, which may run on other devices
        if (!building_) emit changed();
    });
    refresh();
}

QString MethodPanel::currentMethodId() const { return methodCombo_->currentData().toString(); }

void MethodPanel::refresh() {
    const QString keepMethod = currentMethodId(), keepVariant = variantCombo_->currentText();
    building_ = true;
    methodCombo_->clear();
    const bool gpuUsable = registry_.gpuAvailability().usable;
    auto* model = qobject_cast<QStandardItemModel*>(methodCombo_->model());
    for (const std::string& m : registry_.methodNames()) {
        methodCombo_->addItem(q(registry_.displayName(m)), q(m));
        const int i = methodCombo_->count() - 1;
        bool runnable = false;
        for (const std::string& v : registry_.variants(m))
            if (const MethodInfo* info = registry_.find(m, v); info && (info->runsOnCpu() || gpuUsable))
                runnable = true;
        methodCombo_->setItemData(i, tr("command-line name: %1").arg(q(m)), Qt::ToolTipRole);
        if (!runnable && model) {
            model->item(i)->setEnabled(false);
            model->item(i)->setToolTip(tr("needs a GPU: %1").arg(q(registry_.gpuAvailability().reason)));
        }
    }
    building_ = false;
    if (!keepMethod.isEmpty() && setMethod(keepMethod, keepVariant)) return;
    fillVariants();
}

void MethodPanel::fillVariants(const QString& prefer) {
    const std::string method = currentMethodId().toStdString();
    const GpuAvailability& gpu = registry_.gpuAvailability();
    building_ = true;
    variantCombo_->clear();
    auto* model = qobject_cast<QStandardItemModel*>(variantCombo_->model());
    for (const std::string& v : registry_.variants(method)) {
        const MethodInfo* m = registry_.find(method, v);
        variantCombo_->addItem(q(v));
        const int i = variantCombo_->count() - 1;
        QString tip = m ? q(m->description) : QString();
        if (m && !m->runsOnCpu() && !gpu.usable) {
            // A GPU-only variant with no usable GPU: shown, greyed out, with the reason; it cannot be chosen.
            tip += tr("\n\nUnavailable: this variant runs only on a GPU, and there is no usable GPU (%1).")
                       .arg(q(gpu.reason));
            if (model) model->item(i)->setEnabled(false);
        }
        variantCombo_->setItemData(i, tip, Qt::ToolTipRole);
    }
    auto usable = [&](int i) { return i >= 0 && (!model || model->item(i)->isEnabled()); };
    int pick = variantCombo_->findText(prefer);
    if (!usable(pick)) pick = variantCombo_->findText(q(registry_.defaultVariant(method)));
    for (int i = 0; !usable(pick) && i < variantCombo_->count(); ++i) pick = i;
    variantCombo_->setCurrentIndex(usable(pick) ? pick : -1);
    building_ = false;
    rebuildParams();
    updateDevices();
    emit changed();
}

const MethodInfo* MethodPanel::method() const {
    return registry_.find(currentMethodId().toStdString(), variantCombo_->currentText().toStdString());
}

bool MethodPanel::setMethod(const QString& method, const QString& variant) {
    const MethodInfo* m = registry_.find(method.toStdString(), variant.toStdString());
    if (!m || (!m->runsOnCpu() && !registry_.gpuAvailability().usable)) return false;
    const int i = methodCombo_->findData(method);
    if (i < 0) return false;
    building_ = true;
    methodCombo_->setCurrentIndex(i);
    building_ = false;
    fillVariants(variant);
    return true;
}

QString MethodPanel::descriptionText() const { return description_->text(); }

void MethodPanel::updateDevices() {
    const MethodInfo* m = method();
    const GpuAvailability& gpu = registry_.gpuAvailability();
    auto* model = qobject_cast<QStandardItemModel*>(deviceCombo_->model());
    // The palette chooser applies to methods with a palette form; the others grey it and say which can.
    if (m && m->hasPaletteForm()) {
        palette_->setAvailable(true);
    } else {
        QStringList can;
        for (const MethodInfo& info : registry_.methods())
            if (info.hasPaletteForm()) can << q(info.id());
        palette_->setAvailable(
            false,
            m ? (can.isEmpty() ? tr("%1 cannot halftone to a palette, and no method in this build can.").arg(q(m->id()))
                               : tr("%1 cannot halftone to a palette. Methods that can: %2.")
                                     .arg(q(m->id()), can.join(QStringLiteral(", "))))
              : QString());
    }
    updateColourChoice();
    const bool toPalette = palette_->wantsPalette();
    const bool hasCpu = m && (toPalette ? bool(m->paletteCpu) : m->runsOnCpu());
    const bool hasGpu = m && (toPalette ? bool(m->paletteGpu) : bool(m->gpu));
    QString gpuWhy;
    if (!hasGpu)
        gpuWhy = toPalette ? tr("this method has no GPU implementation of its palette form")
                           : tr("this method has no GPU implementation");
    else if (!gpu.usable)
        gpuWhy = tr("no usable GPU: %1").arg(q(gpu.reason));
    model->item(1)->setEnabled(hasCpu);
    model->item(2)->setEnabled(gpuWhy.isEmpty());
    model->item(2)->setToolTip(gpuWhy.isEmpty() ? tr("GPU: %1").arg(q(gpu.deviceName)) : gpuWhy);
    if (!model->item(deviceCombo_->currentIndex())->isEnabled()) {
        building_ = true;
        deviceCombo_->setCurrentIndex(0);
        building_ = false;
    }
    // One thread control, for the methods that use threads (those with a "threads" parameter).
    const bool threaded = m && m->param(kThreadsKey.toStdString());
    threads_->setEnabled(threaded);
    threads_->setToolTip(threaded ? tr("worker threads on the CPU; 0 = all hardware threads")
                                  : tr("this method runs on one CPU thread"));
    gpuReason_->setText(gpu.usable ? tr("GPU: %1").arg(q(gpu.deviceName)) : tr("GPU off: %1").arg(q(gpu.reason)));
    QString text;
    if (m) {
        text = q(m->description);
        if (m->family == "error-diffusion") {
            if (m->exact)
                text +=
                    tr(" All exact error-diffusion and error-collection variants give the same image, bit for bit; "
                       "they differ only in speed.");
            else
                text += tr(" (not bit-identical to the sequential reference)");
        }
    }
    description_->setText(text);
    updateVisibility();  // the output levels row follows the palette choice
}

QWidget* MethodPanel::makeParamWidget(const ParamSpec& p, const QVariant& value) {
    auto edited = [this, p] {
        if (building_) return;
        userEdited(p);
        updateVisibility();
        emit changed();
    };
    switch (p.kind) {
        case ParamSpec::Kind::Int: {
            auto* s = new QSpinBox;
            s->setRange(int(std::max(p.min, -2147483647.0)), int(std::min(p.max, 2147483647.0)));
            s->setValue(value.toInt());
            connect(s, &QSpinBox::valueChanged, this, edited);
            return s;
        }
        case ParamSpec::Kind::Real: {
            auto* d = new QDoubleSpinBox;
            d->setDecimals(4);
            d->setRange(p.min, p.max);
            d->setSingleStep(std::max(1e-4, (p.max - p.min) / 100.0));
            d->setValue(value.toDouble());
            connect(d, &QDoubleSpinBox::valueChanged, this, edited);
            return d;
        }
        case ParamSpec::Kind::Bool: {
            auto* c = new QCheckBox;
            c->setChecked(value.toBool());
            connect(c, &QCheckBox::toggled, this, edited);
            return c;
        }
        case ParamSpec::Kind::Choice: {
            auto* b = new QComboBox;
            for (const std::string& c : p.choices) b->addItem(q(p.choiceLabel(c)), q(c));
            b->setCurrentIndex(b->findData(value.toString()));
            connect(b, &QComboBox::currentIndexChanged, this, edited);
            return b;
        }
        case ParamSpec::Kind::Text: {
            if (!p.parts.empty()) {  // a list of numbers: one field per part
                auto* e = new NumberListEdit(p, value.toString());
                connect(e, &NumberListEdit::edited, this, edited);
                return e;
            }
            if (p.presets.empty()) {
                auto* e = new QLineEdit(value.toString());
                connect(e, &QLineEdit::editingFinished, this, edited);
                return e;
            }
            // A choice among named values (and, where files are accepted, a file picked with the button).
            auto* b = new QComboBox;
            for (const auto& [v, label] : p.presets) b->addItem(q(label), q(v));
            if (b->findData(value.toString()) < 0) b->addItem(customLabel(value.toString()), value.toString());
            b->setCurrentIndex(b->findData(value.toString()));
            connect(b, &QComboBox::currentIndexChanged, this, edited);
            return b;
        }
    }
    return nullptr;
}

void MethodPanel::rebuildParams() {
    while (paramForm_->rowCount() > 0) paramForm_->removeRow(0);
    paramWidgets_.clear();
    rowFields_.clear();
    const MethodInfo* m = method();
    if (!m) {
        paramBox_->setVisible(false);
        return;
    }
    building_ = true;
    for (const ParamSpec& p : m->params) {
        const QString key = q(p.key);
        // The panel's Threads control fills the method's threads, the job's one DPI (the Adjust panel's) its dpi.
        if (key == kThreadsKey || p.key == kDpiParam) continue;
        // The method's default, unless the user set a value for a parameter of the same meaning.
        QVariant value = toVariant(p.defaultValue());
        if (auto it = userValues_.constFind(key);
            it != userValues_.cend() && it->spec.sameMeaning(p) && fits(p, it->value))
            value = it->value;
        QWidget* w = makeParamWidget(p, value);
        w->setObjectName(QStringLiteral("param_") + key);
        QString tip = q(p.help);
        if (p.kind == ParamSpec::Kind::Int || p.kind == ParamSpec::Kind::Real)
            tip += tr(" [%1 .. %2]").arg(p.min).arg(p.max);
        w->setToolTip(tip);
        QWidget* field = w;
        if (p.kind == ParamSpec::Kind::Text && !p.presets.empty() && p.acceptsFile) {
            field = new QWidget;
            auto* row = new QHBoxLayout(field);
            row->setContentsMargins(0, 0, 0, 0);
            row->addWidget(w, 1);
            auto* browse = new QToolButton;
            browse->setObjectName(QStringLiteral("browse_") + key);
            browse->setText(tr("From file..."));
            browse->setToolTip(tr("use a threshold array from an image file"));
            row->addWidget(browse);
            connect(browse, &QToolButton::clicked, this, [this, key] {
                const QString path = QFileDialog::getOpenFileName(
                    this, tr("Threshold array"), QString(),
                    tr("Images (*.png *.pgm *.pbm *.tif *.tiff *.webp *.bmp *.jpg *.jpeg);;All files (*)"));
                if (!path.isEmpty()) useFile(key, path);
            });
        }
        paramForm_->addRow(q(p.label.empty() ? p.key : p.label), field);
        paramWidgets_.insert(key, w);
        rowFields_.insert(key, field);
    }
    building_ = false;
    updateVisibility();
    updateUsedParts();
}

bool MethodPanel::useFile(const QString& key, const QString& path) {
    const MethodInfo* m = method();
    const ParamSpec* spec = m ? m->param(key.toStdString()) : nullptr;
    auto* combo = qobject_cast<QComboBox*>(paramWidgets_.value(key));
    if (!spec || !spec->acceptsFile || !combo) return false;
    ThresholdArray screen;
    if (Status s = io::readScreenFile(QFile::encodeName(path).toStdString(), screen); !s) {
        errorBox_ = openErrorBox(this, tr("Cannot use this file as a screen"), q(s.message()),
                                 QStringLiteral("screenFileError"), errorBox_);
        return false;
    }
    if (combo->findData(path) < 0) combo->addItem(customLabel(path), path);
    combo->setCurrentIndex(combo->findData(path));
    return true;
}

void MethodPanel::updateVisibility() {
    const MethodInfo* m = method();
    if (!m) return;
    const ParamValues current = params();
    bool any = false;
    for (const ParamSpec& p : m->params) {
        QWidget* field = rowFields_.value(q(p.key));
        if (!field) continue;
        // A palette run takes its colours from the palette: the output levels do not apply to it.
        const bool show = m->paramApplies(p, current) && !(palette_->wantsPalette() && p.key == kLevelsKey);
        paramForm_->setRowVisible(field, show);
        any = any || show;
    }
    paramBox_->setVisible(any);
}

bool MethodPanel::isParamShown(const QString& key) const {
    QWidget* field = rowFields_.value(key);
    return field && !field->isHidden();
}

QVariant MethodPanel::widgetValue(const ParamSpec& p) const {
    QWidget* w = paramWidgets_.value(q(p.key));
    if (!w) return {};
    switch (p.kind) {
        case ParamSpec::Kind::Int:
            return qlonglong(static_cast<QSpinBox*>(w)->value());
        case ParamSpec::Kind::Real:
            return static_cast<QDoubleSpinBox*>(w)->value();
        case ParamSpec::Kind::Bool:
            return static_cast<QCheckBox*>(w)->isChecked();
        case ParamSpec::Kind::Choice:
            return static_cast<QComboBox*>(w)->currentData().toString();
        case ParamSpec::Kind::Text:
            if (auto* b = qobject_cast<QComboBox*>(w)) return b->currentData().toString();
            if (auto* list = qobject_cast<NumberListEdit*>(w)) return list->text();
            return static_cast<QLineEdit*>(w)->text();
    }
    return {};
}

void MethodPanel::userEdited(const ParamSpec& p) {
    const QString key = q(p.key);
    const QVariant v = widgetValue(p);
    if (!v.isValid() || isDefault(p, v))
        userValues_.remove(key);
    else
        userValues_.insert(key, UserValue{v, p, method() ? q(method()->id()) : QString()});
}

ParamValues MethodPanel::params() const {
    ParamValues v;
    const MethodInfo* m = method();
    if (!m) return v;
    for (const ParamSpec& p : m->params) {
        if (q(p.key) == kThreadsKey && p.kind == ParamSpec::Kind::Int) {
            v.set(p.key, int64_t(threads_->value()));
            continue;
        }
        const QVariant w = widgetValue(p);
        if (w.isValid()) v.set(p.key, fromVariant(p, w));
    }
    return v;
}

bool MethodPanel::setParam(const QString& key, const QVariant& value) {
    if (key == kThreadsKey && method() && method()->param(kThreadsKey.toStdString())) {
        if (value.toInt() < threads_->minimum() || value.toInt() > threads_->maximum()) return false;
        threads_->setValue(value.toInt());
        return true;
    }
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
        const ParamSpec* p = method()->param(key.toStdString());
        if (p && p->kind == ParamSpec::Kind::Text) {
            // A preset by value, or any other spec or file (the method checks it when it runs).
            const QString text = value.toString();
            if (text.isEmpty()) return false;
            if (b->findData(text) < 0) b->addItem(customLabel(text), text);
            b->setCurrentIndex(b->findData(text));
        } else {
            const int i = b->findData(value.toString());
            if (i < 0) return false;
            b->setCurrentIndex(i);
        }
    } else if (auto* list = qobject_cast<NumberListEdit*>(w)) {
        if (!list->setText(value.toString())) return false;
        if (const ParamSpec* p = method()->param(key.toStdString())) userEdited(*p);
        updateVisibility();
        emit changed();
    } else if (auto* e = qobject_cast<QLineEdit*>(w)) {
        e->setText(value.toString());
        if (const ParamSpec* p = method()->param(key.toStdString())) userEdited(*p);
        updateVisibility();
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

void MethodPanel::updateColourChoice() {
    const bool palette = palette_->wantsPalette();
    color_->setEnabled(!palette);
    separationBox_->setVisible(!palette && colorMode() == ColorMode::CMYK);
    updateUsedParts();
    color_->setToolTip(palette ? tr("The palette sets the output colours. Choose \u201cNo palette\u201d to halftone "
                                    "each channel of gray, RGB or CMYK.")
                               : tr("Gray halftones the luma; RGB and CMYK halftone each channel on its own."));
}

void MethodPanel::updateUsedParts() {
    const MethodInfo* m = method();
    if (!m) return;
    const ColorMode mode = colorMode();
    const ColorSpace space = mode == ColorMode::CMYK  ? ColorSpace::CMYK
                             : mode == ColorMode::RGB ? ColorSpace::RGB
                                                      : ColorSpace::Gray;
    const int channels = space == ColorSpace::CMYK ? 4 : space == ColorSpace::RGB ? 3 : 1;
    for (const ParamSpec& p : m->params) {
        auto* list = qobject_cast<NumberListEdit*>(paramWidgets_.value(q(p.key)));
        if (!list || p.partOfChannel.empty()) continue;
        QVector<bool> used(list->partCount(), false);
        for (int c = 0; c < channels; ++c)
            if (const int part = p.partOf(channelName(space, c)); part >= 0 && part < used.size()) used[part] = true;
        list->setPartsUsed(used, tr("not used in colour mode %1").arg(color_->currentText()));
    }
}

std::optional<Palette> MethodPanel::palette() const { return palette_->palette(); }
bool MethodPanel::paletteWaiting() const { return palette_->waiting(); }
void MethodPanel::setImage(std::shared_ptr<const Image> image) { palette_->setImage(std::move(image)); }

ColorMode MethodPanel::colorMode() const { return ColorMode(color_->currentData().toInt()); }
void MethodPanel::setColorMode(ColorMode m) { color_->setCurrentIndex(color_->findData(int(m))); }

SeparationParams MethodPanel::separation() const {
    SeparationParams s;
    s.gcr = gcr_->value();
    s.inkLimit = inkLimit_->value();
    return s;
}

void MethodPanel::setSeparation(const SeparationParams& s) {
    gcr_->setValue(s.gcr);
    inkLimit_->setValue(s.inkLimit);
}

bool MethodPanel::isSeparationShown() const { return !separationBox_->isHidden(); }
int MethodPanel::threads() const { return threads_->value(); }
void MethodPanel::setThreads(int n) { threads_->setValue(n); }

void MethodPanel::saveSettings(QSettings& s) const {
    s.beginGroup(QStringLiteral("methodPanel"));
    s.remove(QString());  // what the user no longer set must not come back
    s.setValue(QStringLiteral("method"), currentMethodId());
    s.setValue(QStringLiteral("variant"), variantCombo_->currentText());
    s.setValue(QStringLiteral("device"), deviceCombo_->currentData().toString());
    s.setValue(QStringLiteral("color"), color_->currentData().toInt());
    s.setValue(QStringLiteral("threads"), threads_->value());
    s.setValue(QStringLiteral("gcr"), gcr_->value());
    s.setValue(QStringLiteral("inkLimit"), inkLimit_->value());
    s.beginWriteArray(QStringLiteral("values"));
    int i = 0;
    for (auto it = userValues_.cbegin(); it != userValues_.cend(); ++it, ++i) {
        s.setArrayIndex(i);
        s.setValue(QStringLiteral("key"), it.key());
        s.setValue(QStringLiteral("value"), it->value);
        s.setValue(QStringLiteral("from"), it->source);
    }
    s.endArray();
    palette_->saveSettings(s);
    s.endGroup();
}

void MethodPanel::restoreSettings(QSettings& s) {
    s.beginGroup(QStringLiteral("methodPanel"));
    const int n = s.beginReadArray(QStringLiteral("values"));
    for (int i = 0; i < n; ++i) {
        s.setArrayIndex(i);
        const QString key = s.value(QStringLiteral("key")).toString();
        const QString from = s.value(QStringLiteral("from")).toString();
        const MethodInfo* m = registry_.find(from.section(QLatin1Char('/'), 0, 0).toStdString(),
                                             from.section(QLatin1Char('/'), 1).toStdString());
        const ParamSpec* p = m ? m->param(key.toStdString()) : nullptr;
        if (!p) continue;
        ParamValue read;
        if (!p->parse(s.value(QStringLiteral("value")).toString().toStdString(), read)) continue;
        const QVariant v = toVariant(read);
        if (fits(*p, v) && !isDefault(*p, v)) userValues_.insert(key, UserValue{v, *p, from});
    }
    s.endArray();
    const QString method = s.value(QStringLiteral("method")).toString();
    const QString variant = s.value(QStringLiteral("variant")).toString();
    const QString device = s.value(QStringLiteral("device")).toString();
    const QVariant color = s.value(QStringLiteral("color"));
    const QVariant threads = s.value(QStringLiteral("threads"));
    const QVariant gcr = s.value(QStringLiteral("gcr"));
    const QVariant inkLimit = s.value(QStringLiteral("inkLimit"));
    palette_->restoreSettings(s);
    s.endGroup();

    if (threads.isValid()) threads_->setValue(threads.toInt());
    if (gcr.isValid()) gcr_->setValue(gcr.toInt());  // the spin boxes clamp out-of-range values
    if (inkLimit.isValid()) inkLimit_->setValue(inkLimit.toInt());
    if (color.isValid() && color_->findData(color.toInt()) >= 0)
        color_->setCurrentIndex(color_->findData(color.toInt()));
    if (method.isEmpty() || !setMethod(method, variant)) rebuildParams();  // the restored values apply either way
    auto* model = qobject_cast<QStandardItemModel*>(deviceCombo_->model());
    const int d = deviceCombo_->findData(device);
    if (d >= 0 && model->item(d)->isEnabled()) deviceCombo_->setCurrentIndex(d);
}

}  // namespace halftone
