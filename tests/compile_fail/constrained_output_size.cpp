// The output of a constrained solve sized nq must not compile.
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;  // nq = 15, nv = 13

talus::Status call(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 6>& cs, const M::ConfigVector& q,
                   const M::TangentVector& v) {
  (void)model, (void)data, (void)cs, (void)q, (void)v;
#ifdef TALUS_COMPILE_FAIL_CONTROL
  M::TangentVector ddq;
  return talus::forward_dynamics_direct(model, data, cs, q, v, v, ddq);
#else
  M::ConfigVector ddq;
  return talus::forward_dynamics_direct(model, data, cs, q, v, v, ddq);
#endif
}
