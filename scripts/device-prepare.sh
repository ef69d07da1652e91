#!/usr/bin/env bash
# On the development machine: build what the GPU machine runs, into build-device/, and copy the
# shared libraries it needs that the GPU image lacks (Debian's OpenBLAS and its Fortran runtime)
# into build-device/devlibs, then packs what the GPU machine runs (the command, the library,
# the GPU tests, CTest files, devlibs) into build-device-pack/pack.tar.xz: the whole build tree
# is over the 64 MiB a device call carries. Then: device run with carry=["build-device-pack"]
# and the command
#   bash scripts/device-run.sh [tests] [bench ARGS...] [exec CMD...]
# GEMMKIT_DEVICE_BUILD names another build tree (with CUDA) to pack instead, e.g. build/.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=${TARGETS:-}
b=${GEMMKIT_DEVICE_BUILD:-build-device}
cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEMMKIT_CUDA=ON >/dev/null
if [ -n "$targets" ]; then
  cmake --build "$b" -j2 --target $targets
else
  cmake --build "$b" -j2
fi
mkdir -p "$b/devlibs"
for lib in $(ldd "$b/gemmkit" | awk '/openblas|gfortran|quadmath|gomp/ {print $3}'); do
  cp -L "$lib" "$b/devlibs/"
done
rm -rf "$b/consumer-install" "$b/consumer-build"
mkdir -p build-device-pack
echo "$b" > build-device-pack/build-dir
tar -C . -cJf build-device-pack/pack.tar.xz "$b/gemmkit" "$b"/libgemmkit.so* \
  $(ls "$b"/libgemmkit_dist.so* 2>/dev/null || true) \
  "$b/devlibs" "$b/CTestTestfile.cmake" "$b/tests/CTestTestfile.cmake" \
  $(ls "$b"/tests/gpu_* 2>/dev/null | grep -v '\.' || true)
du -sh build-device-pack/pack.tar.xz | cut -f1
