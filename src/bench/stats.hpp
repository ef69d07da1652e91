// Summary statistics of timed samples and the host steady-clock timer.
#pragma once
#include <chrono>
#include <cstdint>
#include <vector>

namespace gemmkit::bench {

struct Stats {
  double median = 0, min = 0, max = 0, mean = 0;
  std::int64_t n = 0;  // samples; 0 = nothing was timed
};

// Median (mean of the two middle values for an even count), min, max, mean. Empty -> n = 0.
Stats summarize(std::vector<double> samples);
double median_of(std::vector<double> v);  // NaN for an empty vector

// Host wall time on the steady clock, in milliseconds.
class HostTimer {
 public:
  HostTimer() : t0_(std::chrono::steady_clock::now()) {}
  void restart() { t0_ = std::chrono::steady_clock::now(); }
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace gemmkit::bench
