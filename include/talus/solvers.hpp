#pragma once
/// \file solvers.hpp
/// The constrained solvers in one include (include/talus/solvers/): the KKT solves, constrained
/// forward dynamics (direct, range space, null space, Kokkevis), the articulated, proximal and
/// constrained-ABA methods, impulses and constrained inverse dynamics. Includes constraints.hpp (the
/// ConstraintSet they solve).
#include <talus/constraints.hpp>
#include <talus/solvers/forward_dynamics_articulated.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>
#include <talus/solvers/forward_dynamics_constrained_aba.hpp>
#include <talus/solvers/forward_dynamics_proximal.hpp>
#include <talus/solvers/impulses.hpp>
#include <talus/solvers/inverse_dynamics_constrained.hpp>
#include <talus/solvers/kkt.hpp>
