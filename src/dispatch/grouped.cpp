// Grouped GEMM: validate every group, plan every group, then run them. Small groups run side
// by side, one per thread; large ones one after another, each with the whole team.
#include "gemmkit/grouped.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "core/status.hpp"
#include "core/validate.hpp"
#include "dispatch/plan_cache.hpp"

namespace gemmkit {

namespace {

Status in_group(Status s, std::int64_t g) {
  s.message = "group " + std::to_string(g) + ": " + s.message;
  return s;
}

}  // namespace

Status gemm_grouped(const GemmProblem* problems, std::int64_t group_count, const Options& opt) {
  if (group_count < 0)
    return GEMMKIT_INVALID(Arg::GroupCount,
                           "group_count = " + std::to_string(group_count) + " is negative");
  if (group_count > 0 && problems == nullptr)
    return GEMMKIT_INVALID(Arg::GroupCount, "problems is null with group_count > 0");
  // Validate and plan everything first: an error must leave every output untouched.
  std::vector<GemmDesc> descs(group_count);
  double max_flops = 0;
  for (std::int64_t g = 0; g < group_count; ++g) {
    descs[g] = with_default_lds(problems[g].desc);
    if (Status s = core::validate_desc(descs[g]); !s) return in_group(s, g);
    if (Status s = core::validate_args(descs[g], problems[g].args); !s) return in_group(s, g);
    if (core::is_empty(descs[g])) continue;
    if (Status s = dispatch::cached_plan(descs[g], opt, &problems[g].args).status; !s)
      return in_group(s, g);
    max_flops = std::max(max_flops, 2.0 * descs[g].m * descs[g].n * descs[g].k * descs[g].batch);
  }
  // Run. Groups of under ~4 MFLOP gain nothing from a team of their own.
  const int team = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  Status first_error;
  if (group_count > 1 && team > 1 && max_flops < 4e6) {
    Options one = opt;
    one.threads = 1;
    std::vector<Status> st(group_count);
#pragma omp parallel for num_threads(team) schedule(dynamic)
    for (std::int64_t g = 0; g < group_count; ++g) st[g] = gemm(descs[g], problems[g].args, one);
    for (std::int64_t g = 0; g < group_count; ++g)
      if (!st[g]) return in_group(st[g], g);
    return {};
  }
  for (std::int64_t g = 0; g < group_count; ++g)
    if (Status s = gemm(descs[g], problems[g].args, opt); !s) return in_group(s, g);
  return {};
}

}  // namespace gemmkit
