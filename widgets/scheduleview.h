#pragma once
// \brief The teaching view of the schedule model: a small grid coloured by step, the kernel's
// dependency stencil, play/pause/step/scrub, and parallelism per step. Everything drawn comes from
// core's makeSchedule(); nothing is drawn that is not the schedule that runs.
#include <QTimer>
#include <QWidget>

#include <optional>

#include "core/job/registry.h"
#include "core/schedule/schedule.h"

class QComboBox;
class QSpinBox;
class QSlider;
class QLabel;
class QPushButton;
class QCustomPlot;
class QCPItemStraightLine;

namespace halftone {

/// \brief Draws a Schedule as a grid: finished steps coloured by step, the current step highlighted,
/// block borders, and the sources of the hovered pixel.
class ScheduleGrid : public QWidget {
    Q_OBJECT
public:
    explicit ScheduleGrid(QWidget* parent = nullptr);
    void setSchedule(const Schedule* schedule, const Kernel* kernel, bool serpentine);
    void setCurrentStep(int step);
    QSize sizeHint() const override { return {480, 360}; }
    /// \brief Cell rectangle of pixel (x, y) in widget coordinates.
    QRectF cellRect(int x, int y) const;

protected:
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void leaveEvent(QEvent*) override;

private:
    const Schedule* schedule_ = nullptr;
    const Kernel* kernel_ = nullptr;
    bool serpentine_ = false;
    int step_ = 0;
    QPoint hover_{-1, -1};
};

/// \brief Draws a kernel's taps around the current pixel with their weights w/D.
class StencilWidget : public QWidget {
    Q_OBJECT
public:
    explicit StencilWidget(QWidget* parent = nullptr);
    void setKernel(const Kernel* kernel);
    QSize sizeHint() const override { return {220, 110}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    const Kernel* kernel_ = nullptr;
};

/// \brief The scheduling tab: pick schedule, kernel, grid size and block options; animate the steps.
class ScheduleView : public QWidget {
    Q_OBJECT
public:
    explicit ScheduleView(QWidget* parent = nullptr);

    /// \brief Selects schedule/kernel/grid size and rebuilds from the model; false when makeSchedule failed.
    /// A new schedule brings its block size for this view (blockSizeForView()).
    bool configure(const QString& schedule, const QString& kernel, int width, int height);
    /// \brief Shows the schedule `method` runs on `device` (unset = auto, as runImage picks: the GPU when usable and
    /// implemented) with its kernel and level count: the view follows the method panel. False when the method has
    /// no schedule in the model; the view then keeps what it showed.
    bool showMethod(const MethodInfo& method, std::optional<Device> device, const ParamValues& params);
    /// \brief Output levels passed to the model (ScheduleOptions::levels: the GPU wavefront's form).
    int levels() const { return levels_; }
    /// \brief Sets the block size (0 = the method's own default) and the delay k (0 = minimal), then rebuilds.
    bool setBlockOptions(int blockWidth, int blockHeight, int delay);
    /// \brief The options passed to makeSchedule() for the schedule shown.
    ScheduleOptions options() const;
    const Schedule& schedule() const { return schedule_; }
    /// \brief Block size the view starts a block schedule with: small enough that the default grid shows
    /// several blocks and steps (the methods' own defaults, e.g. 32 x 32, fill a whole small grid).
    static QSize blockSizeForView(const QString& schedule);
    /// \brief The line that says how k-delay and the knight order differ for the chosen kernel.
    QString delayNote() const;
    QString stencilCaption() const;
    bool valid() const { return valid_; }
    QString errorText() const;
    int currentStep() const { return step_; }
    void setCurrentStep(int step);
    /// \brief The parallelism values plotted (one per step), read back from the chart.
    QVector<double> plottedParallelism() const;
    QCustomPlot* plot() const { return plot_; }
    ScheduleGrid* grid() const { return grid_; }

public slots:
    void play();
    void pause();
    void stepForward();
    void stepBack();

private:
    void rebuild();
    void applyScheduleDefaults();
    void updateStepUi();
    QComboBox* scheduleCombo_;
    QComboBox* kernelCombo_;
    QSpinBox* widthSpin_;
    QSpinBox* heightSpin_;
    QSpinBox* blockWSpin_;
    QSpinBox* blockHSpin_;
    QSpinBox* delaySpin_;
    QPushButton* playButton_;
    QSlider* slider_;
    QLabel* stepLabel_;
    QLabel* info_;
    QLabel* delayNote_;
    QLabel* stencilCaption_;
    ScheduleGrid* grid_;
    StencilWidget* stencil_;
    QCustomPlot* plot_;
    QCPItemStraightLine* stepLine_ = nullptr;
    QTimer timer_;
    Schedule schedule_;
    const Kernel* kernel_ = nullptr;
    bool valid_ = false;
    int step_ = 0;
    int levels_ = 2;
    bool building_ = false;
};

}  // namespace halftone
