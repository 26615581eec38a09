// The MuJoCo plant (plant.hpp).
#include "plant.hpp"

#include <cmath>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

#include <talus/models/solo12.hpp>

#include "support/mujoco_support.hpp"

namespace talus_hil {

namespace solo = talus::models::solo12;
using Model = solo::Model<double>;

namespace {
constexpr const char* kFootFrames[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};

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

struct Plant::Impl {
  Model model = solo::make_model<double>();
  talus_test::MjRobot mj;
  PlantConfig config;
  int foot_geom[4] = {-1, -1, -1, -1};
  int floor_geom = -1;
  int base_body = -1;

  Eigen::VectorXd q_talus() const {
    Eigen::VectorXd q(Model::nq);
    for (int i = 0; i < Model::nb; ++i)
      for (int k = 0; k < Model::Tree::joint_nq[i]; ++k) q[Model::Tree::idx_q[i] + k] = mj.d->qpos[mj.qposadr[i] + k];
    return q;
  }
};

Plant::Plant() : impl_(new Impl) {}
Plant::~Plant() = default;

bool Plant::load(const PlantConfig& config, std::string& err) {
  Impl& p = *impl_;
  p.config = config;
  if (!talus_test::load_mujoco(config.urdf, /*floating_base=*/true, /*balance_inertia=*/false, p.mj, err)) return false;
  if (!talus_test::bind_names(p.model, p.mj, err)) return false;
  std::vector<talus_test::MjSphere> feet;
  for (const char* f : kFootFrames) {
    const auto& F = p.model.frames[p.model.frame_id(f)];
    feet.push_back({p.model.body_name[F.body], f, F.placement.p});
  }
  const talus_test::MjContactParams prm{config.foot_radius, config.mu, {0.005, 1.0}, {0.9, 0.95, 0.001}};
  if (!talus_test::add_floor_and_spheres(p.mj, feet, prm, err)) return false;
  if (!talus_test::bind_names(p.model, p.mj, err)) return false;
  p.mj.m->opt.timestep = config.timestep;
  for (int k = 0; k < 4; ++k) p.foot_geom[k] = mj_name2id(p.mj.m, mjOBJ_GEOM, kFootFrames[k]);
  p.floor_geom = mj_name2id(p.mj.m, mjOBJ_GEOM, "floor");
  p.base_body = p.mj.body_mj_id[0];
  if (config.payload_fraction > 0)
    add_point_mass(p.mj.m, p.mj.d, p.base_body, config.payload_fraction * total_mass(), config.payload_offset);
  return true;
}

void Plant::reset_standing_on_floor(const Eigen::Matrix<double, 12, 1>& joints) {
  Impl& p = *impl_;
  mj_resetData(p.mj.m, p.mj.d);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(Model::nq);
  q[2] = 1.0;
  q[3] = 1.0;
  q.tail<12>() = joints;
  talus_test::to_mujoco_qpos(p.model, p.mj, q, p.mj.d->qpos);
  mj_kinematics(p.mj.m, p.mj.d);
  double zmin = 1e9;
  for (int k = 0; k < 4; ++k) zmin = std::min(zmin, p.mj.d->geom_xpos[3 * p.foot_geom[k] + 2]);
  q[2] -= zmin - p.config.foot_radius;
  talus_test::to_mujoco_qpos(p.model, p.mj, q, p.mj.d->qpos);
  mj_forward(p.mj.m, p.mj.d);
}

void Plant::step(const Eigen::Matrix<double, 12, 1>& tau, const Eigen::Vector3d& push) {
  Impl& p = *impl_;
  const Eigen::VectorXd q = p.q_talus();
  Eigen::VectorXd tau_full = Eigen::VectorXd::Zero(Model::nv);
  tau_full.tail<12>() = tau;
  const Eigen::VectorXd qfrc = talus_test::velocity_map(p.model, p.mj, q) * tau_full;  // joints: a permutation
  for (int s = 0; s < p.config.substeps; ++s) {
    for (int i = 0; i < Model::nv; ++i) p.mj.d->qfrc_applied[i] = qfrc[i];
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
  Eigen::VectorXd qvel(Model::nv);
  for (int i = 0; i < Model::nv; ++i) qvel[i] = p.mj.d->qvel[i];
  s.q = q;
  s.v = talus_test::velocity_map(p.model, p.mj, q).transpose() * qvel;
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

}  // namespace talus_hil
