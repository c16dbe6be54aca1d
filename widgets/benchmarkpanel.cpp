#include "widgets/benchmarkpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QTextStream>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <chrono>
#include <random>
#include <qcustomplot.h>

namespace halftone {

namespace {

/// A deterministic test picture: a diagonal ramp with noise, so every quantizer level is visited.
Plane8 benchImage(int n) {
    Plane8 p(n, n);
    std::mt19937 rng(uint32_t(n) * 2654435761u);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            p.at(y, x) = uint8_t(std::clamp(int((int64_t(x + y) * 255) / std::max(1, 2 * n - 2)) + int(rng() % 33) - 16, 0, 255));
    return p;
}

const QList<QColor>& seriesColors() {
    static const QList<QColor> c = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
                                    QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
                                    QColor(188, 189, 34), QColor(23, 190, 207)};
    return c;
}

void setupLogAxis(QCPAxis* axis) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("gb"));
}

}  // namespace

BenchmarkPanel::BenchmarkPanel(Registry& registry, QWidget* parent) : QWidget(parent), registry_(registry) {
    qRegisterMetaType<halftone::BenchPoint>();
    methods_ = new QListWidget;
    methods_->setObjectName(QStringLiteral("benchMethods"));
    for (const MethodInfo& m : registry_.methods()) {
        auto* item = new QListWidgetItem(QString::fromStdString(m.id()), methods_);
        item->setToolTip(QString::fromStdString(m.description));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(m.method == "ed" || m.method == "ec" ? Qt::Checked : Qt::Unchecked);
    }
    cpu_ = new QCheckBox(tr("CPU"));
    cpu_->setChecked(true);
    gpu_ = new QCheckBox(tr("GPU"));
    const GpuAvailability& g = registry_.gpuAvailability();
    gpu_->setEnabled(g.usable);
    gpu_->setChecked(g.usable);
    gpu_->setToolTip(g.usable ? QString::fromStdString(g.deviceName) : tr("no usable GPU: %1").arg(QString::fromStdString(g.reason)));
    sizes_ = new QLineEdit(QStringLiteral("256, 512, 1024, 2048"));
    sizes_->setToolTip(tr("square image sides in pixels, comma separated"));
    repeats_ = new QSpinBox;
    repeats_->setRange(1, 50);
    repeats_->setValue(3);
    baseline_ = new QComboBox;
    baseline_->setObjectName(QStringLiteral("baseline"));
    run_ = new QPushButton(tr("Run sweep"));
    stop_ = new QPushButton(tr("Cancel"));
    stop_->setEnabled(false);
    progress_ = new QProgressBar;
    status_ = new QLabel;
    status_->setWordWrap(true);
    auto* exportPng = new QPushButton(tr("Export PNG..."));
    auto* exportCsv = new QPushButton(tr("Export CSV..."));

    auto* left = new QWidget;
    auto* form = new QFormLayout(left);
    form->addRow(tr("Methods"), methods_);
    auto* dev = new QHBoxLayout;
    dev->addWidget(cpu_);
    dev->addWidget(gpu_);
    form->addRow(tr("Devices"), dev);
    form->addRow(tr("Sizes"), sizes_);
    form->addRow(tr("Repeats (median)"), repeats_);
    form->addRow(tr("Speed-up baseline"), baseline_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(run_);
    buttons->addWidget(stop_);
    form->addRow(buttons);
    form->addRow(progress_);
    form->addRow(status_);
    auto* ex = new QHBoxLayout;
    ex->addWidget(exportPng);
    ex->addWidget(exportCsv);
    form->addRow(ex);

    timePlot_ = new QCustomPlot;
    timePlot_->setObjectName(QStringLiteral("timePlot"));
    speedupPlot_ = new QCustomPlot;
    speedupPlot_->setObjectName(QStringLiteral("speedupPlot"));
    for (QCustomPlot* p : {timePlot_, speedupPlot_}) {
        p->setMinimumSize(320, 220);
        setupLogAxis(p->xAxis);
        p->xAxis->setLabel(tr("image size (megapixels)"));
        p->legend->setVisible(true);
        p->legend->setFont(QFont(font().family(), 8));
        p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    }
    setupLogAxis(timePlot_->yAxis);
    timePlot_->yAxis->setLabel(tr("time (s)"));
    speedupPlot_->yAxis->setLabel(tr("speed-up vs baseline (x)"));
    auto* charts = new QSplitter(Qt::Vertical);
    charts->addWidget(timePlot_);
    charts->addWidget(speedupPlot_);
    auto* split = new QSplitter;
    split->addWidget(left);
    split->addWidget(charts);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(run_, &QPushButton::clicked, this, &BenchmarkPanel::start);
    connect(stop_, &QPushButton::clicked, this, &BenchmarkPanel::cancel);
    connect(baseline_, &QComboBox::currentIndexChanged, this, &BenchmarkPanel::replot);
    connect(exportPng, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Export chart"), QStringLiteral("benchmark.png"), tr("PNG (*.png)"));
        QString err;
        if (!f.isEmpty() && !this->exportPng(f, &err)) status_->setText(err);
    });
    connect(exportCsv, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Export numbers"), QStringLiteral("benchmark.csv"), tr("CSV (*.csv)"));
        QString err;
        if (!f.isEmpty() && !this->exportCsv(f, &err)) status_->setText(err);
    });
}

BenchmarkPanel::~BenchmarkPanel() {
    cancel();
    if (watcher_) watcher_->waitForFinished();
}

void BenchmarkPanel::configure(const QStringList& ids, const QList<Device>& devices, const QList<int>& sizes, int repeats) {
    for (int i = 0; i < methods_->count(); ++i)
        methods_->item(i)->setCheckState(ids.contains(methods_->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    cpu_->setChecked(devices.contains(Device::Cpu));
    gpu_->setChecked(devices.contains(Device::Gpu) && gpu_->isEnabled());
    QStringList s;
    for (int v : sizes) s << QString::number(v);
    sizes_->setText(s.join(QStringLiteral(", ")));
    repeats_->setValue(repeats);
}

// A sweep runs from start() until its end has been reported (sweepFinished), not only while its worker thread is busy: a
// sweep of a few tiny sizes can finish on the worker before start() returns.
bool BenchmarkPanel::running() const { return busy_; }

void BenchmarkPanel::cancel() {
    if (stopFlag_) stopFlag_->store(true);
}

void BenchmarkPanel::start() {
    if (running()) return;
    struct Job {
        const MethodInfo* method;
        Device device;
        int size;
    };
    QList<int> sizes;
    for (const QString& t : sizes_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int v = t.trimmed().toInt(&ok);
        if (!ok || v < 1 || v > 32768) {
            status_->setText(tr("Sizes: '%1' is not a side length between 1 and 32768").arg(t.trimmed()));
            return;
        }
        sizes << v;
    }
    std::sort(sizes.begin(), sizes.end());
    std::vector<Job> jobs;
    for (int size : sizes)
        for (int i = 0; i < methods_->count(); ++i) {
            if (methods_->item(i)->checkState() != Qt::Checked) continue;
            const QString id = methods_->item(i)->text();
            const MethodInfo* m = registry_.find(id.section(QLatin1Char('/'), 0, 0).toStdString(), id.section(QLatin1Char('/'), 1).toStdString());
            if (!m) continue;
            if (cpu_->isChecked() && m->cpu) jobs.push_back({m, Device::Cpu, size});
            if (gpu_->isChecked() && m->gpu && registry_.gpuAvailability().usable) jobs.push_back({m, Device::Gpu, size});
        }
    if (jobs.empty()) {
        status_->setText(tr("Nothing to run: choose at least one method and a device it runs on."));
        return;
    }
    points_.clear();
    baseline_->clear();
    replot();
    stopFlag_ = std::make_shared<std::atomic<bool>>(false);
    auto stop = stopFlag_;
    const int repeats = repeats_->value();
    progress_->setRange(0, int(jobs.size()));
    progress_->setValue(0);
    run_->setEnabled(false);
    stop_->setEnabled(true);
    status_->setText(tr("Running %1 measurements...").arg(jobs.size()));

    delete watcher_;
    watcher_ = new QFutureWatcher<void>(this);
    busy_ = true;
    connect(watcher_, &QFutureWatcher<void>::finished, this, [this, stop] {
        busy_ = false;
        run_->setEnabled(true);
        stop_->setEnabled(false);
        const bool cancelled = stop->load();
        status_->setText(cancelled ? tr("Cancelled after %1 points.").arg(points_.size()) : tr("Done: %1 points.").arg(points_.size()));
        emit sweepFinished(cancelled);
    });
    watcher_->setFuture(QtConcurrent::run([this, jobs, stop, repeats] {
        Plane8 current;
        int done = 0;
        for (const Job& j : jobs) {
            if (stop->load()) return;
            if (current.width != j.size) current = benchImage(j.size);
            RunRequest req;
            req.method = j.method;
            req.device = j.device;
            RunControl rc;
            StopToken token;
            rc.stop = token;
            std::vector<double> times;
            QString note;
            bool failed = false;
            for (int r = 0; r < repeats && !stop->load(); ++r) {
                RunResult res;
                // The stop flag is polled by a tiny progress hook so a long run stops mid-way.
                rc.onProgress = [stop, token](const Progress&) { if (stop->load()) token.requestStop(); };
                Status s = runImage(Image::gray(current), req, res, rc);
                if (!s) {
                    if (!s.isCancelled()) note = QString::fromStdString(s.message());
                    failed = true;
                    break;
                }
                times.push_back(res.seconds);
                if (!res.note.empty()) note = QString::fromStdString(res.note);
            }
            ++done;
            BenchPoint p;
            p.methodId = QString::fromStdString(j.method->id());
            p.device = j.device;
            p.size = j.size;
            p.note = note;
            if (!failed && !times.empty()) {
                std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
                p.seconds = times[times.size() / 2];
            }
            QMetaObject::invokeMethod(this, [this, p, done, failed] {
                progress_->setValue(done);
                if (!failed) addPoint(p);
                else if (!p.note.isEmpty()) status_->setText(tr("%1: %2").arg(p.series(), p.note));
            }, Qt::QueuedConnection);
        }
    }));
}

void BenchmarkPanel::addPoint(const BenchPoint& p) {
    points_.push_back(p);
    if (baseline_->findText(p.series()) < 0) {
        const bool first = baseline_->count() == 0;
        baseline_->addItem(p.series());
        if (first) baseline_->setCurrentIndex(0);
    }
    replot();
    emit pointAdded(p);
}

void BenchmarkPanel::setBaseline(const QString& series) {
    if (baseline_->findText(series) >= 0) baseline_->setCurrentText(series);
}

void BenchmarkPanel::replot() {
    timePlot_->clearGraphs();
    speedupPlot_->clearGraphs();
    QStringList series;
    for (const BenchPoint& p : points_)
        if (!series.contains(p.series())) series << p.series();
    const QString base = baseline_->currentText();
    QMap<int, double> baseTime;
    for (const BenchPoint& p : points_)
        if (p.series() == base) baseTime[p.size] = p.seconds;
    for (int i = 0; i < series.size(); ++i) {
        QVector<double> x, t, sx, su;
        for (const BenchPoint& p : points_) {
            if (p.series() != series[i]) continue;
            const double mp = double(p.size) * p.size / 1e6;
            x << mp;
            t << std::max(p.seconds, 1e-7);
            if (baseTime.contains(p.size) && p.seconds > 0) {
                sx << mp;
                su << baseTime[p.size] / p.seconds;
            }
        }
        const QPen pen(seriesColors()[i % seriesColors().size()], 2, series[i].endsWith(QLatin1String("@gpu")) ? Qt::DashLine : Qt::SolidLine);
        QCPGraph* g = timePlot_->addGraph();
        g->setName(series[i]);
        g->setPen(pen);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
        g->setData(x, t);
        QCPGraph* h = speedupPlot_->addGraph();
        h->setName(series[i]);
        h->setPen(pen);
        h->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
        h->setData(sx, su);
    }
    speedupPlot_->yAxis->setLabel(base.isEmpty() ? tr("speed-up (x)") : tr("speed-up vs %1 (x)").arg(base));
    // Ranges from the data, with a factor as margin on the log axes.
    double xmin = 1e300, xmax = 0, tmin = 1e300, tmax = 0, smax = 1;
    for (const BenchPoint& p : points_) {
        const double mp = double(p.size) * p.size / 1e6;
        xmin = std::min(xmin, mp);
        xmax = std::max(xmax, mp);
        tmin = std::min(tmin, std::max(p.seconds, 1e-7));
        tmax = std::max(tmax, std::max(p.seconds, 1e-7));
        if (baseTime.contains(p.size) && p.seconds > 0) smax = std::max(smax, baseTime[p.size] / p.seconds);
    }
    if (xmax > 0) {
        timePlot_->xAxis->setRange(xmin / 1.6, xmax * 1.6);
        speedupPlot_->xAxis->setRange(xmin / 1.6, xmax * 1.6);
        timePlot_->yAxis->setRange(tmin / 2, tmax * 2);
        speedupPlot_->yAxis->setRange(0, smax * 1.15);
    }
    for (QCustomPlot* p : {timePlot_, speedupPlot_}) {
        p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

QString BenchmarkPanel::csv() const {
    QString out;
    QTextStream s(&out);
    s << "method,variant,device,width,height,pixels,seconds,mpixels_per_s,note\n";
    for (const BenchPoint& p : points_) {
        const qint64 px = qint64(p.size) * p.size;
        QString note = p.note;
        note.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        s << p.methodId.section(QLatin1Char('/'), 0, 0) << ',' << p.methodId.section(QLatin1Char('/'), 1) << ','
          << toString(p.device) << ',' << p.size << ',' << p.size << ',' << px << ','
          << QString::number(p.seconds, 'g', 6) << ',' << QString::number(p.seconds > 0 ? px / p.seconds / 1e6 : 0.0, 'g', 6)
          << ",\"" << note << "\"\n";
    }
    return out;
}

bool BenchmarkPanel::exportCsv(const QString& path, QString* error) const {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error) *error = tr("%1: cannot write: %2").arg(path, f.errorString());
        return false;
    }
    f.write(csv().toUtf8());
    if (!f.commit()) {
        if (error) *error = tr("%1: cannot write: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

bool BenchmarkPanel::exportPng(const QString& path, QString* error) {
    const int w = 900, h = 520;
    QImage img(2 * w, h, QImage::Format_RGB32);
    img.fill(Qt::white);
    {
        QPainter p(&img);
        p.drawPixmap(0, 0, timePlot_->toPixmap(w, h));
        p.drawPixmap(w, 0, speedupPlot_->toPixmap(w, h));
    }
    if (!img.save(path, "PNG")) {
        if (error) *error = tr("%1: cannot write the PNG file").arg(path);
        return false;
    }
    return true;
}

}  // namespace halftone
