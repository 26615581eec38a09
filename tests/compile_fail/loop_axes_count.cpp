// A loop with 7 axes from a std::array must not compile.
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;  // nq = 15, nv = 13

talus::Status call(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 6>& cs, const M::ConfigVector& q,
                   const M::TangentVector& v) {
  (void)model, (void)data, (void)cs, (void)q, (void)v;
#ifdef TALUS_COMPILE_FAIL_CONTROL
  std::array<talus::LoopAxis<double>, 6> axes{};
  return cs.add_loop(0, talus::Transform<double>(), -1, talus::Transform<double>(), axes);
#else
  std::array<talus::LoopAxis<double>, 7> axes{};
  return cs.add_loop(0, talus::Transform<double>(), -1, talus::Transform<double>(), axes);
#endif
}
