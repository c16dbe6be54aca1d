#pragma once
// \brief The studio's command line: the options, their checks before any window opens, and what they set in the
// window once it exists.
#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QStringList>

#include "core/image.h"

namespace halftone {

class MainWindow;

/// \brief The studio's options (QCommandLineParser) and the values they were checked into.
struct StartOptions {
    StartOptions();
    /// \brief Adds every option to `cli`.
    void addTo(QCommandLineParser& cli) const;

    QCommandLineOption screenshot, tab, method, device, color, size, compare, perceived, split, palette, printPreview,
        latency, lesson;

    // Checked values (check()).
    QStringList files;
    int winW = 0, winH = 0;
    QString dev;  ///< "cpu", "gpu" or "auto"
    ColorMode colorMode = ColorMode::Gray;
    QStringList methods;  ///< what will run: --method, or the --compare list
    QStringList queue;    ///< the --compare list
    int autoColours = 0;  ///< --palette auto:N
    int latencySide = 0;  ///< --ui-latency N
};

/// \brief Checks every option before anything opens; 0 when all are good, else the exit status after a message on
/// stderr (2 for a usage error, 1 for a method that cannot run on this machine).
int checkStartOptions(const QCommandLineParser& cli, StartOptions& o);

/// \brief Sets the window as the options say (the remembered settings of an unscripted start, tab, method, device,
/// colour mode, palette, views); 0 or the exit status of a usage error.
int applyStartOptions(const QCommandLineParser& cli, const StartOptions& o, MainWindow& w);

/// \brief Prints "halftone-studio: MESSAGE" to stderr and gives the exit code for a bad command line.
int usageError(const QString& message);

}  // namespace halftone
