// label: consistency — talus checked against itself by independent routes:
//   ABA = H⁻¹(τ − C);  RNEA(q, v, ABA(τ)) = τ;  LᵀL solves = dense solves;
//   Jacobians = finite differences of placements (through integrate for quaternions);
//   CoM Jacobian likewise; power balance dT/dt = vᵀ(τ − g); configuration helpers.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "support/random_state.hpp"
#include "support/test_model.hpp"

namespace {

using namespace talus_test;
using talus::Status;
using M = TestModel;
using D = talus::Data<M>;
constexpr int kStates = 100;

TEST(Consistency, AbaMatchesDenseSolveOfCrbaAndBias) {
  const M& model = test_model();
  D data;
  talus::Random rng(11);
  for (int n = 0; n < kStates; ++n) {
    const auto s = random_state(model, rng);
    M::TangentVector ddq, C;
    ASSERT_EQ(talus::aba(model, data, s.q, s.v, s.tau, ddq), Status::ok);
    ASSERT_EQ(talus::nonlinear_effects(model, data, s.q, s.v, C), Status::ok);
    ASSERT_EQ(talus::crba(model, data, s.q), Status::ok);
    const M::TangentVector ref = data.H.ldlt().solve(s.tau - C);
    EXPECT_LT(rel_err(ddq, ref), 1e-9) << model_name << " state " << n;
    EXPECT_LT(rel_err(data.H, M::MatrixNV(data.H.transpose())), 1e-14);
  }
}

TEST(Consistency, RneaInvertsAba) {
  const M& model = test_model();
  D data;
  talus::Random rng(12);
  for (int n = 0; n < kStates; ++n) {
    const auto s = random_state(model, rng);
    M::TangentVector ddq, tau;
    ASSERT_EQ(talus::aba(model, data, s.q, s.v, s.tau, ddq), Status::ok);
    ASSERT_EQ(talus::rnea(model, data, s.q, s.v, ddq, tau), Status::ok);
    EXPECT_LT(rel_err(tau, s.tau), 1e-9) << model_name << " state " << n;
  }
}

TEST(Consistency, ExternalForcesAgreeBetweenRneaAndAba) {
  const M& model = test_model();
  D data;
  talus::Random rng(13);
  for (int n = 0; n < 20; ++n) {
    const auto s = random_state(model, rng);
    talus::ExternalForces<M> fext;
    for (auto& f : fext)
      for (int k = 0; k < 6; ++k) f[k] = rng.uniform(-2, 2);
    M::TangentVector ddq, tau, ddq0;
    ASSERT_EQ(talus::aba(model, data, s.q, s.v, s.tau, fext, ddq), Status::ok);
    ASSERT_EQ(talus::rnea(model, data, s.q, s.v, ddq, fext, tau), Status::ok);
    EXPECT_LT(rel_err(tau, s.tau), 1e-9);
    // and an external force really changes the answer (the test can fail)
    ASSERT_EQ(talus::aba(model, data, s.q, s.v, s.tau, ddq0), Status::ok);
    EXPECT_GT((ddq - ddq0).norm(), 1e-6);
    // τ_ext = Σ J_iᵀ f_i with body Jacobians (local) — a third route
    M::TangentVector C, Cf;
    ASSERT_EQ(talus::nonlinear_effects(model, data, s.q, s.v, C), Status::ok);
    ASSERT_EQ(talus::rnea(model, data, s.q, s.v, M::TangentVector::Zero(), fext, Cf), Status::ok);
    ASSERT_EQ(talus::compute_joint_jacobians(model, data, s.q), Status::ok);
    M::TangentVector jtf = M::TangentVector::Zero();
    for (int i = 0; i < M::nb; ++i) {
      M::Jacobian6 Jw = M::Jacobian6::Zero();
      talus::detail::frame_jacobian_from_columns(data, i, data.oMi[i], talus::ReferenceFrame::local, Jw);
      jtf += Jw.transpose() * fext[i];
    }
    EXPECT_LT(rel_err(M::TangentVector(C - Cf), jtf), 1e-9);
  }
}

TEST(Consistency, SparseLtlMatchesDense) {
  const M& model = test_model();
  D data;
  talus::Random rng(14);
  for (int n = 0; n < kStates; ++n) {
    const auto s = random_state(model, rng);
    ASSERT_EQ(talus::crba(model, data, s.q), Status::ok);
    ASSERT_EQ(talus::factorize_ltl(model, data), Status::ok);
    // the factor reproduces H
    const M::MatrixNV Lfull = data.L.template triangularView<Eigen::Lower>();
    EXPECT_LT(rel_err(M::MatrixNV(Lfull.transpose() * Lfull), data.H), 1e-12);
    // solves agree with a dense LDLT, for a vector and a matrix right-hand side
    M::TangentVector x = s.tau;
    ASSERT_EQ(talus::solve_ltl(model, data, x), Status::ok);
    EXPECT_LT(rel_err(x, M::TangentVector(data.H.ldlt().solve(s.tau))), 1e-9);
    Eigen::Matrix<double, M::nv, 3> B = Eigen::Matrix<double, M::nv, 3>::Random(), X = B;
    ASSERT_EQ(talus::solve_ltl(model, data, X), Status::ok);
    EXPECT_LT(rel_err(X, Eigen::Matrix<double, M::nv, 3>(data.H.ldlt().solve(B))), 1e-9);
    M::TangentVector y = s.tau;
    ASSERT_EQ(talus::multiply_ltl(model, data, y), Status::ok);
    EXPECT_LT(rel_err(y, M::TangentVector(data.H * s.tau)), 1e-12);
    // sparsity: L_ij is zero unless j is an ancestor dof of i
    for (int i = 0; i < M::nv; ++i)
      for (int j = 0; j < i; ++j) {
        bool anc = false;
        for (int k = M::Tree::dof_parent[i]; k >= 0; k = M::Tree::dof_parent[k]) anc = anc || k == j;
        if (!anc) {
          EXPECT_EQ(data.H(i, j), 0.0);
        }
      }
  }
}

// Rotation vector ω with R1 = exp(ω) R0 (world-frame angular displacement).
talus::Vector3<double> world_rotation_delta(const talus::Matrix3<double>& R0, const talus::Matrix3<double>& R1) {
  const Eigen::Quaterniond dq(R1 * R0.transpose());
  return talus::quaternion_log<double>(Eigen::Vector4d(dq.w(), dq.x(), dq.y(), dq.z()));
}

// frame_jacobian(q, ...) and point_jacobian(q, ...) update the support path only: for every
// frame, reference frame and state, they equal the whole-tree route (compute_joint_jacobians,
// then the data-only call) exactly, although Data holds another state's placements.
TEST(Consistency, SupportPathJacobiansMatchWholeTree) {
  const M& model = test_model();
  D path_data, tree_data;
  talus::Random rng(16);
  const talus::ReferenceFrame rfs[] = {talus::ReferenceFrame::local, talus::ReferenceFrame::local_world_aligned,
                                       talus::ReferenceFrame::world};
  const talus::Vector3<double> offset(0.05, -0.02, 0.03);
  for (int n = 0; n < 5; ++n) {
    const auto stale = random_state(model, rng);
    const auto s = random_state(model, rng);
    ASSERT_EQ(talus::compute_joint_jacobians(model, tree_data, s.q), Status::ok);
    for (int f = 0; f < M::nframes; ++f) {
      for (talus::ReferenceFrame rf : rfs) {
        ASSERT_EQ(talus::compute_joint_jacobians(model, path_data, stale.q), Status::ok);  // stale entries
        M::Jacobian6 Jpath, Jtree;
        ASSERT_EQ(talus::frame_jacobian(model, path_data, s.q, f, rf, Jpath), Status::ok);
        ASSERT_EQ(talus::frame_jacobian(model, tree_data, f, rf, Jtree), Status::ok);
        ASSERT_TRUE(Jpath == Jtree) << "frame " << f;
        M::Jacobian3 Ppath, Ptree;
        const int body = model.frames[f].body;
        ASSERT_EQ(talus::point_jacobian(model, path_data, s.q, body, offset, rf, Ppath), Status::ok);
        ASSERT_EQ(talus::point_jacobian(model, tree_data, body, offset, rf, Ptree), Status::ok);
        ASSERT_TRUE(Ppath == Ptree) << "body " << body;
      }
    }
  }
}

TEST(Consistency, JacobiansMatchFiniteDifferences) {
  const M& model = test_model();
  D data;
  talus::Random rng(15);
  const double h = 1e-6;
  for (int n = 0; n < 10; ++n) {
    const auto s = random_state(model, rng);
    M::Jacobian6 Jlwa, Jloc, Jw;
    ASSERT_EQ(talus::frame_jacobian(model, data, s.q, test_frame, talus::ReferenceFrame::local_world_aligned, Jlwa),
              Status::ok);
    ASSERT_EQ(talus::frame_jacobian(model, data, test_frame, talus::ReferenceFrame::local, Jloc), Status::ok);
    ASSERT_EQ(talus::frame_jacobian(model, data, test_frame, talus::ReferenceFrame::world, Jw), Status::ok);
    M::Jacobian3 Jp, Jc;
    const talus::Vector3<double> offset(0.05, -0.02, 0.03);
    const int body = model.frames[test_frame].body;
    ASSERT_EQ(talus::point_jacobian(model, data, body, offset, talus::ReferenceFrame::local_world_aligned, Jp),
              Status::ok);
    ASSERT_EQ(talus::com_jacobian(model, data, s.q, Jc), Status::ok);
    talus::Transform<double> oMf;
    ASSERT_EQ(talus::forward_kinematics(model, data, s.q), Status::ok);
    ASSERT_EQ(talus::frame_placement(model, data, test_frame, oMf), Status::ok);
    M::Jacobian6 Jfd;
    M::Jacobian3 Jpfd, Jcfd;
    for (int k = 0; k < M::nv; ++k) {
      M::ConfigVector qp, qm;
      const M::TangentVector dv = h * M::TangentVector::Unit(k);
      ASSERT_EQ(talus::integrate(model, s.q, dv, qp), Status::ok);
      ASSERT_EQ(talus::integrate(model, s.q, M::TangentVector(-dv), qm), Status::ok);
      talus::Transform<double> Mp, Mm;
      talus::Vector3<double> pp = talus::Vector3<double>::Zero(), pm = pp;
      ASSERT_EQ(talus::center_of_mass(model, data, qp), Status::ok);
      const talus::Vector3<double> cp = data.com;
      ASSERT_EQ(talus::frame_placement(model, data, test_frame, Mp), Status::ok);
      ASSERT_EQ(talus::point_position(model, data, body, offset, pp), Status::ok);
      ASSERT_EQ(talus::center_of_mass(model, data, qm), Status::ok);
      const talus::Vector3<double> cm = data.com;
      ASSERT_EQ(talus::frame_placement(model, data, test_frame, Mm), Status::ok);
      ASSERT_EQ(talus::point_position(model, data, body, offset, pm), Status::ok);
      Jfd.col(k).head<3>() = world_rotation_delta(Mm.R, Mp.R) / (2 * h);
      Jfd.col(k).tail<3>() = (Mp.p - Mm.p) / (2 * h);
      Jpfd.col(k) = (pp - pm) / (2 * h);
      Jcfd.col(k) = (cp - cm) / (2 * h);
    }
    EXPECT_LT(rel_err(Jlwa, Jfd), 1e-7) << model_name;
    EXPECT_LT(rel_err(Jp, Jpfd), 1e-7);
    EXPECT_LT(rel_err(Jc, Jcfd), 1e-7);
    // the three reference frames describe the same motion
    for (int k = 0; k < M::nv; ++k) {
      talus::Motion<double> lwa_from_local;
      lwa_from_local << oMf.R * Jloc.col(k).head<3>(), oMf.R * Jloc.col(k).tail<3>();
      EXPECT_LT((lwa_from_local - Jlwa.col(k)).norm(), 1e-12);
      talus::Motion<double> lwa_from_world = Jw.col(k);
      lwa_from_world.tail<3>() -= oMf.p.cross(Jw.col(k).head<3>().eval());
      EXPECT_LT((lwa_from_world - Jlwa.col(k)).norm(), 1e-12);
    }
  }
}

TEST(Consistency, VelocitiesAndAccelerationsMatchJacobians) {
  const M& model = test_model();
  D data;
  talus::Random rng(16);
  const double h = 1e-6;
  for (int n = 0; n < 20; ++n) {
    const auto s = random_state(model, rng);
    M::Jacobian6 J;
    ASSERT_EQ(talus::frame_jacobian(model, data, s.q, test_frame, talus::ReferenceFrame::local_world_aligned, J),
              Status::ok);
    ASSERT_EQ(talus::forward_kinematics(model, data, s.q, s.v, s.a), Status::ok);
    talus::Motion<double> vf, af;
    ASSERT_EQ(talus::frame_velocity(model, data, test_frame, talus::ReferenceFrame::local_world_aligned, vf),
              Status::ok);
    EXPECT_LT(rel_err(vf, talus::Motion<double>(J * s.v)), 1e-12);
    // classical acceleration = J a + J̇ v, with J̇ v from a finite difference along the motion
    ASSERT_EQ(talus::frame_classical_acceleration(model, data, test_frame, talus::ReferenceFrame::local_world_aligned,
                                                  af),
              Status::ok);
    M::ConfigVector qp, qm;
    ASSERT_EQ(talus::integrate(model, s.q, M::TangentVector(h * s.v), qp), Status::ok);
    ASSERT_EQ(talus::integrate(model, s.q, M::TangentVector(-h * s.v), qm), Status::ok);
    // v(t±h) ≈ v ± h a for joint-space v along this path (exact to O(h²) for the check below)
    M::Jacobian6 Jp, Jm;
    ASSERT_EQ(talus::frame_jacobian(model, data, qp, test_frame, talus::ReferenceFrame::local_world_aligned, Jp),
              Status::ok);
    ASSERT_EQ(talus::frame_jacobian(model, data, qm, test_frame, talus::ReferenceFrame::local_world_aligned, Jm),
              Status::ok);
    const talus::Motion<double> Jdot_v = (Jp - Jm) * s.v / (2 * h);
    EXPECT_LT(rel_err(af, talus::Motion<double>(J * s.a + Jdot_v)), 1e-6) << model_name;
  }
}

TEST(Consistency, PowerBalance) {
  // d/dt ½ vᵀ H v = vᵀ (τ − g) along the motion q̈ = ABA(τ): the skew property of Ḣ − 2C.
  const M& model = test_model();
  D data;
  talus::Random rng(17);
  const double h = 1e-6;
  for (int n = 0; n < 20; ++n) {
    const auto s = random_state(model, rng);
    M::TangentVector ddq, g;
    ASSERT_EQ(talus::aba(model, data, s.q, s.v, s.tau, ddq), Status::ok);
    ASSERT_EQ(talus::generalized_gravity(model, data, s.q, g), Status::ok);
    ASSERT_EQ(talus::crba(model, data, s.q), Status::ok);
    const M::MatrixNV H = data.H;
    M::ConfigVector qp, qm;
    ASSERT_EQ(talus::integrate(model, s.q, M::TangentVector(h * s.v), qp), Status::ok);
    ASSERT_EQ(talus::integrate(model, s.q, M::TangentVector(-h * s.v), qm), Status::ok);
    ASSERT_EQ(talus::crba(model, data, qp), Status::ok);
    const M::MatrixNV Hp = data.H;
    ASSERT_EQ(talus::crba(model, data, qm), Status::ok);
    const M::MatrixNV Hdot = (Hp - data.H) / (2 * h);
    const double dT = s.v.dot(H * ddq) + 0.5 * s.v.dot(Hdot * s.v);
    const double power = s.v.dot(s.tau - g);
    EXPECT_NEAR(dT, power, 1e-6 * std::max(1.0, std::abs(power))) << model_name << " state " << n;
  }
}

TEST(Consistency, CentroidalMomentumMatrixMatchesBodyMomenta) {
  const M& model = test_model();
  D data;
  talus::Random rng(18);
  for (int n = 0; n < 20; ++n) {
    const auto s = random_state(model, rng);
    M::Jacobian6 Ag;
    M::Jacobian3 Jc;
    talus::Force<double> hg;
    ASSERT_EQ(talus::centroidal_momentum_matrix(model, data, s.q, Ag), Status::ok);
    ASSERT_EQ(talus::com_jacobian(model, data, s.q, Jc), Status::ok);
    ASSERT_EQ(talus::centroidal_momentum(model, data, s.q, s.v, hg), Status::ok);
    EXPECT_LT(rel_err(talus::Force<double>(Ag * s.v), hg), 1e-10);
    // linear momentum = M ċ
    EXPECT_LT(rel_err(talus::Vector3<double>(hg.tail<3>()), talus::Vector3<double>(data.mass * data.vcom)), 1e-10);
    EXPECT_LT(rel_err(data.vcom, talus::Vector3<double>(Jc * s.v)), 1e-10);
    // kinetic energy two ways: ½ vᵀ H v and Σ ½ v_iᵀ I_i v_i
    ASSERT_EQ(talus::crba(model, data, s.q), Status::ok);
    ASSERT_EQ(talus::forward_kinematics(model, data, s.q, s.v), Status::ok);
    double T = 0;
    for (int i = 0; i < M::nb; ++i) T += model.inertia[i].kinetic_energy(data.v[i]);
    EXPECT_NEAR(T, 0.5 * s.v.dot(data.H * s.v), 1e-10 * std::max(1.0, T));
  }
}

TEST(Consistency, ConfigurationHelpers) {
  const M& model = test_model();
  talus::Random rng(19);
  for (int n = 0; n < 50; ++n) {
    const auto s = random_state(model, rng);
    const auto s2 = random_state(model, rng);
    M::TangentVector d, d2;
    M::ConfigVector q1;
    // difference is the inverse of integrate
    ASSERT_EQ(talus::difference(model, s.q, s2.q, d), Status::ok);
    ASSERT_EQ(talus::integrate(model, s.q, d, q1), Status::ok);
    ASSERT_EQ(talus::difference(model, s2.q, q1, d2), Status::ok);
    EXPECT_LT(d2.cwiseAbs().maxCoeff(), 1e-9);
    // integrate then difference gives back v (small v: inside the injectivity radius)
    const M::TangentVector v = 0.3 * s.v;
    ASSERT_EQ(talus::integrate(model, s.q, v, q1), Status::ok);
    ASSERT_EQ(talus::difference(model, s.q, q1, d), Status::ok);
    EXPECT_LT(rel_err(d, v), 1e-12);
    // within limits
    for (int k = 0; k < M::nq; ++k) {  // limits no wider than 2π are kept, wider ones become [−π, π]
      const double lo = model.lower_position_limit[k], hi = model.upper_position_limit[k];
      const bool kept = hi - lo <= 2 * M_PI;
      EXPECT_GE(s.q[k], kept ? lo : -M_PI);
      EXPECT_LE(s.q[k], kept ? hi : M_PI);
    }
  }
  M::ConfigVector q0;
  talus::neutral(model, q0);
  EXPECT_EQ(talus::check_configuration(model, q0), Status::ok);
  M::ConfigVector qs = 3 * q0;
  if (talus::check_configuration(model, qs) != Status::ok) {  // the model has quaternions
    ASSERT_EQ(talus::normalize(model, qs), Status::ok);
    EXPECT_EQ(talus::check_configuration(model, qs), Status::ok);
  }
}

TEST(Consistency, BadInputIsRejectedAndOutputsDefined) {
  const M& model = test_model();
  D data;
  talus::Random rng(20);
  auto s = random_state(model, rng);
  M::TangentVector out = M::TangentVector::Constant(7.0);
  M::ConfigVector qnan = s.q;
  qnan[M::nq - 1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(talus::aba(model, data, qnan, s.v, s.tau, out), Status::invalid_input);
  EXPECT_TRUE(out.isZero());
  out.setConstant(7.0);
  M::TangentVector vinf = s.v;
  vinf[0] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(talus::rnea(model, data, s.q, vinf, s.a, out), Status::invalid_input);
  EXPECT_TRUE(out.isZero());
  M::Jacobian6 J = M::Jacobian6::Constant(7.0);
  EXPECT_EQ(talus::frame_jacobian(model, data, s.q, M::nframes + 3, talus::ReferenceFrame::local, J),
            Status::invalid_input);
  EXPECT_TRUE(J.isZero());
  M::Jacobian3 J3 = M::Jacobian3::Constant(7.0);
  EXPECT_EQ(talus::point_jacobian(model, data, s.q, M::nb, talus::Vector3<double>::Zero(), talus::ReferenceFrame::local,
                                  J3),
            Status::invalid_input);
  EXPECT_TRUE(J3.isZero());
  EXPECT_EQ(talus::crba(model, data, qnan), Status::invalid_input);
  EXPECT_TRUE(data.H.isZero());
}

}  // namespace
