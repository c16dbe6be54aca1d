// Prints the blue-noise tables of docs/quality.md: the radially averaged power spectrum and anisotropy (Ulichney 1988)
// of void-and-cluster arrays and of flat tints dithered with them, beside white noise and Bayer; and the temporal
// measures of the frame sequences (docs/quality.md, "Blue noise"). Built and run by scripts/bluenoise_quality.sh.
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/quality/metrics.h"
#include "core/screen/bluenoise.h"
#include "core/screen/ordered.h"
#include "core/screen/screen.h"

using namespace halftone;

namespace {

constexpr int kTints[] = {16, 32, 64, 128, 192};
constexpr double kLowFrequency = 0.15;  // cycles per pixel

/// The screen repeated to side n (Bayer 8 x 8 to the size of the blue-noise arrays).
ThresholdArray tiled(const ThresholdArray& t, int n) {
    ThresholdArray out(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) out.at(y, x) = t.at(y % t.height, x % t.width);
    return out;
}

Plane8 tint(const ThresholdArray& t, int g) {
    Plane8 src(t.width, t.height, uint8_t(g)), dst;
    (void)orderedDither(src, dst, t);
    return dst;
}

void spectrumRow(const std::string& name, const ThresholdArray& t) {
    RadialSpectrum s;
    (void)radialSpectrum(t, s);
    std::printf("| %s | %.3f / %.2f |", name.c_str(), lowFrequencyRatio(s, kLowFrequency), meanAnisotropy(s));
    for (int g : kTints) {
        (void)radialSpectrum(tint(t, g), s);
        std::printf(" %.3f / %.2f |", lowFrequencyRatio(s, kLowFrequency), meanAnisotropy(s));
    }
    std::printf("\n");
}

/// Ring powers of a dithered tint in eight bands of frequency, each divided by the pattern's variance.
void bandsRow(const std::string& name, const ThresholdArray& t, int g) {
    RadialSpectrum s;
    (void)radialSpectrum(tint(t, g), s);
    std::printf("| %s, tint %d |", name.c_str(), g);
    for (int b = 0; b < 8; ++b) {
        const double lo = 0.0625 * b, hi = lo + 0.0625;
        double sum = 0;
        int count = 0;
        for (size_t i = 0; i < s.frequency.size(); ++i)
            if (s.frequency[i] > lo && s.frequency[i] <= hi && s.samples[i] > 0) {
                sum += s.power[i] * s.samples[i];
                count += s.samples[i];
            }
        std::printf(" %.2f |", count && s.variance > 0 ? sum / count / s.variance : 0.0);
    }
    std::printf("\n");
}

/// Temporal measures of a sequence of frames dithering tint g: the mean spatial low-frequency ratio of the frames;
/// the temporal low-frequency ratio (each pixel's on/off sequence over the frames, periodogram mean removed, power at
/// the lowest quarter of the temporal frequencies over the sequence's variance; 1 for independent frames); the RMS
/// difference between the mean of 4 consecutive frames and the tint (per pixel, tint as 0..1).
void temporalRow(const std::string& name, const std::vector<ThresholdArray>& frames, int g) {
    const int T = int(frames.size()), n = frames.front().width;
    std::vector<Plane8> bits;
    double spatial = 0;
    for (const ThresholdArray& f : frames) {
        bits.push_back(tint(f, g));
        RadialSpectrum s;
        (void)radialSpectrum(bits.back(), s);
        spatial += lowFrequencyRatio(s, kLowFrequency) / T;
    }
    const int lowBins = std::max(1, T / 8);  // k = 1..T/8 of the T/2 non-zero frequencies
    double low = 0, var = 0, err4 = 0;
    int64_t windows = 0;
    for (int i = 0; i < n * n; ++i) {
        std::vector<double> v(static_cast<size_t>(T));
        double mean = 0;
        for (int z = 0; z < T; ++z) mean += (v[size_t(z)] = bits[size_t(z)].data[size_t(i)] / 255.0) / T;
        for (int z = 0; z < T; ++z) var += (v[size_t(z)] - mean) * (v[size_t(z)] - mean) / T;
        for (int k = 1; k <= lowBins; ++k) {
            std::complex<double> c = 0;
            for (int z = 0; z < T; ++z) c += (v[size_t(z)] - mean) * std::polar(1.0, -2 * M_PI * k * z / T);
            // |c|^2 / T per bin; both k and -k.
            low += 2 * std::norm(c) / T;
        }
        for (int z = 0; z < T; ++z) {
            double m = 0;
            for (int d = 0; d < 4; ++d) m += v[size_t((z + d) % T)] / 4;
            err4 += (m - g / 255.0) * (m - g / 255.0);
            ++windows;
        }
    }
    // Mean power per temporal bin over the low bins against the mean per bin over all T - 1 non-zero bins.
    const double lowRatio = var > 0 ? (low / (2 * lowBins)) / (var * T / (T - 1)) : NAN;
    char temporal[32] = "- (constant)";
    if (!std::isnan(lowRatio)) std::snprintf(temporal, sizeof temporal, "%.3f", lowRatio);
    std::printf("| %s | %d | %.3f | %s | %.3f |\n", name.c_str(), g, spatial, temporal,
                std::sqrt(err4 / double(windows)));
}

}  // namespace

int main() {
    std::printf(
        "Arrays and dithered tints: low-frequency power (below %.2f cycles/pixel) over the variance / mean "
        "anisotropy in dB (%s)\n\n",
        kLowFrequency, metricsHaveFftw() ? "FFTW3" : "built-in DFT");
    std::printf("| array | thresholds |");
    for (int g : kTints) std::printf(" tint %d |", g);
    std::printf("\n| --- | --- |");
    for (size_t i = 0; i < std::size(kTints); ++i) std::printf(" --- |");
    std::printf("\n");
    ThresholdArray bayer;
    (void)bayerScreen(8, bayer);
    for (int n : {64, 128, 256}) {
        ThresholdArray t;
        (void)screenFromSpec("blue-noise:" + std::to_string(n), t);
        spectrumRow("void-and-cluster " + std::to_string(n), t);
        ThresholdArray white(n, n);
        std::mt19937_64 rng(static_cast<uint64_t>(n));
        for (uint8_t& v : white.data) v = uint8_t(rng() % 255);
        spectrumRow("white noise " + std::to_string(n), white);
        if (n == 64) spectrumRow("Bayer 8, tiled to 64", tiled(bayer, 64));
    }
    ThresholdArray frame0;
    (void)screenFromSpec("blue-noise:64,frames=16,frame=0", frame0);
    spectrumRow("spatiotemporal 64 x 16, frame 0", frame0);

    std::printf(
        "\nRadially averaged power spectrum of dithered tints, 256 x 256 array: ring power over the variance in "
        "bands of 1/16 cycle per pixel\n\n| pattern |");
    for (int b = 0; b < 8; ++b) std::printf(" %.3f-%.3f |", 0.0625 * b, 0.0625 * (b + 1));
    std::printf("\n| --- |");
    for (int b = 0; b < 8; ++b) std::printf(" --- |");
    std::printf("\n");
    ThresholdArray big;
    (void)screenFromSpec("blue-noise:256", big);
    for (int g : {32, 64, 128}) bandsRow("void-and-cluster 256", big, g);

    std::printf(
        "\nFrame sequences of 16 frames, 64 x 64: spatial low-frequency ratio (mean over frames), temporal "
        "low-frequency ratio, RMS error of the mean of 4 consecutive frames\n\n");
    std::printf("| frames | tint | spatial | temporal | 4-frame RMS |\n| --- | --- | --- | --- | --- |\n");
    constexpr int T = 16;
    std::vector<ThresholdArray> same, offsets, independent, spatiotemporal;
    for (int z = 0; z < T; ++z) {
        ThresholdArray t;
        (void)screenFromSpec("blue-noise:64", t);
        same.push_back(t);
        // One array moved each frame by the R2 sequence's offset (the plastic number's powers), toroidally.
        const double a1 = 0.7548776662466927, a2 = 0.5698402909980532;
        const int dx = int(64 * std::fmod(0.5 + a1 * z, 1.0)), dy = int(64 * std::fmod(0.5 + a2 * z, 1.0));
        ThresholdArray moved(64, 64);
        for (int y = 0; y < 64; ++y)
            for (int x = 0; x < 64; ++x) moved.at(y, x) = t.at((y + dy) % 64, (x + dx) % 64);
        offsets.push_back(moved);
        (void)screenFromSpec("blue-noise:64,seed=" + std::to_string(z + 1), t);
        independent.push_back(t);
        (void)screenFromSpec("blue-noise:64,frames=16,frame=" + std::to_string(z), t);
        spatiotemporal.push_back(t);
    }
    for (int g : {32, 64, 128}) {
        temporalRow("one array", same, g);
        temporalRow("one array, R2 offsets", offsets, g);
        temporalRow("16 seeds", independent, g);
        temporalRow("blue-noise:64,frames=16", spatiotemporal, g);
    }
    return 0;
}
