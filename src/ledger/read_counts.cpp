// Logical read counts: the formula and a literal walk of the tiled loop nest.
#include "ledger/read_counts.hpp"

#include <algorithm>

namespace gemmkit::ledger {

ReadCounts logical_reads(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tile_m,
                         std::int64_t tile_n) noexcept {
  tile_m = std::max<std::int64_t>(1, tile_m);
  tile_n = std::max<std::int64_t>(1, tile_n);
  ReadCounts r;
  r.reads_a = m * k * ((n + tile_n - 1) / tile_n);
  r.reads_b = k * n * ((m + tile_m - 1) / tile_m);
  r.reads = r.reads_a + r.reads_b;
  r.writes = m * n;
  return r;
}

ReadCounts logical_reads_by_walking(std::int64_t m, std::int64_t n, std::int64_t k,
                                    std::int64_t tile_m, std::int64_t tile_n,
                                    std::int64_t tile_k) noexcept {
  ReadCounts r;
  for (std::int64_t i0 = 0; i0 < m; i0 += tile_m)
    for (std::int64_t j0 = 0; j0 < n; j0 += tile_n) {
      const std::int64_t rows = std::min(tile_m, m - i0), cols = std::min(tile_n, n - j0);
      for (std::int64_t k0 = 0; k0 < k; k0 += tile_k) {
        const std::int64_t depth = std::min(tile_k, k - k0);
        r.reads_a += rows * depth;  // load A_tile(rows, depth)
        r.reads_b += depth * cols;  // load B_tile(depth, cols)
      }
      r.writes += rows * cols;  // store the output tile once
    }
  r.reads = r.reads_a + r.reads_b;
  return r;
}

}  // namespace gemmkit::ledger
