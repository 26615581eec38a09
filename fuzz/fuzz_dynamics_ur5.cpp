// fuzz_dynamics on ur5 (generated from its URDF by talus_add_model).
#include <talus/models/ur5.hpp>

#include "dynamics_body.hpp"

namespace talus_fuzz {
void dynamics_ur5(std::uint8_t group, Reader& r) {
  using M = talus::models::ur5::Model<double>;
  static const M model = checked_model(talus::models::ur5::make_model<double>(), "ur5");
  run_dynamics_input(model, group, r);
}
}  // namespace talus_fuzz
