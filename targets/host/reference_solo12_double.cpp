// talus_target_reference (reference.cpp): solo12's computations of a state in double, compiled
// here so that they compile alongside reference.cpp (reference.hpp).
#include "reference.hpp"

namespace talus_target_reference_tool {

TALUS_REF_SOLO12(, double)

}  // namespace talus_target_reference_tool
