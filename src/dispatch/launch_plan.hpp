// What the planner hands a kernel: which configuration, which scheduler mode, how many K
// pieces, and the workspace the call needs. Options stay the caller's request (Options::split_k
// asks; LaunchPlan::split is what runs).
#pragma once
#include <cstddef>

#include "dispatch/kernel_config.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::dispatch {

struct KernelInfo;

struct LaunchPlan {
  const KernelInfo* kernel = nullptr;
  KernelConfig config;  // the kernel's configuration (a copy: what the ledger predicted with)
  sched::Mode mode = sched::Mode::DataParallel;
  // K pieces per output tile: 1 = none. 0 only for a kernel forced by name that supports
  // nothing but split-K when the planner has no count to give: the kernel's own policy.
  int split = 1;
  std::size_t workspace_bytes = 0;  // filled by the front door for the call's pointers
  bool dynamic = false;             // Options::dynamic_schedule (the front door's copy)
  int sms = 0;                      // Options::sm_count_target (the front door's copy; 0: all)
  double predicted_s = 0;           // the ledger's time for this plan (0: not predicted)
};

}  // namespace gemmkit::dispatch
