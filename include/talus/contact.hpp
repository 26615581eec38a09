#pragma once
/// \file contact.hpp
/// Unilateral contact with Coulomb friction in one include: the LCP solver (Lemke), the
/// exact-cone solvers (PGS, ADMM), ContactProblem and the contact solves at the acceleration
/// level, for impacts and for time stepping (docs/contact.md).
#include <talus/solvers/lcp_lemke.hpp>
#include <talus/contact/cone_solvers.hpp>
#include <talus/contact/contact_problem.hpp>
#include <talus/contact/contact_dynamics.hpp>
