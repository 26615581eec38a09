// The output of compute_impulse_range_space sized nq must not compile, and the first error must
// name the function and the argument.
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;  // nq = 15, nv = 13

talus::Status call(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 6>& cs, const M::ConfigVector& q,
                   const M::TangentVector& v) {
#ifdef TALUS_COMPILE_FAIL_CONTROL
  M::TangentVector v_plus;
#else
  M::ConfigVector v_plus;
#endif
  return talus::compute_impulse_range_space(model, data, cs, q, v, v_plus);
}
