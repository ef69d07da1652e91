// The kernel registry: every GEMM implementation (CPU or CUDA, ladder rung or production)
// registers one entry here. The planner, `gemmkit bench --kernel` and the tests enumerate it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "dispatch/kernel_config.hpp"
#include "dispatch/launch_plan.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::dispatch {

enum class KernelRole { Production, Ladder, Reference };

struct KernelInfo {
  std::string name;     // "cpu.ladder.naive", "cpu.sgemm_avx2_6x16", "cuda.ladder.rung4"
  Backend backend = Backend::Cpu;
  KernelRole role = KernelRole::Production;
  KernelConfig config;  // tile, stages, threads, cluster, modes, raster, swizzle, ISA
  std::string note;     // one line for people (what it does); never parsed
  int priority = 0;     // breaks ties between equal predictions (higher wins)
  // Desc has already been validated and lds defaulted. Return Success, NotSupported or
  // MisalignedOperand; never touches memory.
  std::function<Status(const GemmDesc&)> can_implement;
  // Desc validated, lds defaulted, quick returns (M == 0 / N == 0 / batch == 0) handled by
  // the caller. alpha == 0 and K == 0 may still reach the kernel: it must honour BLAS
  // semantics (never read C when beta == 0, never read A/B when alpha == 0).
  // The plan names the mode and split count (one the config supports); Options carry the
  // stream, the workspace and the thread count.
  std::function<Status(const GemmDesc&, const GemmArgs&, const LaunchPlan&, const Options&)> run;
  // Workspace the call needs under a plan; args may be null (then base pointers are taken as
  // 16-byte aligned). May be empty: 0.
  std::function<std::size_t(const GemmDesc&, const GemmArgs*, const LaunchPlan&)> workspace_bytes;
  // When the caller gives no workspace, the kernel takes it from gemmkit's device pool
  // (src/cuda/workspace_pool.hpp) instead of failing.
  bool pooled_workspace = false;
  // Computes GemmDesc::epilogue (bias, activation). Registry::add makes every other kernel
  // refuse a problem that has one, so that none can ignore it.
  bool fused_epilogue = false;
  // False: reachable only by name (Options::kernel), never ranked by the planner: a kernel
  // whose measurements do not yet beat the ones it would replace.
  bool planned = true;
  // Where planned: the problems the planner ranks it for, or why not (empty: every problem it
  // implements). A kernel measured slower than the one it would replace on a class of problems
  // the ledger does not tell apart stays reachable there by name.
  std::function<Status(const GemmDesc&)> plan_for;
  // True when the bits of each output element do not depend on M: the data-parallel mode's
  // summation order, K blocking, orientation and write-back are chosen from N, K, the dtypes
  // and the layouts alone (under Options::batch_invariant where the kernel reads it). Only
  // these are planned, or taken by name, under Options::batch_invariant. Set per kernel with
  // the reason.
  bool m_invariant = false;
};

class Registry {
 public:
  void add(KernelInfo k);
  const std::vector<KernelInfo>& all() const noexcept { return kernels_; }
  const KernelInfo* find(std::string_view name) const noexcept;
  // Names matching a glob pattern ('*' and '?'); "all" matches everything.
  std::vector<const KernelInfo*> match(std::string_view pattern) const;

 private:
  std::vector<KernelInfo> kernels_;
};

// The process-wide registry, filled on first use by each backend's register function.
const Registry& registry();

// Each backend defines one of these (src/cpu/register.cpp, src/cuda/register.cu); the CUDA
// one is a no-op stub when gemmkit is built without CUDA.
void register_cpu_kernels(Registry& r);
void register_cuda_kernels(Registry& r);

bool glob_match(std::string_view pattern, std::string_view name) noexcept;

}  // namespace gemmkit::dispatch

namespace gemmkit::dispatch {
// True when p is device (or managed) memory of a usable CUDA device; false without CUDA.
bool is_device_pointer(const void* p) noexcept;
// The name and SM count of the current CUDA device; false without one.
bool cuda_device_identity(std::string* name, int* sms) noexcept;
}  // namespace gemmkit::dispatch
