// KernelConfig: printing, reading back, and the ledger's view.
#include "dispatch/kernel_config.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "cuda/gemv/gemv.hpp"

namespace gemmkit::dispatch {

namespace {

constexpr Isa kIsas[] = {Isa::Portable, Isa::Avx2,    Isa::Avx512,
                         Isa::CudaSimt, Isa::MmaSync, Isa::Wgmma};
constexpr Swizzle kSwizzles[] = {Swizzle::None, Swizzle::Xor16B, Swizzle::B128};

int read_int(std::string_view key, std::string_view v, int min) {
  int x = 0;
  std::size_t used = 0;
  try {
    x = std::stoi(std::string(v), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size() || x < min)
    throw std::invalid_argument("kernel config: '" + std::string(key) + "' needs an integer >= " +
                                std::to_string(min) + ", got '" + std::string(v) + "'");
  return x;
}

// "AxB" -> (A, B), each >= min.
void read_pair(std::string_view key, std::string_view v, int min, int* a, int* b) {
  const auto x = v.find('x');
  if (x == std::string_view::npos)
    throw std::invalid_argument("kernel config: '" + std::string(key) + "' needs AxB, got '" +
                                std::string(v) + "'");
  *a = read_int(key, v.substr(0, x), min);
  *b = read_int(key, v.substr(x + 1), min);
}

template <class E, std::size_t N, class Name>
E read_enum(std::string_view key, std::string_view v, const E (&all)[N], Name name) {
  for (E e : all)
    if (name(e) == v) return e;
  throw std::invalid_argument("kernel config: unknown " + std::string(key) + " '" + std::string(v) +
                              "'");
}

}  // namespace

std::string_view isa_name(Isa isa) noexcept {
  switch (isa) {
    case Isa::Portable:
      return "portable";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512:
      return "avx512";
    case Isa::CudaSimt:
      return "cuda_simt";
    case Isa::MmaSync:
      return "mma_sync";
    case Isa::Wgmma:
      return "wgmma";
  }
  return "?";
}

std::string_view swizzle_name(Swizzle s) noexcept {
  switch (s) {
    case Swizzle::None:
      return "none";
    case Swizzle::Xor16B:
      return "xor16B";
    case Swizzle::B128:
      return "128B";
  }
  return "?";
}

std::string_view mode_name(sched::Mode m) noexcept {
  switch (m) {
    case sched::Mode::DataParallel:
      return "data_parallel";
    case sched::Mode::SplitK:
      return "split_k";
    case sched::Mode::StreamK:
      return "stream_k";
  }
  return "?";
}

std::string to_string(const KernelConfig& c) {
  std::ostringstream o;
  o << c.tile_m << 'x' << c.tile_n << 'x' << c.tile_k;
  if (c.frag_m > 0 || c.frag_n > 0) o << " frag=" << c.frag_m << 'x' << c.frag_n;
  o << " stages=" << c.stages << " threads=" << c.threads << " warpgroups=" << c.warpgroups
    << " cluster=" << c.cluster_m << 'x' << c.cluster_n << " modes=";
  bool first = true;
  for (sched::Mode m : kAllModes)
    if (c.supports(m)) o << (first ? "" : "|") << mode_name(m), first = false;
  if (first) o << "none";
  o << " raster=" << c.raster_group << " swizzle=" << swizzle_name(c.swizzle)
    << " isa=" << isa_name(c.isa);
  if (c.rows_per_sm) o << " rows=per_sm";
  return o.str();
}

KernelConfig parse_kernel_config(std::string_view text) {
  KernelConfig c;
  std::istringstream in{std::string(text)};
  std::string part;
  if (!(in >> part)) throw std::invalid_argument("kernel config: empty text");
  {  // the tile: MxNxK
    const auto x1 = part.find('x'), x2 = x1 == std::string::npos ? x1 : part.find('x', x1 + 1);
    if (x2 == std::string::npos)
      throw std::invalid_argument("kernel config: expected the tile MxNxK first, got '" + part +
                                  "'");
    c.tile_m = read_int("tile", std::string_view(part).substr(0, x1), 1);
    c.tile_n = read_int("tile", std::string_view(part).substr(x1 + 1, x2 - x1 - 1), 1);
    c.tile_k = read_int("tile", std::string_view(part).substr(x2 + 1), 1);
  }
  while (in >> part) {
    const auto eq = part.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("kernel config: expected key=value, got '" + part + "'");
    const std::string_view key = std::string_view(part).substr(0, eq);
    const std::string_view v = std::string_view(part).substr(eq + 1);
    if (key == "frag") {
      read_pair(key, v, 0, &c.frag_m, &c.frag_n);
    } else if (key == "stages") {
      c.stages = read_int(key, v, 1);
    } else if (key == "threads") {
      c.threads = read_int(key, v, 1);
    } else if (key == "warpgroups") {
      c.warpgroups = read_int(key, v, 0);
    } else if (key == "cluster") {
      read_pair(key, v, 1, &c.cluster_m, &c.cluster_n);
    } else if (key == "modes") {
      c.modes = 0;
      if (v == "none") continue;
      for (std::size_t b = 0; b <= v.size();) {
        const std::size_t e = std::min(v.find('|', b), v.size());
        c.modes |= mode_bit(read_enum(key, v.substr(b, e - b), kAllModes, mode_name));
        b = e + 1;
      }
    } else if (key == "raster") {
      c.raster_group = read_int(key, v, 0);
    } else if (key == "swizzle") {
      c.swizzle = read_enum(key, v, kSwizzles, swizzle_name);
    } else if (key == "isa") {
      c.isa = read_enum(key, v, kIsas, isa_name);
    } else if (key == "rows" && v == "per_sm") {
      c.rows_per_sm = true;
    } else {
      throw std::invalid_argument("kernel config: unknown key '" + std::string(key) + "'");
    }
  }
  return c;
}

bool is_filled(const KernelConfig& c) noexcept {
  return c.tile_m > 0 && c.tile_n > 0 && c.tile_k > 0 && c.stages > 0 && c.threads > 0 &&
         c.cluster_m > 0 && c.cluster_n > 0 && c.modes != 0 && c.frag_m >= 0 && c.frag_n >= 0;
}

ledger::TileConfig to_tile_config(const KernelConfig& c, DType acc, int split, sched::Mode mode) {
  ledger::TileConfig t;
  t.block_m = c.tile_m;
  t.block_n = c.tile_n;
  t.block_k = c.tile_k;
  t.stages = c.stages;
  t.threads = c.threads;
  t.split_k = std::max(1, split);
  t.stream_k = mode == sched::Mode::StreamK;
  t.tma_operands = c.isa == Isa::Wgmma;
  t.acc = acc;
  t.frag_m = c.frag_m;
  t.frag_n = c.frag_n;
  return t;
}

ledger::TileConfig problem_tile_config(const KernelConfig& c, const GemmDesc& d, int sm_count,
                                       int split, sched::Mode mode) {
  ledger::TileConfig t = to_tile_config(c, d.compute, split, mode);
  if (!c.rows_per_sm) return t;
  const std::int64_t large = std::max(d.m, d.n), batch = std::max<std::int64_t>(1, d.batch);
  const std::int64_t per_sm = (large * batch + std::max(1, sm_count) - 1) / std::max(1, sm_count);
  const std::int64_t rows = std::clamp<std::int64_t>((per_sm + 7) / 8 * 8, 8, (large + 7) / 8 * 8);
  if (d.m <= d.n) {
    t.block_m = c.tile_m, t.block_n = rows;
  } else {
    t.block_m = rows, t.block_n = c.tile_m;
  }
  // A stage holds ~32 KiB of the weight, by the kernel's own rule (at most tile_k). Its ring is
  // priced as if it filled the shared memory (as many stages as fit in 192 KiB): the kernel's 3
  // stages were measured as fast as the deeper rings (H100, docs/PERF.md).
  t.block_k = std::min<std::int64_t>(t.block_k, gemv::decode_rows_stage_boxes(rows, false) * 64);
  const std::int64_t stage = (t.block_m + t.block_n) * t.block_k * 2;
  t.stages = static_cast<int>(std::max<std::int64_t>(1, (192 << 10) / std::max<std::int64_t>(1, stage)));
  return t;
}

std::string family_key(const KernelConfig& c) {
  const bool cpu = c.frag_m > 0 && c.frag_n > 0;
  return std::string(isa_name(c.isa)) + " " +
         std::to_string(cpu ? c.frag_m : c.tile_m) + "x" +
         std::to_string(cpu ? c.frag_n : c.tile_n) + (c.rows_per_sm ? " rows" : "");
}

std::string family_key(const KernelConfig& c, const GemmDesc& d) {
  const bool gpu_tile = (c.isa == Isa::Wgmma || c.isa == Isa::MmaSync) && !c.rows_per_sm;
  const bool partial = gpu_tile && (d.m < c.tile_m || d.n < c.tile_n);
  return family_key(c) + (partial ? " partial" : "");
}

double isa_compute_efficiency(Isa isa, int machine_simd_bits) noexcept {
  const int bits = isa == Isa::Avx512     ? 512
                   : isa == Isa::Avx2     ? 256
                   : isa == Isa::Portable ? 128
                                          : 0;
  if (bits == 0 || machine_simd_bits <= 0) return 1.0;  // GPU ISAs, or a machine without the figure
  return std::min(1.0, static_cast<double>(bits) / machine_simd_bits);
}

}  // namespace gemmkit::dispatch
