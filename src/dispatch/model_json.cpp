// The model as JSON (ledger, explain, kernels): moved here from cli/cmd_ledger.cpp and
// cli/cmd_explain.cpp so that the command and the C ABI return the same objects.
#include "dispatch/model_json.hpp"

#include <exception>

#include "core/validate.hpp"

namespace gemmkit::dispatch {

namespace {

using nlohmann::json;
namespace lg = gemmkit::ledger;

json constraints_json(const std::vector<lg::ConstraintRow>& rows) {
  json a = json::array();
  for (const auto& r : rows)
    a.push_back({{"table", r.table},
                 {"item", r.item},
                 {"formula", r.formula},
                 {"value", r.value},
                 {"limit", r.limit},
                 {"pass", r.pass},
                 {"note", r.note}});
  return a;
}

// The problem ledger's headline figures, in the objects of both `ledger` and `explain`.
void put_problem_figures(json& j, const lg::ProblemLedger& p) {
  j["flops"] = p.flops;
  j["min_bytes"] = p.min_bytes;
  j["arithmetic_intensity"] = p.arithmetic_intensity;
  j["ridge_point"] = p.ridge_point;
  j["bound"] = p.bound();
  j["t_floor_s"] = p.t_floor_s;
}

json modes_json(ModeSet modes) {
  json a = json::array();
  for (sched::Mode m : kAllModes)
    if (has_mode(modes, m)) a.push_back(mode_name(m));
  return a;
}

}  // namespace

LedgerReport ledger_report(const GemmDesc& d, double beta, const LedgerRequest& r) {
  LedgerReport out;
  try {
    out.machine = lg::resolve_machine(r.machine);
  } catch (const std::exception& e) {
    throw RequestError("machine", e.what());
  }
  const lg::Machine& m = out.machine;
  const lg::ProblemLedger& p = out.problem = lg::analyze(d, beta, m);

  out.have_tile = !r.tile.empty();
  lg::TileConfig& tile = out.tile = lg::default_tile_config(d, m);
  try {
    if (out.have_tile) tile = lg::parse_tile_config(r.tile, tile);
  } catch (const std::exception& e) {
    throw RequestError("tile", e.what());
  }
  if (r.stages > 0) tile.stages = r.stages;
  if (r.threads > 0) tile.threads = r.threads;
  if (r.split_k > 0) tile.split_k = r.split_k;
  tile.acc = d.compute;

  json& j = out.json;
  j["machine"] = m.name;
  j["machine_kind"] = m.kind;
  j["modelled_only"] = m.modelled_only;
  j["problem"] = {{"m", d.m},
                  {"n", d.n},
                  {"k", d.k},
                  {"batch", d.batch},
                  {"dtype_a", dtype_name(d.a.dtype)},
                  {"dtype_b", dtype_name(d.b.dtype)},
                  {"dtype_c", dtype_name(d.c.dtype)},
                  {"dtype_d", dtype_name(d.d.dtype)},
                  {"beta", beta}};
  put_problem_figures(j, p);
  j["bytes"] = {{"a", p.a_bytes},
                {"b", p.b_bytes},
                {"c", p.c_bytes},
                {"d", p.d_bytes},
                {"scales", p.scale_bytes}};
  j["peak_class"] = lg::peak_class_name(p.peak_class_used);
  j["peak_flops"] = p.peak_flops;
  j["dram_bytes_per_s"] = p.dram_bytes_per_s;
  j["t_compute_s"] = p.t_compute_s;
  j["t_memory_s"] = p.t_memory_s;

  if (out.have_tile) {
    const lg::TileLedger& t = out.tile_ledger = lg::analyze_tile(d, tile, m, beta);
    j["tile"] = {{"block_m", tile.block_m},
                 {"block_n", tile.block_n},
                 {"block_k", tile.block_k},
                 {"stages", tile.stages},
                 {"threads", tile.threads},
                 {"split_k", tile.split_k},
                 {"smem_bytes_per_stage", t.smem_bytes_per_stage},
                 {"smem_bytes", t.smem_bytes},
                 {"acc_regs_per_thread", t.acc_regs_per_thread},
                 {"regs_per_thread", t.regs_per_thread},
                 {"blocks_per_sm", t.blocks_per_sm},
                 {"blocks_by_smem", t.blocks_by_smem},
                 {"blocks_by_regs", t.blocks_by_regs},
                 {"blocks_by_threads", t.blocks_by_threads},
                 {"occupancy_limiter", t.occupancy_limiter},
                 {"occupancy", t.occupancy},
                 {"dram_bytes", t.dram_bytes},
                 {"dram_read_bytes", t.dram_read_bytes},
                 {"dram_write_bytes", t.dram_write_bytes},
                 {"split_k_write_bytes", t.split_k_write_bytes},
                 {"tiles", t.tiles},
                 {"work_units", t.work_units},
                 {"concurrent_blocks", t.concurrent},
                 {"waves", t.waves},
                 {"waves_ceil", t.waves_ceil},
                 {"tail_efficiency", t.tail_efficiency},
                 {"fits", t.fits},
                 {"constraints", constraints_json(t.constraints)}};
  }
  const lg::Prediction& pr = out.prediction = lg::predict(d, beta, tile, m);
  {
    json terms = json::object();
    for (const auto& term : pr.terms) terms[term.name] = term.seconds;
    j["prediction"] = {{"tile", lg::to_string(tile)},
                       {"terms_s", terms},
                       {"dram_bytes", pr.dram_bytes},
                       {"total_s", pr.total_s},
                       {"limiter", pr.limiter}};
  }
  out.naive_reads = lg::logical_reads(d.m, d.n, d.k, 1, 1);
  if (r.count_reads) {
    const std::int64_t tm = out.have_tile ? tile.block_m : 1, tn = out.have_tile ? tile.block_n : 1;
    const lg::ReadCounts& rc = out.reads = lg::logical_reads(d.m, d.n, d.k, tm, tn);
    const lg::ReadCounts& naive = out.naive_reads;
    j["reads"] = rc.reads;
    j["writes"] = rc.writes;
    j["read_counts"] = {{"tile_m", tm},
                        {"tile_n", tn},
                        {"reads_a", rc.reads_a},
                        {"reads_b", rc.reads_b},
                        {"naive_reads", naive.reads},
                        {"naive_read_bytes", naive.reads_a * lg::element_bytes(d.a.dtype) +
                                                 naive.reads_b * lg::element_bytes(d.b.dtype)}};
  }
  out.ascend_machine = m.kind == "npu" ? m : *lg::find_machine("ascend-910b");
  if (r.ascend) {
    lg::AscendTile& at = out.ascend_tile =
        out.have_tile ? lg::ascend_tile_from(tile, r.l0k) : lg::AscendTile{};
    if (!out.have_tile && r.l0k > 0) at.k0 = r.l0k;
    at.in_bytes = lg::element_bytes(d.a.dtype);
    const lg::AscendLedger& asc = out.ascend = lg::analyze_ascend(d, at, out.ascend_machine);
    j["ascend"] = {{"machine", out.ascend_machine.name},
                   {"l1_tile", {at.m1, at.n1, at.k1}},
                   {"l0_tile", {at.m0, at.n0, at.k0}},
                   {"l1_bytes", asc.l1_bytes},
                   {"l0a_bytes", asc.l0a_bytes},
                   {"l0b_bytes", asc.l0b_bytes},
                   {"l0c_bytes", asc.l0c_bytes},
                   {"fits", asc.fits},
                   {"blocks", asc.blocks},
                   {"read_bytes", asc.read_bytes},
                   {"write_bytes", asc.write_bytes},
                   {"swizzle_offset", asc.swizzle.offset},
                   {"swizzle_direction", asc.swizzle.direction},
                   {"constraints", constraints_json(asc.constraints)},
                   {"note", asc.note}};
  }
  if (r.variant) {
    const lg::VariantChoice& vc = out.variant = lg::choose_variant(d, m, tile, r.groups);
    j["variant"] = lg::variant_name(vc.variant);
    j["reason"] = vc.reason;
    j["split"] = vc.split;
  }
  return out;
}

namespace {

json candidate_json(const Candidate& c) {
  json j{{"kernel", c.kernel->name},
         {"mode", mode_name(c.mode)},
         {"split", c.split},
         {"priority", c.kernel->priority},
         {"viable", c.status.ok()}};
  if (!c.status) {
    j["refused"] = to_string(c.status);
    return j;
  }
  json terms = json::object();
  for (const auto& term : c.prediction.terms) terms[term.name] = term.seconds;
  j["predicted_s"] = c.predicted_s();
  j["terms_s"] = terms;
  j["limiter"] = c.prediction.limiter;
  j["waves"] = c.waves;
  j["tail_efficiency"] = c.tail_efficiency;
  return j;
}

}  // namespace

ExplainReport explain_report(const GemmDesc& desc, const Options& opt, double beta) {
  const GemmDesc d = with_default_lds(desc);
  ExplainReport out;
  Plan& p = out.plan;
  p.status = core::validate_desc(d);
  const GemmArgs args{.beta = beta};  // no pointers: only beta reaches the planner
  if (p.status) p = make_plan(d, opt, &args, /*with_reasons=*/true);
  const ledger::Machine machine = planning_machine(p.backend, opt);
  const LaunchPlan& l = p.launch;
  json& j = out.json;
  j = json{{"status", to_string(p.status)},
           {"backend", backend_name(p.backend)},
           {"machine", machine.name},
           {"kernel", l.kernel ? l.kernel->name : ""},
           {"config", l.kernel ? to_string(l.config) : ""},
           {"mode", mode_name(l.mode)},
           {"variant", mode_name(l.mode)},
           {"split_k", l.split},
           {"reasons", p.reasons}};
  json cands = json::array();
  for (const Candidate& c : p.candidates) cands.push_back(candidate_json(c));
  j["candidates"] = cands;
  j["from_tune_cache"] = p.from_tune_cache;
  j["batch_invariant"] = opt.batch_invariant;
  if (p.planned_m > 0) j["planned_m"] = p.planned_m;  // the reference M the plan was ranked for
  if (p.tuned)
    j["tuned"] = json{{"kernel", p.tuned->kernel}, {"mode", mode_name(p.tuned->mode)},
                      {"split", p.tuned->split},   {"measured_ms", p.tuned->measured_ms},
                      {"device", p.tuned->device}, {"file", tune_cache_path()}};
  if (p.status) {
    put_problem_figures(j, ledger::analyze(d, beta, machine));
    // The chosen plan's prediction: the ranked one, or (ladder, reference) from its config.
    const ledger::Prediction pred = predict_config(d, beta, l.config, l.mode, l.split, machine);
    j["predicted_s"] = pred.total_s;
    j["limiter"] = pred.limiter;
  }
  return out;
}

std::string_view kernel_role_name(KernelRole r) noexcept {
  switch (r) {
    case KernelRole::Production:
      return "production";
    case KernelRole::Ladder:
      return "ladder";
    case KernelRole::Reference:
      return "reference";
  }
  return "unknown";
}

json kernels_json(std::string_view pattern) {
  json a = json::array();
  for (const KernelInfo* k : registry().match(pattern))
    a.push_back({{"name", k->name},
                 {"backend", backend_name(k->backend)},
                 {"role", kernel_role_name(k->role)},
                 {"config", to_string(k->config)},
                 {"note", k->note},
                 {"priority", k->priority},
                 {"modes", modes_json(k->config.modes)},
                 {"m_invariant", k->m_invariant}});
  return a;
}

}  // namespace gemmkit::dispatch
