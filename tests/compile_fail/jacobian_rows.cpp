// A 3-row Jacobian passed to frame_jacobian (which fills a 6 x nv one) must not compile.
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;  // nq = 15, nv = 13

talus::Status call(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 6>& cs, const M::ConfigVector& q,
                   const M::TangentVector& v) {
  (void)model, (void)data, (void)cs, (void)q, (void)v;
#ifdef TALUS_COMPILE_FAIL_CONTROL
  M::Jacobian6 J;
  return talus::frame_jacobian(model, data, q, 0, talus::ReferenceFrame::local, J);
#else
  M::Jacobian3 J;
  return talus::frame_jacobian(model, data, q, 0, talus::ReferenceFrame::local, J);
#endif
}
