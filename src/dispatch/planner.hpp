// The planner: enumerate registered kernels -> can_implement -> pick, and say why.
#pragma once
#include <string>
#include <vector>

#include "dispatch/registry.hpp"

namespace gemmkit::dispatch {

struct Plan {
  Status status;                     // Success when `kernel` is set
  Backend backend = Backend::Cpu;    // the backend actually chosen
  const KernelInfo* kernel = nullptr;
  std::vector<std::string> reasons;  // one line per decision, for `gemmkit explain`
};

// Expects a validated descriptor with defaulted lds. `args` (may be null) lets Auto look at
// where the pointers live: device memory -> CUDA, host memory -> CPU.
Plan make_plan(const GemmDesc& d, const Options& opt, const GemmArgs* args = nullptr);

}  // namespace gemmkit::dispatch
