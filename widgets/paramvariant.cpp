#include "widgets/paramvariant.h"

#include <type_traits>
#include <variant>

namespace halftone {

QVariant toVariant(const ParamValue& v) {
    return std::visit(
        [](const auto& x) -> QVariant {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
                return QString::fromStdString(x);
            else if constexpr (std::is_same_v<T, int64_t>)
                return qlonglong(x);
            else
                return x;
        },
        v);
}

ParamValue fromVariant(const ParamSpec& spec, const QVariant& v) {
    ParamValue out = spec.defaultValue();
    std::visit(
        [&](auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
                x = v.toString().toStdString();
            else if constexpr (std::is_same_v<T, int64_t>)
                x = int64_t(v.toLongLong());
            else
                x = v.value<T>();
        },
        out);
    return out;
}

QString displayText(const ParamSpec& spec, const ParamValue& v) {
    return std::visit(
        [&](const auto& x) -> QString {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>)
                return x ? QStringLiteral("on") : QStringLiteral("off");
            else if constexpr (std::is_same_v<T, std::string>)
                return QString::fromStdString(x);
            else if constexpr (std::is_same_v<T, double>)
                return QString::number(x, 'g', 6);
            else
                return spec.kind == ParamSpec::Kind::Real ? QString::number(double(x), 'g', 6)
                                                          : QString::number(qint64(x));
        },
        v);
}

}  // namespace halftone
