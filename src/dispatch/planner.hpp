// The planner: enumerate registered kernels -> can_implement -> the ledger's decision tree ->
// pick, and say why.
#pragma once
#include <string>
#include <vector>

#include "dispatch/registry.hpp"
#include "ledger/machine.hpp"
#include "ledger/variant.hpp"

namespace gemmkit::dispatch {

struct Plan {
  Status status;                     // Success when `kernel` is set
  Backend backend = Backend::Cpu;    // the backend actually chosen
  const KernelInfo* kernel = nullptr;
  ledger::VariantChoice variant;     // what the decision tree asked for
  int split_k = 1;                   // pieces passed to the kernel (Options::split_k)
  std::vector<std::string> reasons;  // one line per decision (only when asked: `explain`)
};

// The machine model the planner reasons with for a backend (no measurement on this path).
const ledger::Machine& planning_machine(Backend b);

// Expects a validated descriptor with defaulted lds. `args` (may be null) lets Auto look at
// where the pointers live: device memory -> CUDA, host memory -> CPU. `with_reasons` fills
// Plan::reasons; gemm() leaves it off so the hot path formats no strings.
Plan make_plan(const GemmDesc& d, const Options& opt, const GemmArgs* args = nullptr,
               bool with_reasons = false);

}  // namespace gemmkit::dispatch
