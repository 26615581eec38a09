// RBDL 3.3.1 side: model from RBDL's URDF reader (addons/urdfreader, ORB-HD URDF_Parser), floating
// base = TranslationXYZ + Spherical (q = [p, qx, qy, qz, joints..., qw], q̇ = [ṗ world; ω body]).
//
//   CRBA      CompositeRigidBodyAlgorithm(Q, H, update_kinematics = true)  (H zeroed once at set-up:
//             RBDL writes the nonzero entries only; full symmetric H)
//   RNEA      NonlinearEffects(Q, QDot, C)
//   ABA       ForwardDynamics(Q, QDot, Tau, QDDot)
//   Jacobian  CalcPointJacobian6D(Q, body, point, G, update_kinematics = true) (6 x nv [ang; lin],
//             world axes at the point; G zeroed once)
//   FD        ForwardDynamicsConstraintsDirect (CS.linear_solver PartialPivLU or the default
//             ColPivHouseholderQR) / ForwardDynamicsConstraintsRangeSpaceSparse, update_kinematics =
//             true: CalcConstrainedSystemVariables (kinematics, H, C, G, γ) inside
//   impulse   ComputeConstraintImpulsesDirect / RangeSpaceSparse (CS.v_plus = 0)
// Contacts: AddContactConstraint(body, point, world x / y / z) per foot (grouped by RBDL into one
// constraint per foot); 6D: six AddLoopConstraint(0 (world), sole body, X_anchor, X_sole, axis).
#include <rbdl/rbdl.h>
#include <urdfreader/urdfreader.h>

#include "common.hpp"

namespace peers {
namespace RBD = RigidBodyDynamics;

std::string rbdl_version() {
  const int v = ::rbdl_get_api_version();
  return std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff) + "." + std::to_string(v & 0xff);
}

namespace {

struct RbdlSide : Side {
  Robot robot;
  PeerLayout L;
  std::unique_ptr<RBD::Model> model = std::make_unique<RBD::Model>();
  std::vector<Eigen::VectorXd> q, v, tau;  // RBDL's convention
  int k = 0;
  unsigned jac_body = 0;
  RBD::Math::Vector3d jac_point;
  Eigen::MatrixXd H, G6;
  Eigen::VectorXd out;
};

template <class F>
void cycle(int& k, long n, F&& f) {
  for (long i = 0; i < n; ++i) {
    f(k);
    k = (k + 1) & (kStates - 1);
  }
}

/// RBDL's own (movable body, placement) of a URDF link, checked against talus's frame.
bool rbdl_frame(const RbdlSide& s, const FrameDesc& f, unsigned& body, RBD::Math::SpatialTransform& X,
                std::string& err) {
  RBD::Model& m = *s.model;
  const unsigned id = m.GetBodyId(f.name.c_str());
  if (id == std::numeric_limits<unsigned>::max()) {
    err = "RBDL has no body '" + f.name + "'";
    return false;
  }
  if (m.IsFixedBodyId(id)) {
    const RBD::FixedBody& fb = m.mFixedBodies[id - m.fixed_body_discriminator];
    body = fb.mMovableParent;
    X = fb.mParentTransform;
  } else {
    body = id;
    X = RBD::Math::SpatialTransform();
  }
  const unsigned talus_body = m.GetBodyId(s.robot.bodies[f.body].body.c_str());
  // RBDL's E maps parent coordinates to the frame's: Rᵀ.
  if (body != talus_body || (X.E.transpose() - f.R).cwiseAbs().maxCoeff() > 1e-12 ||
      (X.r - f.p).cwiseAbs().maxCoeff() > 1e-12) {
    err = "RBDL frame '" + f.name + "' is not where talus has it";
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<Side> make_rbdl_side(const Robot& r, std::string& err) {
  auto side = std::make_unique<RbdlSide>();
  RbdlSide* s = side.get();
  s->robot = r;
  RBD::Model& m = *s->model;
  try {
    if (!RBD::Addons::URDFReadFromFile(r.urdf.c_str(), &m, r.floating, false)) {
      err = "RBDL URDF reader failed on " + r.urdf;
      return nullptr;
    }
  } catch (const std::exception& e) {
    err = std::string("RBDL URDF reader: ") + e.what();
    return nullptr;
  }
  if (static_cast<int>(m.q_size) != r.nq || static_cast<int>(m.dof_count) != r.nv) {
    err = "RBDL q_size/dof_count " + std::to_string(m.q_size) + "/" + std::to_string(m.dof_count) + " vs talus " +
          std::to_string(r.nq) + "/" + std::to_string(r.nv);
    return nullptr;
  }
  if ((m.gravity - RBD::Math::Vector3d(0, 0, -9.81)).norm() > 0) {
    err = "RBDL gravity is not (0, 0, -9.81)";
    return nullptr;
  }
  PeerLayout& L = s->L;
  L.nq = m.q_size;
  L.nv = m.dof_count;
  L.world_linear = true;
  for (const BodyDesc& b : r.bodies) {
    const unsigned id = m.GetBodyId(b.body.c_str());
    if (id == std::numeric_limits<unsigned>::max() || m.IsFixedBodyId(id)) {
      err = "RBDL has no movable body '" + b.body + "'";
      return nullptr;
    }
    const RBD::Joint& J = m.mJoints[id];
    JointSlot sl;
    if (b.free) {
      const unsigned t = m.lambda[id];  // the TranslationXYZ body below the Spherical one
      if (J.mJointType != RBD::JointTypeSpherical || m.mJoints[t].mJointType != RBD::JointTypeTranslationXYZ) {
        err = "RBDL floating base of '" + b.body + "' is not TranslationXYZ + Spherical";
        return nullptr;
      }
      sl.q = m.mJoints[t].q_index;
      sl.v = m.mJoints[t].q_index;
      sl.qx = J.q_index;
      sl.qw = m.multdof3_w_index[id];
      sl.w_v = J.q_index;
    } else {
      if (J.mDoFCount != 1) {
        err = "RBDL joint of '" + b.body + "' has " + std::to_string(J.mDoFCount) + " dof";
        return nullptr;
      }
      sl.q = J.q_index;
      sl.v = J.q_index;
    }
    L.slot.push_back(sl);
  }
  RBD::Math::SpatialTransform Xj;
  if (!rbdl_frame(*s, r.jac_frame, s->jac_body, Xj, err)) return nullptr;
  s->jac_point = Xj.r;
  s->H = Eigen::MatrixXd::Zero(m.dof_count, m.dof_count);
  s->G6 = Eigen::MatrixXd::Zero(6, m.dof_count);
  s->out = Eigen::VectorXd::Zero(m.dof_count);
  for (int k = 0; k < kStates; ++k) {
    s->q.push_back(to_peer_q(r, L, r.q[k]));
    const Eigen::MatrixXd T = velocity_map(r, L, r.q[k]);
    s->v.push_back(T * r.v[k]);
    s->tau.push_back(T * r.tau[k]);
  }

  auto add = [&](Work w, const std::string& variant, std::function<void(long)> run,
                 std::function<Output(const Eigen::VectorXd&, const Eigen::VectorXd&, const Eigen::VectorXd&)> eval,
                 const std::string& note) {
    s->cases.push_back(Case{w, "RBDL", variant, std::move(run), std::move(eval), note});
  };
  auto peer_H = [s](const Eigen::VectorXd& qr) {
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(s->model->dof_count, s->model->dof_count);
    RBD::CompositeRigidBodyAlgorithm(*s->model, qr, H, true);
    return H;
  };
  add(
      Work::crba, "",
      [s](long n) {
        cycle(s->k, n, [s](int k) {
          RBD::CompositeRigidBodyAlgorithm(*s->model, s->q[k], s->H, true);
          escape(s->H.data());
        });
      },
      [s, peer_H](const Eigen::VectorXd& q, const Eigen::VectorXd&, const Eigen::VectorXd&) {
        const Eigen::MatrixXd T = velocity_map(s->robot, s->L, q);
        Output o;
        o.add("H", Eigen::MatrixXd(T.transpose() * peer_H(to_peer_q(s->robot, s->L, q)) * T));
        return o;
      },
      "CompositeRigidBodyAlgorithm (update_kinematics)");
  add(
      Work::rnea, "",
      [s](long n) {
        cycle(s->k, n, [s](int k) {
          RBD::NonlinearEffects(*s->model, s->q[k], s->v[k], s->out);
          escape(s->out.data());
        });
      },
      [s, peer_H](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
        const Eigen::VectorXd qr = to_peer_q(s->robot, s->L, q);
        const Eigen::MatrixXd T = velocity_map(s->robot, s->L, q);
        Eigen::VectorXd C(s->model->dof_count);
        RBD::NonlinearEffects(*s->model, qr, T * v, C);
        Output o;
        o.add("C", bias_to_talus(s->robot, s->L, q, v, peer_H(qr), C));
        return o;
      },
      "NonlinearEffects");
  add(
      Work::aba, "",
      [s](long n) {
        cycle(s->k, n, [s](int k) {
          RBD::ForwardDynamics(*s->model, s->q[k], s->v[k], s->tau[k], s->out);
          escape(s->out.data());
        });
      },
      [s](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
        const Eigen::MatrixXd T = velocity_map(s->robot, s->L, q);
        Eigen::VectorXd a(s->model->dof_count);
        RBD::ForwardDynamics(*s->model, to_peer_q(s->robot, s->L, q), T * v, T * tau, a);
        Output o;
        o.add("ddq", acc_to_talus(s->robot, s->L, q, v, a));
        return o;
      },
      "ForwardDynamics (ABA)");
  add(
      Work::jacobian, "",
      [s](long n) {
        cycle(s->k, n, [s](int k) {
          RBD::CalcPointJacobian6D(*s->model, s->q[k], s->jac_body, s->jac_point, s->G6, true);
          escape(s->G6.data());
        });
      },
      [s](const Eigen::VectorXd& q, const Eigen::VectorXd&, const Eigen::VectorXd&) {
        Eigen::MatrixXd G = Eigen::MatrixXd::Zero(6, s->model->dof_count);
        RBD::CalcPointJacobian6D(*s->model, to_peer_q(s->robot, s->L, q), s->jac_body, s->jac_point, G, true);
        Output o;
        o.add("J", Eigen::MatrixXd(G * velocity_map(s->robot, s->L, q)));
        return o;
      },
      "CalcPointJacobian6D (update_kinematics), from q");

  if (r.contacts.empty()) return side;

  // ---- constraint sets: one per variant (the linear solver is a member of the set) ----
  auto make_cs = [&](RBD::Math::LinearSolver solver, std::shared_ptr<RBD::ConstraintSet>& out) {
    out = std::make_shared<RBD::ConstraintSet>();
    for (const ContactDesc& cd : r.contacts) {
      unsigned body;
      RBD::Math::SpatialTransform X;
      if (!rbdl_frame(*s, cd.frame, body, X, err)) return false;
      if (!cd.six_d) {
        for (int a = 0; a < 3; ++a) out->AddContactConstraint(body, X.r, RBD::Math::Vector3d::Unit(a));
      } else {
        const RBD::Math::SpatialTransform Xp(cd.anchor_R.transpose(), cd.anchor_p);
        for (int a = 0; a < 6; ++a)
          out->AddLoopConstraint(0, body, Xp, X, RBD::Math::SpatialVector::Unit(a), false, 0.1);
      }
    }
    out->SetSolver(solver);
    if (!out->Bind(m)) {
      err = "RBDL ConstraintSet::Bind failed";
      return false;
    }
    out->v_plus.setZero();
    return true;
  };
  struct Variant {
    const char* name;
    RBD::Math::LinearSolver solver;
    bool range_space;
  };
  const Variant variants[] = {
      {"direct PartialPivLU", RBD::Math::LinearSolverPartialPivLU, false},
      {"direct ColPivHouseholderQR (default)", RBD::Math::LinearSolverColPivHouseholderQR, false},
      {"range-space sparse", RBD::Math::LinearSolverColPivHouseholderQR, true}};
  for (const Variant& var : variants) {
    std::shared_ptr<RBD::ConstraintSet> cs;
    if (!make_cs(var.solver, cs)) return nullptr;
    const bool rs = var.range_space;
    add(
        Work::fd, var.name,
        [s, cs, rs](long n) {
          cycle(s->k, n, [&](int k) {
            if (rs)
              RBD::ForwardDynamicsConstraintsRangeSpaceSparse(*s->model, s->q[k], s->v[k], s->tau[k], *cs, s->out);
            else RBD::ForwardDynamicsConstraintsDirect(*s->model, s->q[k], s->v[k], s->tau[k], *cs, s->out);
            escape(s->out.data());
          });
        },
        [s, cs, rs](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
          const Eigen::MatrixXd T = velocity_map(s->robot, s->L, q);
          const Eigen::VectorXd qr = to_peer_q(s->robot, s->L, q);
          Eigen::VectorXd a(s->model->dof_count);
          if (rs) RBD::ForwardDynamicsConstraintsRangeSpaceSparse(*s->model, qr, T * v, T * tau, *cs, a);
          else RBD::ForwardDynamicsConstraintsDirect(*s->model, qr, T * v, T * tau, *cs, a);
          Output o;
          o.add("ddq", acc_to_talus(s->robot, s->L, q, v, a));
          o.add("lambda", Eigen::VectorXd(cs->force));
          return o;
        },
        rs ? "ForwardDynamicsConstraintsRangeSpaceSparse (CalcConstrainedSystemVariables inside)"
           : std::string("ForwardDynamicsConstraintsDirect, linear_solver ") + var.name +
                 " (CalcConstrainedSystemVariables inside)");
    add(
        Work::impulse, var.name,
        [s, cs, rs](long n) {
          cycle(s->k, n, [&](int k) {
            if (rs) RBD::ComputeConstraintImpulsesRangeSpaceSparse(*s->model, s->q[k], s->v[k], *cs, s->out);
            else RBD::ComputeConstraintImpulsesDirect(*s->model, s->q[k], s->v[k], *cs, s->out);
            escape(s->out.data());
          });
        },
        [s, cs, rs](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
          const Eigen::MatrixXd T = velocity_map(s->robot, s->L, q);
          const Eigen::VectorXd qr = to_peer_q(s->robot, s->L, q);
          Eigen::VectorXd vp(s->model->dof_count);
          if (rs) RBD::ComputeConstraintImpulsesRangeSpaceSparse(*s->model, qr, T * v, *cs, vp);
          else RBD::ComputeConstraintImpulsesDirect(*s->model, qr, T * v, *cs, vp);
          Output o;
          o.add("v+", Eigen::VectorXd(T.transpose() * vp));
          o.add("Lambda", Eigen::VectorXd(cs->impulse));
          return o;
        },
        rs ? "ComputeConstraintImpulsesRangeSpaceSparse" : std::string("ComputeConstraintImpulsesDirect, ") + var.name);
  }
  return side;
}

}  // namespace peers
