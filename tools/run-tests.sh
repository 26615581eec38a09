#!/usr/bin/env bash
# The whole test suite: the host build (plain Release, -O3; labels consistency, reference, alloc, build, install,
# reliability, memcheck), the sanitizer build (ASan + UBSan over the hand models, solo12,
# constraints, reliability and fuzz replays), then the on-target tests (label target; on the Cortex-M7 also the HIL short run, label hil) for Cortex-M7 and Cortex-M4F under qemu-system-arm,
# aarch64 under qemu-aarch64, and x86-64 through the same target path. Stops at the first
# failing step and exits non-zero; on success the last line counts every ctest test run.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The plainest build a CMake user runs (CMake's Release, -O3), tested as is; the preset
# host-release (cmake --workflow --preset test) has exactly this cache.
echo "=== host: cmake -S . -B build/host-release -DCMAKE_BUILD_TYPE=Release"
cmake -S . -B build/host-release -DCMAKE_BUILD_TYPE=Release 2>&1 | tee -a "$log"
cmake --build build/host-release -j2 2>&1 | tee -a "$log"
ctest --test-dir build/host-release -j2 --output-on-failure --timeout 900 2>&1 | tee -a "$log"
echo "=== host with AddressSanitizer + UndefinedBehaviorSanitizer"
cmake --workflow --preset sanitize 2>&1 | tee -a "$log"
for target in cortex-m7 cortex-m4f aarch64 x86-64; do
  echo "=== target: ${target}"
  cmake --workflow --preset "${target}" 2>&1 | tee -a "$log"
  case "${target}" in
    cortex-m7 | cortex-m4f | x86-64)
      echo "=== target: ${target} under FreeRTOS"
      cmake --workflow --preset "${target}-freertos" 2>&1 | tee -a "$log" ;;
  esac
done
total=$(grep -oE "tests failed out of [0-9]+" "$log" | awk '{n += $5} END {print n + 0}')
echo "run-tests: host and all targets passed"
echo "${total} passed, 0 failed"
