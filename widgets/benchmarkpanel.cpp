#include "widgets/benchmarkpanel.h"

#include "core/threads.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
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
#include <QSysInfo>
#include <QTextStream>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <chrono>
#include <random>
#include <qcustomplot.h>

#include "widgets/formrows.h"
#include "widgets/paramvariant.h"

namespace halftone {

namespace {

/// A deterministic test picture: a diagonal ramp with noise, so every quantizer level is visited.
Plane8 benchImage(int n) {
    Plane8 p(n, n);
    std::mt19937 rng(uint32_t(n) * 2654435761u);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            p.at(y, x) = uint8_t(
                std::clamp(int((int64_t(x + y) * 255) / std::max(1, 2 * n - 2)) + int(rng() % 33) - 16, 0, 255));
    return p;
}

const QList<QColor>& seriesColors() {
    static const QList<QColor> c = {
        QColor(31, 119, 180), QColor(255, 127, 14),  QColor(44, 160, 44),   QColor(214, 39, 40),  QColor(148, 103, 189),
        QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34), QColor(23, 190, 207)};
    return c;
}

/// CPU model as the operating system names it ("AMD EPYC 7B13", ...), else the architecture.
QString cpuModel() {
    QFile f(QStringLiteral("/proc/cpuinfo"));
    if (f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        // readAll(): /proc files report a size of 0, so atEnd() is true before the first read.
        for (const QByteArray& raw : f.readAll().split('\n')) {
            const QString line = QString::fromUtf8(raw);
            if (line.startsWith(QLatin1String("model name")) && line.contains(QLatin1Char(':')))
                return line.section(QLatin1Char(':'), 1).simplified();
        }
    }
    return QSysInfo::currentCpuArchitecture();
}

/// A parameter's value as text (the method's default when unset), empty when the method has no such parameter.
QString paramText(Registry& registry, const MethodInfo& m, const std::string& key) {
    if (!m.param(key)) return {};
    ParamValues v;
    if (!registry.resolveParams(m, v) || !v.has(key)) return {};
    return displayText(*m.param(key), v.all().at(key));
}

QString csvField(QString s) {
    s.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + s + QLatin1Char('"');
}

bool gpuOnly(const MethodInfo& m) { return !m.runsOnCpu() && m.gpu; }

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
    const GpuAvailability& g = registry_.gpuAvailability();
    int greyed = 0;
    for (const MethodInfo& m : registry_.methods()) {
        const QString id = QString::fromStdString(m.id());
        auto* item = new QListWidgetItem(id, methods_);
        item->setData(Qt::UserRole, id);
        item->setToolTip(QString::fromStdString(m.description));
        if (gpuOnly(m) && !g.usable) {
            // Runs only on a GPU and there is none: shown, greyed out, with the reason; never ticked.
            ++greyed;
            item->setText(tr("%1 (GPU only)").arg(id));
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable));
            item->setCheckState(Qt::Unchecked);
            item->setToolTip(tr("%1\nNot available: this variant runs only on a GPU, and there is no usable GPU: %2")
                                 .arg(QString::fromStdString(m.description), QString::fromStdString(g.reason)));
            continue;
        }
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(m.method == "ed" || m.method == "ec" ? Qt::Checked : Qt::Unchecked);
    }
    cpu_ = new QCheckBox(tr("CPU"));
    cpu_->setChecked(true);
    gpu_ = new QCheckBox(tr("GPU"));
    gpu_->setEnabled(g.usable);
    gpu_->setChecked(g.usable);
    gpu_->setToolTip(g.usable ? QString::fromStdString(g.deviceName)
                              : tr("no usable GPU: %1").arg(QString::fromStdString(g.reason)));
    sizes_ = new QLineEdit(QStringLiteral("256, 512, 1024, 2048"));
    sizes_->setToolTip(tr("square image sides in pixels, comma separated"));
    repeats_ = new QSpinBox;
    repeats_->setObjectName(QStringLiteral("repeats"));
    repeats_->setRange(0, 50);
    repeats_->setSpecialValueText(tr("auto"));
    repeats_->setValue(0);
    repeats_->setToolTip(
        tr("runs per measurement, the median is kept; auto: %1 at 256 x 256, %2 at 1024 x 1024, %3 from 2048 x 2048 on "
           "(small images run fast and their times scatter more)")
            .arg(autoRepeats(256))
            .arg(autoRepeats(1024))
            .arg(autoRepeats(2048)));
    baseline_ = new QComboBox;
    baseline_->setObjectName(QStringLiteral("baseline"));
    run_ = new QPushButton(tr("Run sweep"));
    stop_ = new QPushButton(tr("Cancel"));
    stop_->setEnabled(false);
    progress_ = new QProgressBar;
    status_ = wrappedLabel(QStringLiteral("benchStatus"));
    skipped_ = wrappedLabel(QStringLiteral("benchSkipped"));
    if (greyed > 0)
        greyedNote_ = tr("%1 GPU-only variants greyed out: no usable GPU (%2).")
                          .arg(greyed)
                          .arg(QString::fromStdString(g.reason));
    skipped_->setText(greyedNote_);
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
    form->addRow(skipped_);
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
        // The legend sits in a column of its own right of the axes, never over the data; it shows only
        // once there are series to name.
        p->axisRect()->insetLayout()->take(p->legend);
        auto* side = new QCPLayoutGrid;
        p->plotLayout()->addElement(0, 1, side);
        p->plotLayout()->setColumnStretchFactor(1, 0.001);
        side->addElement(0, 0, p->legend);
        side->addElement(1, 0, new QCPLayoutElement(p));  // takes the height the legend does not need
        side->setMargins(QMargins(4, 12, 8, 4));          // clear of the widget's edges, level with the top of the axes
        side->setRowStretchFactor(0, 0.001);
        side->setRowStretchFactor(1, 1);
        p->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
        p->legend->setVisible(false);
        p->legend->setFont(QFont(font().family(), 8));
        p->legend->setMargins(QMargins(4, 2, 4, 2));
        p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        auto* empty = new QCPItemText(p);
        empty->setObjectName(QStringLiteral("emptyText"));
        empty->position->setType(QCPItemPosition::ptAxisRectRatio);
        empty->position->setCoords(0.5, 0.5);
        empty->setText(tr("No measurements yet: tick methods and sizes, then Run sweep."));
        empty->setColor(QColor(110, 110, 110));
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
        const QString f =
            QFileDialog::getSaveFileName(this, tr("Export chart"), QStringLiteral("benchmark.png"), tr("PNG (*.png)"));
        QString err;
        if (!f.isEmpty() && !this->exportPng(f, &err)) status_->setText(err);
    });
    connect(exportCsv, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Export numbers"), QStringLiteral("benchmark.csv"),
                                                       tr("CSV (*.csv)"));
        QString err;
        if (!f.isEmpty() && !this->exportCsv(f, &err)) status_->setText(err);
    });
}

BenchmarkPanel::~BenchmarkPanel() {
    cancel();
    if (watcher_) watcher_->waitForFinished();
}

QListWidgetItem* BenchmarkPanel::methodItem(const QString& id) const {
    for (int i = 0; i < methods_->count(); ++i)
        if (methods_->item(i)->data(Qt::UserRole).toString() == id) return methods_->item(i);
    return nullptr;
}

QString BenchmarkPanel::skippedText() const { return skipped_->text(); }

int BenchmarkPanel::autoRepeats(int size) {
    // About 8 megapixels of work per measurement, at least 3 runs (a median needs them) and at most 25.
    const double pixels = std::max(1.0, double(size) * size);
    return int(std::clamp(std::ceil(8.0e6 / pixels), 3.0, 25.0));
}

void BenchmarkPanel::configure(const QStringList& ids, const QList<Device>& devices, const QList<int>& sizes,
                               int repeats) {
    unavailableRequested_.clear();
    for (int i = 0; i < methods_->count(); ++i) {
        QListWidgetItem* item = methods_->item(i);
        const bool want = ids.contains(item->data(Qt::UserRole).toString());
        if (want && !(item->flags() & Qt::ItemIsEnabled)) unavailableRequested_ << item->data(Qt::UserRole).toString();
        item->setCheckState(want && (item->flags() & Qt::ItemIsEnabled) ? Qt::Checked : Qt::Unchecked);
    }
    cpu_->setChecked(devices.contains(Device::Cpu));
    gpu_->setChecked(devices.contains(Device::Gpu) && gpu_->isEnabled());
    QStringList s;
    for (int v : sizes) s << QString::number(v);
    sizes_->setText(s.join(QStringLiteral(", ")));
    repeats_->setValue(repeats);
}

// A sweep runs from start() until its end has been reported (sweepFinished), not only while its worker thread is busy:
// a sweep of a few tiny sizes can finish on the worker before start() returns.
bool BenchmarkPanel::running() const { return busy_; }

void BenchmarkPanel::cancel() {
    if (stopFlag_) stopFlag_->store(true);
}

void BenchmarkPanel::refuse(const QString& why) {
    status_->setText(why);
    emit sweepFinished(false);
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
            refuse(tr("Sizes: '%1' is not a side length between 1 and 32768").arg(t.trimmed()));
            return;
        }
        if (!sizes.contains(v)) sizes << v;
    }
    if (sizes.isEmpty()) {
        refuse(tr("Sizes: give at least one side length, e.g. 256, 512, 1024"));
        return;
    }
    std::sort(sizes.begin(), sizes.end());
    // Say what the sweep leaves out and why, instead of dropping it silently.
    const GpuAvailability& gpu = registry_.gpuAvailability();
    const QString gpuWhy = tr("no usable GPU: %1").arg(QString::fromStdString(gpu.reason));
    QStringList noGpu = unavailableRequested_, noCpuChosen, noGpuChosen, noPlainRun;
    std::vector<const MethodInfo*> chosen;
    for (int i = 0; i < methods_->count(); ++i) {
        if (methods_->item(i)->checkState() != Qt::Checked) continue;
        const QString id = methods_->item(i)->data(Qt::UserRole).toString();
        const MethodInfo* m = registry_.find(id.section(QLatin1Char('/'), 0, 0).toStdString(),
                                             id.section(QLatin1Char('/'), 1).toStdString());
        if (!m) continue;
        const bool onCpu = cpu_->isChecked() && m->runsOnCpu(), onGpu = gpu_->isChecked() && m->gpu && gpu.usable;
        if (!onCpu && !onGpu) {
            if (!m->runsOnCpu() && !m->gpu)
                noPlainRun << id;
            else if (!m->runsOnCpu() && !gpu.usable)
                noGpu << id;
            else if (!m->runsOnCpu())
                noGpuChosen << id;
            else if (!m->gpu || !gpu.usable)
                noCpuChosen << id;
        }
        chosen.push_back(m);
    }
    QStringList skipped;
    if (!noGpu.isEmpty()) skipped << tr("%1 (GPU only; %2)").arg(noGpu.join(QStringLiteral(", ")), gpuWhy);
    if (!noCpuChosen.isEmpty())
        skipped << tr("%1 (runs here only on the CPU, and the CPU is not ticked)")
                       .arg(noCpuChosen.join(QStringLiteral(", ")));
    if (!noGpuChosen.isEmpty())
        skipped << tr("%1 (GPU only, and the GPU is not ticked)").arg(noGpuChosen.join(QStringLiteral(", ")));
    if (!noPlainRun.isEmpty())
        skipped
            << tr("%1 (runs only to a palette chosen on the Method panel)").arg(noPlainRun.join(QStringLiteral(", ")));
    skipped_->setText(skipped.isEmpty() ? greyedNote_
                                        : tr("Not measured: %1.").arg(skipped.join(QStringLiteral("; "))));
    std::vector<Job> jobs;
    for (int size : sizes)
        for (const MethodInfo* m : chosen) {
            if (cpu_->isChecked() && m->runsOnCpu()) jobs.push_back({m, Device::Cpu, size});
            if (gpu_->isChecked() && m->gpu && gpu.usable) jobs.push_back({m, Device::Gpu, size});
        }
    if (jobs.empty()) {
        refuse(tr("Nothing to run: choose at least one method and a device it runs on."));
        return;
    }
    points_.clear();
    baseline_->clear();
    sweepDate_ = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    sweepRepeats_ = repeats_->value();
    replot();
    stopFlag_ = std::make_shared<std::atomic<bool>>(false);
    auto stop = stopFlag_;
    const int repeats = repeats_->value();
    // Parameters are the methods' defaults; say which ones matter for the numbers.
    struct Context {
        QString kernel, threads;
        int levels = 0;
    };
    std::map<const MethodInfo*, Context> context;
    for (const MethodInfo* m : chosen) {
        Context c;
        c.kernel = paramText(registry_, *m, "kernel");
        c.levels = paramText(registry_, *m, "levels").toInt();
        const QString t = paramText(registry_, *m, "threads");
        c.threads = t.isEmpty()               ? QStringLiteral("1")
                    : t == QLatin1String("0") ? tr("all (%1)").arg(hardwareThreads())
                                              : t;
        context[m] = c;
    }
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
        status_->setText(cancelled ? tr("Cancelled after %1 points.").arg(points_.size())
                                   : tr("Done: %1 points.").arg(points_.size()));
        emit sweepFinished(cancelled);
    });
    watcher_->setFuture(QtConcurrent::run([this, jobs, stop, repeats, context] {
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
            // Automatic repeats: more at small sizes; stop early (after 3) once a measurement has taken 3 s.
            const int want = repeats > 0 ? repeats : autoRepeats(j.size);
            double spent = 0;
            for (int r = 0; r < want && !stop->load(); ++r) {
                if (repeats == 0 && r >= 3 && spent > 3.0) break;
                RunResult res;
                // The stop flag is polled by a tiny progress hook so a long run stops mid-way.
                rc.onProgress = [stop, token](const Progress&) {
                    if (stop->load()) token.requestStop();
                };
                Status s = runImage(Image::gray(current), req, res, rc);
                if (!s) {
                    if (!s.isCancelled()) note = QString::fromStdString(s.message());
                    failed = true;
                    break;
                }
                times.push_back(res.seconds);
                spent += res.seconds;
                if (!res.note.empty()) note = QString::fromStdString(res.note);
            }
            ++done;
            BenchPoint p;
            p.methodId = QString::fromStdString(j.method->id());
            p.device = j.device;
            p.size = j.size;
            p.note = note;
            p.repeats = int(times.size());
            const Context& c = context.at(j.method);
            p.kernel = c.kernel;
            p.levels = c.levels;
            p.threads = j.device == Device::Cpu ? c.threads : QString();
            if (!failed && !times.empty()) {
                std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
                p.seconds = times[times.size() / 2];
            }
            QMetaObject::invokeMethod(
                this,
                [this, p, done, failed] {
                    progress_->setValue(done);
                    if (!failed)
                        addPoint(p);
                    else if (!p.note.isEmpty())
                        status_->setText(tr("%1: %2").arg(p.series(), p.note));
                },
                Qt::QueuedConnection);
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
        const QPen pen(seriesColors()[i % seriesColors().size()], 2,
                       series[i].endsWith(QLatin1String("@gpu")) ? Qt::DashLine : Qt::SolidLine);
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
        const bool any = p->graphCount() > 0;
        p->legend->setVisible(any);
        // Wrap the legend into more columns when its entries would not fit the chart's height.
        const int rowHeight = QFontMetrics(p->legend->font()).height() + 4;
        p->legend->setWrap(std::max(1, (std::max(p->height(), 220) - 30) / rowHeight));
        for (int i = 0; i < p->itemCount(); ++i)
            if (p->item(i)->objectName() == QLatin1String("emptyText")) p->item(i)->setVisible(!any);
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

QStringList BenchmarkPanel::measurementContext() const {
    QStringList out;
    QStringList kernels, levels, threads;
    QMap<QString, QStringList> byThreads;  // thread count -> the series that ran with it
    for (const BenchPoint& p : points_) {
        if (!p.kernel.isEmpty() && !kernels.contains(p.kernel)) kernels << p.kernel;
        if (p.levels > 0 && !levels.contains(QString::number(p.levels))) levels << QString::number(p.levels);
        if (!p.threads.isEmpty() && !threads.contains(p.threads)) threads << p.threads;
        if (!p.threads.isEmpty() && !byThreads[p.threads].contains(p.methodId)) byThreads[p.threads] << p.methodId;
    }
    if (threads.size() > 1) {
        threads.clear();
        for (auto it = byThreads.cbegin(); it != byThreads.cend(); ++it)
            threads << it.key() + QStringLiteral(" (") + it.value().join(QStringLiteral(", ")) + QLatin1Char(')');
    }
    const GpuAvailability& g = registry_.gpuAvailability();
    out << tr("measured: wall time of the method alone (no file input/output), median of the repeats");
    out << tr("image: synthetic square gray ramp with noise (the same picture at every size), 8-bit");
    out << tr("colour mode: gray (one channel)");
    out << tr("kernel: %1").arg(kernels.isEmpty() ? tr("none") : kernels.join(QStringLiteral(", ")));
    out << tr("levels: %1").arg(levels.isEmpty() ? tr("none") : levels.join(QStringLiteral(", ")));
    out << tr("parameters: each method's defaults");
    out << tr("threads: %1").arg(threads.isEmpty() ? tr("none (GPU only)") : threads.join(QStringLiteral("; ")));
    out << tr("repeats: %1")
               .arg(sweepRepeats_ > 0 ? QString::number(sweepRepeats_)
                                      : tr("auto (%1 at 256 x 256 ... %2 from 2048 x 2048; at least 3)")
                                            .arg(autoRepeats(256))
                                            .arg(autoRepeats(2048)));
    out << tr("machine: %1, %2 logical cores, %3")
               .arg(cpuModel())
               .arg(hardwareThreads())
               .arg(QSysInfo::prettyProductName());
    out << tr("GPU: %1").arg(g.usable ? QString::fromStdString(g.deviceName)
                                      : tr("none (%1)").arg(QString::fromStdString(g.reason)));
    out << tr("date: %1").arg(sweepDate_.isEmpty() ? tr("no sweep yet") : sweepDate_);
    return out;
}

QString BenchmarkPanel::csv() const {
    QString out;
    QTextStream s(&out);
    s << "# Halftone Studio benchmark\n";
    for (const QString& line : measurementContext()) s << "# " << line << '\n';
    s << "method,variant,device,width,height,pixels,seconds,mpixels_per_s,repeats,kernel,levels,color,threads,note\n";
    for (const BenchPoint& p : points_) {
        const qint64 px = qint64(p.size) * p.size;
        s << p.methodId.section(QLatin1Char('/'), 0, 0) << ',' << p.methodId.section(QLatin1Char('/'), 1) << ','
          << toString(p.device) << ',' << p.size << ',' << p.size << ',' << px << ','
          << QString::number(p.seconds, 'g', 6) << ','
          << QString::number(p.seconds > 0 ? px / p.seconds / 1e6 : 0.0, 'g', 6) << ',' << p.repeats << ',' << p.kernel
          << ',' << (p.levels > 0 ? QString::number(p.levels) : QString()) << ",gray," << csvField(p.threads) << ','
          << csvField(p.note) << '\n';
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
    // Both charts side by side, and under them what was measured, so the picture stands on its own.
    const int w = 900, h = 520;
    const QStringList context = measurementContext();
    QFont f(font().family(), 10);
    const int lineHeight = QFontMetrics(f).lineSpacing();
    const int captionHeight = 16 + lineHeight * int((context.size() + 1) / 2);
    QImage img(2 * w, h + captionHeight, QImage::Format_RGB32);
    img.fill(Qt::white);
    {
        QPainter p(&img);
        p.drawPixmap(0, 0, timePlot_->toPixmap(w, h));
        p.drawPixmap(w, 0, speedupPlot_->toPixmap(w, h));
        p.setFont(f);
        p.setPen(QColor(40, 40, 40));
        const int half = int((context.size() + 1) / 2);
        for (int i = 0; i < context.size(); ++i) {
            const QRect r((i / half) * w + 12, h + 8 + (i % half) * lineHeight, w - 24, lineHeight);
            p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
                       QFontMetrics(f).elidedText(context[i], Qt::ElideRight, r.width()));
        }
    }
    if (!img.save(path, "PNG")) {
        if (error) *error = tr("%1: cannot write the PNG file").arg(path);
        return false;
    }
    return true;
}

}  // namespace halftone
