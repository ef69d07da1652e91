// `gemmkit explain --gpus N --tp column|row [--chunks C] [--reduce ...] [--tp-machine M]`: the
// interconnect ledger's view of a tensor-parallel GEMM of the problem (src/ledger/
// interconnect.hpp): communication, GEMM per GPU, unoverlapped and overlapped, the gain.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "gemmkit/gemm.hpp"

namespace gemmkit::cli {

struct TpFlags {
  int gpus = 0;  // 0: no tensor-parallel view
  std::string tp = "column";
  int chunks = 4;
  std::string reduce = "reduce-scatter";
  std::string machine = "h100-sxm";

  void add_to(CLI::App* cmd);
  bool active() const { return gpus > 0; }
  // The prediction as JSON (validated flags; throws CLI::ValidationError naming a bad one).
  nlohmann::json predict(const GemmDesc& whole, double beta) const;
};

// Prints TpFlags::predict's JSON as a table.
void print_tp(const nlohmann::json& j);

}  // namespace gemmkit::cli
