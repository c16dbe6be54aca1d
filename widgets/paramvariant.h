#pragma once
// \brief Parameter values between the registry's types (ParamValue) and Qt's QVariant: the studio's one adapter.
#include <QString>
#include <QVariant>

#include "core/job/registry.h"

namespace halftone {

/// \brief A registry value as a QVariant (qlonglong, double, bool or QString).
QVariant toVariant(const ParamValue& v);

/// \brief A QVariant as a value of the type of `spec`'s default (ParamSpec::defaultValue).
ParamValue fromVariant(const ParamSpec& spec, const QVariant& v);

/// \brief A value as a label shows it: bools "on"/"off", numbers to 6 significant digits (an integer of a Real
/// parameter as a real), text as is.
QString displayText(const ParamSpec& spec, const ParamValue& v);

}  // namespace halftone
