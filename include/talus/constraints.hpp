#pragma once
/// \file constraints.hpp
/// Constraints and constrained solvers in one include: ConstraintSet, constraint quantities,
/// assembly, constraint wrenches, constrained forward dynamics and impulses.
#include <talus/constraints/constraint_set.hpp>
#include <talus/constraints/constraint_quantities.hpp>
#include <talus/constraints/constraint_forces.hpp>
#include <talus/constraints/assembly.hpp>
#include <talus/solvers/workspace.hpp>
#include <talus/solvers/kkt.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>
#include <talus/solvers/forward_dynamics_proximal.hpp>
#include <talus/solvers/impulses.hpp>
#include <talus/solvers/forward_dynamics_articulated.hpp>
#include <talus/solvers/inverse_dynamics_constrained.hpp>
