// The CUDA backend's f32 and f64 kernels (src/cuda/simt) as the planner sees them, no GPU
// needed: ranked first for f32 / f64 problems on the h200-measured model with a ledger
// prediction; f32 exact by default (no CUDA kernel that takes f32 runs on tensor cores);
// other types refused with a reason. Skipped in a build without CUDA (nothing registered).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"
#include "ledger/machine.hpp"

namespace gemmkit::dispatch {
namespace {

#ifdef GEMMKIT_HAVE_CUDA

GemmDesc typed(DType ab, DType cd, DType acc, std::int64_t m = 1000, std::int64_t n = 1023,
               std::int64_t k = 1025) {
  GemmDesc d{.m = m, .n = n, .k = k, .trans_b = Op::Trans};
  d.a.dtype = d.b.dtype = ab;
  d.c.dtype = d.d.dtype = cd;
  d.compute = acc;
  return with_default_lds(d);
}

std::vector<const KernelInfo*> cuda_production() {
  std::vector<const KernelInfo*> out;
  for (const KernelInfo& k : registry().all())
    if (k.backend == Backend::Cuda && k.role == KernelRole::Production && k.planned)
      out.push_back(&k);
  return out;
}

const ledger::Machine& h200() { return *ledger::find_machine("h200-measured"); }

TEST(SimtPlan, F32AndF64RankFirstWithAPrediction) {
  struct Want {
    DType t;
    const char* kernel;
  };
  for (const Want& w : {Want{DType::F32, "cuda.sgemm_ffma_128x128x16_s3"},
                        Want{DType::F64, "cuda.dgemm_dmma_128x128x16_s4"}})
    for (std::int64_t s : {1, 1000, 8192}) {
      const GemmDesc d = typed(w.t, w.t, w.t, s, s, s);
      const std::vector<Candidate> ranked = rank_candidates(d, 0.0, cuda_production(), h200());
      ASSERT_FALSE(ranked.empty());
      const Candidate& c = ranked.front();
      ASSERT_TRUE(c.status) << dtype_name(w.t) << " " << s << ": " << to_string(c.status);
      EXPECT_EQ(c.kernel->name, w.kernel) << dtype_name(w.t) << " " << s;
      EXPECT_EQ(c.mode, sched::Mode::DataParallel);
      EXPECT_GT(c.predicted_s(), 0.0);
      // Nothing else of the CUDA backend takes the problem.
      for (std::size_t i = 1; i < ranked.size(); ++i)
        EXPECT_FALSE(ranked[i].status) << ranked[i].kernel->name << " took " << dtype_name(w.t);
    }
}

// f32 inputs mean exact fp32 unless the caller allows otherwise: every CUDA kernel that takes
// an f32 problem multiplies on the CUDA cores (FFMA), none on tensor cores (TF32).
TEST(SimtPlan, F32IsExactByDefault) {
  int takers = 0;
  for (const KernelInfo& k : registry().all()) {
    if (k.backend != Backend::Cuda || !k.can_implement(typed(DType::F32, DType::F32, DType::F32)))
      continue;
    ++takers;
    EXPECT_EQ(k.config.isa, Isa::CudaSimt) << k.name << " takes f32 on " << isa_name(k.config.isa);
  }
  EXPECT_GE(takers, 1);
}

TEST(SimtPlan, OtherTypesRefusedWithTheReason) {
  const KernelInfo* s = registry().find("cuda.sgemm_ffma_128x128x16_s3");
  const KernelInfo* d = registry().find("cuda.dgemm_dmma_128x128x16_s4");
  ASSERT_NE(s, nullptr);
  ASSERT_NE(d, nullptr);
  struct Refused {
    const KernelInfo* k;
    GemmDesc desc;
    const char* says;
  };
  GemmDesc mixed = typed(DType::F32, DType::F32, DType::F32);
  mixed.b.dtype = DType::F64;
  const Refused cases[] = {
      {s, typed(DType::BF16, DType::F32, DType::F32), "A and B both f32"},
      {s, mixed, "A and B both f32"},
      {s, typed(DType::F32, DType::F16, DType::F32), "C and D in f32"},
      {s, typed(DType::F32, DType::F32, DType::F64), "accumulate in f32"},
      {d, typed(DType::F32, DType::F32, DType::F32), "A and B both f64"},
      {d, typed(DType::F64, DType::F32, DType::F64), "C and D in f64"},
  };
  for (const Refused& r : cases) {
    const Status st = r.k->can_implement(r.desc);
    EXPECT_EQ(st.code, StatusCode::NotSupported) << r.k->name << ": " << to_string(st);
    EXPECT_NE(st.message.find(r.says), std::string::npos) << r.k->name << ": " << st.message;
  }
  EXPECT_TRUE(s->can_implement(typed(DType::F32, DType::F32, DType::F32)));
  EXPECT_TRUE(d->can_implement(typed(DType::F64, DType::F64, DType::F64)));
}

#else

TEST(SimtPlan, NeedsCuda) { GTEST_SKIP() << "built without CUDA: no CUDA kernel registered"; }

#endif

}  // namespace
}  // namespace gemmkit::dispatch
