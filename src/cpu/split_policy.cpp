#include "cpu/split_policy.hpp"

#include <algorithm>

#include "cpu/cpu_info.hpp"

namespace gemmkit::cpu {

int splitk_default_splits(const GemmDesc& d, int mr, int nr) {
  if (d.m <= 1 || d.n <= 1) return 0;
  const std::int64_t tiles = ((d.m + mr - 1) / mr) * ((d.n + nr - 1) / nr);
  const int cores = cpu_info().cores;
  if (tiles >= 4 * std::int64_t{cores} || d.k < 2048) return 0;
  return static_cast<int>(std::clamp<std::int64_t>(d.k / 1024, 2, 8));
}

bool is_gemv_shape(const GemmDesc& d) { return d.m == 1 || d.n == 1; }

}  // namespace gemmkit::cpu
