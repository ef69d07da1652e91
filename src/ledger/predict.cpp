// The prediction: named terms, coefficients as data.
#include "ledger/predict.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ledger/problem_ledger.hpp"
#include "ledger/tma_staging.hpp"

namespace gemmkit::ledger {

namespace {
constexpr double kStreamKWaveCost = 1.7;  // a spread wave of stream-K against a data-parallel one

// Two limits on one stream (the DRAM's share and a worker's ring) combined as their 4-norm: the
// larger where the other is small (within 2% at half of it), 1.19x the larger where they are
// equal, since a ring waiting on a DRAM that every ring keeps busy reaches neither rate. On the
// H200, 128 x 128 x 65536 in 64 x 128 tiles ran 15.7 us in 32 pieces (ring 8.8 us, DRAM 8.9)
// and 14.6 in 64 (ring 4.4, DRAM 9.4); the larger of the two alone ranked them the other way.
constexpr double kLimitNorm = 4;
double combined_limit(double a, double b) {
  const double hi = std::max(a, b), lo = std::min(a, b);
  if (hi <= 0) return 0;
  return hi * std::pow(1 + std::pow(lo / hi, kLimitNorm), 1 / kLimitNorm);
}
}  // namespace

double Prediction::term(std::string_view name) const noexcept {
  for (const Term& t : terms)
    if (t.name == name) return t.seconds;
  return 0;
}

Prediction predict(const GemmDesc& d, double beta, const TileConfig& tile, const Machine& mc,
                   const Coefficients& co) {
  Prediction pr;
  const ProblemLedger p = analyze(d, beta, mc);
  const TileLedger t = analyze_tile(d, tile, mc, beta);
  const double peak = p.peak_flops * co.compute_efficiency;
  const double bw = mc.dram_bytes_per_s * co.dram_efficiency;
  const double launch = co.launch_s >= 0 ? co.launch_s : mc.launch_s;
  const double latency = co.latency_s >= 0 ? co.latency_s : mc.dram_latency_s;

  // compute: the useful FLOPs at the sustained peak.
  const double t_compute = peak > 0 ? p.flops / peak : 0;
  // wave quantization: every work unit costs a full padded tile, and the last wave of
  // `concurrent` units takes as long as a full one.
  // On a CPU the cache blocks are clipped to the problem and the threads share them, so only
  // the register tile (frag_m x frag_n, MR x NR) pads the work, and the cores take whole units
  // in rounds (the last one as long as a full one): data-parallel deals the register tiles,
  // split-K (src/cpu/gemm_driver.hpp) the K pieces, each of all M x N on one core.
  const double unit_flops = 2.0 * tile.block_m * tile.block_n * tile.block_k * t.k_iterations;
  const double conc = static_cast<double>(std::max<std::int64_t>(1, t.concurrent));
  auto round_up = [](std::int64_t x, std::int64_t q) { return q > 1 ? (x + q - 1) / q * q : x; };
  const bool cpu = mc.kind == "cpu";
  const std::int64_t cores = std::max(1, mc.sm_count);
  const std::int64_t fm = std::max<std::int64_t>(1, tile.frag_m),
                     fn = std::max<std::int64_t>(1, tile.frag_n);
  const std::int64_t batch = std::max<std::int64_t>(1, d.batch);
  const std::int64_t cpu_units =
      (tile.split_k > 1 ? tile.split_k : (d.m + fm - 1) / fm * ((d.n + fn - 1) / fn)) * batch;
  auto cpu_rounds = [&] {
    if (cpu_units <= 0) return 0.0;
    const double padded = 2.0 * round_up(d.m, fm) * round_up(d.n, fn) * d.k * batch;
    const std::int64_t rounds = (cpu_units + cores - 1) / cores;
    return padded / cpu_units * static_cast<double>(rounds * cores) / peak;
  };
  // Stream-K (GPU, src/sched's split): all but the partial wave and one full wave run
  // data-parallel; the rest is spread evenly, so it counts in fractional waves, each at
  // kStreamKWaveCost the cost of a data-parallel one (pieces restart the ring, owners wait and
  // read parked tiles: on the H200 2048 x 2112 x 7168, all of it spread, took 164 us for 1.33
  // waves of work against 145 us for 2 data-parallel waves, 1.7x a wave). Each worker parks at
  // most one partial tile, which its tile's owner reads back at the end.
  const bool stream_k = tile.stream_k && !cpu;
  double sk_waves = 0;
  if (stream_k && t.concurrent > 0) {
    const std::int64_t full = t.work_units / t.concurrent, rem = t.work_units % t.concurrent;
    const std::int64_t spread = rem == 0 ? 0 : rem + (full >= 1 ? t.concurrent : 0);
    sk_waves = static_cast<double>(t.work_units - spread) / t.concurrent +
               kStreamKWaveCost * static_cast<double>(spread) / t.concurrent;
  }
  const double t_waves = peak <= 0  ? 0
                         : cpu      ? cpu_rounds()
                         : stream_k ? sk_waves * unit_flops * conc / peak
                                    : t.waves_ceil * unit_flops * conc / peak;
  const double t_wave_q = std::max(0.0, t_waves - t_compute);

  // dram: tiled traffic; with L2 reuse the blocks of one wave share panels, as if the tile were
  // group_m*BM x group_n*BN (a near-square group of `concurrent` tiles), never below the minimum.
  double bytes = t.dram_bytes;
  if (co.l2_reuse && d.m > 0 && d.n > 0) {
    const std::int64_t per_batch = std::max<std::int64_t>(1, t.concurrent);
    std::int64_t gm = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(std::floor(std::sqrt(static_cast<double>(per_batch)))), 1,
        std::max<std::int64_t>(1, t.tiles_m));
    std::int64_t gn =
        std::clamp<std::int64_t>(per_batch / gm, 1, std::max<std::int64_t>(1, t.tiles_n));
    gm = std::clamp<std::int64_t>(per_batch / gn, 1, std::max<std::int64_t>(1, t.tiles_m));
    TileConfig group = tile;
    group.block_m = tile.block_m * gm;
    group.block_n = tile.block_n * gn;
    bytes = analyze_tile(d, group, mc, beta).dram_bytes;
    // Operands that fit in half the cache together are read from DRAM once.
    if (mc.l2_bytes > 0 && p.a_bytes + p.b_bytes <= 0.5 * mc.l2_bytes)
      bytes = std::min(bytes, p.min_bytes + t.split_k_write_bytes);
  }
  bytes = std::max(bytes, p.min_bytes);
  pr.dram_bytes = bytes;
  // ... at the bandwidth the busy workers draw: one tile on 132 SMs, or one thread of a CPU,
  // does not stream at the full rate. Split-K pieces, and GPU tiles that the problem fills,
  // each draw at most their ring's bytes per stream latency where the machine has that figure
  // (66 pieces of 128x128x65536 stream as fast as 132; the 56 whole 128x128 tiles of
  // 128x7168x2048 ran 14.8 us on the H200 where bandwidth / workers priced them at 23.1), other
  // workers bandwidth / workers. (Taken for tiles the problem does not fill, the rule priced
  // the sm90 tile on decode rows below the row-block kernel: 8x7168x2048 predicted 11.8 us and
  // ran 19.2, the kernel cutting K itself where the model sees whole tiles.)
  // A streaming worker also reads its own operand bytes, L2 hits included, at that rate: a
  // stage per stream latency / stages, whatever the DRAM gives the others (128 x 4096 x 4096 on
  // 64 whole 64 x 128 tiles: every CTA reads all of A beside its B panel, 1.5 MB a CTA, and took
  // 21.4 us on the H200 where the DRAM bytes at the busy share priced it at 8.4).
  double busy_share = 1, t_stream = 0;
  if (co.bandwidth_per_worker) {
    const double workers = cpu ? static_cast<double>(cores) : conc;
    const double busy = cpu ? static_cast<double>(cpu_units) : static_cast<double>(t.work_units);
    const bool filled = d.m >= tile.block_m && d.n >= tile.block_n;
    const bool stream = !cpu && (tile.split_k > 1 || filled) && mc.stream_latency_s > 0 && bw > 0;
    const double per_worker = stream ? static_cast<double>(t.smem_bytes) / mc.stream_latency_s / bw
                              : workers > 0 ? 1.0 / workers
                                            : 1.0;
    busy_share = busy > 0 ? std::min(1.0, busy * per_worker) : 1.0;
    if (stream && t.smem_bytes > 0)
      t_stream = static_cast<double>(t.waves_ceil * t.k_iterations) * mc.stream_latency_s *
                 static_cast<double>(t.smem_bytes_per_stage) / static_cast<double>(t.smem_bytes);
  }
  const double t_dram = combined_limit(bw > 0 ? bytes / (bw * busy_share) : 0, t_stream);

  // pipeline fill: each wave starts with a DRAM latency plus the first stages' loads at the
  // per-block share of the bandwidth.
  const double per_block_bw = bw > 0 ? bw / conc : 0;
  const double stage_load =
      per_block_bw > 0 ? co.fill_stages * t.smem_bytes_per_stage / per_block_bw : 0;
  const double t_fill = t.waves_ceil * (latency + stage_load);
  // Fixups (GPU): a stream-K worker parks at most one partial tile, which its owner reads back
  // (after waiting for it); a split-K piece writes its partial tile, which the reduction kernel
  // launched after the GEMM reads back: all pieces' partials through the L2 where the machine
  // has its rate (the cost grows with the pieces), else one at a block's share of the DRAM.
  // (512^3 split in 2 took 14.7 us a call against 7.9 us data-parallel on the H200,
  // `bench/micro/hostcost.cpp`.)
  const double partial_bytes = 2.0 * tile.block_m * tile.block_n * 4;  // written, then read
  const bool split_k = !cpu && tile.split_k > 1;
  double t_fixup = 0;
  if (split_k && mc.l2_bytes_per_s > 0)
    t_fixup = latency + partial_bytes * static_cast<double>(t.work_units) / mc.l2_bytes_per_s;
  else if (per_block_bw > 0 && ((stream_k && t.work_units % t.concurrent != 0) || split_k))
    t_fixup = latency + partial_bytes / per_block_bw;

  // TMA kernels (ledger/tma_staging.hpp): an operand the TMA cannot address is copied first;
  // one whose rows are off 128 bytes is copied where that pays, else read more slowly.
  double t_staging = 0, t_misaligned = 0;
  if (tile.tma_operands && !cpu && d.k > 0) {
    const std::int64_t batch_n = std::max<std::int64_t>(1, d.batch);
    for (const MatrixDesc* o : {&d.a, &d.b}) {
      const std::int64_t eb = std::max(1, dtype_bits(o->dtype) / 8);
      const auto off = [&](std::int64_t q) {
        return o->ld * eb % q != 0 || (batch_n > 1 && o->batch_stride * eb % q != 0);
      };
      const Extent e = o == &d.a ? stored_extent_a(d) : stored_extent_b(d);
      const double bytes = static_cast<double>(e.rows) * e.cols * eb * batch_n;
      if (off(kTmaStrideBytes) || (off(kTmaRowBytes) && stage_misaligned(p.flops, bytes)))
        t_staging += staging_copy_s(bytes);
      else if (off(kTmaRowBytes))
        t_misaligned += kTmaMisalignedShare * t_compute;
    }
  }
  pr.terms = {
      {"compute", t_compute, "flops / (peak x compute_efficiency)"},
      {"dram", t_dram,
       "dram_bytes / (bandwidth x dram_efficiency x busy workers' share), combined (4-norm) with a "
       "streaming worker's own operand bytes at its ring's rate"},
      {"wave_quantization", t_wave_q, "padded tiles and the partial last wave"},
      {"pipeline_fill", t_fill, "waves x (latency + first stage load)"},
      {"fixup", t_fixup, "split-K / stream-K: partial tiles written and read back"},
      {"staging", t_staging, "padded copies of operands the TMA cannot address (or reads slowly)"},
      {"tma_misaligned", t_misaligned, "TMA reads of rows off 128 bytes, not copied"},
      {"launch", launch, "fixed cost of one call"},
  };
  const double body =
      co.overlap ? std::max(t_compute + t_wave_q, t_dram) : t_compute + t_wave_q + t_dram;
  pr.total_s = launch + t_staging + t_misaligned + t_fill + t_fixup + body;
  pr.limiter = launch > body ? "launch" : (t_compute + t_wave_q >= t_dram ? "compute" : "dram");
  return pr;
}

double predict_ms(const GemmDesc& d, double beta, const TileConfig& tile,
                  std::string_view machine) {
  try {
    const Machine m = resolve_machine(machine);
    return predict(d, beta, tile, m).total_s * 1e3;
  } catch (const std::exception&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

double predict_ms(const GemmDesc& d, double beta, std::string_view machine) {
  try {
    const Machine m = resolve_machine(machine);
    return predict(d, beta, default_tile_config(d, m), m).total_s * 1e3;
  } catch (const std::exception&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace gemmkit::ledger
