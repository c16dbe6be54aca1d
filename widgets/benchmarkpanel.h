#pragma once
// \brief Benchmark panel: a background sweep over methods x devices x sizes from the registry, charted
// as time against image size (log axes) and speed-up against a chosen baseline; PNG and CSV export.
#include <QFutureWatcher>
#include <QVector>
#include <QWidget>
#include <atomic>
#include <memory>

#include "core/job/registry.h"

class QListWidget;
class QListWidgetItem;
class QLineEdit;
class QCheckBox;
class QComboBox;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QLabel;
class QCustomPlot;

namespace halftone {

/// \brief One measured point of the sweep.
struct BenchPoint {
    QString methodId;
    Device device = Device::Cpu;
    int size = 0;        ///< square side in pixels
    double seconds = 0;  ///< median of the repeats
    int repeats = 0;     ///< runs the median was taken over
    QString kernel;      ///< the method's default kernel, empty when it has none
    int levels = 0;      ///< output levels, 0 when the method has no such parameter
    QString threads;     ///< CPU worker threads ("1", "all (8)", ...); empty on the GPU
    QString note;
    QString series() const { return methodId + QStringLiteral(" @") + QString::fromLatin1(toString(device)); }
};

/// \brief Runs and charts a sweep; all work off the UI thread, cancellable.
class BenchmarkPanel : public QWidget {
    Q_OBJECT
public:
    explicit BenchmarkPanel(Registry& registry, QWidget* parent = nullptr);
    ~BenchmarkPanel() override;

    /// \brief Chooses what the next run measures (tests and scripted use).
    void configure(const QStringList& methodIds, const QList<Device>& devices, const QList<int>& sizes, int repeats);
    void start();
    void cancel();
    /// \brief True from start() until the sweep's end has been reported (sweepFinished).
    bool running() const;
    const QVector<BenchPoint>& points() const { return points_; }
    /// \brief CSV text: '#' lines saying what was measured (measurementContext()), then the header
    /// method,variant,device,width,height,pixels,seconds,mpixels_per_s,repeats,kernel,levels,color,threads,note.
    QString csv() const;
    /// \brief "key: value" lines saying what the sweep measured: image, colour mode, parameters, repeats,
    /// machine (CPU model and cores, GPU) and date. Written into the CSV and under the exported PNG.
    QStringList measurementContext() const;
    /// \brief Repeats of one measurement at a side of `size` pixels when repeats are automatic: more at
    /// small sizes, where one run is short and noisy.
    static int autoRepeats(int size);
    /// \brief The list item of method id "m/v" (its check box, enabled state and tooltip), or nullptr.
    QListWidgetItem* methodItem(const QString& id) const;
    /// \brief What the last start() left out and why (GPU-only methods without a GPU, ...), else which
    /// variants are greyed out and why; empty when neither.
    QString skippedText() const;
    bool exportCsv(const QString& path, QString* error = nullptr) const;
    bool exportPng(const QString& path, QString* error = nullptr);
    QCustomPlot* timePlot() const { return timePlot_; }
    QCustomPlot* speedupPlot() const { return speedupPlot_; }
    void setBaseline(const QString& series);

signals:
    void pointAdded(const halftone::BenchPoint& point);
    /// \brief The sweep ended, or start() ran nothing (the panel's status says why; points() is empty).
    void sweepFinished(bool cancelled);

private:
    void addPoint(const BenchPoint& p);
    void replot();
    void refuse(const QString& why);
    Registry& registry_;
    QListWidget* methods_;
    QCheckBox* cpu_;
    QCheckBox* gpu_;
    QLineEdit* sizes_;
    QSpinBox* repeats_;
    QComboBox* baseline_;
    QPushButton* run_;
    QPushButton* stop_;
    QProgressBar* progress_;
    QLabel* status_;
    QLabel* skipped_;
    QString greyedNote_;                // says which variants are greyed out and why, empty when none
    QStringList unavailableRequested_;  // ids configure() asked for that cannot run here
    QString sweepDate_;
    int sweepRepeats_ = 0;  // the repeats setting of the sweep shown (0 = automatic)
    QCustomPlot* timePlot_;
    QCustomPlot* speedupPlot_;
    QVector<BenchPoint> points_;
    std::shared_ptr<std::atomic<bool>> stopFlag_;
    QFutureWatcher<void>* watcher_ = nullptr;
    bool busy_ = false;  // a sweep was started and its end not yet reported (running())
};

}  // namespace halftone
Q_DECLARE_METATYPE(halftone::BenchPoint)
