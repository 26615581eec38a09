#pragma once
/// \file estimation.hpp
/// Floating-base state estimation for legged robots in one include: the contact-aided
/// invariant EKF and the feet's kinematic measurements it corrects with (docs/estimation.md).
#include <talus/estimation/invariant_ekf.hpp>
#include <talus/estimation/leg_kinematics.hpp>
