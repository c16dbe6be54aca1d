#include "widgets/batchdialog.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QUrl>

#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <filesystem>
#include <mutex>
#include <type_traits>
#include <variant>

#include "core/threads.h"
#include "io/filejob.h"

namespace halftone {

namespace {

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

BatchDialog::BatchDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("batchDialog"));
    setWindowTitle(tr("Batch"));
    setAcceptDrops(true);
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("Halftone many files with the current job (method, parameters, colour mode and Adjust settings). Folders "
           "are walked recursively and mirrored under the output folder; each output is written complete or not at "
           "all."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    jobLabel_ = new QLabel;
    jobLabel_->setObjectName(QStringLiteral("batchJob"));
    jobLabel_->setWordWrap(true);
    jobLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(jobLabel_);

    inputs_ = new QListWidget;
    inputs_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    inputs_->setMinimumHeight(120);
    layout->addWidget(new QLabel(tr("Input files and folders:")));
    layout->addWidget(inputs_, 1);
    auto* inputButtons = new QHBoxLayout;
    auto* addFiles = new QPushButton(tr("Add files..."));
    auto* addFolder = new QPushButton(tr("Add folder..."));
    auto* remove = new QPushButton(tr("Remove"));
    inputButtons->addWidget(addFiles);
    inputButtons->addWidget(addFolder);
    inputButtons->addWidget(remove);
    inputButtons->addStretch(1);
    layout->addLayout(inputButtons);
    connect(addFiles, &QPushButton::clicked, this, [this] { choose(Choice::Files); });
    connect(addFolder, &QPushButton::clicked, this, [this] { choose(Choice::Folder); });
    connect(remove, &QPushButton::clicked, this, [this] { qDeleteAll(inputs_->selectedItems()); });

    auto* form = new QFormLayout;
    auto* outRow = new QHBoxLayout;
    outDir_ = new QLineEdit;
    outDir_->setPlaceholderText(tr("the folder the outputs go to (created as needed)"));
    auto* browse = new QPushButton(tr("Choose..."));
    connect(browse, &QPushButton::clicked, this, [this] { choose(Choice::OutputFolder); });
    outRow->addWidget(outDir_, 1);
    outRow->addWidget(browse);
    form->addRow(tr("Output folder"), outRow);
    format_ = new QComboBox;
    format_->setEditable(true);
    for (const char* f : {"png", "tif", "pbm", "pgm", "ppm", "gif", "bmp"}) format_->addItem(QString::fromLatin1(f));
    format_->setToolTip(tr("Output format by extension; PBM holds black and white only, CMYK needs TIFF"));
    form->addRow(tr("Format"), format_);
    suffix_ = new QLineEdit;
    suffix_->setPlaceholderText(tr("e.g. -ht"));
    suffix_->setToolTip(tr("Added to every output's name before the extension"));
    form->addRow(tr("Suffix"), suffix_);
    skipExisting_ = new QCheckBox(tr("Skip files whose output exists"));
    form->addRow(skipExisting_);
    jobs_ = new QSpinBox;
    jobs_->setRange(0, 256);
    jobs_->setSpecialValueText(tr("as many as cores"));
    jobs_->setToolTip(tr("Files halftoned at once; a GPU job runs one file at a time on the device"));
    form->addRow(tr("Files at once"), jobs_);
    layout->addLayout(form);

    progress_ = new QProgressBar;
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("%v of %m files"));
    layout->addWidget(progress_);
    current_ = new QLabel;
    current_->setObjectName(QStringLiteral("batchCurrent"));
    current_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(current_);
    log_ = new QPlainTextEdit;
    log_->setObjectName(QStringLiteral("batchLog"));
    log_->setReadOnly(true);
    log_->setPlaceholderText(tr("Failures (FILE: message) and the summary appear here."));
    layout->addWidget(log_, 1);
    status_ = new QLabel;
    status_->setObjectName(QStringLiteral("batchStatus"));
    status_->setWordWrap(true);
    layout->addWidget(status_);

    auto* buttons = new QHBoxLayout;
    start_ = new QPushButton(tr("Start"));
    start_->setDefault(true);
    cancel_ = new QPushButton(tr("Cancel batch"));
    cancel_->setEnabled(false);
    close_ = new QPushButton(tr("Close"));
    buttons->addStretch(1);
    buttons->addWidget(start_);
    buttons->addWidget(cancel_);
    buttons->addWidget(close_);
    layout->addLayout(buttons);
    connect(start_, &QPushButton::clicked, this, [this] { start(); });
    connect(cancel_, &QPushButton::clicked, this, &BatchDialog::cancel);
    connect(close_, &QPushButton::clicked, this, &BatchDialog::reject);
    settingsWidgets_ = {inputs_, addFiles, addFolder, remove, outDir_, browse, format_, suffix_, skipExisting_, jobs_};

    connect(&watcher_, &QFutureWatcher<BatchSummary>::finished, this, [this] {
        summary_ = watcher_.result();
        setRunning(false);
        char took[32];
        std::snprintf(took, sizeof took, "%.2f", summary_.seconds);
        QString line =
            tr("%1 written, %2 skipped, %3 failed").arg(summary_.written).arg(summary_.skipped).arg(summary_.failed);
        if (summary_.cancelled) line += tr(", %1 not run (cancelled)").arg(summary_.cancelled);
        line += tr(" (%1 files, %2 s)").arg(total_).arg(QString::fromLatin1(took));
        status_->setText(line);
        current_->setText(summary_.cancelled ? tr("Cancelled.") : tr("Done."));
        appendLog(line);
        emit finished();
    });
    resize(640, 560);
}

BatchDialog::~BatchDialog() {
    stop_.requestStop();
    watcher_.waitForFinished();
}

void BatchDialog::setJob(const JobSettings& job) {
    job_ = job;
    if (!job.format.empty()) setFormat(QString::fromStdString(job.format));
    showJob();
}

QString BatchDialog::jobText() const { return jobLabel_->text(); }

void BatchDialog::showJob() {
    const MethodInfo* m = nullptr;
    QString text = jobMethod(job_, m) ? QString::fromStdString(m->id()) : QString::fromStdString(job_.method);
    QStringList params;
    for (const auto& [key, value] : job_.params.all()) {
        if (key == "threads") continue;
        std::string v = std::visit(
            [](const auto& x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, std::string>)
                    return x;
                else if constexpr (std::is_same_v<T, bool>)
                    return std::string(x ? "on" : "off");
                else
                    return QString::number(x).toStdString();
            },
            value);
        params << QString::fromStdString(key + " " + v);
    }
    if (!params.isEmpty()) text += QStringLiteral(" (") + params.join(QStringLiteral(", ")) + QLatin1Char(')');
    text += QStringLiteral(", ") + QString::fromLatin1(toString(job_.color));
    if (!job_.palette.empty()) text += QStringLiteral(", palette ") + QString::fromStdString(job_.palette);
    PrepareSettings prepare = job_.prepare;
    if (!job_.printSize.empty()) (void)applyPrintSize(prepare, job_.printSize, job_.dpi);
    QStringList steps;
    if (!job_.printSize.empty())
        steps << tr("print size %1 at %2 dpi").arg(QString::fromStdString(job_.printSize)).arg(job_.dpi);
    else if (prepare.width || prepare.height)
        steps << tr("size %1 x %2").arg(prepare.width).arg(prepare.height);
    else if (prepare.scale > 0)
        steps << tr("scale %1").arg(prepare.scale);
    if (prepare.pixelSize > 1) steps << tr("pixel size %1").arg(prepare.pixelSize);
    if (prepare.changesTone()) steps << tr("tone adjusted");
    jobLabel_->setText(tr("Job: %1; Adjust: %2").arg(text, steps.isEmpty() ? tr("none") : steps.join(", ")));
}

QStringList BatchDialog::inputs() const {
    QStringList list;
    for (int i = 0; i < inputs_->count(); ++i) list << inputs_->item(i)->text();
    return list;
}

void BatchDialog::setInputs(const QStringList& paths) {
    inputs_->clear();
    addInputs(paths);
}

void BatchDialog::addInputs(const QStringList& paths) {
    const QStringList have = inputs();
    for (const QString& p : paths)
        if (!p.isEmpty() && !have.contains(p)) inputs_->addItem(p);
}

namespace {
/// The local files and folders among a drag's URLs.
QStringList droppedPaths(const QMimeData* md) {
    QStringList paths;
    if (md && md->hasUrls())
        for (const QUrl& u : md->urls())
            if (u.isLocalFile()) paths << u.toLocalFile();
    return paths;
}
}  // namespace

void BatchDialog::dragEnterEvent(QDragEnterEvent* e) {
    if (!running_ && !droppedPaths(e->mimeData()).isEmpty()) e->acceptProposedAction();
}

void BatchDialog::dropEvent(QDropEvent* e) {
    const QStringList paths = droppedPaths(e->mimeData());
    if (running_ || paths.isEmpty()) return;
    addInputs(paths);
    e->acceptProposedAction();
}

QString BatchDialog::outputFolder() const { return outDir_->text().trimmed(); }
void BatchDialog::setOutputFolder(const QString& dir) { outDir_->setText(dir); }
QString BatchDialog::format() const { return format_->currentText().trimmed().toLower().remove(QLatin1Char('.')); }
void BatchDialog::setFormat(const QString& extension) { format_->setCurrentText(extension.toLower()); }
void BatchDialog::setSuffix(const QString& suffix) { suffix_->setText(suffix); }
void BatchDialog::setSkipExisting(bool on) { skipExisting_->setChecked(on); }
void BatchDialog::setJobs(int n) { jobs_->setValue(n); }

QString BatchDialog::statusText() const { return status_->text(); }

void BatchDialog::choose(Choice c) {
    QStringList paths;
    if (chooser_) {
        paths = chooser_(c);
    } else if (c == Choice::Files) {
        paths = QFileDialog::getOpenFileNames(this, tr("Add images"), QString(),
                                              tr("Images (*.png *.tif *.tiff *.jpg *.jpeg *.pgm *.ppm *.pbm *.pnm "
                                                 "*.bmp *.exr *.webp *.gif);;All files (*)"));
    } else {
        const QString d = QFileDialog::getExistingDirectory(
            this, c == Choice::Folder ? tr("Add a folder of images") : tr("Output folder"), outputFolder());
        if (!d.isEmpty()) paths << d;
    }
    if (c == Choice::OutputFolder) {
        if (!paths.isEmpty()) setOutputFolder(paths.front());
    } else {
        addInputs(paths);
    }
}

void BatchDialog::appendLog(const QString& line) { log_->appendPlainText(line); }

void BatchDialog::setRunning(bool on) {
    running_ = on;
    for (QWidget* w : settingsWidgets_) w->setEnabled(!on);
    start_->setEnabled(!on);
    cancel_->setEnabled(on);
    close_->setEnabled(!on);
}

bool BatchDialog::start() {
    if (running_) return false;
    failures_.clear();
    summary_ = BatchSummary{};
    error_.clear();
    log_->clear();
    auto refuse = [this](const QString& message) {
        error_ = message;
        status_->setText(tr("Not started: %1").arg(message));
        appendLog(tr("Not started: %1").arg(message));
        emit refused(message);
        return false;
    };
    if (inputs().isEmpty()) return refuse(tr("add input files or folders"));
    if (outputFolder().isEmpty()) return refuse(tr("choose an output folder"));
    if (format().isEmpty()) return refuse(tr("choose an output format"));
    if (jobProvider_) {
        JobSettings current;
        if (Status s = jobProvider_(current); !s) return refuse(fromStd(s.message()));
        setJob(current);
    }
    if (Status s = validateJob(job_); !s) return refuse(fromStd(s.message()));

    BatchLayout layout;
    layout.outDir = QFile::encodeName(outputFolder()).toStdString();
    layout.format = format().toStdString();
    layout.suffix = suffix_->text().toStdString();
    std::vector<std::string> in;
    for (const QString& p : inputs()) in.push_back(QFile::encodeName(p).toStdString());
    std::vector<BatchItem> items;
    if (Status s = planBatch(in, layout, items); !s) return refuse(fromStd(s.message()));
    if (items.empty()) return refuse(tr("the inputs hold no image files"));

    // Files at once x threads per file within the cores; a GPU job runs one file at a time on the device.
    const int cores = hardwareThreads();
    const bool gpu = jobUsesGpu(job_);
    int jobs = std::min(jobs_->value() > 0 ? jobs_->value() : cores, int(items.size()));
    if (gpu && jobs_->value() == 0) jobs = std::min(jobs, 2);
    JobSettings job = job_;
    job.threads = job_.threads > 0 ? std::max(1, std::min(job_.threads, cores / jobs)) : std::max(1, cores / jobs);
    if (const MethodInfo* m = nullptr; jobMethod(job, m) && m->param("threads"))
        job.params.set("threads", int64_t(job.threads));

    total_ = int(items.size());
    done_ = 0;
    progress_->setRange(0, total_);
    progress_->setValue(0);
    current_->setText(tr("Starting %1 files, %2 at once...").arg(total_).arg(jobs));
    status_->clear();
    stop_ = StopToken();
    setRunning(true);

    BatchOptions options;
    options.jobs = jobs;
    options.skipExisting = skipExisting_->isChecked();
    RunControl control;
    control.stop = stop_;
    control.threads = job.threads;
    auto gpuQueue = std::make_shared<std::mutex>();
    watcher_.setFuture(QtConcurrent::run([this, items, options, control, job, gpu, gpuQueue] {
        return runBatch(
            items, options,
            [this, job, gpu, gpuQueue](const BatchItem& item, const RunControl& rc) -> Status {
                const QString name = QString::fromStdString(item.input);
                QMetaObject::invokeMethod(
                    this,
                    [this, name] {
                        current_->setText(tr("%1 of %2 done; now: %3").arg(done_).arg(total_).arg(name));
                        emit progressed(done_, total_, name);
                    },
                    Qt::QueuedConnection);
                std::error_code ec;
                std::filesystem::create_directories(std::filesystem::path(item.output).parent_path(), ec);
                if (ec) return Status::error("cannot create the folder of '" + item.output + "': " + ec.message());
                std::unique_lock<std::mutex> device(*gpuQueue, std::defer_lock);
                if (gpu) device.lock();
                io::FileJobOptions fo;
                const io::FileJobOutcome r = io::runFileJob(job, item.input, item.output, fo, rc);
                if (r.kind == io::FileJobOutcome::Kind::Cancelled) return Status::cancelled();
                if (!r.written()) return Status::error(r.message);
                return Status::ok();
            },
            [this](size_t, const BatchItem& item, const BatchOutcome& outcome) {
                const QString input = QString::fromStdString(item.input);
                QString failure;
                if (outcome.kind == BatchOutcome::Kind::Failed) {
                    // "FILE: message", naming the input once
                    const QString m = QString::fromStdString(outcome.message);
                    failure = m.startsWith(input) ? m : input + QStringLiteral(": ") + m;
                }
                const bool counted = outcome.kind != BatchOutcome::Kind::Cancelled;
                QMetaObject::invokeMethod(
                    this,
                    [this, failure, counted, input] {
                        if (counted) ++done_;
                        progress_->setValue(done_);
                        if (!failure.isEmpty()) {
                            failures_ << failure;
                            appendLog(failure);
                        }
                        emit progressed(done_, total_, input);
                    },
                    Qt::QueuedConnection);
            },
            control);
    }));
    return true;
}

void BatchDialog::cancel() {
    if (!running_) return;
    stop_.requestStop();
    current_->setText(tr("Cancelling: no new file starts; files being halftoned stop and write nothing..."));
}

void BatchDialog::reject() {
    if (running_) return;  // Cancel batch first: closing never leaves a run without its window
    QDialog::reject();
}

void BatchDialog::closeEvent(QCloseEvent* e) {
    if (running_) {
        e->ignore();
        return;
    }
    QDialog::closeEvent(e);
}

}  // namespace halftone
