#include "widgets/printview.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPixmap>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <cmath>

#include "widgets/formrows.h"
#include "widgets/imageconvert.h"

namespace halftone {

namespace {

/// The resolution assumed when neither the method nor the Adjust panel gives one (as a saved 1-bit file says).
constexpr double kAssumedDpi = 300;
/// The ruling a one-number dot gain is quoted for when the result is not an AM screen.
constexpr double kQuotedLpi = 150;

}  // namespace

PrintView::PrintView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    zoom_ = new QComboBox;
    zoom_->setObjectName(QStringLiteral("printZoom"));
    for (double z : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0})
        zoom_->addItem(z == 1.0 ? tr("100 % (printed size)") : tr("%1 %").arg(z * 100), z);
    zoom_->setCurrentIndex(zoom_->findData(1.0));
    zoom_->setToolTip(
        tr("100 % shows the print at its size: an inch of paper is an inch of the screen (by the "
           "screen's logical dpi)"));
    dotGain_ = new QDoubleSpinBox;
    dotGain_->setObjectName(QStringLiteral("printDotGain"));
    dotGain_->setRange(0, 50);
    dotGain_->setDecimals(1);
    dotGain_->setSuffix(QStringLiteral(" %"));
    dotGain_->setValue(14);
    dotGain_->setKeyboardTracking(false);
    dotGain_->setToolTip(
        tr("The press's dot gain at 50 %: a 50 % dot prints this much larger (coated paper about 12-15 %, "
           "newsprint 20-25 %); every dot spreads by the same rim (docs/studio-views.md, \u201cPrinted size\u201d)"));
    controls->addWidget(buddyLabel(tr("&Zoom"), zoom_));
    controls->addWidget(zoom_);
    controls->addSpacing(12);
    controls->addWidget(buddyLabel(tr("Press &dot gain at 50 %"), dotGain_));
    controls->addWidget(dotGain_);
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setObjectName(QStringLiteral("printCancel"));
    cancel_->setToolTip(tr("Stop making the picture of the print"));
    cancel_->hide();
    controls->addWidget(cancel_);
    controls->addStretch(1);
    layout->addLayout(controls);
    info_ = wrappedLabel(QStringLiteral("printInfo"));
    layout->addWidget(info_);
    picture_ = new QLabel;
    picture_->setObjectName(QStringLiteral("printPicture"));
    picture_->setAlignment(Qt::AlignCenter);
    scroll_ = new QScrollArea;
    scroll_->setWidget(picture_);
    scroll_->setWidgetResizable(true);
    scroll_->setAlignment(Qt::AlignCenter);
    layout->addWidget(scroll_, 1);
    connect(zoom_, &QComboBox::currentIndexChanged, this, &PrintView::changed);
    connect(dotGain_, &QDoubleSpinBox::valueChanged, this, &PrintView::changed);
    connect(cancel_, &QPushButton::clicked, this, &PrintView::cancel);
    info_->setText(tr("Run a method: its CMYK or gray halftone is shown here as printed, at its size."));
}

PrintView::~PrintView() {
    stop_.requestStop();
    if (watcher_) watcher_->waitForFinished();
}

void PrintView::setResult(JobResultPtr result, double deviceDpi) {
    if (result == result_ && deviceDpi == deviceDpi_) return;
    result_ = std::move(result);
    deviceDpi_ = deviceDpi;
    changed();
}

void PrintView::cancel() { stop_.requestStop(); }

double PrintView::zoom() const { return zoom_->currentData().toDouble(); }

void PrintView::setZoom(double zoom) {
    int i = zoom_->findData(zoom);
    if (i < 0) {
        zoom_->addItem(tr("%1 %").arg(zoom * 100), zoom);
        i = zoom_->count() - 1;
    }
    zoom_->setCurrentIndex(i);
}

double PrintView::dotGain() const { return dotGain_->value(); }
void PrintView::setDotGain(double percent) { dotGain_->setValue(percent); }
double PrintView::screenDpi() const { return logicalDpiX(); }
QString PrintView::infoText() const { return info_->text(); }

void PrintView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (dirty_) refresh();
}

void PrintView::changed() {
    dirty_ = true;
    if (isVisible()) refresh();
}

void PrintView::refresh() {
    dirty_ = false;
    stop_.requestStop();  // the picture being made is for settings no longer asked
    const quint64 gen = ++generation_;
    cancel_->hide();
    if (!result_ || !result_->halftone) {
        image_ = QImage();
        picture_->clear();
        info_->setText(tr("Run a method: its CMYK or gray halftone is shown here as printed, at its size."));
        emit updated();
        return;
    }
    PrintSizeView v;
    v.deviceDpi = deviceDpi_ > 0 ? deviceDpi_ : kAssumedDpi;
    const double ratio = devicePixelRatioF();
    v.viewDpi = screenDpi() * zoom() * ratio;
    v.dotGain = dotGain();
    v.lpi = result_->params.has("lpi") ? result_->params.getReal("lpi", kQuotedLpi) : kQuotedLpi;
    stop_ = StopToken();
    RunControl rc;
    rc.stop = stop_;
    auto percent = std::make_shared<std::atomic<int>>(-1);
    QPointer<QLabel> info = info_;
    rc.onProgress = [percent, info](const Progress& p) {  // from a worker: posted once per whole percent
        const int now = int(p.fraction * 100);
        if (percent->exchange(now) == now || !info) return;
        QMetaObject::invokeMethod(
            info, [info, now] { info->setText(PrintView::tr("Printing at the printed size... %1 %").arg(now)); },
            Qt::QueuedConnection);
    };
    info_->setText(tr("Printing at the printed size..."));
    cancel_->show();
    const std::shared_ptr<const Image> halftone = result_->halftone;
    auto* watcher = new QFutureWatcher<Made>(this);
    watcher_ = watcher;
    const double dpiGiven = deviceDpi_;
    connect(watcher, &QFutureWatcher<Made>::finished, this, [this, watcher, gen, v, halftone, ratio, dpiGiven] {
        watcher->deleteLater();
        if (watcher_ == watcher) watcher_ = nullptr;
        if (gen != generation_) return;  // settings changed since: a newer picture is coming
        cancel_->hide();
        Made made = watcher->result();
        if (made.status.isCancelled()) {
            dirty_ = true;  // made again when shown again or a setting changes
            info_->setText(tr("Cancelled: no picture of the print. Change a setting to make it again."));
            emit updated();
            return;
        }
        if (!made.status) {
            image_ = QImage();
            picture_->clear();
            info_->setText(QString::fromStdString(made.status.message()));
            emit updated();
            return;
        }
        image_ = made.image;
        image_.setDevicePixelRatio(ratio);
        picture_->setPixmap(QPixmap::fromImage(image_));
        shown_ = v;
        const double inW = halftone->width() / v.deviceDpi, inH = halftone->height() / v.deviceDpi;
        QString text = tr("%1 x %2 in (%3 x %4 cm) at %5 dpi, %6 x %7 dots")
                           .arg(inW, 0, 'f', 2)
                           .arg(inH, 0, 'f', 2)
                           .arg(inW * 2.54, 0, 'f', 1)
                           .arg(inH * 2.54, 0, 'f', 1)
                           .arg(v.deviceDpi)
                           .arg(halftone->width())
                           .arg(halftone->height());
        if (dpiGiven <= 0) text += tr(" (no resolution set: set the DPI in the Adjust panel)");
        text += tr("; dot gain %1 % at 50 % for %2 lpi: dots spread by %3 dots")
                    .arg(v.dotGain)
                    .arg(v.lpi)
                    .arg(dotGainRim(v.dotGain, v.deviceDpi / v.lpi), 0, 'f', 2);
        text += tr("; shown at %1 dpi of the screen (%2 %)").arg(screenDpi() * zoom()).arg(zoom() * 100);
        info_->setText(text);
        emit updated();
    });
    watcher->setFuture(QtConcurrent::run([halftone, v, rc] {
        Made made;
        Image out;
        made.status = printAtSize(*halftone, v, out, rc);
        if (made.status) made.image = toDisplayImageCopy(out);
        return made;
    }));
}

}  // namespace halftone
