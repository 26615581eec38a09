// Compiled with -march=native -Werror (tests/CMakeLists.txt): the constraint code paths that
// GCC 12 used to warn about under AVX-512 (custom constraints: rows of a 6-row block), on the
// hand-written chain, so that firmware built with -march=native and -Werror compiles.
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

namespace {
using M = talus_test::Chain<double>;

class Slider : public talus::CustomConstraint<M> {
 public:
  int rows() const override { return 2; }
  void jacobian(const M&, const talus::Data<M>&, const ConfigVector&, Rows& G) const override {
    G(0, 6) = 1;
    G(1, 9) = 1;
  }
  void gamma(const M&, const talus::Data<M>&, const ConfigVector&, const TangentVector&, RowValues& g) const override {
    g.setZero();
  }
  void position_errors(const M&, const talus::Data<M>&, const ConfigVector&, RowValues& e) const override {
    e.setZero();
  }
};
}  // namespace

talus::Status native_check(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 8, 4>& cs,
                           const M::ConfigVector& q, const M::TangentVector& v, const M::TangentVector& tau,
                           M::TangentVector& ddq, std::array<talus::ConstraintWrench<double>, 4>& w) {
  static const Slider slider;
  if (cs.size() == 0 && cs.add_custom(slider) != talus::Status::ok) return talus::Status::invalid_input;
  if (cs.bind(model) != talus::Status::ok) return talus::Status::invalid_input;
  const talus::Status s = talus::forward_dynamics_range_space(model, data, cs, q, v, tau, ddq);
  if (s != talus::Status::ok) return s;
  return talus::constraint_wrenches(model, data, cs, talus::ReferenceFrame::world, w);
}
