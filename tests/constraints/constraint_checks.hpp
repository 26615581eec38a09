#pragma once
// Shared checks of the constraint tests: every solver on the same state, KKT residuals,
// impulses, wrenches.
#include <gtest/gtest.h>

#include "constraints/mechanisms.hpp"
#include "support/random_state.hpp"

namespace talus_test {

inline constexpr talus::KKTMethod all_kkt_methods[] = {talus::KKTMethod::partial_piv_lu, talus::KKTMethod::full_piv_lu,
                                                       talus::KKTMethod::col_piv_householder_qr,
                                                       talus::KKTMethod::householder_qr, talus::KKTMethod::ldlt};

template <class ModelT>
using DynMatrix = Eigen::MatrixXd;

/// Solves forward dynamics by every method, checks they agree (≤ 1e-9 relative on q̈ and λ)
/// and that the KKT residuals are ≤ 1e-10. Returns q̈ of the direct method; λ in lambda_out.
template <class ModelT, int MR, int MC, class Q, class V, class T>
typename ModelT::TangentVector check_forward_methods(const ModelT& model, talus::ConstraintSet<ModelT, MR, MC>& cs,
                                                     const Q& q, const V& v, const T& tau, bool contacts_only,
                                                     Eigen::VectorXd* lambda_out = nullptr) {
  using TV = typename ModelT::TangentVector;
  auto data = std::make_unique<talus::Data<ModelT>>();
  TV ddq_ref, ddq;
  EXPECT_EQ(talus::forward_dynamics_direct(model, *data, cs, q, v, tau, ddq_ref), talus::Status::ok);
  const Eigen::VectorXd lambda_ref = cs.lambda;
  const Eigen::MatrixXd G = cs.G;
  const Eigen::VectorXd gamma = cs.gamma;
  const Eigen::MatrixXd H = data->H;
  const Eigen::VectorXd C = cs.C;
  // KKT residuals, relative to the size of the terms
  const double fscale =
      std::max({1.0, (H * ddq_ref).cwiseAbs().maxCoeff(), C.cwiseAbs().maxCoeff(), tau.cwiseAbs().maxCoeff()});
  EXPECT_LE((H * ddq_ref + C - G.transpose() * lambda_ref - tau).cwiseAbs().maxCoeff() / fscale, 1e-10);
  if (G.rows() > 0) {
    EXPECT_LE((G * ddq_ref - gamma).cwiseAbs().maxCoeff() / std::max(1.0, gamma.cwiseAbs().maxCoeff()), 1e-10);
  }
  for (talus::KKTMethod m : all_kkt_methods) {
    EXPECT_EQ(talus::forward_dynamics_direct(model, *data, cs, q, v, tau, ddq, m), talus::Status::ok)
        << talus::to_string(m);
    EXPECT_LE(rel_err(ddq, ddq_ref), 1e-9) << talus::to_string(m);
    EXPECT_LE(rel_err(cs.lambda, lambda_ref), 1e-9) << talus::to_string(m);
  }
  EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, cs, q, v, tau, ddq), talus::Status::ok);
  EXPECT_LE(rel_err(ddq, ddq_ref), 1e-9) << "range space";
  EXPECT_LE(rel_err(cs.lambda, lambda_ref), 1e-9) << "range space";
  EXPECT_EQ(talus::forward_dynamics_null_space(model, *data, cs, q, v, tau, ddq), talus::Status::ok);
  EXPECT_LE(rel_err(ddq, ddq_ref), 1e-9) << "null space";
  EXPECT_LE(rel_err(cs.lambda, lambda_ref), 1e-9) << "null space";
  // the articulated-body method handles every kind: within 1e-10 of the direct method
  EXPECT_EQ(talus::forward_dynamics_articulated(model, *data, cs, q, v, tau, ddq), talus::Status::ok);
  EXPECT_LE(rel_err(ddq, ddq_ref), 1e-10) << "articulated";
  EXPECT_LE(rel_err(cs.lambda, lambda_ref), 1e-10) << "articulated";
  EXPECT_LE((G - Eigen::MatrixXd(cs.G)).cwiseAbs().maxCoeff(), 1e-12 * std::max(1.0, G.cwiseAbs().maxCoeff()))
      << "articulated: G";
  {  // with external forces on the last body, against the range-space method
    talus::ExternalForces<ModelT> fext = talus::zero_external_forces<ModelT>();
    fext[ModelT::nb - 1] << 0.3, -0.2, 0.1, 2, -1, 3;
    TV ddq_rs;
    EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, cs, q, v, tau, ddq_rs, &fext), talus::Status::ok);
    const Eigen::VectorXd lambda_rs = cs.lambda;
    EXPECT_EQ(talus::forward_dynamics_articulated(model, *data, cs, q, v, tau, ddq, &fext), talus::Status::ok);
    EXPECT_LE(rel_err(ddq, ddq_rs), 1e-10) << "articulated, fext";
    EXPECT_LE(rel_err(cs.lambda, lambda_rs), 1e-10) << "articulated, fext";
  }
  if (contacts_only) {
    EXPECT_EQ(talus::forward_dynamics_kokkevis(model, *data, cs, q, v, tau, ddq), talus::Status::ok);
    EXPECT_LE(rel_err(ddq, ddq_ref), 1e-9) << "kokkevis";
    EXPECT_LE(rel_err(cs.lambda, lambda_ref), 1e-9) << "kokkevis";
  } else {
    EXPECT_EQ(talus::forward_dynamics_kokkevis(model, *data, cs, q, v, tau, ddq), talus::Status::invalid_input);
  }
  if (lambda_out) *lambda_out = lambda_ref;
  return ddq_ref;
}

/// γ and G from outside the solvers: γ = −Ġ q̇ by a central difference of G along q̇
/// (G(q ⊕ h q̇) − G(q ⊖ h q̇)) / 2h, with the Baumgarte terms added back from the errors; and,
/// if `positions`, the position errors' derivative along q̇ equals G q̇ (rows that are
/// position-level; exact for contacts and linear loop rows, for angular loop rows only at a
/// closed loop).
template <class ModelT, int MR, int MC, class Q, class V>
void check_gamma_and_jacobian(const ModelT& model, talus::ConstraintSet<ModelT, MR, MC>& cs, const Q& q, const V& v,
                              bool positions) {
  auto data = std::make_unique<talus::Data<ModelT>>();
  const double h = 1e-6;
  typename ModelT::ConfigVector qp, qm;
  ASSERT_EQ(talus::integrate(model, q, (h * v).eval(), qp), talus::Status::ok);
  ASSERT_EQ(talus::integrate(model, q, (-h * v).eval(), qm), talus::Status::ok);
  ASSERT_EQ(talus::compute_constraint_jacobian(model, *data, cs, qp), talus::Status::ok);
  const Eigen::MatrixXd Gp = cs.G;
  const Eigen::VectorXd ep = cs.position_error;
  ASSERT_EQ(talus::compute_constraint_jacobian(model, *data, cs, qm), talus::Status::ok);
  const Eigen::MatrixXd Gm = cs.G;
  const Eigen::VectorXd em = cs.position_error;
  ASSERT_EQ(talus::compute_constraint_gamma(model, *data, cs, q, v), talus::Status::ok);
  Eigen::VectorXd gamma = cs.gamma;
  const Eigen::VectorXd Gv = cs.G * v;
  Eigen::VectorXd ev;
  ASSERT_EQ(talus::compute_velocity_errors(model, *data, cs, q, v, ev), talus::Status::ok);
  Eigen::VectorXd e;
  ASSERT_EQ(talus::compute_position_errors(model, *data, cs, q, e), talus::Status::ok);
  for (int c = 0; c < cs.size(); ++c) {
    const int r = cs.row_offset(c);
    const auto& en = cs.constraint(c);
    if (r < 0 || !en.baumgarte.enabled) continue;
    const double a = 1.0 / en.baumgarte.time_constant;
    for (int j = 0; j < en.rows; ++j) gamma[r + j] += 2 * a * ev[r + j] + a * a * e[r + j];
  }
  const Eigen::VectorXd fd = -((Gp - Gm) / (2 * h)) * v;
  EXPECT_LE((gamma - fd).cwiseAbs().maxCoeff(), 1e-6 * std::max(1.0, fd.cwiseAbs().maxCoeff())) << "gamma = -dG/dt v";
  if (positions) {
    const Eigen::VectorXd de = (ep - em) / (2 * h);
    for (int c = 0; c < cs.size(); ++c) {
      const int r = cs.row_offset(c);
      const auto& en = cs.constraint(c);
      if (r < 0) continue;
      for (int j = 0; j < en.rows; ++j)
        if (en.kind == talus::ConstraintKind::contact || en.position_level[j]) {
          EXPECT_NEAR(de[r + j], Gv[r + j], 1e-6 * std::max(1.0, std::abs(Gv[r + j]))) << "row " << r + j;
        }
    }
  }
}

/// Impulses by every method: agree, reach G q̇⁺ = v⁺ (zero and a random target), and a
/// plastic impact (v⁺ = 0) does not add kinetic energy.
template <class ModelT, int MR, int MC, class Q, class V>
void check_impulse_methods(const ModelT& model, talus::ConstraintSet<ModelT, MR, MC>& cs, const Q& q, const V& v_minus,
                           talus::Random& rng) {
  using TV = typename ModelT::TangentVector;
  using RV = typename talus::ConstraintSet<ModelT, MR, MC>::RowVector;
  auto data = std::make_unique<talus::Data<ModelT>>();
  TV vp_ref, vp;
  for (int with_target = 0; with_target < 2; ++with_target) {
    RV target = RV::Zero(cs.active_rows());
    if (with_target)
      for (int k = 0; k < target.size(); ++k) target[k] = rng.uniform(-0.5, 0.5);
    const RV* tp = with_target ? &target : nullptr;
    ASSERT_EQ(talus::compute_impulse_direct(model, *data, cs, q, v_minus, vp_ref, talus::KKTMethod::partial_piv_lu, tp),
              talus::Status::ok);
    const Eigen::VectorXd L_ref = cs.lambda;
    const Eigen::MatrixXd G = cs.G;
    const Eigen::MatrixXd H = data->H;
    EXPECT_LE((G * vp_ref - Eigen::VectorXd(target)).cwiseAbs().maxCoeff(), 1e-10);
    // H (q̇⁺ − q̇⁻) = Gᵀ Λ
    EXPECT_LE((H * (vp_ref - v_minus) - G.transpose() * L_ref).cwiseAbs().maxCoeff() /
                  std::max(1.0, L_ref.cwiseAbs().maxCoeff()),
              1e-10);
    if (!with_target) {
      const double T_minus = 0.5 * v_minus.dot(H * v_minus);
      const double T_plus = 0.5 * vp_ref.dot(H * vp_ref);
      EXPECT_LE(T_plus, T_minus * (1 + 1e-12) + 1e-14) << "a plastic impact must not add energy";
    }
    for (talus::KKTMethod m : all_kkt_methods) {
      EXPECT_EQ(talus::compute_impulse_direct(model, *data, cs, q, v_minus, vp, m, tp), talus::Status::ok);
      EXPECT_LE(rel_err(vp, vp_ref), 1e-9) << talus::to_string(m);
      EXPECT_LE(rel_err(cs.lambda, L_ref), 1e-9) << talus::to_string(m);
    }
    EXPECT_EQ(talus::compute_impulse_range_space(model, *data, cs, q, v_minus, vp, tp), talus::Status::ok);
    EXPECT_LE(rel_err(vp, vp_ref), 1e-9);
    EXPECT_LE(rel_err(cs.lambda, L_ref), 1e-9);
    EXPECT_EQ(talus::compute_impulse_null_space(model, *data, cs, q, v_minus, vp, tp), talus::Status::ok);
    EXPECT_LE(rel_err(vp, vp_ref), 1e-9);
    EXPECT_LE(rel_err(cs.lambda, L_ref), 1e-9);
    EXPECT_EQ(talus::compute_impulse_articulated(model, *data, cs, q, v_minus, vp, tp), talus::Status::ok);
    EXPECT_LE(rel_err(vp, vp_ref), 1e-10) << "articulated";
    EXPECT_LE(rel_err(cs.lambda, L_ref), 1e-10) << "articulated";
  }
}

/// Constraint wrenches (after a forward solve) reproduce Gᵀ λ, in the world and body frames.
template <class ModelT, int MR, int MC, class Q, class V, class T>
void check_wrenches(const ModelT& model, talus::ConstraintSet<ModelT, MR, MC>& cs, const Q& q, const V& v,
                    const T& tau) {
  using TV = typename ModelT::TangentVector;
  auto data = std::make_unique<talus::Data<ModelT>>();
  TV ddq;
  ASSERT_EQ(talus::forward_dynamics_direct(model, *data, cs, q, v, tau, ddq), talus::Status::ok);
  std::array<talus::ConstraintWrench<double>, MC> world, local;
  ASSERT_EQ(talus::constraint_wrenches(model, *data, cs, talus::ReferenceFrame::world, world), talus::Status::ok);
  ASSERT_EQ(talus::constraint_wrenches(model, *data, cs, talus::ReferenceFrame::local, local), talus::Status::ok);
  const Eigen::VectorXd Gtl = cs.G.transpose() * cs.lambda;
  ASSERT_EQ(talus::compute_joint_jacobians(model, *data, q), talus::Status::ok);
  TV sum = TV::Zero();
  for (int c = 0; c < cs.size(); ++c) {
    for (int k = 0; k < world[c].count; ++k) {
      const int b = world[c].body[k];
      if (b < 0) continue;
      talus::detail::for_each_supporting_dof<ModelT>(b,
                                                     [&](int j) { sum[j] += data->J.col(j).dot(world[c].force[k]); });
      const talus::Force<double> back = data->oMi[b].act_force(local[c].force[k]);
      EXPECT_LE((back - world[c].force[k]).cwiseAbs().maxCoeff(), 1e-10 * std::max(1.0, world[c].force[k].norm()));
    }
  }
  EXPECT_LE(rel_err(sum, Gtl), 1e-10);
}

/// 4 feet × 3 world axes (x, y, z) on a quadruped.
template <class ModelT, int MR>
void add_feet(const ModelT& model, talus::ConstraintSet<ModelT, MR>& cs, const std::array<int, 4>& frames) {
  static const char* names[] = {"foot0", "foot1", "foot2", "foot3"};
  for (int k = 0; k < 4; ++k) {
    const auto& F = model.frames[frames[k]];
    ASSERT_EQ(cs.add_contact(F.body, F.placement.p,
                             {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}, names[k],
                             100 + k),
              talus::Status::ok);
  }
  ASSERT_EQ(cs.bind(model), talus::Status::ok);
}

template <class ModelT, int MR>
void run_random_states(const ModelT& model, talus::ConstraintSet<ModelT, MR>& cs, bool contacts_only, int states,
                       uint64_t seed) {
  talus::Random rng(seed);
  for (int i = 0; i < states; ++i) {
    const auto s = random_state(model, rng);
    check_forward_methods(model, cs, s.q, s.v, s.tau, contacts_only);
    check_gamma_and_jacobian(model, cs, s.q, s.v, contacts_only);
    check_impulse_methods(model, cs, s.q, s.v, rng);
    check_wrenches(model, cs, s.q, s.v, s.tau);
  }
}

/// A consistent state of a closed chain: assembled from a guess, checked, with a random
/// consistent velocity.
template <class ModelT, int MR>
void assemble(const ModelT& model, talus::ConstraintSet<ModelT, MR>& cs, typename ModelT::ConfigVector& q,
              typename ModelT::TangentVector& v, talus::Random& rng) {
  auto data = std::make_unique<talus::Data<ModelT>>();
  const typename ModelT::TangentVector w = ModelT::TangentVector::Ones();
  typename ModelT::ConfigVector qa;
  talus::AssemblyReport<double> rep;
  ASSERT_EQ(talus::assemble_q(model, *data, cs, q, w, qa, {}, &rep), talus::Status::ok) << rep.residual;
  // from a perturbed consistent state Newton converges quadratically: a few iterations
  typename ModelT::TangentVector dq;
  for (int k = 0; k < ModelT::nv; ++k) dq[k] = rng.uniform(-0.05, 0.05);
  typename ModelT::ConfigVector qp;
  ASSERT_EQ(talus::integrate(model, qa, dq, qp), talus::Status::ok);
  ASSERT_EQ(talus::assemble_q(model, *data, cs, qp, w, qa, {}, &rep), talus::Status::ok) << rep.residual;
  EXPECT_LE(rep.iterations, 6);
  EXPECT_GE(rep.iterations, 2) << "the perturbation must have broken the constraint";
  Eigen::VectorXd e;
  ASSERT_EQ(talus::compute_position_errors(model, *data, cs, qa, e), talus::Status::ok);
  EXPECT_LE(e.cwiseAbs().maxCoeff(), 1e-12);
  q = qa;
  typename ModelT::TangentVector v0;
  for (int k = 0; k < ModelT::nv; ++k) v0[k] = rng.uniform(-1, 1);
  ASSERT_EQ(talus::assemble_qdot(model, *data, cs, q, v0, w, v), talus::Status::ok);
  ASSERT_EQ(talus::compute_constraint_jacobian(model, *data, cs, q), talus::Status::ok);
  EXPECT_LE((cs.G * v).cwiseAbs().maxCoeff(), 1e-12);
  // the closest: v − v0 lies in the row space of G (orthogonal to the null space)
  Eigen::FullPivLU<Eigen::MatrixXd> lu(Eigen::MatrixXd(cs.G));
  const Eigen::MatrixXd N = lu.kernel();
  EXPECT_LE((N.transpose() * (v - v0)).cwiseAbs().maxCoeff(), 1e-12);
}

/// Every function once, on the current activation; returns the number of non-ok statuses.
template <class ModelT, int MR, class State>
int call_everything(const ModelT& model, talus::Data<ModelT>& data, talus::ConstraintSet<ModelT, MR>& cs,
                    const State& s, bool contacts_only) {
  int bad = 0;
  typename ModelT::TangentVector out, v;
  typename ModelT::ConfigVector q;
  typename talus::ConstraintSet<ModelT, MR>::RowVector err, target;
  std::array<talus::ConstraintWrench<double>, MR> w;
  auto count = [&](talus::Status st) { bad += st != talus::Status::ok; };
  count(talus::compute_constraint_jacobian(model, data, cs, s.q));
  count(talus::compute_constraint_gamma(model, data, cs, s.q, s.v));
  count(talus::compute_position_errors(model, data, cs, s.q, err));
  count(talus::compute_velocity_errors(model, data, cs, s.q, s.v, err));
  count(talus::compute_constrained_system(model, data, cs, s.q, s.v));
  for (talus::KKTMethod m : all_kkt_methods) {
    count(talus::forward_dynamics_direct(model, data, cs, s.q, s.v, s.tau, out, m));
    count(talus::compute_impulse_direct(model, data, cs, s.q, s.v, out, m));
  }
  count(talus::forward_dynamics_range_space(model, data, cs, s.q, s.v, s.tau, out));
  count(talus::forward_dynamics_null_space(model, data, cs, s.q, s.v, s.tau, out));
  if (contacts_only) count(talus::forward_dynamics_kokkevis(model, data, cs, s.q, s.v, s.tau, out));
  count(talus::forward_dynamics_articulated(model, data, cs, s.q, s.v, s.tau, out));
  count(talus::constraint_wrenches(model, data, cs, talus::ReferenceFrame::local, w));
  count(talus::constraint_wrenches(model, data, cs, talus::ReferenceFrame::world, w));
  target.setConstant(cs.active_rows(), 0.1);
  count(talus::compute_impulse_range_space(model, data, cs, s.q, s.v, out, &target));
  count(talus::compute_impulse_null_space(model, data, cs, s.q, s.v, out, &target));
  count(talus::compute_impulse_articulated(model, data, cs, s.q, s.v, out, &target));
  talus::ExternalForces<ModelT> fext = talus::zero_external_forces<ModelT>();
  fext[ModelT::nb - 1] << 0.1, 0.2, 0.3, 1, 2, 3;
  count(talus::forward_dynamics_direct(model, data, cs, s.q, s.v, s.tau, out, talus::KKTMethod::ldlt, &fext));
  count(talus::forward_dynamics_range_space(model, data, cs, s.q, s.v, s.tau, out, &fext));
  count(talus::forward_dynamics_null_space(model, data, cs, s.q, s.v, s.tau, out, &fext));
  if (contacts_only) count(talus::forward_dynamics_kokkevis(model, data, cs, s.q, s.v, s.tau, out, &fext));
  count(talus::forward_dynamics_articulated(model, data, cs, s.q, s.v, s.tau, out, &fext));
  // assembly: may not converge from a random state with feet pinned at anchors; any Status is fine here
  talus::AssemblyOptions<double> opt;
  opt.max_iterations = 3;
  (void)talus::assemble_q(model, data, cs, s.q, ModelT::TangentVector::Ones(), q, opt);
  count(talus::assemble_qdot(model, data, cs, s.q, s.v, ModelT::TangentVector::Ones(), v));
  return bad;
}

}  // namespace talus_test
