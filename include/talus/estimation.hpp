#pragma once
/// \file estimation.hpp
/// Floating-base state estimation for legged robots in one include: the contact-aided
/// invariant EKF, the feet's kinematic measurements it corrects with, and the two together as
/// a firmware's one-call-per-period estimator (docs/estimation.md).
#include <talus/estimation/invariant_ekf.hpp>
#include <talus/estimation/leg_kinematics.hpp>
#include <talus/estimation/legged_estimator.hpp>
