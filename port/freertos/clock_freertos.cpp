// talus port under FreeRTOS: the time base, wait_until, critical sections and the kernel's
// hooks. Everything else (start-up, faults, exit, log and link I/O) is the family's own port,
// linked beside this file: port/cortex-m/port_cortex_m.cpp on Cortex-M (semihosting, UART0),
// port/x86/port_x86.cpp on bare-metal x86 (COM1, IDT faults; GCC_IA32_FLAT kernel port),
// port/posix/port_posix.cpp on Linux (GCC_POSIX kernel port). See <talus/rt/port.hpp> and
// <talus/port/freertos.hpp>.
//
//   now_ns      the kernel's tick count (extended to 64 bits) × the tick period, plus the time
//               since that tick: SysTick's count within the tick on Cortex-M (40 ns steps at
//               25 MHz), the local APIC timer's count within the tick on x86 (16 ns steps at
//               QEMU's 1 GHz APIC clock), CLOCK_MONOTONIC since the tick hook ran on POSIX
//               (clamped below one tick). Monotonic; while the scheduler is suspended
//               (vTaskSuspendAll) it stands still at the last value. Before the scheduler
//               starts it reads 0.
//   wait_until  xTaskDelayUntil to the kernel tick that contains t (the task blocks; lower
//               priorities run), then a spin of less than one tick for the rest. Periods
//               that are whole ticks and start on a tick (ControlTask does that) spin for
//               nothing. Before the scheduler starts it returns at once.
//   critical    taskENTER_CRITICAL / taskEXIT_CRITICAL in a task (BASEPRI: interrupts above
//               configMAX_SYSCALL_INTERRUPT_PRIORITY stay live), taskENTER_CRITICAL_FROM_ISR
//               in an interrupt handler (Cortex-M: BASEPRI; x86: the APIC task priority).
//   x86         clock_init (port::init, at boot) puts talus's fault handlers (vectors 0-31)
//               into the kernel port's IDT, and talus_x86_fpu_context gives each task its
//               fxsave area (FreeRTOSConfig.h: the FPU / SSE state across switches).
//   hooks       stack overflow (configCHECK_FOR_STACK_OVERFLOW 2), malloc failed (when a
//               firmware's configuration enables it) and configASSERT call talus::port::fault
//               (the fault hook runs, the program ends with code 3).
#include <talus/port/freertos.hpp>
#include <talus/rt/port.hpp>

#include "FreeRTOS.h"
#include "task.h"

#if defined(TALUS_FREERTOS_X86) && !defined(TALUS_X86_FREERTOS_FPU_CONTEXTS)
/// x86: how many tasks (the idle task included) can exist: each has a 512-byte fxsave area.
#define TALUS_X86_FREERTOS_FPU_CONTEXTS 16
#endif
#if defined(TALUS_FREERTOS_X86)
extern "C" volatile std::uint32_t ulInterruptNesting;  // the kernel port's (port.c)
extern "C" void vPortSetupIDT(void);                   // port.c (not in portmacro.h)
#endif

#if defined(TALUS_FREERTOS_CORTEX_M)
#include <talus/port/cortex_m.hpp>
#elif defined(TALUS_FREERTOS_X86)
#include <talus/port/x86.hpp>
#else
#include <time.h>
#endif

namespace {

constexpr std::uint64_t kTickNs = 1000000000ull / configTICK_RATE_HZ;
static_assert(1000000000ull % configTICK_RATE_HZ == 0, "talus/freertos: configTICK_RATE_HZ must divide 1e9");

// 64-bit tick count from the kernel's 32-bit one (read at least once per 2^32 ticks: 49 days
// at 1 kHz); called inside a critical section.
std::uint32_t g_last_tick = 0;
std::uint64_t g_tick_high = 0;
std::uint64_t g_last_ns = 0;  // monotonic guard (scheduler suspended: ticks pend)

std::uint64_t extend(std::uint32_t k) {
  if (k < g_last_tick) g_tick_high += std::uint64_t(1) << 32;
  g_last_tick = k;
  return g_tick_high | k;
}

#if defined(TALUS_FREERTOS_CORTEX_M) || defined(TALUS_FREERTOS_X86)
template <class T = std::uint32_t>
inline volatile T& reg(std::uint32_t address) {
  return *reinterpret_cast<volatile T*>(static_cast<std::uintptr_t>(address));
}
// The kernel's tick timer: a down-counter reloaded each tick, and the register and bit that
// show its interrupt pending.
struct TickTimer {
  std::uint32_t reload, current, pending, pending_bit;
  std::uint64_t count_hz;  // the counter's clock
};
#if defined(TALUS_FREERTOS_CORTEX_M)
// SysTick at the core clock (the kernel programs its reload); pending: ICSR.PENDSTSET.
constexpr TickTimer kTimer{0xE000E014u, 0xE000E018u, 0xE000ED04u, 1u << 26, configCPU_CLOCK_HZ};
#else
static_assert(TALUS_X86_TSC_HZ != 0, "talus/freertos x86: TALUS_X86_TSC_HZ must be known (no PIT measurement here)");
// The local APIC timer (configAPIC_BASE): initial and current count; pending: the interrupt
// request register word holding the tick vector (portAPIC_TIMER_INT_VECTOR, 0x21). The port
// divides the APIC clock (configCPU_CLOCK_HZ) by 16.
constexpr TickTimer kTimer{configAPIC_BASE + 0x380u, configAPIC_BASE + 0x390u,
                           configAPIC_BASE + 0x200u + 0x10u * (portAPIC_TIMER_INT_VECTOR / 32),
                           1u << (portAPIC_TIMER_INT_VECTOR % 32), configCPU_CLOCK_HZ / 16};
#endif

// (kernel ticks, timer counts into the current tick), consistent: inside a critical section
// the tick interrupt cannot run, but the timer keeps counting and may reload; a pending tick
// with a freshly reloaded counter means the reload happened before the read.
void read_ticks(std::uint64_t& ticks, std::uint32_t& sub, std::uint32_t& per_tick) {
  const std::uint32_t reload = reg(kTimer.reload);
  std::uint32_t k = static_cast<std::uint32_t>(xTaskGetTickCount());
  const std::uint32_t cur = reg(kTimer.current);
  const bool pending = (reg(kTimer.pending) & kTimer.pending_bit) != 0;
  if (pending && cur > reload / 2) ++k;
  ticks = extend(k);
  sub = reload - cur;
  per_tick = reload + 1;
}
#else
volatile std::uint64_t g_tick_mono_ns = 0;  // CLOCK_MONOTONIC when the last tick ran

std::uint64_t mono_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}
#endif

bool in_isr() {
#if defined(TALUS_FREERTOS_CORTEX_M)
  return xPortIsInsideInterrupt() == pdTRUE;
#elif defined(TALUS_FREERTOS_X86)
  return ulInterruptNesting != 0;
#else
  return false;
#endif
}

constexpr talus::port::IrqState kFromIsr = 0x80000000u;

}  // namespace

namespace talus::port {

std::uint64_t now_ns() {
  if (xTaskGetSchedulerState() == taskSCHEDULER_NOT_STARTED) return 0;
  const IrqState s = critical_enter();
#if defined(TALUS_FREERTOS_CORTEX_M) || defined(TALUS_FREERTOS_X86)
  std::uint64_t ticks;
  std::uint32_t sub, per_tick;
  read_ticks(ticks, sub, per_tick);
  // When the timer's clock divides 1e9 (SysTick at 25 MHz: 40 ns; the APIC timer at 1 GHz / 16:
  // 16 ns), one count is a whole number of ns and no 64-bit division is needed.
  std::uint64_t t = ticks * kTickNs;
  if constexpr (1000000000ull % kTimer.count_hz == 0 && kTimer.count_hz % configTICK_RATE_HZ == 0) {
    (void)per_tick;
    t += static_cast<std::uint64_t>(sub) * (1000000000ull / kTimer.count_hz);
  } else {
    t += static_cast<std::uint64_t>(sub) * kTickNs / per_tick;
  }
#else
  const std::uint64_t ticks = extend(static_cast<std::uint32_t>(xTaskGetTickCount()));
  const std::uint64_t since = mono_ns() - g_tick_mono_ns;
  std::uint64_t t = ticks * kTickNs + (since < kTickNs ? since : kTickNs - 1);
#endif
  if (t < g_last_ns) t = g_last_ns;
  g_last_ns = t;
  critical_exit(s);
  return t;
}

void wait_until(std::uint64_t t_ns) {
  if (xTaskGetSchedulerState() != taskSCHEDULER_RUNNING || in_isr()) return;
  for (;;) {
    const IrqState s = critical_enter();
    const std::uint64_t now_tick = extend(static_cast<std::uint32_t>(xTaskGetTickCount()));
    critical_exit(s);
    const std::uint64_t target_tick = t_ns / kTickNs;  // the tick that contains t_ns
    if (target_tick <= now_tick) break;
    TickType_t wake = static_cast<TickType_t>(now_tick);
    (void)xTaskDelayUntil(&wake, static_cast<TickType_t>(target_tick - now_tick));
  }
  while (now_ns() < t_ns) {  // less than one tick
  }
}

#if defined(TALUS_FREERTOS_CORTEX_M)
namespace cortex_m {
void clock_init() {}  // SysTick belongs to the scheduler (vPortSetupTimerInterrupt)

std::uint64_t systick_ticks() {
  if (xTaskGetSchedulerState() == taskSCHEDULER_NOT_STARTED) return 0;
  const IrqState s = critical_enter();
  std::uint64_t ticks;
  std::uint32_t sub, per_tick;
  read_ticks(ticks, sub, per_tick);
  critical_exit(s);
  return ticks * per_tick + sub;
}
}  // namespace cortex_m

std::uint64_t cycles() { return cortex_m::has_cycle_counter() ? cortex_m::cycle_count() : cortex_m::systick_ticks(); }
std::uint64_t counter_hz() { return cortex_m::core_hz; }
const char* counter_name() {
  return cortex_m::has_cycle_counter()
             ? "DWT CYCCNT (core cycles)"
             : "SysTick ticks at the core clock under FreeRTOS (no DWT CYCCNT; under QEMU -icount shift=N one tick = 40/2^N instructions)";
}
#endif

#if defined(TALUS_FREERTOS_X86)
namespace x86 {
std::uint64_t tsc_hz() { return TALUS_X86_TSC_HZ; }

namespace {
struct __attribute__((packed)) IdtDescriptor {
  std::uint16_t limit;
  std::uint32_t base;
};
IdtDescriptor sidt() {
  IdtDescriptor d;
  asm volatile("sidt %0" : "=m"(d));
  return d;
}
}  // namespace

// port::init() at boot (interrupts off): the kernel port's IDT (a static table in port.c)
// with talus's fault handlers. vPortSetupIDT fills every empty gate of it with the port's
// central interrupt wrapper and loads it; exceptions 0-31 would then end there (it finds no
// APIC in-service bit and returns: a fault would loop silently). Their gates are copied from
// talus's IDT (port_x86.cpp) over the wrapper's; xPortStartScheduler's own vPortSetupIDT
// call later keeps every gate that is not empty, and adds the tick, yield, APIC error and
// spurious vectors.
void clock_init() {
  const IdtDescriptor talus_idt = sidt();
  vPortSetupIDT();
  const IdtDescriptor kernel_idt = sidt();
  const auto* from = reinterpret_cast<const std::uint32_t*>(static_cast<std::uintptr_t>(talus_idt.base));
  auto* to = reinterpret_cast<volatile std::uint32_t*>(static_cast<std::uintptr_t>(kernel_idt.base));
  for (int i = 0; i < 2 * 32; ++i) to[i] = from[i];  // 32 gates of 8 bytes
}
}  // namespace x86

std::uint64_t cycles() { return x86::rdtsc(); }
std::uint64_t counter_hz() { return TALUS_X86_TSC_HZ; }
const char* counter_name() {
  return TALUS_X86_TSC_HZ == 1000000000ull
             ? "TSC under FreeRTOS (under QEMU -icount shift=N: virtual ns = instructions << N)"
             : "TSC under FreeRTOS (TALUS_X86_TSC_HZ)";
}
#endif

IrqState critical_enter() {
  if (in_isr()) return static_cast<IrqState>(taskENTER_CRITICAL_FROM_ISR()) | kFromIsr;
  taskENTER_CRITICAL();
  return 0;
}

void critical_exit(IrqState previous) {
  if (previous & kFromIsr) {
    taskEXIT_CRITICAL_FROM_ISR(static_cast<UBaseType_t>(previous & ~kFromIsr));
    return;
  }
  taskEXIT_CRITICAL();
}

namespace freertos {
std::uint64_t tick_ns() { return kTickNs; }
}  // namespace freertos

}  // namespace talus::port

// --- kernel hooks ---------------------------------------------------------------------------
extern "C" {

#if defined(TALUS_FREERTOS_X86)
// An fxsave area for each task (traceTASK_CREATE, FreeRTOSConfig.h), from a static pool: the
// state a task starts with is the reset one (x87 control word 0x037F: all exceptions masked,
// 64-bit precision; MXCSR 0x1F80: round to nearest, all exceptions masked; registers zero).
// Called inside xTaskCreateStatic, in the kernel's critical section (a task or main, never an
// interrupt). An area is never given back: a deleted task's stays used, so the pool bounds the
// tasks created over the program's life, not those alive at once (talus's firmware creates its
// tasks once, at start-up).
void* talus_x86_fpu_context(void) {
  struct alignas(16) Area {
    std::uint8_t bytes[512];
  };
  static Area pool[TALUS_X86_FREERTOS_FPU_CONTEXTS];
  static int used = 0;
  if (used == TALUS_X86_FREERTOS_FPU_CONTEXTS)
    talus::port::fault("FreeRTOS x86: more tasks than FPU contexts (TALUS_X86_FREERTOS_FPU_CONTEXTS)");
  std::uint8_t* a = pool[used++].bytes;
  for (int i = 0; i < 512; ++i) a[i] = 0;
  a[0] = 0x7F;  // FCW 0x037F
  a[1] = 0x03;
  a[24] = 0x80;  // MXCSR 0x00001F80
  a[25] = 0x1F;
  return a;
}
#endif

// Interrupt context on x86 (the tick interrupt): -mgeneral-regs-only keeps it off the
// interrupted task's x87 / SSE registers (FreeRTOSConfig.h).
#if defined(TALUS_FREERTOS_X86)
__attribute__((target("general-regs-only")))
#endif
void vApplicationTickHook() {
#if !defined(TALUS_FREERTOS_CORTEX_M) && !defined(TALUS_FREERTOS_X86)
  g_tick_mono_ns = mono_ns();
#endif
}

void vApplicationStackOverflowHook(TaskHandle_t, char* name) {
  // The task's name in the reason (a static buffer: the program ends here).
  static char reason[48] = "FreeRTOS stack overflow: ";
  int i = 25;
  for (int k = 0; name && name[k] && i < 47; ++k) reason[i++] = name[k];
  reason[i] = '\0';
  talus::port::fault(reason);
}

// Called only with configUSE_MALLOC_FAILED_HOOK 1 and dynamic allocation on (a firmware's own
// configuration; talus's reference one allocates nothing).
void vApplicationMallocFailedHook() { talus::port::fault("FreeRTOS malloc failed"); }

void talus_freertos_assert(const char* file, int line) {
  (void)file;
  (void)line;
  talus::port::fault("FreeRTOS configASSERT failed");
}

void vApplicationGetIdleTaskMemory(StaticTask_t** tcb, StackType_t** stack, configSTACK_DEPTH_TYPE* words) {
  static StaticTask_t idle_tcb;
  static StackType_t idle_stack[configMINIMAL_STACK_SIZE];
  *tcb = &idle_tcb;
  *stack = idle_stack;
  *words = configMINIMAL_STACK_SIZE;
}

}  // extern "C"
