// gemmkit ledger: the analytic model of one problem on one machine (src/ledger).
//   gemmkit ledger --m 4096 --n 4096 --k 4096 --dtype f16 --machine h100-seed
//   ... --tile 128x128x32 --stages 3 --threads 128 --count-reads --ascend --variant --json
//   ... --roofline out.svg [--results bench.json]
//   gemmkit ledger --machine h100-sxm --fit measured.json [--fit-out h100.json]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/problem_options.hpp"
#include "dispatch/family_fit.hpp"
#include "dispatch/model_json.hpp"
#include "ledger/ledger.hpp"

namespace gemmkit::cli {
namespace {

using nlohmann::json;
namespace lg = gemmkit::ledger;

struct LedgerOptions {
  ProblemOptions problem;
  std::string machine = "h200";
  std::string tile;
  int stages = 0, threads = 0, split_k = 0;
  std::int64_t l0k = 0;
  bool count_reads = false, ascend = false, variant = false;
  std::string groups;
  std::string roofline, results;
  bool list_machines = false, dump_machine = false;
  std::vector<std::string> fit;  // measurement files (gemmkit tune --measurements)
  std::string fit_out;
  bool fit_no_ranking = false;
};

std::string human_bytes(double b) {
  char buf[64];
  if (b >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  else if (b >= 1024.0 * 1024)
    std::snprintf(buf, sizeof buf, "%.2f MiB", b / (1024.0 * 1024));
  else if (b >= 1024.0)
    std::snprintf(buf, sizeof buf, "%.2f KiB", b / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.0f B", b);
  return buf;
}

std::string human_time(double s) {
  char buf[64];
  if (s >= 1)
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  else if (s >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
  return buf;
}

std::string si(double v, const char* unit) {
  static const char* p[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 6) {
    v /= 1000;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g %s%s", v, p[i], unit);
  return buf;
}

std::vector<lg::GroupShape> parse_groups(const std::string& s) {
  std::vector<lg::GroupShape> g;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, ',')) {
    lg::GroupShape shape;
    char x1 = 0, x2 = 0;
    std::istringstream is(item);
    if (!(is >> shape.m >> x1 >> shape.n >> x2 >> shape.k) || x1 != 'x' || x2 != 'x')
      throw CLI::ValidationError("--groups", "expected MxNxK[,MxNxK...], got '" + item + "'");
    g.push_back(shape);
  }
  return g;
}

void print_constraints(const std::vector<lg::ConstraintRow>& rows) {
  std::printf("  %-9s %-46s %14s %14s  %s\n", "table", "item", "value", "limit", "pass");
  for (const auto& r : rows)
    std::printf("  %-9s %-46s %14.6g %14.6g  %s%s%s\n", r.table.c_str(), r.item.c_str(), r.value,
                r.limit, r.pass ? "pass" : "FAIL", r.note.empty() ? "" : "  ", r.note.c_str());
}

// Measured and predicted points from a `gemmkit bench --json` file.
std::vector<lg::RooflinePoint> results_points(const std::string& path, GemmDesc base,
                                              const lg::Machine& m) {
  std::ifstream in(path);
  if (!in) throw CLI::ValidationError("--results", "cannot open '" + path + "'");
  json j;
  try {
    in >> j;
  } catch (const json::exception& e) {
    throw CLI::ValidationError("--results", path + ": not valid JSON: " + e.what());
  }
  const json& rows = j.is_object() && j.contains("rows") ? j["rows"] : j;
  if (!rows.is_array())
    throw CLI::ValidationError("--results", path + ": expected {\"rows\": [...]}");
  std::vector<lg::RooflinePoint> pts;
  int id = 0;
  for (const json& r : rows) {
    if (!r.is_object() || !r.contains("m") || !r.contains("n") || !r.contains("k")) continue;
    GemmDesc d = base;
    d.m = r["m"].get<std::int64_t>();
    d.n = r["n"].get<std::int64_t>();
    d.k = r["k"].get<std::int64_t>();
    if (r.contains("batch") && r["batch"].is_number_integer())
      d.batch = r["batch"].get<std::int64_t>();
    for (const char* key : {"dtype", "dtype_a"}) {
      DType t;
      if (r.contains(key) && r[key].is_string() && parse_dtype(r[key].get<std::string>(), &t)) {
        d.a.dtype = d.b.dtype = t;
        if (t == DType::E4M3 || t == DType::E5M2 || t == DType::E2M1)
          d.c.dtype = d.d.dtype = DType::BF16;
        else if (t == DType::I8 || t == DType::I4)
          d.c.dtype = d.d.dtype = DType::I32;
        else
          d.c.dtype = d.d.dtype = t;
      }
    }
    if (r.contains("dtype_b") && r["dtype_b"].is_string()) {
      DType t;
      if (parse_dtype(r["dtype_b"].get<std::string>(), &t)) d.b.dtype = t;
    }
    const lg::ProblemLedger p = lg::analyze(d, 0.0, m);
    std::string label = std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k);
    if (r.contains("kernel") && r["kernel"].is_string())
      label = r["kernel"].get<std::string>() + " " + label;
    if (r.contains("tflops") && r["tflops"].is_number() && r["tflops"].get<double>() > 0)
      pts.push_back({lg::RooflinePoint::Kind::Measured, label + " measured", p.arithmetic_intensity,
                     r["tflops"].get<double>() * 1e12, id});
    if (r.contains("ledger_pred_ms") && r["ledger_pred_ms"].is_number() &&
        r["ledger_pred_ms"].get<double>() > 0)
      pts.push_back({lg::RooflinePoint::Kind::Predicted, label + " predicted",
                     p.arithmetic_intensity, p.flops / (r["ledger_pred_ms"].get<double>() * 1e-3),
                     id});
    ++id;
  }
  return pts;
}

// Fits each kernel family's efficiencies on the machine from measured candidates, prints them
// with the ledger's error before and after, and writes the machine with them (--fit-out).
void run_fit(const LedgerOptions& o) {
  lg::Machine m;
  try {
    m = lg::resolve_machine(o.machine);
  } catch (const std::exception& e) {
    throw CLI::ValidationError("--machine", e.what());
  }
  std::vector<dispatch::Measurement> rows;
  std::string source;
  for (const std::string& path : o.fit) {
    try {
      auto more = dispatch::read_measurements(path);
      rows.insert(rows.end(), more.begin(), more.end());
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--fit", e.what());
    }
    source += (source.empty() ? "" : ", ") + path.substr(path.find_last_of('/') + 1);
  }
  if (rows.empty()) throw CLI::ValidationError("--fit", "no measurements in the files given");
  lg::Machine plain = m;
  plain.family_efficiency.clear();
  const dispatch::PickCheck before = dispatch::check_picks(rows, plain);
  std::vector<lg::FamilyEfficiency> fitted = dispatch::fit_families(rows, plain, source);
  lg::Machine alone = plain;
  alone.family_efficiency = fitted;
  const dispatch::PickCheck first = dispatch::check_picks(rows, alone);
  if (!o.fit_no_ranking) fitted = dispatch::refine_for_picks(rows, plain, fitted);
  lg::Machine out = m;
  for (const lg::FamilyEfficiency& f : fitted) {
    auto it = std::find_if(out.family_efficiency.begin(), out.family_efficiency.end(),
                           [&](const lg::FamilyEfficiency& x) { return x.family == f.family; });
    if (it != out.family_efficiency.end()) *it = f;
    else out.family_efficiency.push_back(f);
  }
  const dispatch::PickCheck after = dispatch::check_picks(rows, out);
  std::printf("machine %s, %zu measurements\n", m.name.c_str(), rows.size());
  std::printf("  %-28s %5s %8s %8s %14s\n", "family", "rows", "compute", "dram", "median error");
  for (const lg::FamilyEfficiency& f : fitted)
    std::printf("  %-28s %5d %8.2f %8.2f %6.1f%% -> %4.1f%%\n", f.family.c_str(), f.rows, f.compute,
                f.dram, f.median_error_before * 100, f.median_error * 100);
  std::printf("  all rows: median error %.1f%% -> %.1f%% (each family alone) -> %.1f%%; the "
              "predicted-fastest within 5%% of the measured fastest on %d -> %d -> %d of %d "
              "problems%s\n",
              before.median_error * 100, first.median_error * 100, after.median_error * 100,
              before.within_5pct, first.within_5pct, after.within_5pct, after.problems,
              o.fit_no_ranking ? " (--fit-no-ranking: the last stage skipped)" : "");
  for (const std::string& miss : after.misses) std::printf("    missed %s\n", miss.c_str());
  if (!o.fit_out.empty()) {
    std::ofstream f(o.fit_out);
    if (!f || !(f << lg::machine_to_json(out)))
      throw CLI::ValidationError("--fit-out", "cannot write '" + o.fit_out + "'");
    std::printf("machine with the fitted families written to %s\n", o.fit_out.c_str());
  }
}

void run_ledger(const LedgerOptions& o) {
  if (!o.fit.empty()) return run_fit(o);
  if (!o.fit_out.empty()) throw CLI::ValidationError("--fit-out", "needs --fit");
  if (o.list_machines) {
    for (const auto& name : lg::machine_names()) {
      const lg::Machine* m = lg::find_machine(name);
      std::printf("%-14s %s\n", name.c_str(), m ? m->description.c_str() : "");
    }
    return;
  }
  lg::Machine m;
  try {
    m = lg::resolve_machine(o.machine);
  } catch (const std::exception& e) {
    throw CLI::ValidationError("--machine", e.what());
  }
  if (o.dump_machine) {
    std::fputs(lg::machine_to_json(m).c_str(), stdout);
    return;
  }
  const GemmDesc d = o.problem.desc();
  const double beta = o.problem.beta;
  dispatch::LedgerReport rep;
  try {
    rep = dispatch::ledger_report(
        d, beta,
        {.machine = o.machine,
         .tile = o.tile,
         .stages = o.stages,
         .threads = o.threads,
         .split_k = o.split_k,
         .l0k = o.l0k,
         .count_reads = o.count_reads,
         .ascend = o.ascend,
         .variant = o.variant,
         .groups = o.variant ? parse_groups(o.groups) : std::vector<lg::GroupShape>{}});
  } catch (const dispatch::RequestError& e) {
    throw CLI::ValidationError("--" + e.field(), e.what());
  }
  json& j = rep.json;
  const lg::ProblemLedger& p = rep.problem;
  const bool have_tile = rep.have_tile;
  const lg::TileConfig& tile = rep.tile;
  const lg::TileLedger& t = rep.tile_ledger;
  const lg::Prediction& pr = rep.prediction;
  const lg::ReadCounts &rc = rep.reads, &naive = rep.naive_reads;
  const lg::Machine& asc_machine = rep.ascend_machine;
  const lg::AscendTile& at = rep.ascend_tile;
  const lg::AscendLedger& asc = rep.ascend;
  const lg::VariantChoice& vc = rep.variant;
  if (!o.roofline.empty()) {
    std::vector<lg::RooflinePoint> pts;
    pts.push_back({lg::RooflinePoint::Kind::Problem,
                   std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k) +
                       " " + std::string(dtype_name(d.a.dtype)),
                   p.arithmetic_intensity, p.t_floor_s > 0 ? p.flops / p.t_floor_s : 0, -1});
    if (!o.results.empty()) {
      auto more = results_points(o.results, d, m);
      pts.insert(pts.end(), more.begin(), more.end());
    }
    const std::string svg = lg::roofline_svg(m, pts, "roofline: " + m.name);
    std::ofstream out(o.roofline);
    if (!out || !(out << svg))
      throw CLI::ValidationError("--roofline", "cannot write '" + o.roofline + "'");
    j["roofline"] = o.roofline;
  }

  if (o.problem.json) {
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  // ---- the readable table ----
  std::printf("gemmkit ledger: %lld x %lld x %lld", static_cast<long long>(d.m),
              static_cast<long long>(d.n), static_cast<long long>(d.k));
  if (d.batch > 1) std::printf(" x batch %lld", static_cast<long long>(d.batch));
  std::printf(
      ", A %s B %s C %s D %s, beta %g, machine %s%s\n", std::string(dtype_name(d.a.dtype)).c_str(),
      std::string(dtype_name(d.b.dtype)).c_str(), std::string(dtype_name(d.c.dtype)).c_str(),
      std::string(dtype_name(d.d.dtype)).c_str(), beta, m.name.c_str(),
      m.modelled_only ? " (modelled only)" : "");
  std::printf("problem\n");
  std::printf("  %-22s %s\n", "flops", si(p.flops, "FLOP").c_str());
  std::printf("  %-22s %.0f B = %s (A %s, B %s, C %s, D %s)\n", "min bytes", p.min_bytes,
              human_bytes(p.min_bytes).c_str(), human_bytes(p.a_bytes).c_str(),
              human_bytes(p.b_bytes).c_str(), human_bytes(p.c_bytes).c_str(),
              human_bytes(p.d_bytes).c_str());
  std::printf("  %-22s %.2f FLOP/B\n", "arithmetic intensity", p.arithmetic_intensity);
  std::printf("  %-22s %s (%s), DRAM %s\n", "peak", si(p.peak_flops, "FLOP/s").c_str(),
              std::string(lg::peak_class_name(p.peak_class_used)).c_str(),
              si(p.dram_bytes_per_s, "B/s").c_str());
  std::printf("  %-22s %.2f FLOP/B\n", "ridge point", p.ridge_point);
  std::printf("  %-22s %s-bound\n", "bound", p.bound());
  std::printf("  %-22s compute %s, memory %s -> floor %s (%s at the floor)\n", "time",
              human_time(p.t_compute_s).c_str(), human_time(p.t_memory_s).c_str(),
              human_time(p.t_floor_s).c_str(),
              si(p.t_floor_s > 0 ? p.flops / p.t_floor_s : 0, "FLOP/s").c_str());
  if (have_tile) {
    std::printf("tile %s\n", lg::to_string(tile).c_str());
    std::printf("  %-22s %lld B per stage, %lld B total (%s)\n", "shared memory",
                static_cast<long long>(t.smem_bytes_per_stage),
                static_cast<long long>(t.smem_bytes),
                human_bytes(static_cast<double>(t.smem_bytes)).c_str());
    std::printf("  %-22s %.1f accumulator registers per thread (%d with extras)\n", "registers",
                t.acc_regs_per_thread, t.regs_per_thread);
    std::printf(
        "  %-22s %d blocks/SM (smem %d, registers %d, threads %d, hw %d) limited by %s, "
        "occupancy %.0f%%\n",
        "occupancy", t.blocks_per_sm, t.blocks_by_smem, t.blocks_by_regs, t.blocks_by_threads,
        t.blocks_by_hw, t.occupancy_limiter.c_str(), 100 * t.occupancy);
    std::printf("  %-22s %s (%.2fx the minimum; split-K extra write %s)\n", "DRAM with tiling",
                human_bytes(t.dram_bytes).c_str(), t.min_bytes > 0 ? t.dram_bytes / t.min_bytes : 0,
                human_bytes(t.split_k_write_bytes).c_str());
    std::printf(
        "  %-22s %lld tiles (%lld x %lld), %lld work units over %lld concurrent = %.2f "
        "waves, tail efficiency %.2f\n",
        "work", static_cast<long long>(t.tiles), static_cast<long long>(t.tiles_m),
        static_cast<long long>(t.tiles_n), static_cast<long long>(t.work_units),
        static_cast<long long>(t.concurrent), t.waves, t.tail_efficiency);
    std::printf("constraint tables (%s)\n", t.fits ? "fits" : "DOES NOT FIT");
    print_constraints(t.constraints);
  }
  std::printf("prediction (%s)\n", lg::to_string(tile).c_str());
  for (const auto& term : pr.terms)
    std::printf("  %-22s %s\n", term.name.c_str(), human_time(term.seconds).c_str());
  std::printf("  %-22s %s (%s-limited; %s at this time)\n", "total", human_time(pr.total_s).c_str(),
              pr.limiter.c_str(), si(pr.total_s > 0 ? p.flops / pr.total_s : 0, "FLOP/s").c_str());
  if (o.count_reads) {
    std::printf("logical reads (every indexed access, no cache)\n");
    std::printf("  %-22s %lld reads (A %lld, B %lld), %lld writes; naive loop %lld reads\n",
                (std::to_string(j["read_counts"]["tile_m"].get<std::int64_t>()) + "x" +
                 std::to_string(j["read_counts"]["tile_n"].get<std::int64_t>()) + " output tiles")
                    .c_str(),
                static_cast<long long>(rc.reads), static_cast<long long>(rc.reads_a),
                static_cast<long long>(rc.reads_b), static_cast<long long>(rc.writes),
                static_cast<long long>(naive.reads));
  }
  if (o.ascend) {
    std::printf(
        "ascend / CATLASS Common template on %s: L1 tile %lldx%lldx%lld, L0 tile "
        "%lldx%lldx%lld (%s)\n",
        asc_machine.name.c_str(), static_cast<long long>(at.m1), static_cast<long long>(at.n1),
        static_cast<long long>(at.k1), static_cast<long long>(at.m0), static_cast<long long>(at.n0),
        static_cast<long long>(at.k0), asc.note.c_str());
    print_constraints(asc.constraints);
    std::printf("  reads %s, writes %s, %lld basic blocks, swizzle <%d, %d>\n",
                human_bytes(asc.read_bytes).c_str(), human_bytes(asc.write_bytes).c_str(),
                static_cast<long long>(asc.blocks), asc.swizzle.offset, asc.swizzle.direction);
  }
  if (o.variant)
    std::printf("variant\n  %s%s: %s\n", std::string(lg::variant_name(vc.variant)).c_str(),
                vc.split > 1 ? (" (split " + std::to_string(vc.split) + ")").c_str() : "",
                vc.reason.c_str());
  if (!o.roofline.empty()) std::printf("roofline written to %s\n", o.roofline.c_str());
}

}  // namespace

void add_ledger_command(CLI::App& app) {
  auto o = std::make_shared<LedgerOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ledger", "the analytic model: FLOPs, bytes, roofline, tile ledger, variant, prediction");
  o->problem.add_to(cmd, true, false);
  cmd->add_option("--machine", o->machine, "builtin machine or a .json file (--list-machines)")
      ->capture_default_str();
  cmd->add_option("--tile", o->tile,
                  "BMxBNxBK or KEY=VALUE,... (BM BN BK STAGES THREADS SPLIT MR NR)");
  cmd->add_option("--stages", o->stages, "pipeline stages of the tile");
  cmd->add_option("--threads", o->threads, "threads per block of the tile");
  cmd->add_option("--split-k", o->split_k, "split-K pieces of the tile");
  cmd->add_flag("--count-reads", o->count_reads, "logical read/write counts (tutorial 02-03)");
  cmd->add_flag("--ascend", o->ascend, "CATLASS L1/L0 constraints and swizzle (modelled only)");
  cmd->add_option("--l0k", o->l0k, "Ascend L0 tile k0 (default k1/4)");
  cmd->add_flag("--variant", o->variant, "the variant decision tree (split-K, stream-K, GEMV, ...)");
  cmd->add_option("--groups", o->groups, "shapes of a grouped problem: MxNxK,MxNxK,...");
  cmd->add_option("--roofline", o->roofline, "write a roofline chart (SVG) to this path");
  cmd->add_option("--results", o->results, "bench JSON whose rows are drawn on the roofline");
  cmd->add_flag("--list-machines", o->list_machines, "list the builtin machines");
  cmd->add_flag("--dump-machine", o->dump_machine, "print --machine as JSON (a template)");
  cmd->add_option("--fit", o->fit,
                  "fit each kernel family's efficiencies on --machine from these measurement "
                  "files (gemmkit tune --measurements)");
  cmd->add_option("--fit-out", o->fit_out, "write --machine with the fitted families (JSON)");
  cmd->add_flag("--fit-no-ranking", o->fit_no_ranking,
                "fit each family alone (median error), without the stage for the ranking");
  cmd->callback([o] {
    try {
      run_ledger(*o);
    } catch (const ProblemError& e) {  // a bad size: exit 1 with the API's Status
      std::fprintf(stderr, "gemmkit ledger: %s\n", e.what());
      exit_code = 1;
    } catch (const CLI::ValidationError& e) {
      std::fprintf(stderr, "gemmkit ledger: %s\n", e.what());
      exit_code = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gemmkit ledger: %s\n", e.what());
      exit_code = 2;
    }
  });
}

}  // namespace gemmkit::cli
