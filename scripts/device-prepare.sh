#!/usr/bin/env bash
# On the development machine: build what the GPU machine runs, into build-device/, and copy the
# shared libraries it needs that the GPU image lacks (Debian's OpenBLAS and its Fortran runtime)
# into build-device/devlibs, then packs what the GPU machine runs (the command, the library,
# the GPU tests, CTest files, devlibs) into build-device-pack/pack.tar.xz: the whole build tree
# is over the 64 MiB a device call carries. Then: device run with carry=["build-device-pack"]
# and the command
#   bash scripts/device-run.sh [tests] [bench ARGS...] [exec CMD...]
set -euo pipefail
cd "$(dirname "$0")/.."
targets=${TARGETS:-}
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEMMKIT_CUDA=ON >/dev/null
if [ -n "$targets" ]; then
  cmake --build build-device -j2 --target $targets
else
  cmake --build build-device -j2
fi
mkdir -p build-device/devlibs
for lib in $(ldd build-device/gemmkit | awk '/openblas|gfortran|quadmath|gomp/ {print $3}'); do
  cp -L "$lib" build-device/devlibs/
done
rm -rf build-device/consumer-install build-device/consumer-build
mkdir -p build-device-pack
tar -C . -cJf build-device-pack/pack.tar.xz build-device/gemmkit build-device/libgemmkit.so* \
  build-device/devlibs build-device/CTestTestfile.cmake build-device/tests/CTestTestfile.cmake \
  $(ls build-device/tests/gpu_* 2>/dev/null | grep -v '\.' || true)
du -sh build-device-pack/pack.tar.xz | cut -f1
