// talos: both soles welded (2 × 6 axes): all methods, impulses, wrenches, no heap.
#include <talus/models/talos.hpp>

#include "constraints/constraint_checks.hpp"
#include "support/alloc_trap.hpp"

namespace talus_test {
namespace {

using talus::Status;
namespace talos = talus::models::talos;

TEST(ConsistencyConstraints, TalosBothSolesSixAxes) {
  const auto model = talos::make_model<double>();
  auto cs = std::make_unique<talus::ConstraintSet<talos::Model<double>, 12>>();
  talus::Random rng(5);
  auto s = random_state(model, rng);
  auto data = std::make_unique<talus::Data<talos::Model<double>>>();
  ASSERT_EQ(talus::forward_kinematics(model, *data, s.q), Status::ok);
  for (const char* sole : {"left_sole_link", "right_sole_link"}) {
    const int f = talos::frame_id(sole);
    talus::Transform<double> oMf;
    ASSERT_EQ(talus::frame_placement(model, *data, f, oMf), Status::ok);
    std::array<talus::LoopAxis<double>, 6> ax;
    for (int k = 0; k < 6; ++k) ax[k].axis = talus::Motion<double>::Unit(k);
    ASSERT_EQ(cs->add_loop(-1, oMf, model.frames[f].body, model.frames[f].placement,
                           {ax[0], ax[1], ax[2], ax[3], ax[4], ax[5]}, {}, sole),
              Status::ok);
  }
  ASSERT_EQ(cs->bind(model), Status::ok);
  EXPECT_EQ(cs->active_rows(), 12);
  run_random_states(model, *cs, false, 10, 6);
}

TEST(AllocConstraints, TalosSolesToggled) {
  using M = talus::models::talos::Model<double>;
  static const M model = talus::models::talos::make_model<double>();
  static talus::Data<M> data;
  static talus::ConstraintSet<M, 12> cs;
  talus::Random rng(32);
  const auto s = random_state(model, rng);
  ASSERT_EQ(talus::forward_kinematics(model, data, s.q), Status::ok);
  for (const char* sole : {"left_sole_link", "right_sole_link"}) {
    const int f = talus::models::talos::frame_id(sole);
    talus::Transform<double> oMf;
    ASSERT_EQ(talus::frame_placement(model, data, f, oMf), Status::ok);
    std::array<talus::LoopAxis<double>, 6> ax;
    for (int k = 0; k < 6; ++k) ax[k].axis = talus::Motion<double>::Unit(k);
    ASSERT_EQ(cs.add_loop(-1, oMf, model.frames[f].body, model.frames[f].placement,
                          {ax[0], ax[1], ax[2], ax[3], ax[4], ax[5]}, talus::Baumgarte<double>::on()),
              Status::ok);
  }
  ASSERT_EQ(cs.bind(model), Status::ok);
  int bad = 0;
  const std::size_t calls = heap_calls([&] {
    bad += call_everything(model, data, cs, s, false);
    (void)cs.set_active(0, false);
    bad += call_everything(model, data, cs, s, false);
    (void)cs.set_active(0, true);
    bad += call_everything(model, data, cs, s, false);
  });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace talus_test
