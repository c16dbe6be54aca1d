// Colour halftoning in the studio: the palette chooser lists the built-in palettes and puts the chosen one into the
// job; a bad palette file gives a dialog naming file and line and keeps the previous palette; editing, adding and
// removing swatches changes the palette a run gets; methods without a palette form grey the chooser; palette results
// show exact palette colours at pixel zoom and are labelled with the palette; the CMYK print preview gives the
// documented colours; the perceived view of a colour result stays in colour.
#include <QColorDialog>
#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include "core/palette/palette.h"
#include "core/palette/paletteed.h"
#include "core/print/printpreview.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"
#include "tests/studio/studioutil.h"
#include "widgets/compareview.h"
#include "widgets/imageconvert.h"
#include "widgets/imagepane.h"
#include "widgets/jobrunner.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"
#include "widgets/palettepanel.h"

using namespace halftone;

class TestStudioPalette : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::startStudioTest("test_studio_palette");
        test::registerSlowMethod();
        test::registerPaletteTestMethod();
    }
    void chooserListsBuiltins();
    void chosenPaletteGoesIntoTheRun();
    void spaceAndMatchGoIntoTheRun();
    void badFileShowsDialogAndKeepsPrevious();
    void goodFileThroughTheDialog();
    void editingSwatchesChangesTheRun();
    void swatchesFromTheKeyboard();
    void nonPaletteMethodGreysChooser();
    void autoPaletteFromImage();
    void autoPaletteFailureStopsTheRun();
    void savePaletteFile();
    void settingsSurviveRestart();
    void labelsNameThePalette();
    void cacheTellsPalettesApart();
    void paletteResultExactAtPixelZoom();
    void paletteResultSavesIndexed();
    void printPreviewOfKnownPixels();
    void printPreviewToggleInCompareView();
    void printPreviewOnDemand();
    void perceivedFlatColourStays_data();
    void perceivedFlatColourStays();
    void perceivedPaletteResultIsColour();
    void paletteStartupOption_data();
    void paletteStartupOption();
};

namespace {

Palette builtin(const char* name) {
    const BuiltinPalette* b = findBuiltinPalette(name);
    return b ? b->palette : Palette{};
}

/// A w x h RGB image of one colour.
std::shared_ptr<const Image> flatRgb(int w, int h, Rgb8 c) {
    auto im = std::make_shared<Image>();
    im->space = ColorSpace::RGB;
    for (int i = 0; i < 3; ++i) im->channels.push_back(Plane8(w, h, c[size_t(i)]));
    return im;
}

/// The dialog of type T named `name` that `panel` has open (a closed one may linger until deleted).
template <class T>
T* openDialog(QObject* panel, const char* name) {
    for (T* d : panel->findChildren<T*>(name))
        if (d->isVisible()) return d;
    return nullptr;
}

/// Picks `path` in the palette panel's open file dialog, as a user would.
void pickInFileDialog(PalettePanel& panel, const QString& path) {
    QFileDialog* dlg = nullptr;
    QTRY_VERIFY((dlg = openDialog<QFileDialog>(&panel, "paletteFileDialog")) != nullptr);
    dlg->selectFile(path);
    static_cast<QDialog*>(dlg)->accept();  // QFileDialog::accept, as the Open or Save button
}

/// The colour of each pixel of an RGB halftone.
Rgb8 pixel(const Image& im, int x, int y) {
    return {im.channels[0].at(y, x), im.channels[1].at(y, x), im.channels[2].at(y, x)};
}

}  // namespace

void TestStudioPalette::chooserListsBuiltins() {
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("zz-palette", "nearest"));
    PalettePanel* pp = panel.palettePanel();
    QComboBox* combo = pp->sourceCombo();
    QVERIFY(combo->isEnabled());
    QCOMPARE(combo->currentData().toString(), QString("none"));
    QVERIFY(!panel.palette());  // no palette by default: the colour modes as before
    QVERIFY(!builtinPalettes().empty());
    auto* model = qobject_cast<QStandardItemModel*>(combo->model());
    QVERIFY(model);
    for (const BuiltinPalette& b : builtinPalettes()) {
        const int i = combo->findData("builtin:" + QString::fromStdString(b.name));
        QVERIFY2(i >= 0, b.name.c_str());
        QVERIFY(model->item(i)->isEnabled());
        QVERIFY(!combo->itemIcon(i).isNull());  // the swatch preview
        QVERIFY(combo->itemText(i).contains(QString::number(b.palette.size())));
        QCOMPARE(combo->itemData(i, Qt::ToolTipRole).toString(), QString::fromStdString(b.description));
        // Each group has a header above its palettes, which cannot be chosen.
        int header = i - 1;
        while (header >= 0 && combo->itemData(header).isValid()) --header;
        QVERIFY(header >= 0);
        QVERIFY(!model->item(header)->isEnabled());
        QCOMPARE(combo->itemText(header), QString::fromStdString(b.group));

        combo->setCurrentIndex(i);
        QCOMPARE(pp->source(), PalettePanel::Source::Builtin);
        QVERIFY(panel.palette().has_value());
        QVERIFY(panel.palette()->colors == b.palette.colors);
        QCOMPARE(pp->swatches()->count(), b.palette.size());
    }
    QVERIFY(combo->findData("file-dialog") >= 0);
    QVERIFY(combo->findData("auto") >= 0);
    // Choosing a palette greys the colour mode (the palette sets the colours) and hides the output levels.
    QVERIFY(!panel.findChild<QComboBox*>("color")->isEnabled());
    QVERIFY(panel.setMethod("ed", "plain"));
    QVERIFY(panel.palette());
    QVERIFY(!panel.isParamShown("levels"));
    QVERIFY(pp->selectNone());
    QVERIFY(!panel.palette());
    QVERIFY(panel.findChild<QComboBox*>("color")->isEnabled());
    QVERIFY(panel.isParamShown("levels"));
}

void TestStudioPalette::chosenPaletteGoesIntoTheRun() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("zz-palette", "nearest"));
    QVERIFY(w.methodPanel()->palettePanel()->selectBuiltin("pico8"));
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(test::randomRgb(37, 23, "palette run"), "random");
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    JobResultPtr r = w.currentResult();
    QVERIFY(r && r->palette);
    QVERIFY(r->palette->colors == builtin("pico8").colors);
    QCOMPARE(r->halftone->space, ColorSpace::RGB);
    QVERIFY(r->halftone->palette == builtin("pico8").colors);  // kept for an indexed file
    QCOMPARE(r->halftone->indices.width, 37);
    for (int y = 0; y < 23; ++y)
        for (int x = 0; x < 37; ++x)
            QVERIFY(pixel(*r->halftone, x, y) == builtin("pico8").colors[r->halftone->indices.at(y, x)]);

    // The real palette error diffusion runs too, and a different palette is a different run.
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QVERIFY(w.methodPanel()->palettePanel()->selectBuiltin("cga"));
    shown.clear();
    w.runCurrent();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    r = w.currentResult();
    QVERIFY(r && r->palette && r->palette->colors == builtin("cga").colors);
    for (int y = 0; y < 23; ++y)
        for (int x = 0; x < 37; ++x) {
            const Rgb8 c = pixel(*r->halftone, x, y);
            QVERIFY(std::find(r->palette->colors.begin(), r->palette->colors.end(), c) != r->palette->colors.end());
        }
    // "No palette" runs the colour mode again.
    w.methodPanel()->palettePanel()->selectNone();
    shown.clear();
    w.runCurrent();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    QVERIFY(!w.currentResult()->palette);
    QVERIFY(w.currentResult()->halftone->palette.empty());
}

void TestStudioPalette::spaceAndMatchGoIntoTheRun() {
    // The two combo boxes under the swatches: linear light and the euclidean match by default; the run equals the
    // reference of docs/spec.md section 4 with the choices made.
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    PalettePanel* panel = w.methodPanel()->palettePanel();
    QVERIFY(panel->selectBuiltin("pico8"));
    QVERIFY(panel->spaceCombo()->isVisibleTo(panel) && panel->matchCombo()->isVisibleTo(panel));
    QCOMPARE(panel->space(), PaletteSpace::Linear);
    QCOMPARE(panel->match(), PaletteMatch::Euclidean);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    const Image im = test::randomRgb(41, 29, "palette space and match");
    w.setImage(im, "random");
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    EdParams p;
    p.linear = true;
    QVERIFY(w.currentResult()->halftone->indices == referencePaletteErrorDiffusion(im, builtin("pico8"), p));
    QSignalSpy changed(panel, &PalettePanel::changed);
    panel->spaceCombo()->setCurrentIndex(panel->spaceCombo()->findData("gamma"));
    panel->matchCombo()->setCurrentIndex(panel->matchCombo()->findData("weighted"));
    QCOMPARE(changed.count(), 2);
    QCOMPARE(panel->space(), PaletteSpace::Gamma);
    QCOMPARE(panel->match(), PaletteMatch::Weighted);
    shown.clear();
    w.runCurrent();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    p.linear = false;
    p.match = PaletteMatch::Weighted;
    QVERIFY(w.currentResult()->halftone->indices == referencePaletteErrorDiffusion(im, builtin("pico8"), p));
    // the choices survive a restart
    QTemporaryDir dir;
    const QString path = dir.filePath("studio.ini");
    {
        QSettings s(path, QSettings::IniFormat);
        w.methodPanel()->saveSettings(s);
    }
    MethodPanel again(Registry::instance());
    QSettings s(path, QSettings::IniFormat);
    again.restoreSettings(s);
    QCOMPARE(again.palettePanel()->space(), PaletteSpace::Gamma);
    QCOMPARE(again.palettePanel()->match(), PaletteMatch::Weighted);
}

void TestStudioPalette::badFileShowsDialogAndKeepsPrevious() {
    QTemporaryDir dir;
    const QString bad = dir.filePath("broken.hex");
    QVERIFY(test::writeFile(bad, "000000\nFFFFFF\nnot-a-colour\n"));
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("zz-palette", "nearest"));
    PalettePanel* pp = panel.palettePanel();
    QVERIFY(pp->selectBuiltin("gameboy"));
    const int before = pp->sourceCombo()->currentIndex();
    QSignalSpy changed(&panel, &MethodPanel::changed);
    // The user picks "From file..." and then the broken file in the dialog.
    pp->sourceCombo()->setCurrentIndex(pp->sourceCombo()->findData("file-dialog"));
    QCOMPARE(pp->sourceCombo()->currentIndex(), before);  // until a file is read, the choice stays
    pickInFileDialog(*pp, bad);
    QTRY_VERIFY(pp->errorBox() != nullptr);
    QMessageBox* box = pp->errorBox();
    QCOMPARE(box->icon(), QMessageBox::Critical);
    QVERIFY2(box->text().contains("broken.hex"), qPrintable(box->text()));
    QVERIFY2(box->text().contains("line 3"), qPrintable(box->text()));
    QVERIFY2(box->text().contains("gameboy"), qPrintable(box->text()));  // says what stays
    QCOMPARE(pp->sourceCombo()->currentIndex(), before);
    QVERIFY(panel.palette() && panel.palette()->colors == builtin("gameboy").colors);
    QCOMPARE(changed.count(), 0);
    box->close();
    QTRY_VERIFY(!pp->errorBox());

    // A cancelled dialog keeps the choice as well.
    pp->sourceCombo()->setCurrentIndex(pp->sourceCombo()->findData("file-dialog"));
    QFileDialog* dlg = nullptr;
    QTRY_VERIFY((dlg = openDialog<QFileDialog>(pp, "paletteFileDialog")) != nullptr);
    dlg->reject();
    QCOMPARE(pp->sourceCombo()->currentIndex(), before);
    QVERIFY(panel.palette()->colors == builtin("gameboy").colors);

    // loadFile called directly (as --palette does) gives the same dialog.
    QVERIFY(!pp->loadFile(dir.filePath("missing.gpl")));
    QTRY_VERIFY(pp->errorBox() != nullptr);
    QVERIFY(pp->errorBox()->text().contains("missing.gpl"));
    pp->errorBox()->close();
}

void TestStudioPalette::goodFileThroughTheDialog() {
    QTemporaryDir dir;
    const QString path = dir.filePath("three.gpl");
    QVERIFY(test::writeFile(path, "GIMP Palette\nName: three\n#\n255 0 0 red\n0 128 0 green\n0 0 255 blue\n"));
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("zz-palette", "nearest"));
    PalettePanel* pp = panel.palettePanel();
    QSignalSpy changed(&panel, &MethodPanel::changed);
    pp->sourceCombo()->setCurrentIndex(pp->sourceCombo()->findData("file-dialog"));
    pickInFileDialog(*pp, path);
    QTRY_COMPARE(pp->source(), PalettePanel::Source::File);
    QVERIFY(changed.count() > 0);
    QVERIFY(panel.palette());
    const std::vector<Rgb8> want{{255, 0, 0}, {0, 128, 0}, {0, 0, 255}};
    QVERIFY(panel.palette()->colors == want);
    QVERIFY(pp->sourceCombo()->currentText().contains("three.gpl"));
    QVERIFY(!pp->errorBox());
}

void TestStudioPalette::editingSwatchesChangesTheRun() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    MethodPanel* panel = w.methodPanel();
    QVERIFY(panel->setMethod("zz-palette", "nearest"));
    PalettePanel* pp = panel->palettePanel();
    QVERIFY(pp->selectBuiltin("bw"));
    QTRY_VERIFY(pp->swatches()->isVisible());
    // Click swatch 1 (white), pick red in the colour dialog.
    SwatchStrip* strip = pp->swatches();
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->swatchRect(1).center());
    QColorDialog* dlg = nullptr;
    QTRY_VERIFY((dlg = openDialog<QColorDialog>(pp, "swatchColorDialog")) != nullptr);
    QCOMPARE(dlg->currentColor(), QColor(255, 255, 255));
    dlg->setCurrentColor(QColor(255, 0, 0));
    static_cast<QDialog*>(dlg)->accept();  // QFileDialog::accept, as the Open or Save button
    QTRY_COMPARE(pp->source(), PalettePanel::Source::Edited);
    const std::vector<Rgb8> edited{{0, 0, 0}, {255, 0, 0}};
    QVERIFY(panel->palette() && panel->palette()->colors == edited);
    QCOMPARE(QString::fromStdString(panel->palette()->name), QString("bw (edited)"));
    QVERIFY(builtin("bw").colors != edited);  // the built-in stays as it was

    // A run gets the edited palette: a flat white image becomes red (the nearest of black and red).
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image(*flatRgb(8, 5, {255, 255, 255})), "white");
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    QVERIFY(w.currentResult()->palette->colors == edited);
    QVERIFY((pixel(*w.currentResult()->halftone, 3, 2) == Rgb8{255, 0, 0}));

    // Add a colour (the + button opens the dialog for it), then remove the first.
    pp->findChild<QToolButton*>("addColour")->click();
    QTRY_VERIFY((dlg = openDialog<QColorDialog>(pp, "swatchColorDialog")) != nullptr);
    dlg->setCurrentColor(QColor(0, 0, 255));
    static_cast<QDialog*>(dlg)->accept();  // QFileDialog::accept, as the Open or Save button
    QTRY_COMPARE(panel->palette()->size(), 3);
    QVERIFY((panel->palette()->colors[2] == Rgb8{0, 0, 255}));
    QVERIFY(pp->removeColor(0));
    const std::vector<Rgb8> after{{255, 0, 0}, {0, 0, 255}};
    QVERIFY(panel->palette()->colors == after);
    QVERIFY(!pp->removeColor(0));  // two colours at least
    QVERIFY(!pp->findChild<QToolButton*>("removeColour")->isEnabled());
    shown.clear();
    w.runCurrent();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    QVERIFY(w.currentResult()->palette->colors == after);

    // Choosing the built-in again gives its own colours; the edit stays in the list.
    QVERIFY(pp->selectBuiltin("bw"));
    QVERIFY(panel->palette()->colors == builtin("bw").colors);
    QVERIFY(pp->sourceCombo()->findData("edited") >= 0);

    // A colour dialog left open while another palette is chosen does not edit the new one.
    pp->editSwatch(0);
    QTRY_VERIFY((dlg = openDialog<QColorDialog>(pp, "swatchColorDialog")) != nullptr);
    QVERIFY(pp->selectBuiltin("gameboy"));
    dlg->setCurrentColor(QColor(1, 2, 3));
    dlg->accept();
    QCOMPARE(pp->source(), PalettePanel::Source::Builtin);
    QVERIFY(panel->palette()->colors == builtin("gameboy").colors);
}

void TestStudioPalette::swatchesFromTheKeyboard() {
    MethodPanel panel(Registry::instance());
    panel.resize(400, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.setMethod("zz-palette", "nearest"));
    PalettePanel* pp = panel.palettePanel();
    QVERIFY(pp->selectBuiltin("pico8"));
    SwatchStrip* strip = pp->swatches();
    strip->setFocus();
    QTest::keyClick(strip, Qt::Key_Home);
    QTest::keyClick(strip, Qt::Key_Right);
    QTest::keyClick(strip, Qt::Key_Right);
    QCOMPARE(strip->selected(), 2);
    QTest::keyClick(strip, Qt::Key_End);
    QTest::keyClick(strip, Qt::Key_Left);
    QCOMPARE(strip->selected(), 14);
    QTest::keyClick(strip, Qt::Key_Return);
    QColorDialog* dlg = nullptr;
    QTRY_VERIFY((dlg = openDialog<QColorDialog>(pp, "swatchColorDialog")) != nullptr);
    const Rgb8 c14 = builtin("pico8").colors[14];
    QCOMPARE(dlg->currentColor(), QColor(c14[0], c14[1], c14[2]));
    dlg->reject();
    QTRY_VERIFY(!openDialog<QColorDialog>(pp, "swatchColorDialog"));
    QCOMPARE(pp->source(), PalettePanel::Source::Builtin);  // cancelled: nothing changed
    QTest::keyClick(strip, Qt::Key_Delete);
    QCOMPARE(panel.palette()->size(), 15);
    std::vector<Rgb8> want = builtin("pico8").colors;
    want.erase(want.begin() + 14);
    QVERIFY(panel.palette()->colors == want);
}

void TestStudioPalette::nonPaletteMethodGreysChooser() {
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("zz-palette", "nearest"));
    PalettePanel* pp = panel.palettePanel();
    QVERIFY(pp->selectBuiltin("pico8"));
    QVERIFY(panel.palette());
    // A method without a palette form (the slow test method, ordered dither): greyed, with the reason.
    QVERIFY(!Registry::instance().find("zz-slow", "rows")->hasPaletteForm());
    QVERIFY(panel.setMethod("zz-slow", "rows"));
    QVERIFY(!pp->sourceCombo()->isEnabled());
    QVERIFY(!pp->isAvailable());
    QVERIFY2(pp->reasonText().contains("zz-slow/rows") && pp->reasonText().contains("zz-palette/nearest"),
             qPrintable(pp->reasonText()));
    QCOMPARE(pp->toolTip(), pp->reasonText());
    QVERIFY(pp->findChild<QLabel*>("paletteReason")->isVisibleTo(&panel));
    QVERIFY(!panel.palette());  // the run gets no palette
    QVERIFY(panel.findChild<QComboBox*>("color")->isEnabled());
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (!m.cpu || !panel.setMethod(QString::fromStdString(m.method), QString::fromStdString(m.variant))) continue;
        QCOMPARE(pp->isAvailable(), m.hasPaletteForm());
        QCOMPARE(panel.palette().has_value(), m.hasPaletteForm());
    }
    // Back on a method with a palette form, the choice is there again.
    QVERIFY(panel.setMethod("zz-palette", "nearest"));
    QVERIFY(pp->sourceCombo()->isEnabled());
    QVERIFY(panel.palette() && panel.palette()->colors == builtin("pico8").colors);
}

void TestStudioPalette::autoPaletteFromImage() {
    const Image image = test::randomRgb(64, 48, "auto palette");
    Palette want;
    QVERIFY(autoPalette(image, 5, want));

    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    MethodPanel* panel = w.methodPanel();
    QVERIFY(panel->setMethod("zz-palette", "nearest"));
    PalettePanel* pp = panel->palettePanel();
    QSignalSpy ready(pp, &PalettePanel::autoReady);
    pp->selectAuto(5);
    QVERIFY(pp->autoCount()->isVisible() || !w.isVisible());
    QVERIFY(pp->waiting());  // no image yet
    QVERIFY(!panel->palette());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(image, "random");
    // The run waits for the palette made from this image, then runs with it.
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 30000);
    QVERIFY(ready.count() > 0);
    QVERIFY(!pp->waiting());
    QVERIFY(w.currentResult()->palette);
    QVERIFY(w.currentResult()->palette->colors == want.colors);
    QCOMPARE(pp->swatches()->count(), want.size());

    // Another count makes the palette again (off the UI thread) and a change is announced.
    ready.clear();
    pp->autoCount()->setValue(3);
    QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0, 30000);
    Palette three;
    QVERIFY(autoPalette(image, 3, three));
    QVERIFY(panel->palette() && panel->palette()->colors == three.colors);
}

void TestStudioPalette::autoPaletteFailureStopsTheRun() {
    // A palette that cannot be made (here: from an empty image) is an error in a dialog, and a run then refuses
    // rather than quietly halftoning per channel.
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("zz-palette", "nearest"));
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(test::randomRgb(16, 16, "auto failure"), "random");
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    PalettePanel* pp = w.methodPanel()->palettePanel();
    QSignalSpy ready(pp, &PalettePanel::autoReady);
    pp->selectAuto(4);
    pp->setImage(std::make_shared<const Image>());
    QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0, 20000);
    QTRY_VERIFY(pp->errorBox() != nullptr);
    QVERIFY2(pp->errorBox()->text().contains("empty"), qPrintable(pp->errorBox()->text()));
    QVERIFY(pp->wantsPalette());
    QVERIFY(!pp->waiting());
    QVERIFY(!w.methodPanel()->palette());
    pp->errorBox()->close();
    QSignalSpy error(&w, &MainWindow::errorShown);
    const JobResultPtr before = w.currentResult();
    shown.clear();
    w.runCurrent();
    QCOMPARE(error.count(), 1);
    QVERIFY2(error.first().first().toString().contains("empty"), qPrintable(error.first().first().toString()));
    QTest::qWait(100);
    QCOMPARE(shown.count(), 0);
    QCOMPARE(w.currentResult().get(), before.get());
}

void TestStudioPalette::savePaletteFile() {
    QTemporaryDir dir;
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("zz-palette", "nearest"));
    PalettePanel* pp = panel.palettePanel();
    QVERIFY(pp->selectBuiltin("c64"));
    for (const QString& ext : {QString("hex"), QString("gpl")}) {
        const QString path = dir.filePath("c64." + ext);
        QVERIFY(pp->savePalette(path));
        Palette back;
        QVERIFY(loadPaletteFile(path.toStdString(), back));
        QVERIFY(back.colors == builtin("c64").colors);
    }
    // Through the dialog, as a user would.
    pp->saveButton()->click();
    QFileDialog* dlg = nullptr;
    QTRY_VERIFY((dlg = openDialog<QFileDialog>(pp, "paletteSaveDialog")) != nullptr);
    const QString viaDialog = dir.filePath("picked.gpl");
    dlg->selectFile(viaDialog);
    static_cast<QDialog*>(dlg)->accept();  // QFileDialog::accept, as the Open or Save button
    QTRY_VERIFY(QFile::exists(viaDialog));
    Palette back;
    QVERIFY(loadPaletteFile(viaDialog.toStdString(), back));
    QVERIFY(back.colors == builtin("c64").colors);
    // A folder that does not exist: a dialog, nothing written.
    QVERIFY(!pp->savePalette(dir.filePath("no/such/folder/x.hex")));
    QTRY_VERIFY(pp->errorBox() != nullptr);
    QVERIFY(pp->errorBox()->text().contains("x.hex"));
    pp->errorBox()->close();
}

void TestStudioPalette::settingsSurviveRestart() {
    QTemporaryDir dir;
    const QString path = dir.filePath("studio.ini");
    const std::vector<Rgb8> edited{{0, 0, 0}, {10, 20, 30}, {255, 255, 255}};
    {
        MethodPanel panel(Registry::instance());
        QVERIFY(panel.setMethod("zz-palette", "nearest"));
        QVERIFY(panel.palettePanel()->selectBuiltin("bw"));
        QVERIFY(panel.palettePanel()->addColor(QColor(255, 255, 255)));
        QVERIFY(panel.palettePanel()->setColor(1, QColor(10, 20, 30)));
        QVERIFY(panel.palette()->colors == edited);
        QSettings s(path, QSettings::IniFormat);
        panel.saveSettings(s);
    }
    {
        MethodPanel panel(Registry::instance());
        QSettings s(path, QSettings::IniFormat);
        panel.restoreSettings(s);
        QCOMPARE(panel.method()->id(), std::string("zz-palette/nearest"));
        QCOMPARE(panel.palettePanel()->source(), PalettePanel::Source::Edited);
        QVERIFY(panel.palette() && panel.palette()->colors == edited);
        QCOMPARE(QString::fromStdString(panel.palette()->name), QString("bw (edited)"));
        QVERIFY(panel.palettePanel()->selectBuiltin("ega"));
        QSettings s2(path, QSettings::IniFormat);
        panel.saveSettings(s2);
    }
    {
        MethodPanel panel(Registry::instance());
        QSettings s(path, QSettings::IniFormat);
        panel.restoreSettings(s);
        QVERIFY(panel.palette() && panel.palette()->colors == builtin("ega").colors);
        panel.palettePanel()->selectAuto(7);
        QSettings s2(path, QSettings::IniFormat);
        panel.saveSettings(s2);
    }
    {
        MethodPanel panel(Registry::instance());
        QSettings s(path, QSettings::IniFormat);
        panel.restoreSettings(s);
        QCOMPARE(panel.palettePanel()->source(), PalettePanel::Source::Auto);
        QCOMPARE(panel.palettePanel()->autoCount()->value(), 7);
        panel.palettePanel()->selectNone();
        QSettings s2(path, QSettings::IniFormat);
        panel.saveSettings(s2);
    }
    MethodPanel panel(Registry::instance());
    QSettings s(path, QSettings::IniFormat);
    panel.restoreSettings(s);
    QCOMPARE(panel.palettePanel()->source(), PalettePanel::Source::None);
    QVERIFY(!panel.palette());
}

void TestStudioPalette::labelsNameThePalette() {
    const MethodInfo* ed = Registry::instance().find("ed", "plain");
    QVERIFY(ed);
    const Palette pico = builtin("pico8");
    ParamValues p;
    const ResultDescription d = describeResult(*ed, p, ColorMode::Gray, Device::Cpu, &pico);
    QCOMPARE(d.shortText, QString("ed/plain, pico8, 16 colours [cpu]"));
    QVERIFY2(d.longText.contains("Palette: pico8, 16 colours: #000000 #1D2B53"), qPrintable(d.longText));
    QVERIFY(!d.longText.contains("Colour mode"));
    p.set("kernel", std::string("jarvis"));
    QCOMPARE(describeResult(*ed, p, ColorMode::RGB, std::nullopt, &pico).shortText,
             QString("ed/plain jarvis, pico8, 16 colours"));
    Palette made;
    QVERIFY(autoPalette(*flatRgb(4, 4, {200, 10, 10}), 3, made));
    QCOMPARE(paletteLabel(made), QString("auto from the image, %1 colours").arg(made.size()));
    // Without a palette the colour mode is named, as before.
    QCOMPARE(describeResult(*ed, {}, ColorMode::RGB, Device::Cpu).shortText, QString("ed/plain, RGB [cpu]"));
}

void TestStudioPalette::cacheTellsPalettesApart() {
    JobRequest a;
    a.imageId = 7;
    a.method = Registry::instance().find("zz-palette", "nearest");
    JobRequest b = a;
    b.palette = builtin("bw");
    JobRequest c = a;
    c.palette = builtin("bwr");
    Palette swapped;  // the same colours in another order: other indices
    swapped.colors = {{255, 255, 255}, {0, 0, 0}};
    JobRequest d = a;
    d.palette = swapped;
    const QStringList keys{JobRunner::cacheKey(a), JobRunner::cacheKey(b), JobRunner::cacheKey(c),
                           JobRunner::cacheKey(d)};
    QCOMPARE(QSet<QString>(keys.begin(), keys.end()).size(), 4);
    JobRequest b2 = a;
    b2.palette = builtin("bw");
    QCOMPARE(JobRunner::cacheKey(b2), JobRunner::cacheKey(b));
}

void TestStudioPalette::paletteResultExactAtPixelZoom() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QVERIFY(w.methodPanel()->palettePanel()->selectBuiltin("pico8"));
    QSignalSpy shown(&w, &MainWindow::resultShown);
    const int W = 40, H = 30;
    w.setImage(test::randomRgb(W, H, "pixel zoom"), "random");
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    const JobResultPtr r = w.currentResult();
    QVERIFY(r->palette);
    QCOMPARE(r->display.format(), QImage::Format_RGB888);
    const int zoom = 4;
    w.compareView()->viewState()->setZoom(zoom);
    w.compareView()->viewState()->setCenter(QPointF(W / 2.0, H / 2.0));
    ImagePane* pane = w.compareView()->resultPane(0);
    QVERIFY(pane->label().contains("pico8, 16 colours"));
    QTest::qWait(50);
    const QImage shot = pane->grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QPoint o = pane->imageOrigin().toPoint();
    int checked = 0;
    QSet<QRgb> seen;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            for (int dy = 0; dy < zoom; ++dy)
                for (int dx = 0; dx < zoom; ++dx) {
                    const QPoint s(o.x() + x * zoom + dx, o.y() + y * zoom + dy);
                    // Away from the pane's frame and the label box at its top.
                    if (s.x() < 5 || s.y() < 80 || s.x() >= shot.width() - 5 || s.y() >= shot.height() - 5) continue;
                    const Rgb8 want = r->palette->colors[r->halftone->indices.at(y, x)];
                    const QRgb got = shot.pixel(s);
                    QCOMPARE(qRed(got), int(want[0]));
                    QCOMPARE(qGreen(got), int(want[1]));
                    QCOMPARE(qBlue(got), int(want[2]));
                    seen.insert(got);
                    ++checked;
                }
    QCOMPARE(checked, W * H * zoom * zoom);  // the whole image was on screen, clear of the label
    QVERIFY(seen.size() > 3);
}

void TestStudioPalette::paletteResultSavesIndexed() {
    if (!io::haveOpenImageIO()) QSKIP("this build writes only PGM, PPM and PBM (built without OpenImageIO)");
    QTemporaryDir dir;
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QVERIFY(w.methodPanel()->palettePanel()->selectBuiltin("ega"));
    QSignalSpy shown(&w, &MainWindow::resultShown);
    const Image input = test::randomRgb(29, 19, "save indexed");
    w.setImage(input, "random");
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    const JobResultPtr r = w.currentResult();
    const QStringList filters = w.saveFilters();
    QVERIFY2(filters.size() == 4 && filters[0].startsWith("PNG, indexed, 16 colours") &&
                 filters[1].startsWith("TIFF, indexed") && filters[2].startsWith("GIF, indexed"),
             qPrintable(filters.join(" | ")));
    // PNG: a palette image whose colour table is the palette, in order, and whose pixels are the indices.
    const QString png = dir.filePath("out.png");
    QVERIFY(w.saveResult(png));
    QVERIFY2(w.statusBar()->currentMessage().contains("indexed: 16 palette colours"),
             qPrintable(w.statusBar()->currentMessage()));
    const QImage indexed(png);
    QCOMPARE(indexed.format(), QImage::Format_Indexed8);
    QCOMPARE(indexed.colorCount(), 16);
    for (int k = 0; k < 16; ++k) {
        const Rgb8 c = builtin("ega").colors[size_t(k)];
        QCOMPARE(indexed.color(k), qRgb(c[0], c[1], c[2]));
    }
    for (int y = 0; y < indexed.height(); ++y)
        for (int x = 0; x < indexed.width(); ++x)
            QCOMPARE(int(indexed.pixelIndex(x, y)), int(r->halftone->indices.at(y, x)));
    // GIF (Qt decodes it to 32 bits): the same colours.
    const QString gif = dir.filePath("out.gif");
    QVERIFY(w.saveResult(gif));
    QVERIFY(w.statusBar()->currentMessage().contains("indexed"));
    const QImage fromGif(gif);
    QCOMPARE(fromGif.size(), QSize(29, 19));
    for (int y = 0; y < 19; ++y)
        for (int x = 0; x < 29; ++x) {
            const Rgb8 c = pixel(*r->halftone, x, y);
            QCOMPARE(fromGif.pixel(x, y) & 0xFFFFFF, qRgb(c[0], c[1], c[2]) & 0xFFFFFF);
        }
    // TIFF: read back through the image layer, the same colours.
    const QString tif = dir.filePath("out.tif");
    QVERIFY(w.saveResult(tif));
    Image back;
    QVERIFY(io::readImage(tif.toStdString(), back));
    QCOMPARE(back.width(), 29);
    for (int y = 0; y < 19; ++y)
        for (int x = 0; x < 29; ++x) QVERIFY(pixel(back, x, y) == pixel(*r->halftone, x, y));
}

void TestStudioPalette::printPreviewOfKnownPixels() {
    // docs/studio-views.md, "Print preview": the table of solid inks and overprints on white paper.
    struct Case {
        std::array<uint8_t, 4> cmyk;
        Rgb8 rgb;
    };
    const std::vector<Case> cases{
        {{0, 0, 0, 0}, {255, 255, 255}},    // paper
        {{255, 0, 0, 0}, {0, 174, 239}},    // cyan #00AEEF
        {{0, 255, 0, 0}, {236, 0, 140}},    // magenta #EC008C
        {{0, 0, 255, 0}, {255, 242, 0}},    // yellow #FFF200
        {{0, 0, 0, 255}, {35, 31, 32}},     // black #231F20
        {{0, 255, 255, 0}, {236, 0, 0}},    // magenta + yellow
        {{255, 255, 0, 0}, {0, 0, 131}},    // cyan + magenta
        {{255, 0, 255, 0}, {0, 165, 0}},    // cyan + yellow
        {{255, 255, 255, 0}, {0, 0, 0}},    // three inks
        {{128, 0, 0, 0}, {187, 219, 247}},  // half cyan
        {{255, 255, 255, 255}, {0, 0, 0}},  // four inks
    };
    // A 2 x 2 image: cyan, magenta + yellow / black, paper; then every case as a row.
    Image im;
    im.space = ColorSpace::CMYK;
    im.channels.assign(4, Plane8(2, 2));
    const std::array<std::array<uint8_t, 4>, 4> px{{{255, 0, 0, 0}, {0, 255, 255, 0}, {0, 0, 0, 255}, {0, 0, 0, 0}}};
    for (int i = 0; i < 4; ++i)
        for (int c = 0; c < 4; ++c) im.channels[size_t(c)].at(i / 2, i % 2) = px[size_t(i)][size_t(c)];
    const Image rgb = simulatePrint(im);
    QCOMPARE(rgb.space, ColorSpace::RGB);
    QVERIFY((pixel(rgb, 0, 0) == Rgb8{0, 174, 239}));
    QVERIFY((pixel(rgb, 1, 0) == Rgb8{236, 0, 0}));
    QVERIFY((pixel(rgb, 0, 1) == Rgb8{35, 31, 32}));
    QVERIFY((pixel(rgb, 1, 1) == Rgb8{255, 255, 255}));

    Image row;
    row.space = ColorSpace::CMYK;
    row.channels.assign(4, Plane8(int(cases.size()), 1));
    for (size_t i = 0; i < cases.size(); ++i)
        for (int c = 0; c < 4; ++c) row.channels[size_t(c)].at(0, int(i)) = cases[i].cmyk[size_t(c)];
    const Image out = simulatePrint(row);
    for (size_t i = 0; i < cases.size(); ++i) {
        const Rgb8 got = pixel(out, int(i), 0);
        QVERIFY2(got == cases[i].rgb,
                 qPrintable(QString("case %1: got %2 %3 %4").arg(i).arg(got[0]).arg(got[1]).arg(got[2])));
    }
}

void TestStudioPalette::printPreviewToggleInCompareView() {
    // A CMYK run: the result carries its print preview, and the toolbar toggle shows it in the pane.
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.resize(1000, 700);
    w.show();
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QVERIFY(!w.printPreviewAction()->isEnabled());
    w.methodPanel()->setColorMode(ColorMode::CMYK);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(test::randomRgb(33, 21, "print preview"), "random");
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    const JobResultPtr r = w.currentResult();
    QCOMPARE(r->halftone->space, ColorSpace::CMYK);
    QVERIFY(!r->printPreview.isNull());
    QCOMPARE(r->printPreview, toDisplayImageCopy(simulatePrint(*r->halftone)));
    QVERIFY(r->printPreview != r->display);  // not the plain CMYK-to-RGB view
    QVERIFY(w.printPreviewAction()->isEnabled());
    ImagePane* pane = w.compareView()->resultPane(0);
    QCOMPARE(pane->image(), r->display);
    QCOMPARE(w.copyImage(), r->display);
    w.setPrintPreview(true);
    QCOMPARE(pane->image(), r->printPreview);
    QCOMPARE(w.copyImage(), r->printPreview);  // Copy takes what is shown
    QVERIFY(pane->label().contains("print preview"));
    // Perceived and print preview together: the print preview filtered, in colour.
    w.setPerceivedView(true);
    QTRY_VERIFY_WITH_TIMEOUT(!w.currentResult()->perceivedPrint.isNull(), 20000);
    QTRY_COMPARE(pane->image(), w.currentResult()->perceivedPrint);
    w.setPerceivedView(false);
    w.setPrintPreview(false);
    QCOMPARE(pane->image(), w.currentResult()->display);
    // A gray result has no print preview: the toggle greys out.
    w.methodPanel()->setColorMode(ColorMode::Gray);
    shown.clear();
    w.runCurrent();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    QVERIFY(w.currentResult()->printPreview.isNull());
    QVERIFY(!w.printPreviewAction()->isEnabled());
}

void TestStudioPalette::printPreviewOnDemand() {
    // Large results are shown without a print preview or perceived view until asked (the main window asks above
    // 4096 x 4096); asked for both at once, the views made in the background end up together on one result.
    JobRunner jobs;
    JobRequest req;
    req.image = std::make_shared<const Image>(test::randomRgb(41, 27, "print on demand"));
    req.imageId = 4242;
    req.method = Registry::instance().find("ed", "plain");
    req.color = ColorMode::CMYK;
    req.perceived = false;
    req.printPreview = false;
    QSignalSpy finished(&jobs, &JobRunner::finished);
    jobs.submit(req);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 20000);
    const JobResultPtr r = finished.first().at(1).value<JobResultPtr>();
    QVERIFY(r->printPreview.isNull() && r->perceived.isNull() && r->perceivedPrint.isNull());
    QSignalSpy ready(&jobs, &JobRunner::perceivedReady);
    jobs.computePrintPreview(r);
    jobs.computePerceived(r, req.image);
    // Whichever comes first, the perceived print preview follows.
    QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 3, 20000);
    const JobResultPtr last = ready.last().first().value<JobResultPtr>();
    QCOMPARE(last->printPreview, toDisplayImageCopy(simulatePrint(*r->halftone)));
    QVERIFY(!last->perceived.isNull());
    QVERIFY(!last->perceivedPrint.isNull());
    QCOMPARE(jobs.cached(r->key).get(), last.get());
    // Nothing to do for a result that has one, or is not CMYK.
    jobs.computePrintPreview(last);
    req.color = ColorMode::RGB;
    finished.clear();
    jobs.submit(req);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 20000);
    jobs.computePrintPreview(finished.first().at(1).value<JobResultPtr>());
    QTest::qWait(100);
    QCOMPARE(ready.count(), 3);
    jobs.waitForDone();
}

void TestStudioPalette::perceivedFlatColourStays_data() {
    test::columns<QString, bool>("method", "usePalette");
    QTest::addColumn<int>("color");  // ColorMode without a palette
    test::columns<bool, int, int, int>("linear", "r", "g", "b");
    // A flat palette colour through the nearest-colour method; pico8's red and dark blue; gamma and linear light.
    QTest::newRow("palette red") << "zz-palette/nearest" << true << 0 << false << 0xFF << 0x00 << 0x4D;
    QTest::newRow("palette dark blue") << "zz-palette/nearest" << true << 0 << false << 0x1D << 0x2B << 0x53;
    // Real palette error diffusion of a palette colour leaves no error: flat too.
    QTest::newRow("ed palette orange") << "ed/plain" << true << 0 << false << 0xFF << 0xA3 << 0x00;
    QTest::newRow("ed palette orange linear") << "ed/plain" << true << 0 << true << 0xFF << 0xA3 << 0x00;
    // Per-channel RGB of a primary: each channel flat.
    QTest::newRow("rgb red") << "ed/plain" << false << int(ColorMode::RGB) << false << 255 << 0 << 0;
    QTest::newRow("rgb cyan linear") << "ed/plain" << false << int(ColorMode::RGB) << true << 0 << 255 << 255;
}

void TestStudioPalette::perceivedFlatColourStays() {
    QFETCH(QString, method);
    QFETCH(bool, usePalette);
    QFETCH(int, color);
    QFETCH(bool, linear);
    QFETCH(int, r);
    QFETCH(int, g);
    QFETCH(int, b);
    JobRequest req;
    req.image = flatRgb(23, 17, {uint8_t(r), uint8_t(g), uint8_t(b)});
    req.method =
        Registry::instance().find(method.section('/', 0, 0).toStdString(), method.section('/', 1).toStdString());
    QVERIFY(req.method);
    if (req.method->param("linear")) req.params.set("linear", linear);
    if (usePalette) req.palette = builtin("pico8");
    req.color = ColorMode(color);
    req.perceived = true;
    JobResult out;
    QVERIFY(runJob(req, {}, out));
    QVERIFY(!out.perceived.isNull());
    const QImage p = out.perceived.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < p.height(); ++y)
        for (int x = 0; x < p.width(); ++x) QCOMPARE(p.pixel(x, y), qRgb(r, g, b));
}

void TestStudioPalette::perceivedPaletteResultIsColour() {
    // An orange no palette colour matches, halftoned to the 8 CMY primaries (red and yellow dots): seen from a
    // distance it is orange again, not a gray.
    JobRequest req;
    req.image = flatRgb(48, 48, {255, 128, 0});
    req.method = Registry::instance().find("ed", "plain");
    req.palette = builtin("cmy8");
    JobResult out;
    QVERIFY(runJob(req, {}, out));
    const QColor c = out.perceived.pixelColor(24, 24);
    QVERIFY2(c.red() > 230 && c.green() > 90 && c.green() < 170 && c.blue() < 30,
             qPrintable(QString("perceived %1").arg(c.name())));
}

void TestStudioPalette::paletteStartupOption_data() {
    test::columns<QStringList, int>("args", "exitCode");
    QTest::addColumn<QString>("message");  // in stderr; for exit 0 the screenshot must exist
    QTest::newRow("unknown name") << QStringList{"--palette", "nosuch"} << 2 << "nosuch";
    QTest::newRow("bad auto") << QStringList{"--palette", "auto:1"} << 2 << "2 to 256";
    QTest::newRow("bad file") << QStringList{"--palette", "BAD"} << 2 << "line 2";
    QTest::newRow("method without palette form") << QStringList{"--palette", "pico8", "--method", "dbs/sequential"} << 2
                                                 << "dbs/sequential cannot halftone to a palette";
    QTest::newRow("screenshot with a palette")
        << QStringList{"--palette", "pico8", "--method", "ed/plain", "--screenshot", "SHOT"} << 0 << "";
    QTest::newRow("screenshot with an auto palette and print preview")
        << QStringList{"--palette", "auto:6", "--method", "ed/plain", "--print-preview", "--screenshot", "SHOT"} << 0
        << "";
}

void TestStudioPalette::paletteStartupOption() {
#ifndef HALFTONE_STUDIO_EXE
    QSKIP("the halftone-studio executable is not part of this build");
#else
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.hex");
    QVERIFY(test::writeFile(bad, "000000\nzzzzzz\n"));
    const QString shot = dir.filePath("shot.png");
    args.replaceInStrings(QRegularExpression("^BAD$"), bad);
    args.replaceInStrings(QRegularExpression("^SHOT$"), shot);
    QString err;
    const QString problem = test::studioEndProblem(args, dir.filePath("config"), exitCode, err);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    if (exitCode == 0)
        QVERIFY(QImage(shot).width() > 0);
    else
        QVERIFY2(err.contains(message), qPrintable(err));
#endif
}

QTEST_MAIN(TestStudioPalette)
#include "test_studio_palette.moc"
