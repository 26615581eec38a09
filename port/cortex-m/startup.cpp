// Startup for Armv7-M (Cortex-M4F, Cortex-M7) on the QEMU MPS2 boards: vector table, reset
// handler, fault handlers. Linked as an object library so the vector table is always kept.
//
// Reset sequence (Reset_Handler, assembly only, so that no floating-point instruction can
// run before the FPU is on):
//   1. CPACR |= CP10, CP11 full access; dsb; isb      (FPU on; otherwise the first VFP
//      instruction raises a UsageFault / NOCP)
//   2. copy .data from flash to RAM, zero .bss; if the image defines talus_stack_paint,
//      fill the whole stack with talus::port::cortex_m::stack_paint_word (for
//      stack_high_water(): the deepest the stack has been since reset)
//   3. talus_cortex_m_init(): VTOR, newlib-rdimon stdio handles if the program uses stdio,
//      port init (SysTick, counter, UART, semihosting console), static constructors
//   4. main(), then talus::port::exit(main's return value)
#include <cstdint>

#include <talus/port/cortex_m.hpp>
#include <talus/rt/port.hpp>

extern "C" {
// Linker script symbols.
extern std::uint32_t _estack;
// newlib
void __libc_init_array();
// Weak: linked only if the program already pulls librdimon's stdio syscalls (printf, puts,
// ...). Referencing it strongly would drag newlib's stdio initialisation (__sinit) and with
// it malloc into every image.
__attribute__((weak)) void initialise_monitor_handles();

void Reset_Handler();
void HardFault_Handler();
void Default_Handler();
void SysTick_Handler();  // clock_cortex_m.cpp (bare metal) or FreeRTOS's xPortSysTickHandler
// SVCall and PendSV: unused on bare metal (Default_Handler); an RTOS defines them (FreeRTOS:
// FreeRTOSConfig.h maps vPortSVCHandler and xPortPendSVHandler to these names).
void SVC_Handler() __attribute__((weak, alias("Default_Handler")));
void PendSV_Handler() __attribute__((weak, alias("Default_Handler")));
void talus_cortex_m_init();
[[noreturn]] void talus_cortex_m_exit(int code);
[[noreturn]] void talus_cortex_m_fault(const std::uint32_t* frame, std::uint32_t exc_return);
int main();

// newlib's __libc_init_array calls _init() and exit() calls _fini(); with -nostartfiles
// there is no crti.o to provide them.
void _init() {}
void _fini() {}
}

namespace {

using Handler = void (*)();

struct VectorTable {
  void* initial_sp;
  Handler handlers[15 + 32];  // 15 system exceptions, then the first 32 external interrupts
};

}  // namespace

// Entries 1-15: Reset, NMI, HardFault, MemManage, BusFault, UsageFault, 4 reserved, SVCall,
// DebugMonitor, reserved, PendSV, SysTick. MemManage, BusFault and UsageFault are left
// disabled in SHCSR, so they escalate to HardFault; their entries point to the same handler.
// clang-format off
__attribute__((section(".isr_vector"), used)) const VectorTable talus_vector_table = {
    &_estack,
    {
        Reset_Handler,      // 1  Reset
        Default_Handler,    // 2  NMI
        HardFault_Handler,  // 3  HardFault
        HardFault_Handler,  // 4  MemManage
        HardFault_Handler,  // 5  BusFault
        HardFault_Handler,  // 6  UsageFault
        nullptr, nullptr, nullptr, nullptr,
        SVC_Handler,        // 11 SVCall
        Default_Handler,    // 12 DebugMonitor
        nullptr,
        PendSV_Handler,     // 14 PendSV
        SysTick_Handler,    // 15 SysTick
        Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
        Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
        Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
        Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
        Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
        Default_Handler, Default_Handler,
    }};
// clang-format on

extern "C" __attribute__((naked, noreturn)) void Reset_Handler() {
  asm volatile(
      // 1. FPU: CPACR (0xE000ED88) bits 20-23 = CP10, CP11 full access.
      "ldr  r0, =0xE000ED88      \n"
      "ldr  r1, [r0]             \n"
      "orr  r1, r1, #0x00F00000  \n"
      "str  r1, [r0]             \n"
      "dsb                       \n"
      "isb                       \n"
      // 2. .data (flash -> RAM), .bss = 0.
      "ldr  r0, =_sidata         \n"
      "ldr  r1, =_sdata          \n"
      "ldr  r2, =_edata          \n"
      "1:                        \n"
      "cmp  r1, r2               \n"
      "bhs  2f                   \n"
      "ldr  r3, [r0], #4         \n"
      "str  r3, [r1], #4         \n"
      "b    1b                   \n"
      "2:                        \n"
      "ldr  r1, =_sbss           \n"
      "ldr  r2, =_ebss           \n"
      "movs r3, #0               \n"
      "3:                        \n"
      "cmp  r1, r2               \n"
      "bhs  4f                   \n"
      "str  r3, [r1], #4         \n"
      "b    3b                   \n"
      "4:                        \n"
      // Optional stack painting: talus_stack_paint is weak, its address 0 unless defined.
      ".weak talus_stack_paint   \n"
      "ldr  r0, =talus_stack_paint \n"
      "cbz  r0, 6f               \n"
      "ldr  r1, =_sstack         \n"
      "mov  r2, sp               \n"
      "ldr  r3, =0xC5A5C5A5      \n"
      "5:                        \n"
      "cmp  r1, r2               \n"
      "bhs  6f                   \n"
      "str  r3, [r1], #4         \n"
      "b    5b                   \n"
      "6:                        \n"
      // 3., 4.
      "bl   talus_cortex_m_init  \n"
      "bl   main                 \n"
      "b    talus_cortex_m_exit  \n"
      ".ltorg                    \n");
}

extern "C" void talus_cortex_m_init() {
  volatile std::uint32_t* const VTOR = reinterpret_cast<volatile std::uint32_t*>(0xE000ED08u);
  *VTOR = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(&talus_vector_table));
  if (initialise_monitor_handles) initialise_monitor_handles();  // rdimon: stdio over semihosting, for printf
  talus::port::init();
  __libc_init_array();
}

extern "C" void talus_cortex_m_exit(int code) { talus::port::exit(code); }

// HardFault (and the faults escalated to it): find the stacked exception frame (MSP or PSP,
// from EXC_RETURN bit 2) and hand it to talus_cortex_m_fault (port_cortex_m.cpp).
extern "C" __attribute__((naked)) void HardFault_Handler() {
  asm volatile(
      "tst   lr, #4               \n"
      "ite   eq                   \n"
      "mrseq r0, msp              \n"
      "mrsne r0, psp              \n"
      "mov   r1, lr               \n"
      "b     talus_cortex_m_fault \n");
}

// Any exception nobody expects: report it as a fault (frame unknown).
extern "C" void Default_Handler() { talus::port::fault("unexpected exception"); }
