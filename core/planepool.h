#pragma once
// \brief Output planes kept between runs: a program that drops a result hands its planes back, and the next run of
// the same size takes them instead of allocating (and first touching) a new plane.
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>

#include "core/image.h"

namespace halftone {

/// \brief A thread-safe store of released 8-bit planes, up to a byte limit, handed out by pixel count.
///
/// A new 16K x 16K plane costs more than the GPU's whole run: every one of its 256 MiB is touched for the first time
/// (page faults and zero fill). runImage takes its output planes from the process-wide pool where the method writes
/// every pixel of a dst of the right size (docs/performance.md, "The GPU from file to file and in process"); the
/// studio releases the planes of the results it no longer shows or caches (sharedPooledImage). A taken plane holds
/// the pixels of an old result until the method overwrites them all. The limit is 0 (nothing kept) until a program
/// sets one: a single run (the CLI) has nothing to reuse.
class PlanePool {
public:
    /// \brief How the pool has been used (for tests and the studio's diagnostics).
    struct Stats {
        uint64_t taken = 0;     ///< take() calls answered with a kept plane
        uint64_t missed = 0;    ///< take() calls that found none
        uint64_t released = 0;  ///< planes kept by release()
        uint64_t dropped = 0;   ///< planes freed instead: over the limit, or pushed out by newer ones
        uint64_t prepared = 0;  ///< new planes made by prepare()
        uint64_t keptBytes = 0;
        uint64_t keptPlanes = 0;
    };

    explicit PlanePool(uint64_t limitBytes = 0) : limit_(limitBytes) {}
    PlanePool(const PlanePool&) = delete;
    PlanePool& operator=(const PlanePool&) = delete;

    /// \brief The process-wide pool that runImage takes from (never destroyed, so a result released during exit
    /// still finds it).
    static PlanePool& instance();

    /// \brief Sets the most bytes kept; planes over a lower limit are freed at once, oldest first.
    void setLimit(uint64_t bytes);
    uint64_t limit() const;

    /// \brief A kept plane of width x height pixels (one released with the same pixel count, given this shape) or an
    /// empty plane when none is kept. Its pixels are an old result's: the caller must overwrite every one.
    Plane8 take(int width, int height);
    /// \brief Keeps `plane` for a later take() when it fits the limit (older planes are freed to make room), else
    /// frees it. An empty plane is ignored.
    void release(Plane8&& plane);
    /// \brief Releases every plane of `image` (channels, alpha, palette indices); `image` is left empty.
    void release(Image&& image);
    /// \brief Makes new planes of width x height until `count` of that pixel count are kept (fewer when the limit
    /// is lower), paying their first touch now: a program calls it off its critical path (the studio, in the
    /// background after a GPU run) so that the next run finds a plane while the last results are still held.
    void prepare(int width, int height, int count);
    /// \brief Frees every kept plane.
    void clear();
    Stats stats() const;

private:
    mutable std::mutex mutex_;
    uint64_t limit_;
    std::list<Plane8> kept_;  // oldest first
    Stats stats_;
    void trimLocked(uint64_t limit, std::list<Plane8>& freed);
};

/// \brief Shares `image` so that its planes go back to `pool` when the last owner drops it: a result the program
/// still shows or caches (any copy of the pointer, or a view that holds one) is never recycled.
std::shared_ptr<const Image> sharedPooledImage(Image&& image, PlanePool& pool = PlanePool::instance());

}  // namespace halftone
