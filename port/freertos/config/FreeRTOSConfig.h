/* FreeRTOSConfig.h of talus's FreeRTOS port on its reference targets: the QEMU MPS2 boards
 * (Cortex-M7 mps2-an500, Cortex-M4F mps2-an386; kernel ports GCC_ARM_CM7 and GCC_ARM_CM4F),
 * x86-64 Linux (GCC_POSIX) and bare-metal 32-bit x86 (QEMU pc; GCC_IA32_FLAT, whose portASM.S
 * includes this file: values stay plain integers, C declarations under __ASSEMBLER__). A real
 * board copies this file and changes the clock, the interrupt priority bits and the heap of
 * its own firmware (port/README.md, "FreeRTOS").
 * Facts behind the values: ../shared/notes/freertos.md. */
#ifndef TALUS_FREERTOS_CONFIG_H
#define TALUS_FREERTOS_CONFIG_H

#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configTICK_RATE_HZ 1000 /* 1 ms tick: the control loop's periods are whole ticks */
#define configMAX_PRIORITIES 8
#define configMINIMAL_STACK_SIZE 256 /* words */
#define configMAX_TASK_NAME_LEN 16
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS /* (V11: not configUSE_16_BIT_TICKS) */
#define configIDLE_SHOULD_YIELD 1
#define configUSE_MUTEXES 1
#define configUSE_COUNTING_SEMAPHORES 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_TIMERS 0
#define configUSE_CO_ROUTINES 0

/* Static allocation only: every task, queue and stack is a static object, the kernel never
 * calls malloc (talus's no-heap check of the image covers it). */
#define configSUPPORT_STATIC_ALLOCATION 1
#define configSUPPORT_DYNAMIC_ALLOCATION 0
#define configKERNEL_PROVIDED_STATIC_MEMORY 0 /* idle task memory: port/freertos/clock_freertos.cpp */

/* Hooks, wired to talus::port's fault path (clock_freertos.cpp). */
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1 /* the sub-tick clock (POSIX); nothing on Cortex-M */
#define configCHECK_FOR_STACK_OVERFLOW 2
#define configUSE_MALLOC_FAILED_HOOK 0
#define configRECORD_STACK_HIGH_ADDRESS 1
#define configUSE_TRACE_FACILITY 0
#define configGENERATE_RUN_TIME_STATS 0

#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskDelayUntil 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_uxTaskGetStackHighWaterMark 1
#define INCLUDE_xTaskGetSchedulerState 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskPrioritySet 1

#ifndef __ASSEMBLER__
#ifdef __cplusplus
extern "C" {
#endif
void talus_freertos_assert(const char* file, int line);
#ifdef __cplusplus
}
#endif
#endif
#define configASSERT(x)                                  \
  do {                                                   \
    if (!(x)) talus_freertos_assert(__FILE__, __LINE__); \
  } while (0)

#if defined(__ARM_ARCH)               /* Cortex-M7 / M4F on the MPS2 boards */
#define configCPU_CLOCK_HZ 25000000UL /* MPS2: SysTick runs at the 25 MHz processor clock */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1
/* Armv7-M NVIC priorities: QEMU's NVIC implements 3 bits (8 levels, in bits 7..5). The kernel
 * (SysTick, PendSV) runs at the lowest level, 7; interrupts at levels 2..7 may call FreeRTOS
 * ...FromISR functions; levels 0 and 1 are never masked by the kernel and must not call it. */
#define configPRIO_BITS 3
#define configKERNEL_INTERRUPT_PRIORITY (7 << (8 - configPRIO_BITS))
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (2 << (8 - configPRIO_BITS))
/* The vector table (port/cortex-m/startup.cpp) names the handlers CMSIS-style. */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler
#elif defined(__i386__) /* GCC_IA32_FLAT: bare-metal 32-bit x86 on talus's port/x86 (QEMU pc) */
/* The tick is the local APIC timer (xAPIC at 0xFEE00000), divide-by-16: the port loads
 * (configCPU_CLOCK_HZ >> 4) / configTICK_RATE_HZ - 1, so configCPU_CLOCK_HZ is the APIC timer's
 * input clock, not the core clock: 1 GHz on QEMU (a real board: its bus / crystal clock,
 * CPUID leaf 0x15 or measured). */
#define configCPU_CLOCK_HZ 1000000000UL
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1
#define configISR_STACK_SIZE 2048 /* words: the interrupt stack (8 KB) */
/* Vectors: 0x20 yield, 0x21 tick, 0xFE APIC error, 0xFF spurious; every other vector >= 0x20
 * enters the port's central wrapper (xPortRegisterCInterruptHandler). Vectors 0-31 are
 * talus's fault handlers (clock_freertos.cpp puts them in the port's IDT). */
#define configUSE_COMMON_INTERRUPT_ENTRY_POINT 1
/* Critical sections raise the APIC task priority to class 10: vectors 0xB0-0xFF stay live
 * and must not call FreeRTOS. */
#define configMAX_API_CALL_INTERRUPT_PRIORITY 10
/* FPU / SSE state across context switches. The port's own configSUPPORT_FPU saves only the
 * x87 (fnsave, 108 bytes, no XMM registers, no MXCSR) into a buffer from pvPortMalloc: talus's
 * double code is SSE2 and the image has no heap. Instead every task gets a 512-byte fxsave
 * area (x87 + MXCSR + XMM0-7) from a static pool at creation (traceTASK_CREATE, in its
 * application task tag), and the switch saves / restores it with fxsave / fxrstor
 * (traceTASK_SWITCHED_OUT / _IN, inside vTaskSwitchContext: the interrupted task's FPU
 * registers are untouched there because the kernel, the port and every interrupt-time hook
 * are compiled -mgeneral-regs-only). The task tag is therefore talus's on x86: an application
 * must not call vTaskSetApplicationTaskTag. */
#define configSUPPORT_FPU 0
#define configUSE_APPLICATION_TASK_TAG 1
#ifndef __ASSEMBLER__
#ifdef __cplusplus
extern "C" {
#endif
void* talus_x86_fpu_context(void); /* clock_freertos.cpp: a fresh fxsave area, 16-aligned */
#ifdef __cplusplus
}
#endif
#endif
#define traceTASK_CREATE(pxNewTCB) ((pxNewTCB)->pxTaskTag = (TaskHookFunction_t)talus_x86_fpu_context())
#define traceTASK_SWITCHED_OUT()                                                                          \
  do {                                                                                                    \
    if (pxCurrentTCB->pxTaskTag) __asm volatile("fxsave (%0)" ::"r"(pxCurrentTCB->pxTaskTag) : "memory"); \
  } while (0)
#define traceTASK_SWITCHED_IN()                                                                            \
  do {                                                                                                     \
    if (pxCurrentTCB->pxTaskTag) __asm volatile("fxrstor (%0)" ::"r"(pxCurrentTCB->pxTaskTag) : "memory"); \
  } while (0)
#else                                   /* GCC_POSIX: x86-64 Linux */
#define configCPU_CLOCK_HZ 1000000000UL /* unused by the POSIX port */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#endif

#endif /* TALUS_FREERTOS_CONFIG_H */
