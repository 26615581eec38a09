#pragma once
// The model the target checks share: solo12 in the target's scalar (TALUS_TARGET_SCALAR:
// double, float on the Cortex-M4F), as contact_check, estimation_check and solvers_check
// take it.
#include <talus/models/solo12.hpp>

#ifndef TALUS_TARGET_SCALAR
#define TALUS_TARGET_SCALAR double
#endif

namespace talus_target {

using Scalar = TALUS_TARGET_SCALAR;
using SoloModel = talus::models::solo12::Model<Scalar>;

}  // namespace talus_target
