// The automatic device choice (chooseDevice): the device with the smaller estimate from a method's measured costs,
// the GPU's remaining start-up and the runs sharing it; without measured costs the GPU. Runs without a device: the
// estimates are arithmetic on the costs, and the reason names what was compared.
#include <QtTest>

#include "core/job/registry.h"

using namespace halftone;

namespace {

MethodInfo withCost(double cpuNs, bool parallel, double gpuNs) {
    MethodInfo m;
    m.method = "ec";
    m.variant = "test";
    m.cost = {cpuNs, parallel, gpuNs};
    return m;
}

ParamValues threads(int n) {
    ParamValues v;
    v.set("threads", int64_t(n));
    return v;
}

constexpr double k16K = 16384.0 * 16384.0;

}  // namespace

class TestDeviceChoice : public QObject {
    Q_OBJECT
private slots:
    void unmeasuredMethodsTakeTheGpu() {
        std::string why;
        QCOMPARE(chooseDevice(withCost(0, false, 0), k16K, {}, RunRequest{}, RunControl{}, why), Device::Gpu);
        QVERIFY2(why.find("no measured costs") != std::string::npos, why.c_str());
    }
    void sequentialCpuLosesToTheGpu() {
        std::string why;
        QCOMPARE(chooseDevice(withCost(6.8, false, 0.06), k16K, threads(16), RunRequest{}, RunControl{}, why),
                 Device::Gpu);
        QVERIFY2(why.find("on 1 thread") != std::string::npos, why.c_str());
    }
    void parallelCpuOnManyThreadsCanWin() {
        std::string why;
        // 1.14 ns on one thread: 16 threads take 19.6 ms for 16K, the GPU 16.1 ms; on 8 threads the CPU takes 39 ms
        QCOMPARE(chooseDevice(withCost(1.14, true, 0.06), k16K, threads(16), RunRequest{}, RunControl{}, why),
                 Device::Gpu);
        QCOMPARE(chooseDevice(withCost(1.14, true, 0.07), k16K, threads(16), RunRequest{}, RunControl{}, why),
                 Device::Gpu);
        QCOMPARE(chooseDevice(withCost(1.14, true, 0.09), k16K, threads(16), RunRequest{}, RunControl{}, why),
                 Device::Cpu);
        QVERIFY2(why.find("auto: the CPU") != std::string::npos && why.find("16 threads") != std::string::npos,
                 why.c_str());
    }
    void runsSharingTheDeviceCount() {
        RunRequest shared;
        shared.concurrentRuns = 4;
        std::string why;
        // 4096 x 4096 on 16 threads: the CPU 1.2 ms, the GPU 1.0 ms alone and 4.0 ms when four runs share it
        QCOMPARE(
            chooseDevice(withCost(1.14, true, 0.06), 4096.0 * 4096.0, threads(16), RunRequest{}, RunControl{}, why),
            Device::Gpu);
        QCOMPARE(chooseDevice(withCost(1.14, true, 0.06), 4096.0 * 4096.0, threads(16), shared, RunControl{}, why),
                 Device::Cpu);
        QVERIFY2(why.find("4 runs sharing the device") != std::string::npos, why.c_str());
    }
};

QTEST_GUILESS_MAIN(TestDeviceChoice)
#include "test_devicechoice.moc"
