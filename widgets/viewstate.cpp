#include "widgets/viewstate.h"

#include <QtMath>
#include <algorithm>
#include <array>

namespace halftone {

namespace {
constexpr double kMinZoom = 1.0 / 64, kMaxZoom = 64.0;
constexpr std::array<double, 22> kLadder = {1.0 / 64, 1.0 / 32, 1.0 / 16, 1.0 / 12, 1.0 / 8, 1.0 / 6, 1.0 / 4, 1.0 / 3,
                                            1.0 / 2,  2.0 / 3,  1,        2,        3,       4,       6,       8,
                                            12,       16,       24,       32,       48,      64};
}  // namespace

void ViewState::setImageSize(QSize size) {
    if (size == imageSize_) return;
    imageSize_ = size;
    center_ = QPointF(size.width() / 2.0, size.height() / 2.0);
    fit_ = true;
    emit changed();
}

void ViewState::zoomAt(double zoom, QPointF anchorImage, QPointF offset) {
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    // Keep anchorImage under the same screen point: center' = anchor - offset / zoom'.
    center_ = anchorImage - offset / zoom;
    zoom_ = zoom;
    fit_ = false;
    emit changed();
}

void ViewState::setZoom(double zoom) {
    zoom_ = std::clamp(zoom, kMinZoom, kMaxZoom);
    fit_ = false;
    emit changed();
}

void ViewState::setCenter(QPointF c) {
    center_ = c;
    emit changed();
}

void ViewState::panBy(QPointF d) {
    center_ -= d / zoom_;
    center_.setX(std::clamp(center_.x(), 0.0, double(imageSize_.width())));
    center_.setY(std::clamp(center_.y(), 0.0, double(imageSize_.height())));
    emit changed();
}

void ViewState::fitTo(QSize viewport) {
    if (imageSize_.isEmpty() || viewport.isEmpty()) return;
    const double z =
        std::min(double(viewport.width()) / imageSize_.width(), double(viewport.height()) / imageSize_.height());
    // Prefer an integer zoom when the image fits at >= 1x, so fit stays pixel-exact.
    zoom_ = std::clamp(z >= 1 ? std::floor(z) : z, kMinZoom, kMaxZoom);
    center_ = QPointF(imageSize_.width() / 2.0, imageSize_.height() / 2.0);
    fit_ = true;
    emit changed();
}

double ViewState::stepZoom(double zoom, int steps) {
    if (steps > 0) {
        for (double z : kLadder)
            if (z > zoom * 1.0001 && --steps == 0) return z;
        return kLadder.back();
    }
    if (steps < 0) {
        for (auto it = kLadder.rbegin(); it != kLadder.rend(); ++it)
            if (*it < zoom * 0.9999 && ++steps == 0) return *it;
        return kLadder.front();
    }
    return zoom;
}

}  // namespace halftone
