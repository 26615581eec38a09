#pragma once
/// \file constraints.hpp
/// Constraints in one include (include/talus/constraints/): ConstraintSet, constraint
/// quantities, assembly, constraint wrenches and the elimination of a set's rows from a larger
/// solve (bilateral_elimination.hpp, internal: the contact solves use it). The constrained
/// solvers are in solvers.hpp; for one release this header still includes them too, so code
/// written against the old aggregate keeps compiling (include talus/solvers.hpp for the solvers).
#include <talus/constraints/assembly.hpp>
#include <talus/constraints/bilateral_elimination.hpp>
#include <talus/constraints/constraint_forces.hpp>
#include <talus/constraints/constraint_quantities.hpp>
#include <talus/constraints/constraint_set.hpp>
// deprecated, for one release: the solvers (solvers.hpp) through this aggregate
#include <talus/solvers/forward_dynamics_articulated.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>
#include <talus/solvers/forward_dynamics_proximal.hpp>
#include <talus/solvers/impulses.hpp>
#include <talus/solvers/inverse_dynamics_constrained.hpp>
#include <talus/solvers/kkt.hpp>
