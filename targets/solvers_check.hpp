#pragma once
// Every constrained solver of talus, on the target, at one state of solo12 standing on its
// four feet (targets/solvers_check.cpp). Linked into talus_target_test, so on bare metal the
// image check of target_<name>_no_heap (no malloc linked) covers every solver, not only the
// two that target_test.cpp compares with the host.
#include <talus/constraints.hpp>

#include "target_model.hpp"

namespace talus_target {

using SoloFeet = talus::ConstraintSet<SoloModel, 12>;

/// One comparison: err ≤ tol passes (NaN fails), and status must be ok.
struct SolverCheck {
  const char* what = "";
  double err = 0;
  double tol = 0;
  talus::Status status = talus::Status::ok;
};

constexpr int kSolverChecks = 23;

/// Runs, at (q, v, τ): forward dynamics by the direct method with each of the five KKT
/// decompositions, the null-space and the Kokkevis methods, each compared with the range-space
/// result (q̈ and λ); constrained inverse dynamics round trip (double); impulses by the three methods (residuals G q̇⁺ = 0 and
/// H (q̇⁺ − q̇⁻) = GᵀΛ); assemble_qdot (residual G q̇ = 0); assemble_q back to the feet's
/// positions from perturbed joint angles (residual). cond_ddq and cond_lambda: the state's
/// condition numbers of q̈ and λ (reference header), for the float tolerances. `cs` holds the
/// four feet, all active, anchors at the world origin; left so on return. Returns the number
/// of checks filled in out (the same at every state; fewer in float, see solvers_check.cpp).
int run_all_solvers(const SoloModel& model, talus::Data<SoloModel>& data, SoloFeet& cs,
                    const SoloModel::ConfigVector& q, const SoloModel::TangentVector& v,
                    const SoloModel::TangentVector& tau, double cond_ddq, double cond_lambda,
                    SolverCheck (&out)[kSolverChecks]);

}  // namespace talus_target
