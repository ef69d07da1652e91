// The interconnect term (interconnect.hpp).
#include "ledger/interconnect.hpp"

#include <algorithm>
#include <limits>

#include "ledger/predict.hpp"
#include "ledger/tile_ledger.hpp"

namespace gemmkit::ledger {

std::string_view collective_name(Collective c) noexcept {
  switch (c) {
    case Collective::AllGather:
      return "all-gather";
    case Collective::ReduceScatter:
      return "reduce-scatter";
    case Collective::AllReduce:
      return "all-reduce";
  }
  return "?";
}

Link link_of(const Machine& m) noexcept {
  return {m.interconnect_bytes_per_s, m.interconnect_latency_s};
}

double collective_s(Collective c, double bytes, int gpus, const Link& link) noexcept {
  if (gpus <= 1 || bytes <= 0) return 0;
  if (!(link.bytes_per_s > 0)) return std::numeric_limits<double>::infinity();
  const double steps = (c == Collective::AllReduce ? 2.0 : 1.0) * (gpus - 1);
  return steps * (link.latency_s + bytes / gpus / link.bytes_per_s);
}

double pipeline_s(std::span<const double> first, std::span<const double> second) {
  double f1 = 0, f2 = 0;
  const std::size_t n = std::max(first.size(), second.size());
  for (std::size_t i = 0; i < n; ++i) {
    f1 += i < first.size() ? first[i] : 0;
    f2 = std::max(f2, f1) + (i < second.size() ? second[i] : 0);
  }
  return std::max(f1, f2);
}

TpPrediction predict_tp(TpOp op, const GemmDesc& full, double beta, int gpus, int chunks,
                        bool all_reduce, const Machine& m, const GemmTime& gemm_s) {
  TpPrediction p;
  p.op = op;
  p.gpus = std::max(1, gpus);
  const GemmTime time = gemm_s ? gemm_s : [&m, beta](const GemmDesc& d) {
    return predict(d, beta, default_tile_config(d, m), m).total_s;
  };
  auto share = [&](std::int64_t x) { return (x + p.gpus - 1) / p.gpus; };
  p.local = full;
  p.local.batch = 1;
  if (op == TpOp::Column) {
    p.collective = Collective::AllGather;
    p.local.n = share(full.n);
  } else {
    p.collective = all_reduce ? Collective::AllReduce : Collective::ReduceScatter;
    p.local.k = share(full.k);
  }
  p.local.a.ld = p.local.b.ld = p.local.c.ld = p.local.d.ld = 0;
  p.local = with_default_lds(p.local);
  // Bytes per row of M that the collective moves (whole buffer).
  const double row_bytes = op == TpOp::Column ? double(full.k) * dtype_bits(full.a.dtype) / 8
                                              : double(full.n) * dtype_bits(full.d.dtype) / 8;
  p.comm_bytes = row_bytes * full.m;
  const Link link = link_of(m);
  p.gemm_s = time(p.local);
  p.comm_s = collective_s(p.collective, p.comm_bytes, p.gpus, link);
  p.unoverlapped_s = p.gemm_s + p.comm_s;
  const std::int64_t c = std::clamp<std::int64_t>(chunks, 1, std::max<std::int64_t>(1, full.m));
  p.chunks = static_cast<int>(c);
  if (c == 1) {
    p.chunk_gemm_s = {p.gemm_s};
    p.chunk_comm_s = {p.comm_s};
    p.overlapped_s = p.unoverlapped_s;
  } else {
    for (std::int64_t i = 0; i < c; ++i) {  // rows as src/dist/partition.cpp's chunk_plan
      const std::int64_t rows = full.m / c + (i < full.m % c ? 1 : 0);
      GemmDesc piece = p.local;
      piece.m = rows;
      piece.a.ld = piece.b.ld = piece.c.ld = piece.d.ld = 0;
      piece = with_default_lds(piece);
      p.chunk_gemm_s.push_back(time(piece));
      p.chunk_comm_s.push_back(collective_s(p.collective, row_bytes * rows, p.gpus, link));
    }
    p.overlapped_s = op == TpOp::Column ? pipeline_s(p.chunk_comm_s, p.chunk_gemm_s)
                                        : pipeline_s(p.chunk_gemm_s, p.chunk_comm_s);
  }
  p.gain = p.overlapped_s > 0 ? p.unoverlapped_s / p.overlapped_s : 1;
  return p;
}

}  // namespace gemmkit::ledger
