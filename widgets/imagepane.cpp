#include "widgets/imagepane.h"

#include <QAction>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <cmath>

namespace halftone {

ImagePane::ImagePane(ViewState* view, QWidget* parent) : QWidget(parent), view_(view) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(80, 60);
    connect(view_, &ViewState::changed, this, qOverload<>(&QWidget::update));
    // The pane's keys are actions (Help > Keyboard shortcuts lists them); keyPressEvent handles the same
    // keys when they reach the pane as plain key presses.
    addKeyAction(tr("Zoom in"), {QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal)},
                 [this] { view_->setZoom(ViewState::stepZoom(view_->zoom(), 1)); });
    addKeyAction(tr("Zoom out"), {QKeySequence(Qt::Key_Minus)},
                 [this] { view_->setZoom(ViewState::stepZoom(view_->zoom(), -1)); });
    addKeyAction(tr("Actual pixels (1:1)"), {QKeySequence(Qt::Key_0), QKeySequence(Qt::Key_1)},
                 [this] { view_->setZoom(1.0); });
    addKeyAction(tr("Pan left"), {QKeySequence(Qt::Key_Left)}, [this] { view_->panBy(QPointF(64, 0)); });
    addKeyAction(tr("Pan right"), {QKeySequence(Qt::Key_Right)}, [this] { view_->panBy(QPointF(-64, 0)); });
    addKeyAction(tr("Pan up"), {QKeySequence(Qt::Key_Up)}, [this] { view_->panBy(QPointF(0, 64)); });
    addKeyAction(tr("Pan down"), {QKeySequence(Qt::Key_Down)}, [this] { view_->panBy(QPointF(0, -64)); });
}

void ImagePane::addKeyAction(const QString& text, const QList<QKeySequence>& keys, std::function<void()> fn) {
    auto* a = new QAction(text, this);
    a->setShortcuts(keys);
    a->setShortcutContext(Qt::WidgetShortcut);
    connect(a, &QAction::triggered, this, [fn] { fn(); });
    addAction(a);
}

void ImagePane::setAccent(bool on) {
    accent_ = on;
    update();
}

void ImagePane::setImage(const QImage& image, const QVector<QImage>& levels) {
    image_ = image;
    levels_ = levels;
    update();
}
void ImagePane::setLabel(const QString& label) {
    label_ = label;
    update();
}
void ImagePane::setSplitImage(const QImage& other, const QString& otherLabel, const QVector<QImage>& levels) {
    splitImage_ = other;
    splitLevels_ = levels;
    splitLabel_ = otherLabel;
    update();
}
void ImagePane::setSplitFraction(double f) {
    split_ = std::clamp(f, 0.0, 1.0);
    update();
}
void ImagePane::setWavefront(qint64 rowsDone, const QVector<int>& frontier) {
    rowsDone_ = rowsDone;
    frontier_ = frontier;
    update();
}
void ImagePane::clearWavefront() {
    rowsDone_ = -1;
    frontier_.clear();
    update();
}

QPointF ImagePane::imageOrigin() const {
    const double z = view_->zoom();
    // Rounded to whole screen pixels so that integer zooms put every image pixel on a z x z block.
    return QPointF(std::round(width() / 2.0 - view_->center().x() * z),
                   std::round(height() / 2.0 - view_->center().y() * z));
}

QPointF ImagePane::mapToImage(QPointF w) const { return (w - imageOrigin()) / view_->zoom(); }

void ImagePane::drawImagePart(QPainter& p, const QImage& img, const QVector<QImage>& levels, const QRect& clip) {
    if (img.isNull()) return;
    const double z = view_->zoom();
    const QPointF o = imageOrigin();
    if (z < 1.0) {
        // Zoomed out: average pixels instead of skipping them. The first reduction k (2^k smaller) that is
        // no larger than the view is drawn at a scale in [1, 2) with bilinear filtering: every screen pixel
        // then shows a mean of image pixels. Nearest neighbour (or bilinear from a larger level) would show
        // moire, which is not what the halftone looks like.
        int k = 0;
        while (k < levels.size() && z * double(1 << k) < 1.0) ++k;
        const QImage& src = k == 0 ? img : levels[k - 1];
        const double f = double(1 << k);  // image pixels per pixel of src
        const QRectF target(o.x(), o.y(), img.width() * z, img.height() * z);
        const QRectF visible = target.intersected(QRectF(clip));
        if (visible.isEmpty()) return;
        const double s = z * f;  // screen pixels per src pixel
        const QRectF srcRect((visible.x() - o.x()) / s, (visible.y() - o.y()) / s, visible.width() / s,
                             visible.height() / s);
        p.save();
        p.setClipRect(clip);
        p.setRenderHint(QPainter::SmoothPixmapTransform, true);
        p.drawImage(visible, src, srcRect);
        p.restore();
        return;
    }
    const double x0 = std::max(0.0, std::floor((clip.left() - o.x()) / z));
    const double y0 = std::max(0.0, std::floor((clip.top() - o.y()) / z));
    const double x1 = std::min(double(img.width()), std::ceil((clip.right() + 1 - o.x()) / z));
    const double y1 = std::min(double(img.height()), std::ceil((clip.bottom() + 1 - o.y()) / z));
    if (x1 <= x0 || y1 <= y0) return;
    const QRectF src(x0, y0, x1 - x0, y1 - y0);
    const QRectF dst(o.x() + x0 * z, o.y() + y0 * z, (x1 - x0) * z, (y1 - y0) * z);
    p.save();
    p.setClipRect(clip);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(dst, img, src);
    p.restore();
}

void ImagePane::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(48, 48, 52));
    if (image_.isNull()) {
        p.setPen(Qt::lightGray);
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   label_.isEmpty() ? tr("no image") : label_);
        return;
    }
    const bool split = !splitImage_.isNull();
    const int divider = int(std::round(split_ * width()));
    if (split) {
        drawImagePart(p, image_, levels_, QRect(0, 0, divider, height()));
        drawImagePart(p, splitImage_, splitLevels_, QRect(divider, 0, width() - divider, height()));
    } else {
        drawImagePart(p, image_, levels_, rect());
    }

    if (rowsDone_ >= 0) {
        // Live wavefront: finished pixels tinted, the frontier edge drawn bright.
        const double z = view_->zoom();
        const QPointF o = imageOrigin();
        const QColor done(40, 160, 255, 70);
        const QRectF doneRect(o.x(), o.y(), image_.width() * z, double(rowsDone_) * z);
        p.fillRect(doneRect, done);
        p.setPen(QPen(QColor(255, 200, 0), 2));
        for (int r = 0; r < frontier_.size(); ++r) {
            const double y = o.y() + double(rowsDone_ + r) * z;
            const double w = frontier_[r] * z;
            p.fillRect(QRectF(o.x(), y, w, z), done);
            p.drawLine(QPointF(o.x() + w, y), QPointF(o.x() + w, y + std::max(1.0, z)));
        }
        if (frontier_.isEmpty())
            p.drawLine(QPointF(o.x(), o.y() + rowsDone_ * z),
                       QPointF(o.x() + image_.width() * z, o.y() + rowsDone_ * z));
    }

    auto drawLabel = [&](const QString& text, int x, bool right) {
        if (text.isEmpty()) return;
        // Readable over any halftone at any zoom: an opaque dark box with a light edge, white text.
        const QFontMetrics fm(font());
        const QRect br =
            fm.boundingRect(QRect(0, 0, std::max(60, width() / (split ? 2 : 1) - 16), 400), Qt::TextWordWrap, text);
        QRect box(right ? x - br.width() - 10 : x, 4, br.width() + 8, br.height() + 4);
        p.fillRect(box, QColor(20, 20, 24, 228));
        p.setPen(QPen(accent_ ? QColor(255, 170, 0) : QColor(255, 255, 255, 90), 1));
        p.drawRect(box.adjusted(0, 0, -1, -1));
        p.setPen(Qt::white);
        p.drawText(box.adjusted(4, 2, -4, -2), Qt::TextWordWrap, text);
    };
    drawLabel(label_, 4, false);
    if (split) {
        drawLabel(splitLabel_, width() - 4, true);
        p.setPen(QPen(QColor(255, 200, 0), 2));
        p.drawLine(divider, 0, divider, height());
    }
    if (accent_) {
        p.setPen(QPen(QColor(255, 170, 0), 3));
        p.drawRect(rect().adjusted(1, 1, -2, -2));
    }
    if (hasFocus()) {
        p.setPen(QPen(palette().highlight().color(), 1));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

void ImagePane::wheelEvent(QWheelEvent* e) {
    const int steps = e->angleDelta().y() / 120;
    if (steps == 0) return;
    const QPointF pos = e->position();
    view_->zoomAt(ViewState::stepZoom(view_->zoom(), steps), mapToImage(pos),
                  pos - QPointF(width() / 2.0, height() / 2.0));
    e->accept();
}

void ImagePane::mousePressEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton) return;
    const bool nearDivider = !splitImage_.isNull() && std::abs(e->position().x() - split_ * width()) < 8;
    draggingSplit_ = nearDivider;
    dragging_ = !nearDivider;
    lastPos_ = e->position();
    setCursor(draggingSplit_ ? Qt::SplitHCursor : Qt::ClosedHandCursor);
}
void ImagePane::mouseMoveEvent(QMouseEvent* e) {
    if (draggingSplit_) {
        setSplitFraction(e->position().x() / std::max(1, width()));
    } else if (dragging_) {
        view_->panBy(e->position() - lastPos_);
    }
    lastPos_ = e->position();
}
void ImagePane::mouseReleaseEvent(QMouseEvent*) {
    dragging_ = draggingSplit_ = false;
    unsetCursor();
}

void ImagePane::keyPressEvent(QKeyEvent* e) {
    switch (e->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            view_->setZoom(ViewState::stepZoom(view_->zoom(), 1));
            break;
        case Qt::Key_Minus:
            view_->setZoom(ViewState::stepZoom(view_->zoom(), -1));
            break;
        case Qt::Key_0:
        case Qt::Key_1:
            view_->setZoom(1.0);
            break;
        case Qt::Key_F:
            emit fitRequested();
            break;
        case Qt::Key_Left:
            view_->panBy(QPointF(64, 0));
            break;
        case Qt::Key_Right:
            view_->panBy(QPointF(-64, 0));
            break;
        case Qt::Key_Up:
            view_->panBy(QPointF(0, 64));
            break;
        case Qt::Key_Down:
            view_->panBy(QPointF(0, -64));
            break;
        default:
            QWidget::keyPressEvent(e);
            return;
    }
    e->accept();
}

}  // namespace halftone
