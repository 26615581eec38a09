#pragma once
// Heap trap for the `alloc` tests: counts malloc/calloc/realloc/aligned_alloc/posix_memalign
// and every operator new while armed. The replacements live in alloc_trap.cpp (linked into
// the test executable); outside an armed scope they forward to glibc.
#include <cstddef>

namespace talus_test {
void arm_alloc_trap();
/// Disarms and returns how many heap calls were made while armed.
std::size_t disarm_alloc_trap();

/// Runs f() with the trap armed; returns the number of heap calls f made.
template <class F>
std::size_t heap_calls(F&& f) {
  arm_alloc_trap();
  f();
  return disarm_alloc_trap();
}
}  // namespace talus_test
