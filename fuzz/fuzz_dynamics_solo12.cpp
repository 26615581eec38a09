// fuzz_dynamics on solo12 (generated from its URDF by talus_add_model).
#include <talus/models/solo12.hpp>

#include "dynamics_body.hpp"

namespace talus_fuzz {
void dynamics_solo12(std::uint8_t group, Reader& r) {
  using M = talus::models::solo12::Model<double>;
  static const M model = checked_model(talus::models::solo12::make_model<double>(), "solo12");
  run_dynamics_input(model, group, r);
}
}  // namespace talus_fuzz
