#!/usr/bin/env bash
# Installs the Debian packages gemmkit builds and tests with (as root; skipped when present).
# The CUDA toolkit is not a Debian package here: the CUDA backend is built when nvcc is found.
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev
      libopenblas-dev libblas-dev libblas3
      python3-numpy python3-pytest python3-setuptools python3-pip)  # the Python package
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
