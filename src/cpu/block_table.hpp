// Block sizes of the BLIS loops, per ISA, derived from the detected caches (BLIS's context
// init as data). The microkernel fixes MR x NR; the table says how much of each cache level a
// packed operand may take:
//   KC: one (KC, NR) B micro-panel takes `l1_share` of L1d (it is reused by every A panel);
//   MC: the packed (MC, KC) A block takes `l2_share` of L2 (reused by every B micro-panel);
//   NC: the packed (KC, NC) B panel takes `l3_share` of L3, capped at `nc_max`.
#pragma once
#include <cstdint>
#include <string>

namespace gemmkit::cpu {

enum class Isa : std::uint8_t { Portable, Avx2, Avx512 };
const char* isa_name(Isa isa) noexcept;

struct BlockRule {
  Isa isa;
  double l1_share;
  double l2_share;
  double l3_share;
  std::int64_t kc_min, kc_max;
  std::int64_t nc_max;
  // The A block's share on an L2 of 2 MiB or more per core (0: l2_share).
  double l2_share_2mib = 0;
};

struct BlockSizes {
  int mr = 0, nr = 0;
  std::int64_t mc = 0, kc = 0, nc = 0;
};

const BlockRule& block_rule(Isa isa);
// Block sizes for an MR x NR microkernel over elements of `elem_bytes` on this CPU.
BlockSizes derive_blocks(Isa isa, int mr, int nr, int elem_bytes);
std::string describe(const BlockSizes& b);  // "MR=8,NR=32,MC=..,KC=..,NC=.."

}  // namespace gemmkit::cpu
