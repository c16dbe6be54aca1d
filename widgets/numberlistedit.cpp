#include "widgets/numberlistedit.h"

#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QMenu>
#include <QStringList>
#include <QToolButton>

#include "core/job/registry.h"

namespace halftone {

NumberListEdit::NumberListEdit(const ParamSpec& spec, const QString& text, QWidget* parent) : QWidget(parent) {
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(4);
    const int n = int(spec.parts.size());
    for (int i = 0; i < n; ++i) {
        const QString part = QString::fromStdString(spec.parts[size_t(i)]);
        auto* f = new QDoubleSpinBox;
        f->setObjectName(QStringLiteral("part_") + part);
        f->setRange(spec.min, spec.max);
        f->setDecimals(2);
        f->setKeyboardTracking(false);  // one change per typed number, not per digit
        tips_ << tr("%1: %2 [%3 .. %4]").arg(part, QString::fromStdString(spec.label)).arg(spec.min).arg(spec.max);
        f->setToolTip(tips_.back());
        auto* label = new QLabel(part);
        label->setBuddy(f);
        // Two parts a row keeps the dock narrow: C M / Y K.
        grid->addWidget(label, i / 2, (i % 2) * 2);
        grid->addWidget(f, i / 2, (i % 2) * 2 + 1);
        connect(f, &QDoubleSpinBox::valueChanged, this, [this] {
            if (!setting_) emit edited();
        });
        fields_ << f;
    }
    if (!spec.presets.empty()) {
        auto* sets = new QToolButton;
        sets->setObjectName(QStringLiteral("presets"));
        sets->setText(tr("Sets"));
        sets->setToolTip(tr("Named values of %1").arg(QString::fromStdString(spec.label)));
        sets->setPopupMode(QToolButton::InstantPopup);
        auto* menu = new QMenu(sets);
        for (const auto& [value, label] : spec.presets) {
            const QString v = QString::fromStdString(value);
            menu->addAction(QString::fromStdString(label), this, [this, v] {
                if (setText(v)) emit edited();
            });
        }
        sets->setMenu(menu);
        grid->addWidget(sets, (n + 1) / 2, 0, 1, 4, Qt::AlignLeft);
    }
    setText(text);
}

void NumberListEdit::setPartsUsed(const QVector<bool>& used, const QString& why) {
    for (int i = 0; i < fields_.size(); ++i) {
        const bool on = i >= used.size() || used[i];
        fields_[i]->setEnabled(on);
        fields_[i]->setToolTip(on ? tips_[i] : why);
    }
}

QString NumberListEdit::text() const {
    QStringList parts;
    for (const QDoubleSpinBox* f : fields_) parts << QString::number(f->value(), 'g', 12);
    return parts.join(QLatin1Char(','));
}

bool NumberListEdit::setText(const QString& text) {
    const QStringList items = text.split(QLatin1Char(','));
    if (items.size() != 1 && items.size() != fields_.size()) return false;
    QVector<double> values;
    for (const QString& item : items) {
        bool ok = false;
        const double v = item.trimmed().toDouble(&ok);
        if (!ok || v < fields_.front()->minimum() || v > fields_.front()->maximum()) return false;
        values << v;
    }
    setting_ = true;
    for (int i = 0; i < fields_.size(); ++i) fields_[i]->setValue(values.size() == 1 ? values.front() : values[i]);
    setting_ = false;
    return true;
}

}  // namespace halftone
