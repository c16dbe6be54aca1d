#pragma once
// \brief Benchmark panel: a background sweep over methods x devices x sizes from the registry, charted
// as time against image size (log axes) and speed-up against a chosen baseline; PNG and CSV export.
#include <QFutureWatcher>
#include <QVector>
#include <QWidget>
#include <atomic>
#include <memory>

#include "core/registry.h"

class QListWidget;
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
    int size = 0;           ///< square side in pixels
    double seconds = 0;     ///< median of the repeats
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
    /// \brief CSV text: method,variant,device,width,height,pixels,seconds,mpixels_per_s,note.
    QString csv() const;
    bool exportCsv(const QString& path, QString* error = nullptr) const;
    bool exportPng(const QString& path, QString* error = nullptr);
    QCustomPlot* timePlot() const { return timePlot_; }
    QCustomPlot* speedupPlot() const { return speedupPlot_; }
    void setBaseline(const QString& series);

signals:
    void pointAdded(const halftone::BenchPoint& point);
    void sweepFinished(bool cancelled);

private:
    void addPoint(const BenchPoint& p);
    void replot();
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
    QCustomPlot* timePlot_;
    QCustomPlot* speedupPlot_;
    QVector<BenchPoint> points_;
    std::shared_ptr<std::atomic<bool>> stopFlag_;
    QFutureWatcher<void>* watcher_ = nullptr;
    bool busy_ = false;  // a sweep was started and its end not yet reported (running())
};

}  // namespace halftone
Q_DECLARE_METATYPE(halftone::BenchPoint)
