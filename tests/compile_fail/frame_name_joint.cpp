// A misspelled joint name in a constant expression must not compile: the generated joint_id
// (and joint_idx_q / joint_idx_v, which use it) reaches the non-constexpr
// joint_name_not_in_model for a name that is not a joint.
#include <talus/models/solo12.hpp>

namespace solo = talus::models::solo12;

#ifdef TALUS_COMPILE_FAIL_CONTROL
constexpr int knee = solo::joint_idx_q("FL_KFE");
#else
constexpr int knee = solo::joint_idx_q("FL_KNEE");
#endif
static_assert(knee >= 7);
int use_knee() { return knee; }
