#pragma once
// \brief Quality panel: HVS-weighted error and filtered PSNR of the shown results, their tone curve on a
// ramp and the radially averaged power spectrum of a constant patch (core/metrics.h), charted with QCustomPlot.
#include <QFutureWatcher>
#include <QVector>
#include <QWidget>
#include <atomic>
#include <memory>

#include "core/registry.h"
#include "widgets/jobrunner.h"

class QTableWidget;
class QSpinBox;
class QLabel;
class QPushButton;
class QCustomPlot;

namespace halftone {

/// \brief The measures of one result.
struct QualityRow {
    QString methodId;
    QString device;
    double seconds = 0;
    double hvsError = qQNaN();  ///< E / N (SPEC section 3), lower is better
    double psnrDb = qQNaN();    ///< PSNR of the Gaussian-filtered halftone against the original
    QString region;             ///< "whole image" or the crop measured
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
    void setResults(std::shared_ptr<const Image> original, const QVector<JobResultPtr>& results);
    void measure();
    bool running() const;
    const QVector<QualityRow>& rows() const { return rows_; }
    QCustomPlot* tonePlot() const { return tonePlot_; }
    QCustomPlot* spectrumPlot() const { return spectrumPlot_; }

signals:
    void measured();

protected:
    void showEvent(QShowEvent*) override;

private:
    void show(const QVector<QualityRow>& rows);
    Registry& registry_;
    std::shared_ptr<const Image> original_;
    QVector<JobResultPtr> results_;
    bool dirty_ = false;
    QVector<QualityRow> rows_;
    QTableWidget* table_;
    QSpinBox* patchLevel_;
    QLabel* status_;
    QPushButton* measureButton_;
    QCustomPlot* tonePlot_;
    QCustomPlot* spectrumPlot_;
    QFutureWatcher<QVector<QualityRow>>* watcher_ = nullptr;
    std::shared_ptr<std::atomic<bool>> stop_;
};

}  // namespace halftone
