#pragma once
// What every port family's fault report shares: the fault hook (talus::port::set_fault_hook,
// rt/port.hpp; fault_hook.cpp holds it and is compiled into each port, cmake/TalusPorts.cmake),
// which a family's report (port_posix.cpp, port_cortex_m.cpp, port_x86.cpp) calls first, and
// the hexadecimal numbers it prints.
#include <talus/rt/port.hpp>

#include <cstddef>

namespace talus::port::detail {

/// The hook set by set_fault_hook, or nullptr.
FaultHook fault_hook();

/// "0x" and all 2 sizeof(T) hexadecimal digits of v, NUL-terminated, into out: formatted
/// without printf, a heap or a lock (safe in a fault handler and a signal handler).
template <class T>
void format_hex(T v, char (&out)[2 + 2 * sizeof(T) + 1]) {
  constexpr std::size_t digits = 2 * sizeof(T);
  out[0] = '0';
  out[1] = 'x';
  for (std::size_t i = 0; i < digits; ++i) {
    const unsigned d = static_cast<unsigned>(v >> (4 * (digits - 1 - i))) & 0xFu;
    out[2 + i] = static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
  }
  out[2 + digits] = '\0';
}

}  // namespace talus::port::detail
