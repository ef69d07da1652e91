#include "bench/problem_check.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>

#include "bench/gpu_runtime.hpp"
#include "bench/reference_blas.hpp"
#include "bench/testbed.hpp"
#include "core/status.hpp"
#include "core/validate.hpp"
#include "core/view.hpp"
#include "dispatch/planner.hpp"

namespace gemmkit::bench {

namespace {

// 2^62: byte counts and sums of a few of them stay far from 2^63.
constexpr __int128 kMaxBytes = static_cast<__int128>(1) << 62;

// Bytes of one operand over all batches in 128-bit arithmetic (no wrap for any int64 input).
__int128 wide_bytes(const MatrixDesc& m, Extent e, std::int64_t batch, bool batches) {
  if (e.rows == 0 || e.cols == 0 || batch == 0) return 0;
  const bool col = m.layout == Layout::ColMajor;
  __int128 elems =
      static_cast<__int128>(col ? e.cols - 1 : e.rows - 1) * m.ld + (col ? e.rows : e.cols);
  if (batches) elems += static_cast<__int128>(batch - 1) * m.batch_stride;
  return (elems * dtype_bits(m.dtype) + 7) / 8;
}

std::string describe(const char* name, const MatrixDesc& m, Extent e, std::int64_t batch) {
  std::ostringstream os;
  os << name << " (" << e.rows << " x " << e.cols << ", ld " << m.ld << ", " << batch
     << " batches of stride " << m.batch_stride << ")";
  return os.str();
}

std::int64_t meminfo_kb(const char* key) {
  std::ifstream f("/proc/meminfo");
  std::string k;
  std::int64_t v;
  std::string unit;
  while (f >> k >> v) {
    std::getline(f, unit);
    if (k == key) return v;
  }
  return -1;
}

}  // namespace

Status validate_problem(const GemmDesc& desc) {
  const GemmDesc d = with_default_lds(desc);
  if (Status s = core::validate_desc(d); !s) return s;
  struct Operand {
    const char* name;
    const MatrixDesc& m;
    Extent e;
    Arg ld, stride;
  };
  const Operand ops[] = {{"A", d.a, stored_extent_a(d), Arg::Lda, Arg::StrideA},
                         {"B", d.b, stored_extent_b(d), Arg::Ldb, Arg::StrideB},
                         {"C", d.c, stored_extent_cd(d), Arg::Ldc, Arg::StrideC},
                         {"D", d.d, stored_extent_cd(d), Arg::Ldd, Arg::StrideD}};
  for (const Operand& o : ops) {
    // One matrix first: its size is ld times its lines.
    if (wide_bytes(o.m, o.e, d.batch, false) >= kMaxBytes)
      return GEMMKIT_INVALID(
          o.ld, describe(o.name, o.m, o.e, d.batch) + ": one matrix spans 2^62 bytes or more");
    if (wide_bytes(o.m, o.e, d.batch, true) >= kMaxBytes)
      return GEMMKIT_INVALID(
          o.stride, describe(o.name, o.m, o.e, d.batch) + ": its batches span 2^62 bytes or more");
  }
  __int128 total = 0;
  for (const Operand& o : ops) total += wide_bytes(o.m, o.e, d.batch, true);
  if (total >= kMaxBytes)
    return GEMMKIT_INVALID(Arg::Batch, "A, B, C and D together span 2^62 bytes or more");
  return {};
}

std::int64_t problem_bytes(const GemmDesc& desc) {
  const GemmDesc d = with_default_lds(desc);
  return static_cast<std::int64_t>(operand_bytes(d.a, stored_extent_a(d), d.batch) +
                                   operand_bytes(d.b, stored_extent_b(d), d.batch) +
                                   operand_bytes(d.c, stored_extent_cd(d), d.batch) +
                                   operand_bytes(d.d, stored_extent_cd(d), d.batch)) +
         4 * static_cast<std::int64_t>(HostCase::kGuardBytes);
}

MemoryNeed run_memory(const GemmDesc& d, bool on_device) {
  const std::int64_t ops = problem_bytes(d);
  return MemoryNeed{ops, on_device ? ops : 0, "A, B, C and D"};
}

MemoryNeed verify_memory(const GemmDesc& desc, bool on_device, bool full_check) {
  const GemmDesc d = with_default_lds(desc);
  // 128-bit sums, saturated: the products below may pass 2^63 for a valid problem.
  const __int128 ops = problem_bytes(d);
  const __int128 mn = core::is_empty(d) ? 0 : static_cast<__int128>(d.m) * d.n * d.batch;
  const __int128 d_bytes = operand_bytes(d.d, stored_extent_cd(d), d.batch);
  // The case, its untouched copy (inputs-unchanged check) and the candidate's D.
  __int128 host = 2 * ops + d_bytes, device = 0;
  std::string what = "A, B, C, D, the testbed's copies";
  if (on_device) {
    device = ops;
    if (full_check) {
      device += 16 * mn;  // the GPU reference's values and gauges
      host += 16 * mn;
      what += ", the GPU reference's result";
    }
  } else if (full_check) {
    // reference_dgemm (bench/reference_blas.cpp): widened operands and products of one batch,
    // the values and gauges of all batches.
    const __int128 one = static_cast<__int128>(d.m) * d.k + static_cast<__int128>(d.k) * d.n +
                         2 * static_cast<__int128>(d.m) * d.n;
    host += core::is_empty(d) ? 0 : 8 * one + 16 * mn;
    what += ", the fp64 reference (widened operands, result)";
  } else {
    host += 8 * 4 * (static_cast<__int128>(d.m) + d.n + d.k);
    what += ", the probe vectors";
  }
  const auto sat = [](__int128 v) {
    return v > INT64_MAX ? INT64_MAX : static_cast<std::int64_t>(v);
  };
  return MemoryNeed{sat(host), sat(device), what};
}

MemoryNeed bench_memory(const GemmDesc& d, bool on_device, const CheckPolicy& policy) {
  MemoryNeed need = verify_memory(d, on_device, resolve_check(d, policy) == CheckMode::Full);
  const std::int64_t set = problem_bytes(d);
  std::int64_t& where = on_device ? need.device : need.host;
  where = where > INT64_MAX - set ? INT64_MAX : where + set;
  need.what += ", one rotation set";
  return need;
}

std::int64_t host_available_bytes() {
  const std::int64_t kb = meminfo_kb("MemAvailable:");
  return kb < 0 ? -1 : kb * 1024;
}

std::int64_t device_available_bytes() {
  const gpu::DeviceInfo info = gpu::query_device();
  return info.ok ? info.free_mem_bytes : -1;
}

Status check_memory(const MemoryNeed& need) {
  const auto refuse = [&](const char* where, std::int64_t needed, std::int64_t available,
                          const char* source) {
    std::ostringstream os;
    os << "the problem needs " << needed << " bytes of " << where << " memory (" << need.what
       << ") and " << available << " bytes are available (" << source << ")";
    return GEMMKIT_ERROR(StatusCode::NotSupported, Arg::None, os.str());
  };
  if (need.host > 0) {
    const std::int64_t avail = host_available_bytes();
    if (avail >= 0 && need.host > avail)
      return refuse("host", need.host, avail, "MemAvailable in /proc/meminfo");
  }
  if (need.device > 0) {
    const std::int64_t avail = device_available_bytes();
    if (avail >= 0 && need.device > avail)
      return refuse("device", need.device, avail, "cudaMemGetInfo");
  }
  return {};
}

std::string why_no_kernel(const GemmDesc& d, const Options& opt) {
  const dispatch::Plan plan =
      dispatch::make_plan(with_default_lds(d), opt, nullptr, /*with_reasons=*/true);
  if (plan.status && plan.launch.kernel) return {};
  std::string why = to_string(plan.status);
  int shown = 0;
  for (const std::string& r : plan.reasons) {
    if (r.rfind("skipped ", 0) != 0) continue;
    if (shown++ == 3) {
      why += "; ...";
      break;
    }
    why += "; " + r;
  }
  return why;
}

}  // namespace gemmkit::bench
