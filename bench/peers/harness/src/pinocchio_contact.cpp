// Pinocchio 3.7.0 constrained cases. Contacts as RigidConstraintModel: CONTACT_3D at each foot
// frame (quadrupeds), CONTACT_6D between each sole frame and its world anchor (talos); reference
// frame LOCAL_WORLD_ALIGNED (rows in world axes, like talus's and RBDL's) or LOCAL.
// initConstraintDynamics once at set-up, then per call (all from q, v, τ):
//   FD       pinocchio::constraintDynamics(q, v, τ, models, datas, settings) -> data.ddq, data.lambda_c
//   impulse  pinocchio::impulseDynamics(q, v⁻, models, datas, r_coeff = 0, settings) -> data.dq_after, data.impulse_c
// settings: default ProximalSettings (mu = 0, max_iter = 1: one exact solve of the KKT system
// by Pinocchio's sparse contact Cholesky).
#include <pinocchio/algorithm/constrained-dynamics.hpp>
#include <pinocchio/algorithm/contact-info.hpp>
#include <pinocchio/algorithm/impulse-dynamics.hpp>
#include <pinocchio/algorithm/proximal.hpp>

#include "pinocchio_side.hpp"

namespace peers {
namespace {

struct PinContacts {
  PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(pinocchio::RigidConstraintModel) models;
  PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(pinocchio::RigidConstraintData) datas;
  pinocchio::ProximalSettings settings;
  pinocchio::ReferenceFrame rf;
  std::unique_ptr<pinocchio::Data> data;  // a Data of its own (initConstraintDynamics sizes it)
};

/// Pinocchio's λ (per contact: 3D [f], 6D [f; τ] in the reference frame) -> talus's rows
/// (3D: world x, y, z; 6D: [τ; f] in the anchor's axes).
Eigen::VectorXd lambda_to_talus(const Robot& r, const PinContacts& c, const Eigen::VectorXd& lam) {
  Eigen::VectorXd out(lam.size());
  int row = 0;
  for (size_t i = 0; i < r.contacts.size(); ++i) {
    const ContactDesc& cd = r.contacts[i];
    const Eigen::Matrix3d Rc = c.rf == pinocchio::LOCAL ? c.datas[i].oMc1.rotation()
                                                        : Eigen::Matrix3d(Eigen::Matrix3d::Identity());
    if (!cd.six_d) {
      out.segment<3>(row) = Rc * lam.segment<3>(row);
      row += 3;
    } else {
      out.segment<3>(row) = cd.anchor_R.transpose() * Rc * lam.segment<3>(row + 3);
      out.segment<3>(row + 3) = cd.anchor_R.transpose() * Rc * lam.segment<3>(row);
      row += 6;
    }
  }
  return out;
}

}  // namespace

bool add_pinocchio_contact_cases(PinSide& s, std::string& err) {
  const Robot& r = s.robot;
  for (pinocchio::ReferenceFrame rf : {pinocchio::LOCAL_WORLD_ALIGNED, pinocchio::LOCAL}) {
    auto c = std::make_shared<PinContacts>();
    c->rf = rf;
    for (const ContactDesc& cd : r.contacts) {
      pinocchio::FrameIndex fid;
      if (!pin_find_frame(s, cd.frame, fid, err)) return false;
      const pinocchio::Frame& F = s.model.frames[fid];
      if (!cd.six_d) c->models.emplace_back(pinocchio::CONTACT_3D, s.model, F.parentJoint, F.placement, rf);
      else
        c->models.emplace_back(pinocchio::CONTACT_6D, s.model, F.parentJoint, F.placement, 0,
                               pinocchio::SE3(cd.anchor_R, cd.anchor_p), rf);
    }
    for (const auto& cm : c->models) c->datas.emplace_back(cm);
    c->data = std::make_unique<pinocchio::Data>(s.model);
    pinocchio::initConstraintDynamics(s.model, *c->data, c->models);
    const std::string rname = rf == pinocchio::LOCAL ? "LOCAL" : "LOCAL_WORLD_ALIGNED";
    PinSide* sp = &s;

    s.cases.push_back(Case{
        Work::fd, "Pinocchio", "constraintDynamics " + rname,
        [sp, c](long n) {
          pin_cycle(sp->k, n, [sp, c](int k) {
            pinocchio::constraintDynamics(sp->model, *c->data, sp->q[k], sp->v[k], sp->tau[k], c->models, c->datas,
                                          c->settings);
            escape(c->data->ddq.data());
          });
        },
        [sp, c](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
          const Eigen::MatrixXd T = velocity_map(sp->robot, sp->L, q);
          pinocchio::constraintDynamics(sp->model, *c->data, to_peer_q(sp->robot, sp->L, q), T * v, T * tau, c->models,
                                        c->datas, c->settings);
          Output o;
          o.add("ddq", acc_to_talus(sp->robot, sp->L, q, v, c->data->ddq));
          o.add("lambda", lambda_to_talus(sp->robot, *c, c->data->lambda_c));
          return o;
        },
        "pinocchio::constraintDynamics, contacts in " + rname + ", default ProximalSettings (mu 0, 1 iteration)"});
    s.cases.push_back(Case{Work::impulse, "Pinocchio", "impulseDynamics " + rname,
                           [sp, c](long n) {
                             pin_cycle(sp->k, n, [sp, c](int k) {
                               pinocchio::impulseDynamics(sp->model, *c->data, sp->q[k], sp->v[k], c->models, c->datas,
                                                          0.0, c->settings);
                               escape(c->data->dq_after.data());
                             });
                           },
                           [sp, c](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
                             const Eigen::MatrixXd T = velocity_map(sp->robot, sp->L, q);
                             pinocchio::impulseDynamics(sp->model, *c->data, to_peer_q(sp->robot, sp->L, q), T * v,
                                                        c->models, c->datas, 0.0, c->settings);
                             Output o;
                             o.add("v+", Eigen::VectorXd(T.transpose() * c->data->dq_after));
                             o.add("Lambda", lambda_to_talus(sp->robot, *c, c->data->impulse_c));
                             return o;
                           },
                           "pinocchio::impulseDynamics (r_coeff 0), contacts in " + rname});
  }
  return true;
}

}  // namespace peers
