#include "dispatch/planner.hpp"

#include <algorithm>

#include "core/status.hpp"

namespace gemmkit::dispatch {

namespace {

Backend choose_backend(const Options& opt, const GemmArgs* args, std::vector<std::string>& why) {
  if (opt.backend != Backend::Auto) {
    why.push_back("backend " + std::string(backend_name(opt.backend)) + ": requested");
    return opt.backend;
  }
  if (!cuda_available()) {
    why.push_back("backend cpu: no usable CUDA device in this process");
    return Backend::Cpu;
  }
  if (args != nullptr && args->d != nullptr && !is_device_pointer(args->d)) {
    why.push_back("backend cpu: D is host memory");
    return Backend::Cpu;
  }
  why.push_back("backend cuda: a CUDA device is available");
  return Backend::Cuda;
}

}  // namespace

Plan make_plan(const GemmDesc& d, const Options& opt, const GemmArgs* args) {
  Plan p;
  const Registry& reg = registry();
  if (opt.kernel != nullptr) {
    p.kernel = reg.find(opt.kernel);
    if (p.kernel == nullptr) {
      p.status = GEMMKIT_INVALID(Arg::Kernel, "no kernel named '" + std::string(opt.kernel) + "'");
      return p;
    }
    p.backend = p.kernel->backend;
    if (opt.backend != Backend::Auto && opt.backend != p.backend) {
      p.status = GEMMKIT_INVALID(Arg::Backend, "kernel '" + p.kernel->name +
                                                   "' does not belong to the requested backend");
      p.kernel = nullptr;
      return p;
    }
    p.status = p.kernel->can_implement(d);
    p.reasons.push_back("kernel " + p.kernel->name + ": requested by name");
    if (!p.status) p.kernel = nullptr;
    return p;
  }
  p.backend = choose_backend(opt, args, p.reasons);
  if (p.backend == Backend::Cuda && !cuda_available()) {
    p.status = GEMMKIT_ERROR(StatusCode::NotSupported, Arg::Backend,
                             "the CUDA backend was requested but no CUDA device is usable");
    return p;
  }
  // Production kernels by priority, then the reference path of that backend as a fallback.
  std::vector<const KernelInfo*> cands;
  for (const auto& k : reg.all())
    if (k.backend == p.backend && k.role != KernelRole::Ladder) cands.push_back(&k);
  std::stable_sort(cands.begin(), cands.end(), [](const KernelInfo* x, const KernelInfo* y) {
    if ((x->role == KernelRole::Reference) != (y->role == KernelRole::Reference))
      return y->role == KernelRole::Reference;
    return x->priority > y->priority;
  });
  for (const KernelInfo* k : cands) {
    Status s = k->can_implement(d);
    if (s) {
      p.kernel = k;
      p.status = {};
      p.reasons.push_back("kernel " + k->name + " [" + k->config + "]: highest-priority kernel " +
                          "that implements the problem");
      return p;
    }
    p.reasons.push_back("skipped " + k->name + ": " + to_string(s));
  }
  p.status = GEMMKIT_UNSUPPORTED("no " + std::string(backend_name(p.backend)) +
                                 " kernel implements this problem");
  return p;
}

}  // namespace gemmkit::dispatch
