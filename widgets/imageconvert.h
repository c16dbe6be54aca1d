#pragma once
// \brief Conversions between core Images and QImages for display, clipboard and paste.
#include <QImage>
#include <QVector>
#include <memory>

#include "core/image.h"

namespace halftone {

/// \brief A display QImage of `image` (gray planes shared without a copy while `keepAlive` lives;
/// RGB interleaved; CMYK shown as RGB). Meant to run off the UI thread for large images.
QImage toDisplayImage(const std::shared_ptr<const Image>& keepAlive);

/// \brief A deep-copied display QImage (safe after `image` is gone).
QImage toDisplayImageCopy(const Image& image);

/// \brief 2x box-filtered reductions of a display image (level k is 2^(k+1) times smaller), down to about
/// 64 pixels, so zoomed-out views average pixels instead of skipping them. Meant to run off the UI thread.
QVector<QImage> reductions(const QImage& base);

/// \brief Converts a QImage (from paste or an embedded sample) to planes: gray when the QImage is gray, else RGB (+
/// alpha).
Image fromQImage(const QImage& image);

}  // namespace halftone
