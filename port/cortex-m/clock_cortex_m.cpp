// talus port for bare-metal Armv7-M: the time base and critical sections (FreeRTOS has its
// own: port/freertos/clock_freertos.cpp). See <talus/rt/port.hpp> and <talus/port/cortex_m.hpp>.
//   time base   SysTick, processor clock (25 MHz on MPS2), reload 2^24 - 1, wraps counted by
//               its interrupt -> 64-bit tick count -> ns.
//               Under QEMU with -icount shift=N, SysTick advances with executed instructions
//               (one tick = 40 / 2^N instructions at 25 MHz), deterministically.
//   wait_until  busy-wait on now_ns() (a real board may sleep on a timer compare + WFI).
//   critical    PRIMASK (every interrupt masked), nestable through the saved state.
#include <talus/port/cortex_m.hpp>
#include <talus/rt/port.hpp>

namespace {

template <class T = std::uint32_t>
inline volatile T& reg(std::uint32_t address) {
  return *reinterpret_cast<volatile T*>(static_cast<std::uintptr_t>(address));
}

constexpr std::uint32_t SYST_CSR = 0xE000E010u, SYST_RVR = 0xE000E014u, SYST_CVR = 0xE000E018u;
constexpr std::uint32_t SCB_ICSR = 0xE000ED04u;
constexpr std::uint32_t ICSR_PENDSTSET = 1u << 26;
constexpr std::uint32_t SYSTICK_MAX = 0x00FFFFFFu;

volatile std::uint32_t g_systick_wraps = 0;

}  // namespace

extern "C" void SysTick_Handler() { g_systick_wraps = g_systick_wraps + 1; }

namespace talus::port {
namespace cortex_m {

void clock_init() {
  // SysTick: processor clock, interrupt on wrap, full 24-bit range.
  reg(SYST_CSR) = 0;
  reg(SYST_RVR) = SYSTICK_MAX;
  reg(SYST_CVR) = 0;
  reg(SYST_CSR) = 0x7u;  // ENABLE | TICKINT | CLKSOURCE
}

std::uint64_t systick_ticks() {
  std::uint32_t hi, cur, pending;
  do {
    hi = g_systick_wraps;
    cur = reg(SYST_CVR);
    pending = reg(SCB_ICSR) & ICSR_PENDSTSET;
  } while (hi != g_systick_wraps);
  std::uint64_t t = (static_cast<std::uint64_t>(hi) << 24) + (SYSTICK_MAX - cur);
  // Wrapped but the interrupt has not run yet (interrupts masked): count the wrap here.
  if (pending && cur > SYSTICK_MAX / 2) t += std::uint64_t(1) << 24;
  return t;
}

}  // namespace cortex_m

std::uint64_t now_ns() {
  // ticks * 1e9 / core_hz, exact when core_hz divides 1e9 (25 MHz: 40 ns per tick).
  constexpr std::uint64_t hz = cortex_m::core_hz;
  if constexpr (1000000000ull % hz == 0) {
    return cortex_m::systick_ticks() * (1000000000ull / hz);
  } else {
    const std::uint64_t t = cortex_m::systick_ticks();
    return (t / hz) * 1000000000ull + (t % hz) * 1000000000ull / hz;
  }
}

void wait_until(std::uint64_t t_ns) {
  while (now_ns() < t_ns) {
  }
}

std::uint64_t cycles() { return cortex_m::has_cycle_counter() ? cortex_m::cycle_count() : cortex_m::systick_ticks(); }

std::uint64_t counter_hz() { return cortex_m::core_hz; }

const char* counter_name() {
  return cortex_m::has_cycle_counter()
             ? "DWT CYCCNT (core cycles)"
             : "SysTick ticks at the core clock (no DWT CYCCNT; under QEMU -icount shift=N one tick = 40/2^N instructions)";
}

IrqState critical_enter() {
  std::uint32_t primask;
  asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
  return primask;
}

void critical_exit(IrqState previous) { asm volatile("msr primask, %0" ::"r"(previous) : "memory"); }

}  // namespace talus::port
