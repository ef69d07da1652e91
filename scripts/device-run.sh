#!/usr/bin/env bash
# On the GPU machine (through the device tool, carrying build-device/): runs the GPU tests
# and/or a benchmark, writing logs and results under $OUT.
#   bash scripts/device-run.sh tests                 # ctest -L gpu
#   bash scripts/device-run.sh bench ARGS...          # gemmkit bench ARGS (results to $OUT)
#   bash scripts/device-run.sh exec CMD...            # any command with the environment set up
set -uo pipefail
root=$(pwd)
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
# The packed build from scripts/device-prepare.sh (carry=["build-device-pack"]).
if [ -f build-device-pack/pack.tar.xz ]; then
  tar -xJf build-device-pack/pack.tar.xz
fi
b=$(cat build-device-pack/build-dir 2>/dev/null || echo build-device)
export LD_LIBRARY_PATH="$root/$b/devlibs:${LD_LIBRARY_PATH:-}"
# CTest files hold the absolute paths of the development machine: make them valid here.
if [ ! -e "/work/main/$b" ]; then
  mkdir -p /work && rm -rf /work/main && ln -s "$root" /work/main
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
rc=0
while [ $# -gt 0 ]; do
  case "$1" in
    tests)
      shift
      (cd "$b" && ctest -L gpu --output-on-failure 2>&1 | tee "$OUT/ctest-gpu.log") || rc=1
      ;;
    bench)
      shift
      args=()
      while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
      [ $# -gt 0 ] && shift
      "./$b/gemmkit" bench "${args[@]}" 2>&1 | tee -a "$OUT/bench.log" || rc=1
      ;;
    exec)
      shift
      args=()
      while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
      [ $# -gt 0 ] && shift
      "${args[@]}" 2>&1 | tee -a "$OUT/exec.log" || rc=1
      ;;
    *)
      echo "unknown step $1"; exit 2 ;;
  esac
done
exit $rc
