// The on-target test (target_test.cpp, talus_target_main) inside a FreeRTOS task: the same
// objects as the bare-metal / Linux program, linked with port/freertos instead of the plain
// port. The task's stack is a static array; the test's stack measurements (target_support.hpp)
// are pointed at it, painted with the kernel's own fill word.
#include <talus/port/freertos.hpp>
#include <talus/rt/port.hpp>

#include "target_support.hpp"

int talus_target_main();

namespace {

// 32 KB on Cortex-M and x86 bare metal (4-byte words; x86 used 9.3 KB); 256 KB on Linux (8-byte
// words: the POSIX kernel port runs the task on a thread whose stack this is; the host's double
// solves use more stack).
#if defined(TALUS_TARGET_STACK_PAINT) || defined(__i386__)
constexpr std::size_t kStackWords = 8192;
#else
constexpr std::size_t kStackWords = 32768;
#endif
StaticTask_t g_tcb;
StackType_t g_stack[kStackWords];

TALUS_FREERTOS_TASK_FUNCTION void test_task(void*) {
#if defined(TALUS_TARGET_STACK_PAINT)
  talus_target::StackRegion& r = talus_target::stack_region();
  r.lo = reinterpret_cast<volatile std::uint32_t*>(g_stack);
  r.hi = reinterpret_cast<volatile std::uint32_t*>(g_stack + kStackWords);
  r.word = 0xa5a5a5a5u;  // tskSTACK_FILL_BYTE: the kernel's overflow check reads it
#endif
  talus_target::Line l;
  l << "FreeRTOS " << tskKERNEL_VERSION_NUMBER << ": the target test runs in a task (priority "
    << static_cast<std::uint64_t>(uxTaskPriorityGet(nullptr)) << ", stack "
    << static_cast<std::uint64_t>(sizeof(g_stack)) << " B)";
  l.write();
  const int rc = talus_target_main();
  l << "FreeRTOS: test task stack high-water "
    << static_cast<std::uint64_t>((kStackWords - uxTaskGetStackHighWaterMark(nullptr)) * sizeof(StackType_t)) << " of "
    << static_cast<std::uint64_t>(sizeof(g_stack)) << " B";
  l.write();
  talus::port::exit(rc);
}

}  // namespace

int main() {
#if !defined(__arm__) && !defined(__i386__)
  talus::port::init();  // Linux: fault signals (bare metal: the startup code calls it)
#endif
  if (!xTaskCreateStatic(test_task, "talus-test", kStackWords, nullptr, tskIDLE_PRIORITY + 2, g_stack, &g_tcb))
    talus::port::fault("xTaskCreateStatic failed");
  vTaskStartScheduler();
  talus::port::fault("vTaskStartScheduler returned");
}
