// The problems of a sweep (`bench`, `tune`): a shape suite with the problem flags as defaults
// (the suite's dtype per backend unless --dtype was given; per-entry layouts, trans and beta),
// or the one shape of --m --n --k.
#pragma once
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "cli/problem_options.hpp"

namespace gemmkit::cli {

// One problem from the flags: the epilogue joins the name, so that rows with and without it
// stay apart.
bench::BenchProblem make_problem(const std::string& name, const ProblemOptions& po);

// Throws CLI::ValidationError("--suite") when the suite does not load, and what
// ProblemOptions::desc() throws on a bad flag.
std::vector<bench::BenchProblem> sweep_problems(const ProblemOptions& po, const std::string& suite,
                                                Backend backend, bool dtype_given);

}  // namespace gemmkit::cli
