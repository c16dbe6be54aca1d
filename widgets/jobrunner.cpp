#include "widgets/jobrunner.h"

#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <exception>
#include <new>

#include "core/hvsfilter.h"
#include "core/metrics.h"
#include "widgets/imageconvert.h"

namespace halftone {

QString JobResult::label() const {
    QString s = QStringLiteral("%1  [%2]  %3 ms").arg(methodId, QString::fromLatin1(toString(device))).arg(seconds * 1000.0, 0, 'f', 1);
    if (!std::isnan(psnrDb)) s += QStringLiteral("\nPSNR (HVS) %1 dB").arg(psnrDb, 0, 'f', 2);
    if (!note.isEmpty()) s += QStringLiteral("\n") + note;
    return s;
}

namespace {

/// Filters each channel of `halftone` for display and measures the SPEC's filtered PSNR against `original`.
Status perceive(const Image& halftone, const Image& original, const RunControl& control, QImage& view, QVector<QImage>& levels,
                double& psnrDb) {
    auto filtered = std::make_shared<Image>();
    filtered->space = halftone.space;
    double sum = 0;
    const int n = halftone.channelCount();
    for (int c = 0; c < n; ++c) {
        Plane8 f;
        if (Status s = hvsFilter(halftone.channels[size_t(c)], f, {}, control.scaled(double(c) / n, double(c + 1) / n)); !s)
            return s;
        if (c < original.channelCount()) sum += filteredPsnr(original.channels[size_t(c)], halftone.channels[size_t(c)]);
        filtered->channels.push_back(std::move(f));
    }
    psnrDb = sum / std::max(1, n);
    view = toDisplayImage(filtered);
    levels = reductions(view);
    return Status::ok();
}

}  // namespace

Status runJob(const JobRequest& request, const RunControl& control, JobResult& out) {
    if (!request.image || request.image->channels.empty()) return Status::error("no image loaded");
    if (!request.method) return Status::error("no method chosen");
    RunRequest rr;
    rr.method = request.method;
    rr.params = request.params;
    rr.device = request.device;
    rr.color = request.color;
    if (Status s = Registry::instance().resolveParams(*request.method, rr.params); !s) return s;
    RunControl rc = control.scaled(0.0, request.perceived ? 0.8 : 1.0);
    rc.threads = request.threads;
    RunResult result;
    if (Status s = runImage(*request.image, rr, result, rc); !s) return s;
    auto halftone = std::make_shared<Image>(std::move(result.image));
    out.methodId = QString::fromStdString(request.method->id());
    out.device = result.device;
    out.note = QString::fromStdString(result.note);
    out.seconds = result.seconds;
    out.color = request.color;
    out.params = rr.params;
    out.display = toDisplayImage(halftone);
    out.displayLevels = reductions(out.display);
    out.halftone = halftone;
    if (request.perceived) {
        const Image original = convertColor(*request.image, request.color);
        if (Status s = perceive(*halftone, original, control.scaled(0.8, 1.0, "perceived"), out.perceived, out.perceivedLevels, out.psnrDb); !s)
            return s;
    }
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
    return QStringLiteral("%1|%2|%3|%4|%5")
        .arg(r.imageId)
        .arg(r.method ? QString::fromStdString(r.method->id()) : QString())
        .arg(r.device ? QString::fromLatin1(toString(*r.device)) : QStringLiteral("auto"))
        .arg(QString::fromLatin1(toString(r.color)))
        .arg(QString::fromStdString(p.canonical()));
}

JobResultPtr JobRunner::cached(const QString& key) const { return cache_.value(key); }

void JobRunner::clearCache() {
    cache_.clear();
    cacheOrder_.clear();
    cacheBytes_ = 0;
}

void JobRunner::insertCache(const JobResultPtr& r) {
    auto bytes = [](const JobResultPtr& x) {
        qint64 b = x->perceived.sizeInBytes();
        if (x->halftone)
            for (const Plane8& p : x->halftone->channels) b += qint64(p.size());
        if (x->halftone && x->halftone->space != ColorSpace::Gray) b += x->display.sizeInBytes();
        for (const QImage& l : x->displayLevels) b += l.sizeInBytes();
        for (const QImage& l : x->perceivedLevels) b += l.sizeInBytes();
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
        QMetaObject::invokeMethod(this, [this, gen, hit] {
            if (gen == generation_) emit finished(gen, hit, true);
        }, Qt::QueuedConnection);
        return gen;
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
    watcher->setFuture(QtConcurrent::run(&pool_, [payload, request, control] {
        // An exception must not reach QtConcurrent (it would end the studio with QUnhandledException).
        try {
            payload->status = runJob(request, control, payload->result);
        } catch (const std::bad_alloc&) {
            payload->status = Status::error("out of memory: this method needs more memory for this image than the machine could give");
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
    if (box.status.isOk()) {
        box.result.key = run->key;
        auto result = std::make_shared<const JobResult>(std::move(box.result));
        insertCache(result);  // a superseded but finished result is still valid for its key
        if (current) emit finished(run->generation, result, false);
    } else if (current) {
        emit failed(run->generation, QString::fromStdString(box.status.message()), box.status.isCancelled());
    }
    // A superseded job that failed or stopped has nothing to report.
}

void JobRunner::computePerceived(const JobResultPtr& result, std::shared_ptr<const Image> original) {
    if (!result || !result->halftone || !result->perceived.isNull()) return;
    auto* watcher = new QFutureWatcher<JobResultPtr>(this);
    connect(watcher, &QFutureWatcher<JobResultPtr>::finished, this, [this, watcher] {
        JobResultPtr updated = watcher->result();
        watcher->deleteLater();
        if (!updated) return;
        insertCache(updated);
        emit perceivedReady(updated);
    });
    watcher->setFuture(QtConcurrent::run(&pool_, [result, original]() -> JobResultPtr {
        auto copy = std::make_shared<JobResult>(*result);
        Status s;
        try {
            const Image orig = convertColor(*original, result->color);
            s = perceive(*result->halftone, orig, {}, copy->perceived, copy->perceivedLevels, copy->psnrDb);
        } catch (const std::exception&) {
            return {};
        }
        if (!s) return {};
        return copy;
    }));
}

}  // namespace halftone
