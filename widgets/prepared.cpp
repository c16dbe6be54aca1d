#include "widgets/prepared.h"

#include <new>

#include "widgets/imageconvert.h"

namespace halftone {

QString prepareSettingsKey(const PrepareSettings& s) {
    return QStringLiteral("w=%1 h=%2 scale=%3 fit=%4 filter=%5 linear=%6 px=%7 black=%8 white=%9")
               .arg(s.width)
               .arg(s.height)
               .arg(s.scale, 0, 'g', 17)
               .arg(QString::fromLatin1(toString(s.fit)) + QLatin1Char('/') + QString::fromLatin1(toString(s.gravity)) +
                    QStringLiteral("/r%1/bg%2")
                        .arg(s.rotate)
                        .arg(s.background ? QString::fromStdString(colorText(*s.background)) : QStringLiteral("-")))
               .arg(QString::fromLatin1(toString(s.filter)))
               .arg(s.linearResize ? 1 : 0)
               .arg(s.pixelSize)
               .arg(s.blackPoint)
               .arg(s.whitePoint) +
           QStringLiteral(" bright=%1 contrast=%2 gamma=%3 sat=%4 sharpen=%5 radius=%6")
               .arg(s.brightness, 0, 'g', 17)
               .arg(s.contrast, 0, 'g', 17)
               .arg(s.gamma, 0, 'g', 17)
               .arg(s.saturation, 0, 'g', 17)
               .arg(s.sharpenAmount, 0, 'g', 17)
               .arg(s.sharpenRadius, 0, 'g', 17);
}

QString preparedKey(quint64 imageId, const PrepareSettings& s) {
    return QStringLiteral("%1|%2").arg(imageId).arg(prepareSettingsKey(s));
}

QString describePrepare(const PrepareSettings& s, int w, int h) {
    if (s.isIdentity()) return {};
    const PrepareSettings none;
    QStringList parts;
    if (s.rotate != 0) parts << QStringLiteral("turned %1\u00b0").arg(s.rotate);
    if (s.background) parts << QStringLiteral("on %1").arg(QString::fromStdString(colorText(*s.background)));
    if (s.width || s.height || s.scale)
        parts << QStringLiteral("resized to %1 x %2").arg(w * s.pixelSize).arg(h * s.pixelSize) +
                     (s.width && s.height && (s.fit == ResizeFit::Cover || s.fit == ResizeFit::Contain)
                          ? QStringLiteral(" (%1, %2)")
                                .arg(QString::fromLatin1(toString(s.fit)), QString::fromLatin1(toString(s.gravity)))
                          : QString());
    if (s.pixelSize > 1) parts << QStringLiteral("pixel size %1 (%2 x %3 halftoned)").arg(s.pixelSize).arg(w).arg(h);
    if (s.blackPoint != none.blackPoint || s.whitePoint != none.whitePoint)
        parts << QStringLiteral("levels %1..%2").arg(s.blackPoint).arg(s.whitePoint);
    if (s.brightness != 0) parts << QStringLiteral("brightness %1").arg(s.brightness, 0, 'g', 4);
    if (s.contrast != 0) parts << QStringLiteral("contrast %1").arg(s.contrast, 0, 'g', 4);
    if (s.gamma != 1) parts << QStringLiteral("gamma %1").arg(s.gamma, 0, 'g', 4);
    if (s.saturation != 100) parts << QStringLiteral("saturation %1%").arg(s.saturation, 0, 'g', 4);
    if (s.sharpenAmount != 0)
        parts << QStringLiteral("sharpen %1% r %2").arg(s.sharpenAmount, 0, 'g', 4).arg(s.sharpenRadius, 0, 'g', 3);
    return parts.join(QStringLiteral(", "));
}

Image samplePixels(const Image& in, int n) {
    if (n <= 1) return in;
    Image out;
    out.space = in.space;
    for (const Plane8& p : in.channels) {
        Plane8 o(p.width / n, p.height / n);
        for (int y = 0; y < o.height; ++y) {
            const uint8_t* src = p.row(y * n);
            uint8_t* dst = o.row(y);
            for (int x = 0; x < o.width; ++x) dst[x] = src[x * n];
        }
        out.channels.push_back(std::move(o));
    }
    return out;
}

Status makePrepared(const Image& in, quint64 imageId, const PrepareSettings& s, const RunControl& control,
                    PreparedPtr& out) {
    auto p = std::make_shared<PreparedImage>();
    p->key = preparedKey(imageId, s);
    p->settings = s;
    Image prepared;
    if (Status st = prepareImage(in, s, prepared, control.scaled(0.0, 0.9, "prepare")); !st) return st;
    if (control.cancelled()) return Status::cancelled();
    auto image = std::make_shared<const Image>(std::move(prepared));
    p->image = image;
    p->display = s.pixelSize > 1 ? toDisplayImage(std::make_shared<const Image>(enlargePixels(*image, s.pixelSize)))
                                 : toDisplayImage(image);
    p->levels = reductions(p->display);
    out = std::move(p);
    return Status::ok();
}

}  // namespace halftone
