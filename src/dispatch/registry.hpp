// The kernel registry: every GEMM implementation (CPU or CUDA, ladder rung or production)
// registers one entry here. The planner, `gemmkit bench --kernel` and the tests enumerate it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "gemmkit/gemm.hpp"
#include "ledger/variant.hpp"

namespace gemmkit::dispatch {

enum class KernelRole { Production, Ladder, Reference };

struct KernelInfo {
  std::string name;     // "cpu.ladder.naive", "cpu.sgemm_avx2_6x16", "cuda.ladder.rung4"
  Backend backend = Backend::Cpu;
  KernelRole role = KernelRole::Production;
  std::string config;   // human-readable tile config: "MR=6,NR=16,MC=..,KC=..,NC=.."
  int priority = 0;     // higher wins among production kernels that can implement
  // Desc has already been validated and lds defaulted. Return Success, NotSupported or
  // MisalignedOperand; never touches memory.
  std::function<Status(const GemmDesc&)> can_implement;
  // Desc validated, lds defaulted, quick returns (M == 0 / N == 0 / batch == 0) handled by
  // the caller. alpha == 0 and K == 0 may still reach the kernel: it must honour BLAS
  // semantics (never read C when beta == 0, never read A/B when alpha == 0).
  std::function<Status(const GemmDesc&, const GemmArgs&, const Options&)> run;
  // Workspace the call needs; args may be null (then base pointers are taken as 16-byte
  // aligned). May be empty: 0.
  std::function<std::size_t(const GemmDesc&, const GemmArgs*)> workspace_bytes;
  // When the caller gives no workspace, the kernel takes it from gemmkit's device pool
  // (src/cuda/workspace_pool.hpp) instead of failing.
  bool pooled_workspace = false;
  // Which branch of the ledger's decision tree this kernel serves; the planner prefers kernels
  // of the variant the tree chose, and passes the split count in Options::split_k.
  ledger::Variant variant = ledger::Variant::DataParallel;
  // Computes GemmDesc::epilogue (bias, activation). Registry::add makes every other kernel
  // refuse a problem that has one, so that none can ignore it.
  bool fused_epilogue = false;
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
}  // namespace gemmkit::dispatch
