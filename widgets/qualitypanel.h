#pragma once
// \brief Quality panel: HVS-weighted error, the colour difference as seen and filtered PSNR of the shown results, their
// tone curve on a ramp and the radially averaged power spectrum of a constant patch (core/quality/metrics.h), charted
// with QCustomPlot.
#include <QFutureWatcher>
#include <QVector>
#include <QWidget>
#include <atomic>
#include <memory>

#include "core/job/registry.h"
#include "widgets/jobrunner.h"

class QTableWidget;
class QSpinBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QCustomPlot;

namespace halftone {

/// \brief The measures of one result.
struct QualityRow {
    QString methodId;
    QString label;        ///< short description of the result (describeResult)
    QString details;      ///< long description: every parameter, colour mode, device
    QString colorMode;    ///< "gray", "RGB" or "CMYK"
    bool linear = false;  ///< measured in linear light (the method diffused in linear light)
    QString device;
    double seconds = 0;
    double hvsError = qQNaN();  ///< E / N (docs/spec.md section 3), lower is better
    double psnrDb = qQNaN();  ///< PSNR of the filtered halftone against the filtered original (docs/spec.md section 3)
    /// seenDeltaE2000 (core/quality/metrics.h) of the result against the original, under the default viewing
    /// conditions, in the space the method diffused in; gray and colour results alike.
    double seenDeltaE = qQNaN();
    /// A result made for a target: panelDeltaE2000 (core/palette/panel.h) of its simulated panel against the image it
    /// was made from, the number `halftone analyze --target` prints; NaN for other results.
    double panelDeltaE = qQNaN();
    QString panelName;  ///< the target's name, empty for other results
    QString region;     ///< "whole image" or the crop measured
    /// The viewing the PSNR and the Delta E seen are measured under: a result of a method that models a printer (one
    /// with a dpi) as printed at that resolution and seen from the panel's viewing distance (docs/quality.md, "Measured
    /// as printed"); others at screen pixels (the SPEC's sigma 1.2 px, Delta E at ViewingConditions' defaults).
    double printDpi = 0;       ///< 0: at screen pixels
    double sigmaPixels = 1.2;  ///< the PSNR's Gaussian deviation in pixels
    QString seenAs;            ///< "1200 dpi from 30 cm" or "screen pixels"
    QVector<double> toneIn, toneOut;
    double toneMaxDeviation = qQNaN();
    QVector<double> freq, power;  ///< power / variance
    QString error;
};

/// \brief Measures the current results in the background and plots them.
class QualityPanel : public QWidget {
    Q_OBJECT
public:
    explicit QualityPanel(Registry& registry, QWidget* parent = nullptr);
    ~QualityPanel() override;
    /// \brief The original and the results on screen; measured when the panel is visible (or on measure()).
    void setResults(std::shared_ptr<const Image> original, const QVector<JobResultPtr>& results,
                    const QString& imageName = {});
    /// \brief What was measured, one "key: value" line each: image, each result with its parameters and colour
    /// mode, machine, date. Written at the top of both exports.
    QStringList provenance() const;
    /// \brief Writes the table and both charts' data as CSV, after "# " lines of provenance().
    bool exportCsv(const QString& path, QString* error = nullptr) const;
    /// \brief Writes both charts side by side under a header of provenance() as a PNG.
    bool exportPng(const QString& path, QString* error = nullptr) const;
    void measure();
    bool running() const;
    const QVector<QualityRow>& rows() const { return rows_; }
    QCustomPlot* tonePlot() const { return tonePlot_; }
    QCustomPlot* spectrumPlot() const { return spectrumPlot_; }
    /// \brief The distance, in centimetres, results printed at their dpi are seen from (30 by default).
    double viewingDistanceCm() const;
    void setViewingDistanceCm(double cm);

signals:
    void measured();

protected:
    void showEvent(QShowEvent*) override;

private:
    void showRows(const QVector<QualityRow>& rows);
    Registry& registry_;
    std::shared_ptr<const Image> original_;
    QVector<JobResultPtr> results_;
    bool dirty_ = false;
    QVector<QualityRow> rows_;
    QTableWidget* table_;
    QSpinBox* patchLevel_;
    QDoubleSpinBox* distance_;
    QLabel* status_;
    QPushButton* measureButton_;
    QString imageName_;
    QString measuredAt_;
    QPushButton* exportPngButton_;
    QPushButton* exportCsvButton_;
    QCustomPlot* tonePlot_;
    QCustomPlot* spectrumPlot_;
    QFutureWatcher<QVector<QualityRow>>* watcher_ = nullptr;
    std::shared_ptr<std::atomic<bool>> stop_;
};

}  // namespace halftone
