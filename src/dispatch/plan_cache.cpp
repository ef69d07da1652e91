// The plan cache: an unordered_map under a shared mutex.
#include "dispatch/plan_cache.hpp"

#include <array>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace gemmkit::dispatch {

namespace {

struct Key {
  std::array<std::int64_t, 38> v{};
  std::string kernel;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  std::size_t operator()(const Key& k) const noexcept {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
    for (std::int64_t x : k.v) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ std::hash<std::string>{}(k.kernel));
  }
};

Key key_of(const GemmDesc& d, const Options& opt, const GemmArgs* args) {
  Key key;
  std::size_t i = 0;
  auto put = [&](std::int64_t x) { key.v.at(i++) = x; };
  put(d.m), put(d.n), put(d.k), put(static_cast<int>(d.trans_a)), put(static_cast<int>(d.trans_b));
  for (const MatrixDesc* o : {&d.a, &d.b, &d.c, &d.d})
    put(static_cast<int>(o->dtype)), put(static_cast<int>(o->layout)), put(o->ld),
        put(o->batch_stride);
  put(d.batch), put(static_cast<int>(d.compute));
  put(static_cast<int>(d.epilogue.bias)), put(static_cast<int>(d.epilogue.bias_dtype)),
      put(static_cast<int>(d.epilogue.act));
  put(int(d.epilogue.scale_d) | int(d.epilogue.amax_d) << 1);  // kernels without them refuse
  put(static_cast<int>(d.scale_a.mode)), put(static_cast<int>(d.scale_b.mode));
  put(static_cast<int>(opt.backend));  // a forced kernel checks it against its own
  put(opt.kernel != nullptr ? -1 : static_cast<int>(resolve_backend(opt, args)));
  put(opt.threads), put(opt.split_k), put(static_cast<int>(opt.schedule));
  put(opt.sm_count_target);  // another machine to rank on
  put(opt.batch_invariant);  // another kernel set, another reference M
  put(args != nullptr && args->beta != 0.0);
  if (opt.kernel != nullptr) key.kernel = opt.kernel;
  assert(i == key.v.size());
  return key;
}

struct Cache {
  std::shared_mutex mu;
  std::unordered_map<Key, Plan, KeyHash> plans;
  std::atomic<std::size_t> hits{0};
};

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

Plan cached_plan(const GemmDesc& d, const Options& opt, const GemmArgs* args) {
  Cache& c = cache();
  Key key = key_of(d, opt, args);
  {
    std::shared_lock lock(c.mu);
    if (auto it = c.plans.find(key); it != c.plans.end()) {
      c.hits.fetch_add(1, std::memory_order_relaxed);
      return it->second;
    }
  }
  // Planned outside the lock: two threads may plan the same problem once each, never wait on
  // each other's ledger work; the plans are equal, the second insertion is a no-op.
  Plan p = make_plan(d, opt, args);
  std::unique_lock lock(c.mu);
  if (c.plans.size() >= kPlanCacheCapacity) c.plans.clear();
  c.plans.emplace(std::move(key), p);
  return p;
}

std::size_t plan_cache_size() {
  std::shared_lock lock(cache().mu);
  return cache().plans.size();
}

std::size_t plan_cache_hits() { return cache().hits.load(std::memory_order_relaxed); }

void clear_plan_cache() {
  std::unique_lock lock(cache().mu);
  cache().plans.clear();
}

}  // namespace gemmkit::dispatch
