// main() of the on-target test on bare metal and Linux: the test itself is talus_target_main()
// (target_test.cpp); under FreeRTOS a task runs it instead (freertos/test_main.cpp).
#include <talus/rt/port.hpp>
#if defined(TALUS_TARGET_POSIX)
#include <talus/port/posix.hpp>
#endif

int talus_target_main();

int main() {
#if defined(TALUS_TARGET_POSIX)
  talus::port::init();
  talus::port::posix::RtConfig rt;
  rt.priority = 80;
  (void)talus::port::posix::rt_setup(rt);
#endif
  return talus_target_main();
}
