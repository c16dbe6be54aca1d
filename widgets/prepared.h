#pragma once
// \brief The prepared image of the studio's Adjust settings (core/prepare/prepare.h) with its display copies: made once
// per image and settings in the worker, cached by JobRunner and shown in the original pane.
#include <QImage>
#include <QString>
#include <QVector>
#include <memory>

#include "core/prepare/prepare.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief An image after the prepare steps.
struct PreparedImage {
    QString key;                         ///< preparedKey(): which image and which settings
    PrepareSettings settings;            ///< the settings it was made with (print size already applied)
    std::shared_ptr<const Image> image;  ///< the image the method runs on (1 / pixelSize of the resized size)
    QImage display;                      ///< as results are shown: enlarged by pixelSize
    QVector<QImage> levels;              ///< reductions() of `display`
};
using PreparedPtr = std::shared_ptr<const PreparedImage>;

/// \brief Every setting of `s` in one canonical line ("w=800 h=0 ... radius=1"): equal settings, equal text.
QString prepareSettingsKey(const PrepareSettings& s);

/// \brief The cache key of image `imageId` prepared with `s`.
QString preparedKey(quint64 imageId, const PrepareSettings& s);

/// \brief What the settings do, for labels: "resized to 800 x 533, pixel size 4, gamma 1.2"; empty for none.
QString describePrepare(const PrepareSettings& s, int preparedWidth, int preparedHeight);

/// \brief The inverse of enlargePixels for measuring: the top-left pixel of each n x n block of every colour plane.
Image samplePixels(const Image& in, int n);

/// \brief Runs prepareImage on `in` and makes the display copies (progress over the steps, cancel between rows).
Status makePrepared(const Image& in, quint64 imageId, const PrepareSettings& s, const RunControl& control,
                    PreparedPtr& out);

}  // namespace halftone
