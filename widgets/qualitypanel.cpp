#include "widgets/qualitypanel.h"

#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QPainter>
#include <QSysInfo>
#include <QTextStream>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <qcustomplot.h>

#include "core/job/job.h"
#include "core/palette/panel.h"
#include "core/quality/metrics.h"
#include "core/threads.h"

namespace halftone {

namespace {

constexpr int kMaxMeasured = 2048;  // larger images are measured on a central crop of this size

/// Runs `m` on one plane with the result's parameters and device (used for the ramp and the patch).
Status runOn(const JobResult& r, const Plane8& src, Plane8& out) {
    const MethodInfo* m = Registry::instance().find(r.methodId.section(QLatin1Char('/'), 0, 0).toStdString(),
                                                    r.methodId.section(QLatin1Char('/'), 1).toStdString());
    if (!m) return Status::error("method " + r.methodId.toStdString() + " is not in the registry");
    RunRequest req;
    req.method = m;
    req.params = r.params;
    req.device = r.device;
    RunResult res;
    if (Status s = runImage(Image::gray(src), req, res); !s) return s;
    // A palette result (RGB from a gray input) is charted by its luma.
    out = res.image.space == ColorSpace::Gray ? std::move(res.image.channels.front())
                                              : convertColor(res.image, ColorMode::Gray).channels.front();
    return Status::ok();
}

/// The printer resolution a result was made for: the dpi of a method that models a printer, where it applies (DBS
/// with Nasanen's model, not with the Gaussian); 0 for every other result.
double printerDpi(const JobResult& r) {
    const MethodInfo* m = Registry::instance().find(r.methodId.section(QLatin1Char('/'), 0, 0).toStdString(),
                                                    r.methodId.section(QLatin1Char('/'), 1).toStdString());
    const ParamSpec* p = m ? m->param(kDpiParam) : nullptr;
    return p && m->paramApplies(*p, r.params) ? r.params.getReal(kDpiParam, p->def) : 0.0;
}

QualityRow measureOne(const JobResult& r, const std::shared_ptr<const Image>& original, int patchLevel,
                      double distanceCm, const std::atomic<bool>& stop) {
    QualityRow row;
    row.methodId = r.methodId;
    row.label = r.description.shortText.isEmpty() ? r.methodId : r.description.shortText;
    row.details = r.description.longText;
    row.colorMode = colorModeName(r.color);
    row.linear = r.params.getBool("linear", false);
    row.device = QString::fromLatin1(toString(r.device));
    row.seconds = r.seconds;
    // A method that models a printer made device dots: seen at the printed size from the viewing distance.
    ViewingConditions seen;
    row.seenAs = QStringLiteral("screen pixels");
    if (const double dpi = printerDpi(r); dpi > 0) {
        row.printDpi = dpi;
        seen = ViewingConditions{row.printDpi, distanceCm / 2.54};
        row.sigmaPixels = eyeSigmaPixels(seen);
        row.seenAs = QStringLiteral("%1 dpi from %2 cm").arg(row.printDpi).arg(distanceCm);
    }
    if (!r.halftone) return row;
    // Measured against what the method ran on (the prepared image after Adjust), at its size, as the pane's label is.
    const MeasuredPair pair = measuredPair(r, original);
    // A CMYK result is measured as it is shown, in RGB (as the pane labels' PSNR).
    const bool cmyk = pair.halftone->space == ColorSpace::CMYK;
    // A palette result is RGB whatever the colour mode: measured against the original in RGB.
    const Image orig =
        convertColor(*pair.reference, cmyk || pair.halftone->space == ColorSpace::RGB ? ColorMode::RGB : r.color);
    const Image shownResult = cmyk ? convertColor(*pair.halftone, ColorMode::RGB) : Image();
    const Image& result = cmyk ? shownResult : *pair.halftone;
    const int w = orig.width(), h = orig.height();
    const int cw = std::min(w, kMaxMeasured), ch = std::min(h, kMaxMeasured);
    row.region =
        (cw == w && ch == h) ? QStringLiteral("whole image") : QStringLiteral("central %1 x %2 crop").arg(cw).arg(ch);
    if (result.width() != w || result.height() != h) {
        row.error = QStringLiteral("the result is %1 x %2, the image it was made from %3 x %4")
                        .arg(result.width())
                        .arg(result.height())
                        .arg(w)
                        .arg(h);
        return row;
    }
    double e = 0;
    const int n = std::min(orig.channelCount(), result.channelCount());
    for (int c = 0; c < n && !stop; ++c)
        e += hvsWeightedError(centralCrop(orig.channels[size_t(c)], cw, ch),
                              centralCrop(result.channels[size_t(c)], cw, ch));
    row.hvsError = e / std::max(1, n);
    QString psnrRegion;
    if (row.printDpi > 0)
        measurePsnr(result, orig, row.linear, row.psnrDb, psnrRegion, row.sigmaPixels,
                    int(std::ceil(3 * row.sigmaPixels)));
    else
        measurePsnr(result, orig, row.linear, row.psnrDb, psnrRegion);
    if (stop) return row;
    // The colour difference as seen, on the same region (docs/quality.md).
    Image a = convertColor(orig, ColorMode::RGB), b = convertColor(result, ColorMode::RGB);
    for (Image* im : {&a, &b})
        for (Plane8& plane : im->channels) plane = centralCrop(plane, cw, ch);
    row.seenDeltaE = seenDeltaE2000(a, b, row.linear, seen);
    if (stop) return row;
    // The simulated panel, on the whole image as the CLI measures it (a target's frame is small).
    if (r.target) {
        row.panelName = QString::fromStdString(r.target->name);
        if (Status s = panelDeltaE2000(*r.target, *pair.reference, *pair.halftone, row.panelDeltaE); !s) {
            row.error = QString::fromStdString(s.message());
            return row;
        }
    }
    if (stop) return row;

    // Tone reproduction on a ramp (docs/spec.md section 3).
    const Plane8 ramp = grayRamp(512, 256);  // 512 samples per gray level
    Plane8 rampOut;
    if (Status s = runOn(r, ramp, rampOut); !s) {
        row.error = QString::fromStdString(s.message());
        return row;
    }
    const ToneCurve tc = toneCurve(ramp, rampOut);
    for (int g = 0; g < int(tc.meanOut.size()); ++g)
        if (tc.count[size_t(g)] > 0) {
            row.toneIn << g;
            row.toneOut << tc.meanOut[size_t(g)];
        }
    row.toneMaxDeviation = tc.maxDeviation;
    if (stop) return row;

    // Radially averaged power spectrum of a constant patch (Ulichney).
    const Plane8 patch(256, 256, uint8_t(patchLevel));
    Plane8 patchOut;
    if (Status s = runOn(r, patch, patchOut); !s) {
        row.error = QString::fromStdString(s.message());
        return row;
    }
    RadialSpectrum spec;
    if (Status s = radialSpectrum(patchOut, spec); !s) {
        row.error = QString::fromStdString(s.message());
        return row;
    }
    // Rings beyond 0.5 cycles/pixel are the corners of the frequency square with few samples each;
    // Ulichney's plots stop at the ring the whole square still covers, so do we.
    for (size_t i = 0; i < spec.frequency.size(); ++i) {
        if (spec.frequency[i] > 0.5) break;
        row.freq << spec.frequency[i];
        row.power << (spec.variance > 0 ? spec.power[i] / spec.variance : 0.0);
    }
    return row;
}

const QList<QColor>& colors() {
    static const QList<QColor> c = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
                                    QColor(214, 39, 40), QColor(148, 103, 189)};
    return c;
}

}  // namespace

QualityPanel::QualityPanel(Registry& registry, QWidget* parent) : QWidget(parent), registry_(registry) {
    table_ = new QTableWidget(0, 10);
    table_->setObjectName(QStringLiteral("qualityTable"));
    table_->setHorizontalHeaderLabels({tr("Result"), tr("Device"), tr("Time (ms)"), tr("HVS error E/N"),
                                       tr("Delta E seen"), tr("PSNR (HVS) dB"), tr("Tone max dev."), tr("Region"),
                                       tr("Delta E panel"), tr("Seen as")});
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setMaximumHeight(170);
    patchLevel_ = new QSpinBox;
    patchLevel_->setRange(1, 254);
    patchLevel_->setValue(64);
    patchLevel_->setToolTip(tr("gray level of the constant patch whose spectrum is shown"));
    distance_ = new QDoubleSpinBox;
    distance_->setObjectName(QStringLiteral("viewingDistance"));
    distance_->setRange(5, 1000);
    distance_->setDecimals(0);
    distance_->setValue(30);
    distance_->setSuffix(QStringLiteral(" cm"));
    distance_->setKeyboardTracking(false);
    distance_->setToolTip(
        tr("Results of methods that model a printer (AM screens) are measured as printed: at their dpi, seen from "
           "this distance (the eye's Gaussian of 0.05 degree; docs/quality.md)"));
    measureButton_ = new QPushButton(tr("Measure"));
    exportPngButton_ = new QPushButton(tr("Export PNG..."));
    exportPngButton_->setToolTip(
        tr("Both charts as one picture, headed by what was measured (image, results, parameters, machine, date)"));
    exportCsvButton_ = new QPushButton(tr("Export CSV..."));
    exportCsvButton_->setToolTip(
        tr("The table and the chart data, headed by what was measured (image, results, parameters, machine, date)"));
    exportPngButton_->setEnabled(false);
    exportCsvButton_->setEnabled(false);
    status_ = new QLabel;
    status_->setWordWrap(true);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Spectrum patch level")));
    top->addWidget(patchLevel_);
    top->addWidget(measureButton_);
    top->addWidget(exportPngButton_);
    top->addWidget(exportCsvButton_);
    top->addWidget(status_, 1);

    tonePlot_ = new QCustomPlot;
    tonePlot_->setObjectName(QStringLiteral("tonePlot"));
    tonePlot_->xAxis->setLabel(tr("input gray level (ramp)"));
    tonePlot_->yAxis->setLabel(tr("mean output"));
    spectrumPlot_ = new QCustomPlot;
    spectrumPlot_->setObjectName(QStringLiteral("spectrumPlot"));
    spectrumPlot_->xAxis->setLabel(tr("radial frequency (cycles/pixel)"));
    spectrumPlot_->yAxis->setLabel(tr("power / variance"));
    for (QCustomPlot* p : {tonePlot_, spectrumPlot_}) {
        p->setMinimumSize(300, 260);
        // The legend goes below the axes, never over the data; it appears once there is something to name.
        p->axisRect()->insetLayout()->take(p->legend);
        p->plotLayout()->addElement(1, 0, p->legend);
        p->plotLayout()->setRowStretchFactor(1, 0.001);
        p->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
        p->legend->setFont(QFont(font().family(), 8));
        p->legend->setVisible(false);
    }
    auto* plots = new QSplitter;
    plots->addWidget(tonePlot_);
    plots->addWidget(spectrumPlot_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    auto* viewing = new QHBoxLayout;  // a row of its own: the top row sets the window's narrowest width
    viewing->addWidget(new QLabel(tr("Printed results seen from")));
    viewing->addWidget(distance_);
    viewing->addStretch(1);
    layout->addLayout(viewing);
    layout->addWidget(table_);
    layout->addWidget(plots, 1);
    connect(measureButton_, &QPushButton::clicked, this, &QualityPanel::measure);
    // Export: a file dialog, the extension added when the name has none, a failure's message in the status line.
    auto exportTo = [this](const QString& title, const QString& name, const QString& filter, const QString& ext,
                           bool (QualityPanel::*write)(const QString&, QString*) const) {
        const QString f = QFileDialog::getSaveFileName(this, title, name, filter);
        QString err;
        if (!f.isEmpty() && !(this->*write)(f.endsWith(ext, Qt::CaseInsensitive) ? f : f + ext, &err))
            status_->setText(err);
    };
    connect(exportPngButton_, &QPushButton::clicked, this, [this, exportTo] {
        exportTo(tr("Export quality charts"), QStringLiteral("quality.png"), tr("PNG (*.png)"), QStringLiteral(".png"),
                 &QualityPanel::exportPng);
    });
    connect(exportCsvButton_, &QPushButton::clicked, this, [this, exportTo] {
        exportTo(tr("Export quality data"), QStringLiteral("quality.csv"), tr("CSV (*.csv)"), QStringLiteral(".csv"),
                 &QualityPanel::exportCsv);
    });
    connect(patchLevel_, &QSpinBox::valueChanged, this, [this] { dirty_ = true; });
    connect(distance_, &QDoubleSpinBox::valueChanged, this, [this] {
        dirty_ = true;
        if (isVisible()) measure();
    });
    status_->setText(tr("Measures the results on the Compare tab when this tab is shown."));
}

QualityPanel::~QualityPanel() {
    if (stop_) stop_->store(true);
    if (watcher_) watcher_->waitForFinished();
}

bool QualityPanel::running() const { return watcher_ && watcher_->isRunning(); }
double QualityPanel::viewingDistanceCm() const { return distance_->value(); }
void QualityPanel::setViewingDistanceCm(double cm) { distance_->setValue(cm); }

void QualityPanel::setResults(std::shared_ptr<const Image> original, const QVector<JobResultPtr>& results,
                              const QString& imageName) {
    original_ = std::move(original);
    imageName_ = imageName;
    results_ = results;
    dirty_ = true;
    if (isVisible()) measure();
}

void QualityPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (dirty_) measure();
}

void QualityPanel::measure() {
    dirty_ = false;
    if (stop_) stop_->store(true);
    if (!original_ || results_.isEmpty()) {
        showRows({});
        status_->setText(tr("Nothing to measure yet: open an image and run a method."));
        return;
    }
    stop_ = std::make_shared<std::atomic<bool>>(false);
    auto stop = stop_;
    auto original = original_;
    const QVector<JobResultPtr> results = results_;
    const int level = patchLevel_->value();
    const double distance = distance_->value();
    status_->setText(tr("Measuring %1 result(s)...").arg(results.size()));
    auto* watcher = new QFutureWatcher<QVector<QualityRow>>(this);
    watcher_ = watcher;
    connect(watcher, &QFutureWatcher<QVector<QualityRow>>::finished, this, [this, watcher, stop] {
        watcher->deleteLater();
        if (watcher_ == watcher) watcher_ = nullptr;
        if (stop->load()) return;  // superseded
        showRows(watcher->result());
        emit measured();
    });
    watcher->setFuture(QtConcurrent::run([results, original, level, distance, stop] {
        QVector<QualityRow> rows;
        for (const JobResultPtr& r : results) {
            if (stop->load()) break;
            rows.push_back(measureOne(*r, original, level, distance, *stop));
        }
        return rows;
    }));
}

void QualityPanel::showRows(const QVector<QualityRow>& rows) {
    rows_ = rows;
    table_->setRowCount(int(rows.size()));
    QStringList errors;
    for (int i = 0; i < rows.size(); ++i) {
        const QualityRow& r = rows[i];
        const QStringList cells = {r.label,
                                   r.device,
                                   QString::number(r.seconds * 1000, 'f', 1),
                                   QString::number(r.hvsError, 'g', 5),
                                   QString::number(r.seenDeltaE, 'f', 2),
                                   QString::number(r.psnrDb, 'f', 2),
                                   QString::number(r.toneMaxDeviation, 'f', 2),
                                   r.region,
                                   r.panelName.isEmpty() ? QString() : QString::number(r.panelDeltaE, 'f', 3),
                                   r.seenAs};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(r.details);
            table_->setItem(i, c, item);
        }
        QStringList how{
            tr("Both images through the same Gaussian (sigma %1 px), then PSNR").arg(r.sigmaPixels, 0, 'f', 2)};
        if (r.printDpi > 0) how << tr("the eye's at %1").arg(r.seenAs);
        if (r.linear) how << tr("in linear light, the space this method diffused in");
        if (r.colorMode == QLatin1String("CMYK")) how << tr("CMYK measured as shown, in RGB");
        table_->item(i, 3)->setToolTip(how.join(QStringLiteral("; ")));
        table_->item(i, 5)->setToolTip(how.join(QStringLiteral("; ")));
        const ViewingConditions seen =
            r.printDpi > 0 ? ViewingConditions{r.printDpi, viewingDistanceCm() / 2.54} : ViewingConditions{};
        table_->item(i, 4)->setToolTip(
            tr("Colour difference as seen from %1 inches at %2 dpi (a print at its size, or a screen at 1:1 from arm's "
               "length): mean CIEDE2000 "
               "between the original and the result, both as light in the space the method diffused in, through the "
               "eye's Gaussian (%3 px), then to CIELAB (D65). 0 for a copy; lower is better; below about 1 is "
               "invisible side by side")
                .arg(seen.distanceInches)
                .arg(seen.dpi)
                .arg(eyeSigmaPixels(seen), 0, 'f', 2));
        table_->item(i, 8)->setToolTip(
            r.panelName.isEmpty()
                ? tr("For results made for a target (Adjust > Target)")
                : tr("The simulated panel: the result in the colours %1 shows, against the image it was made from, "
                     "both through the Gaussian (sigma 1.2 px) in linear light, mean CIEDE2000 (the number `halftone "
                     "analyze --target %1` prints)")
                      .arg(r.panelName));
        if (!r.error.isEmpty()) errors << r.label + QStringLiteral(": ") + r.error;
    }
    tonePlot_->clearGraphs();
    spectrumPlot_->clearGraphs();
    QCPGraph* ideal = tonePlot_->addGraph();
    ideal->setName(tr("ideal (output = input)"));
    ideal->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    ideal->setData(QVector<double>{0, 255}, QVector<double>{0, 255});
    for (int i = 0; i < rows.size(); ++i) {
        const QPen pen(colors()[i % colors().size()], 1.5);
        QCPGraph* t = tonePlot_->addGraph();
        t->setName(rows[i].label);
        t->setPen(pen);
        t->setData(rows[i].toneIn, rows[i].toneOut);
        QCPGraph* s = spectrumPlot_->addGraph();
        s->setName(rows[i].label);
        s->setPen(pen);
        s->setData(rows[i].freq, rows[i].power);
    }
    tonePlot_->legend->setVisible(!rows.isEmpty());
    spectrumPlot_->legend->setVisible(!rows.isEmpty());
    measuredAt_ = QDateTime::currentDateTime().toString(Qt::ISODate);
    exportPngButton_->setEnabled(!rows.isEmpty());
    exportCsvButton_->setEnabled(!rows.isEmpty());
    tonePlot_->xAxis->setRange(0, 255);
    tonePlot_->yAxis->setRange(0, 255);
    spectrumPlot_->rescaleAxes();
    spectrumPlot_->yAxis->setRangeLower(0);
    spectrumPlot_->xAxis->setLabel(tr("radial frequency (cycles/pixel), patch gray %1/255").arg(patchLevel_->value()));
    tonePlot_->replot(QCustomPlot::rpQueuedReplot);
    spectrumPlot_->replot(QCustomPlot::rpQueuedReplot);
    status_->setText(
        errors.isEmpty()
            ? tr("Measured %1 result(s). Lower HVS error is better; blue noise has little power at low frequency.")
                  .arg(rows.size())
            : errors.join(QLatin1Char('\n')));
}

QStringList QualityPanel::provenance() const {
    QStringList lines;
    lines << QStringLiteral("image: %1").arg(imageName_.isEmpty() ? tr("(unnamed)") : imageName_);
    if (original_) lines << QStringLiteral("image size: %1 x %2").arg(original_->width()).arg(original_->height());
    for (int i = 0; i < rows_.size(); ++i) {
        const QualityRow& r = rows_[i];
        lines << QStringLiteral("result %1: %2").arg(i + 1).arg(r.label);
        lines << QStringLiteral("result %1 colour mode: %2%3")
                     .arg(i + 1)
                     .arg(r.colorMode, r.linear ? QStringLiteral(", linear light") : QString());
        QStringList params = r.details.split(QLatin1Char('\n'));
        params.removeIf(
            [](const QString& l) { return l.startsWith(QStringLiteral("Method:")) || !l.contains(QLatin1Char(':')); });
        lines << QStringLiteral("result %1 parameters: %2").arg(i + 1).arg(params.join(QStringLiteral("; ")));
        lines << QStringLiteral("result %1 region: %2").arg(i + 1).arg(r.region);
    }
    lines << QStringLiteral("spectrum patch: constant gray %1/255, 256 x 256").arg(patchLevel_->value());
    lines << QStringLiteral(
                 "PSNR (HVS): both images through the Gaussian sigma 1.2 px, w = 4, in the method's working space; "
                 "results "
                 "with a printer resolution as printed: the eye's Gaussian (0.05 degree) at that dpi from %1 cm, w = 3 "
                 "sigma")
                 .arg(distance_->value());
    const ViewingConditions seen;
    lines << QStringLiteral(
                 "Delta E seen: %1 dpi seen from %2 inches (Gaussian sigma %3 px), in the method's working "
                 "space, CIEDE2000")
                 .arg(seen.dpi)
                 .arg(seen.distanceInches)
                 .arg(eyeSigmaPixels(seen), 0, 'f', 2);
    lines << QStringLiteral("machine: %1, %2, %3 threads")
                 .arg(QSysInfo::machineHostName(), QSysInfo::prettyProductName())
                 .arg(hardwareThreads());
    const GpuAvailability& gpu = registry_.gpuAvailability();
    lines << QStringLiteral("GPU: %1").arg(
        QString::fromStdString(gpu.usable ? gpu.deviceName : "none (" + gpu.reason + ")"));
    lines << QStringLiteral("date: %1")
                 .arg(measuredAt_.isEmpty() ? QDateTime::currentDateTime().toString(Qt::ISODate) : measuredAt_);
    return lines;
}

namespace {
QString csvField(const QString& s) {
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n'))) return s;
    return QLatin1Char('"') + QString(s).replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}
}  // namespace

bool QualityPanel::exportCsv(const QString& path, QString* error) const {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
        if (error) *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    QTextStream out(&f);
    for (const QString& l : provenance()) out << "# " << l << '\n';
    out << "section,result,device,time_ms,hvs_error,delta_e_seen,psnr_hvs_db,tone_max_dev,region,delta_e_panel,"
           "seen_as\n";
    for (const QualityRow& r : rows_)
        out << "table," << csvField(r.label) << ',' << r.device << ',' << r.seconds * 1000 << ',' << r.hvsError << ','
            << r.seenDeltaE << ',' << r.psnrDb << ',' << r.toneMaxDeviation << ',' << csvField(r.region) << ','
            << (r.panelName.isEmpty() ? QString() : QString::number(r.panelDeltaE, 'g', 17)) << ','
            << csvField(r.seenAs) << '\n';
    out << "section,result,input_gray,mean_output\n";
    for (const QualityRow& r : rows_)
        for (int i = 0; i < r.toneIn.size(); ++i)
            out << "tone," << csvField(r.label) << ',' << r.toneIn[i] << ',' << r.toneOut[i] << '\n';
    out << "section,result,frequency_cycles_per_pixel,power_over_variance\n";
    for (const QualityRow& r : rows_)
        for (int i = 0; i < r.freq.size(); ++i)
            out << "spectrum," << csvField(r.label) << ',' << r.freq[i] << ',' << r.power[i] << '\n';
    out.flush();
    if (f.error() != QFileDevice::NoError) {
        if (error) *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

bool QualityPanel::exportPng(const QString& path, QString* error) const {
    const QPixmap tone = tonePlot_->toPixmap(640, 480), spec = spectrumPlot_->toPixmap(640, 480);
    const QStringList lines = provenance();
    QFont font(this->font().family(), 9);
    const QFontMetrics fm(font);
    const int header = fm.lineSpacing() * int(lines.size()) + 16;
    QImage img(tone.width() + spec.width(), header + std::max(tone.height(), spec.height()), QImage::Format_RGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setFont(font);
    p.setPen(Qt::black);
    for (int i = 0; i < lines.size(); ++i) p.drawText(8, 8 + fm.ascent() + i * fm.lineSpacing(), lines[i]);
    p.drawPixmap(0, header, tone);
    p.drawPixmap(tone.width(), header, spec);
    p.end();
    if (!img.save(path, "PNG")) {
        if (error) *error = tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

}  // namespace halftone
