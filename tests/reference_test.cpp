// label: reference — talus against MuJoCo 2.2.2 loading the same URDF (an independent engine),
// at 200 random states: H, bias forces, generalized gravity, ABA accelerations, body
// placements, a foot/tool frame's Jacobian and velocity, the center of mass.
//
// Mapping conventions (support/mujoco_support.hpp): qvel_mj = T v_talus with T a dof
// permutation plus, for the free joint, [v_world; ω_body] = [0 R; I 0] [ω_body; v_body].
// T is orthogonal and power is invariant, so
//   H_talus = Tᵀ H_mj T,   τ_talus = Tᵀ τ_mj,   g_talus = Tᵀ g_mj,
//   C_talus = Tᵀ (C_mj + H_mj Ṫ v)  (Ṫ v = [R (ω × v_body); 0] on the free joint's linear dofs,
//             because MuJoCo's q̈ is the derivative of the world-frame origin velocity),
//   J_talus = J_mj T (local_world_aligned frame Jacobian, [angular; linear]).
// Errors are max|talus − MuJoCo| / max(1, max|MuJoCo|), required ≤ 1e-9.
//
// How MuJoCo gets the URDF (support/mujoco_support.cpp): a copy without visuals/collisions
// in which the test harness itself merges fixed-joint links into their parents (its own code,
// not talus's generator). MuJoCo 2.2 checks the triangle inequality of every link's inertia
// before it would merge fixed links, and anymal_c and talos_reduced have fixed links
// (cameras, a hatch, gripper motors) that fail it; merged first, every body passes, so no
// robot needs balanceinertia and all are compared with the URDF's own inertias.
#include <gtest/gtest.h>

#include <cstdio>

#include "support/mujoco_support.hpp"
#include "support/random_state.hpp"
#include "support/test_model.hpp"

namespace {

using namespace talus_test;
using talus::Status;
using M = TestModel;

std::string urdf_path() {
  const std::string name = model_name;
  const std::string dir = TALUS_MODELS_DIR;
  if (name == "solo12") return dir + "/solo12/solo12.urdf";
  if (name == "anymal_c") return dir + "/anymal_c/anymal.urdf";
  if (name == "talos") return dir + "/talos/talos_reduced.urdf";
  if (name == "ur5") return dir + "/ur5/ur5_robot.urdf";
  if (name == "panda") return dir + "/panda/panda.urdf";
  return dir + "/panda/panda_arm7.urdf";
}

constexpr bool floating_base() { return M::Tree::joint_nq[0] == 7; }

class Reference : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string err;
    ASSERT_TRUE(load_mujoco(urdf_path(), floating_base(), /*balance_inertia=*/false, mj, err)) << err;
    ASSERT_TRUE(bind_names(model, mj, err)) << err;
    // the talus model holds the URDF's inertias exactly as MuJoCo read them
    double worst = 0;
    for (int i = 0; i < M::nb; ++i) {
      const int b = mj.body_mj_id[i];
      worst = std::max(worst, std::abs(mj.m->body_mass[b] - model.inertia[i].mass));
      worst = std::max(worst, (Eigen::Vector3d(mj.m->body_ipos + 3 * b) - model.inertia[i].com).norm());
    }
    EXPECT_LT(worst, 1e-12) << "body masses or centers of mass differ from MuJoCo's";
  }
  M model = test_model();
  MjRobot mj;
  talus::Data<M> data;
};

TEST_F(Reference, DynamicsKinematicsAndComMatchMuJoCo) {
  talus::Random rng(2024);
  const int nv = M::nv;
  Eigen::VectorXd qpos(mj.m->nq), qvel(nv), qfrc(nv), bias(nv), qacc(nv), gmj(nv);
  Eigen::MatrixXd Hmj(nv, nv);
  double worst[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const char* what[8] = {"H",  "bias C", "gravity g", "ABA ddq", "body placements", "frame Jacobian", "frame velocity",
                         "CoM"};
  for (int n = 0; n < 200; ++n) {
    const auto s = random_state(model, rng);
    const Eigen::VectorXd q = s.q, v = s.v, tau = s.tau;
    const Eigen::MatrixXd T = velocity_map(model, mj, q);
    to_mujoco_qpos(model, mj, q, qpos.data());
    to_mujoco_qvel(model, mj, q, v, qvel.data());
    qfrc = T * tau;  // τ_mj = T τ (T orthogonal)
    mujoco_pipeline(mj, qpos.data(), qvel.data(), qfrc.data(), Hmj.data(), bias.data(), qacc.data());
    // Ṫ v on the free joint's linear dofs
    Eigen::VectorXd Tdot_v = Eigen::VectorXd::Zero(nv);
    if (floating_base()) {
      const Eigen::Matrix3d R = talus::quaternion_to_rotation<double>(q[3], q[4], q[5], q[6]);
      Tdot_v.segment<3>(mj.dofadr[0]) = R * v.head<3>().cross(v.segment<3>(3));
    }
    const Eigen::MatrixXd Hmj_t = T.transpose() * Hmj * T;
    const Eigen::VectorXd Cmj_t = T.transpose() * (bias + Hmj * Tdot_v);
    const Eigen::VectorXd ddq_mj = from_mujoco_qacc(model, mj, q, v, qacc.data());
    // the same Jacobian/velocity/CoM from MuJoCo's kinematics at this state
    const Eigen::MatrixXd Jmj = mujoco_frame_jacobian(model, mj, test_frame) * T;
    Eigen::Vector3d com_mj = Eigen::Vector3d::Zero();
    double mass_mj = 0;
    for (int i = 0; i < M::nb; ++i) {
      const int b = mj.body_mj_id[i];
      com_mj += mj.m->body_mass[b] * Eigen::Vector3d(mj.d->xipos + 3 * b);
      mass_mj += mj.m->body_mass[b];
    }
    com_mj /= mass_mj;
    double placement_err = 0;
    std::vector<Eigen::Vector3d> xpos(M::nb);
    std::vector<Eigen::Matrix3d> xmat(M::nb);
    for (int i = 0; i < M::nb; ++i) {
      const int b = mj.body_mj_id[i];
      xpos[i] = Eigen::Vector3d(mj.d->xpos + 3 * b);
      xmat[i] = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(mj.d->xmat + 9 * b);
    }
    // gravity: MuJoCo bias at zero velocity
    Eigen::VectorXd zero = Eigen::VectorXd::Zero(nv);
    mujoco_pipeline(mj, qpos.data(), zero.data(), nullptr, nullptr, gmj.data(), nullptr);
    const Eigen::VectorXd gmj_t = T.transpose() * gmj;

    // talus
    M::TangentVector C, g, ddq;
    ASSERT_EQ(talus::crba(model, data, s.q), Status::ok);
    ASSERT_EQ(talus::nonlinear_effects(model, data, s.q, s.v, C), Status::ok);
    ASSERT_EQ(talus::generalized_gravity(model, data, s.q, g), Status::ok);
    ASSERT_EQ(talus::aba(model, data, s.q, s.v, s.tau, ddq), Status::ok);
    for (int i = 0; i < M::nb; ++i) {
      placement_err = std::max(placement_err, rel_err(data.oMi[i].p, xpos[i]));
      placement_err = std::max(placement_err, rel_err(data.oMi[i].R, xmat[i]));
    }
    M::Jacobian6 J;
    ASSERT_EQ(talus::frame_jacobian(model, data, s.q, test_frame, talus::ReferenceFrame::local_world_aligned, J),
              Status::ok);
    ASSERT_EQ(talus::center_of_mass(model, data, s.q, s.v), Status::ok);
    talus::Motion<double> vf;
    ASSERT_EQ(talus::frame_velocity(model, data, test_frame, talus::ReferenceFrame::local_world_aligned, vf),
              Status::ok);
    const Eigen::VectorXd vf_mj = Jmj * v;

    const double e[8] = {rel_err(Eigen::MatrixXd(data.H), Hmj_t),
                         rel_err(Eigen::VectorXd(C), Cmj_t),
                         rel_err(Eigen::VectorXd(g), gmj_t),
                         rel_err(Eigen::VectorXd(ddq), ddq_mj),
                         placement_err,
                         rel_err(Eigen::MatrixXd(J), Jmj),
                         rel_err(Eigen::VectorXd(vf), vf_mj),
                         rel_err(data.com, com_mj)};
    for (int k = 0; k < 8; ++k) {
      worst[k] = std::max(worst[k], e[k]);
      EXPECT_LE(e[k], 1e-9) << model_name << ": " << what[k] << " at state " << n;
    }
    EXPECT_NEAR(data.mass, mass_mj, 1e-12);
  }
  for (int k = 0; k < 8; ++k)
    std::printf("[%s] %-16s worst relative error vs MuJoCo: %.2e\n", model_name, what[k], worst[k]);
}

}  // namespace
