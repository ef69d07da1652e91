// The tensor-parallel front door's checks (host only, no NCCL): one rule a line with its reason,
// run before any byte is read, written or communicated. rank and size come from the
// Communicator, so that the same rules are tested here without one.
#pragma once
#include <vector>

#include "dist/partition.hpp"
#include "gemmkit/dist.hpp"

namespace gemmkit::dist {

enum class Tp : std::uint8_t { Column, Row };

// Checks one rank's call and gives the M shards (every rank's rows, in rank order).
// `desc` must have defaulted lds (with_default_lds).
Status validate_tp(Tp tp, const GemmDesc& desc, const GemmArgs& args, const TpOptions& o,
                   const Options& opt, int rank, int size, std::vector<Range>* shards);

// The NCCL-independent name of a reduction dtype ("" when D's dtype cannot be summed here).
bool summable(DType t) noexcept;

}  // namespace gemmkit::dist
