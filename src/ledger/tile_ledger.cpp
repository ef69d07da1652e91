// The tile ledger: the cost of one tile configuration, and the seed's three constraint tables.
#include "ledger/tile_ledger.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "ledger/problem_ledger.hpp"

namespace gemmkit::ledger {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }
std::int64_t round_up(std::int64_t a, std::int64_t b) { return b > 0 ? ceil_div(a, b) * b : a; }

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::int64_t parse_int(const std::string& key, const std::string& v) {
  std::size_t used = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || x <= 0)
    throw std::invalid_argument("tile config: '" + key + "' needs a positive integer, got '" + v +
                                "'");
  return x;
}

ConstraintRow row(std::string table, std::string item, std::string formula, double value,
                  double limit, bool pass, std::string note = {}) {
  return ConstraintRow{std::move(table), std::move(item), std::move(formula), value, limit, pass,
                       std::move(note)};
}

std::string ratio_note(double ratio) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "lower bound: the closer the better (%.2fx)", ratio);
  return buf;
}

}  // namespace

TileConfig parse_tile_config(std::string_view text, TileConfig t) {
  std::string s(text);
  for (char& c : s)
    if (c == ',' || c == ';') c = ' ';
  std::istringstream in(s);
  for (std::string part; in >> part;) {
    const auto eq = part.find('=');
    if (eq == std::string::npos) {  // BMxBNxBK
      std::string p = part;
      for (char& c : p)
        if (c == 'X') c = 'x';
      const auto x1 = p.find('x'), x2 = x1 == std::string::npos ? x1 : p.find('x', x1 + 1);
      if (x1 == std::string::npos || x2 == std::string::npos)
        throw std::invalid_argument("tile config: expected BMxBNxBK or KEY=VALUE, got '" + part +
                                    "'");
      t.block_m = parse_int("BM", p.substr(0, x1));
      t.block_n = parse_int("BN", p.substr(x1 + 1, x2 - x1 - 1));
      t.block_k = parse_int("BK", p.substr(x2 + 1));
      continue;
    }
    const std::string key = upper(part.substr(0, eq)), v = part.substr(eq + 1);
    if (key == "BM" || key == "MC" || key == "BLOCK_M")
      t.block_m = parse_int(key, v);
    else if (key == "BN" || key == "NC" || key == "BLOCK_N")
      t.block_n = parse_int(key, v);
    else if (key == "BK" || key == "KC" || key == "BLOCK_K")
      t.block_k = parse_int(key, v);
    else if (key == "STAGES" || key == "S")
      t.stages = static_cast<int>(parse_int(key, v));
    else if (key == "THREADS" || key == "T")
      t.threads = static_cast<int>(parse_int(key, v));
    else if (key == "SPLIT" || key == "SPLIT_K" || key == "SPLITK")
      t.split_k = static_cast<int>(parse_int(key, v));
    else if (key == "MR" || key == "FRAG_M")
      t.frag_m = parse_int(key, v);
    else if (key == "NR" || key == "FRAG_N")
      t.frag_n = parse_int(key, v);
    // other keys (CLUSTER, RASTER, ...) do not enter the ledger
  }
  return t;
}

std::string to_string(const TileConfig& t) {
  std::ostringstream o;
  o << t.block_m << "x" << t.block_n << "x" << t.block_k << " stages " << t.stages << " threads "
    << t.threads << " split_k " << t.split_k;
  if (t.frag_m > 0 && t.frag_n > 0) o << " frag " << t.frag_m << "x" << t.frag_n;
  return o.str();
}

TileConfig default_tile_config(const GemmDesc& d, const Machine& m) {
  TileConfig t;
  if (m.kind == "cpu") {
    const double b = element_bytes(d.a.dtype);
    t.frag_m = 6;
    t.frag_n = m.simd_bits >= 512 ? 32 : 16;
    t.block_k = 256;
    // Packed A block MC x KC in about half of L2, a multiple of MR.
    const double l2 = static_cast<double>(m.smem_per_sm > 0 ? m.smem_per_sm : 1 << 20);
    t.block_m = std::max<std::int64_t>(
        t.frag_m, static_cast<std::int64_t>(l2 / 2 / (t.block_k * b)) / t.frag_m * t.frag_m);
    t.block_n = 2048;
    t.stages = 1;
    t.threads = 1;
  } else if (m.kind == "npu") {
    t.block_m = 128;
    t.block_n = 256;
    t.block_k = 256;
    t.stages = 2;
    t.threads = 1;
  } else {
    t.block_m = 128;
    t.block_n = 128;
    t.block_k = 64;
    t.stages = 4;
    t.threads = 256;
  }
  return t;
}

TileLedger analyze_tile(const GemmDesc& d, const TileConfig& t, const Machine& mc, double beta) {
  if (t.block_m <= 0 || t.block_n <= 0 || t.block_k <= 0 || t.stages <= 0 || t.threads <= 0 ||
      t.split_k <= 0)
    throw std::invalid_argument("tile config: every size must be positive (" + to_string(t) + ")");
  TileLedger r;
  const bool cpu = mc.kind == "cpu", npu = mc.kind == "npu";
  const double ba = element_bytes(d.a.dtype), bb = element_bytes(d.b.dtype),
               bc = element_bytes(d.c.dtype), bd = element_bytes(d.d.dtype),
               bacc = element_bytes(t.acc);
  const double m = static_cast<double>(d.m), n = static_cast<double>(d.n),
               k = static_cast<double>(d.k);
  const std::int64_t batch = std::max<std::int64_t>(1, d.batch);

  // (a) staging buffers. CPU: the packed A block (MC x KC) lives in L2, B's panel in the LLC.
  const double a_stage = static_cast<double>(t.block_m * t.block_k) * ba;
  const double b_stage = static_cast<double>(t.block_k * t.block_n) * bb;
  r.smem_bytes_per_stage = static_cast<std::int64_t>(std::ceil(cpu ? a_stage : a_stage + b_stage));
  r.smem_bytes = r.smem_bytes_per_stage * t.stages;

  // (b) accumulators. GPU: 32-bit registers per thread. CPU: SIMD registers of the MR x NR tile.
  const double frag = (t.frag_m > 0 && t.frag_n > 0)
                          ? static_cast<double>(t.frag_m * t.frag_n)
                          : static_cast<double>(t.block_m * t.block_n) / t.threads;
  if (cpu)
    r.acc_regs_per_thread = std::ceil(frag * bacc / std::max(1, mc.simd_bits / 8));
  else
    r.acc_regs_per_thread = frag * bacc / 4.0;
  r.regs_per_thread = static_cast<int>(std::ceil(r.acc_regs_per_thread)) + t.extra_regs_per_thread;

  // Occupancy: blocks per SM limited by shared memory, registers, threads and the hardware cap.
  const int big = 1 << 20;
  r.blocks_by_hw = mc.max_blocks_per_sm > 0 ? mc.max_blocks_per_sm : 1;
  r.blocks_by_smem = big;
  if (!cpu && mc.smem_per_sm > 0) {
    const std::int64_t per_block = r.smem_bytes + mc.smem_reserved_per_block;
    r.blocks_by_smem =
        r.smem_bytes > mc.smem_per_block
            ? 0
            : static_cast<int>(mc.smem_per_sm / std::max<std::int64_t>(1, per_block));
  }
  r.blocks_by_regs = big;
  if (!cpu && !npu && mc.regs_per_sm > 0) {
    const int warp = std::max(1, mc.warp_size);
    const std::int64_t warps = ceil_div(t.threads, warp);
    const std::int64_t regs_per_warp = round_up(static_cast<std::int64_t>(r.regs_per_thread) * warp,
                                                std::max(1, mc.reg_alloc_unit));
    r.blocks_by_regs =
        (mc.max_regs_per_thread > 0 && r.regs_per_thread > mc.max_regs_per_thread)
            ? 0
            : static_cast<int>(mc.regs_per_sm / std::max<std::int64_t>(1, regs_per_warp * warps));
  }
  r.blocks_by_threads = big;
  if (!cpu && !npu && mc.max_threads_per_sm > 0)
    r.blocks_by_threads = (mc.max_threads_per_block > 0 && t.threads > mc.max_threads_per_block)
                              ? 0
                              : mc.max_threads_per_sm / t.threads;
  r.blocks_per_sm =
      std::min({r.blocks_by_smem, r.blocks_by_regs, r.blocks_by_threads, r.blocks_by_hw});
  r.occupancy_limiter = r.blocks_per_sm == r.blocks_by_smem      ? "smem"
                        : r.blocks_per_sm == r.blocks_by_regs    ? "registers"
                        : r.blocks_per_sm == r.blocks_by_threads ? "threads"
                                                                 : "blocks";
  if (!cpu && !npu && mc.max_threads_per_sm > 0)
    r.occupancy = static_cast<double>(r.blocks_per_sm) * t.threads / mc.max_threads_per_sm;
  else
    r.occupancy = r.blocks_per_sm > 0 ? 1.0 : 0.0;

  // Work decomposition.
  r.tiles_m = ceil_div(d.m, t.block_m);
  r.tiles_n = ceil_div(d.n, t.block_n);
  r.tiles = r.tiles_m * r.tiles_n * batch;
  r.work_units = r.tiles * t.split_k;
  r.concurrent = static_cast<std::int64_t>(mc.sm_count) * std::max(1, r.blocks_per_sm);
  r.waves = r.concurrent > 0 ? static_cast<double>(r.work_units) / r.concurrent : 0;
  r.waves_ceil = ceil_div(r.work_units, r.concurrent);
  r.tail_efficiency =
      r.waves_ceil > 0 ? static_cast<double>(r.work_units) / (r.waves_ceil * r.concurrent) : 1.0;
  r.k_iterations = ceil_div(ceil_div(d.k, t.split_k), t.block_k);

  // DRAM traffic with tiling and no cache reuse (the CATLASS Common template): every
  // output tile streams its A rows and B columns over all of K. Exact at partial edge tiles:
  // A is read once per tile column, B once per tile row.
  r.dram_read_bytes = batch * (ba * m * k * r.tiles_n + bb * k * n * r.tiles_m);
  const double out = batch * bd * m * n;
  r.split_k_write_bytes = out * (t.split_k - 1);
  r.dram_write_bytes = out * t.split_k + (beta != 0.0 ? batch * bc * m * n : 0.0);
  r.dram_bytes = r.dram_read_bytes + r.dram_write_bytes;
  r.min_bytes = analyze(d, beta, mc).min_bytes;

  // The three constraint tables: shared memory, registers, DRAM traffic.
  const ProblemLedger p = analyze(d, beta, mc);
  const double dram_budget = p.t_compute_s * mc.dram_bytes_per_s;
  r.constraints.push_back(row("dram", "tiled traffic vs the lower bound",
                              "b*(MK*ceil(N/BN) + KN*ceil(M/BM)) + MN*split", r.dram_bytes,
                              r.min_bytes, true,
                              ratio_note(r.min_bytes > 0 ? r.dram_bytes / r.min_bytes : 0)));
  r.constraints.push_back(row("dram", "tiled traffic within the compute time",
                              "dram_bytes <= t_compute * bandwidth", r.dram_bytes, dram_budget,
                              r.dram_bytes <= dram_budget,
                              "fails: without cache reuse this tiling is memory-bound"));
  if (cpu) {
    r.constraints.push_back(row("smem", "packed A block in L2 (per core)", "MC*KC*bA", a_stage,
                                static_cast<double>(mc.smem_per_sm), a_stage <= mc.smem_per_sm));
    r.constraints.push_back(row("smem", "packed B panel in the LLC", "KC*NC*bB", b_stage,
                                static_cast<double>(mc.l2_bytes), b_stage <= mc.l2_bytes));
    const int vregs = mc.simd_bits >= 512 ? 32 : 16;
    r.constraints.push_back(row("registers", "accumulator SIMD registers", "MR*NR*b_acc/simd",
                                r.acc_regs_per_thread, vregs, r.acc_regs_per_thread < vregs,
                                "a few registers must stay free for A and B"));
  } else {
    r.constraints.push_back(
        row("smem", npu ? "L1 per block (stages x tiles)" : "shared memory per block",
            "stages*(BM*BK*bA + BK*BN*bB)", static_cast<double>(r.smem_bytes),
            static_cast<double>(mc.smem_per_block), r.smem_bytes <= mc.smem_per_block));
    if (!npu) {
      const double resident = static_cast<double>(std::max(1, r.blocks_per_sm)) *
                              (r.smem_bytes + mc.smem_reserved_per_block);
      r.constraints.push_back(row("smem", "shared memory of the resident blocks per SM",
                                  "blocks_per_sm*(smem + reserved)", resident,
                                  static_cast<double>(mc.smem_per_sm), resident <= mc.smem_per_sm));
      r.constraints.push_back(row("registers", "accumulator registers per thread",
                                  "BM*BN*b_acc/4/threads", r.acc_regs_per_thread,
                                  mc.max_regs_per_thread,
                                  r.regs_per_thread <= mc.max_regs_per_thread));
      const double regs_block =
          static_cast<double>(round_up(static_cast<std::int64_t>(r.regs_per_thread) * mc.warp_size,
                                       std::max(1, mc.reg_alloc_unit))) *
          ceil_div(t.threads, mc.warp_size);
      r.constraints.push_back(row("registers", "registers per block",
                                  "ceil(regs*32/256)*256 * warps", regs_block, mc.regs_per_sm,
                                  regs_block <= mc.regs_per_sm));
      const double full = mc.max_threads_per_sm > 0
                              ? static_cast<double>(mc.regs_per_sm) / mc.max_threads_per_sm
                              : 0;
      r.constraints.push_back(row("registers", "registers per thread for 100% occupancy",
                                  "regs_per_sm / max_threads_per_sm", r.regs_per_thread, full,
                                  r.regs_per_thread <= full,
                                  "soft: above it fewer threads are resident"));
    }
  }
  r.fits = r.blocks_per_sm > 0;
  for (const ConstraintRow& c : r.constraints)
    if (c.table != "dram" && c.note.rfind("soft", 0) != 0 && !c.pass) r.fits = false;
  return r;
}

}  // namespace gemmkit::ledger
