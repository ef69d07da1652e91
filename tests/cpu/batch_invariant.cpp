// Options::batch_invariant on the CPU backend: each row of D has the same bits whatever M is.
// One M = 4096 problem is computed once; problems of M = 1, 7, 64, 1000 whose rows of A (and
// C) are its first rows must give its first rows bit for bit (memcmp), for f32 and bf16 inputs,
// two (N, K), beta 0 and not, with column scales, a bias and GELU (whose edge-tile scalar
// write-back rounds otherwise than the full tiles' registers), through the planner and through
// every M-invariant production kernel this CPU runs. The planner's plan is one kernel, config and
// mode for every M; the options that contradict the mode are refused naming them, with D unchanged.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dispatch/model_json.hpp"
#include "dispatch/plan_cache.hpp"
#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"
#include "gemmkit/convert.hpp"
#include "gemmkit/gemm.hpp"
#include "support/xwt_case.hpp"

namespace gemmkit {
namespace {

constexpr std::int64_t kBigM = 4096;
constexpr std::int64_t kSmallM[] = {1, 7, 64, 1000};

struct Shape {
  std::int64_t n, k;
};
constexpr Shape kShapes[] = {{384, 1000}, {200, 2333}};  // the second: edge columns, odd K

struct Types {
  DType in, out;
};
constexpr Types kTypes[] = {
    {DType::F32, DType::F32}, {DType::BF16, DType::BF16}, {DType::BF16, DType::F32}};

// x @ W^T (support/xwt_case.hpp). `fused`: a per-column scale of B, a column bias and GELU.
GemmDesc desc_of(std::int64_t m, Shape s, Types t, bool fused = false) {
  GemmDesc d = test::xwt_desc(m, s.n, s.k, t.in, t.out);
  if (fused) {
    d.scale_b.mode = ScaleMode::Column;
    d.epilogue.bias = BiasMode::Column;
    d.epilogue.act = Activation::GeluErf;
  }
  return d;
}

// `count` values U[-1, 1] stored as `t` (f32 or bf16).
std::vector<std::uint8_t> fill(std::int64_t count, DType t, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(count * dtype_bits(t) / 8));
  for (std::int64_t i = 0; i < count; ++i) {
    const float v = u(rng);
    if (t == DType::BF16) {
      const std::uint16_t b = to_bf16(v);
      std::memcpy(out.data() + 2 * i, &b, 2);
    } else {
      std::memcpy(out.data() + 4 * i, &v, 4);
    }
  }
  return out;
}

struct Operands {
  std::vector<std::uint8_t> a, b, c;
  std::vector<float> scale_b, bias;  // N values each, for a fused problem
};

// A and C of `rows` rows, B.
Operands operands(Shape s, Types t, std::uint64_t seed, std::int64_t rows = kBigM) {
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  Operands o{fill(rows * s.k, t.in, rng), fill(s.k * s.n, t.in, rng), fill(rows * s.n, t.out, rng),
             std::vector<float>(static_cast<std::size_t>(s.n)),
             std::vector<float>(static_cast<std::size_t>(s.n))};
  std::uniform_real_distribution<float> u(0.5f, 2.0f);
  for (float& x : o.scale_b) x = u(rng);
  for (float& x : o.bias) x = u(rng) - 1.0f;
  return o;
}

// D of an m-row problem over the first rows of `ops`.
std::vector<std::uint8_t> run(std::int64_t m, Shape s, Types t, const Operands& ops, double alpha,
                              double beta, const Options& opt, Status* st, bool fused = false) {
  const GemmDesc d = desc_of(m, s, t, fused);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(m * s.n * dtype_bits(t.out) / 8), 0xA5);
  GemmArgs args{ops.a.data(), ops.b.data(), ops.c.data(), out.data(), alpha, beta};
  if (fused) args.scale_b = ops.scale_b.data(), args.bias = ops.bias.data();
  *st = gemm(d, args, opt);
  return out;
}

// Every small M's rows against the big problem's first rows; returns failures.
int check_rows(Shape s, Types t, const Operands& ops, double alpha, double beta, const Options& opt,
               const std::string& what, bool fused = false) {
  Status st;
  const std::vector<std::uint8_t> big = run(kBigM, s, t, ops, alpha, beta, opt, &st, fused);
  if (!st) {
    ADD_FAILURE() << what << " M = " << kBigM << ": " << to_string(st);
    return 1;
  }
  const std::size_t row_bytes = static_cast<std::size_t>(s.n * dtype_bits(t.out) / 8);
  int failures = 0;
  for (std::int64_t m : kSmallM) {
    const std::vector<std::uint8_t> small = run(m, s, t, ops, alpha, beta, opt, &st, fused);
    if (!st) {
      ADD_FAILURE() << what << " M = " << m << ": " << to_string(st);
      ++failures;
      continue;
    }
    for (std::int64_t i = 0; i < m; ++i)
      if (std::memcmp(small.data() + i * row_bytes, big.data() + i * row_bytes, row_bytes) != 0) {
        ADD_FAILURE() << what << ": row " << i << " of M = " << m
                      << " differs from the same row of M = " << kBigM;
        ++failures;
        break;
      }
  }
  return failures;
}

std::string name_of(Shape s, Types t, double beta) {
  return std::string(dtype_name(t.in)) + "->" + std::string(dtype_name(t.out)) +
         " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k) +
         " beta=" + std::to_string(beta);
}

TEST(CpuBatchInvariant, RowsAreBitwiseEqualToTheSameRowsOfM4096) {
  std::uint64_t seed = 7100;
  for (Shape s : kShapes)
    for (Types t : kTypes) {
      const Operands ops = operands(s, t, ++seed);
      const Options opt{.backend = Backend::Cpu, .batch_invariant = true};
      EXPECT_EQ(check_rows(s, t, ops, 1.0, 0.0, opt, name_of(s, t, 0.0)), 0);
      // C read (in the first K block, then the running sum), alpha not a power of two.
      EXPECT_EQ(check_rows(s, t, ops, 0.7, 1.3, opt, name_of(s, t, 1.3)), 0);
      // Column scales, bias, GELU: the scalar write-back of an edge tile multiplies the scales
      // in another order than the registers of a full one (rows of M = 1 and 7 differed).
      EXPECT_EQ(check_rows(s, t, ops, 0.7, 1.3, opt, name_of(s, t, 1.3) + " fused", true), 0);
    }
}

// The M-invariant production kernels of this CPU (the portable one, and AVX2 / AVX-512 where
// the CPU has them), each forced by name under the mode: the packed driver pins what looks at M
// for every ISA, not only for the planner's pick.
TEST(CpuBatchInvariant, EveryMInvariantProductionKernel) {
  const Shape s = kShapes[0];
  std::uint64_t seed = 7200;
  for (Types t : {kTypes[0], kTypes[1]}) {
    const Operands ops = operands(s, t, ++seed);
    int tried = 0;
    for (const dispatch::KernelInfo& k : dispatch::registry().all()) {
      if (k.backend != Backend::Cpu || k.role != dispatch::KernelRole::Production ||
          !k.m_invariant || !k.can_implement(desc_of(kBigM, s, t)))
        continue;
      ++tried;
      const Options opt{.backend = Backend::Cpu, .kernel = k.name.c_str(), .batch_invariant = true};
      EXPECT_EQ(check_rows(s, t, ops, 0.7, 1.3, opt, k.name + " " + name_of(s, t, 1.3)), 0);
    }
    EXPECT_GE(tried, 1) << "no M-invariant CPU production kernel for " << dtype_name(t.in);
  }
}

// The plan of every M is the plan of the reference M: one kernel, config, mode and split.
TEST(CpuBatchInvariant, ThePlanDoesNotDependOnM) {
  for (Shape s : kShapes)
    for (Types t : kTypes) {
      const Options opt{.backend = Backend::Cpu, .batch_invariant = true};
      const dispatch::Plan ref = dispatch::make_plan(desc_of(kBatchInvariantM, s, t), opt);
      ASSERT_TRUE(ref.status) << to_string(ref.status);
      EXPECT_TRUE(ref.launch.kernel->m_invariant);
      EXPECT_EQ(ref.launch.mode, sched::Mode::DataParallel);
      EXPECT_EQ(ref.launch.split, 1);
      EXPECT_EQ(ref.planned_m, kBatchInvariantM);
      for (std::int64_t m :
           {std::int64_t{1}, std::int64_t{7}, std::int64_t{64}, std::int64_t{1000}, kBigM}) {
        for (double beta : {0.0, 1.3}) {
          const GemmArgs args{.beta = beta};
          const dispatch::Plan p = dispatch::make_plan(desc_of(m, s, t), opt, &args);
          const dispatch::Plan r = dispatch::make_plan(desc_of(kBatchInvariantM, s, t), opt, &args);
          ASSERT_TRUE(p.status) << to_string(p.status);
          EXPECT_EQ(p.launch.kernel, r.launch.kernel) << "M = " << m << " " << name_of(s, t, beta);
          EXPECT_EQ(p.launch.config, r.launch.config) << "M = " << m;
          EXPECT_EQ(p.launch.mode, sched::Mode::DataParallel) << "M = " << m;
          EXPECT_EQ(p.launch.split, 1) << "M = " << m;
          EXPECT_FALSE(p.from_tune_cache);
        }
      }
    }
}

// M = 1 in f32 is the GEMV's problem without the mode; under it, never the GEMV nor split-K.
TEST(CpuBatchInvariant, NoGemvNoSplitK) {
  const Options opt{.backend = Backend::Cpu, .batch_invariant = true};
  for (std::int64_t m : {std::int64_t{1}, std::int64_t{2}, std::int64_t{16}}) {
    // Long K and few tiles: the shape split-K serves without the mode.
    const dispatch::Plan p =
        dispatch::make_plan(desc_of(m, {64, 8192}, kTypes[0]), opt, nullptr, true);
    ASSERT_TRUE(p.status) << to_string(p.status);
    EXPECT_EQ(p.launch.kernel->name.find("gemv"), std::string::npos) << p.launch.kernel->name;
    EXPECT_EQ(p.launch.kernel->name.find("splitk"), std::string::npos) << p.launch.kernel->name;
    EXPECT_EQ(p.launch.mode, sched::Mode::DataParallel);
    for (const dispatch::Candidate& c : p.candidates) EXPECT_TRUE(c.kernel->m_invariant);
  }
}

// Each contradicting option is refused naming it (and the mode); nothing is written.
TEST(CpuBatchInvariant, ContradictingOptionsAreRefused) {
  const Shape s{64, 8192};
  const Operands ops = operands(s, kTypes[0], 7300, 7);
  struct Case {
    Options opt;
    StatusCode code;
    const char* names;  // in the message
  };
  const Case cases[] = {
      {{.backend = Backend::Cpu, .split_k = 2, .batch_invariant = true},
       StatusCode::InvalidValue,
       "Options::split_k"},
      {{.backend = Backend::Cpu, .schedule = Schedule::SplitK, .batch_invariant = true},
       StatusCode::InvalidValue,
       "Options::schedule"},
      {{.backend = Backend::Cpu, .schedule = Schedule::StreamK, .batch_invariant = true},
       StatusCode::InvalidValue,
       "Options::schedule"},
      {{.backend = Backend::Cpu, .kernel = "cpu.gemv_portable", .batch_invariant = true},
       StatusCode::NotSupported,
       "cpu.gemv_portable"},
      {{.backend = Backend::Cpu, .kernel = "cpu.gemm_splitk_portable", .batch_invariant = true},
       StatusCode::NotSupported,
       "cpu.gemm_splitk_portable"},
  };
  for (const Case& c : cases) {
    Status st;
    const std::vector<std::uint8_t> d = run(1, s, kTypes[0], ops, 1.0, 0.0, c.opt, &st);
    EXPECT_EQ(st.code, c.code) << c.names << ": " << to_string(st);
    EXPECT_NE(st.message.find(c.names), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("Options::batch_invariant"), std::string::npos) << st.message;
    EXPECT_EQ(d, std::vector<std::uint8_t>(d.size(), 0xA5)) << c.names << ": D was written";
    EXPECT_EQ(can_implement(desc_of(1, s, kTypes[0]), c.opt).code, c.code) << c.names;
  }
  // What agrees with the mode runs: one split (data-parallel), the data-parallel schedule.
  const Options one_split{.backend = Backend::Cpu, .split_k = 1, .batch_invariant = true};
  const Options whole_tiles{
      .backend = Backend::Cpu, .schedule = Schedule::DataParallel, .batch_invariant = true};
  for (const Options& ok : {one_split, whole_tiles}) {
    Status st;
    (void)run(7, s, kTypes[0], ops, 1.0, 0.0, ok, &st);
    EXPECT_TRUE(st) << to_string(st);
  }
}

// The plan cache keeps the two modes apart, and explain says which M planned the call.
TEST(CpuBatchInvariant, PlanCacheKeyAndExplain) {
  dispatch::clear_plan_cache();
  const GemmDesc d = desc_of(1, {384, 1000}, kTypes[0]);
  const dispatch::Plan free_plan = dispatch::cached_plan(d, {.backend = Backend::Cpu}, nullptr);
  const dispatch::Plan inv_plan =
      dispatch::cached_plan(d, {.backend = Backend::Cpu, .batch_invariant = true}, nullptr);
  EXPECT_EQ(dispatch::plan_cache_size(), 2u);
  ASSERT_TRUE(free_plan.status && inv_plan.status);
  EXPECT_EQ(free_plan.planned_m, 0);
  EXPECT_EQ(inv_plan.planned_m, kBatchInvariantM);
  EXPECT_TRUE(inv_plan.launch.kernel->m_invariant);

  const dispatch::ExplainReport rep =
      dispatch::explain_report(d, {.backend = Backend::Cpu, .batch_invariant = true}, 0.0);
  EXPECT_TRUE(rep.json["batch_invariant"].get<bool>());
  EXPECT_EQ(rep.json["planned_m"].get<std::int64_t>(), kBatchInvariantM);
  bool said = false;
  for (const std::string& r : rep.plan.reasons)
    said = said || r.find("batch_invariant: planned for M = 4096") != std::string::npos;
  EXPECT_TRUE(said) << rep.json["reasons"].dump();
  const dispatch::ExplainReport plain = dispatch::explain_report(d, {.backend = Backend::Cpu}, 0.0);
  EXPECT_FALSE(plain.json["batch_invariant"].get<bool>());
  EXPECT_FALSE(plain.json.contains("planned_m"));
}

}  // namespace
}  // namespace gemmkit
