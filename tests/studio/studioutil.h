#pragma once
// \brief Helpers shared by the studio tests: the start of a test process, a slow, cancellable test method and a
// nearest-colour palette method in the registry.
#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "core/palette/paletteed.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "tests/common/process.h"
#include "tests/common/standin.h"

namespace halftone::test {

/// \brief Starts a studio test process: settings of its own (test mode, application `name`), cleared, so that a
/// window restores nothing from a user's or another test's run; the GPU methods registered as the studio does.
inline void startStudioTest(const char* name) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("HalftoneStudioTest");
    QCoreApplication::setApplicationName(name);
    QSettings().clear();
    gpu::registerMethods(Registry::instance());
}

/// \brief A smooth gray picture (a horizontal ramp with a disc of the reverse vertical ramp), so tone and size changes
/// change the halftone everywhere.
inline Image smoothImage(int w, int h) {
    Plane8 p(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int dx = x - w / 2, dy = y - h / 2;
            int v = (x * 255) / std::max(1, w - 1);
            if (dx * dx + dy * dy < (h / 3) * (h / 3)) v = 255 - (y * 255) / std::max(1, h - 1);
            p.at(y, x) = uint8_t(v);
        }
    return Image::gray(std::move(p));
}

/// \brief Rows run by the slow method so far (tests reset it).
inline std::atomic<int> g_slowRowsRun{0};

/// \brief Registers "zz-slow/rows": copies one row per 2 ms, reports the wavefront and checks the stop token per row.
inline void registerSlowMethod() {
    if (Registry::instance().find("zz-slow", "rows")) return;
    MethodInfo m = testMethodInfo("zz-slow", "rows", "copies rows slowly (test only)");
    m.cpu = [](const Plane8& src, Plane8& dst, const ParamValues&, const RunControl& rc) {
        dst = Plane8(src.width, src.height);
        for (int y = 0; y < src.height; ++y) {
            if (rc.cancelled()) return Status::cancelled();
            std::copy(src.row(y), src.row(y) + src.width, dst.row(y));
            ++g_slowRowsRun;
            Progress p;
            p.fraction = double(y + 1) / src.height;
            p.rowsDone = y + 1;
            p.frontier = {src.width / 2};
            rc.report(p);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        return Status::ok();
    };
    Registry::instance().add(m);
}

/// \brief Registers "zz-palette/nearest": each pixel becomes its nearest palette colour (docs/spec.md section 4's
/// distance, no diffusion), so a flat colour stays flat; its plane form copies the input. Studio paths are tested with
/// it independently of the real palette error diffusion.
inline void registerPaletteTestMethod() {
    if (Registry::instance().find("zz-palette", "nearest")) return;
    MethodInfo m = testMethodInfo("zz-palette", "nearest", "nearest palette colour per pixel (test only)");
    m.cpu = [](const Plane8& src, Plane8& dst, const ParamValues&, const RunControl&) {
        dst = src;
        return Status::ok();
    };
    m.paletteCpu = [](const Image& rgb, const Palette& palette, Plane8& indices, const ParamValues&,
                      const RunControl&) {
        const PaletteTargets t(palette, false, PaletteMatch::Weighted);
        indices = Plane8(rgb.width(), rgb.height());
        for (int y = 0; y < rgb.height(); ++y)
            for (int x = 0; x < rgb.width(); ++x)
                indices.at(y, x) =
                    uint8_t(t.nearest(t.input[rgb.channels[0].at(y, x)], t.input[rgb.channels[1].at(y, x)],
                                      t.input[rgb.channels[2].at(y, x)]));
        return Status::ok();
    };
    Registry::instance().add(m);
}

#ifdef HALFTONE_STUDIO_EXE
/// \brief Runs the studio executable with `args` offscreen, its settings under `configHome` (never the user's), for
/// at most 90 s.
inline ProcessRun runStudio(const QStringList& args, const QString& configHome) {
    return runProcess(HALFTONE_STUDIO_EXE, args, 90000, {}, [&](QProcess& p) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("XDG_CONFIG_HOME", configHome);
        p.setProcessEnvironment(env);
    });
}

/// \brief runStudio, then how it ended: empty when it exited normally with `exitCode`, otherwise what it did instead
/// (with its stderr). `err` receives its stderr.
inline QString studioEndProblem(const QStringList& args, const QString& configHome, int exitCode, QString& err) {
    const ProcessRun r = runStudio(args, configHome);
    err = r.err;
    if (r.crashed) return "halftone-studio " + args.join(' ') + " crashed or did not end within 90 s: " + r.err;
    if (r.exitCode != exitCode)
        return QString("exit %1, expected %2; stderr: %3").arg(r.exitCode).arg(exitCode).arg(r.err);
    return {};
}
#endif

}  // namespace halftone::test
