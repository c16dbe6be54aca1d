// The job of MainWindow: the panels as a JobSettings and back, the run of it through resolveJob, presets, batches and
// saving the result.
#include "widgets/mainwindow.h"

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QRegularExpression>
#include <QEventLoop>
#include <QtConcurrent/QtConcurrentRun>
#include <new>

#include "core/print/separation.h"
#include "io/filejob.h"
#include "io/imagefile.h"
#include "io/outputformats.h"
#include "io/preset.h"
#include "widgets/adjustpanel.h"
#include "widgets/batchdialog.h"
#include "widgets/methodpanel.h"
#include "widgets/palettepanel.h"
#include "widgets/paramvariant.h"

namespace halftone {

namespace {

/// Perceived views and print previews are made with every run up to this size; larger ones on demand.
constexpr qint64 kPerceivedAlwaysPixels = qint64(4096) * 4096;

std::string deviceWord(std::optional<Device> d) { return !d ? "auto" : *d == Device::Gpu ? "gpu" : "cpu"; }

std::optional<Device> deviceOf(const std::string& word) {
    if (word == "cpu") return Device::Cpu;
    if (word == "gpu") return Device::Gpu;
    return std::nullopt;
}

}  // namespace

Status MainWindow::panelJob(JobSettings& job) const {
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
        if (toVariant(v) != toVariant(p.defaultValue())) job.params.set(p.key, v);
    }
    job.color = panel_->colorMode();
    job.palette.clear();
    job.paletteSpace = panel_->palettePanel()->space();
    job.paletteMatch = panel_->palettePanel()->match();
    job.separation = panel_->separation();
    job.device = deviceWord(panel_->device());
    job.threads = panel_->threads();
    job.prepare = adjust_->settings();
    job.target = adjust_->target();
    job.printSize = adjust_->printSize().toStdString();
    job.dpi = adjust_->dpi();
    applyJobDpi(*m, job.dpi, job.params);
    if (!job.printSize.empty()) job.prepare.width = job.prepare.height = 0;
    return Status::ok();
}

Status MainWindow::currentJob(JobSettings& job) const {
    if (Status s = panelJob(job); !s) return s;
    if (job.target.empty() && panel_->palettePanel()->wantsPalette()) {
        job.palette = panel_->palettePanel()->spec().toStdString();
        if (job.palette.empty())
            return Status::error(
                "an edited palette has no name a preset or batch run can use; save it as a palette "
                "file (Save palette...) and choose that file");
    }
    PrepareSettings check;
    if (Status s = adjust_->effective(check); !s) return Status::error("Adjust: " + s.message());
    return validateJob(job);
}

Status MainWindow::currentRequest(JobRequest& r) const {
    JobSettings job;
    if (Status s = panelJob(job); !s) return s;
    // The palette is the panel's own (made from the image in the background, or edited): resolveJob gets none.
    if (Status s = resolveJob(job, image_.get(), r, r.prepare); !s) return s;
    if (job.target.empty()) r.palette = panel_->palette();  // a target brings its own colours and codes
    r.keepAlpha = true;  // the studio shows and saves the input's alpha with the result
    r.image = image_;
    r.imageId = imageId_;
    r.threads = job.threads;
    const bool small = qint64(image_->width()) * image_->height() <= kPerceivedAlwaysPixels;
    r.perceived = perceivedAction_->isChecked() || small;
    r.printPreview = printPreviewAction_->isChecked() || small;
    return Status::ok();
}

void MainWindow::runCurrent() {
    debounce_.stop();
    if (!image_ || !panel_->method()) return;
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
    if (Status s = currentRequest(r); !s) {
        runEnded(QString::fromStdString(s.message()), false);
        return;
    }
    currentGen_ = jobs_->submit(r);
    cancelAction_->setEnabled(jobs_->busy() || loading_);
    clearStatus(StatusTopic::Run);
    progress_->setValue(0);
    stageLabel_->setText(tr("Running %1...").arg(QString::fromStdString(r.method->id())));
}

Status MainWindow::applyJob(const JobSettings& job) {
    if (Status s = validateJob(job); !s) return s;
    const MethodInfo* m = nullptr;
    if (Status s = jobMethod(job, m); !s) return s;
    if (!m->cpu && !registry_.gpuAvailability().usable)
        return Status::error("method " + m->id() + " runs only on a GPU, and no GPU is usable here (" +
                             registry_.gpuAvailability().reason + ")");
    JobSettings before;
    const bool haveBefore = bool(currentJob(before));
    // One run for the whole change: the panels emit changed() per control.
    const QSignalBlocker quietPanel(panel_);
    const QSignalBlocker quietAdjust(adjust_);
    if (Status s = setPanels(*m, job); !s) {
        if (haveBefore) (void)applyJob(before);
        return s;
    }
    extras_ = JobSettings{};
    extras_.keepAlpha = job.keepAlpha;
    extras_.format = job.format;
    updateColourHint();
    updateDpiField();
    if (autoRun_->isChecked() && image_) debounce_.start();
    return Status::ok();
}

Status MainWindow::setPanels(const MethodInfo& m, const JobSettings& job) {
    if (!panel_->setMethod(QString::fromStdString(m.method), QString::fromStdString(m.variant)))
        return Status::error("method " + m.id() + " cannot run here");
    for (const ParamSpec& p : m.params) {
        if (p.key == "threads" || p.key == kDpiParam) continue;
        const ParamValue v = job.params.has(p.key) ? job.params.all().at(p.key) : p.defaultValue();
        if (!panel_->setParam(QString::fromStdString(p.key), toVariant(v)))
            return Status::error("parameter " + p.key + " of " + m.id() + " cannot be set to that value here");
    }
    panel_->setColorMode(job.color);
    if (job.palette.empty())
        panel_->palettePanel()->selectNone();
    else if (Status s = panel_->palettePanel()->selectSpec(QString::fromStdString(job.palette)); !s)
        return s;
    panel_->palettePanel()->setSpaceAndMatch(job.paletteSpace, job.paletteMatch);
    panel_->setDevice(deviceOf(job.device));
    panel_->setThreads(job.threads);
    // One DPI field: a resolution the job gives only to the method (a preset written by hand) shows there too.
    const double dpi = job.dpi > 0 || !job.params.has(kDpiParam) ? job.dpi : jobDpi(job, m);
    adjust_->setSettings(job.prepare, QString::fromStdString(job.printSize), dpi);
    if (Status s = adjust_->setTarget(job.target); !s) return s;
    panel_->setSeparation(job.separation);
    return Status::ok();
}

double MainWindow::resultDpi(const JobResult& result) const {
    // The resolution the screen was built at (a method that models a printer), else the Adjust panel's, as the CLI.
    return result.params.has(kDpiParam) ? result.params.getReal(kDpiParam, 0) : adjust_->dpi();
}

void MainWindow::updateDpiField() {
    // While the DPI is unset, a method that models a printer runs at its own resolution: the field says which.
    const MethodInfo* m = panel_->method();
    const ParamSpec* p = m ? m->param(kDpiParam) : nullptr;
    adjust_->setUnsetDpi(p && m->paramApplies(*p, panel_->params()) ? p->def : 0.0);
}

QString MainWindow::pathWithExtension(const QString& path, const QString& filter) {
    if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
    static const QRegularExpression firstPattern(QStringLiteral("\\*\\.([A-Za-z0-9]+)"));
    const QRegularExpressionMatch m = firstPattern.match(filter);
    return path + QLatin1Char('.') + (m.hasMatch() ? m.captured(1).toLower() : QStringLiteral("png"));
}

QStringList MainWindow::saveFilters() const {
    QStringList f;
    if (!current_ || !current_->halftone) return f;
    for (const io::OutputFormat& format : io::outputFormats(io::resultShape(*current_->halftone)))
        f << QString::fromStdString(format.filter());
    return f;
}

QString MainWindow::suggestedSaveName() const {
    QString base = QFileInfo(imagePath_).completeBaseName();
    if (base.isEmpty()) base = QStringLiteral("halftone");
    // The extension of the result's preferred format (io::outputFormats): a CMYK result is proposed as a TIFF.
    QString ext = QStringLiteral(".png");
    if (current_ && current_->halftone)
        ext =
            QLatin1Char('.') +
            QString::fromStdString(io::outputFormats(io::resultShape(*current_->halftone)).front().extensions.front());
    if (!current_) return base + ext;
    // The short description without the device, as a file name: "moon-ed-plain-jarvis-gray.png".
    QString what = current_->description.shortText.isEmpty() ? current_->methodId : current_->description.shortText;
    what = what.section(QStringLiteral(" ["), 0, 0);
    what.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9.+-]+")), QStringLiteral("-"));
    what.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
    return base + QLatin1Char('-') + what + ext;
}

bool MainWindow::saveResult(const QString& requested, const QString& filter) {
    if (!startSave(requested, filter)) return false;
    QEventLoop wait;
    bool written = false;
    connect(this, &MainWindow::saveFinished, &wait, [&](const QString&, bool ok, bool) {
        written = ok;
        wait.quit();
    });
    wait.exec();
    return written;
}

bool MainWindow::startSave(const QString& requested, const QString& filter) {
    if (!current_ || !current_->halftone) {
        showError(tr("Nothing to save"), tr("Run a method first: the Run button or Ctrl+R."), StatusTopic::Save);
        return false;
    }
    if (saving()) {
        showError(tr("Cannot save"), tr("A save is still running; wait for it or cancel it in the status bar."),
                  StatusTopic::Save);
        return false;
    }
    const QString path = pathWithExtension(requested, filter);
    const std::string file = QFile::encodeName(path).toStdString();
    const std::shared_ptr<const Image> result = current_->halftone;
    const io::ResultShape shape = io::resultShape(*result);
    auto refuse = [this, shape](const QString& why) {
        // Advice that names only formats that hold this result (io::outputFormats).
        showError(tr("Cannot save"),
                  tr("%1\n\nThis result is %2; save it as %3.")
                      .arg(why, QString::fromStdString(io::shapeName(shape)),
                           QString::fromStdString(io::outputAdvice(shape))),
                  StatusTopic::Save);
        return false;
    };
    if (Status s = io::checkOutputFormat(file, shape); !s) return refuse(QString::fromStdString(s.message()));
    const std::vector<io::OutputFormat> formats = io::outputFormats(shape);
    const io::OutputFormat* format = io::findOutputFormat(formats, file);
    // Only TIFF keeps the four inks: anything else gets the RGB picture of the CMYK halftone.
    const bool toRgb = result->space == ColorSpace::CMYK && !(format && format->name == "TIFF");
    QString converted =
        toRgb ? tr(" (CMYK converted to RGB for viewing; save as TIFF to keep the CMYK separations)") : QString();
    // The plates entry of the dialog shares the .tif extension with the one-file separation: the filter decides.
    const bool plates = result->space == ColorSpace::CMYK && format && format->name == "TIFF" &&
                        std::any_of(formats.begin(), formats.end(), [&](const io::OutputFormat& f) {
                            return f.plates && QString::fromStdString(f.filter()) == filter;
                        });
    if (plates) converted = tr(" as plates: %1, ...").arg(QString::fromStdString(io::platePath(file, kInkNames[0])));
    if (shape.paletteColors > 0 && format && format->name != "PPM")
        converted = tr(" (indexed: %1 palette colours)").arg(result->palette.size());
    io::WriteOptions opt;
    opt.dpi = resultDpi(*current_);
    saveStop_ = StopToken();
    opt.control.stop = saveStop_;
    QPointer<QProgressBar> bar = saveProgress_;
    opt.control.onProgress = [this, bar](const Progress& p) {  // from the worker: to the window's thread
        const double f = p.fraction;
        QMetaObject::invokeMethod(
            this,
            [this, bar, f] {
                if (bar) bar->setValue(int(f * 1000));
                emit saveProgressed(f);
            },
            Qt::QueuedConnection);
    };
    saveProgress_->setValue(0);
    saveProgress_->show();
    saveCancel_->show();
    setStatus(StatusTopic::Save, tr("Saving %1...").arg(path));
    saveWatcher_ = new QFutureWatcher<Status>(this);
    connect(saveWatcher_, &QFutureWatcher<Status>::finished, this, [this, path, converted, refuse] {
        const Status s = saveWatcher_->result();
        saveWatcher_->deleteLater();
        saveWatcher_ = nullptr;
        saveProgress_->hide();
        saveCancel_->hide();
        if (s.isCancelled()) {
            setStatus(StatusTopic::Save, tr("Saving %1 cancelled; no file written").arg(path));
        } else if (!s) {
            // The io message may end in format advice for the command line ("; use .png, ..."): the advice of
            // refuse() replaces it.
            refuse(QString::fromStdString(s.message()).section(QStringLiteral("; use "), 0, 0));
        } else {
            setStatus(StatusTopic::Save, tr("Saved %1%2").arg(path, converted));
        }
        emit saveFinished(path, s.isOk(), s.isCancelled());
    });
    saveWatcher_->setFuture(QtConcurrent::run([result, toRgb, plates, file, opt] {
        try {
            if (plates) return io::writePlates(file, *result, opt);
            if (!toRgb) return io::writeImage(file, *result, opt);
            return io::writeImage(file, convertColor(*result, ColorMode::RGB), opt);
        } catch (const std::bad_alloc&) {
            return Status::error("cannot write '" + file +
                                 "': not enough memory to convert the result for this format");
        }
    }));
    return true;
}

void MainWindow::cancelSave() { saveStop_.requestStop(); }

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
    if (!f.isEmpty()) startSave(f, selected);
}

bool MainWindow::savePreset(const QString& path) {
    JobSettings job;
    Status s = currentJob(job);
    if (s)
        s = io::savePreset(QFile::encodeName(path).toStdString(), job);
    else
        s = Status::error("cannot save preset '" + QFile::encodeName(path).toStdString() + "': " + s.message());
    return presetDone(s, tr("Cannot save preset"), tr("Saved preset %1"), path);
}

bool MainWindow::loadPreset(const QString& path) {
    JobSettings job;
    const std::string file = QFile::encodeName(path).toStdString();
    Status s = io::loadPreset(file, job);
    if (s) s = applyJob(job).withContext("cannot use preset '" + file + "'");
    return presetDone(s, tr("Cannot load preset"), tr("Loaded preset %1"), path);
}

bool MainWindow::presetDone(const Status& s, const QString& failTitle, const QString& done, const QString& path) {
    if (!s) {
        showError(failTitle, QString::fromStdString(s.message()), StatusTopic::Preset);
        return false;
    }
    presetDir_ = QFileInfo(path).absolutePath();
    setStatus(StatusTopic::Preset, done.arg(path));
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

}  // namespace halftone
