#!/usr/bin/env bash
# compute-sanitizer over a small-shape set of the GPU kernel tests: every CUDA kernel's K = 0..17
# cases, pointer offsets 1..15 on every operand (the padded-copy path), beta == 0 with NaN in C,
# split-K (workspace, counters, fixup), the decode tile and the small-N kernel. One tool per call:
#   sanitize.sh TOOL GPU_KERNELS_BINARY      TOOL: memcheck, racecheck, synccheck or initcheck
# Exits 77 (skipped) without a usable device or without compute-sanitizer; 1 on any error the
# tool reports (--error-exitcode) or any test failure under it.
set -uo pipefail
tool=${1:?tool}
bin=${2:?gpu_kernels binary}
"$bin" --gtest_filter=-* >/dev/null 2>&1
probe=$?
[ "$probe" -eq 77 ] && { echo "no usable CUDA device: skipped"; exit 77; }
[ "$probe" -ne 0 ] && { echo "$bin does not start (exit $probe)"; exit 1; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "compute-sanitizer not found: skipped"; exit 77; }
filter='Kernels/CudaKernel.TinyK/*:Kernels/CudaKernel.PointerOffsets/*'
filter+=':Kernels/CudaKernel.BetaZeroNeverReadsC/*:Kernels/CudaKernel.SplitK/*'
filter+=':CudaDecodeKernel.BetaZeroNeverReadsCAndRepeats:CudaGemvKernel.OffsetsNaNCAndRepeats'
extra=()
[ "$tool" = racecheck ] && extra=(--racecheck-report hazard)
exec "$cs" --tool "$tool" --error-exitcode 1 "${extra[@]}" "$bin" --gtest_brief=1 \
  --gtest_filter="$filter"
