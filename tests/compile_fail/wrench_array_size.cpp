// constraint_wrenches with an array that does not hold one wrench per constraint must not compile.
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;  // nq = 15, nv = 13

talus::Status call(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 6>& cs, const M::ConfigVector& q,
                   const M::TangentVector& v) {
  (void)model, (void)data, (void)cs, (void)q, (void)v;
#ifdef TALUS_COMPILE_FAIL_CONTROL
  std::array<talus::ConstraintWrench<double>, 6> w;
  return talus::constraint_wrenches(model, data, cs, talus::ReferenceFrame::world, w);
#else
  std::array<talus::ConstraintWrench<double>, 2> w;
  return talus::constraint_wrenches(model, data, cs, talus::ReferenceFrame::world, w);
#endif
}
