// Which register tile and which orientation a problem takes (gemm_driver.hpp's oriented, the
// ISA entries in gemm_isa_entries.hpp); no ISA code here.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/view.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::cpu {

// True when D^T = B^T A^T (M and N swapped) suits an MR x NR tile better than (M, N): the
// orientation that pads fewer output elements to whole tiles (M = 16 against MR = 12 and
// NR = 32 wants M on the MR side), and on a near tie (within 15%) the one where D's unit stride
// runs along N, so full tiles store from registers. unit_keep: D's N stride is 1; unit_swap:
// its M stride is.
inline bool swaps_roles(std::int64_t m, std::int64_t n, bool unit_keep, bool unit_swap, int mr,
                        int nr) {
  auto padded = [&](std::int64_t rows, std::int64_t cols) {
    return double((rows + mr - 1) / mr * mr) * double((cols + nr - 1) / nr * nr);
  };
  const double keep = padded(m, n), swap = padded(n, m);
  // Strided write-back costs some 10% of a K block, so padding must save more than that.
  if (swap < 0.85 * keep) return true;
  if (keep < 0.85 * swap) return false;
  return !unit_keep && unit_swap;
}

// True when a problem takes the small-M tile (small_mr x small_nr) instead of the main one
// (mr rows): a short side of 17..64 that the small tile pads less (64 rows: 16 tiles of 4,
// where tiles of 6 leave a 4-row edge on every column panel), and that the small tile's
// orientation puts on its row side. Never under batch invariance (the tile would then depend
// on M). Up to 16 rows the main tile and the streaming paths stay; 17..64 is where the small
// tile was measured.
inline bool small_m_tile_applies(const GemmDesc& d, bool batch_invariant, int small_mr,
                                 int small_nr, int mr) {
  const std::int64_t s = std::min(d.m, d.n);
  auto pad = [s](int r) { return (s + r - 1) / r * r; };
  if (batch_invariant || s < 17 || s > 64 || pad(small_mr) >= pad(mr)) return false;
  const core::Strides sd = core::make_view(d).d;
  const bool swap = swaps_roles(d.m, d.n, sd.col == 1, sd.row == 1, small_mr, small_nr);
  return (swap ? d.n : d.m) == s;
}

}  // namespace gemmkit::cpu
