// The model as JSON, inside the library: what `gemmkit ledger --json`, `gemmkit explain --json`
// and `gemmkit kernels` say, built once here and used by the command and the C ABI (Python).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/planner.hpp"
#include "ledger/ledger.hpp"

namespace gemmkit::dispatch {

// What `gemmkit ledger` is asked besides the problem (its flags, without the roofline chart).
struct LedgerRequest {
  std::string machine = "h200";  // builtin name or a .json file
  std::string tile;              // "" = the ledger's default tile, and no tile ledger
  int stages = 0, threads = 0, split_k = 0;
  std::int64_t l0k = 0;
  bool count_reads = false, ascend = false, variant = false;
  std::vector<ledger::GroupShape> groups;
};

// Every figure the ledger computed, and the JSON of `gemmkit ledger --json` built from them.
struct LedgerReport {
  ledger::Machine machine;
  ledger::ProblemLedger problem;
  bool have_tile = false;
  ledger::TileConfig tile;
  ledger::TileLedger tile_ledger;  // only when have_tile
  ledger::Prediction prediction;
  ledger::ReadCounts reads, naive_reads;  // only when count_reads
  ledger::Machine ascend_machine;         // only when ascend
  ledger::AscendTile ascend_tile;
  ledger::AscendLedger ascend;
  ledger::VariantChoice variant;  // only when variant
  nlohmann::json json;
};

// Thrown for a bad request field (field() is "machine", "tile", ...); nothing else is thrown
// for a descriptor that passed validation.
struct RequestError : std::invalid_argument {
  RequestError(std::string field, const std::string& what)
      : std::invalid_argument(what), field_(std::move(field)) {}
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

LedgerReport ledger_report(const GemmDesc& d, double beta, const LedgerRequest& r);

// The planner's choice for a problem and why (with_default_lds applied here): every candidate
// with its predicted time and ledger terms (or the reason it was refused), and the ledger's
// figures for the chosen plan: the JSON of `gemmkit explain --json`.
struct ExplainReport {
  Plan plan;
  nlohmann::json json;
};
ExplainReport explain_report(const GemmDesc& desc, const Options& opt, double beta);

std::string_view kernel_role_name(KernelRole r) noexcept;  // "production", "ladder", ...
// The registry's kernels whose names match a glob, as a JSON array of objects
// {name, backend, role, config (to_string of the KernelConfig), note, priority, modes}.
nlohmann::json kernels_json(std::string_view pattern);

}  // namespace gemmkit::dispatch
