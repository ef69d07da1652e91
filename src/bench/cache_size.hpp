// The last-level cache of the host CPU, which the rotation must exceed (BENCH.md item 3).
// The GPU's L2 comes from the device (gpu_runtime.hpp).
#pragma once
#include <cstdint>
#include <string>

namespace gemmkit::bench {

struct CacheSize {
  std::int64_t bytes = 0;
  std::string source;  // "sysfs index3", "sysconf", "GEMMKIT_LLC_BYTES", "none: assumed ..."
};

// Order: GEMMKIT_LLC_BYTES (environment) -> sysfs (the highest cache level of cpu0) ->
// sysconf(_SC_LEVEL3_CACHE_SIZE / LEVEL2) -> 32 MiB stated as an assumption.
CacheSize host_llc();

}  // namespace gemmkit::bench
