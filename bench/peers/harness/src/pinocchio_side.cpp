// Pinocchio 3.7.0: model from its own URDF parser, states mapped from talus's convention, and
// the unconstrained cases.
//
//   CRBA      pinocchio::crba(q, Convention::LOCAL | WORLD) -> data.M (upper triangle only)
//   RNEA      pinocchio::nonLinearEffects(q, v)            -> data.nle
//   ABA       pinocchio::aba(q, v, τ, Convention::LOCAL | WORLD) -> data.ddq
//   Jacobian  pinocchio::computeFrameJacobian(q, frame, LOCAL_WORLD_ALIGNED, J) (kinematics on
//             the frame's support only), 6 x nv [lin; ang]
// Free flyer: q = [p, qx, qy, qz, qw], v = [v; ω] in the base frame (a permutation of talus's).
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/rnea.hpp>

#include "pinocchio_side.hpp"

namespace peers {

std::string pinocchio_version() { return PINOCCHIO_VERSION; }

bool pin_find_frame(const PinSide& s, const FrameDesc& f, pinocchio::FrameIndex& id, std::string& err) {
  const pinocchio::Model& m = s.model;
  if (!m.existFrame(f.name, pinocchio::BODY)) {
    err = "Pinocchio has no body frame '" + f.name + "'";
    return false;
  }
  id = m.getFrameId(f.name, pinocchio::BODY);
  const pinocchio::Frame& F = m.frames[id];
  if (F.parentJoint != s.joint_of_body[f.body] || (F.placement.rotation() - f.R).cwiseAbs().maxCoeff() > 1e-12 ||
      (F.placement.translation() - f.p).cwiseAbs().maxCoeff() > 1e-12) {
    err = "Pinocchio frame '" + f.name + "' is not where talus has it";
    return false;
  }
  return true;
}

std::unique_ptr<Side> make_pinocchio_side(const Robot& r, std::string& err) {
  auto side = std::make_unique<PinSide>();
  PinSide* s = side.get();
  s->robot = r;
  try {
    load_pinocchio_model(r.urdf, r.floating, s->model);
  } catch (const std::exception& e) {
    err = std::string("Pinocchio URDF parser: ") + e.what();
    return nullptr;
  }
  pinocchio::Model& m = s->model;
  if (m.nq != r.nq || m.nv != r.nv) {
    err = "Pinocchio nq/nv " + std::to_string(m.nq) + "/" + std::to_string(m.nv) + " vs talus " + std::to_string(r.nq) +
          "/" + std::to_string(r.nv);
    return nullptr;
  }
  s->data = std::make_unique<pinocchio::Data>(m);

  // talus body i -> Pinocchio joint of the same URDF joint name.
  PeerLayout& L = s->L;
  L.nq = m.nq;
  L.nv = m.nv;
  L.world_linear = false;
  std::vector<pinocchio::JointIndex>& joint_of_body = s->joint_of_body;
  for (const BodyDesc& b : r.bodies) {
    if (!m.existJointName(b.joint)) {
      err = "Pinocchio has no joint '" + b.joint + "'";
      return nullptr;
    }
    const pinocchio::JointIndex j = m.getJointId(b.joint);
    joint_of_body.push_back(j);
    JointSlot sl;
    const int iq = m.joints[j].idx_q(), iv = m.joints[j].idx_v();
    if (m.joints[j].nq() != b.nq || m.joints[j].nv() != b.nv) {
      err = "Pinocchio joint '" + b.joint + "' has another size than talus's";
      return nullptr;
    }
    if (b.free) {
      sl.q = iq;
      sl.qx = iq + 3;
      sl.qw = iq + 6;
      sl.v = iv;
      sl.w_v = iv + 3;
    } else {
      sl.q = iq;
      sl.v = iv;
    }
    L.slot.push_back(sl);
  }
  if (!pin_find_frame(*s, r.jac_frame, s->jac_fid, err)) return nullptr;
  s->J = pinocchio::Data::Matrix6x::Zero(6, m.nv);  // computeFrameJacobian writes the support columns only

  for (int k = 0; k < kStates; ++k) {
    s->q.push_back(to_peer_q(r, L, r.q[k]));
    const Eigen::MatrixXd T = velocity_map(r, L, r.q[k]);
    s->v.push_back(T * r.v[k]);
    s->tau.push_back(T * r.tau[k]);
  }

  auto add = [&](Work w, const std::string& variant, std::function<void(long)> run,
                 std::function<Output(const Eigen::VectorXd&, const Eigen::VectorXd&, const Eigen::VectorXd&)> eval,
                 const std::string& note) {
    s->cases.push_back(Case{w, "Pinocchio", variant, std::move(run), std::move(eval), note});
  };
  using pinocchio::Convention;
  for (Convention c : {Convention::LOCAL, Convention::WORLD}) {
    const std::string cname = c == Convention::LOCAL ? "LOCAL" : "WORLD";
    add(
        Work::crba, cname,
        [s, c](long n) {
          pin_cycle(s->k, n, [s, c](int k) {
            pinocchio::crba(s->model, *s->data, s->q[k], c);
            escape(s->data->M.data());
          });
        },
        [s, c](const Eigen::VectorXd& q, const Eigen::VectorXd&, const Eigen::VectorXd&) {
          const Eigen::VectorXd qp = to_peer_q(s->robot, s->L, q);
          s->data->M.setZero();
          pinocchio::crba(s->model, *s->data, qp, c);
          Eigen::MatrixXd M = s->data->M;
          M.triangularView<Eigen::StrictlyLower>() = M.transpose();
          const Eigen::MatrixXd T = velocity_map(s->robot, s->L, q);
          Output o;
          o.add("H", Eigen::MatrixXd(T.transpose() * M * T));
          return o;
        },
        "pinocchio::crba(Convention::" + cname + "): upper triangle of M");
    add(
        Work::aba, cname,
        [s, c](long n) {
          pin_cycle(s->k, n, [s, c](int k) {
            pinocchio::aba(s->model, *s->data, s->q[k], s->v[k], s->tau[k], c);
            escape(s->data->ddq.data());
          });
        },
        [s, c](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
          const Eigen::MatrixXd T = velocity_map(s->robot, s->L, q);
          pinocchio::aba(s->model, *s->data, to_peer_q(s->robot, s->L, q), T * v, T * tau, c);
          Output o;
          o.add("ddq", acc_to_talus(s->robot, s->L, q, v, s->data->ddq));
          return o;
        },
        "pinocchio::aba(Convention::" + cname + ")");
  }
  add(
      Work::rnea, "",
      [s](long n) {
        pin_cycle(s->k, n, [s](int k) {
          pinocchio::nonLinearEffects(s->model, *s->data, s->q[k], s->v[k]);
          escape(s->data->nle.data());
        });
      },
      [s](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
        const Eigen::MatrixXd T = velocity_map(s->robot, s->L, q);
        pinocchio::nonLinearEffects(s->model, *s->data, to_peer_q(s->robot, s->L, q), T * v);
        Output o;
        o.add("C", Eigen::VectorXd(T.transpose() * s->data->nle));
        return o;
      },
      "pinocchio::nonLinearEffects");
  add(
      Work::jacobian, "",
      [s](long n) {
        pin_cycle(s->k, n, [s](int k) {
          pinocchio::computeFrameJacobian(s->model, *s->data, s->q[k], s->jac_fid, pinocchio::LOCAL_WORLD_ALIGNED,
                                          s->J);
          escape(s->J.data());
        });
      },
      [s](const Eigen::VectorXd& q, const Eigen::VectorXd&, const Eigen::VectorXd&) {
        pinocchio::Data::Matrix6x J = pinocchio::Data::Matrix6x::Zero(6, s->model.nv);
        pinocchio::computeFrameJacobian(s->model, *s->data, to_peer_q(s->robot, s->L, q), s->jac_fid,
                                        pinocchio::LOCAL_WORLD_ALIGNED, J);
        Eigen::MatrixXd Jt(6, s->model.nv);
        Jt.topRows<3>() = J.bottomRows<3>();  // talus rows: [angular; linear]
        Jt.bottomRows<3>() = J.topRows<3>();
        Output o;
        o.add("J", Eigen::MatrixXd(Jt * velocity_map(s->robot, s->L, q)));
        return o;
      },
      "pinocchio::computeFrameJacobian(LOCAL_WORLD_ALIGNED), from q");

  if (!r.contacts.empty() && !add_pinocchio_contact_cases(*s, err)) return nullptr;
  return side;
}

}  // namespace peers
