#include "widgets/scheduleview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>
#include <vector>

#include "core/ed/dotdiffusion.h"
#include "core/schedule/lesson.h"
#include "widgets/formrows.h"

namespace halftone {

namespace {
QColor stepColor(int step, int steps) {
    const double t = steps > 1 ? double(step) / double(steps - 1) : 0.0;
    return QColor::fromHsvF(float(0.66 * (1.0 - t)), 0.55f, 0.95f);
}
}  // namespace

// ---------------------------------------------------------------- grid

ScheduleGrid::ScheduleGrid(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(200, 150);
}

void ScheduleGrid::setSchedule(const Schedule* s, const Kernel* k, bool serpentine) {
    schedule_ = s;
    kernel_ = k;
    serpentine_ = serpentine;
    update();
}

void ScheduleGrid::setCurrentStep(int step) {
    step_ = step;
    update();
}

// The grid leaves a margin at the top and the left for the column (j) and row (i) indices, and one at
// the bottom for the hover line.
namespace {
constexpr double kIndexMargin = 22.0, kBottomMargin = 18.0;
}

QRectF ScheduleGrid::cellRect(int x, int y) const {
    if (!schedule_ || schedule_->width <= 0 || schedule_->height <= 0) return {};
    const double cell =
        std::max(1.0, std::floor(std::min((width() - kIndexMargin - 2.0) / schedule_->width,
                                          (height() - kIndexMargin - kBottomMargin - 2.0) / schedule_->height)));
    const double ox = kIndexMargin + (width() - kIndexMargin - cell * schedule_->width) / 2.0;
    const double oy = kIndexMargin + (height() - kIndexMargin - kBottomMargin - cell * schedule_->height) / 2.0;
    return QRectF(ox + x * cell, oy + y * cell, cell, cell);
}

void ScheduleGrid::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (!schedule_ || schedule_->pixelStep.empty()) return;
    const Schedule& s = *schedule_;
    const double cell = cellRect(0, 0).width();
    // Step numbers as large as the cell allows for the widest one (about 0.6 em per digit).
    const int digits = int(QString::number(std::max(1, s.steps - 1)).size());
    QFont f = font();
    f.setPixelSize(std::max(6, int(std::min(cell * 0.45, (cell - 3) / (0.62 * digits)))));
    p.setFont(f);
    for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x) {
            const int st = s.pixelStep.at(y, x);
            const QRectF r = cellRect(x, y);
            QColor c =
                st < step_ ? stepColor(st, s.steps) : (st == step_ ? QColor(255, 170, 0) : QColor(235, 235, 235));
            p.fillRect(r, c);
            if (cell >= 14) {
                p.setPen(st == step_ ? Qt::black : QColor(60, 60, 60));
                p.drawText(r, Qt::AlignCenter, QString::number(st));
            }
        }
    // Column indices j above, row indices i on the left (every one when they fit, else every 5th or 10th).
    {
        QFont idx = font();
        idx.setPixelSize(10);
        p.setFont(idx);
        p.setPen(QColor(90, 90, 90));
        const int every = cell >= 18 ? 1 : cell >= 5 ? 5 : 10;
        const QRectF c0 = cellRect(0, 0);
        for (int x = 0; x < s.width; x += every) {
            const QRectF r = cellRect(x, 0);
            p.drawText(QRectF(r.center().x() - 20, c0.top() - kIndexMargin, 40, kIndexMargin - 2),
                       Qt::AlignHCenter | Qt::AlignBottom, QString::number(x));
        }
        for (int y = 0; y < s.height; y += every) {
            const QRectF r = cellRect(0, y);
            p.drawText(QRectF(c0.left() - kIndexMargin - 2, r.center().y() - 8, kIndexMargin, 16),
                       Qt::AlignRight | Qt::AlignVCenter, QString::number(y));
        }
        p.drawText(QRectF(c0.left() - kIndexMargin, c0.top() - kIndexMargin, kIndexMargin, kIndexMargin),
                   Qt::AlignCenter, QStringLiteral("i\\j"));
        p.setFont(f);
    }
    // Cell grid, then block borders (where the unit changes) drawn thick.
    p.setPen(QPen(QColor(180, 180, 180), 1));
    for (int y = 0; y <= s.height; ++y)
        p.drawLine(cellRect(0, 0).topLeft() + QPointF(0, y * cell),
                   cellRect(0, 0).topLeft() + QPointF(s.width * cell, y * cell));
    for (int x = 0; x <= s.width; ++x)
        p.drawLine(cellRect(0, 0).topLeft() + QPointF(x * cell, 0),
                   cellRect(0, 0).topLeft() + QPointF(x * cell, s.height * cell));
    if (!s.pixelUnit.empty()) {
        p.setPen(QPen(QColor(20, 20, 20), std::max(2.0, cell / 8)));
        for (int y = 0; y < s.height; ++y)
            for (int x = 0; x < s.width; ++x) {
                const int u = s.pixelUnit.at(y, x);
                if (u < 0) continue;
                const QRectF r = cellRect(x, y);
                if (x + 1 < s.width && s.pixelUnit.at(y, x + 1) != u) p.drawLine(r.topRight(), r.bottomRight());
                if (y + 1 < s.height && s.pixelUnit.at(y + 1, x) != u) p.drawLine(r.bottomLeft(), r.bottomRight());
            }
    }
    // Dependencies of the hovered pixel: its sources (i - di, j - dj) must run at earlier steps.
    if (kernel_ && hover_.x() >= 0 && hover_.x() < s.width && hover_.y() >= 0 && hover_.y() < s.height) {
        const int hi = hover_.y(), hj = hover_.x();
        p.setPen(QPen(QColor(200, 0, 0), 3));
        p.drawRect(cellRect(hj, hi).adjusted(1, 1, -1, -1));
        std::vector<QPoint> sources;  // (column, row) of the pixels whose error the hovered one takes
        if (s.classMatrix) {
            // Dot diffusion: the lower-class 8-neighbours (docs/spec.md section 7), whatever the kernel.
            for (int di = -1; di <= 1; ++di)
                for (int dj = -1; dj <= 1; ++dj)
                    if ((di || dj) && hi + di >= 0 && hj + dj >= 0 &&
                        s.classMatrix->classAt(hi + di, hj + dj) < s.classMatrix->classAt(hi, hj))
                        sources.emplace_back(hj + dj, hi + di);
        } else {
            for (const Tap& t : kernel_->taps) {
                const int si = hi - t.di;
                // Serpentine: odd rows run right to left with mirrored taps (docs/spec.md section 1).
                const int dj = serpentine_ && (si & 1) ? -t.dj : t.dj;
                sources.emplace_back(hj - dj, si);
            }
        }
        for (const QPoint& src : sources) {
            const int si = src.y(), sj = src.x();
            if (si < 0 || si >= s.height || sj < 0 || sj >= s.width) continue;
            const QRectF r = cellRect(sj, si);
            p.setPen(QPen(QColor(200, 0, 0), 2, Qt::DashLine));
            p.drawRect(r.adjusted(2, 2, -2, -2));
            p.drawLine(r.center(), cellRect(hj, hi).center());
        }
        p.setPen(Qt::black);
        QFont hf = font();
        p.setFont(hf);
        p.drawText(
            rect().adjusted(4, 2, -4, -2), Qt::AlignBottom | Qt::AlignLeft,
            tr("pixel (i, j) = (%1, %2): step %3; dashed = its sources").arg(hi).arg(hj).arg(s.pixelStep.at(hi, hj)));
    }
}

void ScheduleGrid::mouseMoveEvent(QMouseEvent* e) {
    if (!schedule_) return;
    const QRectF c0 = cellRect(0, 0);
    if (c0.width() <= 0) return;
    const QPointF d = e->position() - c0.topLeft();
    const QPoint h(int(std::floor(d.x() / c0.width())), int(std::floor(d.y() / c0.height())));
    if (h != hover_) {
        hover_ = h;
        update();
    }
}

void ScheduleGrid::leaveEvent(QEvent*) {
    hover_ = QPoint(-1, -1);
    update();
}

// ---------------------------------------------------------------- stencil

StencilWidget::StencilWidget(QWidget* parent) : QWidget(parent) { setMinimumSize(160, 100); }

void StencilWidget::setKernel(const Kernel* k) {
    kernel_ = k;
    update();
}

void StencilWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (!kernel_) return;
    const int left = kernel_->maxDjLeft(), right = kernel_->maxDjRight(), rows = kernel_->maxDi() + 1;
    const int cols = left + right + 1;
    const double cell = std::floor(std::min((width() - 4.0) / cols, (height() - 4.0) / rows));
    const double ox = (width() - cell * cols) / 2.0, oy = 2;
    auto r = [&](int di, int dj) { return QRectF(ox + (dj + left) * cell, oy + di * cell, cell, cell); };
    QFont f = font();
    f.setPixelSize(std::max(7, int(cell * 0.3)));
    p.setFont(f);
    for (int di = 0; di < rows; ++di)
        for (int dj = -left; dj <= right; ++dj) {
            p.fillRect(r(di, dj), di == 0 && dj <= 0 ? QColor(200, 200, 200) : QColor(245, 245, 245));
            p.setPen(QColor(170, 170, 170));
            p.drawRect(r(di, dj));
        }
    p.fillRect(r(0, 0), QColor(255, 170, 0));
    p.setPen(Qt::black);
    p.drawText(r(0, 0), Qt::AlignCenter, QStringLiteral("x"));
    for (const Tap& t : kernel_->taps) {
        p.fillRect(r(t.di, t.dj).adjusted(1, 1, -1, -1), QColor(120, 180, 255));
        p.drawText(r(t.di, t.dj), Qt::AlignCenter, QStringLiteral("%1/%2").arg(t.w).arg(kernel_->divisor));
    }
}

// ---------------------------------------------------------------- view

namespace {

QString kernelTitle(const Kernel& k) {
    QString n = QString::fromStdString(k.name);
    QStringList words = n.split(QLatin1Char('-'));
    for (QString& w : words)
        if (!w.isEmpty()) w[0] = w[0].toUpper();
    return words.join(QLatin1Char('-'));
}

bool isBlockSchedule(const QString& name) {
    return name == QLatin1String("parallelogram") || name == QLatin1String("wavefront") ||
           name == QLatin1String("trapezoid") || name == QLatin1String("gpu-wavefront");
}

/// Integer ticks only: steps and unit counts are whole numbers.
void setIntegerTicks(QCPAxis* axis) {
    QSharedPointer<QCPAxisTickerFixed> t(new QCPAxisTickerFixed);
    t->setTickStep(1.0);
    t->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    axis->setTicker(t);
    axis->setSubTicks(false);  // sub-ticks would fall between whole numbers
    axis->setNumberFormat(QStringLiteral("f"));
    axis->setNumberPrecision(0);
}

}  // namespace

QSize ScheduleView::blockSizeForView(const QString& schedule) {
    const auto [w, h] = lessonBlockSize(schedule.toStdString());
    return {w, h};
}

ScheduleView::ScheduleView(QWidget* parent) : QWidget(parent) {
    scheduleCombo_ = new QComboBox;
    scheduleCombo_->setObjectName(QStringLiteral("schedule"));
    for (const std::string& n : scheduleNames()) scheduleCombo_->addItem(QString::fromStdString(n));
    kernelCombo_ = new QComboBox;
    kernelCombo_->setObjectName(QStringLiteral("kernel"));
    for (const Kernel& k : kernels()) kernelCombo_->addItem(QString::fromStdString(k.name));
    auto spin = [](const char* name, int lo, int hi, int v, const QString& tip, const QString& special = {}) {
        auto* s = new QSpinBox;
        s->setObjectName(QString::fromLatin1(name));
        s->setRange(lo, hi);
        s->setValue(v);
        s->setToolTip(tip);
        if (!special.isEmpty()) s->setSpecialValueText(special);
        return s;
    };
    widthSpin_ = spin("gridWidth", 1, 256, 24, tr("grid width in pixels (columns j)"));
    heightSpin_ = spin("gridHeight", 1, 256, 12, tr("grid height in pixels (rows i)"));
    blockWSpin_ = spin("blockWidth", 0, 256, 0,
                       tr("block width in pixels (block schedules); 'method default' = what the method uses on images"),
                       tr("method default"));
    blockHSpin_ =
        spin("blockHeight", 0, 256, 0,
             tr("block height in pixels (block schedules); 'method default' = what the method uses on images"),
             tr("method default"));
    delaySpin_ = spin("delay", 0, 64, 0, tr("k of k-delay: row i runs k columns behind row i - 1"), tr("minimal"));

    // A control after its label, whose mnemonic focuses it.
    auto labelled = [](QHBoxLayout* row, const QString& text, QWidget* field) {
        row->addWidget(buddyLabel(text, field));
        row->addWidget(field);
    };
    auto* row1 = new QHBoxLayout;
    labelled(row1, tr("&Schedule"), scheduleCombo_);
    row1->addSpacing(12);
    labelled(row1, tr("&Kernel"), kernelCombo_);
    row1->addSpacing(12);
    labelled(row1, tr("&Delay k"), delaySpin_);
    row1->addStretch(1);
    auto* row2 = new QHBoxLayout;
    row2->addWidget(new QLabel(tr("Grid:")));
    labelled(row2, tr("&width"), widthSpin_);
    labelled(row2, tr("&height"), heightSpin_);
    row2->addSpacing(12);
    row2->addWidget(new QLabel(tr("Block:")));
    labelled(row2, tr("w&idth"), blockWSpin_);
    labelled(row2, tr("h&eight"), blockHSpin_);
    row2->addStretch(1);

    auto* controls = new QHBoxLayout;
    auto* back = new QPushButton(tr("< Step"));
    playButton_ = new QPushButton(tr("Play"));
    playButton_->setObjectName(QStringLiteral("play"));
    auto* fwd = new QPushButton(tr("Step >"));
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setObjectName(QStringLiteral("scrub"));
    stepLabel_ = new QLabel;
    stepLabel_->setMinimumWidth(220);
    controls->addWidget(back);
    controls->addWidget(playButton_);
    controls->addWidget(fwd);
    controls->addWidget(slider_, 1);
    controls->addWidget(stepLabel_);

    info_ = wrappedLabel(QStringLiteral("scheduleInfo"));
    delayNote_ = wrappedLabel(QStringLiteral("delayNote"));
    grid_ = new ScheduleGrid;
    stencil_ = new StencilWidget;
    stencilCaption_ = wrappedLabel(QStringLiteral("stencilCaption"));
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("parallelismPlot"));
    plot_->setMinimumSize(260, 200);
    plot_->addGraph();
    plot_->graph(0)->setLineStyle(QCPGraph::lsStepCenter);
    plot_->graph(0)->setPen(QPen(QColor(30, 100, 200), 2));
    plot_->xAxis->setLabel(tr("step"));
    plot_->yAxis->setLabel(tr("units in parallel"));
    setIntegerTicks(plot_->xAxis);
    setIntegerTicks(plot_->yAxis);
    stepLine_ = new QCPItemStraightLine(plot_);
    stepLine_->setPen(QPen(QColor(255, 140, 0), 2));

    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(new QLabel(tr("<b>Dependency stencil</b>")));
    rightLayout->addWidget(stencil_);
    rightLayout->addWidget(stencilCaption_);
    rightLayout->addWidget(new QLabel(tr("<b>Parallelism per step</b>")));
    rightLayout->addWidget(plot_, 1);
    auto* split = new QSplitter;
    split->addWidget(grid_);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(row1);
    layout->addLayout(row2);
    layout->addLayout(controls);
    layout->addWidget(info_);
    layout->addWidget(delayNote_);
    layout->addWidget(split, 1);

    timer_.setInterval(250);
    connect(&timer_, &QTimer::timeout, this, [this] {
        if (step_ + 1 >= schedule_.steps)
            pause();
        else
            setCurrentStep(step_ + 1);
    });
    connect(playButton_, &QPushButton::clicked, this, [this] { timer_.isActive() ? pause() : play(); });
    connect(back, &QPushButton::clicked, this, &ScheduleView::stepBack);
    connect(fwd, &QPushButton::clicked, this, &ScheduleView::stepForward);
    connect(slider_, &QSlider::valueChanged, this, [this](int v) {
        if (!building_) setCurrentStep(v);
    });
    connect(scheduleCombo_, &QComboBox::currentIndexChanged, this, [this] {
        if (building_) return;
        applyScheduleDefaults();
        rebuild();
    });
    connect(kernelCombo_, &QComboBox::currentIndexChanged, this, [this] {
        if (!building_) rebuild();
    });
    for (QSpinBox* s : {widthSpin_, heightSpin_, blockWSpin_, blockHSpin_, delaySpin_})
        connect(s, &QSpinBox::valueChanged, this, [this] {
            if (!building_) rebuild();
        });
    // Start on the knight's-move order of Deshpande, Misra and Narayanan (its 1,1,2,2,3,3 ramp).
    const int knight = scheduleCombo_->findText(QStringLiteral("knight"));
    building_ = true;
    if (knight >= 0) scheduleCombo_->setCurrentIndex(knight);
    building_ = false;
    applyScheduleDefaults();
    rebuild();
    setCurrentStep(schedule_.steps /
                   3);  // open part-way through, so the first look shows done, current and pending pixels
}

void ScheduleView::applyScheduleDefaults() {
    const QString name = scheduleCombo_->currentText();
    const QSize b = blockSizeForView(name);
    const bool wasBuilding = building_;
    building_ = true;
    blockWSpin_->setValue(b.width());
    blockHSpin_->setValue(b.height());
    building_ = wasBuilding;
}

bool ScheduleView::configure(const QString& schedule, const QString& kernel, int width, int height) {
    building_ = true;
    const QString before = scheduleCombo_->currentText();
    if (scheduleCombo_->findText(schedule) >= 0) scheduleCombo_->setCurrentText(schedule);
    if (kernelCombo_->findText(kernel) >= 0) kernelCombo_->setCurrentText(kernel);
    widthSpin_->setValue(width);
    heightSpin_->setValue(height);
    if (scheduleCombo_->currentText() != before) applyScheduleDefaults();
    building_ = false;
    rebuild();
    return valid_ && scheduleCombo_->currentText() == schedule && kernelCombo_->currentText() == kernel;
}

bool ScheduleView::showMethod(const MethodInfo& method, std::optional<Device> device, const ParamValues& params) {
    const GpuAvailability& gpu = Registry::instance().gpuAvailability();
    Device d = device ? *device : ((method.gpu && gpu.usable) || !method.cpu ? Device::Gpu : Device::Cpu);
    if (d == Device::Gpu && (!method.gpu || !gpu.usable) && method.cpu) d = Device::Cpu;  // runImage falls back
    const std::string& name = method.scheduleOn(d);
    if (name.empty() || scheduleCombo_->findText(QString::fromStdString(name)) < 0) return false;
    levels_ = int(params.getInt("levels", 2));
    return configure(QString::fromStdString(name), QString::fromStdString(params.getText("kernel", "floyd-steinberg")),
                     widthSpin_->value(), heightSpin_->value());
}

bool ScheduleView::setBlockOptions(int blockWidth, int blockHeight, int delay) {
    building_ = true;
    blockWSpin_->setValue(blockWidth);
    blockHSpin_->setValue(blockHeight);
    delaySpin_->setValue(delay);
    building_ = false;
    rebuild();
    return valid_;
}

ScheduleOptions ScheduleView::options() const {
    ScheduleOptions opt;
    opt.blockWidth = blockWSpin_->value();
    opt.blockHeight = blockHSpin_->value();
    opt.delay = delaySpin_->value();
    opt.levels = levels_;
    return opt;
}

QString ScheduleView::errorText() const { return valid_ ? QString() : info_->text(); }

QString ScheduleView::stencilCaption() const { return stencilCaption_->text(); }
QString ScheduleView::delayNote() const { return delayNote_->text(); }

void ScheduleView::rebuild() {
    pause();
    const QString name = scheduleCombo_->currentText();
    kernel_ = findKernel(kernelCombo_->currentText().toStdString());
    const ScheduleOptions opt = options();
    Schedule s;
    Status st = kernel_ ? makeSchedule(name.toStdString(), widthSpin_->value(), heightSpin_->value(), *kernel_, opt, s)
                        : Status::error("unknown kernel");
    valid_ = st.isOk();
    schedule_ = valid_ ? std::move(s) : Schedule{};
    // Dot diffusion depends on its class matrix, not on a kernel: no kernel stencil or delay note for it.
    const bool dot = valid_ && schedule_.classMatrix;
    stencil_->setKernel(dot ? nullptr : kernel_);
    kernelCombo_->setEnabled(!dot);
    grid_->setSchedule(valid_ ? &schedule_ : nullptr, kernel_, schedule_.name == "serpentine");
    const bool blocks = isBlockSchedule(name);
    // The delay applies to k-delay and to the wavefront inside parallelogram and wavefront units; the
    // knight order and the trapezoid blocks always use the kernel's smallest one; block sizes only to blocks.
    const bool usesDelay = name == QLatin1String("k-delay") || name == QLatin1String("parallelogram") ||
                           name == QLatin1String("wavefront");
    delaySpin_->setEnabled(usesDelay);
    blockWSpin_->setEnabled(blocks);
    blockHSpin_->setEnabled(blocks);
    if (!valid_) {
        info_->setText(tr("<span style='color:#b00'>The schedule model says: %1</span>")
                           .arg(QString::fromStdString(st.message()).toHtmlEscaped()));
    } else {
        int64_t peak = 0;
        for (int64_t v : schedule_.parallelism) peak = std::max(peak, v);
        QString text = tr("<b>%1</b>: %2 &mdash; %3 steps for %4 x %5 = %6 pixels%7, peak parallelism %8.")
                           .arg(QString::fromStdString(schedule_.name),
                                QString::fromStdString(schedule_.description).toHtmlEscaped())
                           .arg(schedule_.steps)
                           .arg(schedule_.width)
                           .arg(schedule_.height)
                           .arg(qint64(schedule_.width) * schedule_.height)
                           .arg(blocks ? tr(" in %1 blocks").arg(schedule_.units) : QString())
                           .arg(peak);
        if (blocks && (opt.blockWidth > 0 || opt.blockHeight > 0)) {
            // Say what the method itself uses, so the small teaching blocks are not taken for the real ones.
            SchedulePlan own;
            ScheduleOptions ownOptions;
            ownOptions.levels = levels_;
            if (planSchedule(name.toStdString(), std::max(widthSpin_->value(), 4096),
                             std::max(heightSpin_->value(), 4096), *kernel_, ownOptions, own)
                    .isOk() &&
                own.blocks)
                text += tr(" Blocks are %1 x %2 here to fit the grid; on images the method uses %3 x %4 (block "
                           "&lsquo;method default&rsquo;).")
                            .arg(opt.blockWidth > 0 ? opt.blockWidth : own.geometry.blockWidth)
                            .arg(opt.blockHeight > 0 ? opt.blockHeight : own.geometry.blockHeight)
                            .arg(own.geometry.blockWidth)
                            .arg(own.geometry.blockHeight);
        }
        info_->setText(text);
    }
    if (dot) {
        delayNote_->clear();
        stencilCaption_->setText(
            tr("Dot diffusion (%1 class matrix): each pixel sends its error to its neighbours of higher class, "
               "2 parts to each orthogonal one and 1 to each diagonal one, divided by the parts of those that "
               "receive; a pixel with none (a baron) drops it. Hover a cell to see the neighbours it waits for.")
                .arg(QString::fromStdString(schedule_.classMatrix->title)));
    } else if (kernel_) {
        const int kmin = kernel_->minimalDelay(), kpush = conflictFreeDelay(*kernel_);
        const int h = heightSpin_->value();
        const int k = opt.delay > 0 ? opt.delay : kmin;
        const QString kname = kernelTitle(*kernel_);
        QString same = k == kmin ? tr("at k = %1 the two are the same schedule").arg(k)
                                 : tr("at k = %1 k-delay takes %2 more steps on this grid")
                                       .arg(k)
                                       .arg(qint64(k - kmin) * std::max(0, h - 1));
        QString push = kpush <= 0 ? tr("two of its taps reach the same neighbour, so diffusing (pushing) errors always "
                                       "collides; collecting (pulling) them works at k = %1")
                                        .arg(kmin)
                       : kpush == kmin ? tr("diffusing (pushing) errors is safe at k = %1 too").arg(kmin)
                                       : tr("diffusing (pushing) errors needs k = %1 so that no two pixels of a step "
                                            "add into one neighbour; collecting (pulling) them works at k = %2")
                                             .arg(kpush)
                                             .arg(kmin);
        delayNote_->setText(tr("<b>k-delay vs knight</b> for %1: the knight order runs pixel (i, j) at step %2i + j, "
                               "the earliest its taps allow; "
                               "k-delay runs it at step k&middot;i + j for the k you choose (Delay k); %3; %4.")
                                .arg(kname)
                                .arg(kmin)
                                .arg(same, push));
        stencilCaption_->setText(
            tr("%1: the current pixel x sends w/D of its error to each blue pixel; smallest delay k = %2.")
                .arg(kname)
                .arg(kmin));
    } else {
        delayNote_->clear();
        stencilCaption_->clear();
    }
    plot_->yAxis->setLabel(blocks ? tr("blocks in parallel") : tr("pixels in parallel"));
    QVector<double> xs, ys;
    for (size_t i = 0; i < schedule_.parallelism.size(); ++i) {
        xs.push_back(double(i));
        ys.push_back(double(schedule_.parallelism[i]));
    }
    plot_->graph(0)->setData(xs, ys, true);
    plot_->xAxis->setRange(-0.5, std::max(1.0, xs.size() - 0.5));
    double peak = 1;
    for (double y : ys) peak = std::max(peak, y);
    plot_->yAxis->setRange(0, peak * 1.1 + 0.5);
    building_ = true;
    slider_->setRange(0, std::max(0, schedule_.steps - 1));
    building_ = false;
    step_ = -1;
    setCurrentStep(0);
}

void ScheduleView::setCurrentStep(int step) {
    step = std::clamp(step, 0, std::max(0, schedule_.steps - 1));
    if (step == step_) return;
    step_ = step;
    updateStepUi();
}

void ScheduleView::updateStepUi() {
    building_ = true;
    slider_->setValue(step_);
    building_ = false;
    grid_->setCurrentStep(step_);
    const qint64 par = step_ < int(schedule_.parallelism.size()) ? schedule_.parallelism[size_t(step_)] : 0;
    stepLabel_->setText(tr("step %1 of 0..%2: %3 %4 in parallel")
                            .arg(step_)
                            .arg(std::max(0, schedule_.steps - 1))
                            .arg(par)
                            .arg(schedule_.unitStep.empty() ? (par == 1 ? tr("pixel") : tr("pixels"))
                                                            : (par == 1 ? tr("block") : tr("blocks"))));
    stepLine_->point1->setCoords(step_, 0);
    stepLine_->point2->setCoords(step_, 1);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QVector<double> ScheduleView::plottedParallelism() const {
    QVector<double> out;
    for (auto it = plot_->graph(0)->data()->constBegin(); it != plot_->graph(0)->data()->constEnd(); ++it)
        out.push_back(it->value);
    return out;
}

void ScheduleView::play() {
    if (step_ + 1 >= schedule_.steps) setCurrentStep(0);
    timer_.start();
    playButton_->setText(tr("Pause"));
}
void ScheduleView::pause() {
    timer_.stop();
    playButton_->setText(tr("Play"));
}
void ScheduleView::stepForward() { setCurrentStep(step_ + 1); }
void ScheduleView::stepBack() { setCurrentStep(step_ - 1); }

}  // namespace halftone
