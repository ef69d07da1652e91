// The production CPU GEMM, written once over a microkernel type K and compiled by each ISA file
// (gemm_avx512.cpp, gemm_avx2.cpp, gemm_portable.cpp) with that file's flags:
//   mainloop   BLIS's five loops: jc (NC) -> pc (KC, pack B) -> ic (MC, pack A) -> jr (NR)
//              -> ir (MR) -> K::tile
//   scheduler  the team shares each packed B block and splits the rows (BLIS's ic loop), or
//              splits the columns when there is one row block (Driver::run)
//   epilogue   in K::tile (registers -> D for unit-stride tiles, a temporary tile otherwise);
//              a bf16 / fp16 D is narrowed there, once, from an f32 running sum (Driver::run)
// Plus the variants that reuse it: a streaming GEMV for M == 1 or N == 1, deterministic
// split-K for small M * N with long K, and strided batches.
// Batch invariance (Options::batch_invariant, the packed path only): KC comes from K and the
// ISA's block table, and no thread split changes a tile's arithmetic (Driver::run); what looks
// at M is pinned: the orientation (oriented), the edge tiles' scalar write-back
// (Driver::padded_tile), the small-M tile and the weight stream (gemm_isa_entries.hpp).
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/validate.hpp"
#include "core/view.hpp"
#include "cpu/block_table.hpp"
#include "cpu/cpu_info.hpp"
#include "cpu/epilogue.hpp"
#include "cpu/helper_team.hpp"
#include "cpu/isa_namespace.hpp"
#include "cpu/ordered_tickets.hpp"
#include "cpu/pack.hpp"
#include "cpu/pack_ahead.hpp"
#include "cpu/team_barrier.hpp"
#include "cpu/tile_choice.hpp"
#include "cpu/workspace.hpp"
#include "gemmkit/gemm.hpp"

namespace gemmkit::cpu {
inline namespace GEMMKIT_CPU_ISA {

// One batch entry as the driver sees it: D(i, j) = alpha * sum_p A(i, p) B(p, j) + beta * C.
template <class T>
struct Problem {
  std::int64_t m = 0, n = 0, k = 0;
  PackSource<T> a;    // element (i, p)
  PackSource<T> bt;   // element (j, p): B seen transposed, so both pack the same way
  void* d = nullptr;  // stored as d_as (stored.hpp)
  core::Strides sd;
  const void* c = nullptr;  // stored as c_as
  core::Strides sc;
  Stored d_as = Stored::Native, c_as = Stored::Native;
  Scalar<T> alpha{1}, beta{0};
  EpilogueOperands ep;  // pointers at element 0 of the bias and the scale vectors
  // Options::batch_invariant: the orientation is chosen as for kBatchInvariantM rows, and
  // edge tiles take the full tiles' write-back (Driver::padded_tile).
  bool invariant = false;
};

// D^T = B^T A^T: the same problem with the roles of M and N swapped. Used so that D's unit
// stride runs along N (vector stores), and to turn N == 1 into M == 1.
template <class T>
Problem<T> transposed(const Problem<T>& p) {
  Problem<T> t = p;
  std::swap(t.m, t.n);
  std::swap(t.a, t.bt);
  t.sd = {p.sd.col, p.sd.row};
  t.sc = {p.sc.col, p.sc.row};
  t.ep.bias_rows = !p.ep.bias_rows;
  std::swap(t.ep.srow, t.ep.scol);
  return t;
}

template <class T>
Problem<T> make_problem(const GemmDesc& desc, const GemmArgs& args, std::int64_t batch_index) {
  const core::ProblemView v = core::make_view(desc);
  auto offset = [&](const void* p, const MatrixDesc& m) -> const void* {
    if (p == nullptr) return nullptr;
    return static_cast<const char*>(p) + batch_index * m.batch_stride * dtype_bits(m.dtype) / 8;
  };
  Problem<T> pr;
  pr.m = desc.m, pr.n = desc.n, pr.k = desc.k;
  pr.a.base = offset(args.a, desc.a);
  pr.a.s = v.a;
  pack_convert_for(desc.a.dtype, desc.compute, &pr.a.convert);
  pr.bt.base = offset(args.b, desc.b);
  pr.bt.s = {v.b.col, v.b.row};
  pack_convert_for(desc.b.dtype, desc.compute, &pr.bt.convert);
  pr.d = const_cast<void*>(offset(args.d, desc.d));
  pr.sd = v.d;
  stored_for(desc.d.dtype, desc.compute, &pr.d_as);
  pr.c = offset(args.c, desc.c);
  pr.sc = v.c;
  stored_for(desc.c.dtype, desc.compute, &pr.c_as);
  pr.alpha = static_cast<Scalar<T>>(args.alpha);
  pr.beta = static_cast<Scalar<T>>(args.beta);
  if (desc.epilogue.bias != BiasMode::None) {
    pr.ep.bias = args.bias;
    stored_for(desc.epilogue.bias_dtype, desc.compute, &pr.ep.bias_as);
    pr.ep.bias_rows = desc.epilogue.bias == BiasMode::Row;
  }
  pr.ep.act = desc.epilogue.act;
  if (desc.epilogue.scale_d) pr.ep.scale_d = args.scale_d;  // read whatever alpha and K are
  if (desc.epilogue.amax_d) pr.ep.amax = args.amax_d;
  if (args.alpha != 0.0 && desc.k > 0) {  // scales are read with A and B only
    const auto* sa = static_cast<const float*>(args.scale_a);
    const auto* sb = static_cast<const float*>(args.scale_b);
    if (desc.scale_a.mode == ScaleMode::Tensor) pr.alpha *= Scalar<T>(sa[0]);
    if (desc.scale_b.mode == ScaleMode::Tensor) pr.alpha *= Scalar<T>(sb[0]);
    if (desc.scale_a.mode == ScaleMode::Row) pr.ep.srow = sa;
    if (desc.scale_b.mode == ScaleMode::Column) pr.ep.scol = sb;
    // Block scales vary along K: applied to each element as it is packed.
    pr.a.scale = core::k_scale(desc, args.scale_a, nullptr, true);
    pr.bt.scale = core::k_scale(desc, args.scale_b, args.zero_b, false);
  }
  return pr;
}

// The orientation of a problem for an MR x NR tile (tile_choice.hpp's swaps_roles); under
// batch invariance, as for kBatchInvariantM rows: the same for every M.
template <class T>
Problem<T> oriented(const Problem<T>& p, int mr, int nr) {
  const std::int64_t m = p.invariant ? kBatchInvariantM : p.m;
  return swaps_roles(m, p.n, p.sd.col == 1, p.sd.row == 1, mr, nr) ? transposed(p) : p;
}

// D = act(beta * C + bias) (beta == 0: C unread): alpha == 0 or K == 0 reads neither A nor B.
template <class T>
void scale_only(const Problem<T>& p) {
  Scalar<T> amax{0};
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      Scalar<T> v{0};
      if (p.beta != Scalar<T>(0))
        v = p.beta *
            static_cast<Scalar<T>>(load_stored<T>(p.c_as, p.c, i * p.sc.row + j * p.sc.col));
      if constexpr (!std::is_integral_v<T>) {
        if (p.ep.bias) v += load_stored<T>(p.ep.bias_as, p.ep.bias, p.ep.bias_rows ? i : j);
        v = activate_as<T>(p.ep.act, v);
        if (p.ep.amax) amax = amax_of(amax, v);
        if (p.ep.scale_d) v *= Scalar<T>(*p.ep.scale_d);
      }
      store_stored<T>(p.d_as, p.d, i * p.sd.row + j * p.sd.col, finish<T>(v));
    }
  if constexpr (!std::is_integral_v<T>)
    if (p.ep.amax) fold_amax(p.ep.amax, amax);
}

template <class K>
struct Driver {
  using T = typename K::T;
  static constexpr int MR = K::kMR, NR = K::kNR;

  // K steps per packed word: 1, or 2 for a kernel that multiplies pairs of K steps at once
  // (the VNNI int8 kernel: two i16 values of consecutive K in each i32 word).
  static constexpr int G = [] {
    if constexpr (requires { K::kKGroup; })
      return K::kKGroup;
    else
      return 1;
  }();
  static std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }
  // B micro-panels packed together when they stream past a single A block: at most 32, and
  // about stream_bytes() of them (see `group`).
  static constexpr std::int64_t kStreamPanels = 32;
  // The packed panels of a streamed group share the L2 with the A block and the source lines
  // of the next group, fetched meanwhile (pack_ahead.hpp). 4096 x 64 x 4096, AVX2 capped, 1 / 2
  // threads: the AMD EPYC VM (1 MiB L2), 8 panels (295 KB) against 2 (72 KB): 21.5 / 11.7 ms
  // against 19.2 / 9.9; Xeon with 2 MiB of L2 (f32, 24-wide panels, KC 376), 96 / 192 / 288 / 384 /
  // 512 / 768 KiB: 31.3 / 29.6 / 28.9 / 27.2-27.7 / 28.8 / 30.7 ms on one thread (OpenBLAS
  // 26.1), f64 66.6 / 59.9 / 57.2 / 56.3-56.5 / 58.8 / 63.9 (53.4).
  static std::int64_t stream_bytes() {
    const std::int64_t l2 = cpu_info().l2_bytes;
    return l2 >= (std::int64_t{2} << 20) ? l2 * 3 / 16 : 96 * 1024;
  }
  // Where the running sum lives between K blocks: in D itself (base == nullptr), or, when D is
  // stored narrower than T (bf16 / fp16), in a T (M, N) buffer with N's stride 1 that only the
  // last K block reads and narrows into D, so that the result is rounded once.
  struct Sum {
    T* base = nullptr;
    core::Strides s;
  };
  // Packed words along K of a K block of kc steps: a micro-panel holds kcp * R words.
  static std::int64_t packed_k(std::int64_t kc) { return (kc + G - 1) / G; }
  template <int R>
  static void pack(const PackSource<T>& src, std::int64_t r0, std::int64_t rows, std::int64_t p0,
                   std::int64_t kc, T* dst) {
    if constexpr (G == 1)
      pack_panels<R>(src, r0, rows, p0, kc, dst);
    else
      pack_pairs<R>(src, r0, rows, p0, kc, dst);
  }

  // alpha != 0, K > 0. `nt` threads (1: no parallel region).
  //   one thread: jc -> pc (pack the (KC, NC) B block once) -> ic (pack A) -> macro-kernel;
  //     with a single row block, B is streamed a few micro-panels at a time through L2 instead;
  //   a team, one row block (M <= MC): each thread takes (K block, group of B micro-panels)
  //     pairs from its own share of the groups (ordered_tickets.hpp: a group's K blocks in
  //     order), then from what the others left of theirs; it packs the small A block itself
  //     and streams the panels of its pairs (no barrier; a thread that runs slower takes
  //     fewer pairs, so both end together). The threads other than the caller are optional
  //     helpers (helper_team.hpp): the call never waits for a sleeping thread to wake;
  //   a team, several row blocks: BLIS's ic split. The team packs each (KC, NC) B block
  //     together (a share of its micro-panels each) into one of two shared buffers, meets at
  //     a barrier, then each thread runs its own rows (a balanced share of the MR micro-rows)
  //     against the whole block, packing only its own A. Every operand element is packed
  //     once, as on one thread; the second buffer lets the next block be packed while a
  //     slower thread still reads the last one, so one barrier per block suffices.
  // Tiles see the same KC blocks and the same kernel whatever the split: bitwise identical
  // results for every thread count.
  // `helpers`: the threads the call may take where they are optional helpers (a single row
  // block's deals below, helper_team.hpp), which pay from a smaller size; used where > nt.
  static void run(const Problem<T>& p, const BlockSizes& bs, int nt, int helpers = 1) {
    if (p.m <= bs.mc && (p.n + NR - 1) / NR >= helpers) nt = std::max(nt, helpers);
    PackWorkspace& ws = thread_workspace();
    ws.reserve_threads(nt);
    // K blocks of one size (whole 8-step runs): 1025 = 4 x 208 + 193 rather than 4 x 256 + 1,
    // whose one-step block costs a whole pass over C for one rank-1 update.
    const std::int64_t k_blocks_of_kc = (p.k + bs.kc - 1) / bs.kc;
    const std::int64_t KC =
        std::min({bs.kc, p.k, round_up((p.k + k_blocks_of_kc - 1) / k_blocks_of_kc, 8)});
    const std::int64_t panels_n = (p.n + NR - 1) / NR;
    const std::int64_t micro_rows = (p.m + MR - 1) / MR;
    const bool one_block = p.m <= bs.mc;
    const bool shared_b = nt > 1 && !one_block && micro_rows >= nt;
    // Rows per thread: all of them, or the largest share of micro-rows under shared_b.
    const std::int64_t rows_max = shared_b ? std::min(p.m, (micro_rows + nt - 1) / nt * MR) : p.m;
    const std::int64_t n_ic = (rows_max + bs.mc - 1) / bs.mc;
    const std::int64_t MC = round_up((rows_max + n_ic - 1) / n_ic, MR);
    const bool split_cols = nt > 1 && !shared_b && panels_n >= nt;
    const std::int64_t cols = split_cols ? (panels_n + nt - 1) / nt * NR : panels_n * NR;
    const std::int64_t NC = std::min(round_up(bs.nc, NR), cols);
    // B micro-panels a streamed ticket covers: about stream_bytes() of packed panels, and where
    // a team streams, at least four tickets a thread (a 256^3 call had two, one a thread, so a
    // thread that woke late ran its half after the other had finished).
    const std::int64_t by_bytes =
        std::max<std::int64_t>(1, stream_bytes() / (NR * KC * std::int64_t{sizeof(T)}));
    const std::int64_t group = std::clamp<std::int64_t>(
        std::min(by_bytes, nt == 1 ? kStreamPanels : panels_n / (4 * nt)), 1, kStreamPanels);
    // Per thread: the A block, then the B block (or a group of micro-panels) at a 64-byte
    // boundary.
    const std::int64_t b_at = round_up(MC * KC, 64);
    const std::int64_t b_own = shared_b ? 0 : (n_ic == 1 ? group * NR : NC) * KC;
    const std::size_t bytes = sizeof(T) * (b_at + b_own);
    for (int t = 0; t < nt; ++t) ws.a[t].get(bytes);
    const std::int64_t b_shared = round_up(NC * KC, 64);
    T* shared = shared_b ? static_cast<T*>(ws.b.get(sizeof(T) * 2 * b_shared)) : nullptr;
    TeamBarrier meet(nt);  // the team's barrier, met awake
    Sum sum;
    if (p.d_as != Stored::Native && p.k > KC) {
      sum.base = static_cast<T*>(ws.sum.get(sizeof(T) * p.m * p.n));
      sum.s = {p.n, 1};
    }

    // Rows [i0, i0 + mc) against B micro-panels [q0, q1), packed `group` at a time
    // just before their use: the (K block, group) pairs of `deal` (groups as its items, K
    // blocks as its rounds), the next one taken while this one is multiplied and its source
    // fetched meanwhile. A deal of one thread runs them in order; a team's `team` threads
    // share one.
    auto stream_block = [&](int tid, std::int64_t i0, std::int64_t mc, std::int64_t q0,
                            std::int64_t q1, OrderedTickets& deal, int team) {
      T* pa = static_cast<T*>(ws.a[tid].get(bytes));
      T* panels = pa + b_at;  // (KC, group * NR), aligned for the kernel's loads
      // Ticket t: K block [p0, p0 + kc) against columns [j0, j0 + nc), its g micro-panels.
      auto work = [&](std::int64_t t) {
        const std::int64_t p0 = t / deal.width() * KC;
        const std::int64_t q = q0 + t % deal.width() * group;
        const std::int64_t j0 = q * NR, g = std::min(group, q1 - q);
        return std::tuple{p0, std::min(KC, p.k - p0), j0, std::min(g * NR, p.n - j0), g};
      };
      std::int64_t packed_p0 = -1;  // the K block in pa
      for (std::int64_t t = deal.take(); t < deal.end();) {
        const std::int64_t next = deal.take_ahead(t, team);
        const auto [p0, kc, j0, nc, g] = work(t);
        if (p0 != packed_p0) pack<MR>(p.a, i0, mc, p0, kc, pa), packed_p0 = p0;
        pack<NR>(p.bt, j0, nc, p0, kc, panels);
        PackAhead<T> ahead;
        if (next < deal.end()) {
          const auto [pn, kcn, jn, ncn, gn] = work(next);
          ahead = PackAhead<T>::of(p.bt, jn, ncn, pn, kcn);
        }
        deal.wait_turn(t);
        macro_kernel(p, sum, pa, panels, i0, mc, j0, nc, p0, kc, 0, g, &ahead);
        deal.finish(t);
        t = next < deal.end() ? next : deal.take();
      }
    };
    // A deal's items and rounds: the groups of micro-panels [q0, q1), the K blocks.
    auto groups = [group](std::int64_t q0, std::int64_t q1) {
      return (q1 - q0 + group - 1) / group;
    };
    const std::int64_t k_blocks = (p.k + KC - 1) / KC;

    // All rows against columns [j_lo, j_hi) (j_lo a multiple of NR), one thread.
    auto columns = [&](int tid, std::int64_t j_lo, std::int64_t j_hi) {
      if (n_ic == 1) {
        OrderedTickets own(groups(j_lo / NR, (j_hi + NR - 1) / NR), k_blocks);
        return stream_block(tid, 0, p.m, j_lo / NR, (j_hi + NR - 1) / NR, own, 1);
      }
      T* pa = static_cast<T*>(ws.a[tid].get(bytes));
      T* pb = pa + b_at;  // (KC, NC)
      for (std::int64_t j0 = j_lo; j0 < j_hi; j0 += NC) {
        const std::int64_t nc = std::min(NC, j_hi - j0);
        const std::int64_t panels = (nc + NR - 1) / NR;
        for (std::int64_t p0 = 0; p0 < p.k; p0 += KC) {
          const std::int64_t kc = std::min(KC, p.k - p0);
          pack<NR>(p.bt, j0, nc, p0, kc, pb);
          for (std::int64_t i0 = 0; i0 < p.m; i0 += MC) {
            const std::int64_t mc = std::min(MC, p.m - i0);
            pack<MR>(p.a, i0, mc, p0, kc, pa);
            macro_kernel(p, sum, pa, pb, i0, mc, j0, nc, p0, kc, 0, panels);
          }
        }
      }
    };

    // The ic split around shared B blocks (inside the parallel region, every thread calls it).
    auto team_rows = [&](int tid) {
      const std::int64_t r_lo = std::min(p.m, micro_rows * tid / nt * MR);
      const std::int64_t r_hi = std::min(p.m, micro_rows * (tid + 1) / nt * MR);
      T* pa = static_cast<T*>(ws.a[tid].get(bytes));
      int parity = 0;
      for (std::int64_t j0 = 0; j0 < p.n; j0 += NC) {
        const std::int64_t nc = std::min(NC, p.n - j0);
        const std::int64_t panels = (nc + NR - 1) / NR;
        const std::int64_t q0 = panels * tid / nt, q1 = panels * (tid + 1) / nt;
        for (std::int64_t p0 = 0; p0 < p.k; p0 += KC, parity ^= 1) {
          const std::int64_t kc = std::min(KC, p.k - p0);
          T* pb = shared + parity * b_shared;  // (KC, NC), micro-panel q at q * NR * kcp
          if (q1 > q0)
            pack<NR>(p.bt, j0 + q0 * NR, std::min(nc, q1 * NR) - q0 * NR, p0, kc,
                     pb + q0 * NR * packed_k(kc));
          meet.arrive_and_wait();
          for (std::int64_t i0 = r_lo; i0 < r_hi; i0 += MC) {
            const std::int64_t mc = std::min(MC, r_hi - i0);
            pack<MR>(p.a, i0, mc, p0, kc, pa);
            macro_kernel(p, sum, pa, pb, i0, mc, j0, nc, p0, kc, 0, panels);
          }
        }
      }
    };

    if (nt == 1) return columns(0, 0, p.n);
    // A team over a single row block: each thread owns a deal over a contiguous share of the
    // panel groups, runs it, then takes what is left of the others' (a thread that woke late
    // or runs slower leaves more to take). Owning a share keeps each group's D columns on one
    // core from K block to K block; one deal for the whole team spread consecutive groups over
    // both cores, and D's lines crossed between them every K block (4096 x 64 x 4096 f32 on two
    // threads: 12.9 ms against 10.6 for two one-thread halves run side by side).
    std::vector<std::unique_ptr<OrderedTickets>> deals;
    std::vector<std::int64_t> deal_q;  // deal t's panels: [deal_q[t], deal_q[t + 1])
    if (split_cols && n_ic == 1) {
      const std::int64_t total = groups(0, panels_n);
      for (int t = 0; t <= nt; ++t) deal_q.push_back(std::min(panels_n, total * t / nt * group));
      for (int t = 0; t < nt; ++t)
        deals.push_back(
            std::make_unique<OrderedTickets>(groups(deal_q[t], deal_q[t + 1]), k_blocks));
    }
    if (!deals.empty()) {
      // Thread 0 alone can run every deal: the other threads are helpers that join if they
      // wake in time (helper_team.hpp), starting with their own deal.
      auto deal_all = [&](int tid) {
        for (int d = 0; d < nt; ++d) {
          const int t = (tid + d) % nt;
          if (deal_q[t + 1] > deal_q[t])
            stream_block(tid, 0, p.m, deal_q[t], deal_q[t + 1], *deals[t], nt);
        }
      };
      return HelperTeam::get().run(nt, deal_all);
    }
#pragma omp parallel num_threads(nt)
    {
      const int tid = omp_get_thread_num();
      const std::int64_t q0 = panels_n * tid / nt, q1 = panels_n * (tid + 1) / nt;
      if (shared_b) {
        team_rows(tid);
      } else if (split_cols) {
        if (q1 > q0) columns(tid, q0 * NR, std::min(p.n, q1 * NR));
      } else if (q1 > q0) {  // few rows and few columns: every row block, a share of the panels
        for (std::int64_t i0 = 0; i0 < p.m; i0 += MC) {
          OrderedTickets own(groups(q0, q1), k_blocks);
          stream_block(tid, i0, std::min(MC, p.m - i0), q0, q1, own, 1);
        }
      }
      meet.arrive_and_wait();  // the team reaches the region's closing barrier together
    }
  }

  // Every (MR, NR) tile of micro-panels [q0, q1) of the packed B block against the A block,
  // with an equal slice of `ahead`'s prefetches after each tile.
  static void macro_kernel(const Problem<T>& p, const Sum& sum, const T* pa, const T* pb,
                           std::int64_t i0, std::int64_t mc, std::int64_t j0, std::int64_t nc,
                           std::int64_t p0, std::int64_t kc, std::int64_t q0, std::int64_t q1,
                           PackAhead<T>* ahead = nullptr) {
    const bool first = p0 == 0, last = p0 + kc == p.k;
    const std::int64_t kcp = packed_k(kc);
    // Writes D in the last K block (in every block when the running sum is D itself), reads
    // C in the first and the running sum after.
    const bool to_d = last || sum.base == nullptr;
    void* d = to_d ? p.d : sum.base;
    const void* c = first ? p.c : sum.base ? sum.base : p.d;
    Epi<T> e;
    e.sd = to_d ? p.sd : sum.s;
    e.d_as = to_d ? p.d_as : Stored::Native;
    e.sc = first ? p.sc : sum.base ? sum.s : p.sd;
    e.c_as = first ? p.c_as : Stored::Native;  // D itself is then stored as T
    e.alpha = p.alpha;
    e.beta = first ? p.beta : Scalar<T>(1);
    e.read_c = !first || p.beta != Scalar<T>(0);
    e.ep = p.ep;  // its pointers moved to each tile's origin below
    if (!last) e.ep.act = Activation::None, e.ep.scale_d = nullptr, e.ep.amax = nullptr;
    // The output's scale and amax, and fp8 C or D, take the scalar write-back (epilogue.hpp).
    const bool scalar = e.ep.scales_output() || is_fp8(e.d_as) || (e.read_c && is_fp8(e.c_as));
    const bool unit = !scalar && e.sd.col == 1 && (!e.read_c || e.sc.col == 1);
    e.unit = unit;
    const std::int64_t tiles = (q1 - q0) * ((mc + MR - 1) / MR);
    std::int64_t done = 0;
    for (std::int64_t q = q0; q < q1; ++q) {
      const std::int64_t jr = q * NR;
      e.nr = static_cast<int>(std::min<std::int64_t>(NR, nc - jr));
      for (std::int64_t ir = 0; ir < mc; ir += MR) {
        e.mr = static_cast<int>(std::min<std::int64_t>(MR, mc - ir));
        const std::int64_t i = i0 + ir, j = j0 + jr;
        e.d = stored_at<T>(e.d_as, d, i * e.sd.row + j * e.sd.col);
        e.c = e.read_c ? stored_at<T>(e.c_as, c, i * e.sc.row + j * e.sc.col) : nullptr;
        const EpilogueOperands& f = p.ep;
        e.ep.bias = last && f.bias ? stored_at<T>(f.bias_as, f.bias, f.bias_rows ? i : j) : nullptr;
        e.ep.srow = f.srow ? f.srow + i : nullptr;  // every K block scales its own product
        e.ep.scol = f.scol ? f.scol + j : nullptr;
        e.fast = unit && e.mr == MR && e.nr == NR;
        if (p.invariant && unit && !e.fast)
          padded_tile(kcp, pa + ir * kcp, pb + jr * kcp, e);
        else
          K::tile(kcp, pa + ir * kcp, pb + jr * kcp, e);
        if (ahead) ahead->upto(++done, tiles);
      }
    }
  }

  // An edge tile (fewer than MR rows or NR columns, unit-stride D and C) run as a full one on
  // staging copies of its C, bias and scales, its valid corner copied into D: each element
  // gets the register write-back it gets inside a full tile, so a row's bits do not depend on
  // where M ends (batch invariance). The packed panels are zero past the edge.
  static void padded_tile(std::int64_t kcp, const T* a, const T* b, const Epi<T>& e) {
    constexpr int kMax = MR > NR ? MR : NR;
    alignas(64) T d_tile[MR * NR];  // (MR, NR) stored as D, rows NR elements apart
    alignas(64) T c_tile[MR * NR];  // (MR, NR) stored as C
    alignas(64) T bias[kMax];
    float srow[MR], scol[NR];
    Epi<T> f = e;
    f.mr = MR, f.nr = NR, f.fast = true;
    f.d = d_tile, f.sd = {NR, 1};
    // `rows` rows of `cols` elements of `bytes` each, `from_row` elements apart, to rows
    // `to_row` apart.
    auto copy_rows = [](void* to, std::int64_t to_row, const void* from, std::int64_t from_row,
                        int rows, int cols, int bytes) {
      for (int i = 0; i < rows; ++i)
        std::memcpy(static_cast<char*>(to) + i * to_row * bytes,
                    static_cast<const char*>(from) + i * from_row * bytes,
                    static_cast<std::size_t>(cols) * bytes);
    };
    if (e.read_c) {
      std::memset(c_tile, 0, sizeof c_tile);
      copy_rows(c_tile, NR, e.c, e.sc.row, e.mr, e.nr, stored_bytes<T>(e.c_as));
      f.c = c_tile, f.sc = {NR, 1};
    }
    if (e.ep.bias) {
      std::memset(bias, 0, sizeof bias);
      copy_rows(bias, 0, e.ep.bias, 0, 1, e.ep.bias_rows ? e.mr : e.nr,
                stored_bytes<T>(e.ep.bias_as));
      f.ep.bias = bias;
    }
    if (e.ep.srow) {
      std::fill(srow, srow + MR, 0.0f);
      std::copy(e.ep.srow, e.ep.srow + e.mr, srow);
      f.ep.srow = srow;
    }
    if (e.ep.scol) {
      std::fill(scol, scol + NR, 0.0f);
      std::copy(e.ep.scol, e.ep.scol + e.nr, scol);
      f.ep.scol = scol;
    }
    K::tile(kcp, a, b, f);
    copy_rows(e.d, e.sd.row, d_tile, NR, e.mr, e.nr, stored_bytes<T>(e.d_as));
  }
};

// Streaming GEMV: D (1, N) = alpha * x (1, K) * B (K, N) + beta * C, after turning N == 1 into
// M == 1. B is read exactly once, along its unit stride: axpy rows when B's N stride is 1,
// dot products when its K stride is 1. Threads split N. Needs Copy sources (same dtypes).
template <class T>
void gemv(Problem<T> p, int nt) {
  if (p.m != 1) p = transposed(p);
  const T* x = static_cast<const T*>(p.a.base);
  const std::int64_t xs = p.a.s.col;
  const T* b = static_cast<const T*>(p.bt.base);
  const std::int64_t bn = p.bt.s.row, bk = p.bt.s.col;  // B(p, j) = b[j * bn + p * bk]
  constexpr std::int64_t kChunk = 1024;                 // accumulators that stay in L1
  PackWorkspace& ws = thread_workspace();
  T* xbuf = static_cast<T*>(ws.vec.get(sizeof(T) * (p.k + nt * kChunk)));
  for (std::int64_t q = 0; q < p.k; ++q) xbuf[q] = x[q * xs];
  nt = static_cast<int>(std::min<std::int64_t>(nt, (p.n + 63) / 64));
  auto finish_col = [&](std::int64_t j, T acc) {
    Scalar<T> v = p.alpha * acc;
    if (p.beta != Scalar<T>(0)) v += p.beta * load_stored<T>(p.c_as, p.c, j * p.sc.col);
    store_stored<T>(p.d_as, p.d, j * p.sd.col, v);
  };
  auto body = [&](int tid) {
    const std::int64_t j_begin = p.n * tid / nt, j_end = p.n * (tid + 1) / nt;
    if (bn == 1) {
      T* acc = xbuf + p.k + tid * kChunk;
      for (std::int64_t j0 = j_begin; j0 < j_end; j0 += kChunk) {
        const std::int64_t w = std::min(kChunk, j_end - j0);
        std::fill(acc, acc + w, T(0));
        std::int64_t q = 0;
        for (; q + 4 <= p.k; q += 4) {
          const T x0 = xbuf[q], x1 = xbuf[q + 1], x2 = xbuf[q + 2], x3 = xbuf[q + 3];
          const T* r0 = b + q * bk + j0;
          const T *r1 = r0 + bk, *r2 = r1 + bk, *r3 = r2 + bk;
#pragma omp simd
          for (std::int64_t j = 0; j < w; ++j)
            acc[j] += x0 * r0[j] + x1 * r1[j] + x2 * r2[j] + x3 * r3[j];
        }
        for (; q < p.k; ++q) {
          const T* r0 = b + q * bk + j0;
#pragma omp simd
          for (std::int64_t j = 0; j < w; ++j) acc[j] += xbuf[q] * r0[j];
        }
        for (std::int64_t j = 0; j < w; ++j) finish_col(j0 + j, acc[j]);
      }
    } else {
      std::int64_t j = j_begin;
      if (bk == 1) {
        // Four dot products at a time in 64-byte vectors (GCC vector extensions: zmm, or two
        // ymm / four xmm where the file has less); `omp simd` left these four reductions scalar.
        typedef T Vec __attribute__((vector_size(64)));
        constexpr std::int64_t W = 64 / sizeof(T);
        for (; j + 4 <= j_end; j += 4) {
          const T *c0 = b + j * bn, *c1 = c0 + bn, *c2 = c1 + bn, *c3 = c2 + bn;
          Vec v0 = {}, v1 = {}, v2 = {}, v3 = {};
          std::int64_t q = 0;
          for (; q + W <= p.k; q += W) {
            Vec x, y0, y1, y2, y3;  // unaligned loads (no Vec in a signature: -Wpsabi)
            std::memcpy(&x, xbuf + q, sizeof(Vec));
            std::memcpy(&y0, c0 + q, sizeof(Vec));
            std::memcpy(&y1, c1 + q, sizeof(Vec));
            std::memcpy(&y2, c2 + q, sizeof(Vec));
            std::memcpy(&y3, c3 + q, sizeof(Vec));
            v0 += x * y0, v1 += x * y1, v2 += x * y2, v3 += x * y3;
          }
          T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
          for (std::int64_t l = 0; l < W; ++l) s0 += v0[l], s1 += v1[l], s2 += v2[l], s3 += v3[l];
          for (; q < p.k; ++q) {
            s0 += xbuf[q] * c0[q], s1 += xbuf[q] * c1[q];
            s2 += xbuf[q] * c2[q], s3 += xbuf[q] * c3[q];
          }
          finish_col(j, s0), finish_col(j + 1, s1), finish_col(j + 2, s2), finish_col(j + 3, s3);
        }
      }
      for (; j < j_end; ++j) {
        T s = 0;
        for (std::int64_t q = 0; q < p.k; ++q) s += xbuf[q] * b[j * bn + q * bk];
        finish_col(j, s);
      }
    }
  };
  if (nt == 1) {
    body(0);
  } else {
#pragma omp parallel num_threads(nt)
    body(omp_get_thread_num());
  }
}

// Split-K: `splits` K ranges computed independently (one thread each, the same packed
// driver) into partial (M, N) buffers, then D = alpha * (P_0 + P_1 + ...) + beta * C summed in
// that fixed order: bitwise identical results for any thread count.
template <class K>
void splitk(const Problem<typename K::T>& p, const BlockSizes& bs, int splits, int nt) {
  using T = typename K::T;
  PackWorkspace& ws = thread_workspace();
  const std::int64_t mn = p.m * p.n;
  T* part = static_cast<T*>(ws.partial.get(sizeof(T) * mn * splits));
#pragma omp parallel for num_threads(std::min(nt, splits)) schedule(static)
  for (int s = 0; s < splits; ++s) {
    const std::int64_t k0 = p.k * s / splits, k1 = p.k * (s + 1) / splits;
    Problem<T> ps = p;
    ps.k = k1 - k0;
    ps.a.base = static_cast<const T*>(p.a.base) + k0 * p.a.s.col;
    ps.bt.base = static_cast<const T*>(p.bt.base) + k0 * p.bt.s.col;
    T* ds = part + s * mn;
    ps.d = ds;
    ps.sd = {p.n, 1};
    ps.d_as = Stored::Native;
    ps.c = nullptr;
    ps.ep.bias = nullptr, ps.ep.act = Activation::None;  // partial sums only
    ps.alpha = Scalar<T>(1), ps.beta = Scalar<T>(0);
    if (ps.k == 0)
      std::fill(ds, ds + mn, T(0));
    else
      Driver<K>::run(ps, bs, 1);
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      T acc = part[i * p.n + j];
      for (int s = 1; s < splits; ++s) acc += part[s * mn + i * p.n + j];
      Scalar<T> v = p.alpha * acc;
      if (p.beta != Scalar<T>(0))
        v += p.beta * load_stored<T>(p.c_as, p.c, i * p.sc.row + j * p.sc.col);
      store_stored<T>(p.d_as, p.d, i * p.sd.row + j * p.sd.col, finish<T>(v));
    }
}

// Which variant runs one batch entry.
enum class Variant { Packed, Gemv, SplitK };

// Runs every batch entry: many small entries spread over the team one entry per thread;
// otherwise each entry uses the whole team.
template <class K>
void run_batches(const GemmDesc& desc, const GemmArgs& args, const Options& opt, Variant variant,
                 int splits = 0) {
  using T = typename K::T;
  BlockSizes bs = derive_blocks(K::kIsa, K::kMR, K::kNR, sizeof(T));
  if constexpr (std::is_integral_v<T>) {
    // One K block: alpha and beta are applied (and rounded) once, exactly like the reference.
    const std::int64_t kc = std::max<std::int64_t>(desc.k, 1);
    bs.mc = std::max<std::int64_t>(K::kMR, bs.mc * bs.kc / kc / K::kMR * K::kMR);
    bs.kc = kc;
  }
  // Work in f32 gemm-flop equivalents for the thread count: a GEMV flop streams 2 bytes of B
  // from memory and runs some 30x slower than a packed-GEMM flop here (5 vs 160 GFLOP/s); an
  // f64 flop takes twice an f32 one (half the lanes).
  const double flops = 2.0 * desc.m * desc.n * desc.k * (variant == Variant::Gemv ? 30.0 : 1.0) *
                       (std::is_same_v<T, double> ? 2.0 : 1.0);
  const bool reads_ab = args.alpha != 0.0 && desc.k > 0;
  if (desc.epilogue.amax_d) *args.amax_d = 0.0f;  // every tile of every entry folds into it
  // The team splits assume they get every thread they ask for. Inside an OpenMP region whose
  // nested regions would get one thread, or with dynamic teams, other threads' shares would be
  // left undone: stay on one thread there, and never ask past the thread limit.
  const bool can_fork = omp_get_active_level() < omp_get_max_active_levels() && !omp_get_dynamic();
  auto threads_for = [&](double work, bool optional_helpers = false) {
    return can_fork ? std::min(choose_threads(opt.threads, work, optional_helpers),
                               omp_get_thread_limit())
                    : 1;
  };
  // helpers: Driver::run's threads for a single row block, whose other threads are optional
  // (1 for entries run inside a parallel region).
  auto one = [&](std::int64_t l, int nt, int helpers) {
    Problem<T> entry = make_problem<T>(desc, args, l);
    entry.invariant = opt.batch_invariant;
    const Problem<T> p = oriented(entry, K::kMR, K::kNR);
    if (!reads_ab) return scale_only(p);
    switch (variant) {
      case Variant::Gemv:
        return gemv(p, nt);
      case Variant::SplitK:
        return splitk<K>(p, bs, splits, nt);
      case Variant::Packed:
        return Driver<K>::run(p, bs, nt, helpers);
    }
  };
  const int nt_all = threads_for(flops * desc.batch);
  const int nt_one = threads_for(flops);
  if (desc.batch > 1 && nt_all > 1 && nt_one == 1) {
#pragma omp parallel for num_threads(nt_all) schedule(dynamic)
    for (std::int64_t l = 0; l < desc.batch; ++l) one(l, 1, 1);
  } else {
    const int helpers = threads_for(flops, true);
    for (std::int64_t l = 0; l < desc.batch; ++l) one(l, nt_one, helpers);
  }
}

}  // namespace GEMMKIT_CPU_ISA
}  // namespace gemmkit::cpu
