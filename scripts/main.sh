#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job: the benchmark suite of this machine against
# its baseline (the H200 with cuBLASLt when a GPU is usable, else the CPU with OpenBLAS), each
# row verified before it is timed. Results go to results/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
mkdir -p results
./build/gemmkit kernels
if nvidia-smi >/dev/null 2>&1; then
  ./build/gemmkit bench --backend cuda --suite square --baseline cublas --format table |
    tee results/bench-cuda.txt
else
  # OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (set on some machines) pin OpenBLAS to older kernels;
  # the baseline must run its own best kernels, so they are unset for this command only.
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
    ./build/gemmkit bench --backend cpu --suite cpu --baseline openblas --format table |
    tee results/bench-cpu.txt
fi
