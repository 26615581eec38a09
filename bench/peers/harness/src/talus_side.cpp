// talus side: the eight generated models, the benchmark states (talus's own RNG, as
// bench/bench_dynamics.cpp makes them) and the timed calls.
//
//   CRBA      talus::crba(q)                                   -> data.H (full, symmetric)
//   RNEA      talus::nonlinear_effects(q, v)                   -> C(q, v) incl. gravity
//   ABA       talus::aba(q, v, τ)                              -> q̈
//   Jacobian  talus::frame_jacobian(q, frame, local_world_aligned) -> 6 x nv [ang; lin]
//   FD        forward_dynamics_range_space / _articulated / _constrained_aba / _direct(ldlt | partial_piv_lu)
//             (q, v, τ) -> q̈, λ
//   impulse   compute_impulse_range_space / _articulated / _constrained_aba / _direct(partial_piv_lu | ldlt)
//             (q, v⁻) -> q̇⁺, Λ (v⁺ = 0)
// Every call validates its inputs (finite, unit quaternions), as talus always does.
#include <talus/constraints.hpp>
#include <talus/solvers.hpp>
#include <talus/models/anymal_c.hpp>
#include <talus/models/atlas.hpp>
#include <talus/models/hyq.hpp>
#include <talus/models/iiwa.hpp>
#include <talus/models/panda_arm7.hpp>
#include <talus/models/solo12.hpp>
#include <talus/models/talos.hpp>
#include <talus/models/ur5.hpp>
#include <talus/talus.hpp>

#include <cstdio>

#include "common.hpp"

#ifndef PEERS_ATLAS_URDF
#define PEERS_ATLAS_URDF ""
#endif

namespace peers {
namespace {

constexpr int kMaxRows = 12;

template <class ModelT>
struct TalusSide : Side {
  using Model = ModelT;
  using Config = typename Model::ConfigVector;
  using Tangent = typename Model::TangentVector;
  using CS = talus::ConstraintSet<Model, kMaxRows>;
  static constexpr int nq = Model::nq, nv = Model::nv;

  Model model;
  std::unique_ptr<talus::Data<Model>> data = std::make_unique<talus::Data<Model>>();
  std::unique_ptr<CS> cs;
  int jac_fid = -1;
  talus::ProximalSettings<double> caba = talus::constrained_aba_settings<double>();
  std::vector<Config> q;
  std::vector<Tangent> v, tau;
  int k = 0;  // next state of run()

  Tangent out;
  typename Model::Jacobian6 J;

  Config cq(const Eigen::VectorXd& x) const { return Config(x); }
  Tangent ct(const Eigen::VectorXd& x) const { return Tangent(x); }
};

template <class F>
void cycle(int& k, long n, F&& f) {
  for (long i = 0; i < n; ++i) {
    f(k);
    k = (k + 1) & (kStates - 1);
  }
}

void check(talus::Status s, const char* what) {
  if (s != talus::Status::ok) {
    std::fprintf(stderr, "talus: %s returned status %d\n", what, static_cast<int>(s));
    std::abort();
  }
}

template <class ModelT>
std::unique_ptr<Side> make(const std::string& name, const ModelT& model, const std::string& urdf, bool floating,
                           const char* jac_frame, const std::vector<const char*>& contact_frames, bool six_d,
                           const std::string& contacts_text, Robot& r, std::string& err) {
  using Tree = typename ModelT::Tree;
  using St = TalusSide<ModelT>;
  auto side = std::make_unique<St>();
  St* s = side.get();
  s->model = model;

  // ---- description ----
  r = Robot{};
  r.name = name;
  r.urdf = urdf;
  r.floating = floating;
  r.nq = St::nq;
  r.nv = St::nv;
  for (int i = 0; i < ModelT::nb; ++i) {
    BodyDesc b;
    b.body = model.body_name[i] ? model.body_name[i] : "";
    b.joint = model.joint_name[i] ? model.joint_name[i] : "";
    b.parent = Tree::parent[i];
    b.nq = Tree::joint_nq[i];
    b.nv = Tree::joint_nv[i];
    b.idx_q = Tree::idx_q[i];
    b.idx_v = Tree::idx_v[i];
    b.free = b.nq == 7 && b.nv == 6;
    if (!(b.free || (b.nq == 1 && b.nv == 1))) {
      err = name + ": body " + b.body + " has a joint the harness does not map (nq " + std::to_string(b.nq) + ")";
      return nullptr;
    }
    r.bodies.push_back(b);
  }
  auto frame_desc = [&](const char* fname, FrameDesc& f) {
    const int id = s->model.frame_id(fname);
    if (id < 0 || s->model.frames[id].body < 0) {
      err = name + ": no moving frame '" + fname + "'";
      return -1;
    }
    f.name = fname;
    f.body = s->model.frames[id].body;
    f.R = s->model.frames[id].placement.R;
    f.p = s->model.frames[id].placement.p;
    return id;
  };
  s->jac_fid = frame_desc(jac_frame, r.jac_frame);
  if (s->jac_fid < 0) return nullptr;

  // ---- states (same recipe as talus's bench_dynamics.cpp) ----
  talus::Random rng(20240611);
  for (int k = 0; k < kStates; ++k) {
    typename St::Config q;
    typename St::Tangent v, tau;
    talus::random_configuration(s->model, rng, q);
    for (int i = 0; i < St::nv; ++i) {
      v[i] = rng.uniform(-1, 1);
      tau[i] = rng.uniform(-10, 10);
    }
    s->q.push_back(q);
    s->v.push_back(v);
    s->tau.push_back(tau);
    r.q.emplace_back(q);
    r.v.emplace_back(v);
    r.tau.emplace_back(tau);
  }

  // ---- contacts (as talus's constrained_bench.cpp: 6D welds anchored where the soles are at state 0) ----
  if (!contact_frames.empty()) {
    s->cs = std::make_unique<typename St::CS>();
    check(talus::forward_kinematics(s->model, *s->data, s->q[0]), "forward_kinematics");
    for (const char* f : contact_frames) {
      ContactDesc c;
      const int id = frame_desc(f, c.frame);
      if (id < 0) return nullptr;
      c.six_d = six_d;
      const auto& F = s->model.frames[id];
      if (!six_d) {
        check(s->cs->add_contact(F.body, F.placement.p,
                                 {talus::Vector3<double>::UnitX(), talus::Vector3<double>::UnitY(),
                                  talus::Vector3<double>::UnitZ()},
                                 f),
              "add_contact");
      } else {
        talus::Transform<double> oMf;
        check(talus::frame_placement(s->model, *s->data, id, oMf), "frame_placement");
        c.anchor_R = oMf.R;
        c.anchor_p = oMf.p;
        talus::LoopAxis<double> a[6];
        for (int k = 0; k < 6; ++k) a[k].axis = talus::Motion<double>::Unit(k);
        check(s->cs->add_loop(-1, oMf, F.body, F.placement, {a[0], a[1], a[2], a[3], a[4], a[5]}, {}, f), "add_loop");
      }
      r.contacts.push_back(c);
    }
    check(s->cs->bind(s->model), "bind");
    r.contacts_text = contacts_text;
    // Velocities satisfying G v = 0, for the agreement check of formulations that differ
    // when the constraints' velocities are not zero.
    for (int k = 0; k < kStates; ++k) {
      check(talus::compute_constraint_jacobian(s->model, *s->data, *s->cs, s->q[k]), "compute_constraint_jacobian");
      const Eigen::MatrixXd G = s->cs->G;
      const Eigen::VectorXd v = r.v[k];
      r.v_consistent.push_back(v - G.transpose() * (G * G.transpose()).ldlt().solve(G * v));
    }
  }

  // ---- cases ----
  auto add = [&](Work w, const std::string& variant, std::function<void(long)> run,
                 std::function<Output(const Eigen::VectorXd&, const Eigen::VectorXd&, const Eigen::VectorXd&)> eval,
                 const std::string& note) {
    s->cases.push_back(Case{w, "talus", variant, std::move(run), std::move(eval), note});
  };
  add(
      Work::crba, "",
      [s](long n) {
        cycle(s->k, n, [s](int k) {
          talus::Status st = talus::crba(s->model, *s->data, s->q[k]);
          escape(&st);
          escape(s->data->H.data());
        });
      },
      [s](const Eigen::VectorXd& q, const Eigen::VectorXd&, const Eigen::VectorXd&) {
        check(talus::crba(s->model, *s->data, s->cq(q)), "crba");
        Output o;
        o.add("H", Eigen::MatrixXd(s->data->H));
        return o;
      },
      "talus::crba (full symmetric H)");
  add(
      Work::rnea, "",
      [s](long n) {
        cycle(s->k, n, [s](int k) {
          talus::Status st = talus::nonlinear_effects(s->model, *s->data, s->q[k], s->v[k], s->out);
          escape(&st);
          escape(s->out.data());
        });
      },
      [s](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
        check(talus::nonlinear_effects(s->model, *s->data, s->cq(q), s->ct(v), s->out), "nonlinear_effects");
        Output o;
        o.add("C", Eigen::VectorXd(s->out));
        return o;
      },
      "talus::nonlinear_effects");
  add(
      Work::aba, "",
      [s](long n) {
        cycle(s->k, n, [s](int k) {
          talus::Status st = talus::aba(s->model, *s->data, s->q[k], s->v[k], s->tau[k], s->out);
          escape(&st);
          escape(s->out.data());
        });
      },
      [s](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
        check(talus::aba(s->model, *s->data, s->cq(q), s->ct(v), s->ct(tau), s->out), "aba");
        Output o;
        o.add("ddq", Eigen::VectorXd(s->out));
        return o;
      },
      "talus::aba");
  add(
      Work::jacobian, "",
      [s](long n) {
        cycle(s->k, n, [s](int k) {
          talus::Status st = talus::frame_jacobian(s->model, *s->data, s->q[k], s->jac_fid,
                                                   talus::ReferenceFrame::local_world_aligned, s->J);
          escape(&st);
          escape(s->J.data());
        });
      },
      [s](const Eigen::VectorXd& q, const Eigen::VectorXd&, const Eigen::VectorXd&) {
        check(talus::frame_jacobian(s->model, *s->data, s->cq(q), s->jac_fid,
                                    talus::ReferenceFrame::local_world_aligned, s->J),
              "frame_jacobian");
        Output o;
        o.add("J", Eigen::MatrixXd(s->J));
        return o;
      },
      "talus::frame_jacobian(local_world_aligned), from q");

  if (s->cs) {
    auto fd_out = [s]() {
      Output o;
      o.add("ddq", Eigen::VectorXd(s->out));
      o.add("lambda", Eigen::VectorXd(s->cs->lambda));
      return o;
    };
    add(
        Work::fd, "range-space",
        [s](long n) {
          cycle(s->k, n, [s](int k) {
            talus::Status st =
                talus::forward_dynamics_range_space(s->model, *s->data, *s->cs, s->q[k], s->v[k], s->tau[k], s->out);
            escape(&st);
            escape(s->out.data());
          });
        },
        [s, fd_out](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
          check(talus::forward_dynamics_range_space(s->model, *s->data, *s->cs, s->cq(q), s->ct(v), s->ct(tau), s->out),
                "forward_dynamics_range_space");
          return fd_out();
        },
        "forward_dynamics_range_space (H = LᵀL along the tree, Schur complement)");
    add(
        Work::fd, "articulated",
        [s](long n) {
          cycle(s->k, n, [s](int k) {
            talus::Status st =
                talus::forward_dynamics_articulated(s->model, *s->data, *s->cs, s->q[k], s->v[k], s->tau[k], s->out);
            escape(&st);
            escape(s->out.data());
          });
        },
        [s, fd_out](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
          check(talus::forward_dynamics_articulated(s->model, *s->data, *s->cs, s->cq(q), s->ct(v), s->ct(tau), s->out),
                "forward_dynamics_articulated");
          return fd_out();
        },
        "forward_dynamics_articulated (ABA's factorization of H^-1, Delassus matrix by row sweeps)");
    add(
        Work::impulse, "articulated",
        [s](long n) {
          cycle(s->k, n, [s](int k) {
            talus::Status st = talus::compute_impulse_articulated(s->model, *s->data, *s->cs, s->q[k], s->v[k], s->out);
            escape(&st);
            escape(s->out.data());
          });
        },
        [s](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
          check(talus::compute_impulse_articulated(s->model, *s->data, *s->cs, s->cq(q), s->ct(v), s->out),
                "compute_impulse_articulated");
          Output o;
          o.add("v+", Eigen::VectorXd(s->out));
          o.add("Lambda", Eigen::VectorXd(s->cs->lambda));
          return o;
        },
        "compute_impulse_articulated (v⁺ = 0)");
    add(
        Work::fd, "constrained ABA",
        [s](long n) {
          cycle(s->k, n, [s](int k) {
            talus::ProximalReport<double> rep;
            talus::Status st = talus::forward_dynamics_constrained_aba(s->model, *s->data, *s->cs, s->q[k], s->v[k],
                                                                       s->tau[k], s->out, s->caba, rep);
            escape(&st);
            escape(s->out.data());
          });
        },
        [s, fd_out](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
          talus::ProximalReport<double> rep;
          check(talus::forward_dynamics_constrained_aba(s->model, *s->data, *s->cs, s->cq(q), s->ct(v), s->ct(tau),
                                                        s->out, s->caba, rep),
                "forward_dynamics_constrained_aba");
          return fd_out();
        },
        "forward_dynamics_constrained_aba (proximal iteration inside ABA's passes, constrained_aba_settings)");
    add(
        Work::impulse, "constrained ABA",
        [s](long n) {
          cycle(s->k, n, [s](int k) {
            talus::ProximalReport<double> rep;
            talus::Status st = talus::compute_impulse_constrained_aba(s->model, *s->data, *s->cs, s->q[k], s->v[k],
                                                                      s->out, s->caba, rep);
            escape(&st);
            escape(s->out.data());
          });
        },
        [s](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
          talus::ProximalReport<double> rep;
          check(talus::compute_impulse_constrained_aba(s->model, *s->data, *s->cs, s->cq(q), s->ct(v), s->out, s->caba,
                                                       rep),
                "compute_impulse_constrained_aba");
          Output o;
          o.add("v+", Eigen::VectorXd(s->out));
          o.add("Lambda", Eigen::VectorXd(s->cs->lambda));
          return o;
        },
        "compute_impulse_constrained_aba (v⁺ = 0)");
    for (talus::KKTMethod m : {talus::KKTMethod::ldlt, talus::KKTMethod::partial_piv_lu}) {
      add(
          Work::fd, std::string("direct ") + talus::to_string(m),
          [s, m](long n) {
            cycle(s->k, n, [s, m](int k) {
              talus::Status st =
                  talus::forward_dynamics_direct(s->model, *s->data, *s->cs, s->q[k], s->v[k], s->tau[k], s->out, m);
              escape(&st);
              escape(s->out.data());
            });
          },
          [s, m, fd_out](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
            check(talus::forward_dynamics_direct(s->model, *s->data, *s->cs, s->cq(q), s->ct(v), s->ct(tau), s->out, m),
                  "forward_dynamics_direct");
            return fd_out();
          },
          std::string("forward_dynamics_direct, KKT matrix with ") + talus::to_string(m));
    }
    add(
        Work::impulse, "range-space",
        [s](long n) {
          cycle(s->k, n, [s](int k) {
            talus::Status st = talus::compute_impulse_range_space(s->model, *s->data, *s->cs, s->q[k], s->v[k], s->out);
            escape(&st);
            escape(s->out.data());
          });
        },
        [s](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
          check(talus::compute_impulse_range_space(s->model, *s->data, *s->cs, s->cq(q), s->ct(v), s->out),
                "compute_impulse_range_space");
          Output o;
          o.add("v+", Eigen::VectorXd(s->out));
          o.add("Lambda", Eigen::VectorXd(s->cs->lambda));
          return o;
        },
        "compute_impulse_range_space (v⁺ = 0)");
    for (talus::KKTMethod m : {talus::KKTMethod::partial_piv_lu, talus::KKTMethod::ldlt}) {
      add(
          Work::impulse, std::string("direct ") + talus::to_string(m),
          [s, m](long n) {
            cycle(s->k, n, [s, m](int k) {
              talus::Status st = talus::compute_impulse_direct(s->model, *s->data, *s->cs, s->q[k], s->v[k], s->out, m);
              escape(&st);
              escape(s->out.data());
            });
          },
          [s, m](const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd&) {
            check(talus::compute_impulse_direct(s->model, *s->data, *s->cs, s->cq(q), s->ct(v), s->out, m),
                  "compute_impulse_direct");
            Output o;
            o.add("v+", Eigen::VectorXd(s->out));
            o.add("Lambda", Eigen::VectorXd(s->cs->lambda));
            return o;
          },
          std::string("compute_impulse_direct, KKT matrix with ") + talus::to_string(m));
    }
  }
  return side;
}

}  // namespace

std::unique_ptr<Side> make_talus_side(const std::string& name, const std::string& dir, Robot& r, std::string& err) {
  namespace tm = talus::models;
  if (name == "solo12")
    return make(name, tm::solo12::make_model<double>(), dir + "/solo12/solo12.urdf", true, "FL_FOOT",
                {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"}, false, "4 feet x 3D", r, err);
  if (name == "anymal_c")
    return make(name, tm::anymal_c::make_model<double>(), dir + "/anymal_c/anymal.urdf", true, "LF_FOOT",
                {"LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT"}, false, "4 feet x 3D", r, err);
  if (name == "talos")
    return make(name, tm::talos::make_model<double>(), dir + "/talos/talos_reduced.urdf", true, "left_sole_link",
                {"left_sole_link", "right_sole_link"}, true, "2 soles x 6D", r, err);
  if (name == "ur5")
    return make(name, tm::ur5::make_model<double>(), dir + "/ur5/ur5_robot.urdf", false, "tool0", {}, false, "", r,
                err);
  if (name == "panda_arm7")
    return make(name, tm::panda_arm7::make_model<double>(), dir + "/panda/panda_arm7.urdf", false, "panda_hand_tcp", {},
                false, "", r, err);
  // rbd-benchmarks (../shared/models/rbd_benchmarks). HyQ's URDF has no foot links: its point
  // contacts are at the lowerleg link origins (the knees); a point's place on the body does not
  // change the work. Atlas: the copy CMakeLists.txt derives (three non-PSD inertias made PSD).
  if (name == "iiwa")
    return make(name, tm::iiwa::make_model<double>(), dir + "/rbd_benchmarks/iiwa.urdf", false, "lbr_iiwa_link_7", {},
                false, "", r, err);
  if (name == "hyq")
    return make(name, tm::hyq::make_model<double>(), dir + "/rbd_benchmarks/hyq.urdf", true, "lf_lowerleg",
                {"lf_lowerleg", "rf_lowerleg", "lh_lowerleg", "rh_lowerleg"}, false, "4 lowerleg origins x 3D", r, err);
  if (name == "atlas") {
    std::string urdf = PEERS_ATLAS_URDF;
    if (FILE* f = std::fopen(urdf.c_str(), "r")) std::fclose(f);
    else urdf = dir + "/rbd_benchmarks/atlas_psd.urdf";  // the bundle's copy (build.sh --bundle)
    return make(name, tm::atlas::make_model<double>(), urdf, true, "l_foot", {"l_foot", "r_foot"}, true, "2 feet x 6D",
                r, err);
  }
  err = "unknown model " + name;
  return nullptr;
}

}  // namespace peers
