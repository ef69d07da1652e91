// Grouped GEMM: a list of independent problems of different shapes in one call (MoE experts,
// per-head attention blocks). Each problem keeps its own descriptor, pointers and scalars.
#pragma once
#include <cstdint>

#include "gemmkit/gemm.hpp"

namespace gemmkit {

struct GemmProblem {
  GemmDesc desc;
  GemmArgs args;
};

// Validates the whole list before running anything: group_count < 0 (or problems == nullptr
// with group_count > 0) is InvalidValue naming Arg::GroupCount; a bad problem returns the
// status of gemm() for it, with "group <i>: " leading its message. On any error no output
// byte changes. Empty problems (M, N or batch 0) are quick returns; group_count == 0 succeeds.
Status gemm_grouped(const GemmProblem* problems, std::int64_t group_count, const Options& opt = {});

}  // namespace gemmkit
