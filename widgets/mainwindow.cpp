#include "widgets/mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "io/imagefile.h"
#include "widgets/benchmarkpanel.h"
#include "widgets/compareview.h"
#include "widgets/imageconvert.h"
#include "widgets/methodpanel.h"
#include "widgets/qualitypanel.h"
#include "widgets/scheduleview.h"

namespace halftone {

namespace {
constexpr int kMaxRecent = 8;
constexpr int kMaxPinned = CompareView::kMaxResults - 1;
/// Perceived views are computed with every run up to this size; larger ones on demand.
constexpr qint64 kPerceivedAlwaysPixels = qint64(4096) * 4096;

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

MainWindow::MainWindow(Registry& registry, QWidget* parent) : QMainWindow(parent), registry_(registry), jobs_(new JobRunner(this)) {
    setWindowTitle(tr("Halftone Studio"));
    setAcceptDrops(true);
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
        if (autoRun_->isChecked() && image_) debounce_.start();
    });
    resize(1400, 900);
}

MainWindow::~MainWindow() { jobs_->cancel(); }

void MainWindow::buildUi() {
    // Left: method panel, run controls.
    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(2, 2, 2, 2);
    panel_ = new MethodPanel(registry_);
    auto* scroll = new QScrollArea;
    scroll->setWidget(panel_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    sideLayout->addWidget(scroll, 1);
    autoRun_ = new QCheckBox(tr("Run when a setting changes"));
    autoRun_->setChecked(true);
    sideLayout->addWidget(autoRun_);
    auto* buttons = new QHBoxLayout;
    runButton_ = new QPushButton(tr("Run"));
    runButton_->setObjectName(QStringLiteral("run"));
    runButton_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setObjectName(QStringLiteral("cancel"));
    cancelButton_->setEnabled(false);
    cancelButton_->setShortcut(QKeySequence(Qt::Key_Escape));
    buttons->addWidget(runButton_);
    buttons->addWidget(cancelButton_);
    sideLayout->addLayout(buttons);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    sideLayout->addWidget(progress_);
    stageLabel_ = new QLabel;
    stageLabel_->setWordWrap(true);
    sideLayout->addWidget(stageLabel_);
    auto* dock = new QDockWidget(tr("Method"), this);
    dock->setObjectName(QStringLiteral("methodDock"));
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    dock->setWidget(side);
    dock->setMinimumWidth(300);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    connect(runButton_, &QPushButton::clicked, this, &MainWindow::runCurrent);
    connect(cancelButton_, &QPushButton::clicked, this, &MainWindow::cancelRun);

    // Centre: tabs.
    tabs_ = new QTabWidget;
    auto* comparePage = new QWidget;
    auto* cl = new QVBoxLayout(comparePage);
    cl->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QToolBar;
    compare_ = new CompareView;
    cl->addWidget(bar);
    cl->addWidget(compare_, 1);
    bar->addAction(tr("Fit"), QKeySequence(Qt::Key_F), compare_, &CompareView::fitToWindow)->setToolTip(tr("Fit to window (F)"));
    bar->addAction(tr("1:1"), compare_, &CompareView::actualSize)->setToolTip(tr("Actual pixels (0)"));
    bar->addAction(tr("Zoom in"), [this] { compare_->viewState()->setZoom(ViewState::stepZoom(compare_->viewState()->zoom(), 1)); })
        ->setToolTip(tr("Zoom in (+ or wheel); integer zooms are pixel-exact"));
    bar->addAction(tr("Zoom out"), [this] { compare_->viewState()->setZoom(ViewState::stepZoom(compare_->viewState()->zoom(), -1)); });
    auto* zoomLabel = new QLabel;
    zoomLabel->setMinimumWidth(110);
    zoomLabel->setToolTip(tr("At 1x and above every image pixel is a block of screen pixels (nearest neighbour); "
                             "below 100% pixels are averaged, like a coarse perceived view"));
    bar->addWidget(zoomLabel);
    connect(compare_->viewState(), &ViewState::changed, zoomLabel, [this, zoomLabel] {
        const double z = compare_->viewState()->zoom();
        zoomLabel->setText(z >= 1 ? QStringLiteral(" %1x").arg(z, 0, 'g', 3) : QStringLiteral(" %1% (averaged)").arg(z * 100, 0, 'f', 1));
    });
    bar->addSeparator();
    perceivedAction_ = bar->addAction(tr("Perceived"));
    perceivedAction_->setCheckable(true);
    perceivedAction_->setToolTip(tr("Show each halftone through the HVS Gaussian filter (sigma 1.2 px), as seen from a distance"));
    connect(perceivedAction_, &QAction::toggled, this, [this](bool on) {
        compare_->setPerceived(on);
        if (on && image_) {
            if (current_) jobs_->computePerceived(current_, image_);
            for (const JobResultPtr& p : pinned_) jobs_->computePerceived(p, image_);
        }
    });
    splitAction_ = bar->addAction(tr("Split"));
    splitAction_->setCheckable(true);
    splitAction_->setToolTip(tr("One pane: original left of the divider, a result right of it (drag the divider)"));
    connect(splitAction_, &QAction::toggled, compare_, &CompareView::setSplit);
    splitChoice_ = new QComboBox;
    splitChoice_->setToolTip(tr("Result shown right of the split divider"));
    splitChoice_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    bar->addWidget(splitChoice_);
    connect(splitChoice_, &QComboBox::currentIndexChanged, compare_, &CompareView::setSplitResult);
    bar->addSeparator();
    bar->addAction(tr("Pin"), this, &MainWindow::pinCurrent)->setToolTip(tr("Keep the current result on screen to compare with the next runs (up to %1)").arg(kMaxPinned));
    bar->addAction(tr("Clear pins"), [this] {
        pinned_.clear();
        showResults();
    });
    bar->addSeparator();
    bar->addAction(tr("Save..."), this, &MainWindow::saveResultDialog);
    bar->addAction(tr("Copy"), [this] {
        if (current_) QGuiApplication::clipboard()->setImage(current_->display.copy());
    });
    tabs_->addTab(comparePage, tr("Compare"));
    schedule_ = new ScheduleView;
    tabs_->addTab(schedule_, tr("Scheduling"));
    bench_ = new BenchmarkPanel(registry_);
    tabs_->addTab(bench_, tr("Benchmark"));
    quality_ = new QualityPanel(registry_);
    tabs_->addTab(quality_, tr("Quality"));
    setCentralWidget(tabs_);
    statusBar()->showMessage(tr("Open an image (Ctrl+O), drop one here, or paste (Ctrl+V)."));
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open image"), QFileInfo(imagePath_).absolutePath(),
                                                       tr("Images (*.png *.tif *.tiff *.jpg *.jpeg *.pgm *.ppm *.pbm *.pnm *.bmp *.exr *.webp *.gif);;All files (*)"));
        if (!f.isEmpty()) openFile(f);
    });
    recentMenu_ = file->addMenu(tr("Open &recent"));
    file->addAction(tr("Open &sample"), this, &MainWindow::openSample);
    file->addAction(tr("&Paste image"), QKeySequence::Paste, this, &MainWindow::paste);
    file->addSeparator();
    file->addAction(tr("&Save result..."), QKeySequence::Save, this, &MainWindow::saveResultDialog);
    file->addAction(tr("&Copy result"), QKeySequence::Copy, this, [this] {
        if (current_) QGuiApplication::clipboard()->setImage(current_->display.copy());
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    updateRecentMenu();
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

void MainWindow::loadAsync(std::function<Status(Image&, QString&)> producer, const QString& name, const QString& path) {
    const quint64 gen = ++loadGeneration_;
    statusBar()->showMessage(tr("Loading %1...").arg(name));
    auto* watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher, gen, name, path] {
        const Loaded loaded = watcher->result();
        watcher->deleteLater();
        if (gen != loadGeneration_) return;  // a newer open superseded this one
        imageReady(loaded, name, path);
    });
    watcher->setFuture(QtConcurrent::run([producer]() {
        Loaded l;
        Image im;
        QString notes;
        l.status = producer(im, notes);
        if (l.status) {
            auto shared = std::make_shared<const Image>(std::move(im));
            l.display = toDisplayImage(shared);
            l.levels = reductions(l.display);
            l.image = shared;
            l.notes = notes;
        }
        return l;
    }));
}

void MainWindow::openFile(const QString& path) {
    const std::string file = QFile::encodeName(path).toStdString();
    loadAsync(
        [file](Image& im, QString& notes) {
            io::ReadInfo info;
            Status s = io::readImage(file, im, {}, &info);
            notes = QString::fromStdString(info.notes);
            return s;
        },
        QFileInfo(path).fileName(), path);
}

void MainWindow::openSample() {
    QStringList samples = QDir(QStringLiteral(":/samples")).entryList({QStringLiteral("*.png"), QStringLiteral("*.jpg"), QStringLiteral("*.pgm")}, QDir::Files, QDir::Name);
    if (samples.isEmpty()) {
        setImage(testPattern(), tr("test pattern (no embedded sample in this build)"));
        return;
    }
    // Prefer a picture with tones and edges (the astronaut or the cat) when the set has one.
    QString pick = samples.front();
    for (const QString& pref : {QStringLiteral("astronaut"), QStringLiteral("chelsea"), QStringLiteral("coffee"), QStringLiteral("moon")}) {
        const auto it = std::find_if(samples.begin(), samples.end(), [&](const QString& s) { return s.startsWith(pref); });
        if (it != samples.end()) { pick = *it; break; }
    }
    const QString res = QStringLiteral(":/samples/") + pick;
    loadAsync(
        [res](Image& im, QString&) {
            const QImage q(res);
            if (q.isNull()) return Status::error(res.toStdString() + ": the embedded sample cannot be decoded");
            im = fromQImage(q);
            return Status::ok();
        },
        tr("sample: %1").arg(pick), QString());
}

void MainWindow::setImage(Image image, const QString& name) {
    auto holder = std::make_shared<Image>(std::move(image));
    loadAsync([holder](Image& im, QString&) { im = std::move(*holder); return Status::ok(); }, name, QString());
}

void MainWindow::paste() {
    const QImage q = QGuiApplication::clipboard()->image();
    if (q.isNull()) {
        showError(tr("Nothing to paste"), tr("The clipboard holds no image."));
        return;
    }
    setImage(fromQImage(q), tr("pasted image"));
}

void MainWindow::imageReady(const Loaded& loaded, const QString& name, const QString& path) {
    if (!loaded.status) {
        showError(tr("Cannot open image"), QString::fromStdString(loaded.status.message()));
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
    pinned_.clear();
    if (!path.isEmpty()) addRecent(path);
    setWindowTitle(tr("Halftone Studio - %1 (%2 x %3)").arg(name).arg(image_->width()).arg(image_->height()));
    if (image_->space != ColorSpace::Gray && panel_->colorMode() == ColorMode::Gray)
        statusBar()->showMessage(tr("%1 is in colour; the colour mode is Gray (luma). Choose RGB or CMYK to halftone each channel.").arg(name));
    else
        statusBar()->showMessage(tr("Opened %1").arg(name));
    if (!loaded.notes.isEmpty()) statusBar()->showMessage(loaded.notes);
    showResults();
    emit imageLoaded(name);
    runCurrent();
}

void MainWindow::runCurrent() {
    debounce_.stop();
    if (!image_) return;
    const MethodInfo* m = panel_->method();
    if (!m) return;
    JobRequest r;
    r.image = image_;
    r.imageId = imageId_;
    r.method = m;
    r.params = panel_->params();
    r.device = panel_->device();
    r.color = panel_->colorMode();
    r.threads = panel_->threads();
    r.perceived = perceivedAction_->isChecked() || qint64(image_->width()) * image_->height() <= kPerceivedAlwaysPixels;
    currentGen_ = jobs_->submit(r);
    cancelButton_->setEnabled(jobs_->busy());
    progress_->setValue(0);
    stageLabel_->setText(tr("Running %1...").arg(QString::fromStdString(m->id())));
}

void MainWindow::cancelRun() {
    jobs_->cancel();
    stageLabel_->setText(tr("Cancelling..."));
}

void MainWindow::onProgress(quint64 gen, double fraction, const QString& stage, qint64 rowsDone, const QVector<int>& frontier) {
    if (gen != currentGen_) return;
    progress_->setValue(int(std::lround(fraction * 1000)));
    if (!stage.isEmpty()) stageLabel_->setText(stage);
    if (rowsDone >= 0) compare_->setWavefront(rowsDone, frontier);
}

void MainWindow::onFinished(quint64 gen, JobResultPtr result, bool fromCache) {
    if (gen != currentGen_) return;
    current_ = result;
    cancelButton_->setEnabled(false);
    progress_->setValue(1000);
    compare_->clearWavefront();
    stageLabel_->setText(fromCache ? tr("%1 (from cache)").arg(result->methodId) : tr("%1 done in %2 ms").arg(result->methodId).arg(result->seconds * 1000, 0, 'f', 1));
    if (!result->note.isEmpty()) statusBar()->showMessage(result->note);
    if (perceivedAction_->isChecked() && result->perceived.isNull()) jobs_->computePerceived(result, image_);
    showResults();
    const bool shoot = screenshotPending_;  // decided before listeners of resultShown may queue more runs
    emit resultShown(result);
    if (shoot) QTimer::singleShot(300, this, &MainWindow::takeScreenshot);
}

void MainWindow::onFailed(quint64 gen, const QString& message, bool cancelled) {
    if (gen != currentGen_) return;
    cancelButton_->setEnabled(false);
    compare_->clearWavefront();
    progress_->setValue(0);
    stageLabel_->setText(cancelled ? tr("Cancelled.") : tr("Failed: %1").arg(message));
    if (!cancelled) showError(tr("The run failed"), message);
    emit runFailed(message, cancelled);
    if (screenshotPending_) QTimer::singleShot(300, this, &MainWindow::takeScreenshot);
}

void MainWindow::showResults() {
    compare_->setOriginal(originalDisplay_, image_ ? tr("original: %1\n%2 x %3").arg(imageName_).arg(image_->width()).arg(image_->height()) : QString(),
                         originalLevels_);
    QVector<ComparePane> panes;
    QVector<JobResultPtr> shown = pinned_;
    if (current_ && std::none_of(pinned_.begin(), pinned_.end(), [this](const JobResultPtr& p) { return p->key == current_->key; }))
        shown.push_back(current_);
    splitChoice_->blockSignals(true);
    const int keep = splitChoice_->currentIndex();
    splitChoice_->clear();
    for (const JobResultPtr& r : shown) {
        panes.push_back({r->display, r->perceived, r->label(), r->displayLevels, r->perceivedLevels});
        splitChoice_->addItem(r->methodId + QStringLiteral(" [") + QString::fromLatin1(toString(r->device)) + QStringLiteral("]"));
    }
    splitChoice_->setCurrentIndex(keep >= 0 && keep < shown.size() ? keep : int(shown.size()) - 1);
    splitChoice_->blockSignals(false);
    compare_->setResults(panes);
    compare_->setSplitResult(splitChoice_->currentIndex());
    quality_->setResults(image_, shown);
}

bool MainWindow::saveResult(const QString& path) {
    if (!current_ || !current_->halftone) {
        showError(tr("Nothing to save"), tr("Run a method first."));
        return false;
    }
    io::WriteOptions opt;
    opt.levels = int(current_->params.getInt("levels", 256));
    Status s = io::writeImage(QFile::encodeName(path).toStdString(), *current_->halftone, opt);
    if (!s) {
        showError(tr("Cannot save"), QString::fromStdString(s.message()));
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(path));
    return true;
}

void MainWindow::saveResultDialog() {
    if (!current_) return;
    QString suggested = QFileInfo(imagePath_).completeBaseName();
    if (suggested.isEmpty()) suggested = QStringLiteral("halftone");
    suggested += QLatin1Char('-') + QString(current_->methodId).replace(QLatin1Char('/'), QLatin1Char('-')) + QStringLiteral(".png");
    const QString f = QFileDialog::getSaveFileName(this, tr("Save result"), suggested,
                                                   tr("PNG (*.png);;TIFF, 1-bit when binary (*.tif *.tiff);;PBM, binary (*.pbm);;PGM/PPM (*.pgm *.ppm)"));
    if (!f.isEmpty()) saveResult(f);
}

void MainWindow::showError(const QString& title, const QString& text) {
    lastError_ = text;
    if (errorBox_) errorBox_->close();
    // Window-modal but not blocking, so background jobs, tests and --screenshot carry on.
    auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("errorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    errorBox_ = box;
    statusBar()->showMessage(text);
    emit errorShown(text);
}

void MainWindow::setAutoRun(bool on) { autoRun_->setChecked(on); }

void MainWindow::pinCurrent() {
    if (!current_) return;
    for (const JobResultPtr& p : pinned_)
        if (p->key == current_->key) return;
    pinned_.push_back(current_);
    if (pinned_.size() > kMaxPinned) pinned_.removeFirst();
    showResults();
}

void MainWindow::setPerceivedView(bool on) { perceivedAction_->setChecked(on); }
void MainWindow::setSplitView(bool on) { splitAction_->setChecked(on); }

void MainWindow::setScreenshotPath(const QString& path, const QString& tab) {
    screenshotPath_ = path;
    screenshotTab_ = tab;
    screenshotPending_ = !path.isEmpty();
}

void MainWindow::takeScreenshot() {
    if (!screenshotPending_) return;
    screenshotPending_ = false;
    for (int i = 0; i < tabs_->count(); ++i)
        if (!screenshotTab_.isEmpty() && tabs_->tabText(i).compare(screenshotTab_, Qt::CaseInsensitive) == 0) tabs_->setCurrentIndex(i);
    if (tabs_->currentWidget() == bench_ && bench_->points().isEmpty()) {
        // The benchmark tab: run a small sweep first so the charts have data.
        connect(bench_, &BenchmarkPanel::sweepFinished, this, [this] {
            screenshotPending_ = true;
            screenshotTab_.clear();
            QTimer::singleShot(200, this, &MainWindow::takeScreenshot);
        }, Qt::SingleShotConnection);
        bench_->start();
        return;
    }
    if (tabs_->currentWidget() == quality_ && quality_->running()) {
        // The quality tab: wait for the measures of the results on screen.
        connect(quality_, &QualityPanel::measured, this, [this] {
            screenshotPending_ = true;
            QTimer::singleShot(200, this, &MainWindow::takeScreenshot);
        }, Qt::SingleShotConnection);
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
