// set_fault_hook for every port family (see fault_hook.hpp).
#include "fault_hook.hpp"

namespace talus::port {
namespace {
// Constant-initialised: valid before any constructor runs, so a fault during start-up sees it.
FaultHook g_fault_hook = nullptr;
}  // namespace

FaultHook set_fault_hook(FaultHook hook) {
  FaultHook previous = g_fault_hook;
  g_fault_hook = hook;
  return previous;
}

FaultHook detail::fault_hook() { return g_fault_hook; }

}  // namespace talus::port
