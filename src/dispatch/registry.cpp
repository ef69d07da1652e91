#include "dispatch/registry.hpp"

#include <mutex>

#include "core/status.hpp"
#include "core/validate.hpp"

namespace gemmkit::dispatch {

void Registry::add(KernelInfo k) {
  if (!k.fused_epilogue && k.can_implement)
    k.can_implement = [inner = std::move(k.can_implement)](const GemmDesc& d) -> Status {
      if (core::has_epilogue(d))
        return GEMMKIT_UNSUPPORTED("no fused epilogue (bias, activation) in this kernel");
      return inner(d);
    };
  kernels_.push_back(std::move(k));
}

const KernelInfo* Registry::find(std::string_view name) const noexcept {
  for (const auto& k : kernels_)
    if (k.name == name) return &k;
  return nullptr;
}

bool glob_match(std::string_view pat, std::string_view s) noexcept {
  // Iterative glob with backtracking on the last '*'.
  std::size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
  while (i < s.size()) {
    if (p < pat.size() && (pat[p] == '?' || pat[p] == s[i])) {
      ++p, ++i;
    } else if (p < pat.size() && pat[p] == '*') {
      star = p++, mark = i;
    } else if (star != std::string_view::npos) {
      p = star + 1, i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

std::vector<const KernelInfo*> Registry::match(std::string_view pattern) const {
  std::vector<const KernelInfo*> out;
  for (const auto& k : kernels_)
    if (pattern == "all" || glob_match(pattern, k.name)) out.push_back(&k);
  return out;
}

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    register_cpu_kernels(reg);
    register_cuda_kernels(reg);
    return reg;
  }();
  return r;
}

}  // namespace gemmkit::dispatch
