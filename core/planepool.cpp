#include "core/planepool.h"

#include <utility>

namespace halftone {

PlanePool& PlanePool::instance() {
    static PlanePool* pool = new PlanePool;  // never destroyed: results may be released by static destructors
    return *pool;
}

void PlanePool::setLimit(uint64_t bytes) {
    std::list<Plane8> freed;  // freed outside the lock: returning 256 MiB to the system takes a while
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = bytes;
    trimLocked(limit_, freed);
}

uint64_t PlanePool::limit() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return limit_;
}

Plane8 PlanePool::take(int width, int height) {
    Plane8 out;
    if (width <= 0 || height <= 0) return out;
    const size_t n = size_t(width) * size_t(height);
    std::lock_guard<std::mutex> lock(mutex_);
    // the newest first: its pages are the likeliest to be in the cache
    for (auto it = kept_.end(); it != kept_.begin();) {
        --it;
        if (it->data.size() != n) continue;
        out = std::move(*it);
        kept_.erase(it);
        out.width = width;
        out.height = height;
        stats_.keptBytes -= n;
        --stats_.keptPlanes;
        ++stats_.taken;
        return out;
    }
    ++stats_.missed;
    return out;
}

void PlanePool::release(Plane8&& plane) {
    if (plane.data.empty()) return;
    Plane8 p = std::move(plane);
    plane = Plane8();
    std::list<Plane8> freed;
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t bytes = p.data.size();
    if (bytes > limit_) {
        ++stats_.dropped;
        freed.push_back(std::move(p));
        return;
    }
    trimLocked(limit_ - bytes, freed);
    kept_.push_back(std::move(p));
    stats_.keptBytes += bytes;
    ++stats_.keptPlanes;
    ++stats_.released;
}

void PlanePool::release(Image&& image) {
    for (Plane8& p : image.channels) release(std::move(p));
    image.channels.clear();
    release(std::move(image.alpha));
    image.hasAlpha = false;
    release(std::move(image.indices));
    image.palette.clear();
}

void PlanePool::prepare(int width, int height, int count) {
    if (width <= 0 || height <= 0) return;
    const uint64_t n = uint64_t(width) * uint64_t(height);
    for (int made = 0; made < count; ++made) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            int have = 0;
            for (const Plane8& p : kept_) have += p.data.size() == n ? 1 : 0;
            if (have >= count || uint64_t(have + 1) * n > limit_) return;
        }
        Plane8 p(width, height);  // the first touch of its pages, outside the lock
        {
            std::lock_guard<std::mutex> lock(mutex_);
            ++stats_.prepared;
        }
        release(std::move(p));
    }
}

void PlanePool::clear() {
    std::list<Plane8> freed;
    std::lock_guard<std::mutex> lock(mutex_);
    trimLocked(0, freed);
}

PlanePool::Stats PlanePool::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
}

void PlanePool::trimLocked(uint64_t limit, std::list<Plane8>& freed) {
    while (!kept_.empty() && stats_.keptBytes > limit) {
        stats_.keptBytes -= kept_.front().data.size();
        --stats_.keptPlanes;
        ++stats_.dropped;
        freed.splice(freed.end(), kept_, kept_.begin());
    }
}

std::shared_ptr<const Image> sharedPooledImage(Image&& image, PlanePool& pool) {
    return std::shared_ptr<const Image>(new Image(std::move(image)), [&pool](Image* im) {
        pool.release(std::move(*im));
        delete im;
    });
}

}  // namespace halftone
