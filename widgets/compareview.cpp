#include "widgets/compareview.h"

#include <QGridLayout>
#include <QTimer>
#include <algorithm>

namespace halftone {

CompareView::CompareView(QWidget* parent) : QWidget(parent), view_(new ViewState(this)), grid_(new QGridLayout(this)) {
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setSpacing(2);
    for (int i = 0; i <= kMaxResults; ++i) {
        auto* pane = new ImagePane(view_, this);
        pane->setObjectName(i == 0 ? QStringLiteral("originalPane") : QStringLiteral("resultPane%1").arg(i - 1));
        connect(pane, &ImagePane::fitRequested, this, &CompareView::fitToWindow);
        panes_.push_back(pane);
    }
    splitPane_ = new ImagePane(view_, this);
    splitPane_->setObjectName(QStringLiteral("splitPane"));
    connect(splitPane_, &ImagePane::fitRequested, this, &CompareView::fitToWindow);
    placeholder_ = new ImagePane(view_, this);
    placeholder_->setObjectName(QStringLiteral("placeholderPane"));
    placeholder_->setLabel(tr("Pin a result (Ctrl+P) to compare it here with the next runs"));
    placeholder_->hide();
    relayout();
}

void CompareView::setOriginal(const QImage& image, const QString& label, const QVector<QImage>& levels) {
    original_ = image;
    originalLevels_ = levels;
    originalLabel_ = label;
    const bool sizeChanged = view_->imageSize() != image.size();
    view_->setImageSize(image.size());
    relayout();
    if (sizeChanged) QTimer::singleShot(0, this, &CompareView::fitToWindow);
}

void CompareView::setResults(const QVector<ComparePane>& results) {
    results_ = results.mid(0, kMaxResults);
    relayout();
    if (view_->fitMode()) QTimer::singleShot(0, this, &CompareView::fitToWindow);
}

void CompareView::setPerceived(bool on) {
    perceived_ = on;
    relayout();
}
void CompareView::setPrintPreview(bool on) {
    printPreview_ = on;
    relayout();
}
bool CompareView::hasPrintPreview() const {
    return std::any_of(results_.begin(), results_.end(), [](const ComparePane& r) { return r.printable; });
}
void CompareView::setPanel(bool on) {
    panel_ = on;
    relayout();
}
bool CompareView::hasPanel() const {
    return std::any_of(results_.begin(), results_.end(), [](const ComparePane& r) { return !r.panel.isNull(); });
}
void CompareView::setSplit(bool on) {
    split_ = on;
    relayout();
    QTimer::singleShot(0, this, [this] {
        if (view_->fitMode()) fitToWindow();
    });
}
void CompareView::setSplitResult(int index) {
    splitIndex_ = index;
    relayout();
}

void CompareView::relayout() {
    while (grid_->count() > 0) delete grid_->takeAt(0);
    for (ImagePane* p : panes_) p->hide();
    splitPane_->hide();
    placeholder_->hide();

    auto shown = [this](const ComparePane& r) {
        if (panel_ && !r.panel.isNull()) {
            const bool usePerceived = perceived_ && !r.perceivedPanel.isNull();
            QString label = r.label + tr("\n(simulated panel: the colours %1 shows)").arg(r.panelName);
            if (perceived_)
                label += usePerceived ? tr("\n(perceived: HVS Gaussian)") : tr("\n(perceived: computing...)");
            return usePerceived ? std::make_tuple(r.perceivedPanel, label, r.perceivedPanelLevels)
                                : std::make_tuple(r.panel, label, r.panelLevels);
        }
        const bool print = printPreview_ && r.printable && !r.printPreview.isNull();
        const QImage& perceivedImage = print ? r.perceivedPrint : r.perceived;
        const bool usePerceived = perceived_ && !perceivedImage.isNull();
        QString label = r.label;
        if (print)
            label += tr("\n(print preview: process inks on white paper)");
        else if (printPreview_ && r.printable)
            label += tr("\n(print preview: computing...)");
        if (perceived_) label += usePerceived ? tr("\n(perceived: HVS Gaussian)") : tr("\n(perceived: computing...)");
        if (usePerceived)
            return std::make_tuple(perceivedImage, label, print ? r.perceivedPrintLevels : r.perceivedLevels);
        return std::make_tuple(print ? r.printPreview : r.display, label,
                               print ? r.printPreviewLevels : r.displayLevels);
    };
    auto describe = [](ImagePane* pane, const ComparePane* r) {
        pane->setToolTip(r ? r->toolTip : QString());
        pane->setAccent(r && r->current);
    };

    if (split_ && !results_.isEmpty()) {
        const int idx = std::clamp(splitIndex_, 0, int(results_.size()) - 1);
        const auto [img, label, levels] = shown(results_[idx]);
        splitPane_->setImage(original_, originalLevels_);
        splitPane_->setLabel(originalLabel_);
        splitPane_->setSplitImage(img, label, levels);
        describe(splitPane_, &results_[idx]);
        grid_->addWidget(splitPane_, 0, 0);
        splitPane_->show();
        return;
    }
    panes_[0]->setImage(original_, originalLevels_);
    panes_[0]->setLabel(originalLabel_);
    describe(panes_[0], nullptr);
    const int n = 1 + int(results_.size());
    const int columns = n <= 2 ? n : (n <= 4 ? 2 : 3);
    for (int i = 0; i < n; ++i) {
        ImagePane* pane = panes_[i];
        if (i > 0) {
            const auto [img, label, levels] = shown(results_[i - 1]);
            pane->setImage(img, levels);
            pane->setLabel(label);
            describe(pane, &results_[i - 1]);
        }
        grid_->addWidget(pane, i / columns, i % columns);
        pane->show();
    }
    for (int i = n; i < panes_.size(); ++i) {
        panes_[i]->setImage({});
        panes_[i]->setLabel({});
        describe(panes_[i], nullptr);
    }
    // A grid cell left over (3 or 5 panes) gets an empty pane drawn like the others, not bare window.
    const int rows = (n + columns - 1) / columns;
    if (n > 1 && n < rows * columns) {
        grid_->addWidget(placeholder_, n / columns, n % columns);
        placeholder_->show();
    }
}

void CompareView::setWavefront(qint64 rowsDone, const QVector<int>& frontier) {
    panes_[0]->setWavefront(rowsDone, frontier);
    splitPane_->setWavefront(rowsDone, frontier);
}
void CompareView::clearWavefront() {
    panes_[0]->clearWavefront();
    splitPane_->clearWavefront();
}

void CompareView::fitToWindow() {
    QWidget* ref = split_ && splitPane_->isVisible() ? static_cast<QWidget*>(splitPane_) : panes_[0];
    QSize s = ref->size();
    if (!ref->isVisible() || s.isEmpty()) {
        // Not laid out yet: estimate one grid cell of this view.
        const int n = split_ ? 1 : 1 + int(results_.size());
        const int columns = n <= 2 ? n : (n <= 4 ? 2 : 3);
        const int rows = (n + columns - 1) / columns;
        s = QSize(std::max(1, width() / columns), std::max(1, height() / rows));
    }
    view_->fitTo(s - QSize(4, 4));
}

void CompareView::actualSize() { view_->setZoom(1.0); }

void CompareView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    if (view_->fitMode()) QTimer::singleShot(0, this, &CompareView::fitToWindow);
}

}  // namespace halftone
