// Loading the OpenImageIO module on first need (dlopen), once per process.
#include "io/oiiomodule.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace halftone::io::detail {

namespace {

struct Loaded {
    const OiioModuleApi* api = nullptr;
    std::string error;
};

/// The directory of the running executable ("" when /proc is not mounted).
std::string executableDir() {
    std::vector<char> buf(4096);
    const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    if (n <= 0) return {};
    std::string exe(buf.data(), size_t(n));
    const size_t slash = exe.rfind('/');
    return slash == std::string::npos ? std::string() : exe.substr(0, slash);
}

Loaded load() {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("HALFTONE_IO_MODULE"); env && *env) {
        candidates.push_back(env);
    } else {
        if (const std::string dir = executableDir(); !dir.empty())
            candidates.push_back(dir + "/" HALFTONE_IO_MODULE_RELDIR "/" + kOiioModuleFile);
        candidates.push_back(std::string(HALFTONE_IO_MODULE_BUILDDIR "/") + kOiioModuleFile);
    }
    std::string tried;
    for (const std::string& path : candidates) {
        void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        std::string why;
        if (!handle) {
            const char* e = ::dlerror();
            why = e ? e : "cannot be loaded";
            if (::access(path.c_str(), F_OK) != 0) why = "no such file";
        } else if (auto entry = reinterpret_cast<const OiioModuleApi* (*)()>(::dlsym(handle, kOiioModuleEntry));
                   !entry) {
            why = std::string("no entry point ") + kOiioModuleEntry;
        } else if (const OiioModuleApi* api = entry();
                   !api || api->version != kOiioModuleVersion || api->imageSize != sizeof(Image)) {
            why = "built for another version of this program";
        } else {
            return Loaded{api, {}};  // stays loaded for the life of the process
        }
        if (handle) ::dlclose(handle);
        tried += (tried.empty() ? "" : "; ") + path + ": " + why;
    }
    return Loaded{nullptr, "this format needs the OpenImageIO module " + std::string(kOiioModuleFile) +
                               ", which could not be loaded (" + tried +
                               "); binary PGM, PPM and PBM files work without it; reinstall the package or set "
                               "HALFTONE_IO_MODULE to the module's path"};
}

}  // namespace

std::atomic<double> g_loadSeconds{0};

Status oiioModule(const OiioModuleApi*& api) {
    static const Loaded loaded = [] {
        const auto start = std::chrono::steady_clock::now();
        Loaded l = load();
        g_loadSeconds.store(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return l;
    }();
    api = loaded.api;
    return api ? Status::ok() : Status::error(loaded.error);
}

double oiioModuleLoadSeconds() { return g_loadSeconds.load(); }

}  // namespace halftone::io::detail
