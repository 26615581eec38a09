// A fixed nv-vector for the position errors (active rows, known at run time) must not
// compile: it read past the set's rows (a test did this until sizes were checked).
#include <talus/constraints.hpp>

#include "support/hand_models.hpp"

using M = talus_test::Chain<double>;

talus::Status call(const M& model, talus::Data<M>& data, talus::ConstraintSet<M, 6>& cs, const M::ConfigVector& q) {
#ifdef TALUS_COMPILE_FAIL_CONTROL
  talus::ConstraintSet<M, 6>::RowVector e;
#else
  M::TangentVector e;
#endif
  return talus::compute_position_errors(model, data, cs, q, e);
}
