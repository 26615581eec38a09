// Every constrained solver on the target (see solvers_check.hpp). The yardsticks are other
// methods of talus (range space, checked against the host in target_test.cpp) and the
// equations themselves (residuals), so nothing here needs reference data.
//
// Tolerances. Method against method, double: 1e-9 relative (the host's consistency tests use
// the same; measured differences are ~1e-13). Float: each method's error is within
// 32·eps_f·κ of the exact solution (target_test.cpp), so two methods within 64·eps_f·κ.
// Residuals (backward errors, independent of κ): relative to the size of the terms,
// 1000·eps of the scalar type (a backward-stable solve of the 30 × 30 KKT system, and the
// residual's own rounding, stay a few ·n·eps).
#include "solvers_check.hpp"

namespace talus_target {
namespace {

using S = Scalar;
using TV = SoloModel::TangentVector;
using CV = SoloModel::ConfigVector;
constexpr bool is_float = sizeof(S) == sizeof(float);
constexpr double eps = is_float ? 1.1920928955078125e-07 : 2.220446049250313e-16;
constexpr double res_tol = 1000 * eps;

template <class X, class R>
double rel_diff(const X& x, const R& r) {
  const double d = static_cast<double>((x - r).cwiseAbs().maxCoeff());
  const double s = static_cast<double>(r.cwiseAbs().maxCoeff());
  return s > 0 ? d / s : d;
}

/// max-norm of a matrix as an operator (largest absolute row sum)
template <class M>
double norm_inf(const M& A) {
  return A.rows() == 0 ? 0.0 : static_cast<double>(A.cwiseAbs().rowwise().sum().maxCoeff());
}

// Inverse dynamics scratch (24 KB for solo12): a namespace-scope static, initialised at
// start-up; a function-local static would need a guard (__cxa_guard_acquire), which the
// no-heap image check refuses.
talus::InverseDynamicsWorkspace<S, SoloModel::nv, 12> g_id_workspace;

}  // namespace

int run_all_solvers(const SoloModel& model, talus::Data<SoloModel>& data, SoloFeet& cs, const CV& q, const TV& v,
                    const TV& tau, double cond_ddq, double cond_lambda, SolverCheck (&out)[kSolverChecks]) {
  const double tol_ddq = is_float ? 64 * eps * cond_ddq : 1e-9;
  const double tol_lambda = is_float ? 64 * eps * cond_lambda : 1e-9;
  int n = 0;
  auto put = [&](const char* what, double err, double tol, talus::Status st) {
    if (n < kSolverChecks) out[n++] = SolverCheck{what, err, tol, st};
  };

  // yardstick: range space
  TV ddq0, ddq;
  const talus::Status s0 = talus::forward_dynamics_range_space(model, data, cs, q, v, tau, ddq0);
  const SoloFeet::RowVector lambda0 = cs.lambda;

  // forward dynamics, every other method
  using talus::KKTMethod;
  struct Direct {
    KKTMethod m;
    const char* ddq;
    const char* lambda;
  };
  const Direct direct[5] = {
      {KKTMethod::partial_piv_lu, "fd direct partial_piv_lu ddq", "fd direct partial_piv_lu lambda"},
      {KKTMethod::full_piv_lu, "fd direct full_piv_lu ddq", "fd direct full_piv_lu lambda"},
      {KKTMethod::col_piv_householder_qr, "fd direct col_piv_householder_qr ddq",
       "fd direct col_piv_householder_qr lambda"},
      {KKTMethod::householder_qr, "fd direct householder_qr ddq", "fd direct householder_qr lambda"},
      {KKTMethod::ldlt, "fd direct ldlt ddq", "fd direct ldlt lambda"},
  };
  auto worst = [](talus::Status a, talus::Status b) { return a != talus::Status::ok ? a : b; };
  for (const Direct& d : direct) {
    // Float: the rank-revealing decompositions (full-pivoting LU, column-pivoting QR, LDLT)
    // compare their smallest pivot with the default tolerance 100·eps·(nv + m) ≈ 3.6e-4 of the
    // largest, and solo12's KKT pivots spread wider than that (κ up to ~1e4): they report
    // `singular` at most of these states. Not checked in float (docs/constraints.md, limits).
    if (is_float && d.m != KKTMethod::partial_piv_lu && d.m != KKTMethod::householder_qr) continue;
    const talus::Status st = worst(s0, talus::forward_dynamics_direct(model, data, cs, q, v, tau, ddq, d.m));
    put(d.ddq, rel_diff(ddq, ddq0), tol_ddq, st);
    put(d.lambda, rel_diff(cs.lambda, lambda0), tol_lambda, st);
  }
  talus::Status st = worst(s0, talus::forward_dynamics_null_space(model, data, cs, q, v, tau, ddq));
  put("fd null-space ddq", rel_diff(ddq, ddq0), tol_ddq, st);
  put("fd null-space lambda", rel_diff(cs.lambda, lambda0), tol_lambda, st);
  st = worst(s0, talus::forward_dynamics_kokkevis(model, data, cs, q, v, tau, ddq));
  put("fd kokkevis ddq", rel_diff(ddq, ddq0), tol_ddq, st);
  put("fd kokkevis lambda", rel_diff(cs.lambda, lambda0), tol_lambda, st);

  // constrained inverse dynamics: the torques for the actuated part of the range-space q̈,
  // fed back to forward dynamics, give that q̈. Double only: its rank decisions use the pivot
  // tolerance, which is too tight for solo12 in float (as for the rank-revealing KKT methods).
  if (!is_float) {
    auto& idws = g_id_workspace;
    const auto act = talus::Actuation<SoloModel>::except_floating_base();
    TV tau_id, ddq_id;
    st = worst(s0, talus::inverse_dynamics_constrained(model, data, cs, q, v, ddq0, act, tau_id, ddq_id, idws));
    st = worst(st, talus::forward_dynamics_range_space(model, data, cs, q, v, tau_id, ddq));
    put("inverse dynamics -> fd ddq", rel_diff(ddq, ddq0), tol_ddq, st);
  }

  // impulses: G q̇⁺ = 0 and H (q̇⁺ − q̇⁻) = Gᵀ Λ
  TV vp;
  for (int m = 0; m < 3; ++m) {
    static const char* const names[3][2] = {{"impulse direct: G v+", "impulse direct: H dv - G^T Lambda"},
                                            {"impulse range-space: G v+", "impulse range-space: H dv - G^T Lambda"},
                                            {"impulse null-space: G v+", "impulse null-space: H dv - G^T Lambda"}};
    st = m == 0   ? talus::compute_impulse_direct(model, data, cs, q, v, vp)
         : m == 1 ? talus::compute_impulse_range_space(model, data, cs, q, v, vp)
                  : talus::compute_impulse_null_space(model, data, cs, q, v, vp);
    const double nG = norm_inf(cs.G), nv = static_cast<double>(vp.cwiseAbs().maxCoeff());
    put(names[m][0], static_cast<double>((cs.G * vp).cwiseAbs().maxCoeff()) / (nG * nv), res_tol, st);
    const TV dv = vp - v;
    const TV gl = cs.G.transpose() * cs.lambda;
    const double scale = norm_inf(data.H) * static_cast<double>(dv.cwiseAbs().maxCoeff()) +
                         norm_inf(cs.G.transpose()) * static_cast<double>(cs.lambda.cwiseAbs().maxCoeff());
    put(names[m][1], static_cast<double>((data.H * dv - gl).cwiseAbs().maxCoeff()) / scale, res_tol, st);
  }

  // assemble_qdot: the weighted closest velocity with G q̇ = 0
  const TV weights = TV::Ones();
  st = worst(talus::assemble_qdot(model, data, cs, q, v, weights, vp),
             talus::compute_constraint_jacobian(model, data, cs, q));
  put("assemble_qdot: G v",
      static_cast<double>((cs.G * vp).cwiseAbs().maxCoeff()) /
          (norm_inf(cs.G) * static_cast<double>(vp.cwiseAbs().maxCoeff())),
      res_tol, st);

  // assemble_q: anchors at the feet's positions at q (with anchors at the origin the position
  // errors are the feet's world positions), then back from joint angles 0.02 rad off.
  SoloFeet::RowVector p;
  st = talus::compute_position_errors(model, data, cs, q, p);
  for (int i = 0; i < 4; ++i) st = worst(st, cs.set_contact_anchor(i, p.template segment<3>(3 * i)));
  CV guess = q;
  for (int k = 7; k < SoloModel::nq; ++k) guess[k] += S(k % 2 ? 0.02 : -0.02);
  talus::AssemblyOptions<S> options;
  options.tolerance = is_float ? S(2e-6) : S(1e-12);  // m; float: ≈ 16 eps_f at a foot 1 m from the origin
  talus::AssemblyReport<S> report;
  CV qa;
  st = worst(st, talus::assemble_q(model, data, cs, guess, weights, qa, options, &report));
  put("assemble_q: position error (m)", static_cast<double>(report.residual), static_cast<double>(options.tolerance),
      st);
  for (int i = 0; i < 4; ++i) (void)cs.set_contact_anchor(i, talus::Vector3<S>::Zero());  // cannot fail: i < 4 contacts
  return n;
}

}  // namespace talus_target
