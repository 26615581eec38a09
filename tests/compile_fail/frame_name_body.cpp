// A misspelled body (link) name in a constant expression must not compile: the generated
// body_id reaches the non-constexpr body_name_not_in_model for a name that is not a body.
#include <talus/models/solo12.hpp>

namespace solo = talus::models::solo12;

#ifdef TALUS_COMPILE_FAIL_CONTROL
constexpr int shank = solo::body_id("FL_LOWER_LEG");
#else
constexpr int shank = solo::body_id("FL_LOWER_LGE");
#endif
static_assert(shank > 0);
int use_shank() { return shank; }
