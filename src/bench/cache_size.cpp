#include "bench/cache_size.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace gemmkit::bench {

namespace {

// "32768K", "1M", "512" -> bytes; 0 on failure.
std::int64_t parse_size(const std::string& s) {
  if (s.empty()) return 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (v <= 0) return 0;
  switch (end && *end ? *end : ' ') {
    case 'K': case 'k': return v * 1024;
    case 'M': case 'm': return v * 1024 * 1024;
    case 'G': case 'g': return v * 1024 * 1024 * 1024;
    default: return v;
  }
}

std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

}  // namespace

CacheSize host_llc() {
  if (const char* e = std::getenv("GEMMKIT_LLC_BYTES"); e && parse_size(e) > 0)
    return {parse_size(e), "GEMMKIT_LLC_BYTES"};
  int best_level = 0;
  std::int64_t best = 0;
  std::string best_index;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
    const std::string type = read_line(dir + "/type");
    if (type.empty()) continue;
    if (type == "Instruction") continue;
    const int level = std::atoi(read_line(dir + "/level").c_str());
    const std::int64_t bytes = parse_size(read_line(dir + "/size"));
    if (bytes > 0 && level >= best_level) {
      best_level = level;
      best = bytes;
      best_index = "sysfs cpu0/cache/index" + std::to_string(i);
    }
  }
  if (best > 0) return {best, best_index};
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long v = sysconf(name);
    if (v > 0)
      return {v, name == _SC_LEVEL3_CACHE_SIZE ? "sysconf L3" : "sysconf L2 (no L3 reported)"};
  }
  return {32ll << 20, "none readable: assumed 32 MiB"};
}

}  // namespace gemmkit::bench
