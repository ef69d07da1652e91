// The variant decision tree. Each branch says why, with the numbers.
#include "ledger/variant.hpp"

#include <algorithm>
#include <cstdio>

#include "ledger/problem_ledger.hpp"

namespace gemmkit::ledger {
namespace {

std::string fmt(const char* f, double a = 0, double b = 0, double c = 0, double d = 0) {
  char buf[320];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

}  // namespace

std::string_view variant_name(Variant v) noexcept {
  switch (v) {
    case Variant::DataParallel:
      return "data_parallel";
    case Variant::SplitK:
      return "split_k";
    case Variant::StreamK:
      return "stream_k";
    case Variant::Grouped:
      return "grouped";
    case Variant::Batched:
      return "batched";
    case Variant::Gemv:
      return "gemv";
  }
  return "?";
}

VariantChoice choose_variant(const GemmDesc& d, const Machine& mc, const TileConfig& tile,
                             const std::vector<GroupShape>& groups, const VariantPolicy& pol) {
  VariantChoice c;
  // 1. Several problems in one call: grouped when their shapes differ, batched when they match.
  if (groups.size() > 1) {
    const bool same = std::all_of(groups.begin(), groups.end(), [&](const GroupShape& g) {
      return g.m == groups[0].m && g.n == groups[0].n && g.k == groups[0].k;
    });
    if (!same) {
      c.variant = Variant::Grouped;
      c.reason =
          fmt("%.0f problems of different shapes (MoE-like): grouped GEMM, one launch "
              "over a tile table",
              static_cast<double>(groups.size()));
      return c;
    }
    c.variant = Variant::Batched;
    c.reason =
        fmt("%.0f problems of one shape %.0fx%.0fx%.0f: batched GEMM, batch index as a "
            "grid dimension",
            static_cast<double>(groups.size()), static_cast<double>(groups[0].m),
            static_cast<double>(groups[0].n), static_cast<double>(groups[0].k));
    return c;
  }
  if (d.batch > 1) {
    c.variant = Variant::Batched;
    c.reason = fmt("batch %.0f of one shape: batched GEMM, batch index as a grid dimension",
                   static_cast<double>(d.batch));
    return c;
  }
  // 2. Memory-bound with a thin side: every tile would stream the weights; a GEMV-like path.
  const ProblemLedger p = analyze(d, 0.0, mc);
  const std::int64_t thin = std::min(d.m, d.n);
  if (!p.compute_bound && thin <= pol.gemv_max_mn) {
    c.variant = Variant::Gemv;
    c.reason =
        fmt("memory-bound (AI %.1f < ridge %.1f FLOP/B) with min(M, N) = %.0f <= %.0f: "
            "a GEMV-like path streaming the large operand once",
            p.arithmetic_intensity, p.ridge_point, static_cast<double>(thin),
            static_cast<double>(pol.gemv_max_mn));
    return c;
  }
  const TileLedger t =
      analyze_tile(d,
                   TileConfig{tile.block_m, tile.block_n, tile.block_k, tile.stages, tile.threads,
                              1, tile.acc, tile.frag_m, tile.frag_n, tile.extra_regs_per_thread},
                   mc);
  const std::int64_t sms = std::max(1, mc.sm_count);
  // 3. Too few output tiles to fill the SMs: cut K.
  if (t.tiles < sms) {
    const std::int64_t k_iters = ceil_div(d.k, tile.block_k);
    const std::int64_t by_k = k_iters / std::max<std::int64_t>(1, pol.min_k_iters_per_split);
    const std::int64_t want = ceil_div(sms, t.tiles);
    const int split =
        static_cast<int>(std::clamp<std::int64_t>(std::min(want, by_k), 1, pol.max_split));
    if (split >= 2) {
      c.variant = Variant::SplitK;
      c.split = split;
      c.reason =
          fmt("%.0f output tiles < %.0f SMs: split-K into %.0f pieces (%.0f tiles x "
              "split fill the SMs; K keeps enough BK steps per piece); output written "
              "split times",
              static_cast<double>(t.tiles), static_cast<double>(sms), split,
              static_cast<double>(t.tiles * split));
      return c;
    }
    c.reason =
        fmt("%.0f output tiles < %.0f SMs but K = %.0f is too short to split (fewer "
            "than 2 x %.0f BK steps): data-parallel",
            static_cast<double>(t.tiles), static_cast<double>(sms), static_cast<double>(d.k),
            static_cast<double>(pol.min_k_iters_per_split));
    return c;
  }
  // 4. Enough tiles, but the last wave leaves SMs idle.
  if (t.waves_ceil > 1 && t.tail_efficiency < pol.tail_efficiency_min) {
    c.variant = Variant::StreamK;
    c.reason =
        fmt("%.0f tiles over %.0f concurrent blocks = %.2f waves, tail efficiency "
            "%.2f < %.2f: stream-K spreads the K iterations evenly",
            static_cast<double>(t.tiles), static_cast<double>(t.concurrent), t.waves,
            t.tail_efficiency);
    c.reason += fmt(" (threshold %.2f)", pol.tail_efficiency_min);
    return c;
  }
  c.reason = fmt(
      "%.0f tiles over %.0f concurrent blocks = %.2f waves, tail efficiency %.2f: "
      "data-parallel",
      static_cast<double>(t.tiles), static_cast<double>(t.concurrent), t.waves, t.tail_efficiency);
  return c;
}

}  // namespace gemmkit::ledger
