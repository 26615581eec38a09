// fuzz_constraints on chain, ConstraintSet<Model, 24, 8>.
#include "support/hand_models.hpp"

#include "constraints_body.hpp"

namespace talus_fuzz {
void constraints_chain(std::uint8_t group, Reader& r) {
  using M = talus_test::chain::Model<double>;
  static const M model = checked_model(talus_test::chain::make_model<double>(), "chain");
  run_constraints_input(model, group, r);
}
}  // namespace talus_fuzz
