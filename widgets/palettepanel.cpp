#include "widgets/palettepanel.h"

#include <QColorDialog>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "widgets/formrows.h"

namespace halftone {

namespace {

constexpr int kSwatch = 16;  // side of one swatch, pixels
constexpr int kGap = 2;
constexpr int kPitch = kSwatch + kGap;
constexpr int kDefaultAutoColors = 16;

const QString kNone = QStringLiteral("none");
const QString kAuto = QStringLiteral("auto");
const QString kEdited = QStringLiteral("edited");
const QString kFileDialog = QStringLiteral("file-dialog");
const QString kBuiltinPrefix = QStringLiteral("builtin:");
const QString kFilePrefix = QStringLiteral("file:");

QString q(const std::string& s) { return QString::fromStdString(s); }
QColor toQColor(const Rgb8& c) { return QColor(c[0], c[1], c[2]); }
Rgb8 toRgb8(const QColor& c) { return {uint8_t(c.red()), uint8_t(c.green()), uint8_t(c.blue())}; }
QString hexName(const Rgb8& c) { return toQColor(c).name(QColor::HexRgb).toUpper(); }

/// A swatch preview for the combo box: the colours side by side in a 64 x 14 strip, framed.
QIcon paletteIcon(const Palette& p) {
    QPixmap pix(64, 14);
    pix.fill(Qt::transparent);
    QPainter painter(&pix);
    const int n = std::max(1, p.size());
    const double w = 62.0 / n;
    for (int i = 0; i < p.size(); ++i)
        painter.fillRect(QRectF(1 + i * w, 1, w + 0.5, 12), toQColor(p.colors[size_t(i)]));
    painter.setPen(QColor(128, 128, 128));
    painter.drawRect(QRectF(0.5, 0.5, 63, 13));
    return QIcon(pix);
}

QString itemText(const QString& name, int colors) { return QObject::tr("%1 (%2 colours)").arg(name).arg(colors); }

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// SwatchStrip

SwatchStrip::SwatchStrip(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setCursor(Qt::PointingHandCursor);
    setFocusPolicy(Qt::StrongFocus);
}

void SwatchStrip::setColors(const std::vector<Rgb8>& colors) {
    colors_ = colors;
    if (selected_ >= count()) selected_ = -1;
    updateGeometry();
    update();
}

void SwatchStrip::setSelected(int index) {
    selected_ = index >= 0 && index < count() ? index : -1;
    update();
}

int SwatchStrip::columns(int width) const { return std::max(1, (width + kGap) / kPitch); }

int SwatchStrip::heightForWidth(int width) const {
    if (colors_.empty()) return 0;
    const int cols = columns(width);
    const int rows = (count() + cols - 1) / cols;
    return rows * kPitch - kGap + 2;
}

QSize SwatchStrip::sizeHint() const {
    const int w = std::max(minimumSizeHint().width(), 16 * kPitch);
    return {w, heightForWidth(w)};
}

QSize SwatchStrip::minimumSizeHint() const { return {4 * kPitch, colors_.empty() ? 0 : kSwatch + 2}; }

QRect SwatchStrip::swatchRect(int index) const {
    const int cols = columns(width());
    return {1 + (index % cols) * kPitch, 1 + (index / cols) * kPitch, kSwatch, kSwatch};
}

int SwatchStrip::swatchAt(QPoint p) const {
    for (int i = 0; i < count(); ++i)
        if (swatchRect(i).adjusted(-kGap / 2, -kGap / 2, kGap / 2, kGap / 2).contains(p)) return i;
    return -1;
}

void SwatchStrip::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    if (height() != heightForWidth(width())) updateGeometry();
}

void SwatchStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const bool on = isEnabled();
    for (int i = 0; i < count(); ++i) {
        const QRect r = swatchRect(i);
        QColor c = toQColor(colors_[size_t(i)]);
        if (!on) c = QColor::fromHsv(c.hsvHue(), c.hsvSaturation() / 3, 128 + c.value() / 3);
        p.fillRect(r, c);
        p.setPen(QColor(110, 110, 110));
        p.drawRect(r.adjusted(0, 0, -1, -1));
        if (i == selected_ && on && hasFocus()) {
            p.setPen(QPen(palette().color(QPalette::Highlight), 3));
            p.drawRect(r.adjusted(-1, -1, 0, 0));
        } else if (i == selected_ && on) {
            p.setPen(QPen(palette().color(QPalette::Highlight), 2));
            p.drawRect(r.adjusted(-1, -1, 0, 0));
        }
    }
}

void SwatchStrip::mousePressEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
    const int i = swatchAt(e->position().toPoint());
    if (i < 0) return;
    setSelected(i);
    emit clicked(i);
}

void SwatchStrip::keyPressEvent(QKeyEvent* e) {
    if (colors_.empty()) return QWidget::keyPressEvent(e);
    const int cols = columns(width());
    const int at = selected_ < 0 ? 0 : selected_;
    int next = -1;
    switch (e->key()) {
        case Qt::Key_Left:
            next = at - 1;
            break;
        case Qt::Key_Right:
            next = selected_ < 0 ? 0 : at + 1;
            break;
        case Qt::Key_Up:
            next = at - cols;
            break;
        case Qt::Key_Down:
            next = at + cols;
            break;
        case Qt::Key_Home:
            next = 0;
            break;
        case Qt::Key_End:
            next = count() - 1;
            break;
        case Qt::Key_Return:
        case Qt::Key_Enter:
        case Qt::Key_Space:
            if (selected_ >= 0) emit clicked(selected_);
            return;
        case Qt::Key_Delete:
        case Qt::Key_Backspace:
            if (selected_ >= 0) emit removeRequested(selected_);
            return;
        default:
            return QWidget::keyPressEvent(e);
    }
    setSelected(std::clamp(next, 0, count() - 1));
}

void SwatchStrip::contextMenuEvent(QContextMenuEvent* e) {
    const int i = swatchAt(e->pos());
    if (i < 0) return;
    setSelected(i);
    QMenu menu(this);
    menu.addAction(tr("Change colour %1 (%2)...").arg(i).arg(hexName(colors_[size_t(i)])), this,
                   [this, i] { emit clicked(i); });
    QAction* remove = menu.addAction(tr("Remove colour %1").arg(i), this, [this, i] { emit removeRequested(i); });
    remove->setEnabled(count() > kMinPaletteColors);
    menu.exec(e->globalPos());
}

bool SwatchStrip::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int i = swatchAt(help->pos());
        if (i >= 0)
            QToolTip::showText(help->globalPos(),
                               tr("Colour %1: %2\nClick to change it; right-click to remove it")
                                   .arg(i)
                                   .arg(hexName(colors_[size_t(i)])),
                               this, swatchRect(i));
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

// ---------------------------------------------------------------------------------------------------------------
// PalettePanel

PalettePanel::PalettePanel(QWidget* parent) : QGroupBox(tr("Palette"), parent) {
    setObjectName(QStringLiteral("palettePanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);

    sourceCombo_ = new QComboBox;
    sourceCombo_->setObjectName(QStringLiteral("paletteSource"));
    sourceCombo_->setIconSize(QSize(64, 14));
    sourceCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    sourceCombo_->setMinimumContentsLength(16);
    sourceCombo_->setToolTip(
        tr("No palette: halftone each channel of the colour mode (gray, RGB or CMYK). A palette: halftone to "
           "its colours (error diffusion to the nearest palette colour)."));
    auto* model = qobject_cast<QStandardItemModel*>(sourceCombo_->model());
    sourceCombo_->addItem(tr("No palette (per channel: gray, RGB or CMYK)"), kNone);
    auto addHeader = [&](const QString& text) {
        auto* item = new QStandardItem(text);
        item->setFlags(Qt::NoItemFlags);
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
        model->appendRow(item);
    };
    QString group;
    for (const BuiltinPalette& b : builtinPalettes()) {
        if (q(b.group) != group) {
            group = q(b.group);
            addHeader(group);
        }
        sourceCombo_->addItem(paletteIcon(b.palette), QStringLiteral("  ") + itemText(q(b.name), b.palette.size()),
                              kBuiltinPrefix + q(b.name));
        sourceCombo_->setItemData(sourceCombo_->count() - 1, q(b.description), Qt::ToolTipRole);
    }
    addHeader(tr("other"));
    sourceCombo_->addItem(tr("  From file..."), kFileDialog);
    sourceCombo_->setItemData(sourceCombo_->count() - 1,
                              tr("Read a palette file: .hex (RRGGBB a line), .gpl (GIMP), .txt (Paint.NET), .act "
                                 "(Adobe), .pal (JASC)"),
                              Qt::ToolTipRole);
    sourceCombo_->addItem(tr("  Auto: colours from the image"), kAuto);
    sourceCombo_->setItemData(sourceCombo_->count() - 1,
                              tr("Make a palette of N colours from the image (k-means in CIELAB; the same image "
                                 "always gives the same palette)"),
                              Qt::ToolTipRole);
    layout->addWidget(sourceCombo_);

    autoRow_ = new QWidget;
    auto* autoLayout = new QHBoxLayout(autoRow_);
    autoLayout->setContentsMargins(0, 0, 0, 0);
    autoLayout->addWidget(new QLabel(tr("Colours")));
    autoCount_ = new QSpinBox;
    autoCount_->setObjectName(QStringLiteral("autoColours"));
    autoCount_->setRange(kMinPaletteColors, kMaxPaletteColors);
    autoCount_->setValue(kDefaultAutoColors);
    autoCount_->setKeyboardTracking(false);
    autoCount_->setToolTip(
        tr("How many colours to make from the image [%1 .. %2]").arg(kMinPaletteColors).arg(kMaxPaletteColors));
    autoLayout->addWidget(autoCount_, 1);
    layout->addWidget(autoRow_);

    swatches_ = new SwatchStrip;
    swatches_->setObjectName(QStringLiteral("swatches"));
    layout->addWidget(swatches_);

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    addButton_ = new QToolButton;
    addButton_->setObjectName(QStringLiteral("addColour"));
    addButton_->setText(QStringLiteral("+"));
    addButton_->setToolTip(tr("Add a colour (at most %1)").arg(kMaxPaletteColors));
    removeButton_ = new QToolButton;
    removeButton_->setObjectName(QStringLiteral("removeColour"));
    removeButton_->setText(QStringLiteral("\u2212"));
    removeButton_->setToolTip(tr("Remove the selected colour (the last one when none is selected); a palette keeps "
                                 "at least %1")
                                  .arg(kMinPaletteColors));
    saveButton_ = new QToolButton;
    saveButton_->setObjectName(QStringLiteral("savePalette"));
    saveButton_->setText(tr("Save palette..."));
    saveButton_->setToolTip(tr("Write these colours to a palette file (.hex, .gpl, .txt, .act or .pal)"));
    info_ = new QLabel;
    info_->setObjectName(QStringLiteral("paletteInfo"));
    info_->setWordWrap(true);
    buttons->addWidget(addButton_);
    buttons->addWidget(removeButton_);
    buttons->addWidget(saveButton_);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    layout->addWidget(info_);
    // The working space and the match of the nearest-colour search (docs/spec.md section 4).
    matchRow_ = new QWidget;
    auto* matchLayout = new QHBoxLayout(matchRow_);
    matchLayout->setContentsMargins(0, 0, 0, 0);
    spaceCombo_ = new QComboBox;
    spaceCombo_->setObjectName(QStringLiteral("paletteSpace"));
    spaceCombo_->addItem(tr("Linear light"), QString::fromLatin1(toString(PaletteSpace::Linear)));
    spaceCombo_->addItem(tr("Gamma (sRGB values)"), QString::fromLatin1(toString(PaletteSpace::Gamma)));
    spaceCombo_->setToolTip(
        tr("Where errors are diffused: linear light (sRGB decoded; the default, truer mixtures) "
           "or the 8-bit sRGB values (--space)"));
    matchCombo_ = new QComboBox;
    matchCombo_->setObjectName(QStringLiteral("paletteMatch"));
    matchCombo_->addItem(tr("Euclidean"), QString::fromLatin1(toString(PaletteMatch::Euclidean)));
    matchCombo_->addItem(tr("Luma-weighted"), QString::fromLatin1(toString(PaletteMatch::Weighted)));
    matchCombo_->setToolTip(
        tr("How the nearest palette colour is found: dR^2 + dG^2 + dB^2 (the "
           "default) or 299 dR^2 + 587 dG^2 + 114 dB^2 (--match)"));
    matchLayout->addWidget(spaceCombo_, 1);
    matchLayout->addWidget(matchCombo_, 1);
    layout->addWidget(matchRow_);
    reason_ = new QLabel;
    reason_->setObjectName(QStringLiteral("paletteReason"));
    reason_->setWordWrap(true);
    reason_->hide();
    layout->addWidget(reason_);

    autoDebounce_.setSingleShot(true);
    autoDebounce_.setInterval(200);
    connect(&autoDebounce_, &QTimer::timeout, this, &PalettePanel::startAuto);
    connect(sourceCombo_, &QComboBox::currentIndexChanged, this, &PalettePanel::onSourceIndex);
    connect(spaceCombo_, &QComboBox::currentIndexChanged, this, &PalettePanel::changed);
    connect(matchCombo_, &QComboBox::currentIndexChanged, this, &PalettePanel::changed);
    connect(autoCount_, &QSpinBox::valueChanged, this, [this] {
        if (source_ == Source::Auto) autoDebounce_.start();
    });
    connect(swatches_, &SwatchStrip::clicked, this, &PalettePanel::editSwatch);
    connect(swatches_, &SwatchStrip::removeRequested, this, [this](int i) { removeColor(i); });
    connect(addButton_, &QToolButton::clicked, this, [this] {
        // The new colour starts as the selected one (or white), and the dialog opens to pick it.
        const QColor start =
            swatches_->selected() >= 0 ? toQColor(current_.colors[size_t(swatches_->selected())]) : QColor(Qt::white);
        if (addColor(start)) editSwatch(current_.size() - 1);
    });
    connect(removeButton_, &QToolButton::clicked, this,
            [this] { removeColor(swatches_->selected() >= 0 ? swatches_->selected() : current_.size() - 1); });
    connect(saveButton_, &QToolButton::clicked, this, &PalettePanel::chooseSaveFile);
    updateUi();
}

PaletteSpace PalettePanel::space() const {
    PaletteSpace s = PaletteSpace::Linear;
    parsePaletteSpace(spaceCombo_->currentData().toString().toStdString(), s);
    return s;
}

PaletteMatch PalettePanel::match() const {
    PaletteMatch m = PaletteMatch::Euclidean;
    parsePaletteMatch(matchCombo_->currentData().toString().toStdString(), m);
    return m;
}

void PalettePanel::setSpaceAndMatch(PaletteSpace space, PaletteMatch match) {
    const bool differ = space != this->space() || match != this->match();
    {
        const QSignalBlocker a(spaceCombo_), b(matchCombo_);
        spaceCombo_->setCurrentIndex(spaceCombo_->findData(QString::fromLatin1(toString(space))));
        matchCombo_->setCurrentIndex(matchCombo_->findData(QString::fromLatin1(toString(match))));
    }
    if (differ) emit changed();
}

int PalettePanel::indexOfData(const QString& data) const { return sourceCombo_->findData(data); }
int PalettePanel::fileDialogIndex() const { return indexOfData(kFileDialog); }

void PalettePanel::selectIndexQuietly(int index) {
    const QSignalBlocker block(sourceCombo_);
    sourceCombo_->setCurrentIndex(index);
    lastIndex_ = index;
}

std::optional<Palette> PalettePanel::palette() const {
    if (!wantsPalette() || current_.colors.empty()) return std::nullopt;
    if (source_ == Source::Auto && autoRunning_) return std::nullopt;
    return current_;
}

bool PalettePanel::waiting() const {
    return wantsPalette() && source_ == Source::Auto && (autoRunning_ || current_.colors.empty()) &&
           autoError_.isEmpty();
}

void PalettePanel::setAvailable(bool available, const QString& reason) {
    available_ = available;
    sourceCombo_->setEnabled(available);
    reason_->setText(available ? QString() : reason);
    reason_->setVisible(!available && !reason.isEmpty());
    setToolTip(available ? QString() : reason);
    updateUi();
}

QString PalettePanel::spec() const {
    if (!wantsPalette()) return {};
    const QString data = sourceCombo_->currentData().toString();
    if (data.startsWith(kBuiltinPrefix)) return data.mid(kBuiltinPrefix.size());
    if (data.startsWith(kFilePrefix)) return data.mid(kFilePrefix.size());
    if (data == kAuto) return QStringLiteral("auto:%1").arg(autoCount_->value());
    return {};
}

Status PalettePanel::selectSpec(const QString& spec) {
    const std::string text = spec.toStdString();
    int n = 0;
    if (Status s = parseAutoPaletteSpec(text, n); !s) return s;
    if (n > 0) {
        selectAuto(n);
        return Status::ok();
    }
    if (findBuiltinPalette(text)) {
        if (!selectBuiltin(spec)) return Status::error("the built-in palette '" + text + "' cannot be chosen here");
        return Status::ok();
    }
    Palette p;
    if (Status s = resolvePalette(text, nullptr, p); !s) return s;  // checked first: loadFile would show a dialog
    if (!loadFile(spec)) return Status::error("palette file '" + text + "' cannot be read");
    return Status::ok();
}

void PalettePanel::onSourceIndex(int index) {
    const QString data = sourceCombo_->itemData(index).toString();
    if (data == kFileDialog) {
        // The file dialog picks the palette; until it does (or if it is cancelled) the previous choice stays.
        selectIndexQuietly(lastIndex_);
        chooseFile();
        return;
    }
    if (data.isEmpty()) {  // a group header
        selectIndexQuietly(lastIndex_);
        return;
    }
    lastIndex_ = index;
    apply(data);
}

void PalettePanel::apply(const QString& data) {
    autoDebounce_.stop();
    autoError_.clear();
    ++autoGeneration_;  // a palette being made for an earlier choice is not wanted any more
    autoRunning_ = false;
    if (data == kNone) {
        source_ = Source::None;
        current_ = Palette{};
    } else if (data.startsWith(kBuiltinPrefix)) {
        source_ = Source::Builtin;
        const BuiltinPalette* b = findBuiltinPalette(data.mid(kBuiltinPrefix.size()).toStdString());
        current_ = b ? b->palette : Palette{};
    } else if (data.startsWith(kFilePrefix)) {
        source_ = Source::File;
        current_ = files_.value(data.mid(kFilePrefix.size()));
    } else if (data == kEdited) {
        source_ = Source::Edited;
        current_ = edited_;
    } else if (data == kAuto) {
        source_ = Source::Auto;
        current_ = Palette{};
        startAuto();
        return;  // startAuto updates and announces
    }
    updateUi();
    emit changed();
}

bool PalettePanel::selectNone() {
    sourceCombo_->setCurrentIndex(indexOfData(kNone));
    return true;
}

bool PalettePanel::selectBuiltin(const QString& name) {
    const int i = indexOfData(kBuiltinPrefix + name);
    if (i < 0) return false;
    sourceCombo_->setCurrentIndex(i);
    return true;
}

void PalettePanel::selectAuto(int n) {
    {
        const QSignalBlocker block(autoCount_);
        autoCount_->setValue(n);
    }
    const int i = indexOfData(kAuto);
    if (sourceCombo_->currentIndex() == i)
        apply(kAuto);  // already Auto: make it again with the new count
    else
        sourceCombo_->setCurrentIndex(i);
}

bool PalettePanel::loadFile(const QString& path) {
    Palette p;
    if (Status s = loadPaletteFile(QFile::encodeName(path).toStdString(), p); !s) {
        showError(tr("Cannot read the palette"),
                  tr("%1\n\nThe palette stays %2.")
                      .arg(q(s.message()), source_ == Source::None ? tr("as it was (none)")
                                                                   : tr("\u201c%1\u201d").arg(q(current_.name))));
        return false;
    }
    const QString abs = QFileInfo(path).absoluteFilePath();
    files_.insert(abs, p);
    int i = indexOfData(kFilePrefix + abs);
    const QString text = QStringLiteral("  ") + itemText(q(p.name), p.size());
    if (i < 0) {
        i = fileDialogIndex();
        const QSignalBlocker block(sourceCombo_);  // an entry above the current one moves it, not the choice
        sourceCombo_->insertItem(i, paletteIcon(p), text, kFilePrefix + abs);
        lastIndex_ = sourceCombo_->currentIndex();
    } else {
        sourceCombo_->setItemText(i, text);
        sourceCombo_->setItemIcon(i, paletteIcon(p));
    }
    sourceCombo_->setItemData(i, abs, Qt::ToolTipRole);
    if (sourceCombo_->currentIndex() == i)
        apply(kFilePrefix + abs);  // the same file read again
    else
        sourceCombo_->setCurrentIndex(i);
    return true;
}

void PalettePanel::setImage(std::shared_ptr<const Image> image) {
    image_ = std::move(image);
    if (source_ == Source::Auto) apply(kAuto);
}

void PalettePanel::startAuto() {
    autoDebounce_.stop();
    const quint64 gen = ++autoGeneration_;
    autoError_.clear();
    if (!image_) {
        autoRunning_ = false;
        current_ = Palette{};
        updateUi();
        emit changed();
        return;
    }
    autoRunning_ = true;
    updateUi();
    emit changed();
    const int n = autoCount_->value();
    auto* watcher = new QFutureWatcher<std::pair<Status, Palette>>(this);
    connect(watcher, &QFutureWatcher<std::pair<Status, Palette>>::finished, this, [this, watcher, gen] {
        const auto [status, palette] = watcher->result();
        watcher->deleteLater();
        if (gen != autoGeneration_) return;  // superseded by another choice, count or image
        autoRunning_ = false;
        if (status) {
            current_ = palette;
        } else {
            current_ = Palette{};
            autoError_ = q(status.message());
            showError(tr("Cannot make a palette from the image"), autoError_);
        }
        updateUi();
        emit changed();
        emit autoReady();
    });
    watcher->setFuture(QtConcurrent::run([image = image_, n]() {
        Palette p;
        Status s;
        try {
            s = autoPalette(*image, n, p);
        } catch (const std::exception&) {
            s = Status::error("not enough memory to make a palette from this image");
        }
        return std::make_pair(s, p);
    }));
}

void PalettePanel::becomeEdited(Palette edited) {
    if (source_ != Source::Edited) {
        const std::string base = source_ == Source::Auto ? std::string("auto")
                                 : current_.name.empty() ? std::string("palette")
                                                         : current_.name;
        edited.name = base + " (edited)";
    }
    edited_ = std::move(edited);
    int i = indexOfData(kEdited);
    const QString text = tr("%1, %2 colours").arg(q(edited_.name)).arg(edited_.size());
    if (i < 0) {
        i = 1;  // right under "No palette"
        const QSignalBlocker block(sourceCombo_);
        sourceCombo_->insertItem(i, paletteIcon(edited_), text, kEdited);
    } else {
        sourceCombo_->setItemText(i, text);
        sourceCombo_->setItemIcon(i, paletteIcon(edited_));
    }
    sourceCombo_->setItemData(i, tr("your edit of a palette: choose the original entry to undo it"), Qt::ToolTipRole);
    selectIndexQuietly(i);
    ++autoGeneration_;
    autoRunning_ = false;
    autoError_.clear();
    source_ = Source::Edited;
    current_ = edited_;
    updateUi();
    emit changed();
}

bool PalettePanel::setColor(int index, const QColor& color) {
    if (source_ == Source::None || index < 0 || index >= current_.size() || !color.isValid()) return false;
    Palette p = current_;
    p.colors[size_t(index)] = toRgb8(color);
    if (p.colors == current_.colors) return true;
    becomeEdited(std::move(p));
    swatches_->setSelected(index);
    return true;
}

bool PalettePanel::addColor(const QColor& color) {
    if (source_ == Source::None || current_.colors.empty() || current_.size() >= kMaxPaletteColors || !color.isValid())
        return false;
    Palette p = current_;
    p.colors.push_back(toRgb8(color));
    becomeEdited(std::move(p));
    swatches_->setSelected(current_.size() - 1);
    return true;
}

bool PalettePanel::removeColor(int index) {
    if (source_ == Source::None || index < 0 || index >= current_.size() || current_.size() <= kMinPaletteColors)
        return false;
    Palette p = current_;
    p.colors.erase(p.colors.begin() + index);
    becomeEdited(std::move(p));
    swatches_->setSelected(-1);
    return true;
}

bool PalettePanel::savePalette(const QString& path) {
    if (current_.colors.empty()) {
        showError(tr("Nothing to save"), tr("Choose a palette first."));
        return false;
    }
    if (Status s = savePaletteFile(QFile::encodeName(path).toStdString(), current_); !s) {
        showError(tr("Cannot save the palette"), q(s.message()));
        return false;
    }
    info_->setText(tr("Saved %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

void PalettePanel::editSwatch(int index) {
    if (index < 0 || index >= current_.size()) return;
    swatches_->setSelected(index);
    auto* dlg = new QColorDialog(toQColor(current_.colors[size_t(index)]), this);
    dlg->setObjectName(QStringLiteral("swatchColorDialog"));
    dlg->setWindowTitle(tr("Colour %1 of the palette").arg(index));
    dlg->setAttribute(Qt::WA_DeleteOnClose);
    // The colour applies to the palette the dialog was opened for; if the choice changed meanwhile, it is dropped.
    connect(dlg, &QColorDialog::colorSelected, this, [this, index, opened = current_.colors](const QColor& c) {
        if (current_.colors == opened) setColor(index, c);
    });
    dlg->open();
}

void PalettePanel::chooseFile() {
    auto* dlg = new QFileDialog(this, tr("Open a palette"), QString(),
                                tr("Palettes (*.hex *.gpl *.txt *.act *.pal);;All files (*)"));
    dlg->setObjectName(QStringLiteral("paletteFileDialog"));
    dlg->setFileMode(QFileDialog::ExistingFile);
    dlg->setAcceptMode(QFileDialog::AcceptOpen);
    dlg->setAttribute(Qt::WA_DeleteOnClose);
    connect(dlg, &QFileDialog::fileSelected, this, [this](const QString& f) {
        if (!f.isEmpty()) loadFile(f);
    });
    dlg->open();
}

void PalettePanel::chooseSaveFile() {
    if (current_.colors.empty()) return;
    const QStringList filters{tr("Hex colours (*.hex)"), tr("GIMP palette (*.gpl)"), tr("Paint.NET palette (*.txt)"),
                              tr("Adobe colour table (*.act)"), tr("JASC palette (*.pal)")};
    QString base = q(current_.name);
    base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9.+-]+")), QStringLiteral("-"));
    base.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
    if (base.isEmpty() || base.contains(QLatin1Char('.'))) base = QFileInfo(base).completeBaseName();
    if (base.isEmpty()) base = QStringLiteral("palette");
    auto* dlg = new QFileDialog(this, tr("Save the palette"), base + QStringLiteral(".hex"),
                                filters.join(QStringLiteral(";;")));
    dlg->setObjectName(QStringLiteral("paletteSaveDialog"));
    dlg->setAcceptMode(QFileDialog::AcceptSave);
    dlg->setDefaultSuffix(QStringLiteral("hex"));
    dlg->setAttribute(Qt::WA_DeleteOnClose);
    connect(dlg, &QFileDialog::filterSelected, dlg, [dlg](const QString& filter) {
        static const QRegularExpression ext(QStringLiteral("\\*\\.([a-z]+)"));
        const QRegularExpressionMatch m = ext.match(filter);
        if (m.hasMatch()) dlg->setDefaultSuffix(m.captured(1));
    });
    connect(dlg, &QFileDialog::fileSelected, this, [this](const QString& f) {
        if (!f.isEmpty()) savePalette(f);
    });
    dlg->open();
}

void PalettePanel::showError(const QString& title, const QString& text) {
    errorBox_ = openErrorBox(this, title, text, QStringLiteral("paletteError"), errorBox_);
}

QString PalettePanel::infoText() const { return info_->text(); }
QString PalettePanel::reasonText() const { return reason_->text(); }

void PalettePanel::updateUi() {
    const bool chosen = source_ != Source::None;
    autoRow_->setVisible(source_ == Source::Auto);
    swatches_->setColors(current_.colors);
    swatches_->setVisible(chosen && !current_.colors.empty());
    swatches_->setEnabled(available_);
    addButton_->setVisible(chosen);
    removeButton_->setVisible(chosen);
    matchRow_->setVisible(chosen);
    matchRow_->setEnabled(available_);
    saveButton_->setVisible(chosen);
    const bool editable =
        available_ && chosen && !current_.colors.empty() && !(source_ == Source::Auto && autoRunning_);
    addButton_->setEnabled(editable && current_.size() < kMaxPaletteColors);
    removeButton_->setEnabled(editable && current_.size() > kMinPaletteColors);
    saveButton_->setEnabled(editable);
    autoCount_->setEnabled(available_);
    QString info;
    if (!chosen)
        info = tr("Each channel of the colour mode is halftoned on its own.");
    else if (source_ == Source::Auto && autoRunning_)
        info = tr("Making %1 colours from the image...").arg(autoCount_->value());
    else if (source_ == Source::Auto && !autoError_.isEmpty())
        info = tr("No palette: %1").arg(autoError_);
    else if (source_ == Source::Auto && current_.colors.empty())
        info = tr("Open an image to make a palette from it.");
    else
        info =
            tr("%1: click a swatch to change it")
                .arg(itemText(source_ == Source::Auto ? tr("auto from the image") : q(current_.name), current_.size()));
    info_->setText(info);
    info_->setVisible(available_);
}

void PalettePanel::saveSettings(QSettings& s) const {
    s.beginGroup(QStringLiteral("palette"));
    s.remove(QString());
    const QString data = sourceCombo_->itemData(lastIndex_).toString();
    s.setValue(QStringLiteral("source"), data.startsWith(kFilePrefix) ? QStringLiteral("file") : data);
    if (data.startsWith(kFilePrefix)) s.setValue(QStringLiteral("path"), data.mid(kFilePrefix.size()));
    s.setValue(QStringLiteral("autoColours"), autoCount_->value());
    s.setValue(QStringLiteral("space"), QString::fromLatin1(toString(space())));
    s.setValue(QStringLiteral("match"), QString::fromLatin1(toString(match())));
    // The colours of a file or an edit are kept too, so the choice comes back if the file is gone.
    const Palette& keep = source_ == Source::Edited ? edited_ : current_;
    if (source_ == Source::Edited || source_ == Source::File) {
        QStringList colors;
        for (const Rgb8& c : keep.colors) colors << hexName(c);
        s.setValue(QStringLiteral("name"), q(keep.name));
        s.setValue(QStringLiteral("colours"), colors);
    }
    s.endGroup();
}

void PalettePanel::restoreSettings(QSettings& s) {
    s.beginGroup(QStringLiteral("palette"));
    const QString source = s.value(QStringLiteral("source")).toString();
    const QString path = s.value(QStringLiteral("path")).toString();
    const int autoColours = s.value(QStringLiteral("autoColours"), kDefaultAutoColors).toInt();
    PaletteSpace space = PaletteSpace::Linear;
    PaletteMatch match = PaletteMatch::Euclidean;
    parsePaletteSpace(s.value(QStringLiteral("space")).toString().toStdString(), space);
    parsePaletteMatch(s.value(QStringLiteral("match")).toString().toStdString(), match);
    Palette stored;
    stored.name = s.value(QStringLiteral("name")).toString().toStdString();
    for (const QString& c : s.value(QStringLiteral("colours")).toStringList()) {
        const QColor color = QColor::fromString(c);
        if (color.isValid()) stored.colors.push_back(toRgb8(color));
    }
    s.endGroup();
    {
        const QSignalBlocker block(autoCount_);
        autoCount_->setValue(std::clamp(autoColours, kMinPaletteColors, kMaxPaletteColors));
    }
    setSpaceAndMatch(space, match);
    const bool storedOk = bool(checkPalette(stored));
    if (source == kNone || source.isEmpty()) {
        selectNone();
    } else if (source.startsWith(kBuiltinPrefix)) {
        if (!selectBuiltin(source.mid(kBuiltinPrefix.size()))) selectNone();
    } else if (source == kAuto) {
        selectAuto(autoCount_->value());
    } else if (source == QLatin1String("file")) {
        Palette p;
        if (loadPaletteFile(QFile::encodeName(path).toStdString(), p)) {
            loadFile(path);
        } else if (storedOk) {
            source_ = Source::Edited;  // the colours without their file: an edited palette of the same name
            becomeEdited(stored);
        }
    } else if (source == kEdited && storedOk) {
        source_ = Source::Edited;
        becomeEdited(stored);
    }
}

}  // namespace halftone
