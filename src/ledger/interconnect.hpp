// The interconnect term: time of the ring collectives of tensor-parallel GEMM, and of each TP
// operation per GPU with and without overlap (a max-plus pipeline of chunk times). Host only;
// the link is machine data (Machine::interconnect_bytes_per_s, ::interconnect_latency_s).
//
// Ring over P GPUs, B the bytes of the whole (gathered, or reduced) buffer, bw the bytes one GPU
// sends per second, lat the latency of one step:
//   all-gather, reduce-scatter   (P - 1) (lat + B / (P bw))
//   all-reduce                   2 (P - 1) (lat + B / (P bw))   (a reduce-scatter + an all-gather)
// P == 1 costs nothing. Each step moves B / P per GPU: the NCCL ring's algorithm bandwidth
// (its "bus bandwidth" is bw).
#pragma once
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "gemmkit/gemm.hpp"
#include "ledger/machine.hpp"

namespace gemmkit::ledger {

enum class Collective : std::uint8_t { AllGather, ReduceScatter, AllReduce };
std::string_view collective_name(Collective c) noexcept;  // "all-gather", ...

struct Link {
  double bytes_per_s = 0;
  double latency_s = 0;
};
Link link_of(const Machine& m) noexcept;

// Seconds of one ring collective (above); 0 when P <= 1 or bytes <= 0, +Inf without a link.
double collective_s(Collective c, double bytes, int gpus, const Link& link) noexcept;

// Two stages per chunk, each stage in order on its own stream, chunk i's second stage after its
// first: the finish of the last second stage (f1_i = f1_{i-1} + a_i; f2_i = max(f2_{i-1}, f1_i)
// + b_i). Between max(sum a, sum b) and sum a + sum b.
double pipeline_s(std::span<const double> first, std::span<const double> second);

enum class TpOp : std::uint8_t { Column, Row };

struct TpPrediction {
  TpOp op = TpOp::Column;
  Collective collective = Collective::AllGather;
  int gpus = 1, chunks = 1;
  GemmDesc local;             // the largest rank's local GEMM
  double comm_bytes = 0;      // the collective's whole buffer
  double gemm_s = 0;          // the local GEMM, unchunked
  double comm_s = 0;          // the collective, unchunked
  double unoverlapped_s = 0;  // gemm_s + comm_s
  double overlapped_s = 0;    // the chunked pipeline (== unoverlapped_s for one chunk)
  double gain = 1;            // unoverlapped_s / overlapped_s
  std::vector<double> chunk_gemm_s, chunk_comm_s;
};

// Seconds of one GEMM: the caller's model (the planner's choice), or by default the ledger's
// predict() with the machine's default tile.
using GemmTime = std::function<double(const GemmDesc&)>;

// `full` is the whole problem (M x N x K). Column: A gathered along M (M x K of A's dtype), each
// GPU computes M x ceil(N / P) x K. Row: each GPU computes M x N x ceil(K / P), the M x N
// partials (D's dtype) reduce-scattered, or all-reduced when `all_reduce`. Chunks cut M.
TpPrediction predict_tp(TpOp op, const GemmDesc& full, double beta, int gpus, int chunks,
                        bool all_reduce, const Machine& m, const GemmTime& gemm_s = {});

}  // namespace gemmkit::ledger
