// The low-precision GEMM tests' checks (tests/cpu/quant_*.cpp): D against the fp64 reference
// with its scales, on every CPU production kernel that takes the problem; bad descriptors named
// by the front door.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/epilogue_ref.hpp"
#include "core/view.hpp"
#include "dispatch/registry.hpp"

namespace gemmkit::test {

// A problem from `layout` bits: trans_a (1), trans_b (2), row-major A (4), B (8), C and D (16);
// lds left 0 (packed); i32 accumulation for an i32 D, else f32.
inline GemmDesc layout_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType ta, DType tb,
                            DType out, int layout) {
  GemmDesc d{.m = m, .n = n, .k = k};
  d.trans_a = (layout & 1) ? Op::Trans : Op::NoTrans;
  d.trans_b = (layout & 2) ? Op::Trans : Op::NoTrans;
  d.a = {ta, (layout & 4) ? Layout::RowMajor : Layout::ColMajor, 0, 0};
  d.b = {tb, (layout & 8) ? Layout::RowMajor : Layout::ColMajor, 0, 0};
  d.c = d.d = {out, (layout & 16) ? Layout::RowMajor : Layout::ColMajor, 0, 0};
  d.compute = out == DType::I32 ? DType::I32 : DType::F32;
  return d;
}

// layout_desc with MX scales (e8m0, one per 32 K) on A and / or B, S laid out as A (B) is
// (row-major when trans_a), packed, S_A's ld one longer for odd layouts (a gap to keep).
inline GemmDesc mx_desc(std::int64_t m, std::int64_t n, std::int64_t k, DType ta, DType tb,
                        DType out, int layout, bool mx_a = true, bool mx_b = true) {
  GemmDesc d = layout_desc(m, n, k, ta, tb, out, layout);
  for (ScaleDesc* s : {&d.scale_a, &d.scale_b}) {
    if (s == &d.scale_a ? !mx_a : !mx_b) continue;
    s->mode = ScaleMode::Mx;
    s->dtype = DType::E8M0;
    s->layout = (layout & 1) ? Layout::RowMajor : Layout::ColMajor;
  }
  d = with_default_lds(d);
  if (mx_a) d.scale_a.ld += layout % 2;
  return d;
}

// D against the fp64 reference (reference_visit_epilogue, scales included) under the gauge
// bound u_out |ref| + (8 + sqrt(K)) u_f32 gauge (the bias and the activation included): the CPU
// path dequantizes exactly (fp8) or to f32 (integer weights) and sums in f32, so this is
// stricter than the testbed's similarity. NaN must match NaN; an infinite
// reference must be matched bit for bit. Returns "" or the first failure.
// `bias` null: the case's own (HostCase::bias, when the epilogue has one).
inline std::string check_d(const bench::HostCase& hc, const std::vector<std::uint8_t>& got,
                           const void* bias = nullptr) {
  const GemmDesc& d = hc.desc;
  GemmArgs in = hc.inputs();
  if (bias) in.bias = bias;
  const core::Strides sd = core::stored_strides(d.d.layout, d.d.ld);
  const double uo = bench::unit_roundoff(d.d.dtype), ua = bench::unit_roundoff(DType::F32);
  const double growth = 8.0 + std::sqrt(double(d.k));
  std::string first;
  std::int64_t bad = 0;
  core::reference_visit_epilogue(
      d, in, true, [&](std::int64_t, std::int64_t i, std::int64_t j, double want, double gauge) {
        const double x = core::load_element(d.d.dtype, got.data(), i * sd.row + j * sd.col);
        const double bound = uo * std::fabs(want) + growth * ua * gauge;
        const bool ok = std::isnan(want)   ? std::isnan(x)
                        : std::isinf(want) ? x == want
                                           : std::fabs(x - want) <= bound;
        if (!ok && bad++ == 0)
          first = "D(" + std::to_string(i) + "," + std::to_string(j) + "): got " +
                  std::to_string(x) + ", want " + std::to_string(want) + " (bound " +
                  std::to_string(bound) + ")";
      });
  return bad ? std::to_string(bad) + " bad, first " + first : "";
}

// The CPU production kernels that take a problem (the planner's candidates but the reference).
inline std::vector<std::string> production_kernels(const GemmDesc& d) {
  std::vector<std::string> names;
  for (const auto& k : dispatch::registry().all())
    if (k.backend == Backend::Cpu && k.role == dispatch::KernelRole::Production &&
        k.can_implement(d))
      names.push_back(k.name);
  return names;
}

inline std::string run_on(const char* kernel, bench::HostCase& hc, const void* bias = nullptr) {
  const auto a0 = hc.a, b0 = hc.b, c0 = hc.c;
  const auto sa0 = hc.scale_a, sb0 = hc.scale_b;
  std::vector<std::uint8_t> got = hc.d;
  GemmArgs args = hc.args();
  args.d = got.data();
  if (bias) args.bias = bias;
  const Options opt{.backend = Backend::Cpu, .kernel = kernel, .threads = 2};
  if (Status s = gemm(hc.desc, args, opt); !s) return to_string(s);
  if (hc.a != a0 || hc.b != b0 || hc.c != c0 || hc.scale_a != sa0 || hc.scale_b != sb0)
    return "an input or a scale was modified";
  // D's padding (the gap of ld and the guard band) keeps the sentinel.
  const core::Strides sd = core::stored_strides(hc.desc.d.layout, hc.desc.d.ld);
  const int eb = dtype_bits(hc.desc.d.dtype) / 8;
  std::vector<bool> logical(got.size(), false);
  for (std::int64_t i = 0; i < hc.desc.m; ++i)
    for (std::int64_t j = 0; j < hc.desc.n; ++j)
      for (int b = 0; b < eb; ++b) logical[(i * sd.row + j * sd.col) * eb + b] = true;
  for (std::size_t p = 0; p < got.size(); ++p)
    if (!logical[p] && got[p] != hc.d[p]) return "padding byte " + std::to_string(p) + " changed";
  if (bench::corrupt_result_requested()) bench::corrupt_d00(hc.desc, got);
  return check_d(hc, got, bias);
}

// "MxNxK", for failure messages.
inline std::string shape_name(std::int64_t m, std::int64_t n, std::int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// "e4m3xe2m1 mx A,B 7x17x96 layout 11": an MX problem (mx_desc's), for failure messages.
inline std::string mx_name(const GemmDesc& d, int layout) {
  const bool a = d.scale_a.mode == ScaleMode::Mx, b = d.scale_b.mode == ScaleMode::Mx;
  return std::string(dtype_name(d.a.dtype)) + "x" + std::string(dtype_name(d.b.dtype)) + " mx " +
         (a && b ? "A,B"
          : a    ? "A"
                 : "B") +
         " " + shape_name(d.m, d.n, d.k) + " layout " + std::to_string(layout);
}

// run_on for every production kernel that takes hc's problem. Each wrong result adds one to
// *failures; the first 8 are reported as failures, with the kernel's name and what() (the case,
// described only then). Returns the number of kernels run.
template <class Describe>
int run_on_every_kernel(bench::HostCase& hc, int* failures, Describe&& what,
                        const void* bias = nullptr) {
  int runs = 0;
  for (const std::string& k : production_kernels(hc.desc)) {
    const std::string err = run_on(k.c_str(), hc, bias);
    ++runs;
    if (!err.empty() && ++*failures <= 8) ADD_FAILURE() << k << " " << what() << ": " << err;
  }
  return runs;
}

// A descriptor the front door refuses: InvalidValue naming `arg`, with `says` in the message
// when it is not null.
struct BadDesc {
  const char* what;
  GemmDesc desc;
  Arg arg;
  const char* says = nullptr;
};

// Each bad descriptor through gemm() on the CPU with `args` (pointers that would do for a good
// one), and with `can_implement_too` through can_implement, which must name the same argument.
inline void expect_named(const std::vector<BadDesc>& bad, const GemmArgs& args,
                         bool can_implement_too = false) {
  for (const BadDesc& x : bad) {
    const Status st = gemm(x.desc, args, {.backend = Backend::Cpu});
    EXPECT_EQ(st.code, StatusCode::InvalidValue) << x.what << ": " << to_string(st);
    EXPECT_EQ(st.arg, x.arg) << x.what << ": " << to_string(st);
    if (x.says) {
      EXPECT_NE(st.message.find(x.says), std::string::npos) << x.what << ": " << st.message;
    }
    if (can_implement_too) {
      EXPECT_EQ(can_implement(x.desc, {.backend = Backend::Cpu}).arg, x.arg) << x.what;
    }
  }
}

}  // namespace gemmkit::test
