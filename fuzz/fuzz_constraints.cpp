// fuzz_constraints: ConstraintSet<Model, 24, 8> on solo12 and the hand-written chain with
// fuzzed contacts, loops and custom constraints; every constrained solver (forward dynamics,
// impulses, assembly, quantities and wrenches). Byte 0: model (b & 1) and group (b >> 1);
// byte 1: decoding flags (bit 0 raw doubles, bit 1 normalise quaternions); then the set, then
// the group's state.
#include "fuzz_support.hpp"

namespace talus_fuzz {
void constraints_solo12(std::uint8_t group, Reader& r);
void constraints_chain(std::uint8_t group, Reader& r);
}  // namespace talus_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  talus_fuzz::Reader r(data + 1, size - 1);
  const std::uint8_t group = static_cast<std::uint8_t>(data[0] >> 1);
  if (data[0] & 1) talus_fuzz::constraints_chain(group, r);
  else talus_fuzz::constraints_solo12(group, r);
  return 0;
}
