#!/usr/bin/env bash
# Configures and builds gemmkit into build/ (CUDA backend when nvcc is found).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release ${GEMMKIT_CMAKE_ARGS:-}
cmake --build build -j"$(nproc)"
