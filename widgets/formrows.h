#pragma once
// \brief Small pieces the studio's panels build their forms and messages from: labelled rows, wrapping labels, the
// non-blocking error box.
#include <QFormLayout>
#include <QLabel>
#include <QMessageBox>
#include <QString>
#include <initializer_list>
#include <utility>

namespace halftone {

/// \brief Adds one row per (label, field) to `form`; an empty label gives a row of the field alone.
void addFormRows(QFormLayout* form, std::initializer_list<std::pair<QString, QWidget*>> rows);

/// \brief A word-wrapping label named `objectName` (for tests and style sheets).
QLabel* wrappedLabel(const QString& objectName);

/// \brief A label for `buddy`: its mnemonic (the "&" letter) focuses the buddy.
QLabel* buddyLabel(const QString& text, QWidget* buddy);

/// \brief Opens a window-modal, non-blocking error box on `parent`, named `objectName`, deleted when closed; closes
/// `previous` first (one error box at a time). Background jobs, tests and scripted runs carry on while it is open.
QMessageBox* openErrorBox(QWidget* parent, const QString& title, const QString& text, const QString& objectName,
                          QMessageBox* previous);

}  // namespace halftone
