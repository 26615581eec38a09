#pragma once
// The floating-base state estimator on the target (targets/estimation_check.cpp): solo12's
// LeggedEstimator with each filter (InvariantEkf, LegOdometryEkf) over the input sequence of
// talus_target_estimation_reference.hpp (standing, a constant-rate base rotation, a foot lifting
// and landing), against the host's double estimates and the sequence's analytic truth; bad
// input (a NaN IMU sample, a saturated accelerometer) refused with the state kept, an unknown
// foot refused at init. Linked into talus_target_test, so target_<name>_no_heap covers the
// estimator too.
#include "target_model.hpp"
#include "target_support.hpp"

namespace talus_target {

/// Runs the estimator checks on `model` (each estimator has its own Data), prints the results
/// through talus::port::log_write (worst errors against their tolerances, counter ticks per
/// update, stack per update on Cortex-M, sizes), and returns how many checks ran and failed.
Tally run_estimation_checks(const SoloModel& model);

}  // namespace talus_target
