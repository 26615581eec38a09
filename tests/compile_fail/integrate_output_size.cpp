// integrate's output sized nv must not compile.
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;  // nq = 15, nv = 13

talus::Status call(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 6>& cs, const M::ConfigVector& q,
                   const M::TangentVector& v) {
  (void)model, (void)data, (void)cs, (void)q, (void)v;
#ifdef TALUS_COMPILE_FAIL_CONTROL
  M::ConfigVector out;
  return talus::integrate(model, q, v, out);
#else
  M::TangentVector out;
  return talus::integrate(model, q, v, out);
#endif
}
