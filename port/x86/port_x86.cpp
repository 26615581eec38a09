// talus port for bare-metal 32-bit x86. See <talus/rt/port.hpp> and <talus/port/x86.hpp>.
// This file: start-up (after boot_x86.cpp), faults, byte I/O and exit. The time base and the
// critical sections are in clock_x86.cpp; the freestanding C/C++ runtime in runtime_x86.cpp;
// sin, cos, atan2 and hypot in libm_x86.cpp.
//   log         COM1, 16550, polled (QEMU: -serial stdio).
//   link        COM2, 16550, polled; absent (no second -serial) -> link_write returns 0. FIFO
//               trigger level 14 (QEMU moves up to that many bytes per main-loop iteration);
//               a byte received before init() is kept for link_read.
//   exit        QEMU's isa-debug-exit (port 0xf4): QEMU's status is (code << 1) | 1
//               (toolchains/qemu-x86.sh maps it back). On a real board: a reset through the
//               keyboard controller (0x64 <- 0xFE) or a safe-state halt instead.
//   faults      IDT: exceptions 0-31 and every other vector go to talus_x86_exception: hook,
//               report on COM1, exit 3. The 8259 PICs are masked at init (the BIOS leaves
//               the master at vector 8, where IRQ 0 would look like a double fault); the
//               port itself never enables interrupts.
#include <talus/port/x86.hpp>
#include <talus/rt/port.hpp>

#include "../common/fault_hook.hpp"

extern "C" {
// boot_x86.cpp: the exception stubs (0-31, then the catch-all for every other vector).
extern const std::uint32_t talus_x86_exc_table[33];
// multiboot.ld
using InitFn = void (*)();
extern InitFn __init_array_start[], __init_array_end[];
int main();
void talus_x86_init();
[[noreturn]] void talus_x86_exit(int code);
[[noreturn]] void talus_x86_exception(const std::uint32_t* frame);
}

namespace {

using namespace talus::port::x86;

struct __attribute__((packed)) IdtGate {
  std::uint16_t offset_lo;
  std::uint16_t selector;
  std::uint8_t zero;
  std::uint8_t flags;
  std::uint16_t offset_hi;
};
struct __attribute__((packed)) IdtDescriptor {
  std::uint16_t limit;
  std::uint32_t base;
};

IdtGate g_idt[256];
bool g_have_link = false;
std::uint8_t g_early_byte = 0;  // a link byte received before init() (init, link_read)
bool g_have_early_byte = false;

void log_str(const char* s) {
  while (*s) uart_put(TALUS_X86_LOG_UART, static_cast<std::uint8_t>(*s++));
}

void log_hex(std::uint32_t v) {
  char buf[11];
  talus::port::detail::format_hex(v, buf);
  log_str(buf);
}

void idt_init() {
  for (int v = 0; v < 256; ++v) {
    const std::uint32_t stub = talus_x86_exc_table[v < 32 ? v : 32];
    g_idt[v].offset_lo = static_cast<std::uint16_t>(stub & 0xFFFFu);
    g_idt[v].selector = 0x08;
    g_idt[v].zero = 0;
    g_idt[v].flags = 0x8E;  // present, ring 0, 32-bit interrupt gate
    g_idt[v].offset_hi = static_cast<std::uint16_t>(stub >> 16);
  }
  const IdtDescriptor d{sizeof(g_idt) - 1, static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(g_idt))};
  asm volatile("lidt %0" ::"m"(d));
}

const char* exception_name(std::uint32_t v) {
  static const char* const names[] = {"#DE divide error",
                                      "#DB debug",
                                      "NMI",
                                      "#BP breakpoint",
                                      "#OF overflow",
                                      "#BR bound range",
                                      "#UD invalid opcode",
                                      "#NM device not available",
                                      "#DF double fault",
                                      "coprocessor segment overrun",
                                      "#TS invalid TSS",
                                      "#NP segment not present",
                                      "#SS stack fault",
                                      "#GP general protection",
                                      "#PF page fault",
                                      "reserved",
                                      "#MF x87 floating-point error",
                                      "#AC alignment check",
                                      "#MC machine check",
                                      "#XM SIMD floating-point exception",
                                      "#VE virtualization"};
  if (v < sizeof(names) / sizeof(names[0])) return names[v];
  return v < 32 ? "reserved exception" : "unexpected interrupt";
}

[[noreturn]] void report_and_exit(const talus::port::FaultInfo& info, std::uint32_t vector) {
  if (const talus::port::FaultHook hook = talus::port::detail::fault_hook()) hook(info);
  log_str("talus/port: fault: ");
  log_str(info.reason);
  log_str(" vector=");
  log_hex(vector);
  log_str(" eip=");
  log_hex(static_cast<std::uint32_t>(info.pc));
  log_str(" error=");
  log_hex(info.status);
  log_str(" cr2=");
  log_hex(static_cast<std::uint32_t>(info.address));
  log_str("\n");
  talus_x86_exit(talus::port::fault_exit_code);
}

}  // namespace

// boot_x86.cpp, interrupts off: IDT, PICs masked, port (COM1, COM2, clock), static constructors.
extern "C" void talus_x86_init() {
  idt_init();
  outb(0x21, 0xFF);  // 8259 master: every IRQ masked
  outb(0xA1, 0xFF);  // 8259 slave
  talus::port::init();
  for (InitFn* f = __init_array_start; f != __init_array_end; ++f) (*f)();
}

extern "C" void talus_x86_exit(int code) {
  // QEMU: isa-debug-exit ends the emulator with status (code << 1) | 1.
  outl(TALUS_X86_DEBUG_EXIT_PORT, static_cast<std::uint32_t>(code));
  // No such device (a real board, or QEMU without it): stop here.
  for (;;) asm volatile("cli\n\thlt");
}

// frame: vector, error code, EIP, CS, EFLAGS (boot_x86.cpp).
extern "C" void talus_x86_exception(const std::uint32_t* frame) {
  talus::port::FaultInfo info;
  const std::uint32_t vector = frame[0];
  info.reason = exception_name(vector);
  info.status = frame[1];
  info.pc = frame[2];
  if (vector == 14) {
    std::uint32_t cr2;
    asm volatile("mov %%cr2, %0" : "=r"(cr2));
    info.address = cr2;
  }
  report_and_exit(info, vector);
}

namespace talus::port {
namespace x86 {

bool uart_init(std::uint16_t base, std::uint32_t baud) {
  // Scratch register (base + 7): reads back what was written only if a 16550 is there.
  outb(static_cast<std::uint16_t>(base + 7), 0x5A);
  if (inb(static_cast<std::uint16_t>(base + 7)) != 0x5A) return false;
  const std::uint32_t divisor = baud ? 115200u / baud : 1u;
  outb(static_cast<std::uint16_t>(base + 1), 0x00);  // IER: no interrupts
  outb(static_cast<std::uint16_t>(base + 3), 0x80);  // LCR: DLAB
  outb(static_cast<std::uint16_t>(base + 0), static_cast<std::uint8_t>(divisor & 0xFFu));
  outb(static_cast<std::uint16_t>(base + 1), static_cast<std::uint8_t>(divisor >> 8));
  outb(static_cast<std::uint16_t>(base + 3), 0x03);  // 8N1
  // FIFO on, cleared, receive trigger level 14 bytes. The level matters under QEMU even when
  // polled: its 16550 accepts from the serial backend at most the bytes up to the level per
  // main-loop iteration (level 1 byte: one byte per iteration, ~30 ms for a 160-byte frame).
  outb(static_cast<std::uint16_t>(base + 2), 0xC7);
  outb(static_cast<std::uint16_t>(base + 4), 0x03);  // DTR, RTS
  return true;
}

void uart_put(std::uint16_t base, std::uint8_t byte) {
  while (!(inb(static_cast<std::uint16_t>(base + 5)) & 0x20u)) {  // LSR.THRE
  }
  outb(base, byte);
}

bool uart_get(std::uint16_t base, std::uint8_t& byte) {
  if (!(inb(static_cast<std::uint16_t>(base + 5)) & 0x01u)) return false;  // LSR.DR
  byte = inb(base);
  return true;
}

}  // namespace x86

void init() {
  x86::uart_init(TALUS_X86_LOG_UART, 115200);
  // A byte the link received before init sits in the receive buffer register (FIFO off after
  // reset): switching the FIFO on discards it, so it is kept for link_read. Under QEMU the
  // peer's first byte arrives there as soon as the CPU starts (a HIL harness sends its first
  // frame at once); on a board, whatever came before init.
  const std::uint16_t link = TALUS_X86_LINK_UART;
  if (x86::inb(static_cast<std::uint16_t>(link + 5)) & 0x01u) {
    g_early_byte = x86::inb(link);
    g_have_early_byte = true;
  }
  g_have_link = x86::uart_init(TALUS_X86_LINK_UART, 115200);
  x86::clock_init();
}

void exit(int code) {
  // atexit handlers and static destructors do not run: firmware never exits, and the test
  // programs have nothing to destroy (runtime_x86.cpp's atexit registers nothing).
  talus_x86_exit(code);
}

void fault(const char* reason) {
  FaultInfo info;
  info.reason = reason;
  info.pc = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  report_and_exit(info, 0xFFFFFFFFu);
}

void log_write(const char* data, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x86::uart_put(TALUS_X86_LOG_UART, static_cast<std::uint8_t>(data[i]));
}

std::size_t link_write(const void* data, std::size_t n) {
  if (!g_have_link) return 0;
  const std::uint8_t* p = static_cast<const std::uint8_t*>(data);
  for (std::size_t i = 0; i < n; ++i) x86::uart_put(TALUS_X86_LINK_UART, p[i]);
  return n;
}

std::size_t link_read(void* data, std::size_t n) {
  if (!g_have_link) return 0;
  std::uint8_t* p = static_cast<std::uint8_t*>(data);
  std::size_t k = 0;
  if (g_have_early_byte && n > 0) {
    g_have_early_byte = false;
    p[k++] = g_early_byte;
  }
  while (k < n && x86::uart_get(TALUS_X86_LINK_UART, p[k])) ++k;
  return k;
}

}  // namespace talus::port
