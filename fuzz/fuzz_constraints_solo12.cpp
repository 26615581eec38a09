// fuzz_constraints on solo12, ConstraintSet<Model, 24, 8>.
#include <talus/models/solo12.hpp>

#include "constraints_body.hpp"

namespace talus_fuzz {
void constraints_solo12(std::uint8_t group, Reader& r) {
  using M = talus::models::solo12::Model<double>;
  static const M model = checked_model(talus::models::solo12::make_model<double>(), "solo12");
  run_constraints_input(model, group, r);
}
}  // namespace talus_fuzz
