#include "widgets/scheduleview.h"

#include <QComboBox>
#include <QFormLayout>
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

QRectF ScheduleGrid::cellRect(int x, int y) const {
    if (!schedule_ || schedule_->width <= 0 || schedule_->height <= 0) return {};
    const double cell = std::floor(std::min((width() - 2.0) / schedule_->width, (height() - 2.0) / schedule_->height));
    const double ox = (width() - cell * schedule_->width) / 2.0, oy = (height() - cell * schedule_->height) / 2.0;
    return QRectF(ox + x * cell, oy + y * cell, cell, cell);
}

void ScheduleGrid::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (!schedule_ || schedule_->pixelStep.empty()) return;
    const Schedule& s = *schedule_;
    const double cell = cellRect(0, 0).width();
    QFont f = font();
    f.setPixelSize(std::max(6, int(cell * 0.38)));
    p.setFont(f);
    for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x) {
            const int st = s.pixelStep.at(y, x);
            const QRectF r = cellRect(x, y);
            QColor c = st < step_ ? stepColor(st, s.steps) : (st == step_ ? QColor(255, 170, 0) : QColor(235, 235, 235));
            p.fillRect(r, c);
            if (cell >= 14) {
                p.setPen(st == step_ ? Qt::black : QColor(60, 60, 60));
                p.drawText(r, Qt::AlignCenter, QString::number(st));
            }
        }
    // Cell grid, then block borders (where the unit changes) drawn thick.
    p.setPen(QPen(QColor(180, 180, 180), 1));
    for (int y = 0; y <= s.height; ++y) p.drawLine(cellRect(0, 0).topLeft() + QPointF(0, y * cell), cellRect(0, 0).topLeft() + QPointF(s.width * cell, y * cell));
    for (int x = 0; x <= s.width; ++x) p.drawLine(cellRect(0, 0).topLeft() + QPointF(x * cell, 0), cellRect(0, 0).topLeft() + QPointF(x * cell, s.height * cell));
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
        for (const Tap& t : kernel_->taps) {
            const int si = hi - t.di;
            // Serpentine: odd rows run right to left with mirrored taps (SPEC section 1).
            const int dj = serpentine_ && (si & 1) ? -t.dj : t.dj;
            const int sj = hj - dj;
            if (si < 0 || si >= s.height || sj < 0 || sj >= s.width) continue;
            const QRectF r = cellRect(sj, si);
            p.setPen(QPen(QColor(200, 0, 0), 2, Qt::DashLine));
            p.drawRect(r.adjusted(2, 2, -2, -2));
            p.drawLine(r.center(), cellRect(hj, hi).center());
        }
        p.setPen(Qt::black);
        p.drawText(rect().adjusted(4, 2, -4, -2), Qt::AlignBottom | Qt::AlignLeft,
                   tr("pixel (%1, %2): step %3; dashed = its sources").arg(hi).arg(hj).arg(s.pixelStep.at(hi, hj)));
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
    const double cell = std::floor(std::min((width() - 4.0) / cols, (height() - 22.0) / rows));
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
    p.drawText(QRectF(0, height() - 18, width(), 18), Qt::AlignCenter | Qt::TextWordWrap,
               tr("%1: x sends w/D of its error to blue; k = %2").arg(QString::fromStdString(kernel_->name)).arg(kernel_->minimalDelay()));
}

// ---------------------------------------------------------------- view

ScheduleView::ScheduleView(QWidget* parent) : QWidget(parent) {
    auto* controls = new QHBoxLayout;
    scheduleCombo_ = new QComboBox;
    scheduleCombo_->setObjectName(QStringLiteral("schedule"));
    for (const std::string& n : scheduleNames()) scheduleCombo_->addItem(QString::fromStdString(n));
    kernelCombo_ = new QComboBox;
    kernelCombo_->setObjectName(QStringLiteral("kernel"));
    for (const Kernel& k : kernels()) kernelCombo_->addItem(QString::fromStdString(k.name));
    auto spin = [](int lo, int hi, int v, const QString& special = {}) {
        auto* s = new QSpinBox;
        s->setRange(lo, hi);
        s->setValue(v);
        if (!special.isEmpty()) s->setSpecialValueText(special);
        return s;
    };
    widthSpin_ = spin(1, 256, 16);
    heightSpin_ = spin(1, 256, 10);
    blockWSpin_ = spin(0, 256, 0, tr("default"));
    blockHSpin_ = spin(0, 256, 0, tr("default"));
    delaySpin_ = spin(0, 64, 0, tr("minimal"));
    auto* form = new QFormLayout;
    auto* row1 = new QHBoxLayout;
    row1->addWidget(scheduleCombo_);
    row1->addWidget(new QLabel(tr("kernel")));
    row1->addWidget(kernelCombo_);
    row1->addWidget(new QLabel(tr("grid")));
    row1->addWidget(widthSpin_);
    row1->addWidget(new QLabel(QStringLiteral("x")));
    row1->addWidget(heightSpin_);
    row1->addWidget(new QLabel(tr("block")));
    row1->addWidget(blockWSpin_);
    row1->addWidget(new QLabel(QStringLiteral("x")));
    row1->addWidget(blockHSpin_);
    row1->addWidget(new QLabel(tr("delay")));
    row1->addWidget(delaySpin_);
    row1->addStretch(1);
    form->addRow(tr("Schedule"), row1);

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
    form->addRow(tr("Steps"), controls);

    info_ = new QLabel;
    info_->setWordWrap(true);
    grid_ = new ScheduleGrid;
    stencil_ = new StencilWidget;
    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("parallelismPlot"));
    plot_->setMinimumSize(260, 200);
    plot_->addGraph();
    plot_->graph(0)->setLineStyle(QCPGraph::lsStepCenter);
    plot_->graph(0)->setPen(QPen(QColor(30, 100, 200), 2));
    plot_->xAxis->setLabel(tr("step"));
    plot_->yAxis->setLabel(tr("units in parallel"));
    stepLine_ = new QCPItemStraightLine(plot_);
    stepLine_->setPen(QPen(QColor(255, 140, 0), 2));

    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(new QLabel(tr("<b>Dependency stencil</b>")));
    rightLayout->addWidget(stencil_);
    rightLayout->addWidget(new QLabel(tr("<b>Parallelism per step</b>")));
    rightLayout->addWidget(plot_, 1);
    auto* split = new QSplitter;
    split->addWidget(grid_);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(info_);
    layout->addWidget(split, 1);

    timer_.setInterval(250);
    connect(&timer_, &QTimer::timeout, this, [this] {
        if (step_ + 1 >= schedule_.steps) pause();
        else setCurrentStep(step_ + 1);
    });
    connect(playButton_, &QPushButton::clicked, this, [this] { timer_.isActive() ? pause() : play(); });
    connect(back, &QPushButton::clicked, this, &ScheduleView::stepBack);
    connect(fwd, &QPushButton::clicked, this, &ScheduleView::stepForward);
    connect(slider_, &QSlider::valueChanged, this, [this](int v) { if (!building_) setCurrentStep(v); });
    for (QComboBox* c : {scheduleCombo_, kernelCombo_})
        connect(c, &QComboBox::currentIndexChanged, this, [this] { if (!building_) rebuild(); });
    for (QSpinBox* s : {widthSpin_, heightSpin_, blockWSpin_, blockHSpin_, delaySpin_})
        connect(s, &QSpinBox::valueChanged, this, [this] { if (!building_) rebuild(); });
    // Start on the seed 002 knight's-move schedule when the model has it (its 1,1,2,2,3,3 ramp).
    const int knight = scheduleCombo_->findText(QStringLiteral("knight"));
    if (knight >= 0) scheduleCombo_->setCurrentIndex(knight);
    rebuild();
    setCurrentStep(schedule_.steps / 3);  // open part-way through, so the first look shows done, current and pending pixels
}

bool ScheduleView::configure(const QString& schedule, const QString& kernel, int width, int height) {
    building_ = true;
    if (scheduleCombo_->findText(schedule) >= 0) scheduleCombo_->setCurrentText(schedule);
    if (kernelCombo_->findText(kernel) >= 0) kernelCombo_->setCurrentText(kernel);
    widthSpin_->setValue(width);
    heightSpin_->setValue(height);
    building_ = false;
    rebuild();
    return valid_ && scheduleCombo_->currentText() == schedule && kernelCombo_->currentText() == kernel;
}

QString ScheduleView::errorText() const { return valid_ ? QString() : info_->text(); }

void ScheduleView::rebuild() {
    pause();
    kernel_ = findKernel(kernelCombo_->currentText().toStdString());
    ScheduleOptions opt;
    opt.blockWidth = blockWSpin_->value();
    opt.blockHeight = blockHSpin_->value();
    opt.delay = delaySpin_->value();
    Schedule s;
    Status st = kernel_ ? makeSchedule(scheduleCombo_->currentText().toStdString(), widthSpin_->value(), heightSpin_->value(), *kernel_, opt, s)
                        : Status::error("unknown kernel");
    valid_ = st.isOk();
    schedule_ = valid_ ? std::move(s) : Schedule{};
    stencil_->setKernel(kernel_);
    grid_->setSchedule(valid_ ? &schedule_ : nullptr, kernel_, schedule_.name == "serpentine");
    if (!valid_) {
        info_->setText(tr("<span style='color:#b00'>The schedule model says: %1</span>").arg(QString::fromStdString(st.message()).toHtmlEscaped()));
    } else {
        int64_t peak = 0;
        for (int64_t v : schedule_.parallelism) peak = std::max(peak, v);
        info_->setText(tr("<b>%1</b>: %2 &mdash; %3 steps for %4 x %5 = %6 pixels (%7 units), peak parallelism %8.")
                           .arg(QString::fromStdString(schedule_.name), QString::fromStdString(schedule_.description).toHtmlEscaped())
                           .arg(schedule_.steps).arg(schedule_.width).arg(schedule_.height)
                           .arg(qint64(schedule_.width) * schedule_.height).arg(schedule_.units).arg(peak));
    }
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
    stepLabel_->setText(tr("step %1 / %2: %3 unit(s) in parallel").arg(step_).arg(schedule_.steps).arg(par));
    stepLine_->point1->setCoords(step_, 0);
    stepLine_->point2->setCoords(step_, 1);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QVector<double> ScheduleView::plottedParallelism() const {
    QVector<double> out;
    for (auto it = plot_->graph(0)->data()->constBegin(); it != plot_->graph(0)->data()->constEnd(); ++it) out.push_back(it->value);
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
