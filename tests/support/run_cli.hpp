// Runs the built `gemmkit` command (GEMMKIT_BIN, set by CTest) with stderr folded into stdout.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace gemmkit::test {

struct CliResult {
  int rc = -1;  // the exit status; -1 when the command did not run or exit normally
  std::string out;
};

// `env` is prefixed to the command line ("NAME=value ...").
inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  const char* bin = std::getenv("GEMMKIT_BIN");
  EXPECT_NE(bin, nullptr) << "GEMMKIT_BIN not set";
  const std::string cmd = env + " " + (bin ? bin : "gemmkit") + " " + args + " 2>&1";
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) r.out += buf;
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace gemmkit::test
