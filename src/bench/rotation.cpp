#include "bench/rotation.hpp"

#include <algorithm>
#include <cstdio>

namespace gemmkit::bench {

std::string format_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) {
    b /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, b == static_cast<double>(static_cast<long long>(b)) ? "%.0f %s"
                                                                                     : "%.3g %s",
                b, unit[u]);
  return buf;
}

std::string RotationPlan::describe() const {
  const std::string llc = "LLC " + format_bytes(static_cast<double>(llc_bytes));
  switch (mode) {
    case CacheMode::Warm: return "warm (1 set, no flush)";
    case CacheMode::Flush:
      return "flush " + format_bytes(static_cast<double>(flush_bytes)) + " before each call (" +
             llc + ")";
    case CacheMode::Rotate:
      return "rotate " + std::to_string(sets) + (sets == 1 ? " set (" : " sets (") +
             format_bytes(static_cast<double>(bytes_per_set) * sets) + ", " + llc + ")";
  }
  return "?";
}

RotationPlan plan_rotation(std::int64_t bytes_per_call, std::int64_t bytes_per_set,
                           std::int64_t llc_bytes, std::int64_t budget_bytes, bool warm) {
  RotationPlan p;
  p.llc_bytes = llc_bytes;
  p.bytes_per_call = std::max<std::int64_t>(1, bytes_per_call);
  p.bytes_per_set = std::max<std::int64_t>(1, bytes_per_set);
  if (warm) {
    p.mode = CacheMode::Warm;
    return p;
  }
  const std::int64_t need = 2 * llc_bytes;
  std::int64_t sets = (need + p.bytes_per_call - 1) / p.bytes_per_call + 1;
  sets = std::clamp<std::int64_t>(sets, 2, 4096);
  if (sets * p.bytes_per_set <= budget_bytes) {
    p.sets = static_cast<int>(sets);
    return p;
  }
  if (p.bytes_per_call > need) {  // a call alone sweeps the cache more than twice
    p.sets = 1;
    return p;
  }
  p.mode = CacheMode::Flush;
  p.flush_bytes = need;
  return p;
}

}  // namespace gemmkit::bench
