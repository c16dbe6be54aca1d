#pragma once
// \brief One pane of the compare view: draws the visible part of an image at the shared zoom, nearest neighbour.
#include <QImage>
#include <QPointer>
#include <QVector>
#include <QWidget>
#include <functional>

#include "widgets/viewstate.h"

namespace halftone {

/// \brief Shows an image through a shared ViewState; integer zooms are pixel-exact (never smoothed).
/// In split mode it shows `image` left of a draggable divider and `splitImage` right of it.
class ImagePane : public QWidget {
    Q_OBJECT
public:
    explicit ImagePane(ViewState* view, QWidget* parent = nullptr);

    /// \brief The image and its reductions (see reductions()); zooms below 1 draw from the nearest larger
    /// reduction with bilinear filtering, zooms of 1 and above draw image pixels, nearest neighbour.
    void setImage(const QImage& image, const QVector<QImage>& levels = {});
    const QImage& image() const { return image_; }
    void setLabel(const QString& label);
    QString label() const { return label_; }
    /// \brief Marks the pane as the current result (an accent frame) rather than a pin or the original.
    void setAccent(bool on);
    bool accent() const { return accent_; }
    /// \brief Split mode: `other` is drawn right of the divider (null image = off).
    void setSplitImage(const QImage& other, const QString& otherLabel = {}, const QVector<QImage>& levels = {});
    double splitFraction() const { return split_; }
    void setSplitFraction(double f);
    /// \brief Live wavefront overlay: rows [0, rowsDone) done, row rowsDone + r has frontier[r] columns done.
    void setWavefront(qint64 rowsDone, const QVector<int>& frontier);
    void clearWavefront();
    bool hasWavefront() const { return rowsDone_ >= 0; }

    /// \brief Screen position (widget coordinates) of the top-left corner of image pixel (0, 0).
    QPointF imageOrigin() const;
    /// \brief Image coordinates under a widget point.
    QPointF mapToImage(QPointF widgetPoint) const;

    QSize sizeHint() const override { return {320, 240}; }

signals:
    void fitRequested();

protected:
    void paintEvent(QPaintEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;

private:
    void addKeyAction(const QString& text, const QList<QKeySequence>& keys, std::function<void()> fn);
    void drawImagePart(QPainter& p, const QImage& img, const QVector<QImage>& levels, const QRect& clip);
    QPointer<ViewState> view_;
    QImage image_, splitImage_;
    QVector<QImage> levels_, splitLevels_;
    QString label_, splitLabel_;
    double split_ = 0.5;
    bool accent_ = false;
    bool dragging_ = false, draggingSplit_ = false;
    QPointF lastPos_;
    qint64 rowsDone_ = -1;
    QVector<int> frontier_;
};

}  // namespace halftone
