// The tile ledger: what one tile configuration costs on a machine:
// shared memory, accumulator registers, occupancy, DRAM traffic with tiling, tiles, waves,
// the tail wave, split-K write-out, and the seed's three constraint tables with pass/fail.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gemmkit/gemm.hpp"
#include "ledger/machine.hpp"

namespace gemmkit::ledger {

// A tile configuration. GPU: one thread block computes a block_m x block_n output tile,
// stepping block_k along K with `stages` buffers in shared memory. CPU: block_m x block_n x
// block_k are the cache blocks MC x NC x KC of one core, threads = 1, and frag_m x frag_n the
// register tile MR x NR. Ascend: m1 x n1 x k1 (see ascend.hpp for the L0 level).
struct TileConfig {
  std::int64_t block_m = 128, block_n = 128, block_k = 32;
  int stages = 1;
  int threads = 128;
  int split_k = 1;
  DType acc = DType::F32;               // accumulator type (its size sets the register count)
  std::int64_t frag_m = 0, frag_n = 0;  // register tile per thread; 0 = block / threads
  int extra_regs_per_thread = 0;        // registers besides the accumulators (addresses, fragments)
  bool stream_k = false;  // GPU: the last tiles' K-iterations spread evenly over the workers
  // GPU: A and B are read by the TMA, which needs 16-byte strides: an operand whose leading
  // dimension or batch stride breaks that is first copied into a padded workspace.
  bool tma_operands = false;
};

// "128x128x32" (BMxBNxBK), or key=value pairs separated by ',' or ' ' as in
// KernelInfo::config: BM/BN/BK (or MC/NC/KC), STAGES, THREADS, SPLIT (or SPLIT_K), MR/NR.
// Keys not named keep their defaults. Throws std::invalid_argument naming the bad part.
TileConfig parse_tile_config(std::string_view text, TileConfig base = {});
std::string to_string(const TileConfig& t);  // "128x128x32 s3 t128 split1"

// A sensible default for a problem on a machine (GPU: 128x128x64, 4 stages, 256 threads;
// CPU: MC=96, NC=2048, KC=256, register tile 6x16).
TileConfig default_tile_config(const GemmDesc& desc, const Machine& machine);

struct ConstraintRow {
  std::string table;    // "dram" (a lower bound: the closer the better), "smem", "registers"
  std::string item;     // what is checked
  std::string formula;  // how the value is computed
  double value = 0;
  double limit = 0;
  bool pass = true;
  std::string note;
};

struct TileLedger {
  // (a) on-chip staging
  std::int64_t smem_bytes_per_stage = 0;  // (BM*BK*bA + BK*BN*bB)
  std::int64_t smem_bytes = 0;            // stages * per stage
  // (b) registers
  double acc_regs_per_thread = 0;  // BM*BN*acc_bytes/4 / threads (or frag_m*frag_n*...)
  int regs_per_thread = 0;         // accumulators + extra, rounded up
  // occupancy
  int blocks_by_smem = 0, blocks_by_regs = 0, blocks_by_threads = 0, blocks_by_hw = 0;
  int blocks_per_sm = 0;          // the minimum of the four
  std::string occupancy_limiter;  // "smem", "registers", "threads", "blocks"
  double occupancy = 0;           // resident threads / max threads per SM (GPU)
  // traffic with tiling, no cache reuse: A read once per N-tile column, B once per M-tile row
  double dram_read_bytes = 0;   // ~ b*M*N*K*(1/BN + 1/BM), exact at the edges
  double dram_write_bytes = 0;  // D (x split_k partial sums) + C read when beta != 0
  double dram_bytes = 0;
  double split_k_write_bytes = 0;  // the extra write-out caused by split_k > 1
  double min_bytes = 0;            // the problem's lower bound, for the ratio
  // work decomposition
  std::int64_t tiles_m = 0, tiles_n = 0;
  std::int64_t tiles = 0;       // output tiles, times batch
  std::int64_t work_units = 0;  // tiles * split_k
  std::int64_t concurrent = 0;  // SMs * blocks_per_sm
  double waves = 0;             // work_units / concurrent
  std::int64_t waves_ceil = 0;
  double tail_efficiency = 1;     // work_units / (waves_ceil * concurrent)
  std::int64_t k_iterations = 0;  // ceil(K / split / BK) per work unit
  std::vector<ConstraintRow> constraints;
  bool fits = true;  // every hard limit (smem, registers) passes
};

TileLedger analyze_tile(const GemmDesc& desc, const TileConfig& tile, const Machine& machine,
                        double beta = 0.0);

}  // namespace gemmkit::ledger
