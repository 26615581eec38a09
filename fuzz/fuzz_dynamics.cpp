// fuzz_dynamics: kinematics, Jacobians, RNEA/ABA/CRBA, LtL solves, centroidal quantities,
// configuration operations, sincos and perturbed model parameters on solo12, ur5 and the
// hand-written chain. Byte 0: model (b % 3) and group (b / 3); byte 1: decoding flags
// (bit 0 raw doubles, bit 1 normalise quaternions); the rest: the group's inputs.
#include "fuzz_support.hpp"

namespace talus_fuzz {
void dynamics_solo12(std::uint8_t group, Reader& r);
void dynamics_ur5(std::uint8_t group, Reader& r);
void dynamics_chain(std::uint8_t group, Reader& r);
}  // namespace talus_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  talus_fuzz::Reader r(data + 1, size - 1);
  const std::uint8_t group = static_cast<std::uint8_t>(data[0] / 3);
  switch (data[0] % 3) {
    case 0: talus_fuzz::dynamics_solo12(group, r); break;
    case 1: talus_fuzz::dynamics_ur5(group, r); break;
    default: talus_fuzz::dynamics_chain(group, r); break;
  }
  return 0;
}
