#pragma once
// MuJoCo as a reference for talus tests and benchmarks (host only: heap, std::string, ...).
//
//   talus_test::MjRobot mj;
//   std::string err;
//   if (!talus_test::load_mujoco(urdf, /*floating_base=*/true, /*balance_inertia=*/false, mj, err)) fail(err);
//   if (!talus_test::bind_names(model, mj, err)) fail(err);     // talus body/joint -> mj body/adr
//   talus_test::to_mujoco_qpos(model, mj, q, mj.d->qpos);
//   talus_test::to_mujoco_qvel(model, mj, q, v, mj.d->qvel);
//   talus_test::mujoco_pipeline(mj, mj.d->qpos, mj.d->qvel, qfrc, M, bias, qacc);   // MuJoCo dof order
//   Eigen::MatrixXd T = talus_test::velocity_map(model, mj, q);   // qvel = T v, T orthogonal
//   H_talus ≈ Tᵀ M T,  τ ↔ qfrc = T τ,  ddq_talus ≈ from_mujoco_qacc(model, mj, q, v, qacc),
//   C_talus ≈ from_mujoco_bias(model, mj, q, v, M, bias)   (not Tᵀ bias when there is a free joint)
//
// How the URDF reaches MuJoCo 2.2.2 (details and reasons in mujoco_support.cpp):
// - a regenerated copy holding only links (name, inertial) and joints: no <visual>/<collision>
//   (the meshes are not shipped), comments, <gazebo>, <transmission>;
// - links attached by fixed joints are merged into their parent in the copy (exact sums), as
//   talus's generator does; so only links that carry a moving joint (plus the floating root)
//   exist as mj bodies, under their URDF link names, and moving joints keep their URDF names.
//   A merged link (a foot, a tool flange) is a talus frame: use frame_point_world /
//   mujoco_frame_jacobian. This also lets anymal_c and talos_reduced load WITHOUT
//   balanceinertia (their bad inertias are on fixed links), so all five shared robots agree
//   with talus to rounding (H, C, ddq, J within ~1e-13 relative);
// - inertias are written in their principal frame (MuJoCo's own diagonalisation is less exact);
//   <mujoco><compiler fusestatic="true" [balanceinertia="true"]/></mujoco>;
// - floating base: a link "world" plus a joint "root_joint" type="floating" world -> root link,
//   which MuJoCo turns into a free joint on the root body;
// - the MuJoCo body frame of a moving body is its URDF link frame (= talus body frame).
// Velocities: MuJoCo free joint qvel = [v_world (origin of the body); ω_body], talus
// [ω_body; v_body]; hinge/slide/ball joints agree with talus (ball: ω in the child frame).
#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include <talus/talus.hpp>

namespace talus_test {

struct MjRobot {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  // Filled by bind_names(), one entry per talus body i:
  std::vector<int> body_mj_id;  ///< mj body id of talus body i (URDF link name == body_name[i])
  std::vector<int> qposadr;     ///< qpos address of body i's joint in MuJoCo (free joint: its adr)
  std::vector<int> dofadr;      ///< qvel/dof address of body i's joint in MuJoCo

  MjRobot() = default;
  MjRobot(const MjRobot&) = delete;
  MjRobot& operator=(const MjRobot&) = delete;
  ~MjRobot();
  void reset();  ///< frees m and d, clears the maps
};

/// Copy of `urdf_text` prepared for MuJoCo (see the file comment). Returns false and fills
/// err if the text is not a URDF that can be prepared (no <robot>, not one root link, a joint
/// naming a missing link, a floating base asked for a URDF that has a "world" link, ...).
bool prepare_urdf_for_mujoco(const std::string& urdf_text, bool floating_base, bool balance_inertia, std::string& out,
                             std::string& err);

/// Loads `urdf_path` into out.m / out.d via a temporary prepared copy (deleted afterwards).
/// On error returns false and fills err (out is left empty). balance_inertia: MuJoCo's
/// compiler balanceinertia="true" (alters inertias violating A + B >= C; not needed by the
/// shared robots since fixed links are merged first, and then a no-op on them).
bool load_mujoco(const std::string& urdf_path, bool floating_base, bool balance_inertia, MjRobot& out,
                 std::string& err);

/// Contact parameters of the geoms add_floor_and_spheres adds (MuJoCo's geom attributes).
struct MjContactParams {
  double radius;     ///< sphere radius (m)
  double mu;         ///< friction coefficient (sliding)
  double solref[2];  ///< timeconst (s), dampratio
  double solimp[3];  ///< dmin, dmax, width (m)
};

/// A sphere to add on a body: its body (mj body name), geom name and centre (body frame, m).
struct MjSphere {
  std::string body;
  std::string name;
  Eigen::Vector3d pos;
};

/// Adds to r's robot (from load_mujoco) a plane z = 0 in the world body and the spheres, the
/// only geoms that collide (spheres contype 1 / conaffinity 0, floor 0 / 1: sphere–floor pairs
/// only); r.m / r.d become the new scene (call bind_names again). Details in the .cpp.
bool add_floor_and_spheres(MjRobot& r, const std::vector<MjSphere>& spheres, const MjContactParams& p,
                           std::string& err);

/// The plain dynamics pieces of mj_forward, without passive (damping, springs) or constraint
/// forces: mj_kinematics, mj_comPos, mj_crb, mj_factorM, mj_comVel, mj_rne(flg_acc = 0).
/// Copies qpos/qvel (nq/nv) into r.d (they may point into r.d). Outputs (any may be null),
/// all in MuJoCo dof order: M_dense (nv*nv, row-major = column-major, symmetric), bias
/// (nv, = C(q, q̇) incl. gravity), qacc (nv, = M⁻¹ (qfrc − bias); qfrc null means 0).
void mujoco_pipeline(MjRobot& r, const mjtNum* qpos, const mjtNum* qvel, const mjtNum* qfrc, mjtNum* M_dense,
                     mjtNum* bias, mjtNum* qacc);

/// True for a talus joint type that MuJoCo calls a free joint (nq 7, nv 6), a ball (4, 3).
template <class Model>
constexpr bool is_free_joint(int i) {
  return Model::Tree::joint_nq[i] == 7 && Model::Tree::joint_nv[i] == 6;
}
template <class Model>
constexpr bool is_ball_joint(int i) {
  return Model::Tree::joint_nq[i] == 4 && Model::Tree::joint_nv[i] == 3;
}

/// Fills r.body_mj_id / qposadr / dofadr from model.body_name / joint_name. A free-flyer body
/// uses the free joint of its mj body (whatever its name). Checks joint sizes match. Returns
/// false (err names the missing body/joint) if something cannot be matched.
template <class Model>
bool bind_names(const Model& model, MjRobot& r, std::string& err) {
  using Tree = typename Model::Tree;
  const int nb = Model::nb;
  r.body_mj_id.assign(nb, -1);
  r.qposadr.assign(nb, -1);
  r.dofadr.assign(nb, -1);
  if (!r.m) {
    err = "bind_names: no MuJoCo model loaded";
    return false;
  }
  if (r.m->nv != Model::nv || r.m->nq != Model::nq) {
    err = "bind_names: MuJoCo nq/nv = " + std::to_string(r.m->nq) + "/" + std::to_string(r.m->nv) + ", talus " +
          std::to_string(Model::nq) + "/" + std::to_string(Model::nv);
    return false;
  }
  for (int i = 0; i < nb; ++i) {
    const char* bname = model.body_name[i] ? model.body_name[i] : "";
    const int b = mj_name2id(r.m, mjOBJ_BODY, bname);
    if (b < 0) {
      err = std::string("bind_names: no MuJoCo body named '") + bname + "' (talus body " + std::to_string(i) + ")";
      return false;
    }
    r.body_mj_id[i] = b;
    if (Tree::joint_nv[i] == 0) continue;
    int j = -1;
    if (is_free_joint<Model>(i)) {
      for (int k = 0; k < r.m->body_jntnum[b]; ++k)
        if (r.m->jnt_type[r.m->body_jntadr[b] + k] == mjJNT_FREE) j = r.m->body_jntadr[b] + k;
      if (j < 0) {
        err = std::string("bind_names: MuJoCo body '") + bname + "' has no free joint";
        return false;
      }
    } else {
      const char* jname = model.joint_name[i] ? model.joint_name[i] : "";
      j = mj_name2id(r.m, mjOBJ_JOINT, jname);
      if (j < 0) {
        err = std::string("bind_names: no MuJoCo joint named '") + jname + "' (talus body " + std::to_string(i) + ")";
        return false;
      }
      if (r.m->jnt_bodyid[j] != b) {
        err = std::string("bind_names: MuJoCo joint '") + jname + "' does not move body '" + bname + "'";
        return false;
      }
      const int t = r.m->jnt_type[j];
      const bool ok = is_ball_joint<Model>(i) ? t == mjJNT_BALL
                                              : (Tree::joint_nq[i] == 1 && (t == mjJNT_HINGE || t == mjJNT_SLIDE));
      if (!ok) {
        err = std::string("bind_names: MuJoCo joint '") + jname + "' has another type than talus body " +
              std::to_string(i) + "'s joint";
        return false;
      }
    }
    r.qposadr[i] = r.m->jnt_qposadr[j];
    r.dofadr[i] = r.m->jnt_dofadr[j];
  }
  return true;
}

/// talus q (nq) -> MuJoCo qpos (nq). Same layout per joint (free: p, w, x, y, z), reordered.
template <class Model>
void to_mujoco_qpos(const Model&, const MjRobot& r, const Eigen::VectorXd& q_talus, mjtNum* qpos) {
  using Tree = typename Model::Tree;
  for (int i = 0; i < Model::nb; ++i)
    for (int k = 0; k < Tree::joint_nq[i]; ++k) qpos[r.qposadr[i] + k] = q_talus[Tree::idx_q[i] + k];
}

/// talus v (nv) at q -> MuJoCo qvel (nv). Free joint: qvel = [R v_body; ω_body].
template <class Model>
void to_mujoco_qvel(const Model&, const MjRobot& r, const Eigen::VectorXd& q_talus, const Eigen::VectorXd& v_talus,
                    mjtNum* qvel) {
  using Tree = typename Model::Tree;
  for (int i = 0; i < Model::nb; ++i) {
    const int iv = Tree::idx_v[i], a = r.dofadr[i];
    if (is_free_joint<Model>(i)) {
      const int iq = Tree::idx_q[i];
      const Eigen::Matrix3d R =
          talus::quaternion_to_rotation<double>(q_talus[iq + 3], q_talus[iq + 4], q_talus[iq + 5], q_talus[iq + 6]);
      const Eigen::Vector3d lin = R * v_talus.segment<3>(iv + 3);
      for (int k = 0; k < 3; ++k) {
        qvel[a + k] = lin[k];
        qvel[a + 3 + k] = v_talus[iv + k];
      }
    } else {
      for (int k = 0; k < Tree::joint_nv[i]; ++k) qvel[a + k] = v_talus[iv + k];
    }
  }
}

/// T (nv x nv) with qvel = T v_talus at q (dof permutation + free-joint blocks [0 R; I 0]).
/// T is orthogonal, so also: v = Tᵀ qvel; generalized forces qfrc = T τ, τ = Tᵀ qfrc;
/// H_talus = Tᵀ M_mj T; a talus Jacobian J_t = J_mj T. Not the bias: see from_mujoco_bias.
template <class Model>
Eigen::MatrixXd velocity_map(const Model&, const MjRobot& r, const Eigen::VectorXd& q_talus) {
  using Tree = typename Model::Tree;
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(Model::nv, Model::nv);
  for (int i = 0; i < Model::nb; ++i) {
    const int iv = Tree::idx_v[i], a = r.dofadr[i];
    if (is_free_joint<Model>(i)) {
      const int iq = Tree::idx_q[i];
      T.block<3, 3>(a, iv + 3) =
          talus::quaternion_to_rotation<double>(q_talus[iq + 3], q_talus[iq + 4], q_talus[iq + 5], q_talus[iq + 6]);
      T.block<3, 3>(a + 3, iv).setIdentity();
    } else {
      for (int k = 0; k < Tree::joint_nv[i]; ++k) T(a + k, iv + k) = 1.0;
    }
  }
  return T;
}

/// Ṫ v (nv, MuJoCo dof order): the part of MuJoCo's qacc that talus's free-flyer acceleration does
/// not have, qacc = T ddq + Ṫ v; zero except the free joint's linear slots, R (ω × v_body).
template <class Model>
Eigen::VectorXd velocity_map_dot_v(const Model&, const MjRobot& r, const Eigen::VectorXd& q_talus,
                                   const Eigen::VectorXd& v_talus) {
  using Tree = typename Model::Tree;
  Eigen::VectorXd c = Eigen::VectorXd::Zero(Model::nv);
  for (int i = 0; i < Model::nb; ++i) {
    if (!is_free_joint<Model>(i)) continue;
    const int iv = Tree::idx_v[i], iq = Tree::idx_q[i], a = r.dofadr[i];
    const Eigen::Matrix3d R =
        talus::quaternion_to_rotation<double>(q_talus[iq + 3], q_talus[iq + 4], q_talus[iq + 5], q_talus[iq + 6]);
    const Eigen::Vector3d w = v_talus.segment<3>(iv), vb = v_talus.segment<3>(iv + 3);
    c.segment<3>(a) = R * w.cross(vb);
  }
  return c;
}

/// MuJoCo bias (qfrc_bias, nv) -> talus C(q, v) = Tᵀ (bias + M Ṫ v): with a free joint the two
/// differ by more than the dof map, since the accelerations do (see velocity_map_dot_v).
/// M_dense: MuJoCo's dense mass matrix at q (nv*nv, from mujoco_pipeline).
template <class Model>
Eigen::VectorXd from_mujoco_bias(const Model& model, const MjRobot& r, const Eigen::VectorXd& q_talus,
                                 const Eigen::VectorXd& v_talus, const mjtNum* M_dense, const mjtNum* bias) {
  const int nv = Model::nv;
  const Eigen::Map<const Eigen::MatrixXd> M(M_dense, nv, nv);
  const Eigen::Map<const Eigen::VectorXd> b(bias, nv);
  const Eigen::VectorXd c = velocity_map_dot_v(model, r, q_talus, v_talus);
  return velocity_map(model, r, q_talus).transpose() * (b + M * c);
}

/// MuJoCo qacc (nv) -> talus ddq at (q, v). Free joint: ω̇ = qacc_ang, v̇_body = Rᵀ qacc_lin − ω × v_body
/// (talus's free-flyer acceleration is the body-frame spatial acceleration, MuJoCo's the
/// derivative of the world-frame origin velocity).
template <class Model>
Eigen::VectorXd from_mujoco_qacc(const Model&, const MjRobot& r, const Eigen::VectorXd& q_talus,
                                 const Eigen::VectorXd& v_talus, const mjtNum* qacc) {
  using Tree = typename Model::Tree;
  Eigen::VectorXd ddq(Model::nv);
  for (int i = 0; i < Model::nb; ++i) {
    const int iv = Tree::idx_v[i], a = r.dofadr[i];
    if (is_free_joint<Model>(i)) {
      const int iq = Tree::idx_q[i];
      const Eigen::Matrix3d R =
          talus::quaternion_to_rotation<double>(q_talus[iq + 3], q_talus[iq + 4], q_talus[iq + 5], q_talus[iq + 6]);
      const Eigen::Vector3d lin(qacc[a], qacc[a + 1], qacc[a + 2]);
      const Eigen::Vector3d w = v_talus.segment<3>(iv), vb = v_talus.segment<3>(iv + 3);
      ddq.segment<3>(iv) = Eigen::Vector3d(qacc[a + 3], qacc[a + 4], qacc[a + 5]);
      ddq.segment<3>(iv + 3) = R.transpose() * lin - w.cross(vb);
    } else {
      for (int k = 0; k < Tree::joint_nv[i]; ++k) ddq[iv + k] = qacc[a + k];
    }
  }
  return ddq;
}

/// World position of talus frame `fid`'s origin from MuJoCo's body placement (needs
/// mj_kinematics run on r.d). A world-fixed frame (body -1) uses the frame placement itself.
template <class Model>
Eigen::Vector3d frame_point_world(const Model& model, const MjRobot& r, int fid) {
  const auto& f = model.frames[fid];
  const Eigen::Vector3d p = f.placement.p.template cast<double>();
  if (f.body < 0) return p;
  const int b = r.body_mj_id[f.body];
  const Eigen::Map<const Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>> R(r.d->xmat + 9 * b);
  const Eigen::Map<const Eigen::Vector3d> x(r.d->xpos + 3 * b);
  return x + R * p;
}

/// MuJoCo's 6 x nv Jacobian of talus frame `fid` in talus's local_world_aligned convention
/// ([angular; linear], world axes, linear velocity of the frame origin), columns in MuJoCo dof
/// order (multiply by velocity_map on the right for talus order). Needs mj_kinematics and
/// mj_comPos run on r.d.
template <class Model>
Eigen::MatrixXd mujoco_frame_jacobian(const Model& model, const MjRobot& r, int fid) {
  const int nv = r.m->nv;
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6, nv);
  const auto& f = model.frames[fid];
  if (f.body < 0) return J;
  using RowMat = Eigen::Matrix<mjtNum, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  RowMat jacp(3, nv), jacr(3, nv);
  const Eigen::Vector3d p = frame_point_world(model, r, fid);
  mj_jac(r.m, r.d, jacp.data(), jacr.data(), p.data(), r.body_mj_id[f.body]);
  J.topRows<3>() = jacr;
  J.bottomRows<3>() = jacp;
  return J;
}

}  // namespace talus_test
