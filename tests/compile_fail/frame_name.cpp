// A misspelled frame name in a constant expression must not compile: the generated frame_id
// reaches the non-constexpr frame_name_not_in_model for a name that is not a frame.
#include <talus/models/solo12.hpp>

namespace solo = talus::models::solo12;

#ifdef TALUS_COMPILE_FAIL_CONTROL
constexpr int foot = solo::frame_id("FL_FOOT");
#else
constexpr int foot = solo::frame_id("FL_FOTO");
#endif
static_assert(foot >= 0);
int use_foot() { return foot; }
