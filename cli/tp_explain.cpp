// The tensor-parallel part of `gemmkit explain` (tp_explain.hpp).
#include "cli/tp_explain.hpp"

#include <cstdio>

#include "ledger/interconnect.hpp"
#include "ledger/machine.hpp"

namespace gemmkit::cli {

void TpFlags::add_to(CLI::App* cmd) {
  cmd->add_option("--gpus", gpus, "tensor-parallel over N GPUs: the interconnect ledger's view");
  cmd->add_option("--tp", tp, "column (all-gather A along M) or row (sum partials over K)")
      ->capture_default_str();
  cmd->add_option("--chunks", chunks, "M chunks of the overlapped pipeline")->capture_default_str();
  cmd->add_option("--reduce", reduce, "row: reduce-scatter or all-reduce")->capture_default_str();
  cmd->add_option("--tp-machine", machine,
                  "machine of the TP model: builtin name or .json with interconnect_bytes_per_s")
      ->capture_default_str();
}

nlohmann::json TpFlags::predict(const GemmDesc& whole, double beta) const {
  if (gpus < 1) throw CLI::ValidationError("--gpus", "must be >= 1");
  if (tp != "column" && tp != "row")
    throw CLI::ValidationError("--tp", "column or row, not '" + tp + "'");
  if (chunks < 1) throw CLI::ValidationError("--chunks", "must be >= 1");
  if (reduce != "reduce-scatter" && reduce != "all-reduce")
    throw CLI::ValidationError("--reduce", "reduce-scatter or all-reduce, not '" + reduce + "'");
  ledger::Machine m;
  try {
    m = ledger::resolve_machine(machine);
  } catch (const std::exception& e) {
    throw CLI::ValidationError("--tp-machine", e.what());
  }
  if (!(m.interconnect_bytes_per_s > 0))
    throw CLI::ValidationError("--tp-machine", "'" + m.name + "' has no interconnect_bytes_per_s");
  const ledger::TpPrediction p =
      ledger::predict_tp(tp == "column" ? ledger::TpOp::Column : ledger::TpOp::Row, whole, beta,
                         gpus, chunks, reduce == "all-reduce", m);
  return {{"machine", m.name},
          {"link_bytes_per_s", m.interconnect_bytes_per_s},
          {"link_latency_s", m.interconnect_latency_s},
          {"link_source", m.source},
          {"tp", tp},
          {"gpus", p.gpus},
          {"chunks", p.chunks},
          {"collective", std::string(ledger::collective_name(p.collective))},
          {"local", {{"m", p.local.m}, {"n", p.local.n}, {"k", p.local.k}}},
          {"comm_bytes", p.comm_bytes},
          {"comm_s", p.comm_s},
          {"gemm_s", p.gemm_s},
          {"unoverlapped_s", p.unoverlapped_s},
          {"overlapped_s", p.overlapped_s},
          {"gain", p.gain},
          {"chunk_gemm_s", p.chunk_gemm_s},
          {"chunk_comm_s", p.chunk_comm_s},
          {"gemm_model", "ledger predict(), the machine's default tile"}};
}

void print_tp(const nlohmann::json& j) {
  const double us = 1e6;
  std::printf(
      "tensor-parallel (%s, %d GPUs, %s; model on %s, link %.3g GB/s per direction, "
      "%.3g us a ring step; nominal figures unless the machine says measured):\n",
      j["tp"].get<std::string>().c_str(), j["gpus"].get<int>(),
      j["collective"].get<std::string>().c_str(), j["machine"].get<std::string>().c_str(),
      j["link_bytes_per_s"].get<double>() / 1e9, j["link_latency_s"].get<double>() * us);
  std::printf("  local GEMM per GPU  %lld x %lld x %lld: %.4g us (%s)\n",
              (long long)j["local"]["m"].get<std::int64_t>(),
              (long long)j["local"]["n"].get<std::int64_t>(),
              (long long)j["local"]["k"].get<std::int64_t>(), j["gemm_s"].get<double>() * us,
              j["gemm_model"].get<std::string>().c_str());
  std::printf("  communication       %.4g MB: %.4g us\n", j["comm_bytes"].get<double>() / 1e6,
              j["comm_s"].get<double>() * us);
  std::printf("  unoverlapped        %.4g us (GEMM + communication)\n",
              j["unoverlapped_s"].get<double>() * us);
  std::printf("  overlapped          %.4g us in %d chunks (max-plus pipeline)\n",
              j["overlapped_s"].get<double>() * us, j["chunks"].get<int>());
  std::printf("  gain                %.3fx\n", j["gain"].get<double>());
}

}  // namespace gemmkit::cli
