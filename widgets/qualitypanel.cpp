#include "widgets/qualitypanel.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <qcustomplot.h>

#include "core/metrics.h"

namespace halftone {

namespace {

constexpr int kMaxMeasured = 2048;  // larger images are measured on a central crop of this size

Plane8 crop(const Plane8& p, int x0, int y0, int w, int h) {
    Plane8 out(w, h);
    for (int y = 0; y < h; ++y) std::copy(p.row(y0 + y) + x0, p.row(y0 + y) + x0 + w, out.row(y));
    return out;
}

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
    out = std::move(res.image.channels.front());
    return Status::ok();
}

QualityRow measureOne(const JobResult& r, const Image& original, int patchLevel, const std::atomic<bool>& stop) {
    QualityRow row;
    row.methodId = r.methodId;
    row.device = QString::fromLatin1(toString(r.device));
    row.seconds = r.seconds;
    if (!r.halftone) return row;
    const Image orig = convertColor(original, r.color);
    const int w = orig.width(), h = orig.height();
    const int cw = std::min(w, kMaxMeasured), ch = std::min(h, kMaxMeasured);
    const int x0 = (w - cw) / 2, y0 = (h - ch) / 2;
    row.region = (cw == w && ch == h) ? QStringLiteral("whole image") : QStringLiteral("central %1 x %2").arg(cw).arg(ch);
    double e = 0, p = 0;
    const int n = std::min(orig.channelCount(), r.halftone->channelCount());
    for (int c = 0; c < n && !stop; ++c) {
        const Plane8 a = crop(orig.channels[size_t(c)], x0, y0, cw, ch);
        const Plane8 b = crop(r.halftone->channels[size_t(c)], x0, y0, cw, ch);
        e += hvsWeightedError(a, b);
        p += filteredPsnr(a, b);
    }
    row.hvsError = e / std::max(1, n);
    row.psnrDb = p / std::max(1, n);
    if (stop) return row;

    // Tone reproduction on a ramp (SPEC section 3).
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
    static const QList<QColor> c = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40), QColor(148, 103, 189)};
    return c;
}

}  // namespace

QualityPanel::QualityPanel(Registry& registry, QWidget* parent) : QWidget(parent), registry_(registry) {
    table_ = new QTableWidget(0, 7);
    table_->setObjectName(QStringLiteral("qualityTable"));
    table_->setHorizontalHeaderLabels({tr("Method"), tr("Device"), tr("Time (ms)"), tr("HVS error E/N"), tr("PSNR filtered (dB)"),
                                       tr("Tone max dev."), tr("Region")});
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setMaximumHeight(170);
    patchLevel_ = new QSpinBox;
    patchLevel_->setRange(1, 254);
    patchLevel_->setValue(64);
    patchLevel_->setToolTip(tr("gray level of the constant patch whose spectrum is shown"));
    measureButton_ = new QPushButton(tr("Measure"));
    status_ = new QLabel;
    status_->setWordWrap(true);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Spectrum patch level")));
    top->addWidget(patchLevel_);
    top->addWidget(measureButton_);
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
        p->setMinimumSize(300, 220);
        p->legend->setVisible(true);
        p->legend->setFont(QFont(font().family(), 8));
    }
    auto* plots = new QSplitter;
    plots->addWidget(tonePlot_);
    plots->addWidget(spectrumPlot_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(table_);
    layout->addWidget(plots, 1);
    connect(measureButton_, &QPushButton::clicked, this, &QualityPanel::measure);
    connect(patchLevel_, &QSpinBox::valueChanged, this, [this] { dirty_ = true; });
    status_->setText(tr("Measures from core/metrics.h (SPEC section 3). Runs in the background when this tab is shown."));
}

QualityPanel::~QualityPanel() {
    if (stop_) stop_->store(true);
    if (watcher_) watcher_->waitForFinished();
}

bool QualityPanel::running() const { return watcher_ && watcher_->isRunning(); }

void QualityPanel::setResults(std::shared_ptr<const Image> original, const QVector<JobResultPtr>& results) {
    original_ = std::move(original);
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
        show({});
        status_->setText(tr("Nothing to measure yet: open an image and run a method."));
        return;
    }
    stop_ = std::make_shared<std::atomic<bool>>(false);
    auto stop = stop_;
    auto original = original_;
    const QVector<JobResultPtr> results = results_;
    const int level = patchLevel_->value();
    status_->setText(tr("Measuring %1 result(s)...").arg(results.size()));
    auto* watcher = new QFutureWatcher<QVector<QualityRow>>(this);
    watcher_ = watcher;
    connect(watcher, &QFutureWatcher<QVector<QualityRow>>::finished, this, [this, watcher, stop] {
        watcher->deleteLater();
        if (watcher_ == watcher) watcher_ = nullptr;
        if (stop->load()) return;  // superseded
        show(watcher->result());
        emit measured();
    });
    watcher->setFuture(QtConcurrent::run([results, original, level, stop] {
        QVector<QualityRow> rows;
        for (const JobResultPtr& r : results) {
            if (stop->load()) break;
            rows.push_back(measureOne(*r, *original, level, *stop));
        }
        return rows;
    }));
}

void QualityPanel::show(const QVector<QualityRow>& rows) {
    rows_ = rows;
    table_->setRowCount(int(rows.size()));
    QStringList errors;
    for (int i = 0; i < rows.size(); ++i) {
        const QualityRow& r = rows[i];
        const QStringList cells = {r.methodId, r.device, QString::number(r.seconds * 1000, 'f', 1), QString::number(r.hvsError, 'g', 5),
                                   QString::number(r.psnrDb, 'f', 2), QString::number(r.toneMaxDeviation, 'f', 2), r.region};
        for (int c = 0; c < cells.size(); ++c) table_->setItem(i, c, new QTableWidgetItem(cells[c]));
        if (!r.error.isEmpty()) errors << r.methodId + QStringLiteral(": ") + r.error;
    }
    tonePlot_->clearGraphs();
    spectrumPlot_->clearGraphs();
    QCPGraph* ideal = tonePlot_->addGraph();
    ideal->setName(tr("ideal"));
    ideal->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    ideal->setData(QVector<double>{0, 255}, QVector<double>{0, 255});
    for (int i = 0; i < rows.size(); ++i) {
        const QPen pen(colors()[i % colors().size()], 1.5);
        QCPGraph* t = tonePlot_->addGraph();
        t->setName(rows[i].methodId + QStringLiteral(" @") + rows[i].device);
        t->setPen(pen);
        t->setData(rows[i].toneIn, rows[i].toneOut);
        QCPGraph* s = spectrumPlot_->addGraph();
        s->setName(rows[i].methodId + QStringLiteral(" @") + rows[i].device);
        s->setPen(pen);
        s->setData(rows[i].freq, rows[i].power);
    }
    tonePlot_->xAxis->setRange(0, 255);
    tonePlot_->yAxis->setRange(0, 255);
    spectrumPlot_->rescaleAxes();
    spectrumPlot_->yAxis->setRangeLower(0);
    spectrumPlot_->xAxis->setLabel(tr("radial frequency (cycles/pixel), patch gray %1/255").arg(patchLevel_->value()));
    tonePlot_->replot(QCustomPlot::rpQueuedReplot);
    spectrumPlot_->replot(QCustomPlot::rpQueuedReplot);
    status_->setText(errors.isEmpty() ? tr("Measured %1 result(s). Lower HVS error is better; blue noise has little power at low frequency.").arg(rows.size())
                                      : errors.join(QLatin1Char('\n')));
}

}  // namespace halftone
