// A roofline chart as a standalone SVG (no dependency): log-log axes, one roof per precision
// class of the machine, the bandwidth slope, the problem as a point, and optionally measured
// points beside the ledger's predicted ones.
#pragma once
#include <string>
#include <vector>

#include "ledger/machine.hpp"

namespace gemmkit::ledger {

struct RooflinePoint {
  enum class Kind { Problem, Measured, Predicted } kind = Kind::Problem;
  std::string label;
  double arithmetic_intensity = 0;  // FLOP/B (x)
  double flops_per_s = 0;           // FLOP/s (y)
  int pair = -1;                    // measured and predicted points of one row share an id
};

std::string roofline_svg(const Machine& machine, const std::vector<RooflinePoint>& points,
                         const std::string& title);

}  // namespace gemmkit::ledger
