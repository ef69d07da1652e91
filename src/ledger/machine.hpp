// Machine models as plain data: what the ledger needs to know about a device (peaks, bandwidth,
// on-chip capacities, occupancy limits). Builtin table + JSON files + the detected host CPU.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gemmkit/types.hpp"

namespace gemmkit::ledger {

// Throughput classes: the peak that applies to a problem depends on its input dtypes.
enum class PeakClass : std::uint8_t { FP64, FP32, TF32, FP16, FP8, INT8 };  // FP16 covers bf16
inline constexpr int kPeakClassCount = 6;
std::string_view peak_class_name(PeakClass c) noexcept;  // "fp64", "fp32", "tf32", "fp16", ...

// What one kernel family gets of a machine: the fractions of the class peak and of the DRAM
// bandwidth that its kernels sustain, as the ledger prices them (multiplying the planner's own
// coefficients). A family is an MMA kind and a CTA tile ("wgmma 128x256", "mma_sync 16x32
// rows", "cuda_simt 8x2"), named by the planner; the figures are fitted from measured runs
// (`gemmkit tune --measurements`, then `gemmkit ledger --fit`) and kept with the machine.
struct FamilyEfficiency {
  std::string family;
  double compute = 1.0;
  double dram = 1.0;
  int rows = 0;                    // measurements fitted
  double median_error = 0;         // median |predicted - measured| / measured after the fit
  double median_error_before = 0;  // the same with 1.0 and 1.0
  std::string source;              // the run(s) fitted
};

struct Machine {
  std::string name;
  std::string kind = "gpu";  // "gpu", "cpu" or "npu"
  std::string description;
  std::string source;          // where the figures come from (datasheet, URL, measurement)
  bool modelled_only = false;  // no such hardware here: figures are a model, never measured

  // Dense peak in FLOP/s (ops/s for int8), indexed by PeakClass. 0 = the class is not offered.
  double peak[kPeakClassCount] = {0, 0, 0, 0, 0, 0};
  double dram_bytes_per_s = 0;  // DRAM / HBM bandwidth
  double dram_latency_s = 0;    // first-byte latency of a DRAM load (pipeline fill)
  double launch_s = 0;          // fixed cost of one call (kernel launch, thread fork/join)
  // GPU, 0 where not measured: how long a streaming worker's loads stay in flight (a worker
  // then draws at most its ring's bytes / this, by Little's law; without it, at most
  // bandwidth / workers), and the rate at which partial tiles go to the L2 and come back.
  double stream_latency_s = 0;
  double l2_bytes_per_s = 0;
  // GPU-to-GPU link for tensor-parallel collectives (ledger/interconnect.hpp), 0 where unknown:
  // the bandwidth one GPU sends at (per direction) and the latency of one ring step.
  double interconnect_bytes_per_s = 0;
  double interconnect_latency_s = 0;

  // Parallel units: SMs (GPU), cores (CPU), AI cores (Ascend).
  int sm_count = 0;
  std::int64_t smem_per_sm = 0;              // bytes; CPU: per-core L2 (where packed panels live)
  std::int64_t smem_per_block = 0;           // bytes; the most one block may use (opt-in)
  std::int64_t smem_reserved_per_block = 0;  // bytes the runtime reserves per resident block
  std::int64_t l2_bytes = 0;                 // L2 (GPU) / last-level cache (CPU)
  int regs_per_sm = 0;                       // 32-bit registers
  int max_regs_per_thread = 0;
  int reg_alloc_unit = 0;  // registers are allocated per warp in units of this many
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int warp_size = 32;

  // Ascend (Cube) on-chip buffers, bytes.
  std::int64_t l1_bytes = 0, l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0;

  // CPU: how the peak was computed.
  int simd_bits = 0;           // 128 / 256 / 512
  int fma_units = 0;           // FMA pipes per core
  double freq_hz = 0;          // the clock used for the peak
  std::int64_t l1d_bytes = 0;  // per core
  std::string isa;             // "avx512", "avx2", ...

  // Per kernel family, fitted (see FamilyEfficiency); a family not listed gets 1.0 and 1.0.
  std::vector<FamilyEfficiency> family_efficiency;

  double peak_of(PeakClass c) const noexcept { return peak[static_cast<int>(c)]; }
  const FamilyEfficiency* efficiency_of(std::string_view family) const noexcept {
    for (const FamilyEfficiency& e : family_efficiency)
      if (e.family == family) return &e;
    return nullptr;
  }
};

// The class whose peak applies to a problem with these operand dtypes: the widest of A and B
// (bf16 x int4 dequantized runs at the fp16 rate; f32 x f32 at the fp32 rate).
PeakClass peak_class_for(DType a, DType b) noexcept;

// The peak used for a class: the class itself, else the nearest offered class (fp8 -> fp16,
// int8 -> fp16, tf32 -> fp32, fp32 -> tf32 -> fp16). `used` (optional) receives the class taken.
double peak_flops(const Machine& m, PeakClass c, PeakClass* used = nullptr) noexcept;

// Machine balance (ridge point) in FLOP/byte for a class.
double ridge_point(const Machine& m, PeakClass c) noexcept;

// Builtin table: "h100-seed", "h100-sxm", "h100-measured", "h200", "h200-measured", "a100",
// "ascend-910b", and "host" (detected on first use). nullptr when the name is unknown.
const Machine* find_machine(std::string_view name);
std::vector<std::string> machine_names();

// The host CPU, detected once: cores, SIMD width (cpuid), FMA units, frequency (sysfs or
// /proc/cpuinfo), caches (sysfs), DRAM bandwidth (env GEMMKIT_HOST_DRAM_BPS, else a short
// multi-threaded read measured once), and the peak computed from them.
const Machine& host_machine();
// The same without the bandwidth measurement (nominal DRAM figure): what the planner uses on
// the hot path, where a first call must not spend 0.3 s measuring memory.
const Machine& host_machine_nominal();

// JSON: every Machine field by name. load_machine_json accepts a subset of the keys on top of
// defaults, or on top of a builtin when the file has "base": "<name>". Throws std::runtime_error
// naming the file and the problem.
Machine load_machine_json(const std::string& path);
Machine machine_from_json_text(const std::string& text, const std::string& origin = "<text>");
std::string machine_to_json(const Machine& m);  // pretty-printed; a template for user files

// A builtin name, or a path to a JSON file (anything ending in ".json"). Throws on failure.
Machine resolve_machine(std::string_view name_or_path);

}  // namespace gemmkit::ledger
