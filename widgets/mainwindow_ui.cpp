// The widgets of MainWindow: the method and Adjust docks, the compare tab and its toolbar, the menus, the shortcut
// list and the About box.
#include "widgets/mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QStatusBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSet>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/adjustpanel.h"
#include "widgets/benchmarkpanel.h"
#include "widgets/compareview.h"
#include "widgets/methodpanel.h"
#include "widgets/printview.h"
#include "widgets/qualitypanel.h"
#include "widgets/lessonview.h"
#include "widgets/scheduleview.h"

#ifndef HALFTONE_VERSION
#define HALFTONE_VERSION ""
#endif

namespace {

/// Gives the Esc key to an open pop-up (a drop-down list, a menu) before the window's shortcuts see it: Esc then
/// closes the list and does not also cancel the run.
class PopupTakesEscape : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() != QEvent::ShortcutOverride || static_cast<QKeyEvent*>(e)->key() != Qt::Key_Escape ||
            !QApplication::activePopupWidget())
            return false;
        e->accept();  // an accepted override: the key press goes to the pop-up, no shortcut runs
        return true;
    }
};

}  // namespace

namespace halftone {

namespace {

/// `content` in a frameless scroll area.
QScrollArea* scrolled(QWidget* content) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    return scroll;
}

}  // namespace

void MainWindow::buildUi() {
    undo_ = new QUndoStack(this);
    addPanelDock(buildMethodSide(), tr("Method"), QStringLiteral("methodDock"), 300, Qt::LeftDockWidgetArea);
    // Right: the Adjust steps (prepare) that run before the method.
    adjust_ = new AdjustPanel;
    addPanelDock(scrolled(adjust_), tr("Adjust"), QStringLiteral("adjustDock"), 220, Qt::RightDockWidgetArea);

    connect(runAction_, &QAction::triggered, this, &MainWindow::runCurrent);
    connect(cancelAction_, &QAction::triggered, this, &MainWindow::cancelRun);
    connect(runButton_, &QPushButton::clicked, runAction_, &QAction::trigger);
    connect(cancelButton_, &QPushButton::clicked, cancelAction_, &QAction::trigger);

    // Status bar: a save's progress and its Cancel, shown while a save runs.
    saveProgress_ = new QProgressBar;
    saveProgress_->setObjectName(QStringLiteral("saveProgress"));
    saveProgress_->setRange(0, 1000);
    saveProgress_->setMaximumWidth(160);
    saveProgress_->setTextVisible(false);
    saveCancel_ = new QPushButton(tr("Cancel save"));
    saveCancel_->setObjectName(QStringLiteral("saveCancel"));
    connect(saveCancel_, &QPushButton::clicked, this, &MainWindow::cancelSave);
    statusBar()->addPermanentWidget(saveProgress_);
    statusBar()->addPermanentWidget(saveCancel_);
    saveProgress_->hide();
    saveCancel_->hide();

    // Centre: tabs.
    tabs_ = new QTabWidget;
    tabs_->addTab(buildCompareTab(), tr("Compare"));
    schedule_ = new ScheduleView;
    tabs_->addTab(schedule_, tr("Scheduling"));
    lesson_ = new LessonView;
    tabs_->addTab(lesson_, tr("Lesson"));
    bench_ = new BenchmarkPanel(registry_);
    tabs_->addTab(bench_, tr("Benchmark"));
    quality_ = new QualityPanel(registry_);
    tabs_->addTab(quality_, tr("Quality"));
    print_ = new PrintView;
    tabs_->addTab(print_, tr("Print"));
    setCentralWidget(tabs_);
    // A save message is about the result on the tab where it was made.
    connect(tabs_, &QTabWidget::currentChanged, this, [this] { clearStatus(StatusTopic::Save); });
    setStatus(StatusTopic::Image, tr("Open an image (Ctrl+O), drop one here, or paste (Ctrl+V)."));
    showResults();
}

void MainWindow::addPanelDock(QWidget* content, const QString& title, const QString& name, int minWidth,
                              Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    dock->setWidget(content);
    dock->setMinimumWidth(minWidth);
    addDockWidget(area, dock);
}

QWidget* MainWindow::buildMethodSide() {
    // Left: method panel, run controls.
    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(2, 2, 2, 2);
    panel_ = new MethodPanel(registry_);
    sideLayout->addWidget(scrolled(panel_), 1);
    autoRun_ = new QCheckBox(tr("Run when a setting changes"));
    autoRun_->setChecked(true);
    sideLayout->addWidget(autoRun_);
    sideLayout->addLayout(buildRunButtons());
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    sideLayout->addWidget(progress_);
    stageLabel_ = new QLabel;
    stageLabel_->setObjectName(QStringLiteral("stageLabel"));
    stageLabel_->setWordWrap(true);
    sideLayout->addWidget(stageLabel_);
    return side;
}

QHBoxLayout* MainWindow::buildRunButtons() {
    auto* buttons = new QHBoxLayout;
    runAction_ = new QAction(tr("&Run"), this);
    runAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    runAction_->setToolTip(tr("Run the chosen method on the image (Ctrl+R)"));
    cancelAction_ = new QAction(tr("&Cancel run"), this);
    cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
    cancelAction_->setEnabled(false);
    qApp->installEventFilter(new PopupTakesEscape(this));
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
    return buttons;
}

QWidget* MainWindow::buildCompareTab() {
    auto* comparePage = new QWidget;
    auto* cl = new QVBoxLayout(comparePage);
    cl->setContentsMargins(0, 0, 0, 0);
    // Two rows, so that every action fits the default window beside the docks: zoom and views; then the split view
    // with the result it shows (labels can be long) and the result's actions.
    auto* bar = new QToolBar;
    bar->setObjectName(QStringLiteral("compareToolBar"));
    auto* splitBar = new QToolBar;
    splitBar->setObjectName(QStringLiteral("splitToolBar"));
    compare_ = new CompareView;
    cl->addWidget(bar);
    cl->addWidget(splitBar);
    cl->addWidget(compare_, 1);
    addZoomActions(bar);
    bar->addSeparator();
    addViewActions(bar, splitBar);
    bar = splitBar;
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
    return comparePage;
}

void MainWindow::addZoomActions(QToolBar* bar) {
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
    zoomLabel->setObjectName(QStringLiteral("zoomLabel"));
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
}

void MainWindow::addViewActions(QToolBar* bar, QToolBar* splitBar) {
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
    panelAction_ = bar->addAction(tr("Simulated panel"));
    panelAction_->setObjectName(QStringLiteral("simulatedPanel"));
    panelAction_->setCheckable(true);
    panelAction_->setEnabled(false);
    panelAction_->setToolTip(
        tr("Show results made for a target (Adjust > Target) in the colours the device shows, measured or published, "
           "instead of the colours written for its driver (docs/targets.md)"));
    connect(panelAction_, &QAction::toggled, compare_, &CompareView::setPanel);
    splitAction_ = splitBar->addAction(tr("Split"));
    splitAction_->setCheckable(true);
    splitAction_->setToolTip(tr("One pane: original left of the divider, a result right of it (drag the divider)"));
    connect(splitAction_, &QAction::toggled, compare_, &CompareView::setSplit);
    splitChoice_ = new QComboBox;
    splitChoice_->setObjectName(QStringLiteral("splitChoice"));
    splitChoice_->setToolTip(tr("Result shown right of the split divider"));
    // As wide as the row; long labels are elided, never widening the window.
    splitChoice_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    splitChoice_->setMinimumContentsLength(20);
    splitChoice_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    splitBar->addWidget(splitChoice_);
    connect(splitChoice_, &QComboBox::currentIndexChanged, compare_, &CompareView::setSplitResult);
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
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = undo_->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setObjectName(QStringLiteral("undo"));
    QAction* redo = undo_->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    redo->setObjectName(QStringLiteral("redo"));
    edit->addAction(undo);
    edit->addAction(redo);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("viewMenu"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(runAction_);
    run->addAction(cancelAction_);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this, [this] { showShortcuts(); });
    help->addAction(tr("&About Halftone Studio"), this, [this] { showAbout(); });
    updateRecentMenu();
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

}  // namespace halftone
