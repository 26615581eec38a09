// Port fault path: installs a fault hook, then faults on purpose. Expected: the hook runs,
// the port reports the fault on the log channel and the program ends with exit code 3
// (talus::port::fault_exit_code). ctest checks both (targets/run_expect.cmake).
//   Cortex-M: an undefined instruction -> UsageFault, escalated to HardFault.
//   x86 bare metal: ud2 -> #UD (invalid opcode; paging is off, so no address faults).
//   POSIX:    a store to an unmapped address -> SIGSEGV.
#include <talus/rt/port.hpp>

#include <cstdint>

namespace {
void hook(const talus::port::FaultInfo& info) {
  static const char msg[] = "fault hook ran\n";
  talus::port::log_write(msg, sizeof(msg) - 1);
  (void)info;
}
}  // namespace

int main() {
#if defined(TALUS_TARGET_POSIX)
  talus::port::init();
#endif
  talus::port::set_fault_hook(hook);
  static const char msg[] = "fault test: faulting now\n";
  talus::port::log_write(msg, sizeof(msg) - 1);
#if defined(__arm__)
  asm volatile("udf #0");
#elif defined(TALUS_PORT_X86)
  asm volatile("ud2");
#else
  volatile std::uintptr_t bad = 16;
  *reinterpret_cast<volatile int*>(bad) = 1;
#endif
  static const char no[] = "fault test: still running, no fault happened\n";
  talus::port::log_write(no, sizeof(no) - 1);
  return 0;
}
