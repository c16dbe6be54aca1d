#pragma once
// \brief The Print tab: a CMYK or gray halftone as printed, at its printed size (zoom 100 % = the paper's inches on
// the screen, by the screen's logical dpi) with the press's dot gain simulated (core/print/printpreview.h:
// printAtSize). The picture is made in the background; the widget only shows it.
#include <QFutureWatcher>
#include <QImage>
#include <QWidget>

#include "core/print/printpreview.h"
#include "core/runcontrol.h"
#include "core/status.h"
#include "widgets/jobrunner.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QScrollArea;

namespace halftone {

/// \brief Shows the current result as printed at its size.
class PrintView : public QWidget {
    Q_OBJECT
public:
    explicit PrintView(QWidget* parent = nullptr);
    ~PrintView() override;
    /// \brief The result to show and the resolution it prints at (0: unknown; it is then shown as 300 dpi and the
    /// label says so). Made again when visible (or on refresh()).
    void setResult(JobResultPtr result, double deviceDpi);
    /// \brief Makes the picture now, visible or not (tests, screenshots); updated() follows.
    void refresh();
    /// \brief 1 = the printed size.
    double zoom() const;
    void setZoom(double zoom);
    /// \brief The press's dot gain at 50 %, in percent.
    double dotGain() const;
    void setDotGain(double percent);
    /// \brief The screen's pixels per inch at zoom 1 (its logical dpi).
    double screenDpi() const;
    /// \brief What the picture was made with (the last one shown).
    const PrintSizeView& shownView() const { return shown_; }
    /// \brief The picture on screen (its device pixel ratio set); null before the first one.
    const QImage& image() const { return image_; }
    /// \brief The line above the picture: size, resolution, zoom, dot gain, or why there is no picture.
    QString infoText() const;
    bool busy() const { return watcher_ != nullptr; }
    QDoubleSpinBox* dotGainSpin() const { return dotGain_; }
    QComboBox* zoomCombo() const { return zoom_; }
    /// \brief Stops the picture being made (the button shown meanwhile); updated() follows, with no new picture.
    void cancel();

signals:
    /// \brief A new picture (or a message why there is none) is on screen.
    void updated();

protected:
    void showEvent(QShowEvent* e) override;

private:
    struct Made {
        Status status;
        QImage image;
    };
    void changed();
    JobResultPtr result_;
    double deviceDpi_ = 0;
    bool dirty_ = false;
    quint64 generation_ = 0;
    StopToken stop_;
    PrintSizeView shown_;
    QImage image_;
    QComboBox* zoom_;
    QDoubleSpinBox* dotGain_;
    QLabel* info_;
    QPushButton* cancel_;
    QLabel* picture_;
    QScrollArea* scroll_;
    QFutureWatcher<Made>* watcher_ = nullptr;
};

}  // namespace halftone
