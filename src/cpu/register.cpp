// Registers every CPU kernel in the kernel registry: the fp64 reference, the ladder rungs and,
// per ISA (run-time checked), the production kernels and their variants.
#include "core/epilogue_ref.hpp"
#include "core/reference.hpp"
#include "core/status.hpp"
#include "cpu/cpu_info.hpp"
#include "cpu/kernels.hpp"
#include "cpu/ladder.hpp"
#include "cpu/split_policy.hpp"
#include "cpu/stored.hpp"
#include "cpu/typed_gemm.hpp"
#include "dispatch/registry.hpp"

namespace gemmkit::dispatch {

namespace {

using cpu::Isa;

void register_ladder(Registry& r) {
  using namespace cpu;
  r.add(ladder_kernel("cpu.ladder.naive", "triple loop, strided reads", ladder_naive<float>,
                      ladder_naive<double>, false));
  r.add(ladder_kernel("cpu.ladder.blocked", "TILE_M=32,TILE_N=64,TILE_K=128 local accumulator",
                      ladder_blocked<float>, ladder_blocked<double>, false));
  r.add(ladder_kernel("cpu.ladder.packed", "MR=4,NR=8,MC=128,KC=256,NC=2048 scalar tile",
                      ladder_packed<float>, ladder_packed<double>, false));
  r.add(ladder_kernel("cpu.ladder.simd", "AVX2+FMA MR=6,NR=16(f32)/8(f64),MC=120,KC=256,NC=2048",
                      ladder_simd<float>, ladder_simd<double>, true));
  r.add(ladder_kernel("cpu.ladder.threaded", "simd rung + OpenMP over the MC loop",
                      ladder_threaded<float>, ladder_threaded<double>, true));
}

bool isa_available(Isa isa) {
  const cpu::CpuInfo& c = cpu::cpu_info();
  return isa == Isa::Portable || (isa == Isa::Avx2 && c.avx2_fma) ||
         (isa == Isa::Avx512 && c.avx512);
}

Status check_isa(Isa isa) {
  if (isa_available(isa)) return {};
  return GEMMKIT_ERROR(StatusCode::ArchMismatch, Arg::None,
                       std::string("this CPU lacks ") + cpu::isa_name(isa));
}

// The 32- and 16-bit floats: A and B convert while packing, C and D in the write-back (bf16 /
// fp16 rounded to nearest even, from the f32 result).
bool is_f32_family(DType t) { return t == DType::F32 || t == DType::BF16 || t == DType::F16; }

// The packed kernels' fused epilogue reads the bias as the accumulate type, or as bf16 / fp16
// next to an f32 accumulator.
Status bias_supported(const GemmDesc& d) {
  cpu::Stored s;
  if (d.epilogue.bias != BiasMode::None && !cpu::stored_for(d.epilogue.bias_dtype, d.compute, &s))
    return GEMMKIT_UNSUPPORTED("the bias dtype is neither the accumulate type nor bf16 / fp16");
  return {};
}

Status sgemm_supports(const GemmDesc& d) {
  if (d.compute != DType::F32 || !is_f32_family(d.a.dtype) || !is_f32_family(d.b.dtype) ||
      !is_f32_family(d.c.dtype) || !is_f32_family(d.d.dtype))
    return GEMMKIT_UNSUPPORTED("sgemm takes f32/bf16/f16 A, B, C and D with f32 accumulate");
  return bias_supported(d);
}
Status dgemm_supports(const GemmDesc& d) {
  if (!cpu::all_dtype(d, DType::F64)) return GEMMKIT_UNSUPPORTED("dgemm takes all-f64 problems");
  return bias_supported(d);
}
Status igemm_supports(const GemmDesc& d) {
  if (d.a.dtype != DType::I8 || d.b.dtype != DType::I8 || d.c.dtype != DType::I32 ||
      d.d.dtype != DType::I32 || d.compute != DType::I32)
    return GEMMKIT_UNSUPPORTED("igemm takes i8 A and B, i32 C, D and accumulate");
  // |a * b| <= 2^14, so K < 2^17 keeps every i32 partial sum exact.
  if (d.k >= (std::int64_t{1} << 17))
    return GEMMKIT_UNSUPPORTED("igemm: K >= 2^17 could overflow the i32 accumulator");
  return {};
}
// A and B as the accumulate type (the GEMV and split-K read them unconverted); C and D too, or
// bf16 / fp16 next to an f32 accumulator.
Status same_float(const GemmDesc& d) {
  const bool f32 = d.compute == DType::F32 && d.a.dtype == DType::F32 && d.b.dtype == DType::F32 &&
                   is_f32_family(d.c.dtype) && is_f32_family(d.d.dtype);
  if (!f32 && !cpu::all_dtype(d, DType::F64))
    return GEMMKIT_UNSUPPORTED("takes f32 A and B with f32/bf16/f16 C and D, or all-f64 problems");
  return {};
}

std::string tile_name(cpu::TileShape t) {
  return std::to_string(t.mr) + "x" + std::to_string(t.nr);
}

KernelInfo production(std::string name, std::string config, int priority,
                      std::function<Status(const GemmDesc&)> supports, Isa isa,
                      std::function<Status(const GemmDesc&, const GemmArgs&, const Options&)> run,
                      ledger::Variant variant = ledger::Variant::DataParallel,
                      bool fused_epilogue = false) {
  return KernelInfo{
      .name = std::move(name),
      .backend = Backend::Cpu,
      .role = KernelRole::Production,
      .config = std::move(config),
      .priority = priority,
      .can_implement = [isa, supports](const GemmDesc& d) -> Status {
        if (Status s = check_isa(isa); !s) return s;
        return supports(d);
      },
      .run = std::move(run),
      .workspace_bytes = {},
      .variant = variant,
      .fused_epilogue = fused_epilogue,
  };
}

void register_isa(Registry& r, const cpu::IsaKernels& k, int base) {
  const std::string isa = cpu::isa_name(k.isa);
  const std::string s_blocks =
      cpu::describe(cpu::derive_blocks(k.isa, k.sgemm_tile.mr, k.sgemm_tile.nr, 4));
  const std::string d_blocks =
      cpu::describe(cpu::derive_blocks(k.isa, k.dgemm_tile.mr, k.dgemm_tile.nr, 8));
  if (k.isa == Isa::Portable) {
    // One portable entry for every dtype family: the oracle of the SIMD kernels.
    r.add(production(
        "cpu.gemm_portable",
        "f32: " + s_blocks + "; f64: " + d_blocks + "; i8->i32 " + tile_name(k.igemm_tile), base,
        [](const GemmDesc& d) -> Status {
          if (sgemm_supports(d) || dgemm_supports(d) || igemm_supports(d)) return {};
          return GEMMKIT_UNSUPPORTED("portable gemm: f32/bf16/f16 -> f32/bf16/f16, f64, i8 -> i32");
        },
        k.isa,
        [k](const GemmDesc& d, const GemmArgs& a, const Options& o) {
          if (d.d.dtype == DType::F64) return k.dgemm(d, a, o);
          if (d.d.dtype == DType::I32) return k.igemm(d, a, o);
          return k.sgemm(d, a, o);
        },
        ledger::Variant::DataParallel, true));
  } else {
    r.add(production("cpu.sgemm_" + isa + "_" + tile_name(k.sgemm_tile),
                     s_blocks + ",inputs f32|bf16|f16 converted while packing,C and D f32|bf16|f16 "
                                "rounded in the write-back",
                     base, sgemm_supports, k.isa, k.sgemm, ledger::Variant::DataParallel, true));
    r.add(production("cpu.dgemm_" + isa + "_" + tile_name(k.dgemm_tile), d_blocks, base,
                     dgemm_supports, k.isa, k.dgemm, ledger::Variant::DataParallel, true));
    r.add(production("cpu.igemm_" + isa + "_" + tile_name(k.igemm_tile),
                     "i8 x i8 -> i32 exact, KC=K", base, igemm_supports, k.isa, k.igemm));
  }
  r.add(production(
      "cpu.gemv_" + isa, "M == 1 or N == 1: streams B once, threads split N", base + 40,
      [](const GemmDesc& d) -> Status {
        if (Status s = same_float(d); !s) return s;
        if (!cpu::is_gemv_shape(d)) return GEMMKIT_UNSUPPORTED("gemv needs M == 1 or N == 1");
        return {};
      },
      k.isa, k.gemv, ledger::Variant::Gemv));
  const cpu::SplitKFn splitk = k.splitk;
  const cpu::TileShape st = k.sgemm_tile, dt = k.dgemm_tile;
  r.add(production(
      "cpu.gemm_splitk_" + isa, "deterministic split-K: 2..8 K ranges, fixed-order sum", base + 30,
      [st, dt](const GemmDesc& d) -> Status {
        if (Status s = same_float(d); !s) return s;
        const cpu::TileShape t = d.d.dtype == DType::F64 ? dt : st;
        if (cpu::splitk_default_splits(d, t.mr, t.nr) == 0)
          return GEMMKIT_UNSUPPORTED("split-K: enough output tiles for the cores, or short K");
        return {};
      },
      k.isa,
      [splitk](const GemmDesc& d, const GemmArgs& a, const Options& o) {
        // Options::split_k: the caller's count, else the kernel's own (problem-only) policy.
        return splitk(d, a, o, o.split_k > 1 ? std::min(o.split_k, 64) : 0);
      },
      ledger::Variant::SplitK));
}

}  // namespace

void register_cpu_kernels(Registry& r) {
  // The fp64 reference: every dtype combination the front door accepts, slowly. The planner
  // takes it only when no production kernel implements the problem, and says so.
  r.add(KernelInfo{
      .name = "cpu.reference",
      .backend = Backend::Cpu,
      .role = KernelRole::Reference,
      .config = "fp64 accumulate, strided loops",
      .priority = 0,
      .can_implement = [](const GemmDesc&) { return Status{}; },
      .run =
          [](const GemmDesc& d, const GemmArgs& a, const Options&) {
            if (core::has_epilogue(d))
              core::reference_gemm_epilogue(d, a);
            else
              core::reference_gemm(d, a);
            return Status{};
          },
      .workspace_bytes = {},
      .fused_epilogue = true,
  });
  register_ladder(r);
  register_isa(r, cpu::avx512_kernels(), 300);
  register_isa(r, cpu::avx2_kernels(), 200);
  register_isa(r, cpu::portable_kernels(), 100);
}

}  // namespace gemmkit::dispatch
