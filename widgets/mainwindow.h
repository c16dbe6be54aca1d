#pragma once
// \brief The studio's main window: open/drop/paste/recent images, the method panel, jobs off the UI
// thread, the compare view, the scheduling view, the benchmark and quality panels.
#include <QFutureWatcher>
#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <functional>
#include <memory>

#include "core/job/job.h"
#include "core/job/registry.h"
#include "core/runcontrol.h"
#include "core/status.h"
#include "widgets/compareview.h"
#include "widgets/jobrunner.h"

class QAction;
class QHBoxLayout;
class QLabel;
class QMenu;
class QToolBar;
class QUndoStack;
class QSettings;

class QProgressBar;
class QPushButton;
class QCheckBox;
class QComboBox;
class QTabWidget;

namespace halftone {

class AdjustPanel;
class BatchDialog;
class BenchmarkPanel;
class CompareView;
class MethodPanel;
class QualityPanel;
class PrintView;
class LessonView;
class ScheduleView;

/// \brief The studio window; every long operation runs off the UI thread.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(Registry& registry, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// \brief Opens an image file in the background; errors go to an error dialog naming the file.
    void openFile(const QString& path);
    /// \brief Opens the embedded sample image.
    void openSample();
    /// \brief Uses an in-memory image (paste, tests); `name` labels it.
    void setImage(Image image, const QString& name);
    /// \brief Runs the panel's current method on the current image (superseding a running job).
    void runCurrent();
    void cancelRun();
    /// \brief Saves the current result: .png and .tif/.tiff in the smallest exact form (io::writeImage: 1-bit when
    /// binary gray, indexed for a palette or per-channel colour halftone), .pbm/.pgm/.ppm. A name without an extension
    /// takes the extension of `filter` (a file dialog filter such as "PNG (*.png)"), or .png. A CMYK result saved as
    /// PNG is converted to RGB, and the status bar says so. The save runs as startSave() does; this waits for its end
    /// with the window's events running and returns whether the file was written.
    bool saveResult(const QString& path, const QString& filter = {});
    /// \brief Starts saving the current result as saveResult does, on a worker thread: the status bar shows its
    /// progress and a Cancel button, the window stays responsive, and saveFinished() reports the end (a cancelled
    /// save leaves no file, and an older file of that name as it was). False, with an error dialog, when the save is
    /// refused at once (no result, a format that cannot hold it, another save still running).
    bool startSave(const QString& path, const QString& filter = {});
    /// \brief Stops the save in progress (the status bar's Cancel); saveFinished() follows with `cancelled`.
    void cancelSave();
    /// \brief True from startSave() until saveFinished().
    bool saving() const { return saveWatcher_ != nullptr; }
    QProgressBar* saveProgress() const { return saveProgress_; }
    QPushButton* saveCancelButton() const { return saveCancel_; }
    /// \brief The path a save writes: `path` itself when it has an extension, else `path` plus the first
    /// extension of the file dialog filter (or .png when the filter names none).
    static QString pathWithExtension(const QString& path, const QString& filter);
    /// \brief The save dialog's filters for the current result: only formats that can hold it.
    QStringList saveFilters() const;
    /// \brief The file name the save dialog suggests: image name plus the result's short description.
    QString suggestedSaveName() const;
    /// \brief After the first finished run: grab() the window into `path`, then quit with 0 (or 1 on failure).
    void setScreenshotPath(const QString& path, const QString& tab = {});

    MethodPanel* methodPanel() const { return panel_; }
    AdjustPanel* adjustPanel() const { return adjust_; }

    /// \brief The whole job the studio is set to: the method panel (method, variant, parameters that differ from
    /// the defaults, device, threads, colour mode) and the Adjust settings; an error when the Adjust settings are not
    /// valid.
    Status currentJob(JobSettings& job) const;
    /// \brief Sets the method panel and the Adjust panel to `job`; changes nothing and returns the problem when the
    /// studio cannot apply it (a method that cannot run here, a palette).
    Status applyJob(const JobSettings& job);
    /// \brief Undo and redo of every change of the settings (method panel and Adjust), one step per change.
    QUndoStack* undoStack() const { return undo_; }
    /// \brief Forgets the undo history and takes the current settings as its start (after settings are restored).
    void resetUndo();
    /// \brief Stores the window's size and position and which docks are shown where (group "window").
    void saveWindowState(QSettings& settings) const;
    /// \brief Restores what saveWindowState stored; false (and nothing changed) when it stored nothing.
    bool restoreWindowState(QSettings& settings);
    /// \brief Saves the current job as a preset file (File > Save preset); errors go to an error dialog.
    bool savePreset(const QString& path);
    /// \brief Loads a preset file into the panels (File > Load preset); a bad preset gives an error dialog naming the
    /// file and the problem, and changes nothing.
    bool loadPreset(const QString& path);
    /// \brief Opens File > Batch with the current job (non-blocking; returns the dialog).
    BatchDialog* showBatch();
    BatchDialog* batchDialog() const;
    /// \brief What the file dialogs of File > Save preset / Load preset ask.
    enum class FileChoice { SavePreset, LoadPreset };
    /// \brief Replaces those file dialogs (tests): returns the chosen path, empty for none.
    void setFileChooser(std::function<QString(FileChoice, const QString& suggested)> chooser) {
        fileChooser_ = std::move(chooser);
    }
    QAction* savePresetAction() const { return savePresetAction_; }
    QAction* loadPresetAction() const { return loadPresetAction_; }
    QAction* batchAction() const { return batchAction_; }
    CompareView* compareView() const { return compare_; }
    ScheduleView* scheduleView() const { return schedule_; }
    BenchmarkPanel* benchmarkPanel() const { return bench_; }
    QualityPanel* qualityPanel() const { return quality_; }
    PrintView* printView() const { return print_; }
    /// \brief The resolution a result prints at: its method's printer resolution, else the Adjust panel's DPI (0:
    /// unset). Saved files carry it; the Print tab shows the result at that size.
    double resultDpi(const JobResult& result) const;
    LessonView* lessonView() const { return lesson_; }
    JobRunner* jobs() const { return jobs_; }
    QTabWidget* tabs() const { return tabs_; }
    JobResultPtr currentResult() const { return current_; }
    std::shared_ptr<const Image> image() const { return image_; }
    QString imageName() const { return imageName_; }
    QString lastError() const { return lastError_; }
    QMessageBox* errorBox() const { return errorBox_; }
    QStringList recentFiles() const;
    void setAutoRun(bool on);
    /// \brief Keeps the current result on screen beside the next ones (up to three pinned).
    void pinCurrent();
    /// \brief The compare view's "perceived" and "split" toggles, as the toolbar sets them.
    void setPerceivedView(bool on);
    void setSplitView(bool on);
    /// \brief The compare view's "Print preview" toggle: CMYK results as process inks on white paper.
    void setPrintPreview(bool on);
    QAction* printPreviewAction() const { return printPreviewAction_; }
    QAction* panelAction() const { return panelAction_; }
    /// \brief What Copy puts on the clipboard: the current result as displayed (its print preview while that is on).
    QImage copyImage() const;
    /// \brief The results on screen, pins first, then the current one (when it is not pinned).
    QVector<JobResultPtr> shownResults() const;
    QVector<JobResultPtr> pinnedResults() const { return pinned_; }
    /// \brief The text of each entry of the split view's result selector (tests).
    QStringList resultChoices() const;
    /// \brief True while the result on screen is older than the last run the user started (cancelled or failed).
    bool currentIsStale() const { return currentStale_; }
    /// \brief Every action that has a keyboard shortcut, as (where, what, keys), one row per distinct action.
    QList<QStringList> shortcutList() const;
    /// \brief Shows Help > Keyboard shortcuts (non-blocking; returns the dialog).
    QWidget* showShortcuts();
    /// \brief Shows Help > About (non-blocking; returns the dialog).
    QWidget* showAbout();
    QAction* runAction() const { return runAction_; }
    QAction* cancelAction() const { return cancelAction_; }

signals:
    void imageLoaded(const QString& name);
    /// \brief Opening `name` was cancelled; the image open before stays.
    void loadCancelled(const QString& name);
    void resultShown(halftone::JobResultPtr result);
    void runFailed(const QString& message, bool cancelled);
    void errorShown(const QString& text);
    /// \brief A pinned result was dropped to make room for a newer pin.
    void pinDropped(halftone::JobResultPtr dropped);
    void screenshotSaved(const QString& path, bool ok);
    /// \brief A background save wrote `fraction` (0..1) of its rows.
    void saveProgressed(double fraction);
    /// \brief A save started by startSave() ended: `ok` when the file is written, `cancelled` when Cancel stopped it.
    void saveFinished(const QString& path, bool ok, bool cancelled);

protected:
    void dragEnterEvent(QDragEnterEvent*) override;
    void dropEvent(QDropEvent*) override;
    void closeEvent(QCloseEvent*) override;

private:
    struct Loaded {
        Status status;
        std::shared_ptr<const Image> image;
        QImage display;
        QVector<QImage> levels;
        QString notes;
    };
    /// \brief Results kept on screen besides the current one.
    static constexpr int kMaxPinned = CompareView::kMaxResults - 1;
    void buildUi();
    void addPanelDock(QWidget* content, const QString& title, const QString& name, int minWidth,
                      Qt::DockWidgetArea area);
    QWidget* buildMethodSide();
    QHBoxLayout* buildRunButtons();
    QWidget* buildCompareTab();
    void addZoomActions(QToolBar* bar);
    void addViewActions(QToolBar* bar, QToolBar* splitBar);
    void buildMenus();
    /// \brief The job the panels are set to, without its palette (the panel's palette may have no name a
    /// JobSettings can hold).
    Status panelJob(JobSettings& job) const;
    /// \brief The run of the panels' job on the current image: panelJob through resolveJob, with the palette panel's
    /// palette and the views to make.
    Status currentRequest(JobRequest& request) const;
    /// \brief Sets the method panel and the Adjust panel to `job`, whose method is `m`.
    Status setPanels(const MethodInfo& m, const JobSettings& job);
    /// \brief The end of Save preset or Load preset: an error dialog with `failTitle`, or `done` (with the path) in
    /// the status bar and the preset folder remembered.
    bool presetDone(const Status& s, const QString& failTitle, const QString& done, const QString& path);
    /// \brief A run that ended without a result: the stage text, the status bar or an error dialog, runFailed.
    void runEnded(const QString& message, bool cancelled);
    void loadAsync(std::function<Status(Image&, QString&, const StopToken&)> producer, const QString& name,
                   const QString& path);
    void imageReady(const Loaded& loaded, const QString& name, const QString& path);
    /// \brief What a status bar message is about; a message is replaced or cleared when its state changes.
    enum class StatusTopic { Image, ColourHint, Run, Save, Pins, Preset };
    void setStatus(StatusTopic topic, const QString& text);  ///< empty text clears that topic's message
    void clearStatus(StatusTopic topic) { setStatus(topic, {}); }
    void showError(const QString& title, const QString& text, StatusTopic topic);
    void updateColourHint();
    /// \brief The Adjust panel's DPI field names the resolution a run uses while it is unset (the method's own).
    void updateDpiField();
    QString paneLabel(const JobResultPtr& r, int pinIndex) const;
    void showResults();
    void addRecent(const QString& path);
    void updateRecentMenu();
    void onFinished(quint64 gen, JobResultPtr result, bool fromCache);
    void onFailed(quint64 gen, const QString& message, bool cancelled);
    void onProgress(quint64 gen, double fraction, const QString& stage, qint64 rowsDone, const QVector<int>& frontier);
    void takeScreenshot();
    void saveResultDialog();
    void paste();
    void recordSettingsChange();
    friend class SettingsChange;

    Registry& registry_;
    JobRunner* jobs_;
    MethodPanel* panel_ = nullptr;
    CompareView* compare_ = nullptr;
    ScheduleView* schedule_ = nullptr;
    BenchmarkPanel* bench_ = nullptr;
    QualityPanel* quality_ = nullptr;
    PrintView* print_ = nullptr;
    LessonView* lesson_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QProgressBar* saveProgress_ = nullptr;  // in the status bar while a save runs
    QPushButton* saveCancel_ = nullptr;
    QFutureWatcher<Status>* saveWatcher_ = nullptr;
    StopToken saveStop_;
    QPushButton* runButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QCheckBox* autoRun_ = nullptr;
    QComboBox* splitChoice_ = nullptr;
    QAction* perceivedAction_ = nullptr;
    QAction* splitAction_ = nullptr;
    QAction* printPreviewAction_ = nullptr;
    QAction* panelAction_ = nullptr;
    bool runWhenPaletteReady_ = false;  // a run waits for the auto palette being made
    QAction* runAction_ = nullptr;
    QAction* cancelAction_ = nullptr;
    QAction* savePresetAction_ = nullptr;
    QAction* loadPresetAction_ = nullptr;
    QAction* batchAction_ = nullptr;
    AdjustPanel* adjust_ = nullptr;
    QPointer<BatchDialog> batch_;
    std::function<QString(FileChoice, const QString&)> fileChooser_;
    QString presetDir_;
    JobSettings extras_;  // output format and alpha of the loaded preset (carried to presets and batches)
    QList<QPair<StatusTopic, QString>> statusMessages_;  // oldest first; the last one is on screen
    bool currentStale_ = false;
    QMenu* recentMenu_ = nullptr;
    QLabel* stageLabel_ = nullptr;
    QTimer debounce_;
    QPointer<QMessageBox> errorBox_;
    QString lastError_;
    QUndoStack* undo_ = nullptr;
    JobSettings undoLast_;  // the settings the last undo step ends with
    bool undoApplying_ = false;

    std::shared_ptr<const Image> image_;
    quint64 imageId_ = 0;
    quint64 loadGeneration_ = 0;
    StopToken loadStop_;    // stops the decoder of the image being opened
    bool loading_ = false;  // an open is decoding: Cancel stops it
    QString imageName_, imagePath_;
    QImage originalDisplay_;
    QVector<QImage> originalLevels_;
    JobResultPtr current_;
    QVector<JobResultPtr> pinned_;
    quint64 currentGen_ = 0;
    QString screenshotPath_, screenshotTab_;
    bool screenshotPending_ = false;
    bool screenshotSweepTried_ = false;  // the benchmark tab's sweep before a screenshot ran once
};

}  // namespace halftone
