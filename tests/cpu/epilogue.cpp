// The fused epilogue: D = act(alpha * acc + bias + beta * C) with
// a bias per row or per column and act in {none, ReLU, GELU erf, GELU tanh, SiLU}. Validated at
// the front door (each bad value named), computed by the fp64 reference (core/epilogue_ref.hpp)
// and applied by the CPU packed kernels in their write-back; every other kernel refuses it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bench/testbed.hpp"
#include "core/element.hpp"
#include "core/epilogue_ref.hpp"
#include "core/view.hpp"
#include "cpu/activation.hpp"
#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"
#include "support/oracle.hpp"

namespace gemmkit {
namespace {

constexpr Activation kActs[] = {Activation::None, Activation::Relu, Activation::GeluErf,
                                Activation::GeluTanh, Activation::Silu};
constexpr BiasMode kBiases[] = {BiasMode::None, BiasMode::Row, BiasMode::Column};

using test::act_name;
using test::bias_name;

// ---------------------------------------------------------------- the activations (the spec)

TEST(CpuEpilogue, ActivationsAtKnownPoints) {
  using core::activate;
  EXPECT_DOUBLE_EQ(activate(Activation::GeluErf, 1.0), 0.8413447460685429);
  EXPECT_DOUBLE_EQ(activate(Activation::GeluErf, -1.0), -0.15865525393145707);
  EXPECT_NEAR(activate(Activation::GeluTanh, 1.0), 0.8411919906082768, 1e-15);
  EXPECT_DOUBLE_EQ(activate(Activation::Silu, 1.0), 0.7310585786300049);
  EXPECT_DOUBLE_EQ(activate(Activation::Relu, -2.0), 0.0);
  EXPECT_TRUE(std::signbit(activate(Activation::Relu, -0.0)));  // maxps(0, -0) = -0
  const double inf = std::numeric_limits<double>::infinity();
  for (Activation a : kActs) {
    EXPECT_TRUE(std::isnan(activate(a, std::nan(""))));
    EXPECT_EQ(activate(a, inf), inf);
    if (a != Activation::None) {
      EXPECT_EQ(activate(a, -inf), 0.0) << act_name(a);
    }
    // Float evaluation agrees with the double spec to a few float ulps.
    for (double x : {-30.0, -3.0, -0.5, 1e-3, 0.7, 2.5, 40.0}) {
      const double want = activate(a, x);
      const double got = activate(a, static_cast<float>(x));
      EXPECT_NEAR(got, want, 4e-7 * std::max(1.0, std::fabs(x))) << act_name(a) << " " << x;
    }
  }
}

// The f32 write-back's activations (cpu/activation.hpp: vectorizable exp, erfc) against the
// fp64 spec on a dense grid, and their special values.
TEST(CpuEpilogue, F32ActivationsFollowTheSpec) {
  for (Activation a : kActs) {
    double worst = 0, at = 0;
    for (int s = -400000; s <= 400000; ++s) {
      const float x = static_cast<float>(s * 1e-4);  // [-40, 40] in steps of 1e-4
      const double err =
          std::fabs(double(cpu::activate_as<float>(a, x)) - core::activate(a, double(x)));
      const double rel = err / std::max(1.0, std::fabs(double(x)));
      if (rel > worst) worst = rel, at = x;
    }
    EXPECT_LE(worst, 5e-7) << act_name(a) << " at x = " << at;
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(std::isnan(cpu::activate_as<float>(a, std::nanf(""))));
    EXPECT_EQ(cpu::activate_as<float>(a, inf), inf);
    if (a != Activation::None) {
      EXPECT_EQ(cpu::activate_as<float>(a, -inf), 0.0f) << act_name(a);
      EXPECT_LE(std::fabs(cpu::activate_as<float>(a, -1e30f)), 1e-6f) << act_name(a);
    }
    EXPECT_EQ(cpu::activate_as<float>(a, 1e30f), 1e30f) << act_name(a);
  }
}

// ---------------------------------------------------------------- the front door

struct Bufs {
  std::vector<float> a, b, c, d, bias;
};

GemmDesc small_desc() {
  GemmDesc d{.m = 5, .n = 4, .k = 3};
  return with_default_lds(d);
}

Status call(const GemmDesc& d, Bufs& x, bool null_bias = false) {
  GemmArgs args{x.a.data(), x.b.data(), x.c.data(), x.d.data(), 1.0, 0.5};
  args.bias = null_bias ? nullptr : x.bias.data();
  return gemm(d, args, {.backend = Backend::Cpu});
}

Bufs make_bufs() {
  return {std::vector<float>(15, 1), std::vector<float>(12, 1), std::vector<float>(20, 1),
          std::vector<float>(20, -7), std::vector<float>(5, 1)};
}

TEST(CpuEpilogue, BadValuesAreNamedAndChangeNothing) {
  struct Bad {
    GemmDesc desc;
    bool null_bias;
    Arg arg;
  };
  std::vector<Bad> bad;
  GemmDesc d = small_desc();
  d.epilogue.bias = static_cast<BiasMode>(9);
  bad.push_back({d, false, Arg::Epilogue});
  d = small_desc();
  d.epilogue.act = static_cast<Activation>(17);
  bad.push_back({d, false, Arg::Epilogue});
  d = small_desc();
  d.epilogue.bias = BiasMode::Row;
  d.epilogue.bias_dtype = DType::I8;
  bad.push_back({d, false, Arg::DTypeBias});
  d.epilogue.bias_dtype = DType::E4M3;
  bad.push_back({d, false, Arg::DTypeBias});
  d = small_desc();
  d.epilogue.bias = BiasMode::Column;
  bad.push_back({d, true, Arg::Bias});
  d = small_desc();
  d.a.dtype = d.b.dtype = DType::I8;
  d.c.dtype = d.d.dtype = d.compute = DType::I32;
  d.epilogue.act = Activation::Relu;
  bad.push_back({d, false, Arg::Epilogue});
  for (const Bad& x : bad) {
    Bufs b = make_bufs();
    const Bufs before = b;
    const Status s = call(x.desc, b, x.null_bias);
    EXPECT_EQ(s.code, StatusCode::InvalidValue) << to_string(s);
    EXPECT_EQ(s.arg, x.arg) << to_string(s);
    EXPECT_EQ(b.d, before.d);
    if (!x.null_bias) {  // a descriptor error: can_implement names it too
      EXPECT_EQ(can_implement(x.desc, {.backend = Backend::Cpu}).code, StatusCode::InvalidValue)
          << to_string(s);
    }
  }
  // D overlapping the bias.
  Bufs b = make_bufs();
  GemmDesc o = small_desc();
  o.epilogue.bias = BiasMode::Row;
  GemmArgs args{b.a.data(), b.b.data(), nullptr, b.d.data(), 1.0, 0.0};
  args.bias = b.d.data() + 3;
  const Status s = gemm(o, args, {.backend = Backend::Cpu});
  EXPECT_EQ(s.arg, Arg::D) << to_string(s);
  // M == 0: a quick return, any pointers.
  GemmDesc e = small_desc();
  e.m = 0;
  e.epilogue.bias = BiasMode::Row;
  EXPECT_TRUE(gemm(with_default_lds(e), GemmArgs{}, {.backend = Backend::Cpu}));
}

TEST(CpuEpilogue, OnlyKernelsThatFuseItImplementIt) {
  GemmDesc d{.m = 1, .n = 512, .k = 256};  // a GEMV shape
  d.epilogue.bias = BiasMode::Column;
  d.epilogue.act = Activation::GeluTanh;
  d = with_default_lds(d);
  const dispatch::Plan p = dispatch::make_plan(d, {.backend = Backend::Cpu});
  ASSERT_TRUE(p.launch.kernel);
  EXPECT_EQ(p.launch.kernel->role, dispatch::KernelRole::Production);
  EXPECT_TRUE(p.launch.kernel->fused_epilogue) << p.launch.kernel->name;
  EXPECT_EQ(p.launch.kernel->name.find("gemv"), std::string::npos);
  int refused = 0;
  for (const auto& k : dispatch::registry().all()) {
    if (k.fused_epilogue) continue;
    const Status s = k.can_implement(d);
    EXPECT_FALSE(s) << k.name << " would ignore the epilogue";
    refused += !s;
  }
  EXPECT_GT(refused, 0);
}

// ---------------------------------------------------------------- against the fp64 reference

// D against reference_visit_epilogue under the testbed's gauge bound: |d - ref| <=
// u_out * |ref| + (8 + sqrt(K)) * u_acc * gauge, gauge counting |bias| and the activation's
// slope; NaN where the reference has none fails. Also checks D's padding.
std::string check(const bench::HostCase& hc, const void* bias, const std::vector<std::uint8_t>& got,
                  const std::vector<std::uint8_t>& before, const void* scale_a = nullptr,
                  const void* scale_b = nullptr) {
  const GemmDesc& d = hc.desc;
  const core::Strides sd = core::stored_strides(d.d.layout, d.d.ld);
  GemmArgs in{hc.a.data(), hc.b.data(), hc.c.data(), nullptr, hc.alpha, hc.beta};
  in.bias = bias;
  in.scale_a = scale_a, in.scale_b = scale_b;
  const double uo = bench::unit_roundoff(d.d.dtype), ua = bench::unit_roundoff(d.compute);
  const double growth = 8.0 + std::sqrt(double(d.k));
  std::string first;
  std::int64_t bad = 0;
  std::vector<bool> touched(got.size(), false);
  core::reference_visit_epilogue(
      d, in, true, [&](std::int64_t, std::int64_t i, std::int64_t j, double want, double gauge) {
        const std::int64_t idx = i * sd.row + j * sd.col;
        touched[idx * dtype_bits(d.d.dtype) / 8] = true;
        const double x = core::load_element(d.d.dtype, got.data(), idx);
        const double bound = uo * std::fabs(want) + growth * ua * gauge;
        const bool ok = std::isnan(want) ? std::isnan(x) : std::fabs(x - want) <= bound;
        if (!ok && bad++ == 0)
          first = "D(" + std::to_string(i) + "," + std::to_string(j) + "): got " +
                  std::to_string(x) + ", want " + std::to_string(want) + " (bound " +
                  std::to_string(bound) + ")";
      });
  // Bytes no element of D owns (the gaps of ld > rows, the guard band) keep the sentinel.
  const int eb = dtype_bits(d.d.dtype) / 8;
  for (std::size_t p = 0; p < got.size(); p += eb)
    if (!touched[p] && std::memcmp(&got[p], &before[p], eb) != 0 && bad++ == 0)
      first = "padding byte " + std::to_string(p) + " changed";
  return bad ? std::to_string(bad) + " bad, first " + first : "";
}

struct Case {
  std::int64_t m, n, k;
  int layout;  // bits: trans_a, trans_b, row-major A, B, C/D
};

GemmDesc case_desc(const Case& c, DType in, DType out, BiasMode bias, DType bias_t,
                   Activation act) {
  GemmDesc d{.m = c.m, .n = c.n, .k = c.k};
  d.trans_a = (c.layout & 1) ? Op::Trans : Op::NoTrans;
  d.trans_b = (c.layout & 2) ? Op::Trans : Op::NoTrans;
  d.a.layout = (c.layout & 4) ? Layout::RowMajor : Layout::ColMajor;
  d.b.layout = (c.layout & 8) ? Layout::RowMajor : Layout::ColMajor;
  d.c.layout = d.d.layout = (c.layout & 16) ? Layout::RowMajor : Layout::ColMajor;
  d.a.dtype = d.b.dtype = in;
  d.c.dtype = d.d.dtype = out;
  d.compute = out == DType::F64 ? DType::F64 : DType::F32;
  d.epilogue = {.bias = bias, .bias_dtype = bias_t, .act = act};
  d = with_default_lds(d);
  d.d.ld += c.layout % 2;  // a gap between D's rows or columns
  d.c.ld = d.d.ld;
  return d;
}

// One case on `kernel`: C U[-1, 1], or all NaN when beta == 0 (never read); bias U[-1, 1].
std::string run_case(const char* kernel, const GemmDesc& d, double alpha, double beta,
                     std::uint64_t seed) {
  bench::HostCase hc = bench::HostCase::make(d, alpha, beta, seed);
  if (beta == 0.0) {
    const std::int64_t elems = static_cast<std::int64_t>(
        (hc.c.size() - bench::HostCase::kGuardBytes) * 8 / dtype_bits(d.c.dtype));
    for (std::int64_t e = 0; e < elems; ++e)
      core::store_element(d.c.dtype, hc.c.data(), e, std::numeric_limits<double>::quiet_NaN());
  }
  const std::int64_t len = d.epilogue.bias == BiasMode::Row ? d.m : d.n;
  std::vector<std::uint8_t> bias(len * 8 + 64);
  bench::fill_uniform(d.epilogue.bias_dtype, bias.data(), len, seed * 7 + 5);
  // Scales U[-2, 2] (1, M or N of them); null when unused.
  std::vector<float> sa(d.m + 1), sb(d.n + 1);
  bench::fill_uniform(DType::F32, sa.data(), d.m + 1, seed * 7 + 6, -2.0, 2.0);
  bench::fill_uniform(DType::F32, sb.data(), d.n + 1, seed * 7 + 7, -2.0, 2.0);
  const auto bias0 = bias, c0 = hc.c, d0 = hc.d;
  GemmArgs args = hc.args();
  args.bias = d.epilogue.bias == BiasMode::None ? nullptr : bias.data();
  args.scale_a = d.scale_a.mode == ScaleMode::None ? nullptr : sa.data();
  args.scale_b = d.scale_b.mode == ScaleMode::None ? nullptr : sb.data();
  if (alpha == 0.0) args.a = args.b = args.scale_a = args.scale_b = nullptr;
  const Options opt{.backend = Backend::Cpu, .kernel = kernel, .threads = 2};
  if (Status s = gemm(hc.desc, args, opt); !s) return to_string(s);
  if (bias != bias0 || hc.c != c0) return "the bias or C was modified";
  if (bench::corrupt_result_requested()) bench::corrupt_d00(hc.desc, hc.d);
  return check(hc, args.bias, hc.d, d0, args.scale_a, args.scale_b);
}

std::vector<std::string> fused_kernels(DType in, DType out) {
  std::vector<std::string> names;
  GemmDesc probe = case_desc({16, 16, 16, 0}, in, out, BiasMode::Row,
                             out == DType::F64 ? DType::F64 : DType::F32, Activation::Silu);
  for (const auto& k : dispatch::registry().all())
    if (k.backend == Backend::Cpu && k.role == dispatch::KernelRole::Production &&
        k.can_implement(probe))
      names.push_back(k.name);
  return names;
}

// Every bias mode x activation x beta (0 with NaN C, != 0), on shapes with edge tiles in both
// directions, a full register tile, and K across three K blocks (KC = 256).
TEST(CpuEpilogue, EveryCombinationAgainstTheReference) {
  const std::uint64_t seed = test::test_seed();
  const Case cases[] = {
      {19, 37, 5, 0}, {16, 64, 300, 16}, {33, 70, 600, 16 + 5}, {9, 48, 257, 2 + 8}};
  struct Types {
    DType in, out, bias;
  };
  const Types types[] = {{DType::F32, DType::F32, DType::F32},
                         {DType::BF16, DType::BF16, DType::BF16},
                         {DType::F16, DType::F16, DType::F16},
                         {DType::F32, DType::BF16, DType::F32}};
  int i = 0, failures = 0, runs = 0;
  for (const Types& t : types)
    for (const std::string& kn : fused_kernels(t.in, t.out))
      for (BiasMode bias : kBiases)
        for (Activation act : kActs)
          for (double beta : {0.0, 1.3}) {
            const Case& c = cases[i % 4];
            const GemmDesc d = case_desc(c, t.in, t.out, bias, t.bias, act);
            const double alpha = i % 3 == 0 ? -0.8 : 1.0;
            const std::string err = run_case(kn.c_str(), d, alpha, beta, seed + i);
            ++runs;
            if (!err.empty() && ++failures <= 8)
              ADD_FAILURE() << kn << " " << dtype_name(t.in) << "->" << dtype_name(t.out)
                            << " bias " << bias_name(bias) << " (" << dtype_name(t.bias) << ") act "
                            << act_name(act) << " beta " << beta << " " << c.m << "x" << c.n << "x"
                            << c.k << ": " << err;
            ++i;
          }
  EXPECT_EQ(failures, 0);
  EXPECT_GE(runs, 4 * 15 * 2);  // the portable kernel at least; avx512 / avx2 where they run
}

TEST(CpuEpilogue, F64Kernels) {
  const std::uint64_t seed = test::test_seed();
  int i = 0;
  for (const std::string& kn : fused_kernels(DType::F64, DType::F64))
    for (BiasMode bias : kBiases)
      for (Activation act : kActs) {
        const GemmDesc d =
            case_desc({21, 30, 300, i % 32}, DType::F64, DType::F64, bias, DType::F64, act);
        const std::string err = run_case(kn.c_str(), d, 0.9, i % 2 ? 0.0 : -1.1, seed + i);
        EXPECT_TRUE(err.empty()) << kn << " bias " << bias_name(bias) << " act " << act_name(act)
                                 << ": " << err;
        ++i;
      }
}

// The check can fail: D computed without the epilogue (what a kernel that ignored it would
// give) is caught for every bias mode and activation but the plain one.
TEST(CpuEpilogue, TheCheckSeesAMissingEpilogue) {
  for (BiasMode bias : kBiases)
    for (Activation act : kActs) {
      if (bias == BiasMode::None && act == Activation::None) continue;
      const GemmDesc d = case_desc({19, 37, 40, 0}, DType::F32, DType::F32, bias, DType::F32, act);
      bench::HostCase hc = bench::HostCase::make(d, 1.0, 0.0, test::test_seed());
      std::vector<float> b(64, 0.25f);
      const auto d0 = hc.d;
      GemmDesc plain = hc.desc;
      plain.epilogue = {};
      ASSERT_TRUE(gemm(plain, hc.args(), {.backend = Backend::Cpu}));
      EXPECT_NE(check(hc, b.data(), hc.d, d0), "") << bias_name(bias) << " " << act_name(act);
    }
}

// alpha == 0 and K == 0 read neither A nor B: D = act(beta * C + bias).
TEST(CpuEpilogue, ScaleOnlyPath) {
  const std::uint64_t seed = test::test_seed();
  for (const std::string& kn : fused_kernels(DType::BF16, DType::BF16))
    for (BiasMode bias : {BiasMode::Row, BiasMode::Column})
      for (Activation act : {Activation::Relu, Activation::GeluErf})
        for (double beta : {0.0, 1.5}) {
          GemmDesc d = case_desc({13, 29, 7, 16}, DType::BF16, DType::BF16, bias, DType::F32, act);
          EXPECT_EQ(run_case(kn.c_str(), d, 0.0, beta, seed), "") << kn;
          d.k = 0;
          d = with_default_lds(d);
          EXPECT_EQ(run_case(kn.c_str(), d, 1.0, beta, seed), "") << kn << " K = 0";
        }
}

// Scales of A (per tensor, per row of op(A)) and B (per tensor, per column of op(B)), alone and
// with a bias and GELU, beta == 0 (NaN C) and != 0, K across K blocks.
TEST(CpuEpilogue, ScalesOfAAndB) {
  const std::uint64_t seed = test::test_seed();
  const Case cases[] = {{19, 37, 5, 0}, {16, 64, 300, 16}, {33, 70, 600, 16 + 5}};
  int i = 0, failures = 0;
  for (auto [in, out] :
       {std::pair{DType::F32, DType::F32}, {DType::BF16, DType::BF16}, {DType::F64, DType::F64}})
    for (const std::string& kn : fused_kernels(in, out))
      for (ScaleMode sa : {ScaleMode::None, ScaleMode::Tensor, ScaleMode::Row})
        for (ScaleMode sb : {ScaleMode::None, ScaleMode::Tensor, ScaleMode::Column})
          for (bool fused : {false, true})
            for (double beta : {0.0, 1.3}) {
              const Case& c = cases[i % 3];
              GemmDesc d = case_desc(c, in, out, fused ? BiasMode::Column : BiasMode::None,
                                     out == DType::F64 ? DType::F64 : DType::F32,
                                     fused ? Activation::GeluErf : Activation::None);
              d.scale_a.mode = sa;
              d.scale_b.mode = sb;
              const std::string err = run_case(kn.c_str(), d, 0.9, beta, seed + i);
              if (!err.empty() && ++failures <= 8)
                ADD_FAILURE() << kn << " " << dtype_name(out) << " scale_a " << int(sa)
                              << " scale_b " << int(sb) << (fused ? " +bias+gelu" : "") << " beta "
                              << beta << " " << c.m << "x" << c.n << "x" << c.k << ": " << err;
              ++i;
            }
  EXPECT_EQ(failures, 0);
}

TEST(CpuEpilogue, BadScalesAreNamed) {
  Bufs b = make_bufs();
  const std::vector<float> before = b.d;
  GemmDesc d = small_desc();
  d.scale_a.mode = ScaleMode::Column;  // a column scale of A
  EXPECT_EQ(call(d, b).arg, Arg::ScaleA);
  d = small_desc();
  d.scale_b.mode = ScaleMode::Row;
  EXPECT_EQ(call(d, b).arg, Arg::ScaleB);
  d.scale_b.mode = static_cast<ScaleMode>(40);
  EXPECT_EQ(call(d, b).arg, Arg::ScaleB);
  d = small_desc();
  d.scale_a.mode = ScaleMode::Row;  // GemmArgs::scale_a null
  EXPECT_EQ(call(d, b).arg, Arg::ScaleA);
  d = small_desc();
  d.a.dtype = d.b.dtype = DType::I8;
  d.c.dtype = d.d.dtype = d.compute = DType::I32;
  d.scale_b.mode = ScaleMode::Tensor;
  EXPECT_EQ(can_implement(d, {.backend = Backend::Cpu}).arg, Arg::ScaleB);
  EXPECT_EQ(b.d, before);
  // alpha == 0 reads no scale: null is fine.
  d = small_desc();
  d.scale_a.mode = ScaleMode::Row;
  GemmArgs args{nullptr, nullptr, b.c.data(), b.d.data(), 0.0, 2.0};
  EXPECT_TRUE(gemm(d, args, {.backend = Backend::Cpu}));
  EXPECT_EQ(b.d[0], 2.0f);
}

// The reference path computes the epilogue too (it is what serves problems no kernel can).
TEST(CpuEpilogue, ReferenceKernel) {
  const GemmDesc d = case_desc({7, 9, 11, 0}, DType::F32, DType::F32, BiasMode::Column, DType::F16,
                               Activation::GeluTanh);
  EXPECT_EQ(run_case("cpu.reference", d, 1.0, 0.5, test::test_seed()), "");
}

}  // namespace
}  // namespace gemmkit
