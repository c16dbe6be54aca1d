#pragma once
// \brief File > Batch: the studio's current job on many files and folders (core/job/batch.h), in a worker thread, with
// a progress bar, the current file, a log of failures, Cancel and a summary. Each output is the one
// `halftone batch` writes for that file (io/filejob.h), complete or absent.
#include <QDialog>
#include <QFutureWatcher>
#include <QStringList>
#include <functional>

#include "core/job/batch.h"
#include "core/job/job.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace halftone {

/// \brief The batch dialog; non-blocking, so the studio stays usable while it runs.
class BatchDialog : public QDialog {
    Q_OBJECT
public:
    /// \brief What a chooser is asked for.
    enum class Choice { Files, Folder, OutputFolder };
    /// \brief Asks the user for paths (a file dialog by default; tests set their own).
    using Chooser = std::function<QStringList(Choice)>;

    explicit BatchDialog(QWidget* parent = nullptr);
    ~BatchDialog() override;

    /// \brief The job every file gets (the studio's current settings); its format picks the format shown.
    void setJob(const JobSettings& job);
    JobSettings job() const { return job_; }
    void setChooser(Chooser chooser) { chooser_ = std::move(chooser); }
    /// \brief Where start() takes the job from (the studio's settings at that moment); unset: the job of setJob().
    void setJobProvider(std::function<Status(JobSettings&)> provider) { jobProvider_ = std::move(provider); }
    /// \brief The one-line description of the job shown at the top.
    QString jobText() const;

    QStringList inputs() const;
    void setInputs(const QStringList& paths);
    void addInputs(const QStringList& paths);
    QString outputFolder() const;
    void setOutputFolder(const QString& dir);
    QString format() const;
    void setFormat(const QString& extension);
    void setSuffix(const QString& suffix);
    void setSkipExisting(bool on);
    /// \brief Files at once; 0 = as many as cores.
    void setJobs(int n);

    /// \brief Plans the batch and starts it; false, with the refusal in the log and errorText(), when the plan is
    /// refused (no inputs or output folder, collisions, an output that is an input) before any work.
    bool start();
    /// \brief Stops the batch: no new file starts, running ones stop and write nothing.
    void cancel();
    bool running() const { return running_; }

    /// \brief "FILE: message" for each failure of the last run.
    QStringList failures() const { return failures_; }
    BatchSummary summary() const { return summary_; }
    /// \brief The last line of the run (the summary) or the refusal.
    QString statusText() const;
    QString errorText() const { return error_; }
    QProgressBar* progressBar() const { return progress_; }
    QPlainTextEdit* logView() const { return log_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* cancelButton() const { return cancel_; }

signals:
    /// \brief `done` of `total` files finished; `current` is the file started last.
    void progressed(int done, int total, const QString& current);
    /// \brief The plan was refused; nothing ran.
    void refused(const QString& message);
    /// \brief The run ended (completed or cancelled); summary() holds its totals.
    void finished();

protected:
    void closeEvent(QCloseEvent* e) override;
    /// Files and folders dropped on the dialog join the inputs.
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    void reject() override;

private:
    void choose(Choice c);
    void setRunning(bool on);
    void appendLog(const QString& line);

    void showJob();

    JobSettings job_;
    Chooser chooser_;
    std::function<Status(JobSettings&)> jobProvider_;
    QLabel* jobLabel_;
    QListWidget* inputs_;
    QLineEdit* outDir_;
    QComboBox* format_;
    QLineEdit* suffix_;
    QCheckBox* skipExisting_;
    QSpinBox* jobs_;
    QProgressBar* progress_;
    QLabel* current_;
    QLabel* status_;
    QPlainTextEdit* log_;
    QPushButton* start_;
    QPushButton* cancel_;
    QPushButton* close_;
    QList<QWidget*> settingsWidgets_;  // disabled while running

    QFutureWatcher<BatchSummary> watcher_;
    StopToken stop_;
    bool running_ = false;
    int total_ = 0, done_ = 0;
    QStringList failures_;
    BatchSummary summary_;
    QString error_;
};

}  // namespace halftone
