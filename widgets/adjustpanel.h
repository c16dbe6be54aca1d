#pragma once
// \brief The Adjust panel: the prepare steps of a job (core/prepare/prepare.h) as the studio sets them: the target
// device (core/palette/target.h), size (pixels, scale or print size at a resolution), fit (inside, stretch, cover,
// contain) and gravity, rotation, background, filter, linear-light resize, pixel size, levels, brightness, contrast,
// gamma, saturation and sharpening, with the ranges of PrepareSettings::validate.
#include <QWidget>

#include "core/prepare/prepare.h"
#include "core/status.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSettings;
class QSpinBox;

namespace halftone {

/// \brief Edits PrepareSettings plus a print size and its resolution; emits changed() on every edit.
class AdjustPanel : public QWidget {
    Q_OBJECT
public:
    explicit AdjustPanel(QWidget* parent = nullptr);

    /// \brief The chosen target (a builtinTargets() name), empty for none: the job brings its frame, resolution and
    /// colours (core/job/job.h applyTarget).
    std::string target() const;
    /// \brief Chooses a built-in target (empty: none); an error for a name that is none (target files: the CLI).
    Status setTarget(const std::string& name);
    QComboBox* targetCombo() const { return target_; }
    /// \brief The settings as entered (a print size is not applied: see effective()).
    PrepareSettings settings() const;
    QString printSize() const;
    double dpi() const;
    /// \brief The resolution a run uses while the DPI is unset (the method's own printer resolution, jobDpi), shown as
    /// the field's "unset" text; 0: none (the field then says "unset").
    void setUnsetDpi(double dpi);
    /// \brief Sets every control at once and emits changed() once.
    void setSettings(const PrepareSettings& s, const QString& printSize = {}, double dpi = 0);
    /// \brief The settings the run uses: the print size turned into pixels at the resolution, every range checked.
    Status effective(PrepareSettings& out) const;
    /// \brief True when the settings change nothing.
    bool isIdentity() const;
    /// \brief Back to the defaults (nothing prepared).
    void reset();

    /// \brief Stores every setting (group "adjust").
    void saveSettings(QSettings& settings) const;
    /// \brief Restores what saveSettings stored; values out of range fall back to the defaults.
    void restoreSettings(QSettings& settings);

    QSpinBox* widthSpin() const { return width_; }
    QSpinBox* heightSpin() const { return height_; }
    QDoubleSpinBox* scaleSpin() const { return scale_; }
    QLineEdit* printSizeEdit() const { return printSize_; }
    QDoubleSpinBox* dpiSpin() const { return dpi_; }
    QComboBox* fitCombo() const { return fit_; }
    QComboBox* gravityCombo() const { return gravity_; }
    QComboBox* rotateCombo() const { return rotate_; }
    QLineEdit* backgroundEdit() const { return background_; }
    QComboBox* filterCombo() const { return filter_; }
    QCheckBox* linearCheck() const { return linear_; }
    QSpinBox* pixelSizeSpin() const { return pixelSize_; }
    QSpinBox* blackPointSpin() const { return black_; }
    QSpinBox* whitePointSpin() const { return white_; }
    QDoubleSpinBox* brightnessSpin() const { return brightness_; }
    QDoubleSpinBox* contrastSpin() const { return contrast_; }
    QDoubleSpinBox* gammaSpin() const { return gamma_; }
    QDoubleSpinBox* saturationSpin() const { return saturation_; }
    QDoubleSpinBox* sharpenSpin() const { return sharpen_; }
    QDoubleSpinBox* radiusSpin() const { return radius_; }
    QPushButton* resetButton() const { return reset_; }
    /// \brief The problem shown under the controls (empty when the settings are valid).
    QString problemText() const;

signals:
    void changed();

private:
    void edited();
    void updateProblem();

    QComboBox* target_;
    QSpinBox* width_;
    QSpinBox* height_;
    QDoubleSpinBox* scale_;
    QLineEdit* printSize_;
    QDoubleSpinBox* dpi_;
    QComboBox* fit_;
    QComboBox* gravity_;
    QComboBox* rotate_;
    QLineEdit* background_;
    QComboBox* filter_;
    QCheckBox* linear_;
    QSpinBox* pixelSize_;
    QSpinBox* black_;
    QSpinBox* white_;
    QDoubleSpinBox* brightness_;
    QDoubleSpinBox* contrast_;
    QDoubleSpinBox* gamma_;
    QDoubleSpinBox* saturation_;
    QDoubleSpinBox* sharpen_;
    QDoubleSpinBox* radius_;
    QPushButton* reset_;
    QLabel* problem_;
    bool setting_ = false;  // setSettings is filling the controls: one changed() at the end
};

}  // namespace halftone
