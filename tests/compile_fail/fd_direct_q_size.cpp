// q̇ (nv entries) passed where q (nq entries) is expected to forward_dynamics_direct must not
// compile, and the first error must name the function and the argument.
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;  // nq = 15, nv = 13

talus::Status call(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 6>& cs, const M::ConfigVector& q,
                   const M::TangentVector& v) {
  M::TangentVector ddq;
#ifdef TALUS_COMPILE_FAIL_CONTROL
  return talus::forward_dynamics_direct(model, data, cs, q, v, v, ddq);
#else
  (void)q;
  return talus::forward_dynamics_direct(model, data, cs, v, v, v, ddq);
#endif
}
