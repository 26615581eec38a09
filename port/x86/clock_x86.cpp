// talus port for bare-metal 32-bit x86: the time base and critical sections. See
// <talus/rt/port.hpp> and <talus/port/x86.hpp>.
//   time base   the TSC (rdtsc), 64 bits, converted to ns with tsc_hz().
//               Under QEMU with -icount shift=N,sleep=off (toolchains/qemu-x86.sh: N = 3) the
//               TSC returns virtual nanoseconds, i.e. executed instructions << N: tsc_hz() =
//               1 GHz exactly, and now_ns() and the loop statistics are deterministic (at
//               N = 3, one instruction = 8 ns). Without -icount it runs at the host's TSC
//               rate and the 1 GHz assumption is wrong (build with TALUS_X86_TSC_HZ=0).
//               On a real board the TSC counts at a fixed rate only if it is invariant
//               (CPUID 0x80000007 EDX bit 8: every core since Nehalem / Zen), and that rate
//               is not the core clock under turbo or power states: it must be known (CPUID
//               leaf 0x15 where filled in) or measured against a timer of known frequency.
//               TALUS_X86_TSC_HZ=0 does the latter at init(): 10 ms of PIT channel 2
//               (1.193182 MHz), about 100 ppm; an HPET would do better. SMIs (firmware
//               System Management Mode) steal time that no clock here can hide.
//   wait_until  busy-wait on now_ns() (an RTOS would block on a timer interrupt instead).
//   critical    cli with the previous EFLAGS.IF saved; critical_exit restores it. Nestable.
#include <talus/port/x86.hpp>
#include <talus/rt/port.hpp>

namespace {

std::uint64_t g_tsc_hz = TALUS_X86_TSC_HZ;

// TSC ticks during 10 ms of PIT channel 2 (mode 0, gate on through port 0x61, speaker off).
std::uint64_t measure_tsc_hz() {
  using namespace talus::port::x86;
  constexpr std::uint32_t pit_hz = 1193182u, count = 11932u;  // 10.0 ms
  outb(0x61, static_cast<std::uint8_t>((inb(0x61) & ~0x02u) | 0x01u));
  outb(0x43, 0xB0);  // channel 2, lobyte/hibyte, mode 0 (interrupt on terminal count), binary
  outb(0x42, static_cast<std::uint8_t>(count & 0xFFu));
  const std::uint64_t t0 = rdtsc();
  outb(0x42, static_cast<std::uint8_t>(count >> 8));  // counting starts here
  while (!(inb(0x61) & 0x20u)) {                      // OUT2 goes high at terminal count
  }
  const std::uint64_t t1 = rdtsc();
  return (t1 - t0) * pit_hz / count;
}

}  // namespace

namespace talus::port {
namespace x86 {

std::uint64_t tsc_hz() { return g_tsc_hz; }

void clock_init() {
  if (g_tsc_hz == 0) g_tsc_hz = measure_tsc_hz();
}

}  // namespace x86

std::uint64_t now_ns() {
  const std::uint64_t t = x86::rdtsc();
  const std::uint64_t hz = g_tsc_hz;
  if (hz == 1000000000ull) return t;  // QEMU -icount: the TSC counts ns
  return (t / hz) * 1000000000ull + (t % hz) * 1000000000ull / hz;
}

void wait_until(std::uint64_t t_ns) {
  while (now_ns() < t_ns) asm volatile("pause");
}

std::uint64_t cycles() { return x86::rdtsc(); }

std::uint64_t counter_hz() { return g_tsc_hz; }

const char* counter_name() {
  return g_tsc_hz == 1000000000ull ? "TSC (under QEMU -icount shift=N: virtual ns = instructions << N)"
                                   : "TSC (invariant TSC, rate measured against the PIT)";
}

IrqState critical_enter() {
  std::uint32_t flags;
  asm volatile("pushfl\n\tpopl %0\n\tcli" : "=r"(flags)::"memory");
  return flags & 0x200u;  // IF
}

void critical_exit(IrqState previous) {
  if (previous & 0x200u) asm volatile("sti" ::: "memory");
}

}  // namespace talus::port
