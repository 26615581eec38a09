// The MuJoCo plant (plant.hpp), for each robot of hil/robots.
#include "plant.hpp"

#include <cmath>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

#include <algorithm>
#include <cstring>

#include <hil/robots/anymal_c.hpp>
#include <hil/robots/solo12.hpp>

#include "support/mujoco_support.hpp"

namespace talus_hil {

namespace {

// Inertia of a point mass m at r about the origin: m ((rᵀr) I − r rᵀ).
Eigen::Matrix3d point_inertia(double m, const Eigen::Vector3d& r) {
  return m * (r.squaredNorm() * Eigen::Matrix3d::Identity() - r * r.transpose());
}

// Folds a point mass m at offset d (body frame, from the body's CoM) into MuJoCo body b: the
// new CoM on the segment between them, the inertia about it by parallel axes, re-diagonalised
// (MuJoCo keeps principal moments and their frame). mj_setConst then refreshes the derived
// constants (subtree masses).
void add_point_mass(mjModel* m, mjData* d, int b, double mass, const Eigen::Vector3d& offset) {
  const double M = m->body_mass[b];
  const Eigen::Map<Eigen::Vector3d> ipos(m->body_ipos + 3 * b);
  const double* iq = m->body_iquat + 4 * b;
  const Eigen::Matrix3d R = Eigen::Quaterniond(iq[0], iq[1], iq[2], iq[3]).toRotationMatrix();
  const Eigen::Vector3d c = ipos, c_new = c + mass / (M + mass) * offset;
  const Eigen::Matrix3d I = R * Eigen::Vector3d(m->body_inertia + 3 * b).asDiagonal() * R.transpose() +
                            point_inertia(M, c - c_new) + point_inertia(mass, c + offset - c_new);
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(I);
  Eigen::Matrix3d axes = eig.eigenvectors();
  if (axes.determinant() < 0) axes.col(2) = -axes.col(2);  // a rotation, not a reflection
  const Eigen::Quaterniond q(axes);
  m->body_mass[b] = M + mass;
  for (int k = 0; k < 3; ++k) {
    m->body_ipos[3 * b + k] = c_new[k];
    m->body_inertia[3 * b + k] = eig.eigenvalues()[k];
  }
  const double quat[4] = {q.w(), q.x(), q.y(), q.z()};
  for (int k = 0; k < 4; ++k) m->body_iquat[4 * b + k] = quat[k];
  mj_setConst(m, d);
}
}  // namespace

// What depends on the robot's model type (both robots have nq = 19, nv = 18): the name binding,
// the foot frames, the conversions between talus's q, v, τ and MuJoCo's.
struct Plant::Impl {
  talus_test::MjRobot mj;
  PlantConfig config;
  const talus::hil::RobotParams* robot = nullptr;
  int foot_geom[4] = {-1, -1, -1, -1};
  int floor_geom = -1;
  int base_body = -1;

  virtual ~Impl() = default;
  /// bind_names, and the foot spheres' (body name, frame name, offset in the body).
  virtual bool bind(std::string& err) = 0;
  virtual bool feet(std::vector<talus_test::MjSphere>& out, std::string& err) const = 0;
  virtual Eigen::VectorXd q_talus() const = 0;
  virtual void to_qpos(const Eigen::VectorXd& q) = 0;
  virtual Eigen::MatrixXd velocity_map(const Eigen::VectorXd& q) const = 0;
  virtual double effort_limit() const = 0;
};

namespace {
template <class Robot>
struct PlantOf final : Plant::Impl {
  using Model = typename Robot::template Model<double>;
  static_assert(Model::nq == 19 && Model::nv == 18, "the rig's robots: a floating base and 12 joints");
  Model model = Robot::template make_model<double>();

  bool bind(std::string& err) override { return talus_test::bind_names(model, mj, err); }
  bool feet(std::vector<talus_test::MjSphere>& out, std::string& err) const override {
    for (int k = 0; k < 4; ++k) {
      const char* f = robot->feet[k];
      const int id = model.frame_id(f);
      if (id < 0) {
        err = std::string("no foot frame ") + f + " in the model";
        return false;
      }
      // Leg k's joints (3k..3k+2, model order) are named as foot k is, up to its '_' (FL_HAA,
      // FL_FOOT): the postures (hil/robots) are in the model's leg order.
      const std::string leg(f, std::strchr(f, '_') != nullptr ? std::strchr(f, '_') - f : 0);
      for (int d = 0; d < 3; ++d) {
        const std::string joint = model.joint_name[Model::Tree::dof_body[6 + 3 * k + d]];
        if (leg.empty() || joint.compare(0, leg.size(), leg) != 0) {
          err = "joint " + joint + " of leg " + std::to_string(k) + " is not " + f + "'s (hil/robots: model leg order)";
          return false;
        }
      }
      const auto& F = model.frames[id];
      out.push_back({model.body_name[F.body], f, F.placement.p});
    }
    return true;
  }
  Eigen::VectorXd q_talus() const override {
    Eigen::VectorXd q(Model::nq);
    for (int i = 0; i < Model::nb; ++i)
      for (int k = 0; k < Model::Tree::joint_nq[i]; ++k) q[Model::Tree::idx_q[i] + k] = mj.d->qpos[mj.qposadr[i] + k];
    return q;
  }
  void to_qpos(const Eigen::VectorXd& q) override { talus_test::to_mujoco_qpos(model, mj, q, mj.d->qpos); }
  Eigen::MatrixXd velocity_map(const Eigen::VectorXd& q) const override {
    return talus_test::velocity_map(model, mj, q);
  }
  double effort_limit() const override { return model.effort_limit.template tail<12>().maxCoeff(); }
};
}  // namespace

const talus::hil::RobotParams* find_robot(const std::string& name) {
  for (const talus::hil::RobotParams* r : {&talus::hil::robots::Solo12::params, &talus::hil::robots::AnymalC::params})
    if (name == r->name) return r;
  return nullptr;
}

Plant::Plant() = default;
Plant::~Plant() = default;

bool Plant::load(const PlantConfig& config, std::string& err) {
  const talus::hil::RobotParams* robot = find_robot(config.robot);
  if (robot == nullptr) {
    err = "unknown robot " + config.robot + " (solo12, anymal_c)";
    return false;
  }
  if (robot == &talus::hil::robots::AnymalC::params) impl_.reset(new PlantOf<talus::hil::robots::AnymalC>);
  else impl_.reset(new PlantOf<talus::hil::robots::Solo12>);
  Impl& p = *impl_;
  p.config = config;
  p.robot = robot;
  if (!talus_test::load_mujoco(config.urdf, /*floating_base=*/true, /*balance_inertia=*/false, p.mj, err)) return false;
  if (!p.bind(err)) return false;
  std::vector<talus_test::MjSphere> feet;
  if (!p.feet(feet, err)) return false;
  const talus_test::MjContactParams prm{config.foot_radius, config.mu, {0.005, 1.0}, {0.9, 0.95, 0.001}};
  if (!talus_test::add_floor_and_spheres(p.mj, feet, prm, err)) return false;
  if (!p.bind(err)) return false;
  p.mj.m->opt.timestep = config.timestep;
  for (int k = 0; k < 4; ++k) p.foot_geom[k] = mj_name2id(p.mj.m, mjOBJ_GEOM, robot->feet[k]);
  p.floor_geom = mj_name2id(p.mj.m, mjOBJ_GEOM, "floor");
  p.base_body = p.mj.body_mj_id[0];
  if (config.payload_fraction > 0)
    add_point_mass(p.mj.m, p.mj.d, p.base_body, config.payload_fraction * total_mass(), config.payload_offset);
  return true;
}

void Plant::reset_standing_on_floor(const Eigen::Matrix<double, 12, 1>& joints) {
  Impl& p = *impl_;
  mj_resetData(p.mj.m, p.mj.d);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(19);
  q[2] = 1.0;
  q[3] = 1.0;
  q.tail<12>() = joints;
  p.to_qpos(q);
  mj_kinematics(p.mj.m, p.mj.d);
  double zmin = 1e9;
  for (int k = 0; k < 4; ++k) zmin = std::min(zmin, p.mj.d->geom_xpos[3 * p.foot_geom[k] + 2]);
  q[2] -= zmin - p.config.foot_radius;
  p.to_qpos(q);
  mj_forward(p.mj.m, p.mj.d);
  // MuJoCo finds a contact only below a distance of 0 (the geoms' margin): the lowest foot, on
  // the floor to rounding, may be 1e-16 m above it (anymal_c's are), and the robot would then
  // fall freely for its first milliseconds, its accelerometer reading ~0 (the estimator, which
  // starts at rest from the accelerometer with a foot touching, refuses those frames). Then
  // 1 µm lower. (Solo-12's lowest foot is found touching as placed: not moved.)
  if (p.mj.d->ncon == 0) {
    q[2] -= 1e-6;
    p.to_qpos(q);
    mj_forward(p.mj.m, p.mj.d);
  }
}

void Plant::step(const Eigen::Matrix<double, 12, 1>& tau, const Eigen::Vector3d& push) {
  Impl& p = *impl_;
  const Eigen::VectorXd q = p.q_talus();
  Eigen::VectorXd tau_full = Eigen::VectorXd::Zero(18);
  tau_full.tail<12>() = tau;
  const Eigen::VectorXd qfrc = p.velocity_map(q) * tau_full;  // joints: a permutation
  for (int s = 0; s < p.config.substeps; ++s) {
    for (int i = 0; i < 18; ++i) p.mj.d->qfrc_applied[i] = qfrc[i];
    for (int k = 0; k < 3; ++k) p.mj.d->xfrc_applied[6 * p.base_body + k] = push[k];
    mj_step(p.mj.m, p.mj.d);
  }
  for (int k = 0; k < 6; ++k) p.mj.d->xfrc_applied[6 * p.base_body + k] = 0;
  mj_forward(p.mj.m, p.mj.d);  // positions, CoM and contacts of the new state
}

PlantState Plant::state() const {
  const Impl& p = *impl_;
  PlantState s;
  const Eigen::VectorXd q = p.q_talus();
  Eigen::VectorXd qvel(18);
  for (int i = 0; i < 18; ++i) qvel[i] = p.mj.d->qvel[i];
  s.q = q;
  s.v = p.velocity_map(q).transpose() * qvel;
  s.time = p.mj.d->time;
  for (int k = 0; k < 4; ++k) {
    s.foot_pos[k] = Eigen::Map<const Eigen::Vector3d>(p.mj.d->geom_xpos + 3 * p.foot_geom[k]);
    s.foot_force[k].setZero();
  }
  for (int c = 0; c < p.mj.d->ncon; ++c) {
    const mjContact& con = p.mj.d->contact[c];
    int k = 0;
    while (k < 4 && con.geom1 != p.foot_geom[k] && con.geom2 != p.foot_geom[k]) ++k;
    if (k == 4) continue;
    mjtNum f6[6];
    mj_contactForce(p.mj.m, p.mj.d, c, f6);  // contact frame: the force geom1 exerts on geom2
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> frame(con.frame);
    Eigen::Vector3d f = frame.transpose() * Eigen::Vector3d(f6[0], f6[1], f6[2]);
    if (con.geom1 == p.foot_geom[k]) f = -f;  // geom1 is the foot: the floor's force is the reaction
    s.foot_force[k] += f;
    if (f6[0] > 0) s.contacts = static_cast<std::uint8_t>(s.contacts | (1u << k));
  }
  s.com = Eigen::Map<const Eigen::Vector3d>(p.mj.d->subtree_com + 3 * p.base_body);
  return s;
}

double Plant::total_mass() const {
  const Impl& p = *impl_;
  return p.mj.m->body_subtreemass[p.base_body];
}
double Plant::base_mass() const { return impl_->mj.m->body_mass[impl_->base_body]; }
double Plant::effort_limit() const { return impl_->effort_limit(); }

}  // namespace talus_hil
