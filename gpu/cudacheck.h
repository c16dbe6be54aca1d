#pragma once
// \brief CUDA error handling and RAII owners for device buffers, pinned host memory, streams and events.
// Plain C++ over the CUDA runtime API (no kernels): used by the .cpp files and the .cu launchers.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/status.h"

namespace halftone::gpu {

/// \brief Turns a CUDA error into Status::unavailable naming the call, file and line (the caller falls back to the
/// CPU).
inline Status cudaStatus(cudaError_t e, const char* what, const char* file, int line) {
    if (e == cudaSuccess) return Status::ok();
    std::string f = file;
    if (auto p = f.find_last_of('/'); p != std::string::npos) f = f.substr(p + 1);
    return Status::unavailable(std::string("CUDA error in ") + what + " (" + f + ":" + std::to_string(line) +
                               "): " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

/// \brief Evaluates a CUDA runtime call; on failure returns Status::unavailable with file and line from the enclosing
/// function.
#define HT_CUDA(call)                                                                                \
    do {                                                                                             \
        const cudaError_t ht_cuda_err_ = (call);                                                     \
        if (ht_cuda_err_ != cudaSuccess) {                                                           \
            (void)cudaGetLastError(); /* clear sticky-free errors so later calls are not poisoned */ \
            return ::halftone::gpu::cudaStatus(ht_cuda_err_, #call, __FILE__, __LINE__);             \
        }                                                                                            \
    } while (0)

/// \brief Like HT_CUDA for a Status-returning expression: returns it when not ok.
#define HT_TRY(expr)                           \
    do {                                       \
        ::halftone::Status ht_try_s_ = (expr); \
        if (!ht_try_s_) return ht_try_s_;      \
    } while (0)

/// \brief True when `s` is the unavailable status of a device allocation that failed (cudaErrorMemoryAllocation).
inline bool isOutOfDeviceMemory(const Status& s) {
    return s.isUnavailable() && s.message().find("cudaErrorMemoryAllocation") != std::string::npos;
}

/// \brief Owns a device allocation of n elements of T.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            reset();
            p_ = std::exchange(o.p_, nullptr);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }
    ~DeviceBuffer() { reset(); }
    /// \brief Allocates n elements (old contents are freed); out of memory comes back as cudaErrorMemoryAllocation.
    cudaError_t allocate(size_t n) {
        reset();
        if (n == 0) n = 1;
        void* p = nullptr;
        const cudaError_t e = cudaMalloc(&p, n * sizeof(T));
        if (e == cudaSuccess) {
            p_ = static_cast<T*>(p);
            n_ = n;
        }
        return e;
    }
    void reset() {
        if (p_) cudaFree(p_);
        p_ = nullptr;
        n_ = 0;
    }
    T* get() const { return p_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

/// \brief Owns page-locked host memory (optionally mapped into the device address space).
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    ~PinnedBuffer() { reset(); }
    cudaError_t allocate(size_t n, bool mapped = false) {
        reset();
        if (n == 0) n = 1;
        void* p = nullptr;
        const cudaError_t e = cudaHostAlloc(&p, n * sizeof(T), mapped ? cudaHostAllocMapped : cudaHostAllocDefault);
        if (e == cudaSuccess) {
            p_ = static_cast<T*>(p);
            n_ = n;
        }
        return e;
    }
    /// \brief The device address of a mapped allocation.
    cudaError_t devicePointer(T** d) const { return cudaHostGetDevicePointer(reinterpret_cast<void**>(d), p_, 0); }
    void reset() {
        if (p_) cudaFreeHost(p_);
        p_ = nullptr;
        n_ = 0;
    }
    T* get() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

/// \brief Owns a non-blocking CUDA stream.
class Stream {
public:
    Stream() = default;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() {
        if (s_) cudaStreamDestroy(s_);
    }
    cudaError_t create() { return cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking); }
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

/// \brief Owns a CUDA event (timing enabled).
class Event {
public:
    Event() = default;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event() {
        if (e_) cudaEventDestroy(e_);
    }
    cudaError_t create() { return cudaEventCreate(&e_); }
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_ = nullptr;
};

}  // namespace halftone::gpu
