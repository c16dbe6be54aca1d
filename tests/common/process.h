#pragma once
// \brief Runs one of the project's executables as a process for the integration tests (Qt; not for the GPU tests).
#include <QProcess>
#include <QString>
#include <QStringList>

#include <functional>

namespace halftone::test {

/// \brief What a finished process left: its exit status, its output, and whether it crashed or ran out of time.
struct ProcessRun {
    int exitCode = -1;     ///< the exit status; -1000 - signal-ish code when it did not exit normally
    bool crashed = false;  ///< killed by a signal or by the timeout
    QString out;
    QString err;
};

/// \brief Runs `program args` to the end (at most `timeoutMs`); `inChild` runs in the child before exec
/// (resource limits, signal dispositions); `configure` sets the process up before it starts (redirections,
/// environment).
inline ProcessRun runProcess(const QString& program, const QStringList& args, int timeoutMs = 120000,
                             std::function<void()> inChild = {}, std::function<void(QProcess&)> configure = {}) {
    QProcess p;
    if (inChild) p.setChildProcessModifier(inChild);
    if (configure) configure(p);
    p.start(program, args);
    ProcessRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.crashed = true;
        r.err = "timed out";
        return r;
    }
    r.crashed = p.exitStatus() != QProcess::NormalExit;
    r.exitCode = r.crashed ? -1000 - p.exitCode() : p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

}  // namespace halftone::test
