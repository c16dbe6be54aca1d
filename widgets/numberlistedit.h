#pragma once
// \brief One number field per named part of a Text parameter that is a list of numbers (ParamSpec::parts: the AM
// screen's ink angles C, M, Y, K), with the parameter's named values a click away.
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <string>
#include <utility>
#include <vector>

class QDoubleSpinBox;
class QToolButton;

namespace halftone {

struct ParamSpec;

/// \brief Edits "15,75,0,45" as four fields; the text is the fields' values joined by commas (shortest form).
class NumberListEdit : public QWidget {
    Q_OBJECT
public:
    /// \brief Fields for `spec`'s parts, each in [spec.min, spec.max] with two decimals, set to `text`.
    explicit NumberListEdit(const ParamSpec& spec, const QString& text, QWidget* parent = nullptr);
    /// \brief The fields' values joined by commas: "22.5,75,0,45".
    QString text() const;
    /// \brief Sets the fields from a list of one number per part, or one number for every part; false (nothing
    /// changed) when the text is not such a list or a number lies outside the fields' range.
    bool setText(const QString& text);
    /// \brief The field of part `i` (tests).
    QDoubleSpinBox* field(int i) const { return fields_.value(i); }
    int partCount() const { return int(fields_.size()); }
    /// \brief Enables the parts a run uses (`used[i]` for part i) and says of the others that this run does not use
    /// them; their values stay in the text.
    void setPartsUsed(const QVector<bool>& used, const QString& why);

signals:
    /// \brief A field was edited, or a named value chosen (not emitted by setText).
    void edited();

private:
    QVector<QDoubleSpinBox*> fields_;
    QStringList tips_;  // each field's tooltip while its part is used
    bool setting_ = false;
};

}  // namespace halftone
