// The planner's ranking: every (kernel, mode, split) a kernel's config supports, refused by
// can_implement or predicted by the ledger, fastest first.
#include <algorithm>
#include <stdexcept>

#include "core/status.hpp"
#include "dispatch/planner.hpp"
#include "ledger/tile_ledger.hpp"

namespace gemmkit::dispatch {

namespace {

// The most K pieces any kernel here takes: every SM of a 132-SM GPU on one tile (128 x 128 x
// 65536 ran 24.2 us on 64 of them, half the SMs idle).
constexpr int kMaxSplit = 256;
constexpr int kMinItersPerSplit = 4;  // BK steps each piece keeps (the pipeline must fill)

Candidate candidate(const KernelInfo* k, sched::Mode mode, int split, Status status = {}) {
  Candidate c;
  c.kernel = k;
  c.mode = mode;
  c.split = split;
  c.status = std::move(status);
  return c;
}

}  // namespace

std::vector<int> split_counts(const GemmDesc& d, const KernelConfig& c, sched::Mode mode,
                              int workers) {
  if (mode == sched::Mode::DataParallel || mode == sched::Mode::StreamK) return {1};
  if (mode != sched::Mode::SplitK || c.tile_m <= 0 || c.tile_n <= 0 || c.tile_k <= 0) return {};
  if (c.rows_per_sm) return {};  // such a kernel cuts K itself; only a forced count reaches it
  // A cluster of cluster_m CTAs takes cluster_m vertically adjacent tiles as one (one piece
  // per resident cluster), as the kernels count them.
  const int cm = std::max(1, c.cluster_m);
  const std::int64_t tiles = sched::ceil_div(d.m, std::int64_t{c.tile_m} * cm) *
                             sched::ceil_div(d.n, c.tile_n) * std::max<std::int64_t>(1, d.batch);
  const std::int64_t k_iters = sched::ceil_div(d.k, c.tile_k);
  if (tiles <= 0) return {};
  const std::int64_t most =
      std::min<std::int64_t>({workers / cm / tiles, k_iters / kMinItersPerSplit, kMaxSplit});
  // Powers of two, half the most (one piece per SM pair: as fast a stream as one per SM, half
  // the partials) and the most.
  std::vector<int> out;
  for (std::int64_t s = 2; s <= most; s *= 2) out.push_back(static_cast<int>(s));
  for (std::int64_t s : {most / 2, most})
    if (s >= 2 && std::find(out.begin(), out.end(), s) == out.end())
      out.push_back(static_cast<int>(s));
  std::sort(out.begin(), out.end());
  return out;
}

const ledger::FamilyEfficiency* family_efficiency(const ledger::Machine& machine,
                                                  const KernelConfig& c, const GemmDesc& d) {
  if (machine.family_efficiency.empty()) return nullptr;
  const std::string whole = family_key(c), own = family_key(c, d);
  const ledger::FamilyEfficiency* e = machine.efficiency_of(own);
  return e != nullptr || own == whole ? e : machine.efficiency_of(whole);
}

ledger::Prediction predict_config(const GemmDesc& d, double beta, const KernelConfig& c,
                                  sched::Mode mode, int split, const ledger::Machine& machine) {
  ledger::Coefficients co;
  co.compute_efficiency = isa_compute_efficiency(c.isa, machine.simd_bits);
  // What the kernel's family sustains on this machine, where measured runs were fitted.
  if (const ledger::FamilyEfficiency* e = family_efficiency(machine, c, d)) {
    co.compute_efficiency *= e->compute;
    co.dram_efficiency *= e->dram;
  }
  return ledger::predict(d, beta, problem_tile_config(c, d, machine.sm_count, split, mode), machine,
                         co);
}

sched::Mode mode_of(Schedule s) noexcept {
  return s == Schedule::SplitK    ? sched::Mode::SplitK
         : s == Schedule::StreamK ? sched::Mode::StreamK
                                  : sched::Mode::DataParallel;
}

std::vector<Candidate> rank_candidates(const GemmDesc& d, double beta,
                                       const std::vector<const KernelInfo*>& kernels,
                                       const ledger::Machine& machine, int forced_split,
                                       Schedule schedule) {
  std::vector<Candidate> out;
  for (const KernelInfo* k : kernels) {
    const KernelConfig& cfg = k->config;
    Status can = k->can_implement ? k->can_implement(d) : Status{};
    for (sched::Mode mode : kAllModes) {
      if (!cfg.supports(mode)) continue;
      if (schedule != Schedule::Auto && mode != mode_of(schedule)) continue;
      if (forced_split == 1 && mode != sched::Mode::DataParallel) continue;
      if (forced_split > 1 && mode != sched::Mode::SplitK) continue;
      if (!can) {  // one refused row per kernel, whatever its modes
        out.push_back(candidate(k, mode, 1, can));
        break;
      }
      const std::vector<int> splits = forced_split > 1
                                          ? std::vector<int>{forced_split}
                                          : split_counts(d, cfg, mode, machine.sm_count);
      for (int split : splits) {
        Candidate c = candidate(k, mode, split);
        try {
          c.prediction = predict_config(d, beta, cfg, mode, split, machine);
          const ledger::TileLedger t =
              ledger::analyze_tile(d, problem_tile_config(cfg, d, machine.sm_count, split, mode),
                                   machine, beta);
          c.waves = t.waves;
          c.tail_efficiency = t.tail_efficiency;
        } catch (const std::exception& e) {
          c.status = GEMMKIT_UNSUPPORTED(std::string("the ledger refuses the config: ") + e.what());
        }
        out.push_back(std::move(c));
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Candidate& x, const Candidate& y) {
    if (x.status.ok() != y.status.ok()) return x.status.ok();
    if (!x.status.ok()) return false;  // refused ones keep registry order
    if (x.predicted_s() != y.predicted_s()) return x.predicted_s() < y.predicted_s();
    return x.kernel->priority > y.kernel->priority;
  });
  // The ties with the fastest: by priority (stable: then the faster, then registry order).
  auto tied = out.begin();
  while (tied != out.end() && tied->status &&
         tied->predicted_s() <= out.front().predicted_s() * (1 + kTieTolerance))
    ++tied;
  // Same priority (modes of one kernel): data-parallel first, the mode without a fixup.
  std::stable_sort(out.begin(), tied, [](const Candidate& x, const Candidate& y) {
    if (x.kernel->priority != y.kernel->priority) return x.kernel->priority > y.kernel->priority;
    return x.mode == sched::Mode::DataParallel && y.mode != sched::Mode::DataParallel;
  });
  return out;
}

}  // namespace gemmkit::dispatch
