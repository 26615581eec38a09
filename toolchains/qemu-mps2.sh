#!/usr/bin/env bash
# Runs a bare-metal Cortex-M ELF on a QEMU MPS2 reference board with semihosting and
# returns the program's exit code (semihosting SYS_EXIT_EXTENDED, 0-255).
# Used as CMAKE_CROSSCOMPILING_EMULATOR by toolchains/cortex-m{7,4f}.cmake:
#   qemu-mps2.sh <board> <elf> [ignored args]
# Environment:
#   TALUS_QEMU_TIMEOUT  seconds before the run is killed (default 300); exit code 124 then.
#   TALUS_QEMU_ICOUNT   QEMU -icount shift (default 3: one instruction = 8 ns of virtual time,
#                       SysTick at 25 MHz ticks every 5 instructions; deterministic timing).
#                       "off" runs on host time instead.
#   TALUS_QEMU_ARGS     extra QEMU arguments (e.g. a -serial chardev for the UART).
# UART0 goes to this process's stdout (-nographic with no monitor), semihosting output to
# QEMU's stderr-equivalent console; ctest shows both.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 <board> <elf> [args...]" >&2
  exit 2
fi
board=$1
elf=$2
timeout_s=${TALUS_QEMU_TIMEOUT:-300}
icount=${TALUS_QEMU_ICOUNT:-3}
icount_args=()
if [ "$icount" != "off" ]; then
  icount_args=(-icount "shift=${icount}")
fi
# shellcheck disable=SC2086
timeout --kill-after=5 "$timeout_s" \
  qemu-system-arm -M "$board" -nographic -monitor none -semihosting "${icount_args[@]}" \
  ${TALUS_QEMU_ARGS:-} -kernel "$elf" </dev/null
rc=$?
if [ $rc -eq 124 ]; then
  echo "qemu-mps2.sh: $elf timed out after ${timeout_s} s on $board" >&2
fi
exit $rc
