#pragma once
/// \file control.hpp
/// Reusable controllers built on talus in one include: the legged balance controller
/// (whole-body inverse dynamics, contact forces inside friction cones, safe modes).
#include <talus/control/balance_controller.hpp>
