#include "widgets/jobrunner.h"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <exception>
#include <new>
#include <type_traits>
#include <variant>

#include "core/budget.h"
#include "core/quality/hvsfilter.h"
#include "core/quality/metrics.h"
#include "core/palette/panel.h"
#include "core/planepool.h"
#include "core/print/printpreview.h"
#include "widgets/imageconvert.h"
#include "widgets/paramvariant.h"

namespace halftone {

namespace {

/// Parameters that change how fast a result is made, never the image.
bool affectsImage(const std::string& key) { return key != "threads" && key != "simd"; }

}  // namespace

QString colorModeName(ColorMode c) {
    switch (c) {
        case ColorMode::Gray:
            return QStringLiteral("gray");
        case ColorMode::RGB:
            return QStringLiteral("RGB");
        case ColorMode::CMYK:
            return QStringLiteral("CMYK");
    }
    return {};
}

QString paletteLabel(const Palette& palette) {
    QString name = palette.name.empty() ? QStringLiteral("palette") : QString::fromStdString(palette.name);
    // "auto:8" names the spec; the label says what it is.
    if (name.startsWith(QLatin1String("auto:"))) name = QStringLiteral("auto from the image");
    return QStringLiteral("%1, %2 colours").arg(name).arg(palette.size());
}

namespace {

/// The palette's colours as "#RRGGBB" words (the first `max`, then how many more).
QString paletteColours(const Palette& palette, int max) {
    QStringList words;
    for (int i = 0; i < palette.size() && i < max; ++i) {
        const Rgb8& c = palette.colors[size_t(i)];
        words << QStringLiteral("#%1%2%3")
                     .arg(c[0], 2, 16, QLatin1Char('0'))
                     .arg(c[1], 2, 16, QLatin1Char('0'))
                     .arg(c[2], 2, 16, QLatin1Char('0'))
                     .toUpper();
    }
    if (palette.size() > max) words << QStringLiteral("... (%1 more)").arg(palette.size() - max);
    return words.join(QLatin1Char(' '));
}

/// The compact form of one non-default parameter: "jarvis", "4 levels", "linear", "no swaps", "seed 7".
QString shortParam(const ParamSpec& spec, const ParamValue& v) {
    const QString key = QString::fromStdString(spec.key);
    if (spec.kind == ParamSpec::Kind::Bool) {
        const bool on = std::holds_alternative<bool>(v)
                            ? std::get<bool>(v)
                            : std::holds_alternative<int64_t>(v) && std::get<int64_t>(v) != 0;
        return on ? key : QStringLiteral("no ") + key;
    }
    const QString value = displayText(spec, v);
    if (spec.key == "kernel") return value;
    if (spec.key == "levels") return QStringLiteral("%1 levels").arg(value);
    if (spec.kind == ParamSpec::Kind::Choice) return QStringLiteral("%1 %2").arg(key, value);
    return QStringLiteral("%1 %2").arg(key, value);
}

bool sameValue(const ParamSpec& spec, const ParamValue& a, const ParamValue& b) {
    return displayText(spec, a) == displayText(spec, b);
}

}  // namespace

ResultDescription describeResult(const MethodInfo& method, const ParamValues& params, ColorMode color,
                                 std::optional<Device> device, const Palette* palette) {
    ParamValues resolved = params;
    (void)Registry::instance().resolveParams(method, resolved);  // fills defaults; an invalid value is shown as given
    QStringList differs;
    QStringList lines;
    const QString id = QString::fromStdString(method.id());
    lines << QStringLiteral("Method: %1").arg(id);
    if (!method.description.empty()) lines << QString::fromStdString(method.description);
    if (palette)
        lines << QStringLiteral("Palette: %1: %2").arg(paletteLabel(*palette), paletteColours(*palette, 32));
    else
        lines << QStringLiteral("Colour mode: %1").arg(colorModeName(color));
    lines << QStringLiteral("Device: %1").arg(device ? QString::fromLatin1(toString(*device)) : QStringLiteral("auto"));
    for (const ParamSpec& spec : method.params) {
        const auto it = resolved.all().find(spec.key);
        const ParamValue value = it != resolved.all().end() ? it->second : spec.defaultValue();
        const bool isDefault = sameValue(spec, value, spec.defaultValue());
        lines << QStringLiteral("%1: %2%3")
                     .arg(QString::fromStdString(spec.label), displayText(spec, value),
                          isDefault ? QStringLiteral(" (default)") : QString());
        if (!isDefault && affectsImage(spec.key)) differs << shortParam(spec, value);
    }
    QString head = id;
    if (!differs.isEmpty()) head += QLatin1Char(' ') + differs.takeFirst();
    differs.prepend(palette ? paletteLabel(*palette) : colorModeName(color));
    ResultDescription d;
    d.shortText = head + QStringLiteral(", ") + differs.join(QStringLiteral(", "));
    if (device) d.shortText += QStringLiteral(" [%1]").arg(QString::fromLatin1(toString(*device)));
    d.longText = lines.join(QLatin1Char('\n'));
    return d;
}

QString JobResult::label() const {
    QString s = QStringLiteral("%1\n%2 ms")
                    .arg(description.shortText.isEmpty() ? methodId : description.shortText)
                    .arg(seconds * 1000.0, 0, 'f', 1);
    if (!std::isnan(psnrDb)) {
        s += QStringLiteral(", PSNR (HVS) %1 dB").arg(psnrDb, 0, 'f', 2);
        if (!psnrRegion.isEmpty()) s += QStringLiteral(" (%1)").arg(psnrRegion);
    }
    if (!note.isEmpty()) s += QStringLiteral("\n") + note;
    return s;
}

namespace {

/// Images wider or taller than this are measured on a central crop (as the quality panel does).
constexpr int kPsnrCrop = 2048;

/// True when the method diffused in linear light, so its results are seen and measured in linear light.
bool usesLinearLight(const ParamValues& params) { return params.getBool("linear", false); }

/// Filters each channel of `shown` (gray or RGB, as it is displayed) for the perceived view, in the working space the
/// method used: a colour result stays in colour.
Status perceiveImage(const Image& shown, bool linear, const RunControl& control, QImage& view,
                     QVector<QImage>& levels) {
    auto filtered = std::make_shared<Image>();
    filtered->space = shown.space;
    const int n = shown.channelCount();
    HvsFilterParams hp;
    hp.linear = linear;
    for (int c = 0; c < n; ++c) {
        Plane8 f;
        if (Status s = hvsFilter(shown.channels[size_t(c)], f, hp, control.scaled(double(c) / n, double(c + 1) / n));
            !s)
            return s;
        filtered->channels.push_back(std::move(f));
    }
    view = toDisplayImage(filtered);
    levels = reductions(view);
    return Status::ok();
}

/// The perceived views of a result: the picture on screen filtered per channel (a CMYK result as its RGB view, since
/// the eye averages the light that reaches it, not the ink values), and for CMYK with `print` also its print preview
/// filtered; for a result with a simulated panel also that panel filtered.
Status perceive(const Image& halftone, bool linear, bool print, const RunControl& control, JobResult& out) {
    if (out.target && !out.panel.isNull()) {
        Image panel;
        if (Status s = simulatePanel(*out.target, halftone, panel); !s) return s;
        if (Status s = perceiveImage(panel, linear, {}, out.perceivedPanel, out.perceivedPanelLevels); !s) return s;
    }
    if (halftone.space != ColorSpace::CMYK)
        return perceiveImage(halftone, linear, control, out.perceived, out.perceivedLevels);
    if (Status s = perceiveImage(convertColor(halftone, ColorMode::RGB), linear, control.scaled(0.0, print ? 0.5 : 1.0),
                                 out.perceived, out.perceivedLevels);
        !s)
        return s;
    if (!print) return Status::ok();
    return perceiveImage(simulatePrint(halftone), linear, control.scaled(0.5, 1.0), out.perceivedPrint,
                         out.perceivedPrintLevels);
}

/// The print preview of a CMYK result (core/print/printpreview.h) for display.
void makePrintPreview(const Image& halftone, JobResult& out) {
    out.printPreview = toDisplayImageCopy(simulatePrint(halftone));
    out.printPreviewLevels = reductions(out.printPreview);
}

}  // namespace

void measurePsnr(const Image& result, const Image& input, bool linear, double& psnrDb, QString& region, double sigma,
                 int radius) {
    if (result.channelCount() == 0 || result.width() != input.width() || result.height() != input.height()) {
        psnrDb = qQNaN();
        return;
    }
    // Cropped first, then converted: a large image is not copied whole for a measure of its centre.
    const int cw = std::min(result.width(), kPsnrCrop), ch = std::min(result.height(), kPsnrCrop);
    const bool whole = cw == result.width() && ch == result.height();
    region = whole ? QString() : QStringLiteral("central %1 x %2 crop").arg(cw).arg(ch);
    auto cropped = [&](const Image& im) {
        if (whole) return im;
        Image c;
        c.space = im.space;
        for (const Plane8& p : im.channels) c.channels.push_back(centralCrop(p, cw, ch));
        return c;
    };
    // A CMYK halftone is measured as it is shown, in RGB: its near-empty ink planes would flatter it.
    const ColorMode mode = result.space == ColorSpace::CMYK  ? ColorMode::RGB
                           : result.space == ColorSpace::RGB ? ColorMode::RGB
                                                             : ColorMode::Gray;
    const Image halftone =
        result.space == ColorSpace::CMYK ? convertColor(cropped(result), ColorMode::RGB) : cropped(result);
    const Image original = convertColor(cropped(input), mode);
    const int n = std::min(halftone.channelCount(), original.channelCount());
    if (n == 0) {
        psnrDb = qQNaN();
        return;
    }
    double sum = 0;
    for (int c = 0; c < n; ++c)
        sum += filteredPsnr(original.channels[size_t(c)], halftone.channels[size_t(c)], sigma, radius, linear);
    psnrDb = sum / n;
}

MeasuredPair measuredPair(const JobResult& result, std::shared_ptr<const Image> original) {
    MeasuredPair pair;
    pair.reference = result.prepared ? result.prepared->image : std::move(original);
    const int pixelSize = result.prepared ? result.prepared->settings.pixelSize : 1;
    pair.halftone = pixelSize > 1 && result.halftone
                        ? std::make_shared<const Image>(samplePixels(*result.halftone, pixelSize))
                        : result.halftone;
    return pair;
}

Status runJob(const JobRequest& request, const RunControl& control, JobResult& out) {
    if (!request.image || request.image->channels.empty()) return Status::error("no image loaded");
    if (!request.method) return Status::error("no method chosen");
    // Adjust: the prepared image comes from the cache or is made first (the first part of the progress).
    const bool preparing = !request.prepare.isIdentity();
    PreparedPtr prepared = preparing ? request.prepared : nullptr;
    double from = 0.0;
    if (preparing && !prepared) {
        if (Status s =
                makePrepared(*request.image, request.imageId, request.prepare, control.scaled(0.0, 0.3), prepared);
            !s)
            return s;
        from = 0.3;
    }
    out.prepared = prepared;
    const Image& input = prepared ? *prepared->image : *request.image;
    const int pixelSize = prepared ? request.prepare.pixelSize : 1;
    RunRequest rr = request;
    rr.maxMemory = defaultMaxMemory();  // refuse a run that cannot fit before it allocates
    if (Status s = Registry::instance().resolveParams(*request.method, rr.params); !s) return s;
    // A run to a palette diffuses in the palette's space (runImage): labels and measures say the same.
    if ((rr.palette || request.method->fixedPalette) && request.method->param("linear"))
        rr.params.set("linear", rr.paletteSpace == PaletteSpace::Linear);
    RunControl rc = control.scaled(from, request.perceived ? 0.8 : 1.0);
    rc.threads = request.threads;
    RunResult result;
    if (Status s = runImage(input, rr, result, rc); !s) return s;
    const bool linear = usesLinearLight(rr.params);
    // Measured at the size the method ran at; shown and saved enlarged by the pixel size, as the CLI writes it.
    measurePsnr(result.image, input, linear, out.psnrDb, out.psnrRegion);
    if (pixelSize > 1) {
        Image enlarged = enlargePixels(result.image, pixelSize);
        PlanePool::instance().release(std::move(result.image));
        result.image = std::move(enlarged);
    }
    // The result's planes go back to the pool once nothing shows or caches it (the last owner of the pointer, a
    // display image that borrows the plane included), for the next run of the same size.
    const std::shared_ptr<const Image> halftone = sharedPooledImage(std::move(result.image));
    out.methodId = QString::fromStdString(request.method->id());
    out.device = result.device;
    out.note = QString::fromStdString(result.note);
    out.seconds = result.seconds;
    out.color = request.color;
    out.palette = request.palette;
    out.params = rr.params;
    out.description = describeResult(*request.method, rr.params, request.color, result.device,
                                     request.palette ? &*request.palette : nullptr);
    if (prepared) {
        // Results that differ only in Adjust are told apart by their labels.
        const QString adjust =
            QStringLiteral("Adjust: ") + describePrepare(prepared->settings, input.width(), input.height());
        out.description.shortText += QStringLiteral(", ") + adjust;
        out.description.longText += QLatin1Char('\n') + adjust;
    }
    out.display = toDisplayImage(halftone);
    out.displayLevels = reductions(out.display);
    const bool print = request.printPreview && halftone->space == ColorSpace::CMYK;
    if (print) makePrintPreview(*halftone, out);
    out.target = request.target;
    // A result the device cannot show (gray levels for a 1-bit device) has no simulated panel; its measure says why.
    if (Image panel; out.target && simulatePanel(*out.target, *halftone, panel)) {
        out.panel = toDisplayImageCopy(panel);
        out.panelLevels = reductions(out.panel);
    }
    out.halftone = halftone;
    if (request.perceived) {
        if (Status s = perceive(*halftone, linear, print, control.scaled(0.8, 0.95, "perceived"), out); !s) return s;
    }
    if (control.cancelled()) return Status::cancelled();
    control.report(1.0);
    return Status::ok();
}

namespace {
/// Shared between the worker and the UI thread; holds no QObject so it may die on either thread.
struct Payload {
    JobResult result;
    Status status;
    QMutex mutex;
    Progress latest;
    bool dirty = false;
};
}  // namespace

struct JobRunner::Running {
    quint64 generation = 0;
    QString key;
    StopToken stop;
    std::shared_ptr<Payload> payload = std::make_shared<Payload>();
};

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
    qRegisterMetaType<halftone::JobResultPtr>();
    // Two workers: a superseded job may still be winding down while the newer one starts.
    pool_.setMaxThreadCount(2);
    // Output planes of dropped results are kept for the next run: enough for a 16K x 16K CMYK result.
    PlanePool& planes = PlanePool::instance();
    planes.setLimit(std::max<uint64_t>(planes.limit(), kResultPlanePoolBytes));
    progressTimer_.setInterval(40);
    connect(&progressTimer_, &QTimer::timeout, this, &JobRunner::pollProgress);
}

JobRunner::~JobRunner() {
    cancel();
    pool_.waitForDone();
}

void JobRunner::waitForDone() { pool_.waitForDone(); }

QString JobRunner::cacheKey(const JobRequest& r) {
    ParamValues p = r.params;
    if (r.method) (void)Registry::instance().resolveParams(*r.method, p);
    // A palette run is told apart by its colours (in order: the order is the index of indexed output).
    QString colour = QString::fromLatin1(toString(r.color));
    if (r.palette) {
        QByteArray bytes;
        for (const Rgb8& c : r.palette->colors) bytes.append(reinterpret_cast<const char*>(c.data()), 3);
        colour = QStringLiteral("palette:") + QString::fromLatin1(bytes.toHex());
        if (!r.paletteCodes.empty())  // a target's driver codes: the same colours written as other indices
            colour += QStringLiteral(" codes:") +
                      QString::fromLatin1(QByteArray(reinterpret_cast<const char*>(r.paletteCodes.data()),
                                                     qsizetype(r.paletteCodes.size()))
                                              .toHex());
    }
    if (r.palette || (r.method && r.method->fixedPalette))
        colour += QLatin1Char(' ') + QString::fromLatin1(toString(r.paletteSpace)) + QLatin1Char(' ') +
                  QString::fromLatin1(toString(r.paletteMatch));
    return QStringLiteral("%1|%2|%3|%4|%5")
               .arg(r.imageId)
               .arg(r.method ? QString::fromStdString(r.method->id()) : QString())
               .arg(r.device ? QString::fromLatin1(toString(*r.device)) : QStringLiteral("auto"))
               .arg(colour)
               .arg(QString::fromStdString(p.canonical())) +
           (r.prepare.isIdentity() ? QString() : QStringLiteral("|prepare ") + prepareSettingsKey(r.prepare)) +
           (r.separation.gcr == SeparationParams{}.gcr && r.separation.inkLimit == SeparationParams{}.inkLimit
                ? QString()
                : QStringLiteral("|gcr %1 ink %2").arg(r.separation.gcr).arg(r.separation.inkLimit));
}

JobResultPtr JobRunner::cached(const QString& key) const { return cache_.value(key); }

void JobRunner::clearCache() {
    cache_.clear();
    cacheOrder_.clear();
    cacheBytes_ = 0;
    preparedCache_.clear();
    preparedOrder_.clear();
}

void JobRunner::insertPrepared(const PreparedPtr& p) {
    // Enough to go back and forth between a few Adjust settings, within a memory budget; the newest always stays.
    constexpr int kKeepPrepared = 4;
    constexpr qint64 kPreparedBytes = qint64(1) << 30;
    auto bytes = [](const PreparedPtr& x) {
        qint64 b = x->display.sizeInBytes();
        for (const Plane8& plane : x->image->channels) b += qint64(plane.size());
        for (const QImage& l : x->levels) b += l.sizeInBytes();
        return b;
    };
    preparedOrder_.removeAll(p->key);
    preparedOrder_.push_back(p->key);
    preparedCache_.insert(p->key, p);
    qint64 total = 0;
    for (const PreparedPtr& x : preparedCache_) total += bytes(x);
    while (preparedOrder_.size() > 1 && (preparedOrder_.size() > kKeepPrepared || total > kPreparedBytes)) {
        const QString k = preparedOrder_.takeFirst();
        total -= bytes(preparedCache_.value(k));
        preparedCache_.remove(k);
    }
}

void JobRunner::insertCache(const JobResultPtr& r) {
    auto bytes = [](const JobResultPtr& x) {
        qint64 b = x->perceived.sizeInBytes() + x->printPreview.sizeInBytes() + x->perceivedPrint.sizeInBytes();
        if (x->halftone)
            for (const Plane8& p : x->halftone->channels) b += qint64(p.size());
        if (x->halftone && x->halftone->space != ColorSpace::Gray) b += x->display.sizeInBytes();
        for (const QImage& l : x->displayLevels) b += l.sizeInBytes();
        for (const QImage& l : x->perceivedLevels) b += l.sizeInBytes();
        for (const QImage& l : x->printPreviewLevels) b += l.sizeInBytes();
        for (const QImage& l : x->perceivedPrintLevels) b += l.sizeInBytes();
        b += x->panel.sizeInBytes() + x->perceivedPanel.sizeInBytes();
        for (const QImage& l : x->panelLevels + x->perceivedPanelLevels) b += l.sizeInBytes();
        if (x->prepared) {  // kept alive by the result (counted for each result that shares it)
            b += x->prepared->display.sizeInBytes();
            for (const Plane8& p : x->prepared->image->channels) b += qint64(p.size());
        }
        return b;
    };
    if (cache_.contains(r->key)) {
        cacheBytes_ -= bytes(cache_.value(r->key));
        cacheOrder_.removeAll(r->key);
    }
    cache_.insert(r->key, r);
    cacheOrder_.push_back(r->key);
    cacheBytes_ += bytes(r);
    while (cacheBytes_ > cacheLimit_ && cacheOrder_.size() > 1) {
        const QString k = cacheOrder_.takeFirst();
        cacheBytes_ -= bytes(cache_.value(k));
        cache_.remove(k);
    }
}

quint64 JobRunner::submit(const JobRequest& request) {
    cancel();
    running_.reset();  // superseded: its result is cached if it completes, but never shown
    progressTimer_.stop();
    const quint64 gen = ++generation_;
    const QString key = cacheKey(request);
    if (JobResultPtr hit = cache_.value(key); hit && (!request.perceived || !hit->perceived.isNull())) {
        cacheOrder_.removeAll(key);
        cacheOrder_.push_back(key);
        emit started(gen);
        // Queued so that callers see the same asynchronous order as for a real job, but with no work.
        QMetaObject::invokeMethod(
            this,
            [this, gen, hit] {
                if (gen == generation_) emit finished(gen, hit, true);
            },
            Qt::QueuedConnection);
        return gen;
    }

    JobRequest job = request;
    if (!job.prepare.isIdentity() && !job.prepared) {
        const QString pk = preparedKey(job.imageId, job.prepare);
        job.prepared = preparedCache_.value(pk);
        if (job.prepared) {
            preparedOrder_.removeAll(pk);
            preparedOrder_.push_back(pk);
        } else {
            ++*prepares_;
        }
    }
    auto run = std::make_shared<Running>();
    run->generation = gen;
    run->key = key;
    running_ = run;
    RunControl control;
    control.stop = run->stop;
    control.threads = request.threads;
    std::shared_ptr<Payload> payload = run->payload;
    control.onProgress = [box = payload.get()](const Progress& p) {  // the payload outlives the job (captured below)
        QMutexLocker lock(&box->mutex);
        box->latest = p;
        box->dirty = true;
    };
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, run, watcher] {
        onWatcherFinished(run);
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(&pool_, [payload, job, control] {
        // An exception must not reach QtConcurrent (it would end the studio with QUnhandledException).
        try {
            payload->status = runJob(job, control, payload->result);
        } catch (const std::bad_alloc&) {
            payload->status = Status::error(
                "out of memory: this method needs more memory for this image than the machine could give");
        } catch (const std::exception& e) {
            payload->status = Status::error(std::string("the method failed: ") + e.what());
        }
    }));
    progressTimer_.start();
    emit started(gen);
    return gen;
}

void JobRunner::cancel() {
    if (running_) running_->stop.requestStop();  // the job reports `cancelled` when it has stopped
}

void JobRunner::pollProgress() {
    if (!running_) return;
    Progress p;
    {
        Payload& box = *running_->payload;
        QMutexLocker lock(&box.mutex);
        if (!box.dirty) return;
        p = box.latest;
        box.dirty = false;
    }
    QVector<int> frontier(p.frontier.begin(), p.frontier.end());
    emit progress(running_->generation, p.fraction, QString::fromStdString(p.stage), p.rowsDone, frontier);
}

void JobRunner::onWatcherFinished(std::shared_ptr<Running> run) {
    const bool current = running_ == run && run->generation == generation_;
    if (current) {
        running_.reset();
        progressTimer_.stop();
    }
    Payload& box = *run->payload;
    // A prepared image is kept even when the method after it failed or was cancelled: the next run starts from it.
    if (box.result.prepared) insertPrepared(box.result.prepared);
    if (box.status.isOk()) {
        box.result.key = run->key;
        auto result = std::make_shared<const JobResult>(std::move(box.result));
        insertCache(result);  // a superseded but finished result is still valid for its key
        // The cache and the screen hold this result's planes: the next GPU run of this size finds new ones ready,
        // first touched in the background while the result is looked at (PlanePool::prepare).
        // (Planes of the size the method ran at, before any enlarging; palette runs make their planes otherwise.)
        const Image* ran = result->prepared ? result->prepared->image.get() : result->halftone.get();
        if (result->device == Device::Gpu && ran && !ran->channels.empty() && result->halftone &&
            result->halftone->palette.empty()) {
            const Plane8& p = ran->channels.front();
            const int w = p.width, h = p.height, n = result->halftone->channelCount();
            QThreadPool::globalInstance()->start([w, h, n] { PlanePool::instance().prepare(w, h, n); });
        }
        if (current) emit finished(run->generation, result, false);
    } else if (current) {
        emit failed(run->generation, QString::fromStdString(box.status.message()), box.status.isCancelled());
    }
    // A superseded job that failed or stopped has nothing to report.
}

void JobRunner::computePerceived(const JobResultPtr& result, std::shared_ptr<const Image> original) {
    if (!result || !result->halftone) return;
    const bool printMissing = !result->printPreview.isNull() && result->perceivedPrint.isNull();
    if (!result->perceived.isNull() && !printMissing) return;
    auto* watcher = new QFutureWatcher<JobResultPtr>(this);
    connect(watcher, &QFutureWatcher<JobResultPtr>::finished, this, [this, watcher] {
        JobResultPtr updated = watcher->result();
        watcher->deleteLater();
        if (updated) viewsMade(updated);
    });
    watcher->setFuture(QtConcurrent::run(&pool_, [result, original]() -> JobResultPtr {
        auto copy = std::make_shared<JobResult>(*result);
        Status s;
        try {
            s = perceive(*result->halftone, usesLinearLight(result->params), !result->printPreview.isNull(), {}, *copy);
            const MeasuredPair pair = measuredPair(*result, original);
            if (s && std::isnan(copy->psnrDb) && pair.reference)
                measurePsnr(*pair.halftone, *pair.reference, usesLinearLight(result->params), copy->psnrDb,
                            copy->psnrRegion);
        } catch (const std::exception&) {
            return {};  // out of memory for the perceived view: the result stays without it
        }
        if (!s) return {};
        return copy;
    }));
}

void JobRunner::computePrintPreview(const JobResultPtr& result) {
    if (!result || !result->halftone || result->halftone->space != ColorSpace::CMYK || !result->printPreview.isNull())
        return;
    auto* watcher = new QFutureWatcher<JobResultPtr>(this);
    connect(watcher, &QFutureWatcher<JobResultPtr>::finished, this, [this, watcher] {
        JobResultPtr updated = watcher->result();
        watcher->deleteLater();
        if (updated) viewsMade(updated);
    });
    watcher->setFuture(QtConcurrent::run(&pool_, [result]() -> JobResultPtr {
        auto copy = std::make_shared<JobResult>(*result);
        try {
            makePrintPreview(*result->halftone, *copy);
            if (!result->perceived.isNull() &&
                !perceiveImage(simulatePrint(*result->halftone), usesLinearLight(result->params), {},
                               copy->perceivedPrint, copy->perceivedPrintLevels))
                return {};
        } catch (const std::exception&) {
            return {};  // out of memory for the preview: the result stays without it
        }
        return copy;
    }));
}

void JobRunner::viewsMade(JobResultPtr updated) {
    // Views made one after another for the same result (perceived, print preview) are kept together.
    if (const JobResultPtr have = cache_.value(updated->key); have && have != updated) {
        auto merged = std::make_shared<JobResult>(*updated);
        if (merged->perceived.isNull()) {
            merged->perceived = have->perceived;
            merged->perceivedLevels = have->perceivedLevels;
        }
        if (merged->perceivedPanel.isNull()) {
            merged->perceivedPanel = have->perceivedPanel;
            merged->perceivedPanelLevels = have->perceivedPanelLevels;
        }
        if (merged->printPreview.isNull()) {
            merged->printPreview = have->printPreview;
            merged->printPreviewLevels = have->printPreviewLevels;
        }
        if (merged->perceivedPrint.isNull()) {
            merged->perceivedPrint = have->perceivedPrint;
            merged->perceivedPrintLevels = have->perceivedPrintLevels;
        }
        if (std::isnan(merged->psnrDb)) {
            merged->psnrDb = have->psnrDb;
            merged->psnrRegion = have->psnrRegion;
        }
        updated = merged;
    }
    insertCache(updated);
    emit perceivedReady(updated);
    // Made in either order, a perceived view and a print preview still need the perceived print preview.
    if (!updated->perceived.isNull() && !updated->printPreview.isNull() && updated->perceivedPrint.isNull())
        computePerceived(updated, nullptr);
}

}  // namespace halftone
