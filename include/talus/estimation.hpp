#pragma once
/// \file estimation.hpp
/// Floating-base state estimation for legged robots in one include: the contact-aided
/// invariant EKF, the cheaper leg-odometry invariant EKF (no feet in the state), the feet's
/// kinematic measurements they correct with, and the first two together as a firmware's
/// one-call-per-period estimator (docs/estimation.md), and the feet's contacts for a robot
/// without foot switches.
#include <talus/estimation/contact_detection.hpp>
#include <talus/estimation/imu_filter.hpp>
#include <talus/estimation/invariant_ekf.hpp>
#include <talus/estimation/leg_kinematics.hpp>
#include <talus/estimation/leg_odometry_ekf.hpp>
#include <talus/estimation/legged_estimator.hpp>
