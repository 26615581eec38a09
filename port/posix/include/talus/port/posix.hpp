#pragma once
/// \file posix.hpp
/// Linux-specific part of port/posix: real-time set-up of the control thread and the link
/// file descriptors. Everything else is the common interface in <talus/rt/port.hpp>.
#include <cstddef>

namespace talus::port::posix {

struct RtConfig {
  int priority = 80;        ///< SCHED_FIFO priority of the calling thread (1-99); 0: leave the policy alone
  int cpu = -1;             ///< pin the calling thread to this CPU; -1: no pinning
  bool lock_memory = true;  ///< mlockall(MCL_CURRENT | MCL_FUTURE): no page faults later
  std::size_t prefault_stack_bytes = 256 * 1024;  ///< touch this much stack now (≤ 4 MiB); 0: skip
  bool verbose = true;                            ///< print one line per step on the log channel
};

/// What rt_setup() obtained. A refused step is not an error: the program runs without it
/// (e.g. not root, no CAP_SYS_NICE / CAP_IPC_LOCK, a container, QEMU user mode).
struct RtReport {
  bool fifo = false;
  bool locked = false;
  bool pinned = false;
  bool prefaulted = false;
};

/// Prepare the calling thread for a fixed-rate loop, in this order: mlockall, stack
/// pre-faulting, CPU affinity, SCHED_FIFO. Each step that the OS refuses prints
/// "talus/port: <step> refused (<errno text>): continuing without it" and is skipped.
RtReport rt_setup(const RtConfig& config = RtConfig{});

/// Use these descriptors as the link channel (-1: none, the default). The read side is
/// polled without blocking.
void set_link_fds(int read_fd, int write_fd);

}  // namespace talus::port::posix
