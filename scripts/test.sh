#!/usr/bin/env bash
# Sets everything up, builds, and runs the whole test suite. GPU tests exit 77 without a GPU
# and CTest reports them as skipped; then the Python package's pytest. Then the CPU path once
# more under ASan and UBSan (no memory error or undefined behaviour on any CPU path): a
# second build without CUDA, its unit, cpu and stress tests, all but the exhaustive netlib grid (10 minutes under ASan; the seeded
# sweep, the ladder, production, variants and team-split tests run every CPU kernel there),
# and the Python tests on that library.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)" --timeout 1500)
# The Python package (python/gemmkit) on this build's library, with Debian's python3 (the one
# python3-numpy serves; GEMMKIT_PYTHON overrides): the CPU tests, and the torch GPU tests,
# which skip without torch or a GPU.
GEMMKIT_LIBRARY="$PWD/build/libgemmkit.so" PYTHONDONTWRITEBYTECODE=1 \
  "${GEMMKIT_PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}" \
  -m pytest -q -rs -p no:cacheprovider tests/python
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEMMKIT_CUDA=OFF \
  -DGEMMKIT_SANITIZE=ON
cmake --build build-asan -j"$(nproc)"
cd build-asan
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure -j"$(nproc)" --timeout 1500 -L 'unit|cpu|stress' -E cpu_netlib_grid
# The Python tests once more on the sanitized library: the C ABI's gemmkit_problem, status and
# JSON entry points under ASan + UBSan (Python's own allocations are not leak-checked).
cd ..
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)" \
  GEMMKIT_LIBRARY="$PWD/build-asan/libgemmkit.so" PYTHONDONTWRITEBYTECODE=1 \
  "${GEMMKIT_PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}" \
  -m pytest -q -rs -p no:cacheprovider tests/python \
  --deselect tests/python/test_install.py::test_pip_install_offline
