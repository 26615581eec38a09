// talus port for Linux (x86-64, aarch64; PREEMPT_RT or not). See <talus/rt/port.hpp>.
// This file: start-up, faults (signals), exit, the counter, log and link I/O, rt_setup —
// what the plain POSIX port and the FreeRTOS POSIX port (port/freertos) share. The clock
// (now_ns, wait_until) and critical sections are in clock_posix.cpp (plain Linux) or
// port/freertos/clock_freertos.cpp (FreeRTOS's GCC_POSIX port).
#include <talus/rt/port.hpp>

#include "../common/fault_hook.hpp"
#include <talus/port/posix.hpp>

#include <alloca.h>
#include <errno.h>
#include <initializer_list>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace talus::port {
namespace {

int g_link_read_fd = -1;
int g_link_write_fd = -1;

void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void log_str(const char* s) { write_all(2, s, strlen(s)); }

// Async-signal-safe hex formatting.
void log_hex(std::uintptr_t v) {
  char buf[2 + 2 * sizeof(v) + 1];
  talus::port::detail::format_hex(v, buf);
  log_str(buf);
}

[[noreturn]] void report_and_exit(const FaultInfo& info) {
  if (const talus::port::FaultHook hook = talus::port::detail::fault_hook()) hook(info);
  log_str("talus/port: fault: ");
  log_str(info.reason);
  log_str(" pc=");
  log_hex(info.pc);
  log_str(" addr=");
  log_hex(info.address);
  log_str(" status=");
  log_hex(info.status);
  log_str("\n");
  ::_exit(fault_exit_code);
}

void on_signal(int sig, siginfo_t* si, void* uc_void) {
  FaultInfo info;
  info.reason = sig == SIGSEGV  ? "SIGSEGV"
                : sig == SIGBUS ? "SIGBUS"
                : sig == SIGILL ? "SIGILL"
                : sig == SIGFPE ? "SIGFPE"
                                : "signal";
  info.status = static_cast<std::uint32_t>(sig);
  info.address = reinterpret_cast<std::uintptr_t>(si ? si->si_addr : nullptr);
  const ucontext_t* uc = static_cast<const ucontext_t*>(uc_void);
#if defined(__x86_64__)
  info.pc = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  info.pc = static_cast<std::uintptr_t>(uc->uc_mcontext.pc);
  info.lr = static_cast<std::uintptr_t>(uc->uc_mcontext.regs[30]);
#else
  (void)uc;
#endif
  report_and_exit(info);
}

void step_message(bool verbose, const char* step, int err) {
  if (!verbose) return;
  log_str("talus/port: ");
  log_str(step);
  if (err == 0) {
    log_str(": ok\n");
  } else {
    log_str(" refused (");
    log_str(strerror(err));
    log_str("): continuing without it\n");
  }
}

__attribute__((noinline)) void prefault_stack(std::size_t bytes) {
  // alloca: exactly `bytes` below the current frame, touched one page at a time.
  volatile char* p = static_cast<volatile char*>(alloca(bytes));
  const long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
  for (std::size_t i = 0; i < bytes; i += static_cast<std::size_t>(page)) p[i] = 0;
  if (bytes) p[bytes - 1] = 0;
}

}  // namespace

void init() {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) sigaction(sig, &sa, nullptr);
}

void exit(int code) { ::exit(code); }

std::uint64_t cycles() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#elif defined(__aarch64__)
  std::uint64_t v;
  asm volatile("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
  return v;
#else
  return now_ns();
#endif
}

std::uint64_t counter_hz() {
#if defined(__x86_64__) || defined(__i386__)
  return 0;  // TSC frequency is not exposed portably; use now_ns() for seconds
#elif defined(__aarch64__)
  std::uint64_t f;
  asm volatile("mrs %0, cntfrq_el0" : "=r"(f));
  return f;
#else
  return 1000000000ull;
#endif
}

const char* counter_name() {
#if defined(__x86_64__) || defined(__i386__)
  return "TSC (rdtsc, constant rate, not core cycles)";
#elif defined(__aarch64__)
  return "CNTVCT_EL0 (generic timer; core cycles need perf_event_open)";
#else
  return "CLOCK_MONOTONIC ns";
#endif
}

void fault(const char* reason) {
  FaultInfo info;
  info.reason = reason;
  info.pc = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  report_and_exit(info);
}

void log_write(const char* data, std::size_t n) { write_all(2, data, n); }

std::size_t link_write(const void* data, std::size_t n) {
  if (g_link_write_fd < 0) return 0;
  write_all(g_link_write_fd, static_cast<const char*>(data), n);
  return n;
}

std::size_t link_read(void* data, std::size_t n) {
  if (g_link_read_fd < 0 || n == 0) return 0;
  pollfd pfd{g_link_read_fd, POLLIN, 0};
  if (poll(&pfd, 1, 0) <= 0 || !(pfd.revents & POLLIN)) return 0;
  const ssize_t r = ::read(g_link_read_fd, data, n);
  return r > 0 ? static_cast<std::size_t>(r) : 0;
}

namespace posix {

RtReport rt_setup(const RtConfig& c) {
  RtReport r;
  if (c.lock_memory) {
    const int err = mlockall(MCL_CURRENT | MCL_FUTURE) == 0 ? 0 : errno;
    r.locked = err == 0;
    step_message(c.verbose, "mlockall(MCL_CURRENT | MCL_FUTURE)", err);
  }
  if (c.prefault_stack_bytes > 0) {
    const std::size_t bytes = c.prefault_stack_bytes < (4u << 20) ? c.prefault_stack_bytes : (4u << 20);
    prefault_stack(bytes);
    r.prefaulted = true;
    step_message(c.verbose, "stack pre-faulting", 0);
  }
  if (c.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(c.cpu, &set);
    const int err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    r.pinned = err == 0;
    step_message(c.verbose, "CPU affinity", err);
  }
  if (c.priority > 0) {
    sched_param sp;
    memset(&sp, 0, sizeof(sp));
    sp.sched_priority = c.priority;
    const int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    r.fifo = err == 0;
    step_message(c.verbose, "SCHED_FIFO", err);
  }
  return r;
}

void set_link_fds(int read_fd, int write_fd) {
  g_link_read_fd = read_fd;
  g_link_write_fd = write_fd;
}

}  // namespace posix
}  // namespace talus::port
