#pragma once
/// \file contact.hpp
/// Unilateral contact with Coulomb friction in one include (include/talus/contact/): the LCP
/// solver (Lemke), the exact-cone solvers (PGS, ADMM), ContactProblem, the active-set
/// recovery and the contact solves at the acceleration level, for impacts and for time
/// stepping (docs/contact.md).
#include <talus/contact/active_set_recovery.hpp>
#include <talus/contact/cone_solvers.hpp>
#include <talus/contact/contact_dynamics.hpp>
#include <talus/contact/contact_problem.hpp>
#include <talus/contact/lcp_lemke.hpp>
