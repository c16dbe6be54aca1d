// The compare view: zoom and pan stay in sync across panes, integer zooms are pixel-exact
// (nearest neighbour, never smoothed), fit-to-window, keyboard zoom and the split mode.
#include <QtTest>

#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"
#include "widgets/compareview.h"
#include "widgets/imageconvert.h"

using namespace halftone;

namespace {

/// A binary random image: any smoothing would create values other than 0 and 255.
QImage binaryImage(int w, int h, uint64_t seed) {
    const Plane8 p = test::randomPlane(w, h, seed);
    QImage img(w, h, QImage::Format_Grayscale8);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img.scanLine(y)[x] = p.at(y, x) > 127 ? 255 : 0;
    return img;
}

}  // namespace

class TestStudioCompareView : public QObject {
    Q_OBJECT
private slots:
    void wheelZoomSyncsAllPanes();
    void dragPanSyncsAllPanes();
    void integerZoomIsPixelExact_data();
    void integerZoomIsPixelExact();
    void zoomOutAverages();
    void reductionsAreBoxMeans_data();
    void reductionsAreBoxMeans();
    void fitToWindow();
    void keyboardZoom();
    void splitMode();
    void wavefrontOverlay();
    void emptyCellMatchesPanes();
    void labelReadableAtHighZoom();
    void currentPaneMarked();
};

void TestStudioCompareView::wheelZoomSyncsAllPanes() {
    CompareView view;
    view.resize(800, 600);
    const QImage img = binaryImage(101, 67, test::freshSeed("compare wheel"));
    view.setOriginal(img, "original");
    view.setResults({{img, {}, "a"}, {img, {}, "b"}, {img, {}, "c"}});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ImagePane* r1 = view.resultPane(1);
    QVERIFY(r1);
    QTRY_VERIFY(r1->isVisible() && r1->width() > 0 && r1->height() > 0);
    const double before = view.viewState()->zoom();
    const QPointF at(r1->width() / 3.0, r1->height() / 4.0);
    const QPointF imageUnder = r1->mapToImage(at);
    QWheelEvent wheel(at, r1->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(r1, &wheel);
    QVERIFY(view.viewState()->zoom() > before);
    // The image point under the cursor stays under the cursor (to a rounding of one screen pixel).
    const QPointF after = r1->mapToImage(at);
    QVERIFY(std::abs(after.x() - imageUnder.x()) * view.viewState()->zoom() <= 1.0);
    QVERIFY(std::abs(after.y() - imageUnder.y()) * view.viewState()->zoom() <= 1.0);
    // Every pane (same size) maps the same widget point to the same image point.
    for (ImagePane* p : {view.originalPane(), view.resultPane(0), view.resultPane(2)}) {
        QCOMPARE(p->size(), r1->size());
        QCOMPARE(p->imageOrigin(), r1->imageOrigin());
    }
}

void TestStudioCompareView::dragPanSyncsAllPanes() {
    CompareView view;
    view.resize(600, 400);
    const QImage img = binaryImage(300, 200, test::freshSeed("compare pan"));
    view.setOriginal(img, "original");
    view.setResults({{img, {}, "a"}});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.viewState()->setZoom(4);
    ImagePane* r = view.resultPane(0);
    QTRY_VERIFY(r->isVisible() && r->width() > 0);
    const QPointF o0 = r->imageOrigin();
    QTest::mousePress(r, Qt::LeftButton, Qt::NoModifier, QPoint(100, 100));
    QTest::mouseMove(r, QPoint(130, 90));
    QTest::mouseRelease(r, Qt::LeftButton, Qt::NoModifier, QPoint(130, 90));
    const QPointF o1 = r->imageOrigin();
    QCOMPARE(o1 - o0, QPointF(30, -10));  // the image follows the mouse
    QCOMPARE(view.originalPane()->imageOrigin(), o1);
}

void TestStudioCompareView::integerZoomIsPixelExact_data() {
    test::intRows<3>({"zoom", "w", "h"}, {{"1x 37x23", {1, 37, 23}},
                                          {"2x 31x17", {2, 31, 17}},
                                          {"3x 13x11", {3, 13, 11}},
                                          {"7x 5x3", {7, 5, 3}},
                                          {"4x 1x1", {4, 1, 1}}});
}

void TestStudioCompareView::integerZoomIsPixelExact() {
    QFETCH(int, zoom);
    QFETCH(int, w);
    QFETCH(int, h);
    CompareView view;
    view.resize(2 * (w * zoom + 40), h * zoom + 40);
    const QImage img = binaryImage(w, h, test::freshSeed("pixel exact"));
    view.setOriginal(img, {});
    view.setResults({{img, {}, {}}});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(view.resultPane(0)->isVisible() && view.resultPane(0)->width() > 0);
    view.viewState()->setZoom(zoom);
    view.viewState()->setCenter(QPointF(w / 2.0 + 0.37, h / 2.0 - 0.21));  // a fractional centre must not blur
    ImagePane* pane = view.resultPane(0);
    const QImage shot = pane->grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QPoint o = pane->imageOrigin().toPoint();
    QCOMPARE(QPointF(o), pane->imageOrigin());  // whole screen pixels
    int checked = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int dy = 0; dy < zoom; ++dy)
                for (int dx = 0; dx < zoom; ++dx) {
                    const QPoint s(o.x() + x * zoom + dx, o.y() + y * zoom + dy);
                    if (!shot.rect().contains(s)) continue;
                    // The focus frame may cover the pane's outermost pixels.
                    if (s.x() == 0 || s.y() == 0 || s.x() == shot.width() - 1 || s.y() == shot.height() - 1) continue;
                    QCOMPARE(qGray(shot.pixel(s)), int(img.constScanLine(y)[x]));
                    ++checked;
                }
    QVERIFY(checked >= w * h * zoom * zoom / 2);
}

void TestStudioCompareView::zoomOutAverages() {
    // A 1-pixel checkerboard zoomed out must look mid-gray: nearest neighbour would show pure black or
    // white (or moire), which is not what the halftone looks like.
    QImage board(512, 512, QImage::Format_Grayscale8);
    for (int y = 0; y < 512; ++y)
        for (int x = 0; x < 512; ++x) board.scanLine(y)[x] = ((x + y) & 1) ? 255 : 0;
    CompareView view;
    view.resize(600, 600);
    view.setOriginal(board, {}, reductions(board));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (double z : {0.5, 0.3, 0.75, 0.125}) {
        view.viewState()->setZoom(z);
        ImagePane* p = view.originalPane();
        const QImage shot = p->grab().toImage();
        const QPoint c(p->width() / 2, p->height() / 2);
        for (const QPoint d : {QPoint(0, 0), QPoint(3, 1), QPoint(-5, 7), QPoint(10, -4)}) {
            const int g = qGray(shot.pixel(c + d));
            QVERIFY2(g > 80 && g < 175, qPrintable(QString("zoom %1: gray %2").arg(z).arg(g)));
        }
    }
    // The reductions are exact 2x2 means.
    const QVector<QImage> levels = reductions(board);
    QCOMPARE(levels.front().size(), QSize(256, 256));
    QCOMPARE(int(levels.front().constScanLine(10)[10]), 128);  // (0 + 255 + 255 + 0 + 2) / 4
    QCOMPARE(levels.back().width(), 64);
}

void TestStudioCompareView::reductionsAreBoxMeans_data() {
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::addColumn<bool>("rgb");
    for (bool rgb : {false, true})
        for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {1, 131}, {131, 1}, {97, 61}, {300, 257}})
            QTest::newRow(qPrintable(QString("%1x%2 %3").arg(w).arg(h).arg(rgb ? "rgb" : "gray"))) << w << h << rgb;
}

void TestStudioCompareView::reductionsAreBoxMeans() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(bool, rgb);
    const int bpp = rgb ? 3 : 1;
    const Plane8 noise = test::randomPlane(w * bpp, h, test::freshSeed("reductions"));
    QImage base(w, h, rgb ? QImage::Format_RGB888 : QImage::Format_Grayscale8);
    for (int y = 0; y < h; ++y) std::copy(noise.row(y), noise.row(y) + w * bpp, base.scanLine(y));
    const QVector<QImage> levels = reductions(base);
    // Each level from the one before: every output the rounded mean of its 2 x 2 block, an odd edge's missing
    // pixels taken as the edge pixels themselves; halved until both sides are at most 64.
    QImage prev = base;
    for (const QImage& level : levels) {
        QCOMPARE(level.format(), base.format());
        QCOMPARE(level.size(), QSize((prev.width() + 1) / 2, (prev.height() + 1) / 2));
        for (int y = 0; y < level.height(); ++y)
            for (int x = 0; x < level.width(); ++x)
                for (int c = 0; c < bpp; ++c) {
                    const int x0 = 2 * x, x1 = std::min(2 * x + 1, prev.width() - 1);
                    const uchar* r0 = prev.constScanLine(2 * y);
                    const uchar* r1 = prev.constScanLine(std::min(2 * y + 1, prev.height() - 1));
                    const int mean =
                        (r0[bpp * x0 + c] + r0[bpp * x1 + c] + r1[bpp * x0 + c] + r1[bpp * x1 + c] + 2) / 4;
                    if (level.constScanLine(y)[bpp * x + c] != mean)
                        QFAIL(qPrintable(QString("level %1 x %2: (%3, %4) channel %5 is %6, not %7")
                                             .arg(level.width())
                                             .arg(level.height())
                                             .arg(x)
                                             .arg(y)
                                             .arg(c)
                                             .arg(level.constScanLine(y)[bpp * x + c])
                                             .arg(mean)));
                }
        prev = level;
    }
    QVERIFY(prev.width() <= 64 && prev.height() <= 64);
    QCOMPARE(levels.isEmpty(), w <= 64 && h <= 64);
}

void TestStudioCompareView::fitToWindow() {
    CompareView view;
    view.resize(900, 500);
    view.setOriginal(binaryImage(100, 60, 1), {});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.fitToWindow();
    // 100 x 60 fits 8x into about 896 x 496; fit picks the largest integer zoom so it stays pixel-exact.
    const double z = view.viewState()->zoom();
    QCOMPARE(z, std::floor(z));
    QVERIFY(100 * z <= view.originalPane()->width() && 60 * z <= view.originalPane()->height());
    QVERIFY(100 * (z + 1) > view.originalPane()->width() - 4 || 60 * (z + 1) > view.originalPane()->height() - 4);
    // Larger than the window: a fractional zoom that shows the whole image.
    view.setOriginal(binaryImage(3000, 2000, 2), {});
    view.fitToWindow();
    QVERIFY(view.viewState()->zoom() < 1);
    QVERIFY(3000 * view.viewState()->zoom() <= view.originalPane()->width());
}

void TestStudioCompareView::keyboardZoom() {
    CompareView view;
    view.resize(400, 300);
    view.setOriginal(binaryImage(50, 50, 3), {});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.viewState()->setZoom(1);
    QTest::keyClick(view.originalPane(), Qt::Key_Plus);
    QCOMPARE(view.viewState()->zoom(), 2.0);
    QTest::keyClick(view.originalPane(), Qt::Key_Plus);
    QCOMPARE(view.viewState()->zoom(), 3.0);
    QTest::keyClick(view.originalPane(), Qt::Key_Minus);
    QCOMPARE(view.viewState()->zoom(), 2.0);
    QTest::keyClick(view.originalPane(), Qt::Key_0);
    QCOMPARE(view.viewState()->zoom(), 1.0);
    QTest::keyClick(view.originalPane(), Qt::Key_F);
    QVERIFY(view.viewState()->fitMode());
}

void TestStudioCompareView::splitMode() {
    CompareView view;
    view.resize(500, 300);
    QImage black(40, 30, QImage::Format_Grayscale8), white(40, 30, QImage::Format_Grayscale8);
    black.fill(0);
    white.fill(255);
    view.setOriginal(black, {});
    view.setResults({{white, {}, {}}});
    view.setSplit(true);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(view.splitPane()->isVisible() && view.splitPane()->width() > 0);
    QVERIFY(!view.originalPane()->isVisible());
    view.viewState()->setZoom(8);  // 320 x 240: covers the pane's middle
    view.splitPane()->setSplitFraction(0.5);
    const QImage shot = view.splitPane()->grab().toImage();
    const int mid = view.splitPane()->width() / 2, y = view.splitPane()->height() / 2 + 30;
    QCOMPARE(qGray(shot.pixel(mid - 20, y)), 0);    // original left of the divider
    QCOMPARE(qGray(shot.pixel(mid + 20, y)), 255);  // result right of it
    view.setSplit(false);
    QVERIFY(view.originalPane()->isVisible() && view.resultPane(0)->isVisible());
}

void TestStudioCompareView::wavefrontOverlay() {
    CompareView view;
    view.resize(300, 300);
    QImage white(20, 20, QImage::Format_Grayscale8);
    white.fill(255);
    view.setOriginal(white, {});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.viewState()->setZoom(10);
    ImagePane* p = view.originalPane();
    const QImage before = p->grab().toImage();
    view.setWavefront(5, {12, 3});
    QVERIFY(p->hasWavefront());
    const QImage after = p->grab().toImage();
    const QPoint o = p->imageOrigin().toPoint();
    const QPoint inDone = o + QPoint(150, 25);        // row 2: finished, tinted
    const QPoint notDone = o + QPoint(150, 10 * 15);  // row 15: untouched
    QVERIFY(after.pixel(inDone) != before.pixel(inDone));
    QCOMPARE(after.pixel(notDone), before.pixel(notDone));
    view.clearWavefront();
    QVERIFY(!p->hasWavefront());
}

void TestStudioCompareView::emptyCellMatchesPanes() {
    // Original + 2 results fill three cells of a 2 x 2 grid: the fourth is a pane drawn like the others.
    CompareView view;
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage img = binaryImage(40, 30, test::freshSeed("empty cell"));
    view.setOriginal(img, "original");
    view.setResults({{img, {}, "a", {}, {}}, {img, {}, "b", {}, {}}});
    QVERIFY(view.placeholderPane()->isVisible());
    QTRY_VERIFY(view.placeholderPane()->width() > 50);
    const QImage shot = view.placeholderPane()->grab().toImage();
    const QImage other = view.originalPane()->grab().toImage();
    QCOMPARE(shot.pixelColor(3, shot.height() - 3), other.pixelColor(3, other.height() - 3));  // same background
    view.setResults({{img, {}, "a", {}, {}}});
    QVERIFY(!view.placeholderPane()->isVisible());  // 2 panes: no empty cell
    view.setResults({{img, {}, "a", {}, {}}, {img, {}, "b", {}, {}}, {img, {}, "c", {}, {}}});
    QVERIFY(!view.placeholderPane()->isVisible());  // 4 panes fill the grid
}

void TestStudioCompareView::labelReadableAtHighZoom() {
    // A white image at 16x: the label box stays dark and opaque behind its white text.
    CompareView view;
    view.resize(500, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QImage white(30, 20, QImage::Format_Grayscale8);
    white.fill(255);
    view.setOriginal(white, "original: a long enough label");
    view.viewState()->setZoom(16);
    const QImage shot = view.originalPane()->grab().toImage();
    // Inside the box, left of the text: near black, whatever is under it.
    const QColor c = shot.pixelColor(6, 6);
    QVERIFY2(c.lightness() < 50, qPrintable(QString::number(c.lightness())));
}

void TestStudioCompareView::currentPaneMarked() {
    CompareView view;
    const QImage img = binaryImage(20, 10, test::freshSeed("current pane"));
    view.setOriginal(img, "original");
    ComparePane pin{img, {}, "Pin 1", {}, {}};
    pin.toolTip = "all about the pin";
    ComparePane cur{img, {}, "Current", {}, {}};
    cur.current = true;
    view.setResults({pin, cur});
    QVERIFY(!view.resultPane(0)->accent());
    QVERIFY(view.resultPane(1)->accent());
    QCOMPARE(view.resultPane(0)->toolTip(), QString("all about the pin"));
    QVERIFY(!view.originalPane()->accent());
}

QTEST_MAIN(TestStudioCompareView)
#include "test_studio_compareview.moc"
