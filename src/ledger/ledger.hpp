// gemmkit::ledger: the analytic GEMM performance model (host only, no CUDA headers).
// See src/ledger/README.md for the contract and docs/ledger.md for the model.
#pragma once
#include "ledger/ascend.hpp"
#include "ledger/machine.hpp"
#include "ledger/predict.hpp"
#include "ledger/problem_ledger.hpp"
#include "ledger/read_counts.hpp"
#include "ledger/roofline_svg.hpp"
#include "ledger/tile_ledger.hpp"
#include "ledger/tma_staging.hpp"
#include "ledger/variant.hpp"
