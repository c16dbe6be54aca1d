#pragma once
// \brief The compare view: the original and up to four results side by side or as a split slider.
#include <QImage>
#include <QVector>
#include <QWidget>

#include "widgets/imagepane.h"
#include "widgets/viewstate.h"

class QGridLayout;

namespace halftone {

/// \brief What one result pane shows: the halftone, its HVS-filtered "perceived" version (may be null) and a label.
struct ComparePane {
    QImage display;
    QImage perceived;
    QString label;
    QVector<QImage> displayLevels{}, perceivedLevels{};  ///< reductions() of each, for zooms below 1
    QString toolTip{};     ///< everything about the result (all parameters), shown on hover
    bool current = false;  ///< the latest result (drawn with an accent frame), as opposed to a pin
    /// CMYK results: the print preview (process inks on white paper) and its perceived view; null for the others and
    /// while they are being made.
    QImage printPreview{}, perceivedPrint{};
    bool printable = false;  ///< a CMYK result, which has a print preview (made or being made)
    QVector<QImage> printPreviewLevels{}, perceivedPrintLevels{};
    /// Results for a target: the simulated panel (the result in the colours the device shows) and its perceived view;
    /// null for the others. `panelName` names the device.
    QImage panel{}, perceivedPanel{};
    QVector<QImage> panelLevels{}, perceivedPanelLevels{};
    QString panelName{};
};

/// \brief Original + up to four result panes with one shared ViewState (synchronised zoom and pan).
class CompareView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxResults = 4;
    explicit CompareView(QWidget* parent = nullptr);

    ViewState* viewState() const { return view_; }
    void setOriginal(const QImage& image, const QString& label, const QVector<QImage>& levels = {});
    /// \brief Shows these results (at most kMaxResults are used).
    void setResults(const QVector<ComparePane>& results);
    int resultCount() const { return results_.size(); }
    void setPerceived(bool on);
    bool perceived() const { return perceived_; }
    /// \brief Print preview: CMYK results are shown as printed with process inks on white paper
    /// (core/print/printpreview.h) instead of the plain CMYK-to-RGB view; other results are unchanged.
    void setPrintPreview(bool on);
    bool printPreview() const { return printPreview_; }
    /// \brief Whether any result on show has a print preview (is CMYK).
    bool hasPrintPreview() const;
    /// \brief Simulated panel: results made for a target are shown in the colours the device shows (measured or
    /// published, core/palette/panel.h) instead of the colours written for its driver; other results are unchanged.
    void setPanel(bool on);
    bool panel() const { return panel_; }
    /// \brief Whether any result on show has a simulated panel (was made for a target).
    bool hasPanel() const;
    /// \brief Split mode: one pane, original left of the divider, result `index` right of it.
    void setSplit(bool on);
    bool split() const { return split_; }
    void setSplitResult(int index);

    ImagePane* originalPane() const { return panes_.front(); }
    ImagePane* resultPane(int i) const { return panes_.value(i + 1); }
    ImagePane* splitPane() const { return splitPane_; }
    /// \brief The pane that fills an otherwise empty grid cell (hidden when the grid is full).
    ImagePane* placeholderPane() const { return placeholder_; }

    void setWavefront(qint64 rowsDone, const QVector<int>& frontier);
    void clearWavefront();

public slots:
    void fitToWindow();
    void actualSize();

protected:
    void resizeEvent(QResizeEvent*) override;

private:
    void relayout();
    ViewState* view_;
    QGridLayout* grid_;
    QVector<ImagePane*> panes_;  // [0] = original, [1..4] = results
    ImagePane* splitPane_;
    ImagePane* placeholder_;
    QVector<ComparePane> results_;
    QImage original_;
    QVector<QImage> originalLevels_;
    QString originalLabel_;
    bool perceived_ = false, split_ = false, printPreview_ = false, panel_ = false;
    int splitIndex_ = 0;
};

}  // namespace halftone
