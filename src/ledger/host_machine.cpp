// The host CPU as a Machine: detected once (cpuid, sysfs, /proc/cpuinfo), peak computed from
// cores x clock x FMA pipes x SIMD lanes x 2.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ledger/machine.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define GEMMKIT_LEDGER_X86 1
#endif

namespace gemmkit::ledger {
namespace {

struct CpuFeatures {
  bool avx = false, avx2 = false, fma = false, avx512f = false;
  bool avx512_vnni = false, avx_vnni = false, avx512_bf16 = false, avx512_fp16 = false;
  bool amd = false;
};

#ifdef GEMMKIT_LEDGER_X86
std::uint64_t xgetbv0() {
  std::uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}
#endif

CpuFeatures detect_features() {
  CpuFeatures f;
#ifdef GEMMKIT_LEDGER_X86
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return f;
  const unsigned max_leaf = a;
  f.amd = (b == 0x68747541u);  // "Auth"enticAMD
  __get_cpuid(1, &a, &b, &c, &d);
  const bool osxsave = c & (1u << 27);
  const std::uint64_t xcr0 = osxsave ? xgetbv0() : 0;
  const bool os_avx = (xcr0 & 0x6) == 0x6;
  const bool os_avx512 = (xcr0 & 0xe6) == 0xe6;
  f.avx = os_avx && (c & (1u << 28));
  f.fma = os_avx && (c & (1u << 12));
  if (max_leaf >= 7) {
    __get_cpuid_count(7, 0, &a, &b, &c, &d);
    f.avx2 = os_avx && (b & (1u << 5));
    f.avx512f = os_avx512 && (b & (1u << 16));
    f.avx512_vnni = f.avx512f && (c & (1u << 11));
    f.avx512_fp16 = f.avx512f && (d & (1u << 23));
    __get_cpuid_count(7, 1, &a, &b, &c, &d);
    f.avx_vnni = os_avx && (a & (1u << 4));
    f.avx512_bf16 = f.avx512f && (a & (1u << 5));
  }
#endif
  return f;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "48K", "2048K", "32M" -> bytes.
std::int64_t parse_size(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.empty()) return 0;
  std::int64_t mult = 1;
  if (s.back() == 'K') mult = 1024;
  if (s.back() == 'M') mult = 1024 * 1024;
  if (s.back() == 'G') mult = 1024LL * 1024 * 1024;
  return std::atoll(s.c_str()) * mult;
}

struct Caches {
  std::int64_t l1d = 0, l2 = 0, llc = 0;
};

Caches detect_caches(const CpuFeatures& f) {
  Caches c;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
    const std::string level = read_file(dir + "/level");
    if (level.empty()) break;
    const std::string type = read_file(dir + "/type");
    const std::int64_t size = parse_size(read_file(dir + "/size"));
    const int lv = std::atoi(level.c_str());
    if (lv == 1 && type.rfind("Data", 0) == 0) c.l1d = size;
    if (lv == 2) c.l2 = size;
    if (lv >= 2) c.llc = std::max(c.llc, size);
  }
#ifdef GEMMKIT_LEDGER_X86
  if (c.l1d == 0) {  // no sysfs (containers, some VMs): deterministic cache parameters leaf
    unsigned a, b, cc, d;
    const unsigned leaf = f.amd ? 0x8000001Du : 4u;
    for (unsigned sub = 0; sub < 8; ++sub) {
      if (!__get_cpuid_count(leaf, sub, &a, &b, &cc, &d)) break;
      const unsigned type = a & 0x1f, level = (a >> 5) & 0x7;
      if (type == 0) break;
      const std::int64_t size = static_cast<std::int64_t>((b >> 22) + 1) *
                                (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * (cc + 1);
      if (level == 1 && type == 1) c.l1d = size;
      if (level == 2) c.l2 = size;
      if (level >= 2) c.llc = std::max(c.llc, size);
    }
  }
  if (c.l1d == 0 && f.amd) {  // AMD's legacy cache leaves (some hypervisors leave 0x8000001D empty)
    unsigned a, b, cc, d;
    if (__get_cpuid(0x80000005u, &a, &b, &cc, &d))
      c.l1d = static_cast<std::int64_t>(cc >> 24) << 10;
    if (__get_cpuid(0x80000006u, &a, &b, &cc, &d)) {
      c.l2 = static_cast<std::int64_t>(cc >> 16) << 10;
      c.llc = std::max(c.l2, static_cast<std::int64_t>(d >> 18) * 512 * 1024);
    }
  }
#else
  (void)f;
#endif
  return c;
}

double detect_freq_hz() {
  const std::string khz = read_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (!khz.empty() && std::atof(khz.c_str()) > 0) return std::atof(khz.c_str()) * 1e3;
  std::istringstream in(read_file("/proc/cpuinfo"));
  double mhz = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) mhz = std::max(mhz, std::atof(line.c_str() + colon + 1));
    }
  }
  return mhz > 0 ? mhz * 1e6 : 2.0e9;  // unknown: assume 2 GHz, said in the description
}

int detect_cores() {
  int usable = static_cast<int>(std::thread::hardware_concurrency());
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) usable = CPU_COUNT(&set);
  // Physical cores: distinct (physical id, core id) pairs; SMT siblings share the FMA pipes.
  std::istringstream in(read_file("/proc/cpuinfo"));
  std::set<std::pair<int, int>> cores;
  int phys = 0;
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (line.rfind("physical id", 0) == 0) phys = std::atoi(line.c_str() + colon + 1);
    if (line.rfind("core id", 0) == 0) cores.insert({phys, std::atoi(line.c_str() + colon + 1)});
  }
  int n = cores.empty() ? usable : std::min<int>(usable, static_cast<int>(cores.size()));
  return std::max(1, n);
}

// Streaming read bandwidth with one thread per core over a buffer well beyond the LLC.
double measure_read_bandwidth(int threads, std::int64_t llc) {
  // 4x the LLC, within [128 MiB, 256 MiB]: hypervisors sometimes report absurd LLC sizes.
  const std::size_t bytes = static_cast<std::size_t>(
      std::clamp<std::int64_t>(4 * llc, std::int64_t{128} << 20, std::int64_t{256} << 20));
  const std::size_t n = bytes / sizeof(std::uint64_t);
  std::vector<std::uint64_t> buf(n, 1);
  std::atomic<std::uint64_t> sink{0};
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
        std::uint64_t s = 0;
        for (std::size_t i = lo; i < hi; i += 4) s += buf[i] + buf[i + 1] + buf[i + 2] + buf[i + 3];
        sink += s;
      });
    }
    for (auto& th : pool) th.join();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, static_cast<double>(n * sizeof(std::uint64_t)) / dt);
  }
  return sink.load() == 0 ? 0 : best;
}

Machine detect_host(bool measure_dram) {
  const CpuFeatures f = detect_features();
  const Caches caches = detect_caches(f);
  Machine m;
  m.name = "host";
  m.kind = "cpu";
  m.sm_count = detect_cores();
  m.freq_hz = detect_freq_hz();
  m.simd_bits = f.avx512f ? 512 : (f.avx || f.avx2) ? 256 : 128;
  m.isa = f.avx512f ? "avx512" : f.avx2 ? "avx2" : f.avx ? "avx" : "sse";
  if (f.fma) m.isa += "+fma";
  // Two FMA pipes per core is the rule on x86 cores since Haswell/Zen 2 (assumed: cpuid does
  // not say); without FMA a mul and an add pipe give the same 2 FLOP per lane per cycle.
  m.fma_units = 2;
  const double lanes32 = m.simd_bits / 32.0;
  const double fp32 = m.sm_count * m.freq_hz * m.fma_units * lanes32 * 2.0;
  m.peak[static_cast<int>(PeakClass::FP64)] = fp32 / 2;
  m.peak[static_cast<int>(PeakClass::FP32)] = fp32;
  // Half precision is converted to fp32 unless the core has AVX512-FP16.
  m.peak[static_cast<int>(PeakClass::FP16)] = f.avx512_fp16 ? 2 * fp32 : fp32;
  // int8: VNNI does 4 multiply-adds per 32-bit lane; without it pmaddubsw+pmaddwd ~2x.
  m.peak[static_cast<int>(PeakClass::INT8)] = (f.avx512_vnni || f.avx_vnni) ? 4 * fp32 : 2 * fp32;
  m.l1d_bytes = caches.l1d;
  m.smem_per_sm = caches.l2 > 0 ? caches.l2 : 1 << 20;
  m.smem_per_block = m.smem_per_sm;
  m.l2_bytes = caches.llc > 0 ? caches.llc : m.smem_per_sm;
  m.max_blocks_per_sm = 1;
  m.max_threads_per_sm = 1;
  m.max_threads_per_block = 1;
  m.warp_size = 1;
  m.dram_latency_s = 0.1e-6;
  m.launch_s = 5e-6;  // OpenMP fork/join of a parallel region, order of magnitude
  std::string bw_source;
  if (const char* env = std::getenv("GEMMKIT_HOST_DRAM_BPS"); env && std::atof(env) > 0) {
    m.dram_bytes_per_s = std::atof(env);
    bw_source = "GEMMKIT_HOST_DRAM_BPS";
  } else if (measure_dram) {
    m.dram_bytes_per_s = measure_read_bandwidth(m.sm_count, m.l2_bytes);
    bw_source = "read bandwidth measured once at first use";
  } else {
    m.dram_bytes_per_s = 10e9 * m.sm_count;  // nominal, not measured
    bw_source = "nominal 10 GB/s per core (not measured)";
  }
  if (m.dram_bytes_per_s <= 0) m.dram_bytes_per_s = 10e9;
  std::ostringstream d;
  d << "host CPU, detected: " << m.sm_count << " cores x " << m.freq_hz / 1e9 << " GHz x "
    << m.fma_units << " FMA x " << m.simd_bits << "-bit " << m.isa;
  m.description = d.str();
  m.source = "cpuid, /sys/devices/system/cpu, /proc/cpuinfo; DRAM: " + bw_source;
  return m;
}

}  // namespace

const Machine& host_machine() {
  static const Machine m = detect_host(true);
  return m;
}

const Machine& host_machine_nominal() {
  static const Machine m = detect_host(false);
  return m;
}

}  // namespace gemmkit::ledger
