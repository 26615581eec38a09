// fuzz_dynamics on the hand-written 6-body chain of the tests (every joint type).
#include "support/hand_models.hpp"

#include "dynamics_body.hpp"

namespace talus_fuzz {
void dynamics_chain(std::uint8_t group, Reader& r) {
  using M = talus_test::chain::Model<double>;
  static const M model = checked_model(talus_test::chain::make_model<double>(), "chain");
  run_dynamics_input(model, group, r);
}
}  // namespace talus_fuzz
