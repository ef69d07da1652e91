// A kernel's configuration as data (CUTLASS's TileDescription, DeepGEMM's GemmConfig): the tile,
// the pipeline, the threads, the cluster, the scheduler modes it supports, the raster order, the
// swizzle and the instruction set. The registry holds one per kernel; the planner, the ledger
// (through to_tile_config), `gemmkit kernels`, `bench` and `explain` read it; nothing re-parses
// prose. to_string() prints it and parse_kernel_config() reads that text back.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "gemmkit/types.hpp"
#include "ledger/tile_ledger.hpp"
#include "sched/tile_scheduler.hpp"

namespace gemmkit::dispatch {

// The instruction set the kernel's inner loop is written in; it bounds the share of the
// machine's peak the kernel can reach (isa_compute_efficiency).
enum class Isa : std::uint8_t {
  Portable,  // CPU: C++ with no ISA flags (x86-64 baseline, 128-bit SSE2 vectors at best)
  Avx2,      // CPU: AVX2 + FMA, 256-bit
  Avx512,    // CPU: AVX-512F, 512-bit
  CudaSimt,  // CUDA: FFMA on the CUDA cores
  MmaSync,   // CUDA: warp-level mma.sync (sm_80+)
  Wgmma,     // CUDA: warpgroup wgmma.mma_async fed by the TMA (sm_90a)
};
std::string_view isa_name(Isa isa) noexcept;  // "portable", "avx2", ..., "wgmma"

enum class Swizzle : std::uint8_t { None, Xor16B, B128 };
std::string_view swizzle_name(Swizzle s) noexcept;  // "none", "xor16B", "128B"

// Scheduler modes as a bit set (bit i = sched::Mode value i).
using ModeSet = std::uint8_t;
constexpr ModeSet mode_bit(sched::Mode m) noexcept {
  return static_cast<ModeSet>(1u << static_cast<unsigned>(m));
}
constexpr bool has_mode(ModeSet s, sched::Mode m) noexcept { return (s & mode_bit(m)) != 0; }
inline constexpr sched::Mode kAllModes[] = {sched::Mode::DataParallel, sched::Mode::SplitK,
                                            sched::Mode::StreamK};
std::string_view mode_name(sched::Mode m) noexcept;  // "data_parallel", "split_k", "stream_k"

struct KernelConfig {
  // GPU: the CTA tile. CPU: the cache blocks MC x NC x KC of one core (the ledger's convention).
  int tile_m = 0, tile_n = 0, tile_k = 0;
  // CPU: the register tile MR x NR of the microkernel; 0 on the GPU.
  int frag_m = 0, frag_n = 0;
  int stages = 1;      // shared-memory ring stages (GPU); 1 on the CPU
  int threads = 1;     // threads per CTA (GPU); 1 on the CPU (the blocks are per core)
  int warpgroups = 0;  // warpgroups per CTA when the kernel is organized by them, else 0
  int cluster_m = 1, cluster_n = 1;
  ModeSet modes = mode_bit(sched::Mode::DataParallel);
  int raster_group = 0;  // grouped rasterization panel height in tiles; 0 = plain order
  Swizzle swizzle = Swizzle::None;
  Isa isa = Isa::Portable;
  // GPU: the large side of D is cut into one block of rows per SM (rows sized to the problem),
  // so the ledger sizes that side of the tile per problem; tile_m then spans the small side.
  bool rows_per_sm = false;

  bool supports(sched::Mode m) const noexcept { return has_mode(modes, m); }
  friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
};

// "128x256x64 stages=4 threads=384 warpgroups=3 cluster=2x1 modes=data_parallel|split_k
// raster=8 swizzle=128B isa=wgmma"; CPU configs add "frag=6x16", row-cut kernels
// "rows=per_sm". Every field is printed.
std::string to_string(const KernelConfig& c);
// The kernel family a config belongs to, as the machine's fitted efficiencies name it: the MMA
// kind and the CTA tile, "wgmma 128x256", "mma_sync 16x32 rows" (rows_per_sm), "avx2 6x16"
// (CPU: the register tile).
std::string family_key(const KernelConfig& c);
// The same for one problem: a GPU tile the problem does not fill (M or N below the tile: decode
// rows through a prefill tile) is its own family, "wgmma 64x128 partial", since such a kernel
// streams its operand at a rate its filled tiles do not show.
std::string family_key(const KernelConfig& c, const GemmDesc& d);
// The inverse of to_string (any order of the key=value parts after the tile). Throws
// std::invalid_argument naming the part it cannot read.
KernelConfig parse_kernel_config(std::string_view text);

// True when every field a consumer needs is set: a positive tile, stages and threads, a
// cluster of at least 1x1, and at least one mode.
bool is_filled(const KernelConfig& c) noexcept;

// The ledger's view of a config for one accumulator type and split count.
ledger::TileConfig to_tile_config(const KernelConfig& c, DType acc, int split = 1,
                                  sched::Mode mode = sched::Mode::DataParallel);

// The same for one problem on a machine: a rows_per_sm config's tile spans the small side of
// D by the rows one SM takes of the large side (multiples of 8).
ledger::TileConfig problem_tile_config(const KernelConfig& c, const GemmDesc& d, int sm_count,
                                       int split = 1,
                                       sched::Mode mode = sched::Mode::DataParallel);

// The fraction of a machine's peak (for the problem's class) that the instruction set can
// reach: on a CPU the kernel's vector width over the machine's; 1 on the GPU (the builtin
// machines' peaks are tensor-core peaks; no per-ISA figure is measured yet).
double isa_compute_efficiency(Isa isa, int machine_simd_bits) noexcept;

}  // namespace gemmkit::dispatch
