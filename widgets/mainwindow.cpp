#include "widgets/mainwindow.h"

#include <QAction>
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
#include "widgets/adjustpanel.h"
#include "widgets/batchdialog.h"
#include "widgets/benchmarkpanel.h"
#include "widgets/compareview.h"
#include "widgets/imagepane.h"
#include "widgets/imageconvert.h"
#include "widgets/imageload.h"
#include "widgets/methodpanel.h"
#include "widgets/palettepanel.h"
#include "widgets/qualitypanel.h"
#include "widgets/scheduleview.h"

#ifndef HALFTONE_VERSION
#define HALFTONE_VERSION ""
#endif

namespace halftone {

namespace {
constexpr int kMaxRecent = 8;
constexpr int kMaxPinned = CompareView::kMaxResults - 1;
/// Perceived views and print previews are made with every run up to this size; larger ones on demand.
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

MainWindow::MainWindow(Registry& registry, QWidget* parent)
    : QMainWindow(parent), registry_(registry), jobs_(new JobRunner(this)) {
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
    runAction_ = new QAction(tr("&Run"), this);
    runAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    runAction_->setToolTip(tr("Run the chosen method on the image (Ctrl+R)"));
    cancelAction_ = new QAction(tr("&Cancel run"), this);
    cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
    cancelAction_->setEnabled(false);
    addAction(runAction_);
    addAction(cancelAction_);
    runButton_ = new QPushButton(tr("Run"));
    runButton_->setObjectName(QStringLiteral("run"));
    runButton_->setToolTip(runAction_->toolTip());
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setObjectName(QStringLiteral("cancel"));
    cancelButton_->setEnabled(false);
    cancelButton_->setToolTip(tr("Stop the running job; the previous result stays on screen (Esc)"));
    connect(cancelAction_, &QAction::enabledChanged, cancelButton_, &QWidget::setEnabled);
    buttons->addWidget(runButton_);
    buttons->addWidget(cancelButton_);
    sideLayout->addLayout(buttons);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    sideLayout->addWidget(progress_);
    stageLabel_ = new QLabel;
    stageLabel_->setObjectName(QStringLiteral("stageLabel"));
    stageLabel_->setWordWrap(true);
    sideLayout->addWidget(stageLabel_);
    auto* dock = new QDockWidget(tr("Method"), this);
    dock->setObjectName(QStringLiteral("methodDock"));
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    dock->setWidget(side);
    dock->setMinimumWidth(300);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    // Right: the Adjust steps (prepare) that run before the method.
    adjust_ = new AdjustPanel;
    auto* adjustScroll = new QScrollArea;
    adjustScroll->setWidget(adjust_);
    adjustScroll->setWidgetResizable(true);
    adjustScroll->setFrameShape(QFrame::NoFrame);
    auto* adjustDock = new QDockWidget(tr("Adjust"), this);
    adjustDock->setObjectName(QStringLiteral("adjustDock"));
    adjustDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    adjustDock->setWidget(adjustScroll);
    adjustDock->setMinimumWidth(220);
    addDockWidget(Qt::RightDockWidgetArea, adjustDock);
    connect(runAction_, &QAction::triggered, this, &MainWindow::runCurrent);
    connect(cancelAction_, &QAction::triggered, this, &MainWindow::cancelRun);
    connect(runButton_, &QPushButton::clicked, runAction_, &QAction::trigger);
    connect(cancelButton_, &QPushButton::clicked, cancelAction_, &QAction::trigger);

    // Centre: tabs.
    tabs_ = new QTabWidget;
    auto* comparePage = new QWidget;
    auto* cl = new QVBoxLayout(comparePage);
    cl->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QToolBar;
    compare_ = new CompareView;
    cl->addWidget(bar);
    cl->addWidget(compare_, 1);
    bar->addAction(tr("Fit"), QKeySequence(Qt::Key_F), compare_, &CompareView::fitToWindow)
        ->setToolTip(tr("Fit to window (F)"));
    bar->addAction(tr("1:1"), QKeySequence(Qt::CTRL | Qt::Key_0), compare_, &CompareView::actualSize)
        ->setToolTip(tr("Actual pixels (Ctrl+0, or 0 in a pane)"));
    bar->addAction(tr("Zoom in"), QKeySequence::ZoomIn, this,
                   [this] { compare_->viewState()->setZoom(ViewState::stepZoom(compare_->viewState()->zoom(), 1)); })
        ->setToolTip(tr("Zoom in (Ctrl++, + in a pane, or the wheel); integer zooms are pixel-exact"));
    bar->addAction(tr("Zoom out"), QKeySequence::ZoomOut, this,
                   [this] { compare_->viewState()->setZoom(ViewState::stepZoom(compare_->viewState()->zoom(), -1)); })
        ->setToolTip(tr("Zoom out (Ctrl+-, - in a pane, or the wheel)"));
    auto* zoomLabel = new QLabel;
    zoomLabel->setMinimumWidth(110);
    zoomLabel->setToolTip(
        tr("At 1x and above every image pixel is a block of screen pixels (nearest neighbour); "
           "below 100% pixels are averaged, like a coarse perceived view"));
    bar->addWidget(zoomLabel);
    connect(compare_->viewState(), &ViewState::changed, zoomLabel, [this, zoomLabel] {
        const double z = compare_->viewState()->zoom();
        zoomLabel->setText(z >= 1 ? QStringLiteral(" %1x").arg(z, 0, 'g', 3)
                                  : QStringLiteral(" %1% (averaged)").arg(z * 100, 0, 'f', 1));
    });
    bar->addSeparator();
    perceivedAction_ = bar->addAction(tr("Perceived"));
    perceivedAction_->setCheckable(true);
    perceivedAction_->setToolTip(
        tr("Show each halftone through the HVS Gaussian filter (sigma 1.2 px), as seen from a distance; colour "
           "results are filtered channel by channel and stay in colour"));
    connect(perceivedAction_, &QAction::toggled, this, [this](bool on) {
        compare_->setPerceived(on);
        if (on && image_) {
            if (current_) jobs_->computePerceived(current_, image_);
            for (const JobResultPtr& p : pinned_) jobs_->computePerceived(p, image_);
        }
    });
    printPreviewAction_ = bar->addAction(tr("Print preview"));
    printPreviewAction_->setObjectName(QStringLiteral("printPreview"));
    printPreviewAction_->setCheckable(true);
    printPreviewAction_->setEnabled(false);
    printPreviewAction_->setToolTip(
        tr("Show CMYK results as printed: process inks (cyan #00AEEF, magenta #EC008C, yellow #FFF200, black "
           "#231F20) on white paper, overprints multiplying (for CMYK results only)"));
    connect(printPreviewAction_, &QAction::toggled, this, [this](bool on) {
        compare_->setPrintPreview(on);
        if (on) {  // large results are shown without one until asked
            if (current_) jobs_->computePrintPreview(current_);
            for (const JobResultPtr& p : pinned_) jobs_->computePrintPreview(p);
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
    bar->addAction(tr("Pin"), QKeySequence(Qt::CTRL | Qt::Key_P), this, &MainWindow::pinCurrent)
        ->setToolTip(tr("Keep the current result on screen to compare with the next runs (Ctrl+P; up to %1, then the "
                        "oldest pin is dropped)")
                         .arg(kMaxPinned));
    bar->addAction(tr("Clear pins"), [this] {
        pinned_.clear();
        clearStatus(StatusTopic::Pins);
        showResults();
    });
    bar->addSeparator();
    bar->addAction(tr("Save..."), this, &MainWindow::saveResultDialog);
    bar->addAction(tr("Copy"), [this] {
        if (current_) QGuiApplication::clipboard()->setImage(copyImage());
    });
    tabs_->addTab(comparePage, tr("Compare"));
    schedule_ = new ScheduleView;
    tabs_->addTab(schedule_, tr("Scheduling"));
    bench_ = new BenchmarkPanel(registry_);
    tabs_->addTab(bench_, tr("Benchmark"));
    quality_ = new QualityPanel(registry_);
    tabs_->addTab(quality_, tr("Quality"));
    setCentralWidget(tabs_);
    // A save message is about the result on the tab where it was made.
    connect(tabs_, &QTabWidget::currentChanged, this, [this] { clearStatus(StatusTopic::Save); });
    setStatus(StatusTopic::Image, tr("Open an image (Ctrl+O), drop one here, or paste (Ctrl+V)."));
    showResults();
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open image"), QFileInfo(imagePath_).absolutePath(),
                                                       tr("Images (*.png *.tif *.tiff *.jpg *.jpeg *.pgm *.ppm *.pbm "
                                                          "*.pnm *.bmp *.exr *.webp *.gif);;All files (*)"));
        if (!f.isEmpty()) openFile(f);
    });
    recentMenu_ = file->addMenu(tr("Open &recent"));
    file->addAction(tr("Open &sample"), this, &MainWindow::openSample);
    file->addAction(tr("&Paste image"), QKeySequence::Paste, this, &MainWindow::paste);
    file->addSeparator();
    file->addAction(tr("&Save result..."), QKeySequence::Save, this, &MainWindow::saveResultDialog);
    file->addAction(tr("&Copy result"), QKeySequence::Copy, this, [this] {
        if (current_) QGuiApplication::clipboard()->setImage(copyImage());
    });
    file->addSeparator();
    savePresetAction_ = file->addAction(tr("Save pre&set..."), this, [this] {
        const QString suggested = QDir(presetDir_.isEmpty() ? QDir::homePath() : presetDir_)
                                      .filePath(QString::fromStdString(panel_->method() ? panel_->method()->method
                                                                                        : std::string("halftone")) +
                                                QStringLiteral(".json"));
        const QString f =
            fileChooser_ ? fileChooser_(FileChoice::SavePreset, suggested)
                         : QFileDialog::getSaveFileName(this, tr("Save preset"), suggested, tr("Presets (*.json)"));
        if (!f.isEmpty()) savePreset(pathWithExtension(f, QStringLiteral("(*.json)")));
    });
    loadPresetAction_ = file->addAction(tr("&Load preset..."), this, [this] {
        const QString f = fileChooser_ ? fileChooser_(FileChoice::LoadPreset, presetDir_)
                                       : QFileDialog::getOpenFileName(this, tr("Load preset"), presetDir_,
                                                                      tr("Presets (*.json);;All files (*)"));
        if (!f.isEmpty()) loadPreset(f);
    });
    batchAction_ = file->addAction(tr("&Batch..."), QKeySequence(Qt::CTRL | Qt::Key_B), this, [this] { showBatch(); });
    batchAction_->setToolTip(tr("Halftone many files and folders with the current job"));
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(runAction_);
    run->addAction(cancelAction_);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this, [this] { showShortcuts(); });
    help->addAction(tr("&About Halftone Studio"), this, [this] { showAbout(); });
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

void MainWindow::runCurrent() {
    debounce_.stop();
    if (!image_) return;
    const MethodInfo* m = panel_->method();
    if (!m) return;
    if (panel_->paletteWaiting()) {
        // The auto palette is being made from this image: the run starts when it is ready.
        runWhenPaletteReady_ = true;
        stageLabel_->setText(tr("Making the palette from the image..."));
        return;
    }
    runWhenPaletteReady_ = false;
    if (panel_->palettePanel()->wantsPalette() && !panel_->palette()) {
        // A palette is chosen but there is none to use (it could not be made from this image): never fall back to
        // the per-channel colour mode unasked.
        showError(tr("No palette to run with"),
                  tr("The chosen palette is not available: %1\n\nChoose another palette, or \u201cNo palette\u201d.")
                      .arg(panel_->palettePanel()->infoText()),
                  StatusTopic::Run);
        return;
    }
    PrepareSettings prepare;
    if (Status st = adjust_->effective(prepare); !st) {
        // The Adjust panel shows the problem too; nothing runs until it is fixed.
        stageLabel_->setText(tr("Adjust: %1").arg(QString::fromStdString(st.message())));
        setStatus(StatusTopic::Run, tr("Adjust: %1").arg(QString::fromStdString(st.message())));
        return;
    }
    JobRequest r;
    r.image = image_;
    r.imageId = imageId_;
    r.prepare = prepare;
    r.separation = panel_->separation();
    r.method = m;
    r.params = panel_->params();
    // The Adjust DPI is the printer resolution of methods that model one, as the CLI's --dpi.
    if (adjust_->dpi() > 0 && m->param("dpi")) r.params.set("dpi", adjust_->dpi());
    r.device = panel_->device();
    r.color = panel_->colorMode();
    r.palette = panel_->palette();
    r.paletteSpace = panel_->palettePanel()->space();
    r.paletteMatch = panel_->palettePanel()->match();
    r.threads = panel_->threads();
    r.perceived = perceivedAction_->isChecked() || qint64(image_->width()) * image_->height() <= kPerceivedAlwaysPixels;
    r.printPreview =
        printPreviewAction_->isChecked() || qint64(image_->width()) * image_->height() <= kPerceivedAlwaysPixels;
    currentGen_ = jobs_->submit(r);
    cancelAction_->setEnabled(jobs_->busy() || loading_);
    clearStatus(StatusTopic::Run);
    progress_->setValue(0);
    stageLabel_->setText(tr("Running %1...").arg(QString::fromStdString(m->id())));
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
    showResults();
    const bool shoot = screenshotPending_;  // decided before listeners of resultShown may queue more runs
    emit resultShown(result);
    if (shoot) QTimer::singleShot(300, this, &MainWindow::takeScreenshot);
}

void MainWindow::onFailed(quint64 gen, const QString& message, bool cancelled) {
    if (gen != currentGen_) return;
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
    if (r->prepared)
        text +=
            tr("\nAdjust: %1")
                .arg(describePrepare(r->prepared->settings, r->prepared->image->width(), r->prepared->image->height()));
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
    quality_->setResults(image_, shown, imageName_);
}

QString MainWindow::pathWithExtension(const QString& path, const QString& filter) {
    if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
    static const QRegularExpression firstPattern(QStringLiteral("\\*\\.([A-Za-z0-9]+)"));
    const QRegularExpressionMatch m = firstPattern.match(filter);
    return path + QLatin1Char('.') + (m.hasMatch() ? m.captured(1).toLower() : QStringLiteral("png"));
}

namespace {

/// A palette result that can go out as an indexed file (the writer takes no alpha with a palette).
bool isIndexed(const Image& im) { return !im.palette.empty() && !im.indices.empty() && !im.hasAlpha; }

bool isBinaryGray(const Image& im) {
    if (im.space != ColorSpace::Gray || im.channels.size() != 1) return false;
    const auto& d = im.channels.front().data;
    return std::all_of(d.begin(), d.end(), [](uint8_t v) { return v == 0 || v == 255; });
}

}  // namespace

QStringList MainWindow::saveFilters() const {
    QStringList f;
    if (!current_ || !current_->halftone) return f;
    const Image& im = *current_->halftone;
    const bool binary = isBinaryGray(im);
    if (im.space == ColorSpace::CMYK) {
        f << tr("TIFF, CMYK (*.tif *.tiff)") << tr("PNG, converted to RGB for viewing (*.png)");
        return f;
    }
    if (isIndexed(im)) {
        // A palette result is written as an indexed file: the palette and each pixel's index, as the method chose.
        const int n = int(im.palette.size());
        f << tr("PNG, indexed, %1 colours (*.png)").arg(n) << tr("TIFF, indexed, %1 colours (*.tif *.tiff)").arg(n)
          << tr("GIF, indexed, %1 colours (*.gif)").arg(n) << tr("PPM, RGB (*.ppm)");
        return f;
    }
    f << (binary ? tr("PNG, 1-bit (*.png)") : tr("PNG (*.png)"));
    f << (binary ? tr("TIFF, 1-bit (*.tif *.tiff)") : tr("TIFF (*.tif *.tiff)"));
    if (im.space == ColorSpace::Gray) {
        if (binary) f << tr("PBM, 1-bit (*.pbm)");
        f << tr("PGM (*.pgm)");
    } else {
        f << tr("PPM (*.ppm)");
    }
    return f;
}

QString MainWindow::suggestedSaveName() const {
    QString base = QFileInfo(imagePath_).completeBaseName();
    if (base.isEmpty()) base = QStringLiteral("halftone");
    if (!current_) return base + QStringLiteral(".png");
    // The short description without the device, as a file name: "moon-ed-plain-jarvis-gray.png".
    QString what = current_->description.shortText.isEmpty() ? current_->methodId : current_->description.shortText;
    what = what.section(QStringLiteral(" ["), 0, 0);
    what.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9.+-]+")), QStringLiteral("-"));
    what.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
    return base + QLatin1Char('-') + what + QStringLiteral(".png");
}

bool MainWindow::saveResult(const QString& requested, const QString& filter) {
    if (!current_ || !current_->halftone) {
        showError(tr("Nothing to save"), tr("Run a method first: the Run button or Ctrl+R."), StatusTopic::Save);
        return false;
    }
    const QString path = pathWithExtension(requested, filter);
    const QString ext = QFileInfo(path).suffix().toLower();
    const Image& result = *current_->halftone;
    const bool binary = isBinaryGray(result);
    const int channels = result.channelCount();
    const QString kinds = result.space == ColorSpace::CMYK  ? tr("CMYK")
                          : result.space == ColorSpace::RGB ? tr("RGB")
                          : binary                          ? tr("black and white")
                                                            : tr("gray");
    // Formats that can hold this result, for advice that never suggests one that fails.
    const bool indexed = isIndexed(result);
    const QString works = result.space == ColorSpace::CMYK  ? tr("TIFF (keeps CMYK) or PNG (converted to RGB)")
                          : indexed                         ? tr("PNG, TIFF or GIF (indexed), or PPM")
                          : result.space == ColorSpace::RGB ? tr("PNG, TIFF or PPM")
                          : binary                          ? tr("PNG, TIFF, PBM or PGM")
                                                            : tr("PNG, TIFF or PGM");
    auto refuse = [&](const QString& why) {
        showError(tr("Cannot save"), tr("%1\n\nThis result is %2; save it as %3.").arg(why, kinds, works),
                  StatusTopic::Save);
        return false;
    };
    if (ext == QLatin1String("pbm") && !binary)
        return refuse(
            channels > 1
                ? tr("A PBM file holds one black-and-white channel, and this result has %1 channels.").arg(channels)
                : tr("A PBM file holds only black and white, and this result has gray levels."));
    if (ext == QLatin1String("pgm") && result.space != ColorSpace::Gray)
        return refuse(tr("A PGM file holds one gray channel."));
    if (ext == QLatin1String("ppm") && result.space == ColorSpace::CMYK)
        return refuse(tr("A PPM file holds RGB, not CMYK."));

    Image toWrite;
    const Image* image = &result;
    QString converted;
    const bool tiff = ext == QLatin1String("tif") || ext == QLatin1String("tiff");
    if (result.space == ColorSpace::CMYK && !tiff) {
        // Only TIFF keeps the four inks: anything else gets the RGB picture of the CMYK halftone.
        toWrite = convertColor(result, ColorMode::RGB);
        image = &toWrite;
        converted = tr(" (CMYK converted to RGB for viewing; save as TIFF to keep the CMYK separations)");
    }
    io::WriteOptions opt;
    // A palette result's colours are its palette (kept on the image for an indexed file), not the "levels" parameter.
    opt.levels = binary ? 2 : current_->palette ? 256 : int(current_->params.getInt("levels", 256));
    opt.dpi = adjust_->dpi();  // the Adjust panel's device resolution, as the CLI writes --dpi
    const Status s = io::writeImage(QFile::encodeName(path).toStdString(), *image, opt);
    // The io message may end in format advice for the command line ("; use .png, ..."): the advice above replaces it.
    if (!s) return refuse(QString::fromStdString(s.message()).section(QStringLiteral("; use "), 0, 0));
    if (indexed && (tiff || ext == QLatin1String("png") || ext == QLatin1String("gif")))
        converted = tr(" (indexed: %1 palette colours)").arg(result.palette.size());
    setStatus(StatusTopic::Save, tr("Saved %1%2").arg(path, converted));
    return true;
}

void MainWindow::saveResultDialog() {
    if (!current_) {
        showError(tr("Nothing to save"), tr("Run a method first: the Run button or Ctrl+R."), StatusTopic::Save);
        return;
    }
    const QString dir = imagePath_.isEmpty() ? QString() : QFileInfo(imagePath_).absolutePath();
    const QString suggested = dir.isEmpty() ? suggestedSaveName() : QDir(dir).filePath(suggestedSaveName());
    QString selected;
    const QString f = QFileDialog::getSaveFileName(this, tr("Save result"), suggested,
                                                   saveFilters().join(QStringLiteral(";;")), &selected);
    if (!f.isEmpty()) saveResult(f, selected);
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
    if (errorBox_) errorBox_->close();
    // Window-modal but not blocking, so background jobs, tests and --screenshot carry on.
    auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("errorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    errorBox_ = box;
    setStatus(topic, QString(text).replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified());
    emit errorShown(text);
}

QList<QStringList> MainWindow::shortcutList() const {
    QList<QStringList> rows;
    QSet<QString> seen;
    for (QAction* a : findChildren<QAction*>()) {
        if (a->shortcuts().isEmpty() || a->isSeparator()) continue;
        QString what = a->text();
        what.remove(QLatin1Char('&'));
        if (what.endsWith(QStringLiteral("..."))) what.chop(3);
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
        QString where = tr("Window");
        for (QObject* o : a->associatedObjects()) {
            if (auto* m = qobject_cast<QMenu*>(o)) {
                where = tr("%1 menu").arg(m->title().remove(QLatin1Char('&')));
                break;
            }
            if (qobject_cast<QToolBar*>(o)) where = tr("Compare toolbar");
        }
        if (a->shortcutContext() == Qt::WidgetShortcut || a->shortcutContext() == Qt::WidgetWithChildrenShortcut)
            if (auto* w = qobject_cast<QWidget*>(a->parent()))
                where = w->inherits("halftone::ImagePane") ? tr("Image pane (click it first)") : w->objectName();
        const QString id = where + QLatin1Char('|') + what + QLatin1Char('|') + keys.join(QLatin1Char(','));
        if (seen.contains(id)) continue;
        seen.insert(id);
        rows.push_back({where, what, keys.join(tr(" or "))});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const QStringList& a, const QStringList& b) { return a[0] < b[0]; });
    return rows;
}

QWidget* MainWindow::showShortcuts() {
    auto* dlg = new QDialog(this);
    dlg->setObjectName(QStringLiteral("shortcutsDialog"));
    dlg->setWindowTitle(tr("Keyboard shortcuts"));
    dlg->setAttribute(Qt::WA_DeleteOnClose);
    auto* layout = new QVBoxLayout(dlg);
    const QList<QStringList> rows = shortcutList();
    auto* table = new QTableWidget(int(rows.size()), 3, dlg);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({tr("Where"), tr("Action"), tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int i = 0; i < rows.size(); ++i)
        for (int c = 0; c < 3; ++c) table->setItem(i, c, new QTableWidgetItem(rows[i][c]));
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(table);
    layout->addWidget(
        new QLabel(tr("Also: the mouse wheel zooms at the pointer, dragging pans every pane together, and the split "
                      "divider drags.")));
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, dlg);
    connect(close, &QDialogButtonBox::rejected, dlg, &QDialog::close);
    layout->addWidget(close);
    dlg->resize(600, std::min(760, 140 + 30 * int(rows.size())));
    dlg->open();
    return dlg;
}

QWidget* MainWindow::showAbout() {
    auto* box = new QMessageBox(
        QMessageBox::Information, tr("About Halftone Studio"),
        tr("<b>Halftone Studio</b> %1<br>Exact, fast halftoning: compare error diffusion, ordered dither and "
           "direct binary search side by side, watch their parallel schedules, time them on the CPU and GPU, "
           "and measure their quality.<br><br>GPU: %2<br>Qt %3")
            .arg(QStringLiteral(HALFTONE_VERSION),
                 registry_.gpuAvailability().usable
                     ? QString::fromStdString(registry_.gpuAvailability().deviceName)
                     : QString::fromStdString(registry_.gpuAvailability().reason).toHtmlEscaped(),
                 QString::fromLatin1(qVersion())),
        QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    return box;
}

void MainWindow::setAutoRun(bool on) { autoRun_->setChecked(on); }

namespace {

ParamValue defaultParam(const ParamSpec& p) {
    switch (p.kind) {
        case ParamSpec::Kind::Int:
            return int64_t(p.def);
        case ParamSpec::Kind::Real:
            return p.def;
        case ParamSpec::Kind::Bool:
            return p.def != 0;
        case ParamSpec::Kind::Choice:
            return p.choices.empty() ? std::string() : p.choices[size_t(p.def)];
        case ParamSpec::Kind::Text:
            return p.textDefault;
    }
    return int64_t(0);
}

QVariant toVariant(const ParamValue& v) {
    if (auto x = std::get_if<int64_t>(&v)) return QVariant(qlonglong(*x));
    if (auto x = std::get_if<double>(&v)) return QVariant(*x);
    if (auto x = std::get_if<bool>(&v)) return QVariant(*x);
    return QVariant(QString::fromStdString(std::get<std::string>(v)));
}

}  // namespace

Status MainWindow::currentJob(JobSettings& job) const {
    const MethodInfo* m = panel_->method();
    if (!m) return Status::error("no method chosen");
    job = extras_;  // the job's settings without a control here (output format, alpha)
    job.method = m->method;
    job.variant = m->variant;
    job.params = ParamValues{};
    const ParamValues values = panel_->params();
    for (const ParamSpec& p : m->params) {
        if (p.key == "threads" || !values.has(p.key)) continue;
        const ParamValue v = values.all().at(p.key);
        if (toVariant(v) != toVariant(defaultParam(p))) job.params.set(p.key, v);
    }
    job.color = panel_->colorMode();
    job.palette.clear();
    if (panel_->palettePanel()->wantsPalette()) {
        job.palette = panel_->palettePanel()->spec().toStdString();
        if (job.palette.empty())
            return Status::error(
                "an edited palette has no name a preset or batch run can use; save it as a palette "
                "file (Save palette...) and choose that file");
    }
    job.paletteSpace = panel_->palettePanel()->space();
    job.paletteMatch = panel_->palettePanel()->match();
    job.separation = panel_->separation();
    const std::optional<Device> d = panel_->device();
    job.device = !d ? "auto" : *d == Device::Gpu ? "gpu" : "cpu";
    job.threads = panel_->threads();
    job.prepare = adjust_->settings();
    job.printSize = adjust_->printSize().toStdString();
    job.dpi = adjust_->dpi();
    if (job.dpi > 0 && m->param("dpi")) job.params.set("dpi", job.dpi);
    if (!job.printSize.empty()) job.prepare.width = job.prepare.height = 0;
    PrepareSettings check;
    if (Status s = adjust_->effective(check); !s) return Status::error("Adjust: " + s.message());
    return validateJob(job);
}

Status MainWindow::applyJob(const JobSettings& job) {
    if (Status s = validateJob(job); !s) return s;
    const MethodInfo* m = nullptr;
    if (Status s = jobMethod(job, m); !s) return s;
    if (!m->cpu && !registry_.gpuAvailability().usable)
        return Status::error("method " + m->id() + " runs only on a GPU, and no GPU is usable here (" +
                             registry_.gpuAvailability().reason + ")");
    if (!job.palette.empty() && job.palette.rfind("auto:", 0) != 0) {
        Palette p;  // a palette file that cannot be read refuses the whole preset before anything changes
        if (Status s = resolvePalette(job.palette, nullptr, p); !s) return s;
    }
    JobSettings before;
    const bool haveBefore = bool(currentJob(before));
    auto fail = [&](const std::string& why) {
        if (haveBefore) (void)applyJob(before);
        return Status::error(why);
    };
    // One run for the whole change: the panels emit changed() per control.
    const QSignalBlocker quietPanel(panel_);
    const QSignalBlocker quietAdjust(adjust_);
    if (!panel_->setMethod(QString::fromStdString(m->method), QString::fromStdString(m->variant)))
        return fail("method " + m->id() + " cannot run here");
    for (const ParamSpec& p : m->params) {
        if (p.key == "threads") continue;
        const ParamValue v = job.params.has(p.key) ? job.params.all().at(p.key) : defaultParam(p);
        if (!panel_->setParam(QString::fromStdString(p.key), toVariant(v)))
            return fail("parameter " + p.key + " of " + m->id() + " cannot be set to that value here");
    }
    panel_->setColorMode(job.color);
    if (job.palette.empty())
        panel_->palettePanel()->selectNone();
    else if (Status s = panel_->palettePanel()->selectSpec(QString::fromStdString(job.palette)); !s)
        return fail(s.message());
    panel_->palettePanel()->setSpaceAndMatch(job.paletteSpace, job.paletteMatch);
    panel_->setDevice(job.device == "cpu"   ? std::optional<Device>(Device::Cpu)
                      : job.device == "gpu" ? std::optional<Device>(Device::Gpu)
                                            : std::nullopt);
    panel_->setThreads(job.threads);
    adjust_->setSettings(job.prepare, QString::fromStdString(job.printSize), job.dpi);
    panel_->setSeparation(job.separation);
    extras_ = JobSettings{};
    extras_.keepAlpha = job.keepAlpha;
    extras_.format = job.format;
    updateColourHint();
    if (autoRun_->isChecked() && image_) debounce_.start();
    return Status::ok();
}

bool MainWindow::savePreset(const QString& path) {
    JobSettings job;
    Status s = currentJob(job);
    if (s)
        s = io::savePreset(QFile::encodeName(path).toStdString(), job);
    else
        s = Status::error("cannot save preset '" + QFile::encodeName(path).toStdString() + "': " + s.message());
    if (!s) {
        showError(tr("Cannot save preset"), QString::fromStdString(s.message()), StatusTopic::Preset);
        return false;
    }
    presetDir_ = QFileInfo(path).absolutePath();
    setStatus(StatusTopic::Preset, tr("Saved preset %1").arg(path));
    return true;
}

bool MainWindow::loadPreset(const QString& path) {
    JobSettings job;
    const std::string file = QFile::encodeName(path).toStdString();
    Status s = io::loadPreset(file, job);
    if (s) s = applyJob(job).withContext("cannot use preset '" + file + "'");
    if (!s) {
        showError(tr("Cannot load preset"), QString::fromStdString(s.message()), StatusTopic::Preset);
        return false;
    }
    presetDir_ = QFileInfo(path).absolutePath();
    setStatus(StatusTopic::Preset, tr("Loaded preset %1").arg(path));
    return true;
}

BatchDialog* MainWindow::batchDialog() const { return batch_; }

BatchDialog* MainWindow::showBatch() {
    JobSettings job;
    if (Status s = currentJob(job); !s) {
        showError(tr("Cannot start a batch"), QString::fromStdString(s.message()), StatusTopic::Run);
        return nullptr;
    }
    if (!batch_) {
        batch_ = new BatchDialog(this);
        // Start takes the settings as they are then: the panels stay usable while the dialog is open.
        batch_->setJobProvider([this](JobSettings& j) { return currentJob(j); });
        if (!imagePath_.isEmpty()) batch_->setOutputFolder(QFileInfo(imagePath_).absolutePath() + "/halftoned");
    }
    if (!batch_->running()) batch_->setJob(job);
    batch_->show();
    batch_->raise();
    return batch_;
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
