#pragma once
// \brief The palette chooser of the method panel: no palette (the per-channel colour modes) or a palette to halftone
// to (built in, read from a file, or made from the image), shown as swatches that can be edited, added, removed and
// saved.
#include <QGroupBox>
#include <QMap>
#include <QMessageBox>
#include <QPointer>
#include <QTimer>
#include <memory>
#include <optional>
#include <vector>

#include "core/palette/palette.h"

class QComboBox;
class QSpinBox;
class QLabel;
class QToolButton;

class QSettings;
class QWidget;

namespace halftone {

/// \brief A palette drawn as rows of swatches (wrapped to the width); a click on a swatch emits clicked(), a right
/// click offers to change or remove it. Each swatch's tooltip gives its index and #RRGGBB. From the keyboard: the
/// arrow keys move the selection, Enter or Space changes the selected colour, Delete removes it.
class SwatchStrip : public QWidget {
    Q_OBJECT
public:
    explicit SwatchStrip(QWidget* parent = nullptr);
    void setColors(const std::vector<Rgb8>& colors);
    int count() const { return int(colors_.size()); }
    /// \brief The swatch last clicked (-1: none); "Remove" removes it.
    int selected() const { return selected_; }
    void setSelected(int index);
    /// \brief The swatch under a point in widget coordinates (-1: none).
    int swatchAt(QPoint p) const;
    /// \brief Where swatch `index` is drawn, in widget coordinates.
    QRect swatchRect(int index) const;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void clicked(int index);
    void removeRequested(int index);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void contextMenuEvent(QContextMenuEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    bool event(QEvent*) override;

private:
    int columns(int width) const;
    std::vector<Rgb8> colors_;
    int selected_ = -1;
};

/// \brief Chooses the palette a method halftones to, or none (the colour mode then applies). Errors (a palette file
/// that cannot be read or written) show in a dialog that names the file and line; the previous choice stays.
/// "Auto" makes the palette from the current image off the UI thread. Editing a swatch turns the choice into an
/// "Edited" palette, so the built-in or file palette it came from stays as it was.
class PalettePanel : public QGroupBox {
    Q_OBJECT
public:
    enum class Source { None, Builtin, File, Auto, Edited };
    explicit PalettePanel(QWidget* parent = nullptr);

    /// \brief The palette to halftone to: unset for "No palette", while unavailable (the method has no palette form),
    /// and while the auto palette is not made yet (see waiting()).
    std::optional<Palette> palette() const;
    /// \brief True when a palette is chosen and applies (available, not "No palette"), ready or not.
    bool wantsPalette() const { return available_ && source_ != Source::None; }
    /// \brief True while a chosen auto palette is not ready: being computed, or no image to make it from.
    bool waiting() const;
    Source source() const { return source_; }
    /// \brief The colours on show (empty for "No palette" and for an auto palette not made yet).
    const Palette& current() const { return current_; }

    /// \brief Enables the chooser, or greys it with `reason` (label and tooltip) when the method has no palette form.
    void setAvailable(bool available, const QString& reason = {});
    bool isAvailable() const { return available_; }

    /// \brief The choice as --palette takes it: a built-in name, a file path or "auto:N"; empty for "No palette", while
    /// unavailable, and for an edited palette (which has no name outside this window).
    QString spec() const;
    /// \brief Selects what spec() returns (a built-in name, "auto:N" or a palette file). A file that cannot be read
    /// leaves the choice as it was and returns the problem (no dialog: the caller reports it).
    Status selectSpec(const QString& spec);

    bool selectNone();
    /// \brief Selects a built-in palette by its name (core/palette/palette.h); false when there is none of that name.
    bool selectBuiltin(const QString& name);
    /// \brief Reads a palette file and selects it; on an error shows the error dialog, keeps the previous choice and
    /// returns false.
    bool loadFile(const QString& path);
    /// \brief Selects "Auto" with n colours (2..256), made from the image set by setImage().
    void selectAuto(int n);
    /// \brief The image an auto palette is made from (an auto palette is made again for a new image).
    void setImage(std::shared_ptr<const Image> image);

    /// \brief Edits swatch `index` to `color` (becoming the Edited palette); false when out of range.
    bool setColor(int index, const QColor& color);
    /// \brief Appends a colour (at most 256); false when full or no palette is chosen.
    bool addColor(const QColor& color);
    /// \brief Removes swatch `index` (a palette keeps at least 2 colours); false when it cannot.
    bool removeColor(int index);
    /// \brief Writes the current palette in the format of the file's extension (.hex, .gpl, .txt, .act, .pal); on an
    /// error shows the error dialog and returns false.
    bool savePalette(const QString& path);

    /// \brief Opens the colour dialog for swatch `index` (non-blocking; objectName "swatchColorDialog").
    void editSwatch(int index);
    /// \brief Opens the file dialog of "From file..." (non-blocking; objectName "paletteFileDialog").
    void chooseFile();
    /// \brief Opens the file dialog of "Save palette..." (non-blocking; objectName "paletteSaveDialog").
    void chooseSaveFile();

    /// \brief The working space and the nearest-colour match of error diffusion to the palette (docs/spec.md
    /// section 4; linear light and euclidean by default).
    PaletteSpace space() const;
    PaletteMatch match() const;
    /// \brief Sets the two choices (emits changed() when they differ).
    void setSpaceAndMatch(PaletteSpace space, PaletteMatch match);

    QComboBox* sourceCombo() const { return sourceCombo_; }
    QComboBox* spaceCombo() const { return spaceCombo_; }
    QComboBox* matchCombo() const { return matchCombo_; }
    QSpinBox* autoCount() const { return autoCount_; }
    SwatchStrip* swatches() const { return swatches_; }
    QToolButton* saveButton() const { return saveButton_; }
    /// \brief The error dialog on show (null when none).
    QMessageBox* errorBox() const { return errorBox_; }
    /// \brief The line under the swatches: the palette's name and size, or what is being done.
    QString infoText() const;
    QString reasonText() const;

    /// \brief Stores the choice (and the colours of an edited palette) in the settings' current group.
    void saveSettings(QSettings& settings) const;
    /// \brief Restores what saveSettings stored; a built-in or file that is gone falls back to the stored colours.
    void restoreSettings(QSettings& settings);

signals:
    /// \brief The palette (or the choice of none) changed.
    void changed();
    /// \brief An auto palette was made (or failed); palette() has the new colours.
    void autoReady();

private:
    void onSourceIndex(int index);
    void apply(const QString& data);
    void startAuto();
    void becomeEdited(Palette edited);
    void showError(const QString& title, const QString& text);
    void updateUi();
    int indexOfData(const QString& data) const;
    int fileDialogIndex() const;
    void selectIndexQuietly(int index);

    QComboBox* sourceCombo_;
    QWidget* matchRow_;
    QComboBox* spaceCombo_;
    QComboBox* matchCombo_;
    QWidget* autoRow_;
    QSpinBox* autoCount_;
    SwatchStrip* swatches_;
    QToolButton* addButton_;
    QToolButton* removeButton_;
    QToolButton* saveButton_;
    QLabel* info_;
    QLabel* reason_;
    QPointer<QMessageBox> errorBox_;
    QTimer autoDebounce_;

    bool available_ = true;
    Source source_ = Source::None;
    Palette current_;
    Palette edited_;
    QMap<QString, Palette> files_;  // palettes read from files, by path
    int lastIndex_ = 0;             // the combo entry chosen last (restored when a file dialog is cancelled)
    std::shared_ptr<const Image> image_;
    quint64 autoGeneration_ = 0;
    bool autoRunning_ = false;
    QString autoError_;
};

}  // namespace halftone
