#pragma once
/// \file rt/port.hpp
/// The porting interface (declared here, with the rt layer that uses it; implemented in
/// `port/<family>/`): the only functions through which talus (the rt layer and the
/// programs built on it) touches hardware or an operating system. One implementation per
/// target family is linked into the executable:
///   port/posix      Linux (x86-64, aarch64), PREEMPT_RT friendly
///   port/cortex-m   bare metal Armv7-M (QEMU mps2-an500 / mps2-an386 reference boards)
///
/// Rules every implementation keeps: no heap, no exceptions, no blocking except in
/// wait_until(); every function may be called after init() from the control thread (or the
/// main loop on bare metal). Times are nanoseconds of a monotonic clock as 64-bit unsigned
/// integers (wraps after 584 years).
#include <cstddef>
#include <cstdint>

namespace talus::port {

// --- life cycle -----------------------------------------------------------------------------

/// Start the time base and the counter, open the log and link channels. Call once, before
/// any other function (on Cortex-M the startup code calls it before main()).
void init();

/// End the program with `code` (0 = success). POSIX: exit(code). Cortex-M under QEMU:
/// semihosting exit, `code` becomes QEMU's exit status; on a real board: reset or halt.
[[noreturn]] void exit(int code);

// --- time -----------------------------------------------------------------------------------

/// Monotonic time in ns since an arbitrary origin (POSIX: CLOCK_MONOTONIC; Cortex-M: SysTick
/// extended to 64 bits). Never goes backwards.
std::uint64_t now_ns();

/// Sleep or spin until now_ns() >= t_ns (absolute time, so periods do not drift). Returns at
/// once if t_ns is in the past.
void wait_until(std::uint64_t t_ns);

/// Free-running cycle or instruction counter, 64 bits, for execution-time measurements
/// finer than now_ns(). What it counts depends on the target: counter_name() says it.
std::uint64_t cycles();

/// Ticks of cycles() per second (0 if not a fixed frequency, e.g. QEMU -icount instructions).
std::uint64_t counter_hz();

/// Human-readable name of what cycles() counts ("DWT CYCCNT", "SysTick (25 MHz)", ...).
const char* counter_name();

// --- critical section -----------------------------------------------------------------------

/// Opaque saved interrupt state.
using IrqState = std::uint32_t;

/// Mask interrupts (bare metal) or do nothing (POSIX, single control thread); returns the
/// previous state for critical_exit(). Nestable.
IrqState critical_enter();
void critical_exit(IrqState previous);

/// RAII critical section.
class CriticalSection {
 public:
  CriticalSection() : saved_(critical_enter()) {}
  ~CriticalSection() { critical_exit(saved_); }
  CriticalSection(const CriticalSection&) = delete;
  CriticalSection& operator=(const CriticalSection&) = delete;

 private:
  IrqState saved_;
};

// --- faults ---------------------------------------------------------------------------------

/// What is known about a fault when the hook runs.
struct FaultInfo {
  const char* reason = "";     ///< "HardFault", "SIGSEGV", or the text given to fault()
  std::uintptr_t pc = 0;       ///< faulting instruction, when known
  std::uintptr_t lr = 0;       ///< link register at the fault (Cortex-M), else 0
  std::uintptr_t address = 0;  ///< faulting data address, when known (MMFAR/BFAR, si_addr)
  std::uint32_t status = 0;    ///< CFSR (Cortex-M) or signal number (POSIX)
};

/// Called first when a fault happens (hardware fault, fatal signal, or fault()): put the
/// actuators in a safe state there. It runs in fault context: keep it short, no heap.
using FaultHook = void (*)(const FaultInfo&);

/// Install the hook (nullptr: none). Returns the previous hook.
FaultHook set_fault_hook(FaultHook hook);

/// Software fault: calls the hook, reports `reason` on the log channel and ends the program
/// with a non-zero code (3).
[[noreturn]] void fault(const char* reason);

/// Exit code of a program ended by a fault.
inline constexpr int fault_exit_code = 3;

// --- byte I/O -------------------------------------------------------------------------------

/// Log / diagnostics channel (POSIX: stderr; Cortex-M under QEMU: semihosting console).
/// Blocking; writes all n bytes.
void log_write(const char* data, std::size_t n);

/// Link channel to a host or supervisor (POSIX: a file descriptor set by the program, none
/// by default; Cortex-M: UART0). link_write blocks until all bytes are queued and returns n
/// (0 if there is no link); link_read never blocks and returns the bytes available (≤ n).
std::size_t link_write(const void* data, std::size_t n);
std::size_t link_read(void* data, std::size_t n);

}  // namespace talus::port
