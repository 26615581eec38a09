// Passing v (nv entries) where q (nq entries) is expected must not compile.
#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;  // nq = nv + 2 (free flyer and spherical quaternions)

talus::Status call(const M& model, talus::Data<M>& data, const M::ConfigVector& q, const M::TangentVector& v) {
#ifdef TALUS_COMPILE_FAIL_CONTROL
  (void)v;
  return talus::crba(model, data, q);
#else
  (void)q;
  return talus::crba(model, data, v);
#endif
}
