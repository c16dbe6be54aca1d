// WorkerPool: every index runs once and concurrently, workers are reused across runs (no thread per
// step), concurrent callers get their own workers, and an exception reaches the caller.
#include <QtTest>

#include <atomic>
#include <barrier>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/workerpool.h"

using namespace halftone;

class TestWorkerPool : public QObject {
    Q_OBJECT
private slots:
    void everyIndexOnce() {
        for (int n : {0, 1, 2, 3, 7, 16}) {
            std::vector<std::atomic<int>> hits(size_t(std::max(n, 1)));
            WorkerPool::shared().run(n, [&](int i) { hits[size_t(i)].fetch_add(1); });
            for (int i = 0; i < n; ++i) QCOMPARE(hits[size_t(i)].load(), 1);
        }
    }

    void callsRunConcurrently() {
        // A barrier that all n calls must reach: it completes only if they run at the same time.
        const int n = 6;
        std::barrier sync(n);
        std::atomic<int> passed{0};
        WorkerPool::shared().run(n, [&](int) {
            sync.arrive_and_wait();
            passed.fetch_add(1);
        });
        QCOMPARE(passed.load(), n);
    }

    void workersAreReused() {
        WorkerPool::shared().run(5, [](int) {});
        const int before = WorkerPool::shared().started();
        QVERIFY(before >= 4);
        for (int step = 0; step < 200; ++step) WorkerPool::shared().run(5, [](int) {});
        QCOMPARE(WorkerPool::shared().started(), before);
    }

    void concurrentCallers() {
        std::atomic<int> total{0};
        std::vector<std::thread> callers;
        for (int c = 0; c < 3; ++c)
            callers.emplace_back([&] {
                for (int step = 0; step < 50; ++step) {
                    std::barrier sync(4);
                    WorkerPool::shared().run(4, [&](int) {
                        sync.arrive_and_wait();
                        total.fetch_add(1);
                    });
                }
            });
        for (auto& t : callers) t.join();
        QCOMPARE(total.load(), 3 * 50 * 4);
    }

    void exceptionReachesCaller() {
        std::atomic<int> ran{0};
        bool caught = false;
        try {
            WorkerPool::shared().run(4, [&](int i) {
                ran.fetch_add(1);
                if (i == 2) throw std::runtime_error("index 2 failed");
            });
        } catch (const std::runtime_error& e) {
            caught = QString::fromUtf8(e.what()) == QLatin1String("index 2 failed");
        }
        QVERIFY(caught);
        QCOMPARE(ran.load(), 4);  // every call finished before run() returned
        // and the pool still works afterwards
        std::atomic<int> after{0};
        WorkerPool::shared().run(4, [&](int) { after.fetch_add(1); });
        QCOMPARE(after.load(), 4);
    }
};

QTEST_GUILESS_MAIN(TestWorkerPool)
#include "test_workerpool.moc"
