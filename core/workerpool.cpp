#include "core/workerpool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace halftone {

struct WorkerPool::Worker {
    std::mutex m;
    std::condition_variable cv;
    std::function<void()> task;  // empty while idle; moved out before it runs
    bool stop = false;
    std::thread thread;

    void loop() {
        for (;;) {
            std::function<void()> job;
            {
                std::unique_lock lock(m);
                cv.wait(lock, [this] { return stop || task; });
                if (!task) return;  // stop, nothing left to do
                job = std::move(task);
                task = nullptr;
            }
            job();
        }
    }
    void post(std::function<void()> job) {
        {
            std::lock_guard lock(m);
            task = std::move(job);
        }
        cv.notify_one();
    }
};

struct WorkerPool::State {
    mutable std::mutex m;
    std::vector<std::unique_ptr<Worker>> all;
    std::vector<Worker*> idle;
};

WorkerPool::WorkerPool() : state_(new State) {}

WorkerPool& WorkerPool::shared() {
    static WorkerPool pool;
    return pool;
}

WorkerPool::~WorkerPool() {
    for (auto& w : state_->all) {
        {
            std::lock_guard lock(w->m);
            w->stop = true;
        }
        w->cv.notify_one();
    }
    for (auto& w : state_->all)
        if (w->thread.joinable()) w->thread.join();
    delete state_;
}

int WorkerPool::started() const {
    std::lock_guard lock(state_->m);
    return int(state_->all.size());
}

void WorkerPool::run(int n, const std::function<void(int)>& fn) {
    if (n <= 0) return;
    if (n == 1) {
        fn(0);
        return;
    }
    std::vector<Worker*> mine;
    mine.reserve(size_t(n - 1));
    {
        std::lock_guard lock(state_->m);
        while (int(mine.size()) < n - 1) {
            if (!state_->idle.empty()) {
                mine.push_back(state_->idle.back());
                state_->idle.pop_back();
            } else {
                auto w = std::make_unique<Worker>();
                Worker* raw = w.get();
                raw->thread = std::thread([raw] { raw->loop(); });
                state_->all.push_back(std::move(w));
                mine.push_back(raw);
            }
        }
    }
    // Completion under one mutex: the last worker notifies while holding it, so this frame (and the
    // condition variable) cannot go away before that worker has let go of it.
    std::mutex doneMutex;
    std::condition_variable doneCv;
    int pending = n - 1;
    std::mutex errorMutex;
    std::exception_ptr error;
    auto guarded = [&](int i) {
        try {
            fn(i);
        } catch (...) {
            std::lock_guard lock(errorMutex);
            if (!error) error = std::current_exception();
        }
    };
    for (int i = 1; i < n; ++i)
        mine[size_t(i - 1)]->post([&guarded, &doneMutex, &doneCv, &pending, i] {
            guarded(i);
            std::lock_guard lock(doneMutex);
            if (--pending == 0) doneCv.notify_all();
        });
    guarded(0);
    {
        std::unique_lock lock(doneMutex);
        doneCv.wait(lock, [&pending] { return pending == 0; });
    }
    {
        std::lock_guard lock(state_->m);
        for (Worker* w : mine) state_->idle.push_back(w);
    }
    if (error) std::rethrow_exception(error);
}

bool parallelChunks(int64_t count, int64_t chunk, int threads, const RunControl& control, const std::string& stage,
                    const std::function<void(int64_t begin, int64_t end, int worker)>& fn) {
    if (count <= 0) return !control.cancelled();
    const int64_t pieces = (count + chunk - 1) / chunk;
    std::atomic<int64_t> next{0}, done{0};
    std::atomic<bool> stopped{false};
    WorkerPool::shared().run(int(std::clamp<int64_t>(threads, 1, pieces)), [&](int worker) {
        for (int64_t piece = next++; piece < pieces; piece = next++) {
            if (stopped.load(std::memory_order_relaxed) || control.cancelled()) {
                stopped = true;
                return;
            }
            fn(piece * chunk, std::min(count, (piece + 1) * chunk), worker);
            const int64_t finished = ++done;
            if (worker == 0) control.report(double(finished) / double(pieces), stage);
        }
    });
    return !stopped && !control.cancelled();
}

}  // namespace halftone
