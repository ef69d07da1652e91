// Registers every CPU kernel in the kernel registry.
#include "core/reference.hpp"
#include "dispatch/registry.hpp"

namespace gemmkit::dispatch {

void register_cpu_kernels(Registry& r) {
  // The fp64 reference: every dtype combination the front door accepts, slowly. The planner
  // takes it only when no production kernel implements the problem, and says so.
  r.add(KernelInfo{
      .name = "cpu.reference",
      .backend = Backend::Cpu,
      .role = KernelRole::Reference,
      .config = "fp64 accumulate, strided loops",
      .priority = 0,
      .can_implement = [](const GemmDesc&) { return Status{}; },
      .run = [](const GemmDesc& d, const GemmArgs& a, const Options&) {
        core::reference_gemm(d, a);
        return Status{};
      },
      .workspace_bytes = {},
  });
}

}  // namespace gemmkit::dispatch
