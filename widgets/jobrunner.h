#pragma once
// \brief Runs halftoning jobs off the UI thread: results by signal, newer requests supersede older ones,
// results cached per image + method + device + colour + parameters.
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QHash>
#include <QImage>
#include <QMutex>
#include <QObject>
#include <QStringList>
#include <QThreadPool>
#include <QTimer>
#include <QVector>
#include <QtGlobal>
#include <atomic>
#include <memory>
#include <optional>

#include "core/job/registry.h"
#include "core/print/separation.h"
#include "widgets/prepared.h"

namespace halftone {

/// \brief Bytes of output planes that a JobRunner keeps for the next runs (PlanePool): one 16K x 16K CMYK result.
inline constexpr uint64_t kResultPlanePoolBytes = uint64_t(1) << 30;

/// \brief One run of the studio: a resolved job (the RunRequest that resolveJob makes of the studio's JobSettings:
/// method, parameters, device, colour mode or palette, separation) on one image, with what only the studio adds: the
/// image's identity for the cache, the Adjust steps and the views to make.
struct JobRequest : RunRequest {
    std::shared_ptr<const Image> image;
    quint64 imageId = 0;    ///< identifies the image for the cache; a new id per loaded image
    int threads = 0;        ///< worker threads (RunControl::threads); 0 = all
    bool perceived = true;  ///< also compute the HVS-filtered view (the PSNR is always measured)
    bool printPreview =
        true;                 ///< CMYK results: also make the print preview (and, with `perceived`, its perceived view)
    PrepareSettings prepare;  ///< the Adjust steps applied to `image` before the method (the defaults: none)
    PreparedPtr prepared;     ///< `image` already prepared with `prepare` (JobRunner fills it from its cache)
};

/// \brief What tells one result apart from another: a one-line short form (method, colour mode, every
/// parameter that differs from the method's default, device) and a long form listing every parameter.
struct ResultDescription {
    QString
        shortText;  ///< e.g. "ed/plain jarvis, RGB, linear [cpu]", then ", Adjust: gamma 1.2" when Adjust did something
    QString longText;  ///< several lines: method, colour mode, device, "Label: value" per parameter, then Adjust
};

/// \brief "gray", "RGB" or "CMYK", as labels write a colour mode.
QString colorModeName(ColorMode mode);

/// \brief How labels name a palette: "pico8, 16 colours", "auto from the image, 8 colours".
QString paletteLabel(const Palette& palette);

/// \brief Describes a result of `method` run with `params` (resolved or not) in colour mode `color` on `device`
/// (unset = not yet known), or to `palette` when one is given (it then stands where the colour mode would). Parameters
/// that do not change the image (threads, SIMD path) appear only in the long form.
ResultDescription describeResult(const MethodInfo& method, const ParamValues& params, ColorMode color,
                                 std::optional<Device> device, const Palette* palette = nullptr);

/// \brief A finished halftone with what ran, how long it took, its display images and quality numbers.
struct JobResult {
    QString key;
    QString methodId;
    Device device = Device::Cpu;
    QString note;
    double seconds = 0;
    ColorMode color = ColorMode::Gray;
    std::optional<Palette> palette;  ///< the palette it was halftoned to (the result is then RGB), else unset
    ParamValues params;              ///< resolved values
    std::shared_ptr<const Image> halftone;
    QImage display;
    QImage perceived;                                ///< HVS Gaussian view (null when not computed)
    QVector<QImage> displayLevels, perceivedLevels;  ///< reductions() for zoomed-out views
    /// CMYK results only (null otherwise): the print preview (simulatePrint: process inks on white paper) and its
    /// perceived view.
    QImage printPreview, perceivedPrint;
    QVector<QImage> printPreviewLevels, perceivedPrintLevels;
    /// The device the job was for (RunRequest::target), else unset; with it the simulated panel: the result in the
    /// colours the device shows (core/palette/panel.h) and its perceived view (null until made).
    std::optional<Target> target;
    QImage panel, perceivedPanel;
    QVector<QImage> panelLevels, perceivedPanelLevels;
    double psnrDb = qQNaN();        ///< measurePsnr: filtered PSNR against the input, mean over channels
    QString psnrRegion;             ///< empty = whole image, else e.g. "central 1024 x 1024 crop"
    ResultDescription description;  ///< what tells this result apart (describeResult)
    PreparedPtr prepared;           ///< what the method ran on when Adjust settings were set (null: the image itself)
    /// \brief Label text for a compare pane: the short description, time, quality.
    QString label() const;
};
using JobResultPtr = std::shared_ptr<const JobResult>;

/// \brief Owns the worker pool, the generation counter, the cache and the progress of the current job.
class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;

    /// \brief Cache key: image id + method + device choice + colour (or the palette's colours) + canonical resolved
    /// parameters (+ the prepare settings when they do something).
    static QString cacheKey(const JobRequest& request);
    /// \brief Starts a job (cancelling the current one) or answers from the cache; returns its generation.
    quint64 submit(const JobRequest& request);
    /// \brief Asks the current job to stop (checked per row/step by the algorithms).
    void cancel();
    bool busy() const { return running_ != nullptr; }
    quint64 generation() const { return generation_; }
    JobResultPtr cached(const QString& key) const;
    int cacheSize() const { return int(cache_.size()); }
    void clearCache();
    /// \brief The prepared image cached for this key (preparedKey()), or null.
    PreparedPtr cachedPrepared(const QString& key) const { return preparedCache_.value(key); }
    /// \brief How many times a job has started preparing an image (a cached prepared image is not counted).
    int prepareCount() const { return prepares_->load(); }
    /// \brief Computes the perceived view of an existing result in the background (emits perceivedReady), and that of
    /// its print preview when it has one.
    void computePerceived(const JobResultPtr& result, std::shared_ptr<const Image> original);
    /// \brief Makes the print preview of an existing CMYK result in the background, and its perceived view when the
    /// result has one (emits perceivedReady); nothing for other results or when it is there.
    void computePrintPreview(const JobResultPtr& result);
    /// \brief Waits for every worker (used on shutdown and by tests).
    void waitForDone();

signals:
    void started(quint64 generation);
    /// \brief Throttled (about 25 Hz) progress of the current job, including the live wavefront.
    void progress(quint64 generation, double fraction, const QString& stage, qint64 rowsDone,
                  const QVector<int>& frontier);
    void finished(quint64 generation, halftone::JobResultPtr result, bool fromCache);
    void failed(quint64 generation, const QString& message, bool cancelled);
    /// \brief A result got views made after it was shown (perceived, print preview); `updated` holds every view made
    /// so far for its key.
    void perceivedReady(halftone::JobResultPtr updated);

private:
    struct Running;
    void onWatcherFinished(std::shared_ptr<Running> run);
    void pollProgress();
    void insertCache(const JobResultPtr& r);
    void viewsMade(JobResultPtr updated);
    void insertPrepared(const PreparedPtr& p);

    QThreadPool pool_;
    quint64 generation_ = 0;
    std::shared_ptr<Running> running_;
    QTimer progressTimer_;
    QHash<QString, JobResultPtr> cache_;
    QStringList cacheOrder_;  // least recently used first
    qint64 cacheBytes_ = 0;
    qint64 cacheLimit_ = qint64(3) << 30;
    QHash<QString, PreparedPtr> preparedCache_;  // the last few prepared images, by preparedKey()
    QStringList preparedOrder_;                  // least recently used first
    std::shared_ptr<std::atomic<int>> prepares_ = std::make_shared<std::atomic<int>>(0);
};

/// \brief The SPEC's filtered PSNR (core/quality/metrics.h) of a halftone against the input image, mean over channels,
/// in linear light when `linear`: a gray result against the input's luma, an RGB one against its RGB, a CMYK one
/// as it is shown (both in RGB). Images wider or taller than 2048 pixels are measured on a central crop of at
/// most 2048 x 2048 and `region` says so (empty = whole image). The Gaussian is the SPEC's (sigma 1.2 px, w = 4) unless
/// another is given (the eye's at a printed size: the quality panel).
void measurePsnr(const Image& result, const Image& input, bool linear, double& psnrDb, QString& region,
                 double sigma = 1.2, int radius = 4);

/// \brief What a result's quality is measured on, both at the size the method ran at: the image it was made from (the
/// prepared image when Adjust did something, else the image as opened) and the halftone (a pixel size's enlargement
/// undone).
struct MeasuredPair {
    std::shared_ptr<const Image> reference;
    std::shared_ptr<const Image> halftone;
};

/// \brief The measured pair of `result`, made from `original` (the image as opened) when Adjust did nothing.
MeasuredPair measuredPair(const JobResult& result, std::shared_ptr<const Image> original);

/// \brief Runs a request synchronously (the worker body; also used by the benchmark and tests).
Status runJob(const JobRequest& request, const RunControl& control, JobResult& out);

}  // namespace halftone

Q_DECLARE_METATYPE(halftone::JobResultPtr)
