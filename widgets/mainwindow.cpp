#include "widgets/mainwindow.h"

#include <QAction>
#include <QUndoCommand>
#include <QUndoStack>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSet>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

#include "io/imagefile.h"
#include "io/preset.h"
#include "io/screenfile.h"
#include "widgets/adjustpanel.h"
#include "widgets/batchdialog.h"
#include "widgets/benchmarkpanel.h"
#include "widgets/compareview.h"
#include "widgets/formrows.h"
#include "widgets/imagepane.h"
#include "widgets/imageconvert.h"
#include "widgets/imageload.h"
#include "widgets/methodpanel.h"
#include "widgets/palettepanel.h"
#include "widgets/printview.h"
#include "widgets/qualitypanel.h"
#include "widgets/lessonview.h"
#include "widgets/scheduleview.h"

namespace halftone {

namespace {
constexpr int kMaxRecent = 8;

/// A synthetic picture used when the build has no embedded sample: ramps, a disc and fine lines.
Image testPattern() {
    const int w = 384, h = 256;
    Plane8 p(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int v = (x * 255) / (w - 1);
            const int dx = x - 288, dy = y - 128;
            if (dx * dx + dy * dy < 80 * 80) v = 255 - (y * 255) / (h - 1);
            if (y < 32) v = (x / 8) % 2 ? 230 : 25;
            p.at(y, x) = uint8_t(v);
        }
    return Image::gray(std::move(p));
}
}  // namespace

MainWindow::MainWindow(Registry& registry, QWidget* parent)
    : QMainWindow(parent), registry_(registry), jobs_(new JobRunner(this)) {
    setWindowTitle(tr("Halftone Studio"));
    setAcceptDrops(true);
    io::installScreenFileLoader();  // a screen from a file reads every image format, as the CLI's --screen does
    buildUi();
    buildMenus();
    debounce_.setSingleShot(true);
    debounce_.setInterval(150);
    connect(&debounce_, &QTimer::timeout, this, &MainWindow::runCurrent);
    connect(jobs_, &JobRunner::finished, this, &MainWindow::onFinished);
    connect(jobs_, &JobRunner::failed, this, &MainWindow::onFailed);
    connect(jobs_, &JobRunner::progress, this, &MainWindow::onProgress);
    connect(jobs_, &JobRunner::perceivedReady, this, [this](JobResultPtr updated) {
        if (current_ && current_->key == updated->key) current_ = updated;
        for (JobResultPtr& p : pinned_)
            if (p->key == updated->key) p = updated;
        showResults();
    });
    connect(panel_, &MethodPanel::changed, this, [this] {
        updateColourHint();
        // the scheduling tab follows the chosen method and device (ec/wavefront on the GPU: its strip schedule)
        if (const MethodInfo* m = panel_->method()) schedule_->showMethod(*m, panel_->device(), panel_->params());
        if (runWhenPaletteReady_ && !panel_->paletteWaiting()) {
            runWhenPaletteReady_ = false;
            runCurrent();
        } else if (autoRun_->isChecked() && image_) {
            debounce_.start();
        }
    });
    connect(adjust_, &AdjustPanel::changed, this, [this] {
        if (autoRun_->isChecked() && image_) debounce_.start();
    });
    connect(panel_, &MethodPanel::changed, this, &MainWindow::recordSettingsChange);
    connect(panel_, &MethodPanel::changed, this, &MainWindow::updateDpiField);
    updateDpiField();
    connect(adjust_, &AdjustPanel::changed, this, &MainWindow::recordSettingsChange);
    resetUndo();
    resize(1400, 900);
}

MainWindow::~MainWindow() {
    jobs_->cancel();
    if (saveWatcher_) {  // the save's progress is posted to this window: it ends first, leaving no file
        saveStop_.requestStop();
        saveWatcher_->waitForFinished();
    }
}

/// One change of the studio's settings: undo applies the settings before it, redo those after it.
class SettingsChange : public QUndoCommand {
public:
    SettingsChange(MainWindow* w, JobSettings before, JobSettings after)
        : QUndoCommand(MainWindow::tr("settings change")),
          w_(w),
          before_(std::move(before)),
          after_(std::move(after)) {}
    void undo() override { apply(before_); }
    void redo() override {
        if (done_) apply(after_);
        done_ = true;  // pushed after the change was made
    }

private:
    void apply(const JobSettings& job) {
        w_->undoApplying_ = true;
        (void)w_->applyJob(job);
        w_->undoApplying_ = false;
        w_->undoLast_ = job;
    }
    MainWindow* w_;
    JobSettings before_, after_;
    bool done_ = false;
};

void MainWindow::recordSettingsChange() {
    JobSettings now;
    if (undoApplying_ || !currentJob(now) || now == undoLast_) return;
    undo_->push(new SettingsChange(this, undoLast_, now));
    undoLast_ = now;
}

void MainWindow::resetUndo() {
    undo_->clear();
    JobSettings now;
    if (currentJob(now)) undoLast_ = now;
}

void MainWindow::saveWindowState(QSettings& settings) const {
    settings.beginGroup(QStringLiteral("window"));
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("state"), saveState());
    settings.endGroup();
}

bool MainWindow::restoreWindowState(QSettings& settings) {
    settings.beginGroup(QStringLiteral("window"));
    const QByteArray geometry = settings.value(QStringLiteral("geometry")).toByteArray();
    const QByteArray state = settings.value(QStringLiteral("state")).toByteArray();
    settings.endGroup();
    if (geometry.isEmpty()) return false;
    // The docks first: hidden ones no longer count in the window's minimum size.
    if (!state.isEmpty()) restoreState(state);
    restoreGeometry(geometry);
    return true;
}

QStringList MainWindow::recentFiles() const { return QSettings().value(QStringLiteral("recentFiles")).toStringList(); }

void MainWindow::addRecent(const QString& path) {
    QStringList list = recentFiles();
    const QString abs = QFileInfo(path).absoluteFilePath();
    list.removeAll(abs);
    list.prepend(abs);
    while (list.size() > kMaxRecent) list.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), list);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList list = recentFiles();
    for (const QString& f : list) recentMenu_->addAction(f, this, [this, f] { openFile(f); });
    recentMenu_->setEnabled(!list.isEmpty());
}

void MainWindow::loadAsync(std::function<Status(Image&, QString&, const StopToken&)> producer, const QString& name,
                           const QString& path) {
    const quint64 gen = ++loadGeneration_;
    loadStop_.requestStop();  // a newer open supersedes the one still decoding
    loadStop_ = StopToken();
    const StopToken stop = loadStop_;
    loading_ = true;
    cancelAction_->setEnabled(true);
    setStatus(StatusTopic::Image, tr("Loading %1... (Esc cancels)").arg(name));
    auto* watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher, gen, name, path] {
        const Loaded loaded = watcher->result();
        watcher->deleteLater();
        if (gen != loadGeneration_) return;  // a newer open superseded this one
        loading_ = false;
        cancelAction_->setEnabled(jobs_->busy());
        imageReady(loaded, name, path);
    });
    watcher->setFuture(QtConcurrent::run([producer, stop, name]() {
        Loaded l;
        try {
            Image im;
            QString notes;
            l.status = producer(im, notes, stop);
            if (l.status) {
                auto shared = std::make_shared<const Image>(std::move(im));
                l.display = toDisplayImage(shared);
                l.levels = reductions(l.display);
                l.image = shared;
                l.notes = notes;
            }
        } catch (const std::exception&) {  // out of memory for the image or its display copies
            l = Loaded{};
            l.status = Status::error(name.toStdString() + ": not enough memory to open and show this image");
        }
        return l;
    }));
}

void MainWindow::openFile(const QString& path) {
    loadAsync(
        [path](Image& im, QString& notes, const StopToken& stop) {
            io::ReadOptions options;
            options.stop = stop;                              // Cancel (Esc) stops the decoder between strips
            return readImageFile(path, im, options, &notes);  // Qt's image readers in a build without OpenImageIO
        },
        QFileInfo(path).fileName(), path);
}

void MainWindow::openSample() {
    QStringList samples = QDir(QStringLiteral(":/samples"))
                              .entryList({QStringLiteral("*.png"), QStringLiteral("*.jpg"), QStringLiteral("*.pgm")},
                                         QDir::Files, QDir::Name);
    if (samples.isEmpty()) {
        setImage(testPattern(), tr("test pattern (no embedded sample in this build)"));
        return;
    }
    // Prefer a picture with tones and edges (the astronaut or the cat) when the set has one.
    QString pick = samples.front();
    for (const QString& pref :
         {QStringLiteral("astronaut"), QStringLiteral("chelsea"), QStringLiteral("coffee"), QStringLiteral("moon")}) {
        const auto it =
            std::find_if(samples.begin(), samples.end(), [&](const QString& s) { return s.startsWith(pref); });
        if (it != samples.end()) {
            pick = *it;
            break;
        }
    }
    const QString res = QStringLiteral(":/samples/") + pick;
    loadAsync(
        [res](Image& im, QString&, const StopToken&) {
            const QImage q(res);
            if (q.isNull()) return Status::error(res.toStdString() + ": the embedded sample cannot be decoded");
            im = fromQImage(q);
            return Status::ok();
        },
        tr("sample: %1").arg(pick), QString());
}

void MainWindow::setImage(Image image, const QString& name) {
    auto holder = std::make_shared<Image>(std::move(image));
    loadAsync(
        [holder](Image& im, QString&, const StopToken&) {
            im = std::move(*holder);
            return Status::ok();
        },
        name, QString());
}

void MainWindow::paste() {
    const QImage q = QGuiApplication::clipboard()->image();
    if (q.isNull()) {
        showError(tr("Nothing to paste"), tr("The clipboard holds no image."), StatusTopic::Image);
        return;
    }
    setImage(fromQImage(q), tr("pasted image"));
}

void MainWindow::imageReady(const Loaded& loaded, const QString& name, const QString& path) {
    if (loaded.status.isCancelled()) {
        setStatus(StatusTopic::Image, image_ ? tr("Opening %1 cancelled; %2 stays open").arg(name, imageName_)
                                             : tr("Opening %1 cancelled").arg(name));
        emit loadCancelled(name);
        if (screenshotPending_) QTimer::singleShot(300, this, &MainWindow::takeScreenshot);
        return;
    }
    if (!loaded.status) {
        showError(tr("Cannot open image"), QString::fromStdString(loaded.status.message()), StatusTopic::Image);
        if (screenshotPending_) QTimer::singleShot(300, this, &MainWindow::takeScreenshot);  // show the error
        return;
    }
    jobs_->cancel();
    image_ = loaded.image;
    ++imageId_;
    imageName_ = name;
    imagePath_ = path;
    originalDisplay_ = loaded.display;
    originalLevels_ = loaded.levels;
    current_.reset();
    currentStale_ = false;
    pinned_.clear();
    if (!path.isEmpty()) addRecent(path);
    lesson_->setLoadedImage(*image_);
    panel_->setImage(image_);  // an auto palette is made again from this image (runCurrent waits for it)
    // The platform appends the application's display name unless the title already ends with it.
    setWindowTitle(tr("%1 (%2 x %3)").arg(name).arg(image_->width()).arg(image_->height()) +
                   QStringLiteral(" \u2014 ") + tr("Halftone Studio"));
    statusMessages_.clear();
    setStatus(StatusTopic::Image,
              loaded.notes.isEmpty() ? tr("Opened %1").arg(name) : tr("Opened %1: %2").arg(name, loaded.notes));
    updateColourHint();
    showResults();
    emit imageLoaded(name);
    runCurrent();
}

void MainWindow::cancelRun() {
    if (loading_) {
        loadStop_.requestStop();
        setStatus(StatusTopic::Image, tr("Cancelling the open..."));
    }
    if (!jobs_->busy()) return;  // nothing to stop: the finished run's stage text stays true
    jobs_->cancel();
    stageLabel_->setText(tr("Cancelling..."));
}

void MainWindow::onProgress(quint64 gen, double fraction, const QString& stage, qint64 rowsDone,
                            const QVector<int>& frontier) {
    if (gen != currentGen_) return;
    progress_->setValue(int(std::lround(fraction * 1000)));
    if (!stage.isEmpty()) stageLabel_->setText(stage);
    if (rowsDone >= 0) compare_->setWavefront(rowsDone, frontier);
}

void MainWindow::onFinished(quint64 gen, JobResultPtr result, bool fromCache) {
    if (gen != currentGen_) return;
    current_ = result;
    currentStale_ = false;
    cancelAction_->setEnabled(loading_);
    progress_->setValue(1000);
    compare_->clearWavefront();
    stageLabel_->setText(fromCache
                             ? tr("%1 (from cache)").arg(result->methodId)
                             : tr("%1 done in %2 ms").arg(result->methodId).arg(result->seconds * 1000, 0, 'f', 1));
    // A note (e.g. "GPU not usable, ran on the CPU") belongs to this run; a run without one clears the last.
    setStatus(StatusTopic::Run, result->note);
    clearStatus(StatusTopic::Save);
    if (perceivedAction_->isChecked() && result->perceived.isNull()) jobs_->computePerceived(result, image_);
    if (printPreviewAction_->isChecked()) jobs_->computePrintPreview(result);
    print_->setResult(result, resultDpi(*result));
    showResults();
    const bool shoot = screenshotPending_;  // decided before listeners of resultShown may queue more runs
    emit resultShown(result);
    if (shoot) QTimer::singleShot(300, this, &MainWindow::takeScreenshot);
}

void MainWindow::onFailed(quint64 gen, const QString& message, bool cancelled) {
    if (gen != currentGen_) return;
    runEnded(message, cancelled);
}

void MainWindow::runEnded(const QString& message, bool cancelled) {
    cancelAction_->setEnabled(loading_);
    compare_->clearWavefront();
    progress_->setValue(0);
    if (current_) currentStale_ = true;
    stageLabel_->setText(
        cancelled ? (current_ ? tr("Cancelled; the result on screen is the previous one.") : tr("Cancelled."))
                  : tr("Failed: %1").arg(message));
    if (!cancelled)
        showError(tr("The run failed"), message, StatusTopic::Run);
    else
        setStatus(StatusTopic::Run,
                  current_ ? tr("Run cancelled; the result on screen is the previous one.") : tr("Run cancelled."));
    showResults();
    emit runFailed(message, cancelled);
    if (screenshotPending_) QTimer::singleShot(300, this, &MainWindow::takeScreenshot);
}

QVector<JobResultPtr> MainWindow::shownResults() const {
    QVector<JobResultPtr> shown = pinned_;
    if (current_ &&
        std::none_of(pinned_.begin(), pinned_.end(), [this](const JobResultPtr& p) { return p->key == current_->key; }))
        shown.push_back(current_);
    return shown;
}

QStringList MainWindow::resultChoices() const {
    QStringList items;
    for (int i = 0; i < splitChoice_->count(); ++i) items << splitChoice_->itemText(i);
    return items;
}

QString MainWindow::paneLabel(const JobResultPtr& r, int pinIndex) const {
    const bool isCurrent = current_ && r->key == current_->key;
    QString head;
    if (pinIndex >= 0)
        head = isCurrent ? tr("Pin %1 (current)").arg(pinIndex + 1) : tr("Pin %1").arg(pinIndex + 1);
    else
        head = tr("Current");
    QString text = head + QStringLiteral(": ") + r->label();
    if (isCurrent && currentStale_) text += tr("\nPrevious result: the last run was cancelled or failed");
    return text;
}

void MainWindow::showResults() {
    // The original pane shows what the current result was made from: the prepared image when Adjust did something.
    const PreparedPtr prepared = current_ ? current_->prepared : nullptr;
    if (prepared && image_) {
        const QString what = describePrepare(prepared->settings, prepared->image->width(), prepared->image->height());
        compare_->setOriginal(prepared->display,
                              tr("Original, prepared: %1\n%2 x %3 (opened at %4 x %5): %6")
                                  .arg(imageName_)
                                  .arg(prepared->display.width())
                                  .arg(prepared->display.height())
                                  .arg(image_->width())
                                  .arg(image_->height())
                                  .arg(what),
                              prepared->levels);
    } else {
        compare_->setOriginal(
            originalDisplay_,
            image_ ? tr("Original: %1\n%2 x %3").arg(imageName_).arg(image_->width()).arg(image_->height())
                   : tr("No image yet: File > Open (Ctrl+O), drop a file here, or paste one (Ctrl+V)"),
            originalLevels_);
    }
    QVector<ComparePane> panes;
    const QVector<JobResultPtr> shown = shownResults();
    splitChoice_->blockSignals(true);
    const int keep = splitChoice_->currentIndex();
    splitChoice_->clear();
    for (int i = 0; i < shown.size(); ++i) {
        const JobResultPtr& r = shown[i];
        const int pinIndex = i < pinned_.size() ? i : -1;
        const bool isCurrent = current_ && r->key == current_->key;
        ComparePane pane{r->display, r->perceived, paneLabel(r, pinIndex), r->displayLevels, r->perceivedLevels};
        pane.toolTip = r->description.longText;
        pane.current = isCurrent;
        pane.printable = r->halftone && r->halftone->space == ColorSpace::CMYK;
        pane.printPreview = r->printPreview;
        pane.perceivedPrint = r->perceivedPrint;
        pane.printPreviewLevels = r->printPreviewLevels;
        pane.perceivedPrintLevels = r->perceivedPrintLevels;
        pane.panel = r->panel;
        pane.perceivedPanel = r->perceivedPanel;
        pane.panelLevels = r->panelLevels;
        pane.perceivedPanelLevels = r->perceivedPanelLevels;
        if (r->target) pane.panelName = QString::fromStdString(r->target->name);
        panes.push_back(pane);
        const QString who = pinIndex >= 0 ? tr("Pin %1").arg(pinIndex + 1) : tr("Current");
        splitChoice_->addItem(who + QStringLiteral(": ") + r->description.shortText);
        splitChoice_->setItemData(i, r->description.longText, Qt::ToolTipRole);
    }
    splitChoice_->setCurrentIndex(keep >= 0 && keep < shown.size() ? keep : int(shown.size()) - 1);
    splitChoice_->setEnabled(!shown.isEmpty());
    splitChoice_->blockSignals(false);
    compare_->setResults(panes);
    compare_->setSplitResult(splitChoice_->currentIndex());
    printPreviewAction_->setEnabled(compare_->hasPrintPreview());
    panelAction_->setEnabled(compare_->hasPanel());
    quality_->setResults(image_, shown, imageName_);
}

void MainWindow::setStatus(StatusTopic topic, const QString& text) {
    statusMessages_.erase(std::remove_if(statusMessages_.begin(), statusMessages_.end(),
                                         [topic](const auto& m) { return m.first == topic; }),
                          statusMessages_.end());
    if (!text.isEmpty()) statusMessages_.push_back({topic, text});
    if (statusMessages_.isEmpty())
        statusBar()->clearMessage();
    else
        statusBar()->showMessage(statusMessages_.back().second);
}

void MainWindow::updateColourHint() {
    if (image_ && image_->space != ColorSpace::Gray && panel_->colorMode() == ColorMode::Gray &&
        !panel_->palettePanel()->wantsPalette())
        setStatus(StatusTopic::ColourHint,
                  tr("%1 is in colour; the colour mode is Gray (luma). Choose RGB or CMYK to halftone each channel.")
                      .arg(imageName_));
    else
        clearStatus(StatusTopic::ColourHint);
}

void MainWindow::showError(const QString& title, const QString& text, StatusTopic topic) {
    lastError_ = text;
    errorBox_ = openErrorBox(this, title, text, QStringLiteral("errorBox"), errorBox_);
    setStatus(topic, QString(text).replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified());
    emit errorShown(text);
}

void MainWindow::pinCurrent() {
    if (!current_) return;
    for (const JobResultPtr& p : pinned_)
        if (p->key == current_->key) return;
    pinned_.push_back(current_);
    JobResultPtr dropped;
    if (pinned_.size() > kMaxPinned) dropped = pinned_.takeFirst();
    if (dropped)
        setStatus(StatusTopic::Pins, tr("Pin dropped: %1 (at most %2 pins; the oldest makes room)")
                                         .arg(dropped->description.shortText)
                                         .arg(kMaxPinned));
    else
        clearStatus(StatusTopic::Pins);
    showResults();
    if (dropped) emit pinDropped(dropped);
}

QImage MainWindow::copyImage() const {
    if (!current_) return {};
    // The picture as the pane shows it unfiltered: the print preview of a CMYK result while that view is on.
    const bool print = printPreviewAction_->isChecked() && !current_->printPreview.isNull();
    return (print ? current_->printPreview : current_->display).copy();
}

void MainWindow::setAutoRun(bool on) { autoRun_->setChecked(on); }
void MainWindow::setPerceivedView(bool on) { perceivedAction_->setChecked(on); }
void MainWindow::setSplitView(bool on) { splitAction_->setChecked(on); }
void MainWindow::setPrintPreview(bool on) { printPreviewAction_->setChecked(on); }

void MainWindow::setScreenshotPath(const QString& path, const QString& tab) {
    screenshotPath_ = path;
    screenshotTab_ = tab;
    screenshotPending_ = !path.isEmpty();
}

void MainWindow::takeScreenshot() {
    if (!screenshotPending_) return;
    screenshotPending_ = false;
    for (int i = 0; i < tabs_->count(); ++i)
        if (!screenshotTab_.isEmpty() && tabs_->tabText(i).compare(screenshotTab_, Qt::CaseInsensitive) == 0)
            tabs_->setCurrentIndex(i);
    if (tabs_->currentWidget() == bench_ && bench_->points().isEmpty() && !screenshotSweepTried_) {
        // The benchmark tab: run a small sweep first so the charts have data (once: a sweep with nothing
        // to run still ends, and the screenshot then shows the panel's message instead of data).
        screenshotSweepTried_ = true;
        connect(
            bench_, &BenchmarkPanel::sweepFinished, this,
            [this] {
                screenshotPending_ = true;
                screenshotTab_.clear();
                QTimer::singleShot(200, this, &MainWindow::takeScreenshot);
            },
            Qt::SingleShotConnection);
        bench_->start();
        return;
    }
    if (tabs_->currentWidget() == quality_ && quality_->running()) {
        // The quality tab: wait for the measures of the results on screen.
        connect(
            quality_, &QualityPanel::measured, this,
            [this] {
                screenshotPending_ = true;
                QTimer::singleShot(200, this, &MainWindow::takeScreenshot);
            },
            Qt::SingleShotConnection);
        return;
    }
    // Let layouts, fit-to-window and queued plot replots settle before grabbing.
    QTimer::singleShot(200, this, [this] {
        const QPixmap shot = grab();
        const bool ok = !shot.isNull() && shot.save(screenshotPath_, "PNG");
        emit screenshotSaved(screenshotPath_, ok);
    });
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls() || e->mimeData()->hasImage()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const QMimeData* md = e->mimeData();
    for (const QUrl& u : md->urls())
        if (u.isLocalFile()) {
            openFile(u.toLocalFile());
            e->acceptProposedAction();
            return;
        }
    if (md->hasImage()) {
        setImage(fromQImage(qvariant_cast<QImage>(md->imageData())), tr("dropped image"));
        e->acceptProposedAction();
    }
}

void MainWindow::closeEvent(QCloseEvent* e) {
    jobs_->cancel();
    bench_->cancel();
    QMainWindow::closeEvent(e);
}

}  // namespace halftone
