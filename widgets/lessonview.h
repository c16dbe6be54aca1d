#pragma once
// \brief The Lesson tab: error diffusion on a tiny image stepped through under a schedule with every number shown
// (core/schedule/lesson.h), two schedules side by side with their dependencies as arrows, parallelism per step and
// critical path, races of naive parallel orders, and export as an animation or a PDF handout (docs/teaching.md).
#include <QTimer>
#include <QWidget>

#include "core/schedule/lesson.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QToolButton;
class QSlider;
class QSpinBox;
class QSplitter;
class QTextBrowser;

namespace halftone {

/// \brief A lesson's grid: processed pixels show their output, pending ones a pale form of their input, the step's
/// pixels framed (red for an early read), numbers in the cells when they fit, and arrows from the sources of the
/// selected pixel (of every pixel of the step when few) to it.
class LessonGrid : public QWidget {
    Q_OBJECT
public:
    explicit LessonGrid(QWidget* parent = nullptr);
    void setTrace(const LessonTrace* trace);
    void setStep(int step);
    void setSelected(QPoint rowCol);
    QSize sizeHint() const override { return {360, 280}; }
    QSize minimumSizeHint() const override { return {120, 90}; }
    /// \brief Cell rectangle of pixel (row, col) in widget coordinates.
    QRectF cellRect(int row, int col) const;
    /// \brief Pixel size of the numbers in the cells; 0 when the cells are too small and only the panel shows them.
    int numberPixelSize() const;
    /// \brief The arrows drawn (source -> receiver, early), for tests.
    struct Arrow {
        QPoint from, to;
        bool early = false;
    };
    QVector<Arrow> arrows() const;

signals:
    void pixelClicked(int row, int col);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;

private:
    const LessonTrace* trace_ = nullptr;
    int step_ = 0;
    QPoint selected_{-1, -1};
};

/// \brief Bars of the parallelism of every step, the current one marked.
class ParallelismStrip : public QWidget {
    Q_OBJECT
public:
    explicit ParallelismStrip(QWidget* parent = nullptr);
    void setTrace(const LessonTrace* trace);
    void setStep(int step);
    QSize sizeHint() const override { return {360, fontMetrics().height() * 4}; }
    QSize minimumSizeHint() const override { return {120, 40}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    const LessonTrace* trace_ = nullptr;
    int step_ = 0;
};

/// \brief The Lesson tab.
class LessonView : public QWidget {
    Q_OBJECT
public:
    explicit LessonView(QWidget* parent = nullptr);

    /// \brief The studio's image: a lesson on "loaded image" crops the middle of its gray form.
    void setLoadedImage(const Image& image);
    /// \brief Sets schedule, kernel, size and race for the main side and rebuilds; false when the lesson cannot run
    /// (errorText() says why).
    bool configure(const QString& schedule, const QString& kernel, int width, int height, bool race = false);
    /// \brief Sets the lesson from a spec SCHEDULE[,COMPARE][,kernel=K][,size=WxH][,levels=L][,step=N][,race][,image]
    /// (the studio's --lesson); the message says what is wrong.
    Status applySpec(const QString& spec);
    /// \brief The schedule on the comparison side.
    bool setCompareSchedule(const QString& schedule);
    /// \brief Crop the loaded image (true) or use the ramp.
    void useLoadedImage(bool loaded);
    const LessonTrace& trace() const { return trace_; }
    const LessonTrace& compareTrace() const { return compare_; }
    bool valid() const { return valid_; }
    QString errorText() const;

    int step() const { return step_; }
    /// \brief Steps of the longer of the two sides: the slider's range.
    int stepCount() const;
    void setStep(int step);
    /// \brief Selects a pixel of the main side: the arithmetic panel shows it (and the rest of its step).
    void selectPixel(int row, int col);
    bool playing() const { return timer_.isActive(); }
    int intervalMs() const { return timer_.interval(); }
    /// \brief The arithmetic panel as plain text.
    QString arithmeticText() const;
    /// \brief The statistics line of side 0 (main) or 1 (comparison).
    QString statsText(int side) const;
    LessonGrid* grid(int side) const { return side == 0 ? grid_ : compareGrid_; }
    QTextBrowser* arithmeticPanel() const { return panel_; }

    /// \brief Writes the main side's steps as an animation (.png APNG, .webp, .gif), one frame per step.
    Status exportAnimation(const QString& path) const;
    /// \brief Writes steps first .. last of the main side as a PDF handout: each step's frame and its arithmetic.
    Status exportHandout(const QString& path, int first, int last) const;

public slots:
    void play();
    void pause();
    void togglePlay();
    void stepForward();
    void stepBack();
    void faster();
    void slower();

protected:
    void keyPressEvent(QKeyEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void layoutSides();
    void rebuild();
    void rebuildCompare();
    void updateStepUi();
    Plane8 lessonImage() const;
    LessonOptions optionsFor(const QString& schedule) const;
    QString pixelHtml(const LessonPixel& p) const;
    /// The arithmetic panel's page for a step of the main side (the selected pixel first, when there is one).
    QString stepHtml(int step, QPoint selected) const;

    QComboBox* sourceCombo_;
    QComboBox* scheduleCombo_;
    QComboBox* compareCombo_;
    QComboBox* kernelCombo_;
    QSpinBox* widthSpin_;
    QSpinBox* heightSpin_;
    QSpinBox* levelsSpin_;
    QCheckBox* raceCheck_;
    QToolButton* playButton_;
    QSlider* slider_;
    QLabel* stepLabel_;
    QLabel* speedLabel_;
    QLabel* stats_;
    QLabel* compareStats_;
    LessonGrid* grid_;
    LessonGrid* compareGrid_;
    ParallelismStrip* strip_;
    ParallelismStrip* compareStrip_;
    QTextBrowser* panel_;
    QSplitter* sides_;
    QTimer timer_;
    Plane8 loaded_;
    LessonTrace trace_;
    LessonTrace compare_;
    QString error_;
    bool valid_ = false;
    bool compareValid_ = false;
    bool building_ = false;
    int step_ = 0;
    QPoint selected_{-1, -1};
};

}  // namespace halftone
