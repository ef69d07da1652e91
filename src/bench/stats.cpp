#include "bench/stats.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace gemmkit::bench {

double median_of(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + h, v.end());
  const double hi = v[h];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + h);
  return 0.5 * (lo + hi);
}

Stats summarize(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  s.n = static_cast<std::int64_t>(samples.size());
  s.min = *std::min_element(samples.begin(), samples.end());
  s.max = *std::max_element(samples.begin(), samples.end());
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  s.median = median_of(std::move(samples));
  return s;
}

}  // namespace gemmkit::bench
