#!/usr/bin/env bash
# Runs a bare-metal 32-bit x86 ELF (Multiboot 1, port/x86) on qemu-system-i386 (machine pc)
# and returns the program's exit code. Used as CMAKE_CROSSCOMPILING_EMULATOR by
# toolchains/i686-baremetal.cmake:
#   qemu-x86.sh <elf> [ignored args]
# The program ends by writing its code v to the isa-debug-exit port 0xf4 (talus::port::exit);
# QEMU then exits with ((v << 1) | 1) & 0xff, mapped back to v here. Any even status from QEMU
# is a failure (99): QEMU's own 0 means the guest did not exit through the port (a triple
# fault with -no-reboot, or a shutdown), so 0 never reads as success by accident.
# Environment:
#   TALUS_QEMU_TIMEOUT  seconds before the run is killed (default 300); exit code 124 then.
#   TALUS_QEMU_ICOUNT   QEMU -icount shift (default 3: one instruction = 8 ns of virtual time,
#                       and the TSC counts virtual ns; deterministic). sleep=off: idle time does
#                       not follow the host clock. "off" runs on host time instead.
#   TALUS_QEMU_ARGS     extra QEMU arguments (e.g. -serial for COM2, the link channel).
# COM1 (talus::port::log_write) goes to this process's stdout.
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 <elf> [args...]" >&2
  exit 2
fi
elf=$1
timeout_s=${TALUS_QEMU_TIMEOUT:-300}
icount=${TALUS_QEMU_ICOUNT:-3}
icount_args=()
if [ "$icount" != "off" ]; then
  icount_args=(-icount "shift=${icount},sleep=off")
fi
# shellcheck disable=SC2086
timeout --kill-after=5 "$timeout_s" \
  qemu-system-i386 -M pc -display none -monitor none -serial stdio -no-reboot \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04 "${icount_args[@]}" \
  ${TALUS_QEMU_ARGS:-} -kernel "$elf" </dev/null
rc=$?
if [ $rc -eq 124 ]; then
  echo "qemu-x86.sh: $elf timed out after ${timeout_s} s" >&2
  exit 124
fi
if [ $((rc & 1)) -eq 1 ]; then
  exit $((rc >> 1))
fi
echo "qemu-x86.sh: $elf did not exit through isa-debug-exit (QEMU status $rc)" >&2
exit 99
