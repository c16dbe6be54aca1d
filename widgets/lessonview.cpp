#include "widgets/lessonview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPdfWriter>
#include <QPushButton>
#include <QResizeEvent>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBrowser>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtMath>

#include <algorithm>
#include <array>

#include "core/ed/kernel.h"
#include "io/animation.h"

namespace halftone {

namespace {

const QColor kStepInk(30, 110, 255);
const QColor kEarlyInk(230, 30, 30);
const QColor kDiffersInk(255, 150, 0);
constexpr std::array<int, 7> kIntervals = {2000, 1000, 600, 400, 250, 120, 60};

QColor pendingColour(uint8_t input) {
    const int v = 150 + input * 16 / 256 * 6;
    return QColor(v, v, std::min(255, v + 15));
}

QString at(int row, int col) { return QStringLiteral("(%1, %2)").arg(row).arg(col); }

QString signedText(int64_t v) { return v < 0 ? QStringLiteral("\u2212%1").arg(-v) : QString::number(v); }

/// The sides: which step of a trace the shared clock shows.
int sideStep(const LessonTrace& t, int step) { return std::clamp(step, 0, std::max(0, t.steps() - 1)); }

QImage frameImage(const LessonTrace& t, int step, int cell) {
    const Image f = renderLessonFrame(t, step, cell);
    QImage q(f.width(), f.height(), QImage::Format_RGB888);
    for (int y = 0; y < f.height(); ++y) {
        uchar* line = q.scanLine(y);
        for (int x = 0; x < f.width(); ++x)
            for (int c = 0; c < 3; ++c) line[x * 3 + c] = f.channels[size_t(c)].at(y, x);
    }
    return q;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// LessonGrid

LessonGrid::LessonGrid(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMouseTracking(false);
}

void LessonGrid::setTrace(const LessonTrace* trace) {
    trace_ = trace;
    update();
}

void LessonGrid::setStep(int step) {
    step_ = step;
    update();
}

void LessonGrid::setSelected(QPoint rowCol) {
    selected_ = rowCol;
    update();
}

QRectF LessonGrid::cellRect(int row, int col) const {
    if (!trace_ || trace_->output.empty()) return {};
    const int w = trace_->output.width, h = trace_->output.height;
    const double cell = std::max(1.0, std::min((width() - 2.0) / w, (height() - 2.0) / h));
    const double x0 = (width() - cell * w) / 2, y0 = (height() - cell * h) / 2;
    return {x0 + col * cell, y0 + row * cell, cell, cell};
}

int LessonGrid::numberPixelSize() const {
    const double cell = cellRect(0, 0).width();
    const int px = int(cell * 0.3);
    return px >= 8 ? std::min(px, 22) : 0;
}

QVector<LessonGrid::Arrow> LessonGrid::arrows() const {
    QVector<Arrow> out;
    if (!trace_ || trace_->pixels.empty()) return out;
    const int s = sideStep(*trace_, step_);
    auto add = [&](const LessonPixel& p) {
        for (const LessonShare& c : p.collected) out.push_back({QPoint(c.col, c.row), QPoint(p.col, p.row), c.early});
    };
    const size_t begin = trace_->stepBegin[size_t(s)], end = trace_->stepBegin[size_t(s) + 1];
    if (end - begin <= 24)
        for (size_t i = begin; i < end; ++i) add(trace_->pixels[i]);
    const int r = selected_.y(), c = selected_.x();
    if (r >= 0 && r < trace_->output.height && c >= 0 && c < trace_->output.width &&
        !(trace_->at(r, c).step == s && end - begin <= 24))
        add(trace_->at(r, c));
    return out;
}

void LessonGrid::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (!trace_ || trace_->pixels.empty()) return;
    p.setRenderHint(QPainter::Antialiasing);
    const int s = sideStep(*trace_, step_);
    const bool last = s >= trace_->steps() - 1;
    const int numberPx = numberPixelSize();
    QFont numberFont = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (numberPx > 0) numberFont.setPixelSize(numberPx);
    p.setFont(numberFont);
    for (int i = 0; i < trace_->output.height; ++i)
        for (int j = 0; j < trace_->output.width; ++j) {
            const LessonPixel& px = trace_->at(i, j);
            const QRectF r = cellRect(i, j);
            const bool done = px.step <= s;
            const QColor fill = done ? QColor(px.output, px.output, px.output) : pendingColour(px.input);
            p.fillRect(r, fill);
            p.setPen(QPen(QColor(118, 138, 170), 1));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r);
            if (last && trace_->output.at(i, j) != trace_->sequential.at(i, j)) {
                QPainterPath corner;
                corner.moveTo(r.topLeft());
                corner.lineTo(r.left() + r.width() / 2, r.top());
                corner.lineTo(r.left(), r.top() + r.height() / 2);
                p.fillPath(corner, kDiffersInk);
            }
            if (px.step == s) {
                const double b = std::max(2.0, r.width() / 10);
                p.setPen(QPen(px.earlyReads ? kEarlyInk : kStepInk, b));
                p.drawRect(r.adjusted(b / 2, b / 2, -b / 2, -b / 2));
            }
            if (QPoint(j, i) == selected_) {
                p.setPen(QPen(kDiffersInk, std::max(2.0, r.width() / 12), Qt::DashLine));
                p.drawRect(r.adjusted(1, 1, -1, -1));
            }
            if (numberPx > 0) {
                // pending: the input a; done: the error E it sends (scale 16)
                p.setPen(done ? (px.output > 127 ? Qt::black : Qt::white) : Qt::black);
                p.drawText(r, Qt::AlignCenter, done ? signedText(px.error) : QString::number(px.input));
            }
        }
    for (const Arrow& a : arrows()) {
        const QPointF from = cellRect(a.from.y(), a.from.x()).center(), to = cellRect(a.to.y(), a.to.x()).center();
        const QLineF line(from, to);
        const double cell = cellRect(0, 0).width();
        const double len = line.length();
        if (len < 1) continue;
        const QPointF u = (to - from) / len;
        const QPointF tip = to - u * cell * 0.3, tail = from + u * cell * 0.2;
        const QColor ink = a.early ? kEarlyInk : QColor(255, 140, 0);
        const double width = std::max(1.5, cell / 14);
        p.setPen(QPen(ink, width, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(tail, tip);
        const QPointF n(-u.y(), u.x());
        const double head = std::max(5.0, cell / 5);
        QPolygonF arrowHead({tip, tip - u * head + n * head / 2, tip - u * head - n * head / 2});
        p.setBrush(ink);
        p.drawPolygon(arrowHead);
        p.setBrush(Qt::NoBrush);
    }
}

void LessonGrid::mousePressEvent(QMouseEvent* e) {
    if (!trace_) return;
    for (int i = 0; i < trace_->output.height; ++i)
        for (int j = 0; j < trace_->output.width; ++j)
            if (cellRect(i, j).contains(e->position())) {
                emit pixelClicked(i, j);
                return;
            }
}

// ---------------------------------------------------------------------------------------------
// ParallelismStrip

ParallelismStrip::ParallelismStrip(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMinimumHeight(fontMetrics().height() * 3 + 8);
}

void ParallelismStrip::setTrace(const LessonTrace* trace) {
    trace_ = trace;
    update();
}

void ParallelismStrip::setStep(int step) {
    step_ = step;
    update();
}

void ParallelismStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!trace_ || trace_->schedule.parallelism.empty()) return;
    const auto& par = trace_->schedule.parallelism;
    const int64_t top = std::max<int64_t>(1, *std::max_element(par.begin(), par.end()));
    const double bw = double(width()) / double(par.size());
    const int s = sideStep(*trace_, step_);
    const int textHeight = fontMetrics().height() + 2;  // the caption above the bars, never over them
    for (size_t i = 0; i < par.size(); ++i) {
        const double bh = (height() - textHeight - 2.0) * double(par[i]) / double(top);
        p.fillRect(QRectF(i * bw, height() - bh, std::max(1.0, bw - (bw > 3 ? 1 : 0)), bh),
                   int(i) == s ? kStepInk : QColor(150, 160, 180));
    }
    p.setPen(palette().text().color());
    p.drawText(rect().adjusted(4, 2, -4, -2), Qt::AlignLeft | Qt::AlignTop,
               LessonView::tr("units at once: %1 at step %2, at most %3").arg(par[size_t(s)]).arg(s).arg(top));
}

// ---------------------------------------------------------------------------------------------
// LessonView

LessonView::LessonView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    auto combo = [](const char* name, const std::vector<std::string>& items, const QString& current) {
        auto* c = new QComboBox;
        c->setObjectName(QString::fromLatin1(name));
        for (const std::string& n : items) c->addItem(QString::fromStdString(n));
        c->setCurrentText(current);
        // long names (dot-mese-vaidyanathan-16) must not widen the window: the list shows them whole
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(9);
        return c;
    };
    auto spin = [](const char* name, int lo, int hi, int v) {
        auto* s = new QSpinBox;
        s->setObjectName(QString::fromLatin1(name));
        s->setRange(lo, hi);
        s->setValue(v);
        return s;
    };
    std::vector<std::string> kernelList;
    for (const Kernel& k : kernels()) kernelList.push_back(k.name);
    sourceCombo_ = new QComboBox;
    sourceCombo_->setObjectName(QStringLiteral("source"));
    sourceCombo_->addItems({tr("Ramp"), tr("Loaded image (middle)")});
    sourceCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    sourceCombo_->setMinimumContentsLength(9);
    scheduleCombo_ = combo("schedule", lessonScheduleNames(), QStringLiteral("raster"));
    compareCombo_ = combo("compareSchedule", lessonScheduleNames(), QStringLiteral("knight"));
    kernelCombo_ = combo("kernel", kernelList, QStringLiteral("floyd-steinberg"));
    widthSpin_ = spin("width", 1, kLessonMaxSide, 12);
    heightSpin_ = spin("height", 1, kLessonMaxSide, 8);
    levelsSpin_ = spin("levels", 2, 16, 2);
    raceCheck_ = new QCheckBox(tr("&Race"));
    raceCheck_->setToolTip(
        tr("Run the steps as parallel hardware would: every pixel of a step reads the errors "
           "written before the step"));
    raceCheck_->setObjectName(QStringLiteral("race"));

    auto* setup = new QHBoxLayout;
    auto labelled = [&](const QString& text, QWidget* w) {
        auto* l = new QLabel(text);
        l->setBuddy(w);
        setup->addWidget(l);
        setup->addWidget(w);
    };
    labelled(tr("&Image"), sourceCombo_);
    labelled(tr("Si&ze"), widthSpin_);
    setup->addWidget(new QLabel(QStringLiteral("\u00d7")));
    setup->addWidget(heightSpin_);
    labelled(tr("&Kernel"), kernelCombo_);
    setup->addStretch(1);

    auto button = [this](const char* name, const QString& text, const QString& tip) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setObjectName(QString::fromLatin1(name));
        b->setToolTip(tip);
        b->setFocusPolicy(Qt::NoFocus);
        return b;
    };
    auto* first = button("first", QStringLiteral("|\u25c0"), tr("First step (Home)"));
    auto* back = button("back", QStringLiteral("\u25c0"), tr("Step back (Left)"));
    playButton_ = button("play", tr("Play"), tr("Play or pause (Space)"));
    auto* forward = button("forward", QStringLiteral("\u25b6"), tr("Step forward (Right)"));
    auto* lastB = button("last", QStringLiteral("\u25b6|"), tr("Last step (End)"));
    auto* slower = button("slower", QStringLiteral("\u2212"), tr("Slower (minus)"));
    auto* faster = button("faster", QStringLiteral("+"), tr("Faster (plus)"));
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setObjectName(QStringLiteral("step"));
    slider_->setFocusPolicy(Qt::NoFocus);
    stepLabel_ = new QLabel;
    stepLabel_->setObjectName(QStringLiteral("stepLabel"));
    speedLabel_ = new QLabel;
    speedLabel_->setObjectName(QStringLiteral("speed"));
    auto* transport = new QHBoxLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{first, back, playButton_, forward, lastB})
        transport->addWidget(w);
    transport->addWidget(slider_, 1);
    transport->addWidget(stepLabel_);
    transport->addWidget(slower);
    transport->addWidget(speedLabel_);
    transport->addWidget(faster);
    auto* levelsLabel = new QLabel(tr("&Levels"));
    levelsLabel->setBuddy(levelsSpin_);
    transport->addWidget(levelsLabel);
    transport->addWidget(levelsSpin_);
    transport->addWidget(raceCheck_);

    auto side = [&](QComboBox* schedule, LessonGrid*& grid, ParallelismStrip*& strip, QLabel*& stats,
                    const QString& title) {
        auto* box = new QWidget;
        auto* v = new QVBoxLayout(box);
        v->setContentsMargins(0, 0, 0, 0);
        auto* head = new QHBoxLayout;
        auto* l = new QLabel(title);
        l->setBuddy(schedule);
        head->addWidget(l);
        head->addWidget(schedule, 1);
        v->addLayout(head);
        grid = new LessonGrid;
        v->addWidget(grid, 1);
        strip = new ParallelismStrip;
        v->addWidget(strip);
        stats = new QLabel;
        stats->setWordWrap(true);
        stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
        v->addWidget(stats);
        return box;
    };
    // The two schedules side by side, or one above the other when that gives the grids larger cells (layoutSides()).
    sides_ = new QSplitter(Qt::Horizontal);
    sides_->addWidget(side(scheduleCombo_, grid_, strip_, stats_, tr("&Schedule")));
    sides_->addWidget(side(compareCombo_, compareGrid_, compareStrip_, compareStats_, tr("&Beside it")));
    stats_->setObjectName(QStringLiteral("stats"));
    compareStats_->setObjectName(QStringLiteral("compareStats"));
    panel_ = new QTextBrowser;
    panel_->setObjectName(QStringLiteral("arithmetic"));
    panel_->setMinimumWidth(fontMetrics().averageCharWidth() * 36);
    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(sides_);
    splitter->addWidget(panel_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto* exportRow = new QHBoxLayout;
    auto* animate = new QPushButton(tr("Export &animation\u2026"));
    animate->setObjectName(QStringLiteral("exportAnimation"));
    auto* handout = new QPushButton(tr("&Handout PDF\u2026"));
    handout->setObjectName(QStringLiteral("exportHandout"));
    auto* fromSpin = spin("handoutFirst", 0, 100000, 0);
    auto* toSpin = spin("handoutLast", 0, 100000, 7);
    exportRow->addWidget(animate);
    exportRow->addSpacing(12);
    exportRow->addWidget(new QLabel(tr("Handout of steps")));
    exportRow->addWidget(fromSpin);
    exportRow->addWidget(new QLabel(tr("to")));
    exportRow->addWidget(toSpin);
    exportRow->addWidget(handout);
    exportRow->addStretch(1);

    auto* v = new QVBoxLayout(this);
    v->addLayout(setup);
    v->addLayout(transport);
    v->addWidget(splitter, 1);
    v->addLayout(exportRow);

    timer_.setInterval(kIntervals[3]);
    connect(&timer_, &QTimer::timeout, this, [this] {
        if (step_ + 1 >= stepCount())
            pause();
        else
            setStep(step_ + 1);
    });
    connect(first, &QToolButton::clicked, this, [this] { setStep(0); });
    connect(back, &QToolButton::clicked, this, &LessonView::stepBack);
    connect(playButton_, &QToolButton::clicked, this, &LessonView::togglePlay);
    connect(forward, &QToolButton::clicked, this, &LessonView::stepForward);
    connect(lastB, &QToolButton::clicked, this, [this] { setStep(stepCount() - 1); });
    connect(slower, &QToolButton::clicked, this, &LessonView::slower);
    connect(faster, &QToolButton::clicked, this, &LessonView::faster);
    connect(slider_, &QSlider::valueChanged, this, [this](int v) {
        if (!building_) setStep(v);
    });
    for (QComboBox* c : {sourceCombo_, scheduleCombo_, kernelCombo_})
        connect(c, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    connect(compareCombo_, &QComboBox::currentIndexChanged, this, [this] { rebuildCompare(); });
    for (QSpinBox* s : {widthSpin_, heightSpin_, levelsSpin_})
        connect(s, &QSpinBox::valueChanged, this, [this] { rebuild(); });
    connect(raceCheck_, &QCheckBox::toggled, this, [this] { rebuild(); });
    connect(grid_, &LessonGrid::pixelClicked, this, &LessonView::selectPixel);
    connect(animate, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the lesson animation"), QString(),
                                                          tr("Animated PNG (*.png);;WebP (*.webp);;GIF (*.gif)"));
        if (path.isEmpty()) return;
        if (Status s = exportAnimation(path); !s)
            QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(s.message()));
    });
    connect(handout, &QPushButton::clicked, this, [this, fromSpin, toSpin] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Export a lesson handout"), QString(), tr("PDF (*.pdf)"));
        if (path.isEmpty()) return;
        if (Status s = exportHandout(path, fromSpin->value(), toSpin->value()); !s)
            QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(s.message()));
    });
    rebuild();
}

void LessonView::setLoadedImage(const Image& image) {
    // only the middle kLessonMaxSide square is ever shown: crop before the colour conversion
    Image middle = image;
    for (Plane8& c : middle.channels) c = lessonCrop(c, kLessonMaxSide, kLessonMaxSide);
    middle.hasAlpha = false;
    middle.alpha = {};
    middle.palette.clear();
    middle.indices = {};
    loaded_ = middle.channels.empty() ? Plane8() : convertColor(middle, ColorMode::Gray).channels.front();
    if (sourceCombo_->currentIndex() == 1) rebuild();
}

void LessonView::useLoadedImage(bool loaded) { sourceCombo_->setCurrentIndex(loaded ? 1 : 0); }

bool LessonView::configure(const QString& schedule, const QString& kernel, int width, int height, bool race) {
    building_ = true;
    scheduleCombo_->setCurrentText(schedule);
    kernelCombo_->setCurrentText(kernel);
    widthSpin_->setValue(width);
    heightSpin_->setValue(height);
    raceCheck_->setChecked(race);
    building_ = false;
    rebuild();
    return valid_ && scheduleCombo_->currentText() == schedule && kernelCombo_->currentText() == kernel;
}

Status LessonView::applySpec(const QString& spec) {
    QString schedule, compare, kernel = kernelCombo_->currentText();
    int w = widthSpin_->value(), h = heightSpin_->value(), levels = levelsSpin_->value(), step = 0;
    bool race = false, image = false;
    const QStringList names = [] {
        QStringList l;
        for (const std::string& n : lessonScheduleNames()) l << QString::fromStdString(n);
        return l;
    }();
    for (const QString& part : spec.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString key = part.section(QLatin1Char('='), 0, 0).trimmed(), value = part.section(QLatin1Char('='), 1);
        bool ok = true;
        if (key == QLatin1String("race") && !part.contains(QLatin1Char('='))) {
            race = true;
        } else if (key == QLatin1String("image") && !part.contains(QLatin1Char('='))) {
            image = true;
        } else if (key == QLatin1String("kernel")) {
            kernel = value;
        } else if (key == QLatin1String("size")) {
            const QStringList wh = value.toLower().split(QLatin1Char('x'));
            bool okW = false, okH = false;
            if (wh.size() == 2) w = wh[0].toInt(&okW), h = wh[1].toInt(&okH);
            ok = okW && okH && w >= 1 && h >= 1 && w <= kLessonMaxSide && h <= kLessonMaxSide;
        } else if (key == QLatin1String("levels")) {
            levels = value.toInt(&ok);
            ok = ok && levels >= 2 && levels <= 16;
        } else if (key == QLatin1String("step")) {
            step = value.toInt(&ok);
        } else if (names.contains(key) && !part.contains(QLatin1Char('='))) {
            (schedule.isEmpty() ? schedule : compare) = key;
        } else {
            return Status::error("--lesson: '" + part.toStdString() + "' is no schedule (" +
                                 names.join(QStringLiteral(", ")).toStdString() +
                                 ") and none of kernel=K, size=WxH, levels=L, step=N, race, image");
        }
        if (!ok) return Status::error("--lesson: '" + part.toStdString() + "' is out of range");
    }
    if (findKernel(kernel.toStdString()) == nullptr)
        return Status::error("--lesson: unknown kernel '" + kernel.toStdString() + "'");
    building_ = true;
    levelsSpin_->setValue(levels);
    useLoadedImage(image);
    building_ = false;
    if (!configure(schedule.isEmpty() ? scheduleCombo_->currentText() : schedule, kernel, w, h, race))
        return Status::error("--lesson: " + error_.toStdString());
    if (!compare.isEmpty() && !setCompareSchedule(compare))
        return Status::error("--lesson: " + compareStats_->text().toStdString());
    setStep(step);
    return Status::ok();
}

bool LessonView::setCompareSchedule(const QString& schedule) {
    compareCombo_->setCurrentText(schedule);
    return compareValid_ && compareCombo_->currentText() == schedule;
}

QString LessonView::errorText() const { return error_; }

int LessonView::stepCount() const {
    return std::max({valid_ ? trace_.steps() : 0, compareValid_ ? compare_.steps() : 0, 1});
}

Plane8 LessonView::lessonImage() const {
    const int w = widthSpin_->value(), h = heightSpin_->value();
    if (sourceCombo_->currentIndex() == 1 && !loaded_.empty()) return lessonCrop(loaded_, w, h);
    return lessonRamp(w, h);
}

LessonOptions LessonView::optionsFor(const QString& schedule) const {
    LessonOptions o;
    o.schedule = schedule.toStdString();
    o.kernel = kernelCombo_->currentText().toStdString();
    o.levels = levelsSpin_->value();
    o.race = raceCheck_->isChecked();
    o.scheduleOptions.levels = o.levels;
    return o;
}

QString LessonView::statsText(int side) const {
    const LessonTrace& t = side == 0 ? trace_ : compare_;
    if (!(side == 0 ? valid_ : compareValid_)) return {};
    const LessonStats& s = t.stats;
    QString text =
        tr("%1 steps \u00b7 at most %2 unit(s) at once \u00b7 critical path %3 pixel times \u00b7 dependency "
           "chain %4")
            .arg(s.steps)
            .arg(s.maxParallelism)
            .arg(s.criticalPath)
            .arg(s.dependencyChain);
    if (t.race || t.earlyReads) text += tr(" \u00b7 %1 early read(s)").arg(t.earlyReads);
    text += t.proved() ? tr("\nProof: the final image equals the sequential one bit for bit.")
                       : tr("\nRace: %1 of %2 pixels differ from the sequential result.")
                             .arg(t.differing)
                             .arg(qint64(t.output.size()));
    return text;
}

void LessonView::rebuild() {
    if (building_) return;
    building_ = true;
    const Plane8 src = lessonImage();
    const Status s = traceLesson(src, optionsFor(scheduleCombo_->currentText()), trace_);
    valid_ = s.isOk();
    error_ = valid_ ? QString() : QString::fromStdString(s.message());
    grid_->setTrace(valid_ ? &trace_ : nullptr);
    strip_->setTrace(valid_ ? &trace_ : nullptr);
    stats_->setText(valid_ ? statsText(0) : QString());
    selected_ = {-1, -1};
    grid_->setSelected(selected_);
    building_ = false;
    layoutSides();
    rebuildCompare();
}

void LessonView::rebuildCompare() {
    if (building_) return;
    const Status s = traceLesson(lessonImage(), optionsFor(compareCombo_->currentText()), compare_);
    compareValid_ = s.isOk();
    compareGrid_->setTrace(compareValid_ ? &compare_ : nullptr);
    compareStrip_->setTrace(compareValid_ ? &compare_ : nullptr);
    compareStats_->setText(compareValid_ ? statsText(1) : QString::fromStdString(s.message()));
    setStep(std::min(step_, stepCount() - 1));
}

void LessonView::setStep(int step) {
    step_ = std::clamp(step, 0, stepCount() - 1);
    updateStepUi();
}

void LessonView::selectPixel(int row, int col) {
    selected_ = {col, row};
    grid_->setSelected(selected_);
    updateStepUi();
}

void LessonView::updateStepUi() {
    const bool wasBuilding = building_;
    building_ = true;
    slider_->setRange(0, stepCount() - 1);
    slider_->setValue(step_);
    building_ = wasBuilding;
    for (LessonGrid* g : {grid_, compareGrid_}) g->setStep(step_);
    for (ParallelismStrip* s : {strip_, compareStrip_}) s->setStep(step_);
    stepLabel_->setText(tr("step %1 of %2").arg(step_).arg(stepCount()));
    speedLabel_->setText(tr("%1 s/step").arg(timer_.interval() / 1000.0, 0, 'f', 2));
    playButton_->setText(playing() ? tr("Pause") : tr("Play"));
    if (!valid_) {
        panel_->setHtml(QStringLiteral("<p style='color:#c00'>%1</p>").arg(error_.toHtmlEscaped()));
        return;
    }
    panel_->setHtml(stepHtml(step_, selected_));
}

QString LessonView::stepHtml(int step, QPoint selected) const {
    const int s = sideStep(trace_, step);
    const size_t begin = trace_.stepBegin[size_t(s)], end = trace_.stepBegin[size_t(s) + 1];
    QString html = tr("<h3>Step %1 of %2: %3 pixel(s) at once</h3><p>%4, %5 levels.</p>")
                       .arg(s)
                       .arg(trace_.steps())
                       .arg(end - begin)
                       .arg(QString::fromStdString(trace_.arithmetic))
                       .arg(trace_.levels);
    const int r = selected.y(), c = selected.x();
    if (r >= 0 && r < trace_.output.height && c >= 0 && c < trace_.output.width) {
        html += tr("<p><i>Selected pixel (step %1):</i></p>").arg(trace_.at(r, c).step) + pixelHtml(trace_.at(r, c));
        html += QStringLiteral("<hr/>");
    }
    const size_t shown = std::min<size_t>(end - begin, 16);
    for (size_t i = begin; i < begin + shown; ++i)
        if (!(trace_.pixels[i].row == r && trace_.pixels[i].col == c)) html += pixelHtml(trace_.pixels[i]);
    if (end - begin > shown) html += tr("<p>\u2026 and %1 more pixel(s) of this step.</p>").arg(end - begin - shown);
    return html;
}

QString LessonView::pixelHtml(const LessonPixel& p) const {
    const bool dot = trace_.schedule.classMatrix != nullptr;
    const bool curve = !dot && trace_.kernel.empty();
    QString h = tr("<p><b>%1</b> input a = %2 \u2192 A = 16 \u00d7 %2 = %3<br/>")
                    .arg(at(p.row, p.col))
                    .arg(p.input)
                    .arg(p.scaled);
    if (p.collected.empty()) h += tr("collects no error<br/>");
    for (const LessonShare& s : p.collected) {
        QString term = dot ? tr("%1/%2 share of E%3 = %4 \u2192 floor((%1 \u00d7 %4 + %5) / %2) = %6")
                                 .arg(s.numerator)
                                 .arg(s.denominator)
                                 .arg(at(s.row, s.col))
                                 .arg(signedText(s.error))
                                 .arg(s.denominator / 2)
                                 .arg(signedText(s.term))
                           : tr("%1/%2 \u00d7 E%3 = %1/%2 \u00d7 %4")
                                 .arg(s.numerator)
                                 .arg(s.denominator)
                                 .arg(at(s.row, s.col))
                                 .arg(signedText(s.error));
        if (s.early)
            term = QStringLiteral("<span style='color:#d00'>%1 \u2014 %2</span>")
                       .arg(term, tr("read before %1 wrote it (step %2)")
                                      .arg(at(s.row, s.col))
                                      .arg(trace_.at(s.row, s.col).step));
        h += QStringLiteral("&nbsp;&nbsp;") + term + QStringLiteral("<br/>");
    }
    if (!p.collected.empty()) {
        if (dot)
            h += tr("sum of the shares = %1<br/>").arg(signedText(p.correction));
        else
            h += tr("\u03a3 w\u00b7E = %1 \u2192 floor((%1 + %2) / %3) = %4<br/>")
                     .arg(signedText(p.sum))
                     .arg(p.collected.front().denominator / 2)
                     .arg(p.collected.front().denominator)
                     .arg(signedText(p.correction));
    }
    h += tr("S = A + %1 = %2 + %3 = %4<br/>")
             .arg(dot || p.collected.empty() ? QStringLiteral("the sum") : QStringLiteral("the rounded sum"))
             .arg(p.scaled)
             .arg(p.correction < 0 ? QStringLiteral("(%1)").arg(signedText(p.correction)) : signedText(p.correction))
             .arg(signedText(p.total));
    if (p.perturbation)
        h += tr("threshold moved by P = %1: decides on %2<br/>").arg(p.perturbation).arg(p.total - p.perturbation);
    h += tr("output %1 (level %2, Q = %3); error E = %4 \u2212 %3 = %5<br/>")
             .arg(p.output)
             .arg(p.level)
             .arg(p.target)
             .arg(signedText(curve ? p.scaled : p.total))
             .arg(signedText(p.error));
    if (!p.sent.empty()) {
        QStringList sends;
        for (const LessonShare& s : p.sent) {
            QString one = tr("%1/%2 \u2192 %3").arg(s.numerator).arg(s.denominator).arg(at(s.row, s.col));
            if (s.early)
                one = QStringLiteral("<span style='color:#d00'>%1 %2</span>").arg(one, tr("(lost: read already)"));
            sends << one;
        }
        h += tr("sends: %1").arg(sends.join(QStringLiteral(", ")));
    }
    return h + QStringLiteral("</p>");
}

QString LessonView::arithmeticText() const { return panel_->toPlainText(); }

void LessonView::play() {
    if (step_ + 1 >= stepCount()) setStep(0);
    timer_.start();
    updateStepUi();
}

void LessonView::pause() {
    timer_.stop();
    updateStepUi();
}

void LessonView::togglePlay() {
    if (playing())
        pause();
    else
        play();
}

void LessonView::stepForward() { setStep(step_ + 1); }

void LessonView::stepBack() { setStep(step_ - 1); }

void LessonView::faster() {
    const auto it = std::find(kIntervals.begin(), kIntervals.end(), timer_.interval());
    if (it != kIntervals.end() && it + 1 != kIntervals.end()) timer_.setInterval(*(it + 1));
    updateStepUi();
}

void LessonView::slower() {
    const auto it = std::find(kIntervals.begin(), kIntervals.end(), timer_.interval());
    if (it != kIntervals.end() && it != kIntervals.begin()) timer_.setInterval(*(it - 1));
    updateStepUi();
}

void LessonView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    layoutSides();
}

void LessonView::layoutSides() {
    const int w = widthSpin_->value(), h = heightSpin_->value();
    // the grids get about two thirds of a side's height (the rest: header, bars, statistics)
    const double across = std::min(sides_->width() / 2.0 / w, sides_->height() * 0.65 / h);
    const double stacked = std::min(double(sides_->width()) / w, sides_->height() / 2.0 * 0.55 / h);
    const Qt::Orientation o = stacked > across * 1.15 ? Qt::Vertical : Qt::Horizontal;
    if (sides_->orientation() != o) sides_->setOrientation(o);
}

void LessonView::keyPressEvent(QKeyEvent* e) {
    switch (e->key()) {
        case Qt::Key_Space:
            togglePlay();
            break;
        case Qt::Key_Right:
            stepForward();
            break;
        case Qt::Key_Left:
            stepBack();
            break;
        case Qt::Key_Home:
            setStep(0);
            break;
        case Qt::Key_End:
            setStep(stepCount() - 1);
            break;
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            faster();
            break;
        case Qt::Key_Minus:
            slower();
            break;
        default:
            QWidget::keyPressEvent(e);
            return;
    }
    e->accept();
}

Status LessonView::exportAnimation(const QString& path) const {
    if (!valid_) return Status::error(error_.toStdString());
    std::vector<Image> frames;
    const int cell = lessonCellSize(trace_.output.width, trace_.output.height);
    for (int s = 0; s < trace_.steps(); ++s) frames.push_back(renderLessonFrame(trace_, s, cell));
    return io::writeAnimation(path.toStdString(), frames, timer_.interval());
}

Status LessonView::exportHandout(const QString& path, int first, int last) const {
    if (!valid_) return Status::error(error_.toStdString());
    if (first < 0 || last < first || last >= trace_.steps())
        return Status::error("the handout's steps are 0 to " + std::to_string(trace_.steps() - 1));
    QPdfWriter pdf(path);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setResolution(150);
    pdf.setTitle(tr("Error diffusion under %1").arg(QString::fromStdString(trace_.schedule.name)));
    QPainter p;
    if (!p.begin(&pdf)) return Status::error(path.toStdString() + ": cannot write the PDF");
    const QRect page = p.viewport();
    for (int s = first; s <= last; ++s) {
        if (s > first) pdf.newPage();
        const QImage frame = frameImage(trace_, s, lessonCellSize(trace_.output.width, trace_.output.height));
        const QRect target(0, 0, page.width(), page.width() * frame.height() / frame.width() / 2);
        p.drawImage(QRect(target.topLeft(), frame.size().scaled(target.size(), Qt::KeepAspectRatio)), frame);
        QTextDocument doc;
        doc.setDefaultFont(QFont(font().family(), 10));
        doc.setHtml(stepHtml(s, QPoint(-1, -1)));
        doc.setTextWidth(page.width());
        p.save();
        p.translate(0, target.height() + 20);
        doc.drawContents(&p, QRectF(0, 0, page.width(), page.height() - target.height() - 20));
        p.restore();
    }
    if (!p.end()) return Status::error(path.toStdString() + ": cannot write the PDF");
    return Status::ok();
}

}  // namespace halftone
