#include "widgets/adjustpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/palette/target.h"
#include "widgets/formrows.h"

namespace halftone {

namespace {

QDoubleSpinBox* doubleSpin(double lo, double hi, double step, int decimals, double value, const QString& tip) {
    auto* s = new QDoubleSpinBox;
    s->setRange(lo, hi);
    s->setSingleStep(step);
    s->setDecimals(decimals);
    s->setValue(value);
    s->setToolTip(tip);
    return s;
}

QSpinBox* intSpin(int lo, int hi, int value, const QString& tip) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(value);
    s->setToolTip(tip);
    return s;
}

}  // namespace

AdjustPanel::AdjustPanel(QWidget* parent) : QWidget(parent) {
    const PrepareSettings d;
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto* sizeBox = new QGroupBox(tr("Size"));
    auto* sf = new QFormLayout(sizeBox);
    target_ = new QComboBox;
    target_->setObjectName(QStringLiteral("adjustTarget"));
    target_->addItem(tr("None"), QString());
    for (const Target& t : builtinTargets())
        target_->addItem(QString::fromStdString(t.name), QString::fromStdString(t.name));
    for (int i = 1; i < target_->count(); ++i)
        target_->setItemData(i, QString::fromStdString(builtinTargets()[size_t(i - 1)].description), Qt::ToolTipRole);
    target_->setToolTip(
        tr("A device to halftone for: its frame (filled with cover unless the fit says otherwise, "
           "when width and height are auto), its resolution, the colours it shows and the indices "
           "its driver expects; the palette panel's choice is then not used"));
    width_ = intSpin(0, 1 << 20, 0, tr("Width in pixels; 0 = from the height (aspect kept) or unchanged"));
    width_->setSpecialValueText(tr("auto"));
    height_ = intSpin(0, 1 << 20, 0, tr("Height in pixels; 0 = from the width (aspect kept) or unchanged"));
    height_->setSpecialValueText(tr("auto"));
    scale_ = doubleSpin(0, 64, 0.05, 3, 0, tr("Scale factor when width and height are auto; 0 = none"));
    scale_->setSpecialValueText(tr("none"));
    printSize_ = new QLineEdit;
    printSize_->setPlaceholderText(tr("e.g. 6x4in, 15x10cm, 210x297mm"));
    printSize_->setToolTip(tr("Print size at the resolution below: sets width and height in pixels"));
    dpi_ = doubleSpin(0, 100000, 10, 1, 0,
                      tr("Device resolution in dots per inch: the resolution of the print size, written into saved "
                         "files, and the printer resolution of methods that model one"));
    dpi_->setSpecialValueText(tr("unset"));
    fit_ = new QComboBox;
    fit_->addItem(tr("Inside (keep aspect)"), QStringLiteral("inside"));
    fit_->addItem(tr("Stretch"), QStringLiteral("stretch"));
    fit_->addItem(tr("Cover (fill and crop)"), QStringLiteral("cover"));
    fit_->addItem(tr("Contain (letterbox)"), QStringLiteral("contain"));
    fit_->setToolTip(
        tr("With width and height both set: fit inside them, stretch to exactly that size, fill the "
           "frame and crop the rest (cover), or fit inside and fill the rest with the background "
           "(contain)"));
    gravity_ = new QComboBox;
    for (Gravity g : {Gravity::Center, Gravity::North, Gravity::South, Gravity::East, Gravity::West, Gravity::NorthEast,
                      Gravity::NorthWest, Gravity::SouthEast, Gravity::SouthWest})
        gravity_->addItem(QString::fromLatin1(toString(g)), QString::fromLatin1(toString(g)));
    gravity_->setToolTip(tr("The part a cover crop keeps, the side a contained image sits on"));
    rotate_ = new QComboBox;
    rotate_->addItem(tr("As the file says (EXIF)"), 0);
    for (int deg : {90, 180, 270}) rotate_->addItem(tr("%1\u00b0 clockwise").arg(deg), deg);
    rotate_->setToolTip(tr("A turn after the file's EXIF orientation, which is always applied"));
    background_ = new QLineEdit;
    background_->setPlaceholderText(tr("none (keep transparency; white letterbox)"));
    background_->setToolTip(
        tr("Flatten transparency onto this colour and fill the contain letterbox with it: "
           "#RRGGBB or a name (white, black, gray, ...)"));
    filter_ = new QComboBox;
    for (ResizeFilter f : {ResizeFilter::Lanczos3, ResizeFilter::Bicubic, ResizeFilter::Box, ResizeFilter::Nearest})
        filter_->addItem(QString::fromLatin1(toString(f)), int(f));
    filter_->setToolTip(tr("Resize filter: lanczos (sharp), bicubic, box (area average), nearest (pixel art)"));
    linear_ = new QCheckBox(tr("Resize in linear light"));
    linear_->setChecked(d.linearResize);
    linear_->setToolTip(tr("Resample decoded sRGB (correct averages of light); off: resample the 8-bit values"));
    pixelSize_ = intSpin(1, 1024, 1, tr("Halftone at 1/N of the size and enlarge each dot to N x N (pixel-art look)"));
    addFormRows(sf, {{tr("Target"), target_},
                     {tr("Width"), width_},
                     {tr("Height"), height_},
                     {tr("Scale"), scale_},
                     {tr("Print size"), printSize_},
                     {tr("DPI"), dpi_},
                     {tr("Fit"), fit_},
                     {tr("Gravity"), gravity_},
                     {tr("Rotate"), rotate_},
                     {tr("Background"), background_},
                     {tr("Filter"), filter_},
                     {QString(), linear_},
                     {tr("Pixel size"), pixelSize_}});
    layout->addWidget(sizeBox);

    auto* toneBox = new QGroupBox(tr("Tone"));
    auto* tf = new QFormLayout(toneBox);
    black_ = intSpin(0, 254, d.blackPoint, tr("Input level that becomes black (levels)"));
    white_ = intSpin(1, 255, d.whitePoint, tr("Input level that becomes white (levels)"));
    brightness_ = doubleSpin(-100, 100, 1, 1, d.brightness, tr("Adds brightness x 2.55 to every level"));
    contrast_ = doubleSpin(-100, 100, 1, 1, d.contrast,
                           tr("Steeper (> 0) or flatter (< 0) about mid-gray; 100 = a "
                              "threshold"));
    gamma_ = doubleSpin(0.1, 10, 0.05, 2, d.gamma, tr("> 1 lightens the mid-tones, < 1 darkens them"));
    saturation_ = doubleSpin(0, 400, 5, 1, d.saturation, tr("Colour images: 0 = gray, 100 = unchanged (percent)"));
    sharpen_ = doubleSpin(0, 500, 10, 1, d.sharpenAmount, tr("Unsharp mask strength in percent; 0 = off"));
    radius_ = doubleSpin(0.3, 50, 0.1, 2, d.sharpenRadius, tr("Unsharp mask radius in pixels"));
    addFormRows(tf, {{tr("Black point"), black_},
                     {tr("White point"), white_},
                     {tr("Brightness"), brightness_},
                     {tr("Contrast"), contrast_},
                     {tr("Gamma"), gamma_},
                     {tr("Saturation %"), saturation_},
                     {tr("Sharpen %"), sharpen_},
                     {tr("Sharpen radius"), radius_}});
    layout->addWidget(toneBox);

    reset_ = new QPushButton(tr("Reset"));
    reset_->setObjectName(QStringLiteral("adjustReset"));
    reset_->setToolTip(tr("Back to the defaults: the image as it was opened"));
    layout->addWidget(reset_);
    problem_ = wrappedLabel(QStringLiteral("adjustProblem"));
    problem_->setStyleSheet(QStringLiteral("color: #b00020"));
    layout->addWidget(problem_);
    auto* note =
        new QLabel(tr("Applied in this order before the method: rotate, flatten onto the background, crop, resize, "
                      "letterbox, levels, brightness, contrast, gamma, "
                      "saturation, sharpen. The original pane shows the prepared image."));
    note->setWordWrap(true);
    layout->addWidget(note);
    layout->addStretch(1);

    for (QSpinBox* s : {width_, height_, pixelSize_, black_, white_})
        connect(s, &QSpinBox::valueChanged, this, &AdjustPanel::edited);
    for (QDoubleSpinBox* s : {scale_, dpi_, brightness_, contrast_, gamma_, saturation_, sharpen_, radius_})
        connect(s, &QDoubleSpinBox::valueChanged, this, &AdjustPanel::edited);
    for (QComboBox* c : {target_, fit_, gravity_, rotate_, filter_})
        connect(c, &QComboBox::currentIndexChanged, this, &AdjustPanel::edited);
    connect(linear_, &QCheckBox::toggled, this, &AdjustPanel::edited);
    connect(printSize_, &QLineEdit::textChanged, this, &AdjustPanel::edited);
    connect(background_, &QLineEdit::textChanged, this, &AdjustPanel::edited);
    connect(reset_, &QPushButton::clicked, this, &AdjustPanel::reset);
    updateProblem();
}

PrepareSettings AdjustPanel::settings() const {
    PrepareSettings s;
    s.width = width_->value();
    s.height = height_->value();
    s.scale = scale_->value();
    parseResizeFit(fit_->currentData().toString().toStdString(), s.fit);
    parseGravity(gravity_->currentData().toString().toStdString(), s.gravity);
    s.rotate = rotate_->currentData().toInt();
    Rgb8 c{};
    if (parseColorText(background_->text().trimmed().toStdString(), c)) s.background = c;
    s.filter = ResizeFilter(filter_->currentData().toInt());
    s.linearResize = linear_->isChecked();
    s.pixelSize = pixelSize_->value();
    s.blackPoint = black_->value();
    s.whitePoint = white_->value();
    s.brightness = brightness_->value();
    s.contrast = contrast_->value();
    s.gamma = gamma_->value();
    s.saturation = saturation_->value();
    s.sharpenAmount = sharpen_->value();
    s.sharpenRadius = radius_->value();
    return s;
}

std::string AdjustPanel::target() const { return target_->currentData().toString().toStdString(); }

Status AdjustPanel::setTarget(const std::string& name) {
    const Target* t = name.empty() ? nullptr : findBuiltinTarget(name);
    if (!name.empty() && !t)
        return Status::error("target '" + name + "' is not built in; the studio chooses among the built-in targets");
    target_->setCurrentIndex(std::max(0, target_->findData(t ? QString::fromStdString(t->name) : QString())));
    return Status::ok();
}

QString AdjustPanel::printSize() const { return printSize_->text().trimmed(); }
double AdjustPanel::dpi() const { return dpi_->value(); }

void AdjustPanel::setUnsetDpi(double dpi) {
    dpi_->setSpecialValueText(dpi > 0 ? tr("unset: %1 (the method's)").arg(dpi) : tr("unset"));
}

void AdjustPanel::setSettings(const PrepareSettings& s, const QString& printSize, double dpi) {
    setting_ = true;
    width_->setValue(s.width);
    height_->setValue(s.height);
    scale_->setValue(s.scale);
    fit_->setCurrentIndex(std::max(0, fit_->findData(QString::fromLatin1(toString(s.fit)))));
    gravity_->setCurrentIndex(std::max(0, gravity_->findData(QString::fromLatin1(toString(s.gravity)))));
    rotate_->setCurrentIndex(std::max(0, rotate_->findData(s.rotate)));
    background_->setText(s.background ? QString::fromStdString(colorText(*s.background)) : QString());
    filter_->setCurrentIndex(std::max(0, filter_->findData(int(s.filter))));
    linear_->setChecked(s.linearResize);
    pixelSize_->setValue(s.pixelSize);
    black_->setValue(s.blackPoint);
    white_->setValue(s.whitePoint);
    brightness_->setValue(s.brightness);
    contrast_->setValue(s.contrast);
    gamma_->setValue(s.gamma);
    saturation_->setValue(s.saturation);
    sharpen_->setValue(s.sharpenAmount);
    radius_->setValue(s.sharpenRadius);
    printSize_->setText(printSize);
    dpi_->setValue(dpi);
    setting_ = false;
    edited();
}

Status AdjustPanel::effective(PrepareSettings& out) const {
    out = settings();
    const QString bg = background_->text().trimmed();
    if (!bg.isEmpty() && !out.background)
        return Status::error("background '" + bg.toStdString() + "' is not a colour: give #RRGGBB or a name");
    if (!printSize().isEmpty()) {
        if (out.width || out.height || out.scale)
            return Status::error("the print size sets the size: set width, height and scale to auto");
        if (Status s = applyPrintSize(out, printSize().toStdString(), dpi()); !s) return s;
    }
    return out.validate();
}

bool AdjustPanel::isIdentity() const {
    PrepareSettings s;
    return effective(s) && s.isIdentity();
}

void AdjustPanel::reset() {
    setting_ = true;
    target_->setCurrentIndex(0);
    setting_ = false;
    setSettings(PrepareSettings{});
}

QString AdjustPanel::problemText() const { return problem_->text(); }

void AdjustPanel::updateProblem() {
    PrepareSettings s;
    const Status st = effective(s);
    problem_->setText(st ? QString() : QString::fromStdString(st.message()));
    problem_->setVisible(!st);
}

void AdjustPanel::edited() {
    if (setting_) return;
    updateProblem();
    emit changed();
}

void AdjustPanel::saveSettings(QSettings& q) const {
    const PrepareSettings s = settings();
    q.beginGroup(QStringLiteral("adjust"));
    q.setValue(QStringLiteral("width"), s.width);
    q.setValue(QStringLiteral("height"), s.height);
    q.setValue(QStringLiteral("scale"), s.scale);
    q.setValue(QStringLiteral("target"), target_->currentData());
    q.setValue(QStringLiteral("fit"), fit_->currentData());
    q.setValue(QStringLiteral("gravity"), gravity_->currentData());
    q.setValue(QStringLiteral("rotate"), s.rotate);
    q.setValue(QStringLiteral("background"), background_->text().trimmed());
    q.setValue(QStringLiteral("filter"), filter_->currentText());
    q.setValue(QStringLiteral("linearResize"), s.linearResize);
    q.setValue(QStringLiteral("pixelSize"), s.pixelSize);
    q.setValue(QStringLiteral("blackPoint"), s.blackPoint);
    q.setValue(QStringLiteral("whitePoint"), s.whitePoint);
    q.setValue(QStringLiteral("brightness"), s.brightness);
    q.setValue(QStringLiteral("contrast"), s.contrast);
    q.setValue(QStringLiteral("gamma"), s.gamma);
    q.setValue(QStringLiteral("saturation"), s.saturation);
    q.setValue(QStringLiteral("sharpenAmount"), s.sharpenAmount);
    q.setValue(QStringLiteral("sharpenRadius"), s.sharpenRadius);
    q.setValue(QStringLiteral("printSize"), printSize());
    q.setValue(QStringLiteral("dpi"), dpi());
    q.endGroup();
}

void AdjustPanel::restoreSettings(QSettings& q) {
    PrepareSettings s;
    q.beginGroup(QStringLiteral("adjust"));
    s.width = q.value(QStringLiteral("width"), s.width).toInt();
    s.height = q.value(QStringLiteral("height"), s.height).toInt();
    s.scale = q.value(QStringLiteral("scale"), s.scale).toDouble();
    if (!parseResizeFit(q.value(QStringLiteral("fit")).toString().toStdString(), s.fit)) s.fit = ResizeFit::Inside;
    if (!parseGravity(q.value(QStringLiteral("gravity")).toString().toStdString(), s.gravity))
        s.gravity = Gravity::Center;
    s.rotate = q.value(QStringLiteral("rotate"), 0).toInt();
    Rgb8 c{};
    if (parseColorText(q.value(QStringLiteral("background")).toString().toStdString(), c)) s.background = c;
    if (!parseResizeFilter(q.value(QStringLiteral("filter"), QStringLiteral("lanczos")).toString().toStdString(),
                           s.filter))
        s.filter = ResizeFilter::Lanczos3;
    s.linearResize = q.value(QStringLiteral("linearResize"), s.linearResize).toBool();
    s.pixelSize = q.value(QStringLiteral("pixelSize"), s.pixelSize).toInt();
    s.blackPoint = q.value(QStringLiteral("blackPoint"), s.blackPoint).toInt();
    s.whitePoint = q.value(QStringLiteral("whitePoint"), s.whitePoint).toInt();
    s.brightness = q.value(QStringLiteral("brightness"), s.brightness).toDouble();
    s.contrast = q.value(QStringLiteral("contrast"), s.contrast).toDouble();
    s.gamma = q.value(QStringLiteral("gamma"), s.gamma).toDouble();
    s.saturation = q.value(QStringLiteral("saturation"), s.saturation).toDouble();
    s.sharpenAmount = q.value(QStringLiteral("sharpenAmount"), s.sharpenAmount).toDouble();
    s.sharpenRadius = q.value(QStringLiteral("sharpenRadius"), s.sharpenRadius).toDouble();
    const QString print = q.value(QStringLiteral("printSize")).toString();
    setting_ = true;  // one changed() for the whole restore, from setSettings
    (void)setTarget(q.value(QStringLiteral("target")).toString().toStdString());
    setting_ = false;
    const double dpi = q.value(QStringLiteral("dpi"), 0.0).toDouble();
    q.endGroup();
    if (!s.validate()) s = PrepareSettings{};
    setSettings(s, print, dpi);
}

}  // namespace halftone
