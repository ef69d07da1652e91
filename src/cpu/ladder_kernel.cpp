// The ladder rungs' shared registry wrapper: dtype check, batches, scale-only calls.
#include "core/status.hpp"
#include "cpu/cpu_info.hpp"
#include "cpu/ladder.hpp"

namespace gemmkit::cpu {

namespace {

template <class T>
void run_batches(const GemmDesc& d, const GemmArgs& a, int threads, LadderFn<T> fn) {
  for_each_batch<T>(d, a, [&](const Gemm<T>& g) {
    if (g.reads_ab())
      fn(g, threads);
    else
      scale_only(g);
  });
}

}  // namespace

dispatch::KernelInfo ladder_kernel(std::string name, dispatch::KernelConfig config,
                                   std::string note, LadderFn<float> f32, LadderFn<double> f64,
                                   bool needs_avx2) {
  return dispatch::KernelInfo{
      .name = std::move(name),
      .backend = Backend::Cpu,
      .role = dispatch::KernelRole::Ladder,
      .config = config,
      .note = std::move(note),
      .priority = 0,
      .can_implement = [needs_avx2](const GemmDesc& d) -> Status {
        if (needs_avx2 && !cpu_info().avx2_fma)
          return GEMMKIT_ERROR(StatusCode::ArchMismatch, Arg::None, "this CPU lacks AVX2+FMA");
        if (!all_dtype(d, DType::F32) && !all_dtype(d, DType::F64))
          return GEMMKIT_UNSUPPORTED("ladder rungs take all-f32 or all-f64 problems");
        return {};
      },
      .run = [f32, f64](const GemmDesc& d, const GemmArgs& a, const dispatch::LaunchPlan&,
                        const Options& o) -> Status {
        if (d.d.dtype == DType::F32)
          run_batches<float>(d, a, o.threads, f32);
        else
          run_batches<double>(d, a, o.threads, f64);
        return {};
      },
      .workspace_bytes = {},
  };
}

}  // namespace gemmkit::cpu
