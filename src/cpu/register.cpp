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
  using dispatch::Isa;
  r.add(ladder_kernel(
      "cpu.ladder.naive", {.tile_m = 1, .tile_n = 1, .tile_k = 1, .frag_m = 1, .frag_n = 1},
      "triple loop, strided reads", ladder_naive<float>, ladder_naive<double>, false));
  r.add(ladder_kernel("cpu.ladder.blocked",
                      {.tile_m = 32, .tile_n = 64, .tile_k = 128, .frag_m = 1, .frag_n = 1},
                      "output tiles with a local accumulator", ladder_blocked<float>,
                      ladder_blocked<double>, false));
  r.add(ladder_kernel("cpu.ladder.packed",
                      {.tile_m = 128, .tile_n = 2048, .tile_k = 256, .frag_m = 4, .frag_n = 8},
                      "BLIS loops around packed panels, scalar tile", ladder_packed<float>,
                      ladder_packed<double>, false));
  const KernelConfig simd{
      .tile_m = 120, .tile_n = 2048, .tile_k = 256, .frag_m = 6, .frag_n = 16, .isa = Isa::Avx2};
  r.add(ladder_kernel("cpu.ladder.simd", simd, "AVX2+FMA register tile (f64: NR=8)",
                      ladder_simd<float>, ladder_simd<double>, true));
  r.add(ladder_kernel("cpu.ladder.threaded", simd, "simd rung + OpenMP over the MC loop",
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

// fp8 and fp4 inputs (e4m3, e5m2, e2m1) and integer weights B under floating A (weight-only: i8,
// i4) dequantize to f32 while packing, with their block / group / MX scales if any.
bool is_fp8(DType t) { return t == DType::E4M3 || t == DType::E5M2; }
bool is_f32_input(DType t) { return is_f32_family(t) || is_fp8(t) || t == DType::E2M1; }
bool is_weight(DType t) { return t == DType::I8 || t == DType::I4; }

// The packed kernels step between batch entries in bytes: a sub-byte operand (i4, e2m1) with an
// odd batch stride would start its second entry mid-byte.
Status sub_byte_batches(const GemmDesc& d) {
  for (const MatrixDesc* m : {&d.a, &d.b})
    if (dtype_bits(m->dtype) < 8 && d.batch > 1 && m->batch_stride % 2 != 0)
      return GEMMKIT_UNSUPPORTED("an odd batch stride of a sub-byte operand");
  return {};
}

Status sgemm_supports(const GemmDesc& d) {
  // C and D: f32 / bf16 / f16, or fp8 through the scalar write-back (saturating).
  auto out = [](DType t) { return is_f32_family(t) || is_fp8(t); };
  if (d.compute != DType::F32 || !is_f32_input(d.a.dtype) ||
      !(is_f32_input(d.b.dtype) || (is_weight(d.b.dtype) && is_f32_family(d.a.dtype))) ||
      !out(d.c.dtype) || !out(d.d.dtype))
    return GEMMKIT_UNSUPPORTED(
        "sgemm takes f32/bf16/f16/e4m3/e5m2/e2m1 A, the same or i8/i4 weights B, f32/bf16/f16/"
        "e4m3/e5m2 C and D, f32 accumulate");
  if (Status s = sub_byte_batches(d); !s) return s;
  return bias_supported(d);
}
Status dgemm_supports(const GemmDesc& d) {
  if (!cpu::all_dtype(d, DType::F64)) return GEMMKIT_UNSUPPORTED("dgemm takes all-f64 problems");
  return bias_supported(d);
}
Status igemm_supports(const GemmDesc& d) {
  // i4 (two a byte, sign-extended) unpacks to i32 while packing like i8.
  if (!is_weight(d.a.dtype) || !is_weight(d.b.dtype) || d.c.dtype != DType::I32 ||
      d.d.dtype != DType::I32 || d.compute != DType::I32)
    return GEMMKIT_UNSUPPORTED("igemm takes i8 / i4 A and B, i32 C, D and accumulate");
  if (Status s = sub_byte_batches(d); !s) return s;
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

dispatch::Isa config_isa(Isa isa) {
  return isa == Isa::Avx512 ? dispatch::Isa::Avx512
         : isa == Isa::Avx2 ? dispatch::Isa::Avx2
                            : dispatch::Isa::Portable;
}

// The cache blocks MC x NC x KC and the register tile of one microkernel on this CPU.
KernelConfig blocks_config(Isa isa, cpu::TileShape t, int elem_bytes,
                           ModeSet modes = mode_bit(sched::Mode::DataParallel)) {
  const cpu::BlockSizes b = cpu::derive_blocks(isa, t.mr, t.nr, elem_bytes);
  return KernelConfig{.tile_m = static_cast<int>(b.mc),
                      .tile_n = static_cast<int>(b.nc),
                      .tile_k = static_cast<int>(b.kc),
                      .frag_m = b.mr,
                      .frag_n = b.nr,
                      .modes = modes,
                      .isa = config_isa(isa)};
}

using RunFn =
    std::function<Status(const GemmDesc&, const GemmArgs&, const LaunchPlan&, const Options&)>;

// A kernel that runs one way whatever the plan (data-parallel).
RunFn ignoring_plan(cpu::RunFn f) {
  return [f](const GemmDesc& d, const GemmArgs& a, const LaunchPlan&, const Options& o) {
    return f(d, a, o);
  };
}

// m_invariant: KernelInfo::m_invariant, with the reason at the call.
KernelInfo production(std::string name, KernelConfig config, std::string note, int priority,
                      std::function<Status(const GemmDesc&)> supports, Isa isa, RunFn run,
                      bool m_invariant, bool fused_epilogue = false) {
  return KernelInfo{
      .name = std::move(name),
      .backend = Backend::Cpu,
      .role = KernelRole::Production,
      .config = config,
      .note = std::move(note),
      .priority = priority,
      .can_implement = [isa, supports](const GemmDesc& d) -> Status {
        if (Status s = check_isa(isa); !s) return s;
        return supports(d);
      },
      .run = std::move(run),
      .workspace_bytes = {},
      .fused_epilogue = fused_epilogue,
      .m_invariant = m_invariant,
  };
}

// The packed kernels are M-invariant: KC from K, thread splits that leave each tile's sum
// alone, and under Options::batch_invariant the orientation, tile and edge write-back pinned
// (gemm_driver.hpp).
constexpr bool kPackedMInvariant = true;

void register_isa(Registry& r, const cpu::IsaKernels& k, int base) {
  const std::string isa = cpu::isa_name(k.isa);
  const KernelConfig s_cfg = blocks_config(k.isa, k.sgemm_tile, 4);
  const KernelConfig d_cfg = blocks_config(k.isa, k.dgemm_tile, 8);
  if (k.isa == Isa::Portable) {
    // One portable entry for every dtype family: the oracle of the SIMD kernels.
    r.add(production(
        "cpu.gemm_portable", s_cfg,
        "config of f32; f64: " +
            cpu::describe(cpu::derive_blocks(k.isa, k.dgemm_tile.mr, k.dgemm_tile.nr, 8)) +
            "; i8->i32 " + tile_name(k.igemm_tile),
        base,
        [](const GemmDesc& d) -> Status {
          if (sgemm_supports(d) || dgemm_supports(d) || igemm_supports(d)) return {};
          return GEMMKIT_UNSUPPORTED("portable gemm: f32/bf16/f16 -> f32/bf16/f16, f64, i8 -> i32");
        },
        k.isa,
        [k](const GemmDesc& d, const GemmArgs& a, const LaunchPlan&, const Options& o) {
          if (d.d.dtype == DType::F64) return k.dgemm(d, a, o);
          if (d.d.dtype == DType::I32) return k.igemm(d, a, o);
          return k.sgemm(d, a, o);
        },
        kPackedMInvariant, true));
  } else {
    r.add(production("cpu.sgemm_" + isa + "_" + tile_name(k.sgemm_tile), s_cfg,
                     "inputs f32|bf16|f16 converted while packing, C and D f32|bf16|f16 rounded "
                     "in the write-back",
                     base, sgemm_supports, k.isa, ignoring_plan(k.sgemm), kPackedMInvariant, true));
    r.add(production("cpu.dgemm_" + isa + "_" + tile_name(k.dgemm_tile), d_cfg, "f64", base,
                     dgemm_supports, k.isa, ignoring_plan(k.dgemm), kPackedMInvariant, true));
    r.add(production("cpu.igemm_" + isa + "_" + tile_name(k.igemm_tile),
                     blocks_config(k.isa, k.igemm_tile, 4),
                     "i8 x i8 -> i32 exact; KC = K at run time (one K block)", base, igemm_supports,
                     k.isa, ignoring_plan(k.igemm), kPackedMInvariant));
  }
  // The GEMV pads nothing: one output element is one unit of work.
  KernelConfig gemv_cfg = s_cfg;
  gemv_cfg.frag_m = gemv_cfg.frag_n = 1;
  r.add(production(
      "cpu.gemv_" + isa, gemv_cfg, "M == 1 or N == 1: streams B once, threads split N", base + 40,
      [](const GemmDesc& d) -> Status {
        if (Status s = same_float(d); !s) return s;
        if (!cpu::is_gemv_shape(d)) return GEMMKIT_UNSUPPORTED("gemv needs M == 1 or N == 1");
        return {};
      },
      // Not M-invariant: takes M == 1 only, with its own dot-product order.
      k.isa, ignoring_plan(k.gemv), false));
  const cpu::SplitKFn splitk = k.splitk;
  const cpu::TileShape st = k.sgemm_tile, dt = k.dgemm_tile;
  r.add(production(
      "cpu.gemm_splitk_" + isa, blocks_config(k.isa, st, 4, mode_bit(sched::Mode::SplitK)),
      "deterministic split-K: K ranges one thread each, fixed-order sum (f64: the dgemm tile)",
      base + 30,
      [st, dt](const GemmDesc& d) -> Status {
        if (Status s = same_float(d); !s) return s;
        const cpu::TileShape t = d.d.dtype == DType::F64 ? dt : st;
        if (cpu::splitk_default_splits(d, t.mr, t.nr) == 0)
          return GEMMKIT_UNSUPPORTED("split-K: enough output tiles for the cores, or short K");
        return {};
      },
      k.isa,
      [splitk](const GemmDesc& d, const GemmArgs& a, const LaunchPlan& plan, const Options& o) {
        // The plan's count; 0 (forced by name with no count to give): the kernel's own policy.
        return splitk(d, a, o, plan.split > 1 ? std::min(plan.split, 64) : 0);
      },
      // Not M-invariant: whether K is split, and into how many pieces, follows M x N.
      false));
}

}  // namespace

void register_cpu_kernels(Registry& r) {
  // The fp64 reference: every dtype combination the front door accepts, slowly. The planner
  // takes it only when no production kernel implements the problem, and says so.
  r.add(KernelInfo{
      .name = "cpu.reference",
      .backend = Backend::Cpu,
      .role = KernelRole::Reference,
      // One output element at a time, one thread.
      .config = {.tile_m = 1, .tile_n = 1, .tile_k = 1, .frag_m = 1, .frag_n = 1},
      .note = "fp64 accumulate, strided loops",
      .priority = 0,
      .can_implement = [](const GemmDesc&) { return Status{}; },
      .run =
          [](const GemmDesc& d, const GemmArgs& a, const LaunchPlan&, const Options&) {
            if (core::has_epilogue(d))
              core::reference_gemm_epilogue(d, a);
            else
              core::reference_gemm(d, a);
            return Status{};
          },
      .workspace_bytes = {},
      .fused_epilogue = true,
      .m_invariant = true,  // one fp64 sum per element in K order, whatever M is
  });
  // The ladder rungs stay not M-invariant: fallbacks whose edge paths are not checked bitwise.
  register_ladder(r);
  register_isa(r, cpu::avx512_kernels(), 300);
  register_isa(r, cpu::avx2_kernels(), 200);
  register_isa(r, cpu::portable_kernels(), 100);
}

}  // namespace gemmkit::dispatch
