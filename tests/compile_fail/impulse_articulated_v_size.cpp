// q (nq entries) passed where q̇⁻ (nv entries) is expected to compute_impulse_articulated must
// not compile, and the first (and only) error must name the function and the argument.
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;  // nq = 15, nv = 13

talus::Status call(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 6>& cs, const M::ConfigVector& q,
                   const M::TangentVector& v) {
  M::TangentVector v_plus;
#ifdef TALUS_COMPILE_FAIL_CONTROL
  return talus::compute_impulse_articulated(model, data, cs, q, v, v_plus);
#else
  (void)v;
  return talus::compute_impulse_articulated(model, data, cs, q, q, v_plus);
#endif
}
