// Ascend / CATLASS tiling constraints: the Common template's L1 / L0A / L0B /
// L0C capacity rules, its read and write volumes, and the block swizzle choice. Modelled only:
// there is no Ascend hardware here, and every result says so.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gemmkit/gemm.hpp"
#include "ledger/machine.hpp"
#include "ledger/tile_ledger.hpp"

namespace gemmkit::ledger {

// L1 tile m1 x n1 x k1 (GM -> L1), L0 tile m0 x n0 x k0 (L1 -> L0A/L0B, L0C -> GM).
struct AscendTile {
  std::int64_t m1 = 128, n1 = 256, k1 = 256;
  std::int64_t m0 = 128, n0 = 256, k0 = 64;
  int l1_stages = 2, l0a_stages = 2, l0b_stages = 2, l0c_stages = 1;
  double in_bytes = 2;   // fp16 inputs
  double acc_bytes = 4;  // fp32 accumulation in L0C
  int split_k = 1;       // MultiCoreSplitK: K cut into split_k pieces across AI cores
};

// From an L1 tile m1 x n1 x k1: m0 = m1, n0 = n1, k0 = k1 / 4 (CATLASS's recommendation).
AscendTile ascend_tile_from(const TileConfig& t, std::int64_t k0 = 0);

struct AscendSwizzle {
  int offset = 3;     // SwizzleOffset
  int direction = 0;  // 0: along M (M >= N), 1: along N (M < N)
};
// CATLASS 04_matmul_summary / matmul_fast_tuning: M >= N -> <3, 0>; M < N -> <3, 1>.
AscendSwizzle ascend_swizzle(std::int64_t m, std::int64_t n) noexcept;

struct AscendLedger {
  std::int64_t l1_bytes = 0, l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0;
  std::vector<ConstraintRow> constraints;  // L1, L0A, L0B, L0C, m0 = m1, n0 = n1
  bool fits = true;
  std::int64_t blocks = 0;  // MN / (m1 n1) basic blocks (x split_k)
  double read_bytes = 0;    // b * MNK * (1/m1 + 1/n1), exact at the edges
  double write_bytes = 0;   // b * MN (Common), b * MN * split_k (MultiCoreSplitK)
  AscendSwizzle swizzle;
  std::string note = "modelled only: no Ascend hardware here, nothing was measured";
};

AscendLedger analyze_ascend(const GemmDesc& desc, const AscendTile& tile, const Machine& machine);

}  // namespace gemmkit::ledger
