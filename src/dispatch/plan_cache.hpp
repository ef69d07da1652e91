// The process's plan cache: gemm() plans a (problem, backend, options) once and reuses the
// plan, so that the ledger does not rank every candidate on every call. Safe under concurrent
// calls (a shared mutex: lookups share it, an insertion takes it alone). Small: when it holds
// kCapacity plans it starts again empty.
#pragma once
#include <cstddef>

#include "dispatch/planner.hpp"

namespace gemmkit::dispatch {

inline constexpr std::size_t kPlanCacheCapacity = 4096;

// make_plan(d, opt, args) without reasons, from the cache when this problem was planned
// before. Only what the plan depends on is in the key: the descriptor, the chosen backend
// (Auto resolved through args), the kernel name, the thread count, the split count and
// schedule asked for, Options::batch_invariant, and whether beta is zero.
Plan cached_plan(const GemmDesc& d, const Options& opt, const GemmArgs* args);

// Entries now held, and the lookups answered from the cache since the start (for the tests).
std::size_t plan_cache_size();
std::size_t plan_cache_hits();
void clear_plan_cache();

}  // namespace gemmkit::dispatch
