/* FreeRTOSConfig.h of talus's FreeRTOS port on its reference targets: the QEMU MPS2 boards
 * (Cortex-M7 mps2-an500, Cortex-M4F mps2-an386; kernel ports GCC_ARM_CM7 and GCC_ARM_CM4F)
 * and x86-64 Linux (GCC_POSIX). A real board copies this file and changes the clock, the
 * interrupt priority bits and the heap of its own firmware (port/README.md, "FreeRTOS").
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

#ifdef __cplusplus
extern "C" {
#endif
void talus_freertos_assert(const char* file, int line);
#ifdef __cplusplus
}
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
#else                                   /* GCC_POSIX: x86-64 Linux */
#define configCPU_CLOCK_HZ 1000000000UL /* unused by the POSIX port */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#endif

#endif /* TALUS_FREERTOS_CONFIG_H */
