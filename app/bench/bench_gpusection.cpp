// Section "gpu": device-resident timings (CUDA events) of the registered GPU error-diffusion methods, by
// runGpuBench (bench_gpu.cpp): the wavefront kernel against the published GPU methods of Kasagi, Nakano and Ito and
// of Deshpande, Misra and Narayanan. The list comes from the registry (entries with a GPU implementation that the
// GPU module's timers know); the registry's PlaneFunction cannot report device-resident time, so the timers are
// the GPU module's own. Sizes: --sizes plus the first --big side; the full table also goes to <workdir>/gpu-ed.md.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "app/bench/bench.h"
#include "app/bench/bench_gpu.h"
#include "gpu/gpu.h"

namespace halftone::bench {

int benchGpu(const BenchContext& c) {
    GpuBenchOptions o;
    o.sizes = c.sizes;
    if (!c.bigSizes.empty() && std::find(o.sizes.begin(), o.sizes.end(), c.bigSizes.front()) == o.sizes.end())
        o.sizes.push_back(c.bigSizes.front());
    o.markdownPath = c.workDir + "/gpu-ed.md";
    if (c.runs > 0 && !c.runsDefault) o.runs = c.runs;
    const std::vector<const MethodInfo*> methods =
        methodsFor(c, DeviceChoice::Gpu, [](const MethodInfo& m) { return m.family == "error-diffusion" && m.gpu; });
    std::vector<std::string> untimed;
    for (const MethodInfo* m : methods) {
        if (!m->gpu) continue;
        bool known = false;
        for (const gpu::MethodSpec& s : gpu::methods())
            if (s.method == m->method && s.variant == m->variant) known = true;
        if (known)
            o.methods.push_back(m->variant);
        else
            untimed.push_back(m->id());
    }
    std::printf("\n== gpu: device-resident timings of %zu registered GPU method(s) (%s) ==\n", o.methods.size(),
                utcNow().c_str());
    if (!untimed.empty()) {
        std::string list;
        for (const std::string& id : untimed) list += (list.empty() ? "" : ", ") + id;
        std::printf(
            "(%s: the same kernels as the methods below or without a device-resident timer; "
            "`--sections sizes --device gpu` times them end to end)\n",
            list.c_str());
    }
    if (o.methods.empty()) {
        std::printf("(no picked method has a GPU implementation with a device-resident timer)\n");
        return 0;
    }
    std::fflush(stdout);
    const int rc = runGpuBench(o, std::cout);
    std::cout << std::flush;
    return rc == 77 ? 0 : rc;  // 77: no usable GPU, the reason is printed
}

}  // namespace halftone::bench
