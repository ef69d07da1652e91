// The variant decision tree (split-K when the output tiles cannot fill the machine, stream-K
// when the last wave is partial, ...), as data with its reason in words:
//   different shapes -> grouped; same shapes (batch > 1) -> batched;
//   memory-bound with a small M or N -> a GEMV-like path;
//   output tiles fewer than SMs -> split-K (with a split count);
//   enough tiles but a poor tail wave -> stream-K; otherwise data-parallel.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gemmkit/gemm.hpp"
#include "ledger/machine.hpp"
#include "ledger/tile_ledger.hpp"

namespace gemmkit::ledger {

enum class Variant : std::uint8_t { DataParallel, SplitK, StreamK, Grouped, Batched, Gemv };
std::string_view variant_name(Variant v) noexcept;  // "data_parallel", "split_k", ...

// The thresholds of the tree are data.
struct VariantPolicy {
  double tail_efficiency_min = 0.8;        // below it (and more than one wave) -> stream-K
  std::int64_t gemv_max_mn = 16;           // memory-bound and min(M, N) <= this -> GEMV-like
  std::int64_t min_k_iters_per_split = 4;  // each split-K piece keeps >= this many BK steps
  int max_split = 64;
};

struct GroupShape {
  std::int64_t m = 0, n = 0, k = 0;
};

struct VariantChoice {
  Variant variant = Variant::DataParallel;
  int split = 1;       // split-K pieces (SplitK), 1 otherwise
  std::string reason;  // the branch taken, with the numbers that decided it
};

// `groups` (may be empty): the shapes of a grouped/batched problem; `desc` then gives dtypes
// and layouts. Without groups, desc.batch > 1 means batched.
VariantChoice choose_variant(const GemmDesc& desc, const Machine& machine, const TileConfig& tile,
                             const std::vector<GroupShape>& groups = {},
                             const VariantPolicy& policy = {});

}  // namespace gemmkit::ledger
