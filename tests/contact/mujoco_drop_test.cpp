// label: reference — solo12 dropped onto a plane: talus time stepping against MuJoCo 2.2.2 as an
// independent engine. Both start from the same state (legs at a crouched stance, feet 5 cm
// above the ground, at rest), hold the 12 leg joints with the same PD law computed from each
// engine's own state, τ = Kp (q_ref − q) − Kd q̇, and step 2 s with h = 1 ms; then they must
// stand at the same height, orientation and joint angles, with the same contact forces, to
// within the tolerances derived below (each from a modelling difference that is measured in
// the test itself, not tuned).
//
// talus: time_step_contact, ContactProblem<M, 4, 4>: one point contact per foot (the foot
// frame's origin, add_contact by frame id), μ = 1, 4-edge polygon, RIGID (ContactOptions
// defaults: stiffness ∞, cfm = 0, erp = 1), Lemke.
//
// MuJoCo: the robot from load_mujoco (no geoms), plus a plane z = 0 and a sphere of radius
// r = 0.1 mm centred on each foot frame (MuJoCo needs a geom; talus's plane is put at z = r,
// so both see the gap "centre height − r"); only foot–floor pairs collide. Options as rigid
// as MuJoCo usefully allows:
//   - cone pyramidal, condim 3, friction μ = 1: MuJoCo's pyramid has the 4 edges n ± μ t₁,
//     n ± μ t₂, so its friction set is the square |f_t1| + |f_t2| ≤ μ f_n with vertices on ±t₁,
//     ±t₂ — talus's 4-edge polygon (vertices μ f_n d_j, d_j = t₁, t₂, −t₁, −t₂); the test checks
//     that both pick the same t₁ (so the squares coincide);
//   - solref (timeconst 2 ms = 2h, the smallest MuJoCo accepts; dampratio 1), solimp
//     (0.99, 0.99, 0.001): constant impedance d = 0.99. MuJoCo's maximum, d = 0.9999, is not
//     more rigid in practice: with four feet (16 pyramid rows for 12 contact directions) the
//     regularization R = (1−d)/d·Â becomes so small that MuJoCo's landing goes wrong (measured:
//     20 ms after touchdown a foot slides 0.16 mm within 3 steps and sinks 0.12 mm again; the
//     robot ends standing 78 µm above talus's stance, 36 µm at d = 0.999, 6 µm below at 0.99);
//   - impratio 1, Euler integrator (semi-implicit, like talus), h = 1 ms, no joint damping,
//     armature or limits (solo12's URDF: damping 0, limits ±10 rad, disabled anyway);
//   - noslip_iterations 10: without it MuJoCo's soft friction lets loaded feet creep
//     (v_t ∝ R f_t: measured, the feet slide 1.1 mm apart in 2 s and the robot keeps sinking
//     0.2 mm/s while talus's is still); with it the feet stick (3 and 100 iterations give the
//     same answer).
//
// Why 0.1 mm: a MuJoCo sphere touches the plane at its lowest point, which rolls with the
// shank; talus's point contact is the centre. Sticking, the two differ by r·Δθ (Δθ ≈ 0.05 rad
// of shank rotation after touchdown): 5 µm at r = 0.1 mm, 100 µm at r = 2 mm.
//
// Tolerances. At rest each engine is in static equilibrium with the feet stuck where the
// landing left them; the equilibria differ only by
//   δ  MuJoCo's soft-contact compression at rest (its mean −contact.dist, ≈ 4.3 µm; printed
//      beside the value of MuJoCo's impedance formula, −dist = f_n R/(4 k d) per foot with
//      k = 1/(d² timeconst² dampratio²): 3.2 µm, which holds exactly without noslip; noslip
//      reshuffles the pyramid-edge forces, and the main solver then settles a little deeper);
//      it lowers the whole robot, legs unchanged;
//   s  the horizontal distance between where the feet stick in the two engines (measured:
//      13 µm; MuJoCo's soft landing penetrates up to 0.5 mm, and in its first contact step the
//      feet move 14 µm outward; s includes the rolling r·Δθ). Required ≤ 50 µm.
// A leg held by joint springs Kp (thigh and shank L = 0.16 m, HFE ±0.8, KFE ∓1.6) has the
// foot compliance C = J Jᵀ/Kp = (L²/Kp) [[2.43, −0.50], [−0.50, 0.51]] (x, z, planar): a
// foot displaced horizontally by s relative to its hip moves the hip vertically by
// |C_zx/C_xx| s = 0.21 s, rotates the joints by at most 0.57 s/L and changes the foot force
// by at most ‖C⁻¹‖ s = 2.6 Kp s/L². Hence, with margins (×2.4, ×3.5, ×1.15):
//   base height    |Δz| ≤ δ + 0.5 s + 1 µm
//   joint angles   |Δq| ≤ 2 s/L + 1e-6 rad
//   base attitude  angle ≤ (δ + s)/0.29 m + 1e-6 rad (0.29 m: the narrower side of the stance)
//   foot forces    ‖Δf‖ ≤ 3 Kp s/L² + 1e-4 N for each foot (all three components: the normal
//                  forces of a 4-foot stance are statically indeterminate in one combination,
//                  the diagonal "twist", which the legs' compliance settles: the same bound).
// Independent of both engines: at rest each must satisfy Newton–Euler statics, Σf = m g and
// Σ (p_k − c) × f_k = 0 about its own CoM c, within 1e-6 relative (m g; m g · 0.2 m).
// Free fall (before the feet reach the ground at t ≈ 0.1 s) is the same computation in both:
// the heights must agree to 1e-12 m.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <talus/algorithms/centroidal.hpp>
#include <talus/algorithms/crba.hpp>
#include <talus/contact/contact_dynamics.hpp>
#include <talus/models/solo12.hpp>

#include "support/mujoco_support.hpp"

namespace talus_test {
namespace {

namespace solo = talus::models::solo12;
using M = solo::Model<double>;
using talus::ConeModel;
using talus::Status;
using talus::Vector3;
using Problem = talus::ContactProblem<M, 4, 4>;
using Options = talus::ContactOptions<double, Problem::max_lcp>;

constexpr int kFeet[4] = {solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                          solo::frame_id("HR_FOOT")};
constexpr const char* kFootNames[4] = {"FL", "FR", "HL", "HR"};

std::string solo12_urdf() {
#ifdef TALUS_MODELS_DIR
  return std::string(TALUS_MODELS_DIR) + "/solo12/solo12.urdf";
#else
  // <repo>/tests/contact/<this file>; the models are in <repo>/../shared/models (the default of
  // the TALUS_MODELS_DIR cache variable, from which test_model_solo12 was generated).
  std::string f = __FILE__;
  for (int k = 0; k < 3; ++k) f = f.substr(0, f.find_last_of('/'));
  return f + "/../shared/models/solo12/solo12.urdf";
#endif
}

// The floor and the foot spheres (mujoco_support.hpp: add_floor_and_spheres), then the name
// maps again (the scene is a new mjModel).
bool add_floor_and_feet(const M& model, MjRobot& r, const MjContactParams& p, std::string& err) {
  std::vector<MjSphere> feet;
  for (int k = 0; k < 4; ++k) {
    const auto& F = model.frames[kFeet[k]];
    feet.push_back({model.body_name[F.body], std::string(kFootNames[k]) + "_foot", F.placement.p});
  }
  return add_floor_and_spheres(r, feet, p, err) && bind_names(model, r, err);
}

// What the comparison reads from each engine at the end (talus order, world frame).
struct Rest {
  M::ConfigVector q;
  double vmax = 0;            // max |q̇| (rad/s, m/s)
  Vector3<double> f[4];       // force on each foot (N)
  Vector3<double> p[4];       // point where it acts
  Vector3<double> centre[4];  // foot sphere centre (talus: the foot frame origin)
  Vector3<double> com;        // center of mass
  std::vector<double> z;      // base height at the marks
  double seconds = 0;         // wall time of the run
};

// Newton–Euler statics: (|Σf − m g ẑ|, |Σ (p_k − c) × f_k|).
std::pair<double, double> static_residual(const Rest& r, double m, double g) {
  Vector3<double> F = -m * g * Vector3<double>::UnitZ(), T = Vector3<double>::Zero();
  for (int k = 0; k < 4; ++k) {
    F += r.f[k];
    T += (r.p[k] - r.com).cross(r.f[k]);
  }
  return {F.norm(), T.norm()};
}

TEST(ReferenceContact, Solo12DropOnPlaneMatchesMujoco) {
  const M model = solo::make_model<double>();
  const double h = 1e-3, T = 2.0, Kp = 5.0, Kd = 0.1, drop = 0.05, L = 0.16;
  const MjContactParams prm{1e-4, 1.0, {2 * h, 1.0}, {0.99, 0.99, 0.001}};
  const int steps = static_cast<int>(std::lround(T / h));
  const double g = 9.81, mass = model.total_mass();
  const std::vector<double> marks = {0.0, 0.05, 0.1, 0.11, 0.13, 0.15, 0.2, 0.3, 0.5, 1.0, 1.5, 2.0};
  auto at_mark = [&](int s, std::size_t i) { return i < marks.size() && std::abs(s * h - marks[i]) < h / 2; };

  // ---- the MuJoCo scene ----------------------------------------------------------------------
  MjRobot mj;
  std::string err;
  ASSERT_TRUE(load_mujoco(solo12_urdf(), /*floating_base=*/true, /*balance_inertia=*/false, mj, err)) << err;
  ASSERT_TRUE(add_floor_and_feet(model, mj, prm, err)) << err;
  mjModel* m = mj.m;
  mjData* d = mj.d;
  m->opt.timestep = h;
  m->opt.integrator = mjINT_EULER;
  m->opt.cone = mjCONE_PYRAMIDAL;
  m->opt.impratio = 1;
  m->opt.noslip_iterations = 10;
  m->opt.tolerance = 1e-12;
  m->opt.iterations = 200;
  m->opt.disableflags |= mjDSBL_LIMIT;
  for (int j = 0; j < m->nv; ++j) {
    ASSERT_EQ(m->dof_damping[j], 0.0);
    ASSERT_EQ(m->dof_armature[j], 0.0);
  }
  int foot_geom[4];
  for (int k = 0; k < 4; ++k) {
    foot_geom[k] = mj_name2id(m, mjOBJ_GEOM, (std::string(kFootNames[k]) + "_foot").c_str());
    ASSERT_GE(foot_geom[k], 0);
  }

  // ---- initial state: legs at the stance, feet `drop` above the ground, at rest ---------------
  M::ConfigVector q_ref;
  talus::neutral(model, q_ref);
  const double legs[12] = {0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6};
  for (int j = 0; j < 12; ++j) q_ref[7 + j] = legs[j];
  auto data = std::make_unique<talus::Data<M>>();
  ASSERT_EQ(talus::forward_kinematics(model, *data, q_ref), Status::ok);
  double zfoot = 1e9;
  for (int f : kFeet)
    zfoot = std::min(zfoot, data->oMi[model.frames[f].body].act_point(model.frames[f].placement.p).z());
  M::ConfigVector q0 = q_ref;
  q0[2] = prm.radius - zfoot + drop;

  // The scene is the robot talus has: same mass, same mass matrix, spheres on the foot frames.
  {
    ASSERT_NEAR(m->body_subtreemass[mj.body_mj_id[0]], mass, 1e-12 * mass);
    std::vector<mjtNum> Mmj(M::nv * M::nv);
    to_mujoco_qpos(model, mj, q0, d->qpos);
    mju_zero(d->qvel, m->nv);
    mujoco_pipeline(mj, d->qpos, d->qvel, nullptr, Mmj.data(), nullptr, nullptr);
    const Eigen::MatrixXd Tm = velocity_map(model, mj, q0);
    ASSERT_EQ(talus::crba(model, *data, q0), Status::ok);
    const Eigen::MatrixXd Hmj = Tm.transpose() * Eigen::Map<Eigen::MatrixXd>(Mmj.data(), M::nv, M::nv) * Tm;
    EXPECT_LE((Hmj - Eigen::MatrixXd(data->H)).cwiseAbs().maxCoeff(), 1e-12 * data->H.cwiseAbs().maxCoeff());
    ASSERT_EQ(talus::forward_kinematics(model, *data, q0), Status::ok);
    for (int k = 0; k < 4; ++k) {
      const auto& F = model.frames[kFeet[k]];
      const Vector3<double> pt = data->oMi[F.body].act_point(F.placement.p);
      EXPECT_LE((pt - Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * foot_geom[k])).norm(), 1e-12) << k;
    }
  }

  // ---- talus ---------------------------------------------------------------------------------
  Rest rt;
  {
    auto cp = std::make_unique<Problem>();
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(cp->add_contact(model, kFeet[k], Vector3<double>::UnitZ(), prm.mu, 4, ConeModel::polygon, 0.0,
                                Vector3<double>(0, 0, prm.radius)),
                Status::ok);
    const Options opt;  // rigid
    M::ConfigVector q = q0, qn;
    M::TangentVector v = M::TangentVector::Zero(), vn, tau;
    talus::ContactReport<double> rep;
    Vector3<double> impulse[4];
    std::size_t mi = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0;; ++s) {
      if (at_mark(s, mi)) {
        rt.z.push_back(q[2]);
        ++mi;
      }
      if (s == steps) break;
      tau.setZero();
      for (int j = 0; j < 12; ++j) tau[6 + j] = Kp * (q_ref[7 + j] - q[7 + j]) - Kd * v[6 + j];
      ASSERT_EQ(talus::time_step_contact(model, *data, *cp, q, v, tau, h, qn, vn, opt, rep), Status::ok) << s;
      for (int k = 0; k < 4; ++k) ASSERT_EQ(cp->world_force(k, impulse[k]), Status::ok);
      q = qn;
      v = vn;
    }
    rt.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(rep.contacts, 4);
    rt.q = q;
    rt.vmax = v.cwiseAbs().maxCoeff();
    ASSERT_EQ(talus::center_of_mass(model, *data, q), Status::ok);  // also the kinematics at q
    rt.com = data->com;
    for (int k = 0; k < 4; ++k) {
      const auto& F = model.frames[kFeet[k]];
      rt.f[k] = impulse[k] / h;  // the last step's impulse (N·s) over h; it acts at the foot point
      rt.centre[k] = rt.p[k] = data->oMi[F.body].act_point(F.placement.p);
    }
    // the polygon's orientation, to compare with MuJoCo's pyramid below
    for (int k = 0; k < 4; ++k) ASSERT_NEAR((cp->contact(k).t1 - Vector3<double>::UnitY()).norm(), 0.0, 1e-15);
  }

  // ---- MuJoCo --------------------------------------------------------------------------------
  Rest rm;
  double pen_landing = 0, pen_rest = 0, pen_formula = 0;
  {
    mj_resetData(m, d);
    to_mujoco_qpos(model, mj, q0, d->qpos);
    mju_zero(d->qvel, m->nv);
    auto pd = [&] {
      for (int i = 1; i < M::nb; ++i)
        d->qfrc_applied[mj.dofadr[i]] =
            Kp * (q_ref[M::Tree::idx_q[i]] - d->qpos[mj.qposadr[i]]) - Kd * d->qvel[mj.dofadr[i]];
    };
    std::size_t mi = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0;; ++s) {
      if (at_mark(s, mi)) {
        rm.z.push_back(d->qpos[2]);
        ++mi;
      }
      if (s == steps) break;
      pd();
      mj_step(m, d);
      for (int c = 0; c < d->ncon; ++c) pen_landing = std::max(pen_landing, -d->contact[c].dist);
    }
    pd();
    mj_forward(m, d);  // contacts and forces at the final state
    rm.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (int i = 0; i < M::nb; ++i)
      for (int k = 0; k < M::Tree::joint_nq[i]; ++k) rm.q[M::Tree::idx_q[i] + k] = d->qpos[mj.qposadr[i] + k];
    for (int j = 0; j < m->nv; ++j) rm.vmax = std::max(rm.vmax, std::abs(d->qvel[j]));
    rm.com = Eigen::Map<const Eigen::Vector3d>(d->subtree_com + 3 * mj.body_mj_id[0]);
    ASSERT_EQ(d->ncon, 4);
    int seen = 0;
    for (int c = 0; c < d->ncon; ++c) {
      const mjContact& con = d->contact[c];
      int k = 0;
      while (k < 4 && con.geom1 != foot_geom[k] && con.geom2 != foot_geom[k]) ++k;
      ASSERT_LT(k, 4);
      seen |= 1 << k;
      mjtNum f6[6];
      mj_contactForce(m, d, c, f6);  // contact frame (n, t₁, t₂): the force geom1 exerts on geom2
      const Eigen::Map<const Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>> frame(con.frame);
      const Vector3<double> fw = frame.transpose() * Vector3<double>(f6[0], f6[1], f6[2]);
      rm.f[k] = con.geom2 == foot_geom[k] ? fw : Vector3<double>(-fw);
      rm.p[k] = Eigen::Map<const Eigen::Vector3d>(con.pos);
      rm.centre[k] = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * foot_geom[k]);
      // the pyramid is talus's polygon: same normal and t₁ (up to the sign of the geom order)
      const double sg = con.geom2 == foot_geom[k] ? 1 : -1;
      EXPECT_NEAR((sg * frame.row(0).transpose() - Vector3<double>::UnitZ()).norm(), 0.0, 1e-12);
      EXPECT_NEAR((sg * frame.row(1).transpose() - Vector3<double>::UnitY()).norm(), 0.0, 1e-12);
      pen_rest += -con.dist / 4;
      // MuJoCo's impedance formula at rest (every pyramid edge row j of the contact: f_j =
      // k d (−dist)/R_j, R_j = (1−d)/d Â_j, k = 1/(d² timeconst² dampratio²)): −dist = f_n / Σ_j (k d/R_j)
      const double dimp = prm.solimp[1], tc = prm.solref[0], zeta = prm.solref[1];
      const double kk = 1 / (dimp * dimp * tc * tc * zeta * zeta);
      double sum = 0;
      for (int j = con.efc_address; j < con.efc_address + 4; ++j) sum += kk * dimp / d->efc_R[j];
      pen_formula += f6[0] / sum / 4;
    }
    ASSERT_EQ(seen, 15) << "one contact per foot";
  }

  // ---- report --------------------------------------------------------------------------------
  std::printf("solo12 drop, %d steps of %g ms: talus %.1f ms (%.1f us/step), MuJoCo %.1f ms\n", steps, 1e3 * h,
              1e3 * rt.seconds, 1e6 * rt.seconds / steps, 1e3 * rm.seconds);
  for (std::size_t i = 0; i < marks.size(); ++i)
    std::printf("  t = %.2f s: base z talus %.7f  MuJoCo %.7f  (talus - MuJoCo %+.2e m)\n", marks[i], rt.z[i], rm.z[i],
                rt.z[i] - rm.z[i]);
  double s = 0;
  for (int k = 0; k < 4; ++k) s = std::max(s, (rt.centre[k] - rm.centre[k]).head<2>().norm());
  const Eigen::Matrix3d Rt = talus::quaternion_to_rotation<double>(rt.q[3], rt.q[4], rt.q[5], rt.q[6]);
  const Eigen::Matrix3d Rm = talus::quaternion_to_rotation<double>(rm.q[3], rm.q[4], rm.q[5], rm.q[6]);
  const double tilt = Eigen::AngleAxisd(Rt.transpose() * Rm).angle();
  const double dz = rt.q[2] - rm.q[2], dq = (rt.q.tail<12>() - rm.q.tail<12>()).cwiseAbs().maxCoeff();
  std::printf("  MuJoCo penetration: landing max %.3g mm, at rest %.3g um (impedance formula without noslip %.3g um)\n",
              1e3 * pen_landing, 1e6 * pen_rest, 1e6 * pen_formula);
  std::printf("  feet stick %.3g um apart (horizontal, max); |dz| %.3g um, attitude %.3g rad, joints max %.3g rad\n",
              1e6 * s, 1e6 * std::abs(dz), tilt, dq);
  double df = 0;
  for (int k = 0; k < 4; ++k) {
    df = std::max(df, (rt.f[k] - rm.f[k]).norm());
    std::printf("  %s force talus (%+.5f %+.5f %.5f)  MuJoCo (%+.5f %+.5f %.5f) N\n", kFootNames[k], rt.f[k].x(),
                rt.f[k].y(), rt.f[k].z(), rm.f[k].x(), rm.f[k].y(), rm.f[k].z());
  }
  const auto [Ft, Tt] = static_residual(rt, mass, g);
  const auto [Fm, Tm] = static_residual(rm, mass, g);
  std::printf(
      "  statics: |sum f - m g| / m g talus %.2e MuJoCo %.2e; |sum moments| / (m g 0.2 m) talus %.2e MuJoCo %.2e\n",
      Ft / (mass * g), Fm / (mass * g), Tt / (mass * g * 0.2), Tm / (mass * g * 0.2));
  std::printf("  max |v| at the end: talus %.2e MuJoCo %.2e\n", rt.vmax, rm.vmax);

  // ---- checks (tolerances: file comment) ------------------------------------------------------
  for (std::size_t i = 0; i < marks.size() && marks[i] < 0.1; ++i)
    EXPECT_NEAR(rt.z[i], rm.z[i], 1e-12) << "free fall, t = " << marks[i];
  EXPECT_LE(rt.vmax, 1e-4) << "talus not at rest";
  EXPECT_LE(rm.vmax, 1e-4) << "MuJoCo not at rest";
  EXPECT_LE(Ft, 1e-6 * mass * g);
  EXPECT_LE(Fm, 1e-6 * mass * g);
  EXPECT_LE(Tt, 1e-6 * mass * g * 0.2);
  EXPECT_LE(Tm, 1e-6 * mass * g * 0.2);
  EXPECT_GT(pen_rest, 0.0);
  EXPECT_LE(pen_rest, 2 * pen_formula) << "MuJoCo's rest compression, against its impedance formula";
  EXPECT_LE(s, 50e-6) << "where the feet stick";
  EXPECT_LE(std::abs(dz), pen_rest + 0.5 * s + 1e-6) << "standing height";
  EXPECT_LE(dq, 2 * s / L + 1e-6) << "joint angles";
  EXPECT_LE(tilt, (pen_rest + s) / 0.29 + 1e-6) << "base attitude";
  EXPECT_LE((rt.q.head<2>() - rm.q.head<2>()).norm(), s + 1e-6) << "base x, y";
  EXPECT_LE(df, 3 * Kp * s / (L * L) + 1e-4) << "foot forces";
  EXPECT_LT(rt.seconds + rm.seconds, 10.0);
}

}  // namespace
}  // namespace talus_test
