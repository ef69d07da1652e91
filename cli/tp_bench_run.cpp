// The tensor-parallel bench's run (tp_bench.hpp): the whole problem filled on the host (the
// bench's seeded U[-1, 1]), its single-GPU gemmkit GEMM and gauge |A||B| on GPU 0, then one
// thread per GPU with one communicator each (ncclCommInitAll over devices 0..P-1): its shards,
// the overlapped and unchunked gemmkit::dist runs verified against GPU 0's GEMM, then rounds of
// the five variants (tp_report.hpp), each call after a host barrier of all ranks, CUDA events
// on each rank, the slowest rank's time per round. The ranks agree at each phase (std::barrier
// and a flag a phase) so that no rank enters a collective that another has left.
#include "cli/tp_bench.hpp"

#if defined(GEMMKIT_HAVE_CUDA) && defined(GEMMKIT_HAVE_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "bench/gpu_runtime.hpp"
#include "bench/provider.hpp"
#include "gemmkit/dist.hpp"
#endif

namespace gemmkit::cli {

#if defined(GEMMKIT_HAVE_CUDA) && defined(GEMMKIT_HAVE_NCCL)

namespace {

using bench::TpRankPlan;
using bench::TpSplit;

Status cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  cudaGetLastError();
  return {StatusCode::ExecutionFailed, Arg::None, std::string(what) + ": " + cudaGetErrorString(e)};
}

Status nccl_ok(ncclResult_t e, const char* what) {
  if (e == ncclSuccess) return {};
  return {StatusCode::ExecutionFailed, Arg::None, std::string(what) + ": " + ncclGetErrorString(e)};
}

std::size_t bytes(DType t, std::int64_t count) {
  return static_cast<std::size_t>(count) * static_cast<std::size_t>(dtype_bits(t) / 8);
}

ncclDataType_t nccl_type(DType t) {
  return t == DType::BF16 ? ncclBfloat16 : t == DType::F16 ? ncclFloat16 : ncclFloat32;
}

Options cuda_opt(cudaStream_t s) {
  Options o;
  o.backend = Backend::Cuda;
  o.stream = s;
  return o;
}

// Device memory of the current device, freed on destruction.
struct DevBuf {
  void* p = nullptr;
  DevBuf() = default;
  DevBuf(const DevBuf&) = delete;
  ~DevBuf() {
    if (p) cudaFree(p);
  }
  Status alloc(std::size_t n) {
    return cuda_ok(cudaMalloc(&p, std::max<std::size_t>(n, 1)), "cudaMalloc");
  }
};

// The whole problem on the host: A (M x K row-major), B (K x N column-major), and from GPU 0
// the single-GPU GEMM's D (M x N row-major, D's dtype) and the gauge |alpha| |A| |B| (f32).
struct Whole {
  bench::TpBenchSpec spec;
  GemmDesc desc;
  std::vector<std::uint8_t> a, b, ref;
  std::vector<float> gauge;
};

// |x| of every element: the sign bit cleared (bf16, f16, f32; little-endian).
std::vector<std::uint8_t> magnitudes(DType t, const std::vector<std::uint8_t>& v) {
  std::vector<std::uint8_t> out = v;
  const std::size_t w = static_cast<std::size_t>(dtype_bits(t) / 8);
  for (std::size_t i = w - 1; i < out.size(); i += w) out[i] &= 0x7f;
  return out;
}

Status reference_on_gpu0(Whole* w) {
  const bench::TpBenchSpec& s = w->spec;
  Status st = cuda_ok(cudaSetDevice(0), "cudaSetDevice(0)");
  DevBuf a, b, out;
  if (st) st = a.alloc(w->a.size());
  if (st) st = b.alloc(w->b.size());
  if (st) st = out.alloc(std::max(bytes(s.dtype_d, s.m * s.n), bytes(DType::F32, s.m * s.n)));
  for (int pass = 0; st && pass < 2; ++pass) {  // 0: the GEMM; 1: the gauge
    const bool g = pass == 1;
    const std::vector<std::uint8_t> ha =
        g ? magnitudes(s.dtype_ab, w->a) : std::vector<std::uint8_t>{};
    const std::vector<std::uint8_t> hb =
        g ? magnitudes(s.dtype_ab, w->b) : std::vector<std::uint8_t>{};
    st = cuda_ok(cudaMemcpy(a.p, g ? ha.data() : w->a.data(), w->a.size(), cudaMemcpyHostToDevice),
                 "copy A");
    if (st)
      st =
          cuda_ok(cudaMemcpy(b.p, g ? hb.data() : w->b.data(), w->b.size(), cudaMemcpyHostToDevice),
                  "copy B");
    GemmDesc d = w->desc;
    if (g) d.c.dtype = d.d.dtype = DType::F32;
    if (st)
      st = gemm(d,
                {.a = a.p,
                 .b = b.p,
                 .c = nullptr,
                 .d = out.p,
                 .alpha = g ? std::fabs(s.alpha) : s.alpha,
                 .beta = 0.0},
                cuda_opt(nullptr));
    if (st) st = cuda_ok(cudaDeviceSynchronize(), "single-GPU GEMM on GPU 0");
    if (!st) break;
    if (g) {
      w->gauge.resize(static_cast<std::size_t>(s.m * s.n));
      st = cuda_ok(cudaMemcpy(w->gauge.data(), out.p, w->gauge.size() * 4, cudaMemcpyDeviceToHost),
                   "copy gauge");
    } else {
      w->ref.resize(bytes(s.dtype_d, s.m * s.n));
      st = cuda_ok(cudaMemcpy(w->ref.data(), out.p, w->ref.size(), cudaMemcpyDeviceToHost),
                   "copy D");
    }
  }
  return st;
}

// What the rank threads share.
struct Shared {
  explicit Shared(int p)
      : bar(p), est(static_cast<std::size_t>(p)), lt_ok(static_cast<std::size_t>(p)) {
    for (auto& v : samples) v.resize(static_cast<std::size_t>(p));
  }
  std::barrier<> bar;
  std::atomic<bool> failed[3] = {false, false, false};  // setup, verification, timing
  std::vector<double> est;                              // ms of one round of every variant, by rank
  std::vector<char> lt_ok;                              // cuBLASLt can run the rank's GEMM
  std::vector<std::vector<double>> samples[bench::kTpVariants];  // [variant][rank][round]
};

struct RankOut {
  std::string device;
  Status status;
  bench::TpCheck check[2];  // overlapped, unchunked
  std::string baseline_config;
};

// Every rank reaches the barrier; afterwards all see whether any failed in this phase.
bool agree(Shared& sh, int phase, bool ok) {
  if (!ok) sh.failed[phase] = true;
  sh.bar.arrive_and_wait();
  return !sh.failed[phase];
}

void run_rank(const Whole& w, const TpRunSettings& rs, int r, ncclComm_t nc, Shared& sh,
              RankOut* out) {
  const bench::TpBenchSpec& s = w.spec;
  const TpRankPlan pl = bench::tp_rank_plan(s, r);
  const GemmDesc& local = pl.local;
  const bool column = s.split == TpSplit::Column;
  const DType ab = s.dtype_ab, dd = s.dtype_d;
  Status& st = out->status;
  st = cuda_ok(cudaSetDevice(r), "cudaSetDevice");
  const bench::gpu::DeviceInfo info = bench::gpu::query_device();
  out->device = info.ok ? info.name : info.error;
  cudaStream_t stream = nullptr;
  if (st)
    st = cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  if (st) st = cuda_ok(cudaEventCreate(&e0), "cudaEventCreate");
  if (st) st = cuda_ok(cudaEventCreate(&e1), "cudaEventCreate");
  dist::Communicator comm;
  if (st) st = dist::Communicator::create(nc, &comm);

  // Operands: the rank's shards; column also the whole A (the local GEMM's alone, the
  // baseline's gather target).
  const std::size_t es = static_cast<std::size_t>(dtype_bits(ab) / 8);
  const std::int64_t d_count = pl.rows * pl.cols;
  dist::TpOptions tpo;
  tpo.reduce = s.all_reduce ? dist::RowReduce::AllReduce : dist::RowReduce::ReduceScatter;
  const std::size_t ws_bytes =
      column ? dist::column_parallel_workspace(local) : dist::row_parallel_workspace(local, tpo);
  DevBuf a, a_full, b, d, ws;
  if (st) st = a.alloc(bytes(ab, pl.a_rows * pl.kr));
  if (st && column) st = a_full.alloc(bytes(ab, s.m * s.k));
  if (st) st = b.alloc(bytes(ab, pl.kr * pl.cols));
  if (st) st = d.alloc(bytes(dd, d_count));
  if (st && ws_bytes) st = ws.alloc(ws_bytes);
  if (st && column) {
    st = cuda_ok(cudaMemcpy(a.p, w.a.data() + pl.a_rows0 * s.k * es, bytes(ab, pl.a_rows * s.k),
                            cudaMemcpyHostToDevice),
                 "copy A shard");
    if (st)
      st = cuda_ok(cudaMemcpy(a_full.p, w.a.data(), w.a.size(), cudaMemcpyHostToDevice), "copy A");
    if (st)
      st = cuda_ok(cudaMemcpy(b.p, w.b.data() + pl.col0 * s.k * es, bytes(ab, s.k * pl.cols),
                              cudaMemcpyHostToDevice),
                   "copy B block");
  } else if (st) {
    const std::size_t row = static_cast<std::size_t>(pl.kr) * es,
                      pitch = static_cast<std::size_t>(s.k) * es;
    st = cuda_ok(cudaMemcpy2D(a.p, row, w.a.data() + pl.k0 * es, pitch, row,
                              static_cast<std::size_t>(s.m), cudaMemcpyHostToDevice),
                 "copy A shard");
    if (st)
      st = cuda_ok(cudaMemcpy2D(b.p, row, w.b.data() + pl.k0 * es, pitch, row,
                                static_cast<std::size_t>(s.n), cudaMemcpyHostToDevice),
                   "copy B shard");
  }
  tpo.workspace = ws.p;
  tpo.workspace_bytes = ws_bytes;
  // Row: the local M x N product before the reduction (the workspace under reduce-scatter, D
  // itself under all-reduce).
  void* part = column ? d.p : (s.all_reduce ? d.p : ws.p);
  std::unique_ptr<bench::Provider> lt;
  if (st) {
    lt = bench::make_cublaslt_provider(local, s.alpha, 0.0);
    out->baseline_config = lt->unsupported().empty() ? lt->config() : lt->unsupported();
  }
  const GemmArgs args{.a = a.p, .b = b.p, .c = nullptr, .d = d.p, .alpha = s.alpha, .beta = 0.0};
  const auto dist_op = [&](int chunks) {
    dist::TpOptions t = tpo;
    t.chunks = chunks;
    Options o = cuda_opt(stream);
    if (chunks > 1) o.sm_count_target = rs.sm_count_target;  // SMs left to the collectives
    return column ? dist::column_parallel(comm, local, args, t, o)
                  : dist::row_parallel(comm, local, args, t, o);
  };
  const auto collective = [&] {
    if (column)
      return nccl_ok(ncclAllGather(a.p, a_full.p, bytes(ab, pl.a_rows * s.k), ncclInt8, nc, stream),
                     "ncclAllGather");
    if (s.all_reduce)
      return nccl_ok(ncclAllReduce(d.p, d.p, static_cast<std::size_t>(d_count), nccl_type(dd),
                                   ncclSum, nc, stream),
                     "ncclAllReduce");
    return nccl_ok(ncclReduceScatter(ws.p, d.p, static_cast<std::size_t>(d_count), nccl_type(dd),
                                     ncclSum, nc, stream),
                   "ncclReduceScatter");
  };
  const void* gemm_a = column ? a_full.p : a.p;
  const auto variant = [&](int v) -> Status {
    switch (v) {
      case bench::kTpOverlapped:
        return dist_op(s.chunks);
      case bench::kTpUnchunked:
        return dist_op(1);
      case bench::kTpGemm:
        return gemm(local, {.a = gemm_a, .b = b.p, .c = nullptr, .d = part, .alpha = s.alpha},
                    cuda_opt(stream));
      case bench::kTpComm:
        return collective();
      default: {  // the baseline: NCCL then cuBLASLt, or cuBLASLt then NCCL
        const bench::OperandSet set{.a = gemm_a, .b = b.p, .c = part, .d = part};
        Status x = column ? collective() : lt->call(set, stream);
        if (x) x = column ? lt->call(set, stream) : collective();
        return x;
      }
    }
  };
  const auto timed = [&](int v, double* ms) {
    Status x = cuda_ok(cudaEventRecord(e0, stream), "cudaEventRecord");
    if (x) x = variant(v);
    if (x) x = cuda_ok(cudaEventRecord(e1, stream), "cudaEventRecord");
    if (x) x = cuda_ok(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float t = 0;
    if (x) x = cuda_ok(cudaEventElapsedTime(&t, e0, e1), "cudaEventElapsedTime");
    *ms = t;
    return x;
  };

  if (agree(sh, 0, st.ok())) {
    // Verification: D poisoned with NaN (all bits set), one run, its block against GPU 0's GEMM.
    const bench::TpBound bound{.dtype_d = dd, .gpus = s.gpus, .k = s.k, .row = !column};
    std::vector<std::uint8_t> host(bytes(dd, d_count));
    for (int i = 0; i < 2 && st; ++i) {
      st = cuda_ok(cudaMemsetAsync(d.p, 0xff, host.size(), stream), "cudaMemsetAsync");
      if (st) st = dist_op(i == 0 ? s.chunks : 1);
      if (st) st = cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      if (st)
        st = cuda_ok(cudaMemcpy(host.data(), d.p, host.size(), cudaMemcpyDeviceToHost), "copy D");
      // GEMMKIT_TEST_CORRUPT_RESULT=1: rank 0's overlapped D(0,0) perturbed (the check must fail).
      if (st && r == 0 && i == 0 && bench::corrupt_result_requested())
        bench::corrupt_d00(local, host);
      if (st)
        out->check[i] = bench::tp_compare(bound, host.data(), pl.rows, pl.cols, pl.row0, pl.col0,
                                          w.ref.data(), w.gauge.data(), s.n);
    }
    const bool ok = st.ok() && out->check[0].passed && out->check[1].passed;
    if (agree(sh, 1, ok)) {
      // Estimate one round (after a warm-up round), agree on the counts, then the rounds.
      sh.lt_ok[static_cast<std::size_t>(r)] = lt && lt->unsupported().empty();
      double round_ms = 0, ms = 0;
      // Every rank arrives at every barrier, failed or not (lt_ok is the same on every rank:
      // the ranks' GEMMs have one shape).
      for (int pass = 0; pass < 2; ++pass)
        for (int v = 0; v < bench::kTpVariants; ++v) {
          if (v == bench::kTpBaseline && !sh.lt_ok[static_cast<std::size_t>(r)]) continue;
          sh.bar.arrive_and_wait();
          if (st) st = timed(v, &ms);
          if (st && pass == 1) round_ms += ms;
        }
      sh.est[static_cast<std::size_t>(r)] = round_ms;
      if (agree(sh, 2, st.ok())) {
        const double est = *std::max_element(sh.est.begin(), sh.est.end());
        const bool with_lt =
            std::all_of(sh.lt_ok.begin(), sh.lt_ok.end(), [](char c) { return c; });
        // --warmup-ms and --rep-ms per variant, as per bench row: a round holds one call of each.
        const double per_call = std::max(est / double(bench::kTpVariants), 1e-3);
        const int warm = std::clamp(static_cast<int>(std::ceil(rs.warmup_ms / per_call)), 1, 100);
        const int rounds = std::clamp(static_cast<int>(std::ceil(rs.rep_ms / per_call)),
                                      std::max(rs.min_reps, 1), 1000);
        for (int i = 0; i < warm + rounds; ++i)
          for (int j = 0; j < bench::kTpVariants; ++j) {
            const int v = (i + j) % bench::kTpVariants;  // the order turns every round
            if (v == bench::kTpBaseline && !with_lt) continue;
            sh.bar.arrive_and_wait();
            const Status x = timed(v, &ms);
            if (!x && st) st = x;
            if (i >= warm) sh.samples[v][static_cast<std::size_t>(r)].push_back(x ? ms : NAN);
          }
      }
    }
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (stream) cudaStreamDestroy(stream);
}

}  // namespace

int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

void run_tp_bench(const bench::TpBenchSpec& spec, const TpRunSettings& rs, bench::TpResult* out) {
  out->spec = spec;
  out->disposition = bench::Disposition::Failed;
  ncclGetVersion(&out->nccl_version);
  Whole w;
  w.spec = spec;
  w.desc = bench::tp_desc(spec, spec.m, spec.n, spec.k);
  w.a.resize(bytes(spec.dtype_ab, spec.m * spec.k));
  w.b.resize(bytes(spec.dtype_ab, spec.k * spec.n));
  bench::fill_uniform(spec.dtype_ab, w.a.data(), spec.m * spec.k, rs.seed);
  bench::fill_uniform(spec.dtype_ab, w.b.data(), spec.k * spec.n, rs.seed + 1);
  if (Status st = reference_on_gpu0(&w); !st) {
    out->error = "single-GPU GEMM on GPU 0: " + to_string(st);
    return;
  }
  const int p = spec.gpus;
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(p));
  std::vector<int> devs(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) devs[static_cast<std::size_t>(r)] = r;
  if (Status st = nccl_ok(ncclCommInitAll(comms.data(), p, devs.data()), "ncclCommInitAll"); !st) {
    out->error = to_string(st);
    return;
  }
  Shared sh(p);
  std::vector<RankOut> ranks(static_cast<std::size_t>(p));
  {
    std::vector<std::jthread> pool;
    for (int r = 0; r < p; ++r)
      pool.emplace_back([&, r] {
        run_rank(w, rs, r, comms[static_cast<std::size_t>(r)], sh,
                 &ranks[static_cast<std::size_t>(r)]);
      });
  }
  for (ncclComm_t c : comms) ncclCommDestroy(c);

  bool verified = true;
  for (int r = 0; r < p; ++r) {
    const RankOut& o = ranks[static_cast<std::size_t>(r)];
    out->devices.push_back(o.device);
    const std::string tag = "rank " + std::to_string(r);
    bench::merge_check(&out->check_overlapped, o.check[0], tag);
    bench::merge_check(&out->check_unchunked, o.check[1], tag);
    verified = verified && o.check[0].checked > 0 && o.check[1].checked > 0;
    if (!o.status && out->error.empty()) out->error = tag + ": " + to_string(o.status);
  }
  out->baseline_config = ranks[0].baseline_config;
  if (!out->check_overlapped.passed || !out->check_unchunked.passed)
    out->disposition = bench::Disposition::Incorrect;
  else if (verified && out->error.empty())
    out->disposition = bench::Disposition::Passed;
  if (out->disposition != bench::Disposition::Passed) return;
  // The slowest rank of each round.
  std::vector<double> rounds[bench::kTpVariants];
  for (int v = 0; v < bench::kTpVariants; ++v) {
    const auto& by_rank = sh.samples[v];
    for (std::size_t i = 0; i < by_rank[0].size(); ++i) {
      double worst = 0;
      for (const auto& x : by_rank) worst = std::max(worst, i < x.size() ? x[i] : NAN);
      rounds[v].push_back(worst);
    }
  }
  out->times = bench::tp_times(rounds);
  out->timed = out->times.rounds > 0;
}

#else  // built without NCCL

int visible_gpus() { return 0; }

void run_tp_bench(const bench::TpBenchSpec& spec, const TpRunSettings&, bench::TpResult* out) {
  out->spec = spec;
  out->disposition = bench::Disposition::Failed;
  out->error = "built without NCCL";
}

#endif

}  // namespace gemmkit::cli
