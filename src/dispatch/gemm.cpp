// The front door: validate once, quick-return, plan, run.
#include <exception>

#include "core/status.hpp"
#include "core/validate.hpp"
#include "dispatch/plan_cache.hpp"

namespace gemmkit {

Status can_implement(const GemmDesc& desc, const Options& opt) {
  const GemmDesc d = with_default_lds(desc);
  if (Status s = core::validate_desc(d); !s) return s;
  return dispatch::cached_plan(d, opt, nullptr).status;
}

namespace {

std::size_t planned_workspace(const GemmDesc& desc, const GemmArgs* args, const Options& opt) {
  const GemmDesc d = with_default_lds(desc);
  if (!core::validate_desc(d)) return 0;
  const dispatch::Plan p = dispatch::cached_plan(d, opt, args);
  if (!p.status || !p.launch.kernel->workspace_bytes) return 0;
  dispatch::LaunchPlan launch = p.launch;
  launch.dynamic = opt.dynamic_schedule;
  launch.sms = opt.sm_count_target;
  return launch.kernel->workspace_bytes(d, args, launch);
}

}  // namespace

std::size_t workspace_size(const GemmDesc& desc, const Options& opt) {
  return planned_workspace(desc, nullptr, opt);
}

std::size_t workspace_size(const GemmDesc& desc, const GemmArgs& args, const Options& opt) {
  return planned_workspace(desc, &args, opt);
}

Status gemm(const GemmDesc& desc, const GemmArgs& args, const Options& opt) {
  try {
    const GemmDesc d = with_default_lds(desc);
    if (Status s = core::validate_desc(d); !s) return s;
    if (Status s = core::validate_args(d, args); !s) return s;
    if (core::is_empty(d)) return {};  // BLAS quick return
    // netlib's other quick return: nothing to add and C scaled by one, in place (not when a
    // bias, an activation or the output's scale would change D, nor when its amax is asked for).
    const EpilogueDesc& e = d.epilogue;
    if ((args.alpha == 0.0 || d.k == 0) && args.beta == 1.0 && args.d == args.c &&
        e.bias == BiasMode::None && e.act == Activation::None && !e.scale_d && !e.amax_d)
      return {};
    const dispatch::Plan p = dispatch::cached_plan(d, opt, &args);
    if (!p.status) return p.status;
    dispatch::LaunchPlan launch = p.launch;
    launch.dynamic = opt.dynamic_schedule;
    launch.sms = opt.sm_count_target;
    const dispatch::KernelInfo& k = *launch.kernel;
    if (k.workspace_bytes) {
      // A workspace the caller gives must be large enough; without one, kernels that can
      // take gemmkit's device pool do, the others fail.
      const std::size_t need = launch.workspace_bytes = k.workspace_bytes(d, &args, launch);
      if (need > 0 && (opt.workspace == nullptr ? !k.pooled_workspace : opt.workspace_bytes < need))
        return GEMMKIT_ERROR(StatusCode::WorkspaceTooSmall, Arg::Workspace,
                             "kernel " + k.name + " needs " + std::to_string(need) +
                                 " bytes of workspace, " + std::to_string(opt.workspace_bytes) +
                                 " given");
    }
    return k.run(d, args, launch, opt);
  } catch (const std::exception& e) {
    return GEMMKIT_ERROR(StatusCode::ExecutionFailed, Arg::None, e.what());
  }
}

}  // namespace gemmkit
