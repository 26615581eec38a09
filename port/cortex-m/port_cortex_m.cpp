// talus port for bare-metal Armv7-M. See <talus/rt/port.hpp> and <talus/port/cortex_m.hpp>.
// This file: what bare metal and FreeRTOS (port/freertos) share on Cortex-M. The time base
// (now_ns, wait_until, cycles, critical sections, SysTick) is in clock_cortex_m.cpp (bare
// metal) or port/freertos/clock_freertos.cpp (FreeRTOS owns SysTick).
//   counter     DWT CYCCNT (core cycles) where it runs (real silicon); QEMU does not emulate
//               it (it reads 0), so cycles() falls back to SysTick ticks there.
//   log         semihosting console (SYS_WRITE on ":tt").
//   link        CMSDK APB UART0, polled.
//   exit        semihosting SYS_EXIT_EXTENDED (QEMU's exit status), not newlib's exit().
//   faults      HardFault handler: hook, report over semihosting, exit 3 (SYS_EXIT_EXTENDED).
#include <talus/port/cortex_m.hpp>
#include <talus/rt/port.hpp>

#include "../common/fault_hook.hpp"

// Weak: present only if the program uses newlib stdio (printf, ...), which then links them.
// Nothing here may reference newlib's exit(): through librdimon's _exit it drags stdio
// initialisation and malloc into every image.
extern "C" {
__attribute__((weak)) int fflush(struct __sFILE* stream);
// Linker script (mps2.ld): the stack region.
extern std::uint32_t _sstack, _estack;
}

namespace {

template <class T = std::uint32_t>
inline volatile T& reg(std::uint32_t address) {
  return *reinterpret_cast<volatile T*>(static_cast<std::uintptr_t>(address));
}

// System control space
constexpr std::uint32_t SCB_CFSR = 0xE000ED28u, SCB_HFSR = 0xE000ED2Cu;
constexpr std::uint32_t SCB_MMFAR = 0xE000ED34u, SCB_BFAR = 0xE000ED38u, SCB_DEMCR = 0xE000EDFCu;
constexpr std::uint32_t DWT_CTRL = 0xE0001000u, DWT_CYCCNT = 0xE0001004u;

// CMSDK UART
constexpr std::uint32_t UART_DATA = TALUS_CORTEX_M_UART_BASE + 0x0, UART_STATE = TALUS_CORTEX_M_UART_BASE + 0x4;
constexpr std::uint32_t UART_CTRL = TALUS_CORTEX_M_UART_BASE + 0x8, UART_BAUDDIV = TALUS_CORTEX_M_UART_BASE + 0x10;

// Semihosting operations
constexpr int SYS_OPEN = 0x01, SYS_WRITE = 0x05, SYS_WRITE0 = 0x04, SYS_EXIT = 0x18, SYS_EXIT_EXTENDED = 0x20;
constexpr std::uint32_t ADP_Stopped_ApplicationExit = 0x20026u;

bool g_have_cyccnt = false;
int g_console = -1;  // semihosting handle of ":tt" (write)

void console_str(const char* s) { talus::port::cortex_m::semihost_call(SYS_WRITE0, s); }

void console_hex(std::uint32_t v) {
  char buf[11];
  talus::port::detail::format_hex(v, buf);
  console_str(buf);
}

[[noreturn]] void report_and_exit(const talus::port::FaultInfo& info, std::uint32_t hfsr) {
  if (const talus::port::FaultHook hook = talus::port::detail::fault_hook()) hook(info);
  console_str("talus/port: fault: ");
  console_str(info.reason);
  console_str(" pc=");
  console_hex(static_cast<std::uint32_t>(info.pc));
  console_str(" lr=");
  console_hex(static_cast<std::uint32_t>(info.lr));
  console_str(" cfsr=");
  console_hex(info.status);
  console_str(" hfsr=");
  console_hex(hfsr);
  console_str(" addr=");
  console_hex(static_cast<std::uint32_t>(info.address));
  console_str("\n");
  talus::port::cortex_m::semihost_exit(talus::port::fault_exit_code);
}

}  // namespace

extern "C" [[noreturn]] void talus_cortex_m_fault(const std::uint32_t* frame, std::uint32_t exc_return) {
  (void)exc_return;
  talus::port::FaultInfo info;
  info.reason = "HardFault";
  info.lr = frame[5];
  info.pc = frame[6];
  info.status = reg(SCB_CFSR);
  const std::uint32_t cfsr = info.status;
  if (cfsr & (1u << 7)) info.address = reg(SCB_MMFAR);       // MMARVALID
  else if (cfsr & (1u << 15)) info.address = reg(SCB_BFAR);  // BFARVALID
  report_and_exit(info, reg(SCB_HFSR));
}

namespace talus::port {
namespace cortex_m {

int semihost_call(int op, const void* arg) {
  register int r0 asm("r0") = op;
  register const void* r1 asm("r1") = arg;
  asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void semihost_write(const char* data, std::size_t n) {
  if (g_console < 0) return;
  std::uint32_t args[3] = {static_cast<std::uint32_t>(g_console),
                           static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(data)),
                           static_cast<std::uint32_t>(n)};
  semihost_call(SYS_WRITE, args);
}

void semihost_exit(int code) {
  std::uint32_t args[2] = {ADP_Stopped_ApplicationExit, static_cast<std::uint32_t>(code)};
  semihost_call(SYS_EXIT_EXTENDED, args);
  // A debugger without SYS_EXIT_EXTENDED: plain SYS_EXIT (status lost), then stop here.
  semihost_call(SYS_EXIT, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(ADP_Stopped_ApplicationExit)));
  for (;;) asm volatile("wfi");
}

bool has_cycle_counter() { return g_have_cyccnt; }

std::uint64_t cycle_count() {
  // 32-bit CYCCNT extended to 64 bits; valid when called at least once per 2^32 cycles.
  static std::uint32_t last = 0;
  static std::uint64_t high = 0;
  const IrqState s = critical_enter();
  const std::uint32_t c = reg(DWT_CYCCNT);
  if (c < last) high += std::uint64_t(1) << 32;
  last = c;
  const std::uint64_t r = high | c;
  critical_exit(s);
  return r;
}

std::size_t stack_high_water() {
  const volatile std::uint32_t* p = &_sstack;
  while (p < &_estack && *p == stack_paint_word) ++p;
  return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(&_estack) - reinterpret_cast<std::uintptr_t>(p));
}

std::size_t stack_size() {
  return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(&_estack) -
                                  reinterpret_cast<std::uintptr_t>(&_sstack));
}

void uart_init(std::uint32_t baud) {
  reg(UART_CTRL) = 0;
  reg(UART_BAUDDIV) = core_hz / baud;  // ≥ 16 required by the CMSDK UART
  reg(UART_CTRL) = 3;                  // TX and RX enable, no interrupts
}

void uart_put(std::uint8_t byte) {
  while (reg(UART_STATE) & 1u) {
  }
  reg(UART_DATA) = byte;
}

bool uart_get(std::uint8_t& byte) {
  if (!(reg(UART_STATE) & 2u)) return false;
  byte = static_cast<std::uint8_t>(reg(UART_DATA));
  return true;
}

}  // namespace cortex_m

void init() {
  // DWT CYCCNT: enable trace (DEMCR.TRCENA), check NOCYCCNT, start it, see that it moves.
  reg(SCB_DEMCR) = reg(SCB_DEMCR) | (1u << 24);
  if (!(reg(DWT_CTRL) & (1u << 25))) {
    reg(DWT_CYCCNT) = 0;
    reg(DWT_CTRL) = reg(DWT_CTRL) | 1u;
    for (int i = 0; i < 16; ++i) asm volatile("nop");
    g_have_cyccnt = reg(DWT_CYCCNT) != 0;
  }
  // Semihosting console for log_write (":tt" opened for writing is the debugger's stdout).
  static const char tt[] = ":tt";
  const std::uint32_t open_args[3] = {static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(tt)), 4u, 3u};
  g_console = cortex_m::semihost_call(SYS_OPEN, open_args);
  cortex_m::uart_init(TALUS_CORTEX_M_UART_BAUD);
  cortex_m::clock_init();
}

void exit(int code) {
  // Flush newlib stdio if the program used it, then report `code` with semihosting
  // SYS_EXIT_EXTENDED (QEMU exits with it). atexit handlers and static destructors do not
  // run: firmware never exits, and the test programs have nothing to destroy.
  if (fflush) fflush(nullptr);
  cortex_m::semihost_exit(code);
}

void fault(const char* reason) {
  FaultInfo info;
  info.reason = reason;
  info.lr = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  std::uint32_t ipsr;
  asm volatile("mrs %0, ipsr" : "=r"(ipsr));
  info.status = ipsr;  // exception number when called from a handler, else 0
  report_and_exit(info, 0);
}

void log_write(const char* data, std::size_t n) { cortex_m::semihost_write(data, n); }

std::size_t link_write(const void* data, std::size_t n) {
  const std::uint8_t* p = static_cast<const std::uint8_t*>(data);
  for (std::size_t i = 0; i < n; ++i) cortex_m::uart_put(p[i]);
  return n;
}

std::size_t link_read(void* data, std::size_t n) {
  std::uint8_t* p = static_cast<std::uint8_t*>(data);
  std::size_t k = 0;
  while (k < n && cortex_m::uart_get(p[k])) ++k;
  return k;
}

}  // namespace talus::port
