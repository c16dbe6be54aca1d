// Stand-alone driver of the GPU bench section (`bench_gpu`), for the GPU machine (no Qt, no image I/O there):
// bench_gpu [--sizes 1024,2048] [--runs N] [--methods a,b] [--shapes fast,general] [--diagnose [--diagnose-heights
// 64,..]]
//           [--no-shapes] [--kernels zhou-fang,jarvis | --no-kernels] [--palette 16,256 | --no-palette] [--no-verify]
//           [--md FILE]
// (--shapes names forms of the wavefront kernel; gpu::wavefrontForms() lists them; --kernels the other kernels the
// wavefront also runs, zhou-fang by default; --palette the palette sizes of the palette rows, 16 by
// default; --methods palette runs only those).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include "app/bench/bench_gpu.h"

int main(int argc, char** argv) {
    halftone::bench::GpuBenchOptions o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--sizes" && i + 1 < argc) {
            o.sizes.clear();
            std::stringstream ss(argv[++i]);
            std::string item;
            while (std::getline(ss, item, ',')) o.sizes.push_back(std::atoi(item.c_str()));
        } else if (a == "--runs" && i + 1 < argc) {
            o.runs = std::atoi(argv[++i]);
        } else if (a == "--methods" && i + 1 < argc) {
            std::stringstream ss(argv[++i]);
            std::string item;
            while (std::getline(ss, item, ',')) o.methods.push_back(item);
        } else if (a == "--shapes" && i + 1 < argc) {
            std::stringstream ss(argv[++i]);
            std::string item;
            while (std::getline(ss, item, ',')) o.formFilter.push_back(item);
        } else if (a == "--diagnose-heights" && i + 1 < argc) {
            o.diagnoseHeights.clear();
            std::stringstream ss(argv[++i]);
            std::string item;
            while (std::getline(ss, item, ',')) o.diagnoseHeights.push_back(std::atoi(item.c_str()));
        } else if (a == "--kernels" && i + 1 < argc) {
            o.kernels.clear();
            std::stringstream ss(argv[++i]);
            std::string item;
            while (std::getline(ss, item, ',')) o.kernels.push_back(item);
        } else if (a == "--no-kernels") {
            o.kernels.clear();
        } else if (a == "--palette" && i + 1 < argc) {
            o.paletteColors.clear();
            std::stringstream ss(argv[++i]);
            std::string item;
            while (std::getline(ss, item, ',')) o.paletteColors.push_back(std::atoi(item.c_str()));
        } else if (a == "--no-palette") {
            o.paletteColors.clear();
        } else if (a == "--no-shapes") {
            o.forms = false;
        } else if (a == "--diagnose") {
            o.diagnose = true;
        } else if (a == "--no-verify") {
            o.verify = false;
        } else if (a == "--md" && i + 1 < argc) {
            o.markdownPath = argv[++i];
        } else {
            std::fprintf(stderr,
                         "usage: %s [--sizes 1024,2048,...] [--runs N] [--methods a,b] [--shapes fast,general] "
                         "[--diagnose [--diagnose-heights 64,..]] [--no-shapes] [--kernels a,b | --no-kernels] "
                         "[--palette 16,256 | --no-palette] [--no-verify] [--md FILE]\n",
                         argv[0]);
            return 2;
        }
    }
    return halftone::bench::runGpuBench(o, std::cout);
}
