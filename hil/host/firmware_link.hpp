#pragma once
// The harness's end of the serial link: starts the firmware and moves bytes to and from it.
//   native  the firmware as a child process, the link on its stdin/stdout (pipes); its stderr
//           (log channel) is the harness's.
//   qemu    qemu-system-arm -M <machine> -icount shift=3 with UART0 on a TCP socket (mps2-an500:
//           Cortex-M7, the default; mps2-an386: Cortex-M4F)
//           (server=on,wait=on,nodelay=on: QEMU starts the CPU once the harness connects;
//           without nodelay a small frame took ~44 ms, ../shared/notes/targets.md); semihosting
//           (the firmware's log channel) on QEMU's stderr. -icount makes instruction counts
//           exact: SysTick ticks at 25 MHz on both boards, one tick = 40/2³ = 5 instructions.
//   qemu, machine pc: qemu-system-i386 -M pc -icount shift=3,sleep=off, bare-metal 32-bit x86
//           (port/x86, e.g. the firmware as a FreeRTOS task): COM1 (the log) on the harness's
//           stderr, COM2 (the link, a 16550) on the TCP socket as above; the exit code comes
//           back through isa-debug-exit ((code << 1) | 1, mapped back by wait_exit). Its TSC
//           counts virtual ns: one instruction = 2^3 ns.
//   tcp     a firmware already running (a board's UART bridged to a TCP port, hil/README.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>

namespace talus_hil {

class FirmwareLink {
 public:
  FirmwareLink() = default;
  FirmwareLink(const FirmwareLink&) = delete;
  FirmwareLink& operator=(const FirmwareLink&) = delete;
  ~FirmwareLink() { stop(); }

  bool start_native(const std::string& program, std::string& err);
  /// machine: mps2-an500, mps2-an386 (qemu-system-arm) or pc (qemu-system-i386).
  bool start_qemu(const std::string& elf, const std::string& machine, std::string& err);
  /// A firmware already running elsewhere (a real board behind a serial-to-TCP bridge):
  /// connects to 127.0.0.1:port.
  bool connect_tcp(int port, std::string& err);

  /// Writes all n bytes (blocking). False if the link is gone.
  bool write(const std::uint8_t* data, std::size_t n);
  /// Reads what is available, waiting at most timeout_ms for the first byte; returns the
  /// count (0 on timeout), -1 if the link is closed.
  long read(std::uint8_t* data, std::size_t n, int timeout_ms);
  /// Waits up to timeout_ms for the firmware to exit; its exit status, or -1 (then it is killed).
  int wait_exit(int timeout_ms);
  void stop();

 private:
  bool connect_loopback(int port, int attempts);
  pid_t pid_ = -1;
  bool x86_ = false;  // qemu-system-i386 (machine pc): the exit code is (code << 1) | 1
  int rfd_ = -1, wfd_ = -1;
};

}  // namespace talus_hil
