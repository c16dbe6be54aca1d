#include "widgets/formrows.h"

namespace halftone {

void addFormRows(QFormLayout* form, std::initializer_list<std::pair<QString, QWidget*>> rows) {
    for (const auto& [label, field] : rows) {
        if (label.isEmpty())
            form->addRow(field);
        else
            form->addRow(label, field);
    }
}

QLabel* wrappedLabel(const QString& objectName) {
    auto* l = new QLabel;
    l->setObjectName(objectName);
    l->setWordWrap(true);
    return l;
}

QLabel* buddyLabel(const QString& text, QWidget* buddy) {
    auto* l = new QLabel(text);
    l->setBuddy(buddy);
    return l;
}

QMessageBox* openErrorBox(QWidget* parent, const QString& title, const QString& text, const QString& objectName,
                          QMessageBox* previous) {
    if (previous) previous->close();
    auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, parent);
    box->setObjectName(objectName);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    return box;
}

}  // namespace halftone
