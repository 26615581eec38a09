#pragma once
// Unilateral contact on the target (targets/contact_check.cpp): solo12 on its four feet as
// unilateral contacts with friction, forward_dynamics_contact at the acceleration level, at
// the reference states, against the host's values (talus_target_contact_reference.hpp,
// written by targets/host/contact_reference.cpp). Linked into talus_target_test, so on bare
// metal the image check of target_<name>_no_heap covers the contact solvers too.
#include <talus/model/data.hpp>

#include "target_model.hpp"
#include "target_support.hpp"

namespace talus_target {

/// Runs the contact checks (Lemke with the feet at rest and moving, PGS on exact cones) at
/// every reference state with `data` as the workspace, prints the results through
/// talus::port::log_write (worst errors, pivots and sweeps, stack on Cortex-M, sizes), and
/// returns how many checks ran and failed.
Tally run_contact_checks(const SoloModel& model, talus::Data<SoloModel>& data);

}  // namespace talus_target
