// The FreeRTOS hooks reach talus's fault path: a fault hook is installed, then a task faults on
// purpose. Expected (targets/run_expect.cmake): "fault hook ran", the port's report
// "talus/port: fault: FreeRTOS ...", exit code 3.
//   Cortex-M, x86 bare metal: a task overflows its 128-word stack (recursion; the overflow lands in padding
//             placed below the stack) and blocks: the kernel's check (method 2, at the switch)
//             finds the fill words at the stack's end overwritten -> vApplicationStackOverflowHook.
//   x86 bare metal, built with TALUS_FAULT_TEST_CPU_EXCEPTION (..._fault_exception): a task
//             runs a few ticks, then executes ud2: #UD must reach talus's handler through the
//             kernel port's IDT (clock_freertos.cpp copies talus's gates 0-31 into it), not the
//             port's central wrapper (which would return to the ud2 for ever).
//   Linux:    the POSIX kernel port runs tasks on pthreads' own stacks (no overflow to catch):
//             xTaskCreateStatic without a stack buffer -> configASSERT.
#include <talus/port/freertos.hpp>
#include <talus/rt/port.hpp>

#include <cstdint>

namespace {

void hook(const talus::port::FaultInfo&) {
  static const char msg[] = "fault hook ran\n";
  talus::port::log_write(msg, sizeof(msg) - 1);
}

void say(const char* s) {
  std::size_t n = 0;
  while (s[n]) ++n;
  talus::port::log_write(s, n);
}

#if (defined(__arm__) || defined(__i386__)) && !defined(TALUS_FAULT_TEST_CPU_EXCEPTION)
#define TALUS_FAULT_TEST_STACK_OVERFLOW 1
#endif

#if defined(TALUS_FAULT_TEST_CPU_EXCEPTION)
StackType_t g_stack[1024];
StaticTask_t g_tcb;

TALUS_FREERTOS_TASK_FUNCTION void ud2_task(void*) {
  vTaskDelay(3);  // the scheduler and its tick run: the kernel port's IDT is the one loaded
  say("freertos fault test: ud2 in a task\n");
  asm volatile("ud2");
  say("freertos fault test: still running, no fault happened\n");
  talus::port::exit(0);
}
#endif

#if defined(TALUS_FAULT_TEST_STACK_OVERFLOW)
struct GuardedStack {
  StackType_t pad[512];    // the overflow writes here (the stack grows down)
  StackType_t stack[128];  // 512 B
};
GuardedStack g_small;
StaticTask_t g_tcb;

__attribute__((noinline)) int recurse(int depth) {
  volatile std::uint32_t frame[16];  // 64 B a level
  for (int i = 0; i < 16; ++i) frame[i] = static_cast<std::uint32_t>(depth + i);
  return depth > 0 ? recurse(depth - 1) + static_cast<int>(frame[3]) : static_cast<int>(frame[0]);
}

TALUS_FREERTOS_TASK_FUNCTION void overflow_task(void*) {
  say("freertos fault test: overflowing a 512 B task stack\n");
  volatile int r = recurse(16);  // ~1.3 KB deep
  (void)r;
  vTaskDelay(1);  // the switch runs the kernel's stack check
  say("freertos fault test: still running, no fault happened\n");
  talus::port::exit(0);
}
#endif

}  // namespace

int main() {
#if !defined(__arm__) && !defined(__i386__)
  talus::port::init();
#endif
  talus::port::set_fault_hook(hook);
#if defined(TALUS_FAULT_TEST_CPU_EXCEPTION)
  if (!xTaskCreateStatic(ud2_task, "ud2", 1024, nullptr, tskIDLE_PRIORITY + 2, g_stack, &g_tcb))
    talus::port::fault("xTaskCreateStatic failed");
  vTaskStartScheduler();
#elif defined(TALUS_FAULT_TEST_STACK_OVERFLOW)
  if (!xTaskCreateStatic(overflow_task, "overflow", 128, nullptr, tskIDLE_PRIORITY + 2, g_small.stack, &g_tcb))
    talus::port::fault("xTaskCreateStatic failed");
  vTaskStartScheduler();
#else
  static StaticTask_t tcb;
  say("freertos fault test: xTaskCreateStatic without a stack -> configASSERT\n");
  (void)xTaskCreateStatic([](void*) {}, "bad", 128, nullptr, tskIDLE_PRIORITY + 1, nullptr, &tcb);
#endif
  say("freertos fault test: still running, no fault happened\n");
  return 0;
}
