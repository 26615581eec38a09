// MuJoCo 2.2.2 side (Debian's libmujoco), exactly as talus's bench/bench_dynamics.cpp times it,
// with talus's own URDF preparation (tests/support/mujoco_support.cpp: fixed links merged, no
// meshes, principal inertias; no balanceinertia needed). Free joint qpos = [p, qw, qx, qy, qz],
// qvel = [v world; ω body].
//
//   CRBA      copy qpos; mj_kinematics, mj_comPos, mj_crb                  (sparse qM)
//   RNEA      copy qpos, qvel; mj_kinematics, mj_comPos, mj_comVel, mj_rne(flg_acc = 0)
//   ABA       copy qpos, qvel; kinematics, comPos, crb, factorM, comVel, rne(0), qacc = M⁻¹(qfrc − bias)
//   Jacobian  copy qpos; mj_kinematics, mj_comPos, mj_jac at the frame origin on its body
// No constrained rows (MuJoCo's equality constraints are soft; not the same problem).
#include "common.hpp"
#include "mujoco_support.hpp"

namespace peers {

std::string mujoco_version() { return mj_versionString(); }

namespace {

struct MjSide : Side {
  Robot robot;
  PeerLayout L;
  talus_test::MjRobot mj;
  std::vector<mjtNum> qpos, qvel, qfrc;  // kStates x nq / nv
  int k = 0;
  int jac_body = -1;
  Eigen::Vector3d jac_offset;
  std::vector<mjtNum> jacp, jacr;
};

template <class F>
void cycle(int& k, long n, F&& f) {
  for (long i = 0; i < n; ++i) {
    f(k);
    k = (k + 1) & (kStates - 1);
  }
}

}  // namespace

std::unique_ptr<Side> make_mujoco_side(const Robot& r, std::string& err) {
  auto side = std::make_unique<MjSide>();
  MjSide* s = side.get();
  s->robot = r;
  if (!talus_test::load_mujoco(r.urdf, r.floating, false, s->mj, err)) return nullptr;
  const mjModel* m = s->mj.m;
  if (m->nq != r.nq || m->nv != r.nv) {
    err = "MuJoCo nq/nv " + std::to_string(m->nq) + "/" + std::to_string(m->nv);
    return nullptr;
  }
  PeerLayout& L = s->L;
  L.nq = m->nq;
  L.nv = m->nv;
  L.world_linear = true;
  std::vector<int> body_id;
  for (const BodyDesc& b : r.bodies) {
    const int bid = mj_name2id(m, mjOBJ_BODY, b.body.c_str());
    if (bid < 0) {
      err = "MuJoCo has no body '" + b.body + "'";
      return nullptr;
    }
    body_id.push_back(bid);
    int j = -1;
    if (b.free) {
      for (int i = 0; i < m->body_jntnum[bid]; ++i)
        if (m->jnt_type[m->body_jntadr[bid] + i] == mjJNT_FREE) j = m->body_jntadr[bid] + i;
    } else {
      j = mj_name2id(m, mjOBJ_JOINT, b.joint.c_str());
      if (j >= 0 && (m->jnt_bodyid[j] != bid || (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE)))
        j = -1;
    }
    if (j < 0) {
      err = "MuJoCo has no matching joint '" + b.joint + "'";
      return nullptr;
    }
    JointSlot sl;
    sl.q = m->jnt_qposadr[j];
    sl.v = m->jnt_dofadr[j];
    if (b.free) {
      sl.qw = sl.q + 3;
      sl.qx = sl.q + 4;
      sl.w_v = sl.v + 3;
    }
    L.slot.push_back(sl);
  }
  s->jac_body = body_id[r.jac_frame.body];
  s->jac_offset = r.jac_frame.p;  // the MuJoCo body frame is the URDF link frame (mujoco_support)
  s->jacp.resize(3 * m->nv);
  s->jacr.resize(3 * m->nv);
  for (int k = 0; k < kStates; ++k) {
    const Eigen::VectorXd qp = to_peer_q(r, L, r.q[k]);
    const Eigen::MatrixXd T = velocity_map(r, L, r.q[k]);
    const Eigen::VectorXd qv = T * r.v[k], qf = T * r.tau[k];
    s->qpos.insert(s->qpos.end(), qp.data(), qp.data() + m->nq);
    s->qvel.insert(s->qvel.end(), qv.data(), qv.data() + m->nv);
    s->qfrc.insert(s->qfrc.end(), qf.data(), qf.data() + m->nv);
  }

  auto add = [&](Work w, std::function<void(long)> run,
                 std::function<Output(const Eigen::VectorXd&, const Eigen::VectorXd&, const Eigen::VectorXd&)> eval,
                 const std::string& note) {
    s->cases.push_back(Case{w, "MuJoCo", "", std::move(run), std::move(eval), note});
  };
  // Full pipeline on one state in talus convention: M (dense), bias, qacc in MuJoCo's.
  struct Full {
    Eigen::MatrixXd T, M;
    Eigen::VectorXd bias, qacc;
  };
  auto full = [s](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
    const int nv = s->mj.m->nv;
    Full f;
    f.T = velocity_map(s->robot, s->L, q);
    const Eigen::VectorXd qp = to_peer_q(s->robot, s->L, q), qv = f.T * v, qf = f.T * tau;
    f.M.resize(nv, nv);
    f.bias.resize(nv);
    f.qacc.resize(nv);
    talus_test::mujoco_pipeline(s->mj, qp.data(), qv.data(), qf.data(), f.M.data(), f.bias.data(), f.qacc.data());
    return f;
  };
  add(
      Work::crba,
      [s](long n) {
        const mjModel* m = s->mj.m;
        mjData* d = s->mj.d;
        cycle(s->k, n, [&](int k) {
          mju_copy(d->qpos, &s->qpos[k * m->nq], m->nq);
          mj_kinematics(m, d);
          mj_comPos(m, d);
          mj_crb(m, d);
          escape(d->qM);
        });
      },
      [s, full](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
        const Full f = full(q, v, tau);
        Output o;
        o.add("H", Eigen::MatrixXd(f.T.transpose() * f.M * f.T));
        return o;
      },
      "mj_kinematics + mj_comPos + mj_crb (sparse qM)");
  add(
      Work::rnea,
      [s](long n) {
        const mjModel* m = s->mj.m;
        mjData* d = s->mj.d;
        cycle(s->k, n, [&](int k) {
          mju_copy(d->qpos, &s->qpos[k * m->nq], m->nq);
          mju_copy(d->qvel, &s->qvel[k * m->nv], m->nv);
          mj_kinematics(m, d);
          mj_comPos(m, d);
          mj_comVel(m, d);
          mj_rne(m, d, 0, d->qfrc_bias);
          escape(d->qfrc_bias);
        });
      },
      [s, full](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
        const Full f = full(q, v, tau);
        Output o;
        o.add("C", bias_to_talus(s->robot, s->L, q, v, f.M, f.bias));
        return o;
      },
      "mj_kinematics + mj_comPos + mj_comVel + mj_rne(0)");
  add(
      Work::aba,
      [s](long n) {
        const mjModel* m = s->mj.m;
        mjData* d = s->mj.d;
        cycle(s->k, n, [&](int k) {
          mju_copy(d->qpos, &s->qpos[k * m->nq], m->nq);
          mju_copy(d->qvel, &s->qvel[k * m->nv], m->nv);
          mj_kinematics(m, d);
          mj_comPos(m, d);
          mj_crb(m, d);
          mj_factorM(m, d);
          mj_comVel(m, d);
          mj_rne(m, d, 0, d->qfrc_bias);
          mju_sub(d->qfrc_smooth, &s->qfrc[k * m->nv], d->qfrc_bias, m->nv);
          mj_solveM(m, d, d->qacc, d->qfrc_smooth, 1);
          escape(d->qacc);
        });
      },
      [s, full](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
        const Full f = full(q, v, tau);
        Output o;
        o.add("ddq", acc_to_talus(s->robot, s->L, q, v, f.qacc));
        return o;
      },
      "kinematics, comPos, crb, factorM, comVel, rne(0), solveM (no ABA in MuJoCo)");
  add(
      Work::jacobian,
      [s](long n) {
        const mjModel* m = s->mj.m;
        mjData* d = s->mj.d;
        const int b = s->jac_body;
        const mjtNum off[3] = {s->jac_offset[0], s->jac_offset[1], s->jac_offset[2]};
        cycle(s->k, n, [&](int k) {
          mju_copy(d->qpos, &s->qpos[k * m->nq], m->nq);
          mj_kinematics(m, d);
          mj_comPos(m, d);
          mjtNum point[3];
          mju_rotVecMat(point, off, d->xmat + 9 * b);
          mju_addTo3(point, d->xpos + 3 * b);
          mj_jac(m, d, s->jacp.data(), s->jacr.data(), point, b);
          escape(s->jacp.data());
          escape(s->jacr.data());
        });
      },
      [s, full](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
        const Full f = full(q, v, tau);  // leaves the kinematics of q in mj.d
        const mjModel* m = s->mj.m;
        mjData* d = s->mj.d;
        using RowMat = Eigen::Matrix<mjtNum, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        RowMat jp(3, m->nv), jr(3, m->nv);
        const int b = s->jac_body;
        const Eigen::Map<const Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>> R(d->xmat + 9 * b);
        const Eigen::Vector3d point = Eigen::Map<const Eigen::Vector3d>(d->xpos + 3 * b) + R * s->jac_offset;
        mj_jac(m, d, jp.data(), jr.data(), point.data(), b);
        Eigen::MatrixXd J(6, m->nv);
        J.topRows<3>() = jr;
        J.bottomRows<3>() = jp;
        Output o;
        o.add("J", Eigen::MatrixXd(J * f.T));
        return o;
      },
      "mj_kinematics + mj_comPos + mj_jac at the frame origin");
  return side;
}

}  // namespace peers
