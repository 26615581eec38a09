#!/usr/bin/env bash
# The whole test suite: the host build (labels consistency, reference, alloc, build, install),
# then the on-target tests (label target) for Cortex-M7 and Cortex-M4F under qemu-system-arm,
# aarch64 under qemu-aarch64, and x86-64 through the same target path. Stops at the first
# failing step and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --workflow --preset test
for target in cortex-m7 cortex-m4f aarch64 x86-64; do
  echo "=== target: ${target}"
  cmake --workflow --preset "${target}"
done
echo "run-tests: host and all targets passed"
