// CATLASS Common-template tiling model (docs/zh/2_Design/01_kernel_design/04_matmul_summary.md).
#include "ledger/ascend.hpp"

#include <algorithm>

namespace gemmkit::ledger {
namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }
}  // namespace

AscendTile ascend_tile_from(const TileConfig& t, std::int64_t k0) {
  AscendTile a;
  a.m1 = a.m0 = t.block_m;
  a.n1 = a.n0 = t.block_n;
  a.k1 = t.block_k;
  a.k0 = k0 > 0 ? k0 : std::max<std::int64_t>(16, t.block_k / 4);
  a.l1_stages = t.stages;
  a.split_k = t.split_k;
  return a;
}

AscendSwizzle ascend_swizzle(std::int64_t m, std::int64_t n) noexcept {
  return m >= n ? AscendSwizzle{3, 0} : AscendSwizzle{3, 1};
}

AscendLedger analyze_ascend(const GemmDesc& d, const AscendTile& t, const Machine& mc) {
  AscendLedger r;
  r.l1_bytes = static_cast<std::int64_t>(t.l1_stages * (t.m1 * t.k1 + t.k1 * t.n1) * t.in_bytes);
  r.l0a_bytes = static_cast<std::int64_t>(t.l0a_stages * t.m0 * t.k0 * t.in_bytes);
  r.l0b_bytes = static_cast<std::int64_t>(t.l0b_stages * t.k0 * t.n0 * t.in_bytes);
  r.l0c_bytes = static_cast<std::int64_t>(t.l0c_stages * t.m0 * t.n0 * t.acc_bytes);
  auto cap = [&](const char* item, const char* formula, std::int64_t v, std::int64_t limit) {
    r.constraints.push_back(ConstraintRow{"ascend", item, formula, static_cast<double>(v),
                                          static_cast<double>(limit), limit > 0 && v <= limit,
                                          limit > 0 ? "" : "the machine has no such buffer"});
  };
  cap("L1", "stages*(m1*k1 + k1*n1)*2B", r.l1_bytes, mc.l1_bytes);
  cap("L0A", "stages*m0*k0*2B", r.l0a_bytes, mc.l0a_bytes);
  cap("L0B", "stages*k0*n0*2B", r.l0b_bytes, mc.l0b_bytes);
  cap("L0C", "stages*m0*n0*4B", r.l0c_bytes, mc.l0c_bytes);
  r.constraints.push_back(ConstraintRow{"ascend", "m0 = m1", "L0 does not split M",
                                        static_cast<double>(t.m0), static_cast<double>(t.m1),
                                        t.m0 == t.m1, ""});
  r.constraints.push_back(ConstraintRow{"ascend", "n0 = n1", "L0 does not split N",
                                        static_cast<double>(t.n0), static_cast<double>(t.n1),
                                        t.n0 == t.n1, ""});
  for (const auto& c : r.constraints) r.fits = r.fits && c.pass;
  const std::int64_t batch = std::max<std::int64_t>(1, d.batch);
  const std::int64_t tm = ceil_div(d.m, t.m1), tn = ceil_div(d.n, t.n1);
  r.blocks = tm * tn * batch * std::max(1, t.split_k);
  const double m = static_cast<double>(d.m), n = static_cast<double>(d.n),
               k = static_cast<double>(d.k);
  r.read_bytes = batch * t.in_bytes * (m * k * tn + k * n * tm);
  r.write_bytes = batch * t.in_bytes * m * n * std::max(1, t.split_k);
  r.swizzle = ascend_swizzle(d.m, d.n);
  return r;
}

}  // namespace gemmkit::ledger
