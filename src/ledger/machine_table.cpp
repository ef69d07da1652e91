// The builtin machine table: one plain struct per device, each figure with its source.
#include <algorithm>
#include <array>
#include <stdexcept>

#include "ledger/machine.hpp"

namespace gemmkit::ledger {
namespace {

constexpr double T = 1e12;
constexpr std::int64_t KiB = 1024, MiB = 1024 * 1024;
// An sm90 CTA streaming through its 192 KiB ring draws ~90 GB/s (H200: 128x128x1024 alone, 512
// KiB in 6.4 us; 22 split-K pieces of 128x128x65536, ~100 GB/s each): 2.2 us in flight.
constexpr double kSm90StreamLatency = 2.2e-6;

void set_peaks(Machine& m, double fp64, double fp32, double tf32, double fp16, double fp8,
               double int8) {
  m.peak[0] = fp64;
  m.peak[1] = fp32;
  m.peak[2] = tf32;
  m.peak[3] = fp16;
  m.peak[4] = fp8;
  m.peak[5] = int8;
}

// Hopper SM limits (CUDA programming guide, compute capability 9.0).
void hopper_sm(Machine& m) {
  m.sm_count = 132;
  m.smem_per_sm = 228 * KiB;
  m.smem_per_block = 227 * KiB;
  m.smem_reserved_per_block = 1 * KiB;
  m.regs_per_sm = 65536;
  m.max_regs_per_thread = 255;
  m.reg_alloc_unit = 256;
  m.max_threads_per_sm = 2048;
  m.max_threads_per_block = 1024;
  m.max_blocks_per_sm = 32;
  m.warp_size = 32;
  m.dram_latency_s = 0.8e-6;
  m.launch_s = 2.5e-6;
}

Machine h100_sxm() {
  Machine m;
  m.name = "h100-sxm";
  m.description = "NVIDIA H100 SXM5 80GB, datasheet (dense, no sparsity)";
  m.source = "NVIDIA H100 Tensor Core GPU datasheet; CUDA C++ Programming Guide (cc 9.0 limits)";
  hopper_sm(m);
  //        fp64    fp32    tf32     fp16/bf16 fp8       int8
  set_peaks(m, 66.9 * T, 66.9 * T, 494.7 * T, 989.4 * T, 1978.9 * T, 1978.9 * T);
  m.dram_bytes_per_s = 3.35e12;
  m.l2_bytes = 50 * MiB;
  // NVLink4 (H100 / H200 SXM): 900 GB/s per GPU both ways, 450 GB/s per direction. Nominal,
  // unmeasured here; a ring step's latency of 1 us is a round figure, not a measurement.
  m.interconnect_bytes_per_s = 450e9;
  m.interconnect_latency_s = 1e-6;
  return m;
}

Machine h100_measured() {
  Machine m = h100_sxm();
  m.name = "h100-measured";
  m.description =
      "H100 80GB HBM3 as measured here: copy 3.0 TB/s; per kernel family, the efficiencies "
      "fitted from its measured candidates; other figures from the datasheet";
  m.source =
      "the lent H100 (docs/PERF.md): device-to-device copy 2974-3019 GB/s in the bench runs of "
      "2026-12-06; family efficiencies: gemmkit ledger --fit on gemmkit tune --measurements";
  m.dram_bytes_per_s = 3.0e12;
  // Measured on the H200; without it the model prices a split-K launch of few CTAs by the DRAM
  // alone and prefers more, shorter pieces than measured fastest.
  m.stream_latency_s = kSm90StreamLatency;
  // Fitted on the measured candidates of the decode, splitk, square, odd and llm suites of
  // 2026-12-06 and the decode, splitk, square and odd suites of 2026-12-07, 1277 plans of 132
  // problems (each family alone, then the stage for the ranking); the partial families are
  // tiles the problem does not fill. Read with the model above: a dram figure above 1 is a
  // kernel reading faster than the copy's read + write rate, or L2 reuse the model does not
  // count; a compute figure is against the datasheet peak. All rows: median |predicted -
  // measured| / measured 12.5% -> 8.2%; the predicted-fastest plan within 5% of the measured
  // fastest on 123 -> 128 of the 132 problems.
  static constexpr const char* kFit =
      "gemmkit ledger --machine h100-measured --fit bench/results/h100-2026-12-0*-meas-*.json";
  //  family, compute, dram, rows, median error after, before
  m.family_efficiency = {
      {"cuda_simt 8x2", 1.00, 0.96, 15, 0.013, 0.043, kFit},
      {"mma_sync 16x32 rows", 0.70, 1.09, 68, 0.087, 0.097, kFit},
      {"wgmma 128x128", 0.70, 0.90, 223, 0.068, 0.101, kFit},
      {"wgmma 128x128 partial", 0.57, 0.89, 218, 0.114, 0.134, kFit},
      {"wgmma 128x192", 0.81, 1.07, 101, 0.053, 0.108, kFit},
      {"wgmma 128x192 partial", 0.60, 1.25, 147, 0.124, 0.161, kFit},
      {"wgmma 128x256", 0.84, 1.23, 136, 0.023, 0.140, kFit},
      {"wgmma 128x256 partial", 0.53, 1.26, 118, 0.213, 0.198, kFit},
      {"wgmma 128x64 partial", 0.49, 1.18, 86, 0.138, 0.122, kFit},
      {"wgmma 64x128", 0.35, 0.98, 65, 0.280, 0.104, kFit},
      {"wgmma 64x128 partial", 0.31, 1.08, 100, 0.217, 0.237, kFit},
  };
  return m;
}

Machine h100_seed() {
  Machine m = h100_sxm();
  m.name = "h100-seed";
  m.description = "the seed chapter's H100 model: fp16 1000 TFLOP/s, 3 TB/s, balance ~333 FLOP/B";
  m.source = "seeds/gemm-chapter.txt section 1.1 (machine model of its chapter 2)";
  set_peaks(m, 66.9 * T, 66.9 * T, 500 * T, 1000 * T, 2000 * T, 2000 * T);
  m.dram_bytes_per_s = 3e12;
  return m;
}

Machine h200() {
  Machine m = h100_sxm();
  m.name = "h200";
  m.description = "NVIDIA H200 SXM 141GB: H100 compute, HBM3e 4.8 TB/s, 60 MiB L2";
  m.source = "NVIDIA H200 datasheet; L2 60 MiB as read from the lent device (shared/GPU.md)";
  m.dram_bytes_per_s = 4.8e12;
  m.l2_bytes = 60 * MiB;
  return m;
}

Machine h200_measured() {
  Machine m = h200();
  m.name = "h200-measured";
  m.description =
      "H200 as measured here: cuBLAS bf16 8192^3 760 TFLOP/s, fp8 e4m3 1249, f32 (FFMA) 51.1, "
      "f64 (DMMA) 63.2, copy 4.1 TB/s; other classes keep the datasheet figures";
  m.source =
      "shared/BENCH.md, reference points measured on the lent H200 (cuBLAS 13.1); f32 / f64: "
      "cuBLASLt CUBLAS_COMPUTE_32F / 64F in bench/micro/simt_gemm.cu (docs/PERF.md)";
  m.peak[static_cast<int>(PeakClass::FP16)] = 760 * T;
  m.peak[static_cast<int>(PeakClass::FP8)] = 1249 * T;
  m.peak[static_cast<int>(PeakClass::FP32)] = 51.1 * T;
  m.peak[static_cast<int>(PeakClass::FP64)] = 63.2 * T;
  m.dram_bytes_per_s = 4.1e12;
  // Graph-replayed cuBLAS bf16 1024^3 took 6.5 us of which ~2.8 us is math at 760 TFLOP/s.
  m.launch_s = 3e-6;
  m.stream_latency_s = kSm90StreamLatency;
  // Split-K partials: 4.3 MB more of them written and read back (66 -> 132 pieces of 128x128x
  // 65536) cost 1.5 us.
  m.l2_bytes_per_s = 6e12;
  return m;
}

Machine a100() {
  Machine m;
  m.name = "a100";
  m.description = "NVIDIA A100 SXM4 80GB, datasheet (dense); no fp8";
  m.source = "NVIDIA A100 Tensor Core GPU datasheet; CUDA C++ Programming Guide (cc 8.0)";
  set_peaks(m, 19.5 * T, 19.5 * T, 156 * T, 312 * T, 0, 624 * T);
  m.dram_bytes_per_s = 2.039e12;
  m.l2_bytes = 40 * MiB;
  m.sm_count = 108;
  m.smem_per_sm = 164 * KiB;
  m.smem_per_block = 163 * KiB;
  m.smem_reserved_per_block = 1 * KiB;
  m.regs_per_sm = 65536;
  m.max_regs_per_thread = 255;
  m.reg_alloc_unit = 256;
  m.max_threads_per_sm = 2048;
  m.max_threads_per_block = 1024;
  m.max_blocks_per_sm = 32;
  m.dram_latency_s = 0.8e-6;
  m.launch_s = 2.5e-6;
  return m;
}

Machine ascend_910b() {
  Machine m;
  m.name = "ascend-910b";
  m.kind = "npu";
  m.modelled_only = true;
  m.description =
      "Huawei Ascend 910B (Atlas A2), modelled only: no Ascend hardware here. Cube 16x16x16 "
      "fp16 MACs per cycle per AI core; 20 AI cores (AIC) as in CATLASS's tuning examples";
  m.source =
      "L1 512 KB, L0A 64 KB, L0B 64 KB, L0C 128 KB, 20 AIC: CATLASS "
      "https://github.com/hicann/catlass/blob/main/docs/matmul_fast_tuning.md ('TileShape约束'); "
      "fp16 320 TFLOPS, int8 640 TOPS: https://borimooc.com/mNoticeDetail/1187.htm (public "
      "figures vary: 280 at https://ai.gitee.com/docs/compute/clusters_gpu/ascend_gpu); "
      "HBM bandwidth 1.6 TB/s is an assumption (public figures 1.2-1.6 TB/s)";
  set_peaks(m, 0, 0, 0, 320 * T, 0, 640 * T);
  m.dram_bytes_per_s = 1.6e12;
  m.sm_count = 20;
  m.l1_bytes = 512 * KiB;
  m.l0a_bytes = 64 * KiB;
  m.l0b_bytes = 64 * KiB;
  m.l0c_bytes = 128 * KiB;
  // L1 plays the role of shared memory: one block per AI core.
  m.smem_per_sm = m.l1_bytes;
  m.smem_per_block = m.l1_bytes;
  m.max_blocks_per_sm = 1;
  m.dram_latency_s = 1e-6;
  m.launch_s = 5e-6;
  return m;
}

const std::array<Machine, 7>& table() {
  static const std::array<Machine, 7> t = {h100_seed(),     h100_sxm(), h100_measured(), h200(),
                                           h200_measured(), a100(),     ascend_910b()};
  return t;
}

}  // namespace

std::string_view peak_class_name(PeakClass c) noexcept {
  switch (c) {
    case PeakClass::FP64:
      return "fp64";
    case PeakClass::FP32:
      return "fp32";
    case PeakClass::TF32:
      return "tf32";
    case PeakClass::FP16:
      return "fp16";
    case PeakClass::FP8:
      return "fp8";
    case PeakClass::INT8:
      return "int8";
  }
  return "?";
}

PeakClass peak_class_for(DType a, DType b) noexcept {
  auto rank = [](DType t) {
    switch (t) {
      case DType::F64:
        return 5;
      case DType::F32:
      case DType::I32:
        return 4;
      case DType::F16:
      case DType::BF16:
        return 3;
      case DType::E4M3:
      case DType::E5M2:
      case DType::E2M1:  // no fp4 peak in the table: it multiplies at the fp8 rate
        return 2;
      default:
        return 1;  // I8, I4, E8M0
    }
  };
  switch (std::max(rank(a), rank(b))) {
    case 5:
      return PeakClass::FP64;
    case 4:
      return PeakClass::FP32;
    case 3:
      return PeakClass::FP16;
    case 2:
      return PeakClass::FP8;
    default:
      return PeakClass::INT8;
  }
}

double peak_flops(const Machine& m, PeakClass c, PeakClass* used) noexcept {
  // Fallback chains: a class the machine does not offer runs on the nearest one that it does.
  static constexpr PeakClass chains[kPeakClassCount][4] = {
      {PeakClass::FP64, PeakClass::FP32, PeakClass::FP16, PeakClass::FP16},
      {PeakClass::FP32, PeakClass::TF32, PeakClass::FP16, PeakClass::FP16},
      {PeakClass::TF32, PeakClass::FP32, PeakClass::FP16, PeakClass::FP16},
      {PeakClass::FP16, PeakClass::FP32, PeakClass::FP32, PeakClass::FP32},
      {PeakClass::FP8, PeakClass::FP16, PeakClass::FP32, PeakClass::FP32},
      {PeakClass::INT8, PeakClass::FP16, PeakClass::FP32, PeakClass::FP32},
  };
  for (PeakClass k : chains[static_cast<int>(c)]) {
    if (m.peak_of(k) > 0) {
      if (used) *used = k;
      return m.peak_of(k);
    }
  }
  if (used) *used = c;
  return 0;
}

double ridge_point(const Machine& m, PeakClass c) noexcept {
  return m.dram_bytes_per_s > 0 ? peak_flops(m, c) / m.dram_bytes_per_s : 0;
}

const Machine* find_machine(std::string_view name) {
  if (name == "host") return &host_machine();
  for (const Machine& m : table())
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> machine_names() {
  std::vector<std::string> names;
  for (const Machine& m : table()) names.push_back(m.name);
  names.push_back("host");
  return names;
}

Machine resolve_machine(std::string_view name_or_path) {
  if (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json")
    return load_machine_json(std::string(name_or_path));
  if (const Machine* m = find_machine(name_or_path)) return *m;
  std::string known;
  for (const auto& n : machine_names()) {
    if (!known.empty()) known += ", ";
    known += n;
  }
  throw std::runtime_error("unknown machine '" + std::string(name_or_path) +
                           "' (builtin: " + known + "; or a path to a .json file)");
}

}  // namespace gemmkit::ledger
