#!/usr/bin/env bash
# Sets everything up, builds, and runs the whole test suite. GPU tests exit 77 without a GPU
# and CTest reports them as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 1500
