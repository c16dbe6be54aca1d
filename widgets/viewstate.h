#pragma once
// \brief The zoom and pan shared by every pane of the compare view, so they stay in sync.
#include <QObject>
#include <QPointF>
#include <QSize>

namespace halftone {

/// \brief Zoom factor and the image point shown at the centre of each pane; panes listen to changed().
class ViewState : public QObject {
    Q_OBJECT
public:
    explicit ViewState(QObject* parent = nullptr) : QObject(parent) {}

    double zoom() const { return zoom_; }
    QPointF center() const { return center_; }
    QSize imageSize() const { return imageSize_; }
    bool fitMode() const { return fit_; }

    /// \brief Sets the image size; recentres and keeps fit mode when the size changes.
    void setImageSize(QSize size);
    /// \brief Sets zoom (clamped to [1/64, 64]) keeping the image point `anchor` at the same screen place.
    void zoomAt(double zoom, QPointF anchorImage, QPointF anchorOffsetFromCenter);
    void setZoom(double zoom);
    void setCenter(QPointF center);
    /// \brief Pans by a screen-space delta in pixels.
    void panBy(QPointF screenDelta);
    /// \brief Zoom to fit the image into a viewport of this size (and remember fit mode until the user zooms).
    void fitTo(QSize viewport);
    /// \brief Next larger / smaller step of the zoom ladder (1/16 .. 64, integers above 1).
    static double stepZoom(double zoom, int steps);

signals:
    void changed();

private:
    double zoom_ = 1.0;
    QPointF center_;
    QSize imageSize_;
    bool fit_ = true;
};

}  // namespace halftone
