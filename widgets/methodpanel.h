#pragma once
// \brief The method panel, built entirely from the registry: method, variant, device, threads, colour
// mode and one input per ParamSpec (with its range), so new methods appear with no GUI change.
#include <QMap>
#include <QMessageBox>
#include <QPointer>
#include <QWidget>
#include <memory>
#include <optional>

#include "core/job/registry.h"
#include "core/print/separation.h"

class QComboBox;
class QSpinBox;
class QFormLayout;
class QCheckBox;
class QLabel;
class QGroupBox;
class QSettings;

namespace halftone {

class PalettePanel;

/// \brief Chooses what to run; emits changed() whenever the choice or a parameter changes.
///
/// Switching methods: every parameter starts from the new method's default, except where the user set a
/// value (different from the default) for a parameter of the same meaning (ParamSpec::sameMeaning: same key,
/// label, kind, range, choices and presets); that value is kept. Parameters whose ParamSpec::visibleWhen does not hold
/// are hidden. The method's own "threads" parameter is not shown: the panel's one thread control fills it; nor is its
/// "dpi" (kDpiParam): the job's one DPI, the Adjust panel's, fills it. A list of numbers (ParamSpec::parts, the ink
/// angles) is one number field per part.
class MethodPanel : public QWidget {
    Q_OBJECT
public:
    explicit MethodPanel(Registry& registry, QWidget* parent = nullptr);

    /// \brief The selected registry entry (nullptr when the registry is empty).
    const MethodInfo* method() const;
    /// \brief Selects method/variant; false when the registry has no such entry or it cannot run here
    /// (a GPU-only variant without a usable GPU).
    bool setMethod(const QString& method, const QString& variant);
    /// \brief Current values of every parameter of the selected method (hidden ones at their values too).
    ParamValues params() const;
    /// \brief Sets one parameter's widget as the user would; false when the method has no such key or the value
    /// is out of range.
    bool setParam(const QString& key, const QVariant& value);
    /// \brief Chooses the image file `path` for a parameter that accepts files (Screen > From file...), as the CLI
    /// reads it; a file that cannot be read is refused with an error box and the previous choice stays.
    bool useFile(const QString& key, const QString& path);
    /// \brief The error box of the last refused file (null when none is open).
    QMessageBox* errorBox() const { return errorBox_; }
    std::optional<Device> device() const;  ///< unset = auto
    void setDevice(std::optional<Device> d);
    ColorMode colorMode() const;
    void setColorMode(ColorMode m);
    /// \brief The CMYK separation (grey component replacement and total ink limit): shown, and used, when the colour
    /// mode is CMYK and no palette is chosen.
    SeparationParams separation() const;
    void setSeparation(const SeparationParams& s);
    /// \brief Whether the separation controls are shown (colour mode CMYK, no palette).
    bool isSeparationShown() const;
    int threads() const;
    void setThreads(int n);
    /// \brief The palette chooser (enabled only for methods with a palette form).
    PalettePanel* palettePanel() const { return palette_; }
    /// \brief The palette a run halftones to (RunRequest::palette): unset for "No palette", for a method without a
    /// palette form, and while an auto palette is being made (see paletteWaiting()).
    std::optional<Palette> palette() const;
    /// \brief True while the chosen auto palette is not ready yet (a run then waits for it).
    bool paletteWaiting() const;
    /// \brief The image auto palettes are made from.
    void setImage(std::shared_ptr<const Image> image);
    /// \brief The input widget of a parameter (tests, tooltips); nullptr when absent.
    QWidget* paramWidget(const QString& key) const { return paramWidgets_.value(key); }
    QStringList paramKeys() const { return paramWidgets_.keys(); }
    /// \brief Whether the parameter's row is shown (it applies to the current values).
    bool isParamShown(const QString& key) const;
    QComboBox* methodCombo() const { return methodCombo_; }
    QComboBox* variantCombo() const { return variantCombo_; }
    QComboBox* deviceCombo() const { return deviceCombo_; }
    /// \brief The text under the variant: what the variant does (and, for exact variants, that they agree).
    QString descriptionText() const;
    /// \brief Re-reads the registry (methods added later, GPU availability).
    void refresh();

    /// \brief Stores method, variant, device, colour, threads, the palette choice and the values the user set.
    void saveSettings(QSettings& settings) const;
    /// \brief Restores what saveSettings stored; entries the registry no longer has are skipped.
    void restoreSettings(QSettings& settings);

signals:
    void changed();

private:
    struct UserValue {
        QVariant value;
        ParamSpec spec;  // the parameter it was set for: carried only to a parameter of the same meaning
        QString source;  // "method/variant" it was set in (to find the spec again after a restart)
    };
    void fillVariants(const QString& prefer = {});
    void rebuildParams();
    void updateDevices();
    void updateVisibility();
    void updateColourChoice();
    /// \brief Enables the parts of list parameters (the ink angles) that the colour mode's channels use.
    void updateUsedParts();
    QWidget* makeParamWidget(const ParamSpec& p, const QVariant& value);
    QVariant widgetValue(const ParamSpec& p) const;
    void userEdited(const ParamSpec& p);
    QString currentMethodId() const;
    Registry& registry_;
    QComboBox* methodCombo_;
    QComboBox* variantCombo_;
    QLabel* description_;
    QComboBox* deviceCombo_;
    QLabel* gpuReason_;
    QSpinBox* threads_;
    QComboBox* color_;
    QSpinBox* gcr_;
    QSpinBox* inkLimit_;
    QWidget* separationBox_;
    PalettePanel* palette_;
    QPointer<QMessageBox> errorBox_;
    QGroupBox* paramBox_;
    QFormLayout* paramForm_;
    QMap<QString, QWidget*> paramWidgets_;
    QMap<QString, QWidget*> rowFields_;    // the form row's field (the input or its container), by key
    QMap<QString, UserValue> userValues_;  // values the user set, by key
    bool building_ = false;
};

}  // namespace halftone
