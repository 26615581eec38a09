// talus port for Linux, the clock and critical sections of a plain Linux process (the
// FreeRTOS POSIX port has its own: port/freertos/clock_freertos.cpp). See <talus/rt/port.hpp>.
//   now_ns      CLOCK_MONOTONIC
//   wait_until  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME): sleeps, no spin
#include <talus/rt/port.hpp>

#include <errno.h>
#include <time.h>

namespace talus::port {

std::uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

void wait_until(std::uint64_t t_ns) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(t_ns / 1000000000ull);
  ts.tv_nsec = static_cast<long>(t_ns % 1000000000ull);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// One control thread per process: nothing to mask. (A program that shares data with a
// signal handler or another thread brings its own lock.)
IrqState critical_enter() { return 0; }
void critical_exit(IrqState) {}

}  // namespace talus::port
