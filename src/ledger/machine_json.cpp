// Machine <-> JSON. Every field by its C++ name; peaks as an object keyed by class name.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "ledger/machine.hpp"

namespace gemmkit::ledger {
namespace {

using nlohmann::json;

// One list of (key, member) pairs drives both directions.
template <class F>
void for_each_field(Machine& m, F&& f) {
  f("name", m.name);
  f("kind", m.kind);
  f("description", m.description);
  f("source", m.source);
  f("modelled_only", m.modelled_only);
  f("dram_bytes_per_s", m.dram_bytes_per_s);
  f("dram_latency_s", m.dram_latency_s);
  f("launch_s", m.launch_s);
  f("stream_latency_s", m.stream_latency_s);
  f("l2_bytes_per_s", m.l2_bytes_per_s);
  f("interconnect_bytes_per_s", m.interconnect_bytes_per_s);
  f("interconnect_latency_s", m.interconnect_latency_s);
  f("sm_count", m.sm_count);
  f("smem_per_sm", m.smem_per_sm);
  f("smem_per_block", m.smem_per_block);
  f("smem_reserved_per_block", m.smem_reserved_per_block);
  f("l2_bytes", m.l2_bytes);
  f("regs_per_sm", m.regs_per_sm);
  f("max_regs_per_thread", m.max_regs_per_thread);
  f("reg_alloc_unit", m.reg_alloc_unit);
  f("max_threads_per_sm", m.max_threads_per_sm);
  f("max_threads_per_block", m.max_threads_per_block);
  f("max_blocks_per_sm", m.max_blocks_per_sm);
  f("warp_size", m.warp_size);
  f("l1_bytes", m.l1_bytes);
  f("l0a_bytes", m.l0a_bytes);
  f("l0b_bytes", m.l0b_bytes);
  f("l0c_bytes", m.l0c_bytes);
  f("simd_bits", m.simd_bits);
  f("fma_units", m.fma_units);
  f("freq_hz", m.freq_hz);
  f("l1d_bytes", m.l1d_bytes);
  f("isa", m.isa);
}

}  // namespace

std::string machine_to_json(const Machine& in) {
  Machine m = in;
  json j = json::object();
  for_each_field(m, [&](const char* key, auto& v) { j[key] = v; });
  json peaks = json::object();
  for (int c = 0; c < kPeakClassCount; ++c)
    peaks[std::string(peak_class_name(static_cast<PeakClass>(c)))] = m.peak[c];
  j["peak_flops"] = peaks;
  json fam = json::array();
  for (const FamilyEfficiency& e : m.family_efficiency)
    fam.push_back({{"family", e.family},
                   {"compute", e.compute},
                   {"dram", e.dram},
                   {"rows", e.rows},
                   {"median_error", e.median_error},
                   {"median_error_before", e.median_error_before},
                   {"source", e.source}});
  j["family_efficiency"] = fam;
  return j.dump(2) + "\n";
}

Machine machine_from_json_text(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw std::runtime_error(origin + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw std::runtime_error(origin + ": the top level must be an object");
  Machine m;
  if (j.contains("base")) {
    const std::string base = j["base"].get<std::string>();
    const Machine* b = find_machine(base);
    if (!b) throw std::runtime_error(origin + ": unknown base machine '" + base + "'");
    m = *b;
  }
  for_each_field(m, [&](const char* key, auto& v) {
    if (!j.contains(key)) return;
    try {
      j.at(key).get_to(v);
    } catch (const json::exception& e) {
      throw std::runtime_error(origin + ": key '" + key + "': " + e.what());
    }
  });
  if (j.contains("peak_flops")) {
    const json& p = j["peak_flops"];
    if (!p.is_object()) throw std::runtime_error(origin + ": 'peak_flops' must be an object");
    for (auto it = p.begin(); it != p.end(); ++it) {
      int found = -1;
      for (int c = 0; c < kPeakClassCount; ++c)
        if (it.key() == peak_class_name(static_cast<PeakClass>(c))) found = c;
      if (found < 0)
        throw std::runtime_error(origin + ": unknown peak class '" + it.key() +
                                 "' (fp64, fp32, tf32, fp16, fp8, int8)");
      if (!it.value().is_number())
        throw std::runtime_error(origin + ": peak_flops." + it.key() + " must be a number");
      m.peak[found] = it.value().get<double>();
    }
  }
  if (j.contains("family_efficiency")) {
    const json& f = j["family_efficiency"];
    if (!f.is_array()) throw std::runtime_error(origin + ": 'family_efficiency' must be an array");
    m.family_efficiency.clear();
    for (const json& x : f) {
      FamilyEfficiency e;
      try {
        e.family = x.at("family").get<std::string>();
        e.compute = x.value("compute", 1.0);
        e.dram = x.value("dram", 1.0);
        e.rows = x.value("rows", 0);
        e.median_error = x.value("median_error", 0.0);
        e.median_error_before = x.value("median_error_before", 0.0);
        e.source = x.value("source", std::string());
      } catch (const json::exception& ex) {
        throw std::runtime_error(origin + ": family_efficiency: " + ex.what());
      }
      if (!(e.compute > 0) || !(e.dram > 0))
        throw std::runtime_error(origin + ": family_efficiency '" + e.family +
                                 "': compute and dram must be > 0");
      m.family_efficiency.push_back(std::move(e));
    }
  }
  if (m.name.empty()) throw std::runtime_error(origin + ": 'name' is required");
  if (m.dram_bytes_per_s <= 0)
    throw std::runtime_error(origin + ": 'dram_bytes_per_s' must be > 0");
  if (m.sm_count <= 0) throw std::runtime_error(origin + ": 'sm_count' must be > 0");
  bool any_peak = false;
  for (double p : m.peak) any_peak = any_peak || p > 0;
  if (!any_peak) throw std::runtime_error(origin + ": 'peak_flops' needs at least one class > 0");
  return m;
}

Machine load_machine_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open machine file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return machine_from_json_text(ss.str(), path);
}

}  // namespace gemmkit::ledger
