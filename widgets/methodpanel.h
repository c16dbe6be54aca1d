#pragma once
// \brief The method panel, built entirely from the registry: method, variant, device, threads, colour
// mode and one input per ParamSpec (with its range), so new methods appear with no GUI change.
#include <QMap>
#include <QWidget>
#include <optional>

#include "core/registry.h"

class QComboBox;
class QSpinBox;
class QFormLayout;
class QCheckBox;
class QLabel;
class QGroupBox;

namespace halftone {

/// \brief Chooses what to run; emits changed() whenever the choice or a parameter changes.
class MethodPanel : public QWidget {
    Q_OBJECT
public:
    explicit MethodPanel(Registry& registry, QWidget* parent = nullptr);

    /// \brief The selected registry entry (nullptr when the registry is empty).
    const MethodInfo* method() const;
    /// \brief Selects method/variant; false when the registry has no such entry.
    bool setMethod(const QString& method, const QString& variant);
    /// \brief Current values of every parameter of the selected method.
    ParamValues params() const;
    /// \brief Sets one parameter's widget; false when the method has no such key or the value is out of range.
    bool setParam(const QString& key, const QVariant& value);
    std::optional<Device> device() const;  ///< unset = auto
    void setDevice(std::optional<Device> d);
    ColorMode colorMode() const;
    void setColorMode(ColorMode m);
    int threads() const;
    /// \brief The input widget of a parameter (tests, tooltips); nullptr when absent.
    QWidget* paramWidget(const QString& key) const { return paramWidgets_.value(key); }
    QStringList paramKeys() const { return paramWidgets_.keys(); }
    QComboBox* methodCombo() const { return methodCombo_; }
    QComboBox* variantCombo() const { return variantCombo_; }
    QComboBox* deviceCombo() const { return deviceCombo_; }
    /// \brief Re-reads the registry (methods added later, GPU availability).
    void refresh();

signals:
    void changed();

private:
    void fillVariants();
    void rebuildParams();
    void updateDevices();
    Registry& registry_;
    QComboBox* methodCombo_;
    QComboBox* variantCombo_;
    QLabel* description_;
    QComboBox* deviceCombo_;
    QLabel* gpuReason_;
    QSpinBox* threads_;
    QComboBox* color_;
    QGroupBox* paramBox_;
    QFormLayout* paramForm_;
    QMap<QString, QWidget*> paramWidgets_;
    QMap<QString, QVariant> remembered_;  // values kept across method switches, by key
    bool building_ = false;
};

}  // namespace halftone
