#!/usr/bin/env bash
# The whole test suite: the format check (tools/check-format.sh), the host build (plain Release, -O3, compiled by
# clang++; labels consistency, reference, alloc, build, install, reliability, memcheck), the sanitizer build (clang's
# ASan + UBSan over the hand models, solo12, constraints, reliability and fuzz replays), then the on-target tests
# (label target; on the Cortex-M7 also the HIL short run, label hil), all compiled by GCC: Cortex-M7 and Cortex-M4F
# under qemu-system-arm, aarch64 under qemu-aarch64, x86-64 Linux through the same target path, x86 bare metal under
# qemu-system-i386 (bare metal and FreeRTOS). Stops at the first failing step and exits non-zero; on success the last line counts every ctest
# test run.
#
# Two compilers: clang builds the host suite and the sanitizers (it instantiates talus's templates in about half
# GCC 12's time: the host build went from ~2 060 to ~1 200 core-seconds); GCC builds every target, the installed
# consumer (label install) and, in the x86-64 stage, talus under -march=native -Werror (targets/CMakeLists.txt).
#
# Two streams share the 2 cores: the sanitizer stage, then the host's installed-consumer test (label install), run in the background while the targets whose tests do not
# depend on wall-clock time build and run in the foreground (the Cortex-M under QEMU -icount, where the HIL
# runs in lockstep with its plant; aarch64; x86-64 Linux; x86 bare metal under QEMU -icount; the -icount stages
# run their tests two at a time, virtual time being blind to load), so neither stream's one-core tails leave a
# core idle. The one test that judges wall-clock deadlines (x86-64 under FreeRTOS: a real-time tick thread) runs
# after the background stream has finished, on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
san_log=$(mktemp)
san_pid=""
cleanup() {
  if [[ -n "${san_pid}" ]] && kill -0 "${san_pid}" 2>/dev/null; then kill -- "-${san_pid}" 2>/dev/null || true; fi
  rm -f "$log" "$san_log"
}
trap cleanup EXIT
stamp() { echo "=== [$(date -u +%H:%M:%S), ${SECONDS} s] $*"; }  # the CI time table reads these
stage() {  # stage <preset>: a workflow preset, its output kept for the count at the end
  stamp "target: $1"
  cmake --workflow --preset "$1" 2>&1 | tee -a "$log"
}
# The plain build a CMake user runs (CMake's Release, -O3), with clang++, tested as is; the
# preset host-release (cmake --workflow --preset test) has exactly this cache.
stamp "format: tools/check-format.sh"
bash tools/check-format.sh 2>&1 | tee -a "$log"
stamp "host: cmake -S . -B build/host-release -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++"
cmake -S . -B build/host-release -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ 2>&1 | tee -a "$log"
cmake --build build/host-release -j2 2>&1 | tee -a "$log"
stamp "host: ctest (all but label install, which runs in the background stream below)"
ctest --test-dir build/host-release -j2 -LE install --output-on-failure --timeout 900 2>&1 | tee -a "$log"

stamp "host with AddressSanitizer + UndefinedBehaviorSanitizer, then the host's label install (in the background; its output follows the targets')"
set -m  # its own process group, so that a failure in the foreground stops it too
(
  rc=0
  cmake --workflow --preset sanitize >"$san_log" 2>&1 || rc=$?
  echo "=== [$(date -u +%H:%M:%S)] sanitizer stage finished (exit ${rc})" >>"$san_log"
  if [[ ${rc} -eq 0 ]]; then
    # The installed consumer (label install: install, then host, Cortex-M7 and x86 consumers
    # built one after the other) is a long serial chain: here it overlaps the targets.
    ctest --test-dir build/host-release -L install --output-on-failure --timeout 900 >>"$san_log" 2>&1 || rc=$?
    echo "=== [$(date -u +%H:%M:%S)] host label install finished (exit ${rc})" >>"$san_log"
  fi
  exit "${rc}"
) &
san_pid=$!
set +m
stage cortex-m4f
stage cortex-m4f-freertos
stage cortex-m7
stage cortex-m7-freertos
stage aarch64
stage x86-64
stage x86-baremetal
stage x86-baremetal-freertos
stamp "waiting for the sanitizer stage"
san_rc=0
wait "${san_pid}" || san_rc=$?
san_pid=""
cat "$san_log" | tee -a "$log"
if [[ ${san_rc} -ne 0 ]]; then
  echo "run-tests: the sanitizer stage failed (exit ${san_rc})"
  exit "${san_rc}"
fi
stage x86-64-freertos
total=$(grep -oE "tests failed out of [0-9]+" "$log" | awk '{n += $5} END {print n + 0}')
stamp "done"
echo "run-tests: host and all targets passed"
echo "${total} passed, 0 failed"
