#include "cli/problem_list.hpp"

#include "bench/suite.hpp"

namespace gemmkit::cli {

bench::BenchProblem make_problem(const std::string& name, const ProblemOptions& po) {
  bench::BenchProblem p;
  p.desc = po.desc();
  p.name = name;
  const EpilogueDesc& e = p.desc.epilogue;
  if (e.bias != BiasMode::None || e.act != Activation::None) {
    p.name += " " + po.epilogue;
    if (e.bias != BiasMode::None)
      p.name += std::string(e.bias == BiasMode::Row ? " row" : " col") + " " +
                std::string(dtype_name(e.bias_dtype));
  }
  p.alpha = po.alpha;
  p.beta = po.beta;
  return p;
}

std::vector<bench::BenchProblem> sweep_problems(const ProblemOptions& base,
                                                const std::string& suite_name, Backend backend,
                                                bool dtype_given) {
  std::vector<bench::BenchProblem> problems;
  if (suite_name.empty()) {
    problems.push_back(make_problem(
        std::to_string(base.m) + "x" + std::to_string(base.n) + "x" + std::to_string(base.k),
        base));
    return problems;
  }
  bench::Suite suite;
  std::string err;
  if (!bench::load_suite(suite_name, &suite, &err)) throw CLI::ValidationError("--suite", err);
  for (const bench::SuiteEntry& e : suite.entries) {
    ProblemOptions po = base;
    po.m = e.m;
    po.n = e.n;
    po.k = e.k;
    po.batch = e.batch;
    if (!dtype_given) {
      auto it = suite.dtype.find(std::string(backend_name(backend)));
      if (it != suite.dtype.end()) po.dtype = it->second;
    }
    for (const auto& [key, value] : e.options) {
      if (key == "layout_a")
        po.layout_a = value;
      else if (key == "layout_b")
        po.layout_b = value;
      else if (key == "layout_c")
        po.layout_c = value;
      else if (key == "trans_a")
        po.trans_a = value == "1";
      else if (key == "trans_b")
        po.trans_b = value == "1";
      else if (key == "beta")
        po.beta = std::stod(value);
      else if (key == "dtype" && !dtype_given)
        po.dtype = value;
    }
    bench::BenchProblem p = make_problem(e.name, po);
    if (!e.group_m.empty())
      p.skip = "grouped GEMM (" + std::to_string(e.group_m.size()) +
               " groups) is not in gemmkit's API yet: nothing timed";
    problems.push_back(p);
  }
  return problems;
}

}  // namespace gemmkit::cli
