#include "cpu/block_table.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "cpu/cpu_info.hpp"

namespace gemmkit::cpu {

namespace {

// One row per ISA. Shares leave room for the A micro-panel and C tile (L1) and for the B
// micro-panels streaming through (L2).
constexpr BlockRule kRules[] = {
    {.isa = Isa::Portable,
     .l1_share = 0.5,
     .l2_share = 0.5,
     .l3_share = 0.25,
     .kc_min = 64,
     .kc_max = 256,
     .nc_max = 2048},
    // Zen 4 (32 KiB L1d), AVX2 capped, f32 6 x 16: KC 344 (B micro-panel 0.67 of L1) against
    // the half-L1 rule's 256, alternated runs: 1025^3 0.95-0.97x OpenBLAS against 0.92-0.94x
    // (three K blocks instead of five), 1023^3 +2-3%, 1000^3-4096^3 alike.
    {.isa = Isa::Avx2,
     .l1_share = 0.7,
     .l2_share = 0.5,
     .l3_share = 0.25,
     .kc_min = 128,
     .kc_max = 384,
     .nc_max = 4096,
     // Xeon (48 KiB L1d, 2 MiB L2 per core), AVX2 capped, 1 thread, against OpenBLAS Haswell in
     // alternated runs: an A block of 256 KiB (MC 168 f32 / 84 f64 at KC 384) against the half-L2
     // rule's 1 MiB (MC 678 / 336): sgemm 4096^3 0.93-0.95x -> 0.96-0.98x, dgemm 2048^3 / 4096^3
     // 0.92-0.95x / 0.90-0.94x -> 0.98x / 0.97x. Zen's 1 MiB L2 keeps its half.
     .l2_share_2mib = 0.125},
    // Zen 5 measurements: a B micro-panel as large as L1 (KC = 384 for 32 floats) beats the
    // half-L1 rule, because fewer K blocks mean fewer passes over C; L2 refills it in time.
    {.isa = Isa::Avx512,
     .l1_share = 1.0,
     .l2_share = 0.5,
     .l3_share = 0.25,
     .kc_min = 256,
     .kc_max = 512,
     .nc_max = 4096},
};

std::int64_t round_down(std::int64_t x, std::int64_t m) { return std::max(m, x / m * m); }

}  // namespace

const char* isa_name(Isa isa) noexcept {
  switch (isa) {
    case Isa::Portable:
      return "portable";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512:
      return "avx512";
  }
  return "?";
}

const BlockRule& block_rule(Isa isa) {
  for (const BlockRule& r : kRules)
    if (r.isa == isa) return r;
  return kRules[0];
}

BlockSizes derive_blocks(Isa isa, int mr, int nr, int elem_bytes) {
  const BlockRule& r = block_rule(isa);
  const CpuInfo& c = cpu_info();
  BlockSizes b{.mr = mr, .nr = nr};
  const double l1 = static_cast<double>(c.l1d_bytes) * r.l1_share;
  b.kc = std::clamp(round_down(static_cast<std::int64_t>(l1 / (nr * elem_bytes)), 8), r.kc_min,
                    r.kc_max);
  const bool large_l2 = r.l2_share_2mib > 0 && c.l2_bytes >= (std::int64_t{2} << 20);
  const double l2 = static_cast<double>(c.l2_bytes) * (large_l2 ? r.l2_share_2mib : r.l2_share);
  b.mc = round_down(static_cast<std::int64_t>(l2 / (b.kc * elem_bytes)), mr);
  const double l3 = static_cast<double>(std::max(c.l3_bytes, c.l2_bytes)) * r.l3_share;
  b.nc = std::min(r.nc_max, round_down(static_cast<std::int64_t>(l3 / (b.kc * elem_bytes)), nr));
  b.nc = round_down(b.nc, nr);
  // Tuning override, "MC,KC,NC" (0 keeps the derived value): for block-size sweeps only.
  if (const char* env = std::getenv("GEMMKIT_CPU_BLOCKS")) {
    long long mc = 0, kc = 0, nc = 0;
    if (std::sscanf(env, "%lld,%lld,%lld", &mc, &kc, &nc) == 3) {
      if (mc > 0) b.mc = round_down(mc, mr);
      if (kc > 0) b.kc = kc;
      if (nc > 0) b.nc = round_down(nc, nr);
    }
  }
  return b;
}

std::string describe(const BlockSizes& b) {
  return "MR=" + std::to_string(b.mr) + ",NR=" + std::to_string(b.nr) +
         ",MC=" + std::to_string(b.mc) + ",KC=" + std::to_string(b.kc) +
         ",NC=" + std::to_string(b.nc);
}

}  // namespace gemmkit::cpu
