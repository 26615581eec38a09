#pragma once
// The fault hook (talus::port::set_fault_hook, rt/port.hpp), one copy for every port family:
// fault_hook.cpp holds it and is compiled into each port (cmake/TalusPorts.cmake); a family's
// fault report (port_posix.cpp, port_cortex_m.cpp) calls detail::fault_hook() first.
#include <talus/rt/port.hpp>

namespace talus::port::detail {

/// The hook set by set_fault_hook, or nullptr.
FaultHook fault_hook();

}  // namespace talus::port::detail
