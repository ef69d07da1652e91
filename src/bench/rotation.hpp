// Cold-cache measurement (BENCH.md item 3): rotate input sets so that, between two uses of the
// same set, the calls in between touch more than twice the last-level cache; or, when that
// many sets do not fit the memory budget, overwrite a 2x-LLC scratch buffer before each
// timed call. `Warm` (one set, no flush) exists for the harness self-test.
#pragma once
#include <cstdint>
#include <string>

namespace gemmkit::bench {

enum class CacheMode { Rotate, Flush, Warm };

struct RotationPlan {
  CacheMode mode = CacheMode::Rotate;
  int sets = 1;                      // operand sets allocated and cycled through
  std::int64_t llc_bytes = 0;        // the cache to defeat
  std::int64_t bytes_per_call = 0;   // bytes one call touches (A, B, D, and C if beta != 0)
  std::int64_t bytes_per_set = 0;    // bytes one set allocates (all four buffers)
  std::int64_t flush_bytes = 0;      // Flush: scratch overwritten before each timed call
  std::string describe() const;      // "rotate 5 sets (1.2 GiB, LLC 60 MiB)", ...
};

// sets = max(2, ceil(2 * llc / bytes_per_call) + 1), capped at 4096; when sets * bytes_per_set
// exceeds `budget_bytes`: one set if a call alone touches more than 2x LLC, else Flush.
RotationPlan plan_rotation(std::int64_t bytes_per_call, std::int64_t bytes_per_set,
                           std::int64_t llc_bytes, std::int64_t budget_bytes, bool warm);

std::string format_bytes(double bytes);  // "1.5 GiB", "60 MiB", "512 KiB", "100 B"

}  // namespace gemmkit::bench
