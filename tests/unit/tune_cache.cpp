// The tuning cache: `gemmkit tune` on a small CPU shape writes a file with the key and the
// winning plan; the planner takes a cached winner that differs from its own ranking's pick;
// a file of another device or build, a malformed file, and an entry naming an unknown kernel
// are ignored (a warning on stderr for the file, a reason for the entry), never a wrong plan.
#include "dispatch/tune_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "dispatch/plan_cache.hpp"
#include "dispatch/planner.hpp"
#include "support/run_cli.hpp"

namespace gemmkit::dispatch {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("gemmkit_tune_" + std::to_string(getpid()) + "_" + name))
      .string();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
}

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

GemmDesc small_f32() { return with_default_lds(GemmDesc{.m = 64, .n = 48, .k = 32}); }

Options cpu_options() { return Options{.backend = Backend::Cpu}; }

// A production CPU kernel with a data-parallel mode that implements d, other than `not_this`.
const KernelInfo* other_kernel(const GemmDesc& d, const KernelInfo* not_this) {
  for (const KernelInfo& k : registry().all())
    if (&k != not_this && k.backend == Backend::Cpu && k.role == KernelRole::Production &&
        k.config.supports(sched::Mode::DataParallel) && k.can_implement(d))
      return &k;
  return nullptr;
}

// A cache with one entry for d on this CPU naming `kernel`, under `build` and `device`.
std::string cache_text(const GemmDesc& d, const std::string& kernel, const std::string& build,
                       const std::string& device) {
  TuneEntry e = tune_key(d, Backend::Cpu, 0.0, 0);
  e.device = device;
  e.kernel = kernel;
  e.mode = sched::Mode::DataParallel;
  e.split = 1;
  e.measured_ms = 0.0125;
  e.timed = 2;
  return format_tune_file(build, {e});
}

class TuneCache : public ::testing::Test {
 protected:
  void TearDown() override {
    set_tune_cache_path("");
    std::remove(path.c_str());
  }
  // The plan for d after the process's cache is pointed at `path`; *err gets stderr.
  Plan plan_with(const std::string& text, std::string* err, const GemmDesc& d = small_f32()) {
    write(path, text);
    set_tune_cache_path(path);
    ::testing::internal::CaptureStderr();
    Plan p = make_plan(d, cpu_options(), nullptr, /*with_reasons=*/true);
    make_plan(d, cpu_options());  // a second plan: the file is not read (nor warned about) again
    *err = ::testing::internal::GetCapturedStderr();
    return p;
  }
  std::string path = temp_path("cache.json");
};

TEST_F(TuneCache, PlannerTakesTheCachedWinner) {
  const GemmDesc d = small_f32();
  set_tune_cache_path("");
  const Plan ranked = make_plan(d, cpu_options());
  ASSERT_TRUE(ranked.status) << to_string(ranked.status);
  const KernelInfo* other = other_kernel(d, ranked.launch.kernel);
  if (other == nullptr) GTEST_SKIP() << "one CPU production kernel on this machine";
  std::string err;
  const Plan p =
      plan_with(cache_text(d, other->name, tune_build_id(), device_name(Backend::Cpu)), &err);
  ASSERT_TRUE(p.status) << to_string(p.status);
  EXPECT_EQ(p.launch.kernel, other) << "ranking's pick " << ranked.launch.kernel->name;
  EXPECT_TRUE(p.from_tune_cache);
  ASSERT_TRUE(p.tuned.has_value());
  EXPECT_EQ(p.tuned->kernel, other->name);
  EXPECT_EQ(err, "");
  // gemm()'s cached plan takes it too, and a requested split count or schedule overrides it.
  EXPECT_EQ(cached_plan(d, cpu_options(), nullptr).launch.kernel, other);
  Options dp = cpu_options();
  dp.schedule = Schedule::DataParallel;
  EXPECT_FALSE(make_plan(d, dp).from_tune_cache);
  // Another shape has no entry.
  GemmDesc d2 = d;
  d2.m = 65;
  EXPECT_FALSE(make_plan(with_default_lds(d2), cpu_options()).from_tune_cache);
}

// A kernel requested by name (as `gemmkit bench` names the planner's pick for its row) runs
// the mode and split count of a cached plan of that kernel, not the ledger's best of its own
// modes; a cached plan of another kernel, or a split count the caller gives, leaves it alone.
TEST_F(TuneCache, NamedKernelTakesItsTunedSplit) {
  const GemmDesc d = with_default_lds(GemmDesc{.m = 16, .n = 16, .k = 4096});
  const KernelInfo* split_kernel = nullptr;
  for (const KernelInfo& k : registry().all())
    if (k.backend == Backend::Cpu && k.role == KernelRole::Production &&
        k.config.supports(sched::Mode::SplitK) && k.can_implement(d))
      split_kernel = &k;
  if (split_kernel == nullptr) GTEST_SKIP() << "no CPU split-K kernel implements 16 x 16 x 4096";
  Options named = cpu_options();
  named.kernel = split_kernel->name.c_str();
  set_tune_cache_path("");
  const Plan untuned = make_plan(d, named);
  ASSERT_TRUE(untuned.status) << to_string(untuned.status);
  const int split = untuned.launch.split == 3 ? 5 : 3;  // not the ledger's own count
  TuneEntry e = tune_key(d, Backend::Cpu, 0.0, 0);
  e.device = device_name(Backend::Cpu);
  e.kernel = split_kernel->name;
  e.mode = sched::Mode::SplitK;
  e.split = split;
  e.measured_ms = 0.5;
  e.timed = 2;
  write(path, format_tune_file(tune_build_id(), {e}));
  set_tune_cache_path(path);
  const Plan tuned = make_plan(d, named);
  ASSERT_TRUE(tuned.status) << to_string(tuned.status);
  EXPECT_EQ(tuned.launch.kernel, split_kernel);
  EXPECT_EQ(tuned.launch.mode, sched::Mode::SplitK);
  EXPECT_EQ(tuned.launch.split, split) << "the ledger's count was " << untuned.launch.split;
  EXPECT_TRUE(tuned.from_tune_cache);
  Options forced = named;
  forced.split_k = split == 3 ? 2 : 3;
  const Plan given = make_plan(d, forced);
  ASSERT_TRUE(given.status) << to_string(given.status);
  EXPECT_EQ(given.launch.split, forced.split_k);
  EXPECT_FALSE(given.from_tune_cache);
  e.kernel = "cpu.another_kernel";
  write(path, format_tune_file(tune_build_id(), {e}));
  set_tune_cache_path(path);
  const Plan other = make_plan(d, named);
  EXPECT_FALSE(other.from_tune_cache);
  EXPECT_EQ(other.launch.split, untuned.launch.split);
}

TEST_F(TuneCache, AnotherDeviceOrBuildIsIgnoredWithAWarning) {
  const GemmDesc d = small_f32();
  set_tune_cache_path("");
  const Plan ranked = make_plan(d, cpu_options());
  const KernelInfo* other = other_kernel(d, ranked.launch.kernel);
  const std::string name = other ? other->name : ranked.launch.kernel->name;
  std::string err;
  Plan p = plan_with(cache_text(d, name, tune_build_id(), "Some Other CPU @ 1.0GHz"), &err);
  EXPECT_FALSE(p.from_tune_cache);
  EXPECT_EQ(p.launch.kernel, ranked.launch.kernel);
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_NE(err.find("Some Other CPU"), std::string::npos) << err;
  EXPECT_EQ(err.find("warning"), err.rfind("warning")) << "warned more than once: " << err;

  p = plan_with(
      cache_text(d, name, "0000000000000000000000000000000000000000", device_name(Backend::Cpu)),
      &err);
  EXPECT_FALSE(p.from_tune_cache);
  EXPECT_EQ(p.launch.kernel, ranked.launch.kernel);
  EXPECT_NE(err.find("belongs to build 0000"), std::string::npos) << err;
}

TEST_F(TuneCache, MalformedFileIsIgnoredWithAWarning) {
  const GemmDesc d = small_f32();
  set_tune_cache_path("");
  const Plan ranked = make_plan(d, cpu_options());
  const std::string good =
      cache_text(d, ranked.launch.kernel->name, tune_build_id(), device_name(Backend::Cpu));
  nlohmann::json missing = nlohmann::json::parse(good);
  missing["entries"][0].erase("m");
  nlohmann::json bad_mode = nlohmann::json::parse(good);
  bad_mode["entries"][0]["plan"]["mode"] = "sideways";
  for (const std::string& text :
       {std::string("{ not json"), std::string("[]"), std::string("{\"format\": \"x\"}"),
        missing.dump(), bad_mode.dump(), good.substr(0, good.size() / 2)}) {
    std::string err;
    const Plan p = plan_with(text, &err);
    ASSERT_TRUE(p.status) << to_string(p.status);
    EXPECT_FALSE(p.from_tune_cache) << text;
    EXPECT_EQ(p.launch.kernel, ranked.launch.kernel) << text;
    EXPECT_NE(err.find("malformed"), std::string::npos) << text << "\n" << err;
    EXPECT_NE(err.find(path), std::string::npos) << err;
  }
  // A file that does not exist: a warning too.
  set_tune_cache_path(path + ".absent");
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(make_plan(d, cpu_options()).from_tune_cache);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("cannot be read"), std::string::npos);
}

TEST_F(TuneCache, UnknownKernelIsIgnored) {
  const GemmDesc d = small_f32();
  set_tune_cache_path("");
  const Plan ranked = make_plan(d, cpu_options());
  std::string err;
  const Plan p = plan_with(
      cache_text(d, "cpu.no_such_kernel", tune_build_id(), device_name(Backend::Cpu)), &err);
  ASSERT_TRUE(p.status) << to_string(p.status);
  EXPECT_FALSE(p.from_tune_cache);
  EXPECT_EQ(p.launch.kernel, ranked.launch.kernel);
  ASSERT_TRUE(p.tuned.has_value());
  bool said = false;
  for (const std::string& r : p.reasons)
    said |= r.find("cpu.no_such_kernel") != std::string::npos &&
            r.find("not used: no kernel of that name") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(TuneCache, MergeReplacesTheEntryOfTheSameKey) {
  const GemmDesc d = small_f32();
  TuneEntry a = tune_key(d, Backend::Cpu, 0.0, 0);
  a.kernel = "cpu.first";
  TuneEntry b = a;
  b.kernel = "cpu.second";
  TuneEntry c = tune_key(d, Backend::Cpu, 1.0, 0);  // beta != 0: another key
  c.kernel = "cpu.third";
  std::string warning, err;
  ASSERT_TRUE(merge_tune_file(path, {a, c}, &warning, &err)) << err;
  ASSERT_TRUE(merge_tune_file(path, {b}, &warning, &err)) << err;
  EXPECT_EQ(warning, "");
  std::string build;
  std::vector<TuneEntry> entries;
  ASSERT_TRUE(parse_tune_file(read(path), &build, &entries, &err)) << err;
  EXPECT_EQ(build, tune_build_id());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].kernel, "cpu.second");
  EXPECT_EQ(entries[1].kernel, "cpu.third");
  // A file of another build is replaced, with a warning.
  write(path, cache_text(d, "cpu.first", "other-build", device_name(Backend::Cpu)));
  ASSERT_TRUE(merge_tune_file(path, {c}, &warning, &err)) << err;
  EXPECT_NE(warning.find("other-build"), std::string::npos) << warning;
  ASSERT_TRUE(parse_tune_file(read(path), &build, &entries, &err)) << err;
  EXPECT_EQ(entries.size(), 1u);
}

// The command: tune a small CPU shape, then explain reads the file.
using Result = test::CliResult;
Result run(const std::string& args) { return test::run_cli(args); }

TEST_F(TuneCache, TuneWritesTheCacheAndExplainReadsIt) {
  const std::string shape = "--m 40 --n 24 --k 16 --dtype f32 --backend cpu";
  Result r = run("tune " + shape + " --quick --quiet --top 3 --tune-cache " + path);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("measured"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("winner: cpu."), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(read(path));
  EXPECT_EQ(j["format"], "gemmkit-tune");
  EXPECT_EQ(j["build"], tune_build_id());
  ASSERT_EQ(j["entries"].size(), 1u);
  const nlohmann::json& e = j["entries"][0];
  EXPECT_EQ(e["backend"], "cpu");
  EXPECT_EQ(e["device"], device_name(Backend::Cpu));
  EXPECT_EQ(e["dtypes"], "f32/f32/f32/f32/f32");
  EXPECT_EQ(e["layouts"], "A=col B=col C=col");
  EXPECT_EQ(e["m"], 40);
  EXPECT_EQ(e["n"], 24);
  EXPECT_EQ(e["k"], 16);
  EXPECT_EQ(e["batch"], 1);
  EXPECT_EQ(e["beta_zero"], true);
  const std::string kernel = e["plan"]["kernel"].get<std::string>();
  EXPECT_EQ(kernel.rfind("cpu.", 0), 0u) << kernel;
  EXPECT_GT(e["plan"]["measured_ms"].get<double>(), 0);

  r = run("explain " + shape + " --tune-cache " + path);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("tuned: " + kernel), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(from the tune cache)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gemmkit::dispatch
