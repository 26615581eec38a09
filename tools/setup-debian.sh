#!/usr/bin/env bash
# Installs what talus needs on a fresh Debian 12 machine (run as root). Idempotent: packages
# already present are skipped, so a second run costs a second.
set -euo pipefail
packages=(g++ cmake make libgtest-dev libbenchmark-dev libeigen3-dev liburdfdom-dev libmujoco-dev
  # cross targets (about 3 GB, most of it libstdc++ for arm-none-eabi) and their emulators
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
  qemu-system-arm qemu-user g++-aarch64-linux-gnu
  # x86 bare metal (preset x86-baremetal): the i686 cross g++ (not gcc-multilib: it conflicts
  # with g++-aarch64-linux-gnu) and qemu-system-i386
  g++-i686-linux-gnu qemu-system-x86
  # tools/footprint-report.sh: x86-64 instruction counts (callgrind)
  valgrind
  # hil/plot.py: the HIL demo's pictures
  python3-matplotlib
  # the API reference: the docs target and the ctest docs_no_warnings (cmake/TalusDocs.cmake)
  doxygen
  # clang: the sanitizer preset (host-sanitize: ASan + UBSan at -O0, a third of GCC's compile time)
  # and the target presets' host tools (the reference tools; their bits equal GCC's)
  clang libclang-rt-14-dev
  # tools/check-format.sh: the code style (.clang-format, set for Debian 12's clang-format 14)
  clang-format)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup-debian: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup-debian: all packages present"
