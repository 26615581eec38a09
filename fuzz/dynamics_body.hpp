#pragma once
// fuzz_dynamics, one model: the body shared by fuzz_dynamics_<model>.cpp (one model per
// translation unit so the builds run side by side). Each group decodes its inputs first, runs
// its talus calls twice on fresh Data (heap hook armed, outputs poisoned with NaN beforehand),
// compares the two runs bit for bit, then checks the promises on the first run.
#include <array>
#include <memory>

#include <Eigen/Eigenvalues>

#include "fuzz_support.hpp"

namespace talus_fuzz {

template <class M>
struct Dynamics {
  using D = talus::Data<M>;
  using Q = typename M::ConfigVector;
  using V = typename M::TangentVector;
  using H = typename M::MatrixNV;
  using J6 = typename M::Jacobian6;
  using J3 = typename M::Jacobian3;
  using Tf = talus::Transform<double>;
  using Mo = talus::Motion<double>;
  using V3 = talus::Vector3<double>;
  using Fext = talus::ExternalForces<M>;
  static constexpr int nb = M::nb, nv = M::nv, nq = M::nq, nf = M::nframes;

  enum Group { kinematics, jacobians, dynamics, ltl, centroidal, configuration, sincos, stale, perturbed, groups };

  Reader& r;
  bool normalize_q;
  explicit Dynamics(Reader& reader) : r(reader) {
    const std::uint8_t flags = r.byte();
    r.set_raw(flags & 1);
    normalize_q = (flags & 2) != 0;
  }

  Q config() { return read_config<M>(r, normalize_q); }
  V vec() { return r.value<V>(); }
  V3 vec3() { return r.value<V3>(); }
  Fext fext() {
    Fext f;
    for (auto& x : f) r.fill(x);
    return f;
  }

  /// Runs run(Data&, Out&) twice on fresh Data with the heap hook armed, compares the bits,
  /// returns the first run's output.
  template <class Out, class F>
  void twice(const char* name, Out& o1, F&& run) {
    auto d1 = std::make_unique<D>();
    auto d2 = std::make_unique<D>();
    auto o2 = std::make_unique<Out>();
    poison(o1);
    poison(*o2);
    (void)no_heap(name, [&] {
      call_once_compiled(run, *d1, o1);
      return Status::ok;
    });
    (void)no_heap(name, [&] {
      call_once_compiled(run, *d2, *o2);
      return Status::ok;
    });
    if (std::memcmp(&o1, o2.get(), sizeof(Out)) != 0)
      finding(name, Status::ok, "same input, different output bits or status");
  }

  static void expect_fail_on(bool bad, const char* fn, Status s, const char* why) {
    if (bad && s == Status::ok) finding(fn, s, "ok on an invalid argument", why);
  }

  // ---- group 0: forward kinematics, frames and points ---------------------------------------
  void run_kinematics(const M& model) {
    struct In {
      Q q;
      V v, a;
      int level, frame, body;
      talus::ReferenceFrame rf;
      V3 p;
    } in{config(), vec(), vec(), r.byte() % 3, r.index(nf), r.index(nb), r.reference_frame(), vec3()};
    struct Out {
      Status fk, fp, fv, fa, fca, pp, pv, pa;
      std::array<Tf, nb> oMi;
      std::array<Mo, nb> v, a;
      Tf oMf;
      Mo vf, af, acf;
      V3 pp_o, pv_o, pa_o;
    };
    auto o = std::make_unique<Out>();
    twice("kinematics", *o, [&](D& d, Out& out) {
      out.fk = in.level == 0   ? talus::forward_kinematics(model, d, in.q)
               : in.level == 1 ? talus::forward_kinematics(model, d, in.q, in.v)
                               : talus::forward_kinematics(model, d, in.q, in.v, in.a);
      out.oMi = d.oMi;
      out.v = d.v;
      out.a = d.a;
      out.fp = talus::frame_placement(model, d, in.frame, out.oMf);
      out.fv = talus::frame_velocity(model, d, in.frame, in.rf, out.vf);
      out.fa = talus::frame_acceleration(model, d, in.frame, in.rf, out.af);
      out.fca = talus::frame_classical_acceleration(model, d, in.frame, in.rf, out.acf);
      out.pp = talus::point_position(model, d, in.body, in.p, out.pp_o);
      out.pv = talus::point_velocity(model, d, in.body, in.p, in.rf, out.pv_o);
      out.pa = talus::point_acceleration(model, d, in.body, in.p, in.rf, out.pa_o);
    });
    if (o->fk == Status::ok) {
      for (int i = 0; i < nb; ++i) {
        if (!finite(o->oMi[i])) finding("forward_kinematics", o->fk, "ok but oMi not finite");
        if (in.level >= 1 && !finite(o->v[i])) finding("forward_kinematics", o->fk, "ok but v not finite");
        if (in.level >= 2 && !finite(o->a[i])) finding("forward_kinematics", o->fk, "ok but a not finite");
      }
    }
    check_output("frame_placement", o->fp, o->oMf);
    check_output("frame_velocity", o->fv, o->vf);
    check_output("frame_acceleration", o->fa, o->af);
    check_output("frame_classical_acceleration", o->fca, o->acf);
    check_output("point_position", o->pp, o->pp_o);
    check_output("point_velocity", o->pv, o->pv_o);
    check_output("point_acceleration", o->pa, o->pa_o);
    const bool bad_frame = in.frame < 0 || in.frame >= nf, bad_body = in.body < -1 || in.body >= nb,
               bad_rf = !valid_rf(in.rf);
    expect_fail_on(bad_frame, "frame_placement", o->fp, "frame id out of range");
    expect_fail_on(bad_frame || bad_rf, "frame_velocity", o->fv, "frame id or ReferenceFrame out of range");
    expect_fail_on(bad_frame || bad_rf, "frame_acceleration", o->fa, "frame id or ReferenceFrame out of range");
    expect_fail_on(bad_frame || bad_rf, "frame_classical_acceleration", o->fca,
                   "frame id or ReferenceFrame out of range");
    expect_fail_on(bad_body, "point_position", o->pp, "body id out of range");
    expect_fail_on(bad_body || bad_rf, "point_velocity", o->pv, "body id or ReferenceFrame out of range");
    expect_fail_on(bad_body || bad_rf, "point_acceleration", o->pa, "body id or ReferenceFrame out of range");
  }

  // ---- group 1: Jacobians against velocities ------------------------------------------------
  void run_jacobians(const M& model) {
    struct In {
      Q q;
      V v;
      int frame, body;
      talus::ReferenceFrame rf;
      V3 p;
    } in{config(), vec(), r.index(nf), r.index(nb), r.reference_frame(), vec3()};
    struct Out {
      Status cjj, fj1, fj2, pj1, pj2, flj, fk, fv, fv2, pv;
      J6 Jf1, Jf2;
      J3 Jp1, Jp2, Jl;
      Mo vf, vf2;
      V3 pv_o;
      double ps;
    };
    const talus::ReferenceFrame rf2 = in.rf == talus::ReferenceFrame::local
                                          ? talus::ReferenceFrame::local
                                          : talus::ReferenceFrame::local_world_aligned;
    auto o = std::make_unique<Out>();
    twice("jacobians", *o, [&](D& d, Out& out) {
      out.cjj = talus::compute_joint_jacobians(model, d, in.q);
      out.fj1 = talus::frame_jacobian(model, d, in.frame, in.rf, out.Jf1);
      out.pj1 = talus::point_jacobian(model, d, in.body, in.p, in.rf, out.Jp1);
      out.flj = talus::frame_linear_jacobian(model, d, in.frame, in.rf, out.Jl);
      out.fj2 = talus::frame_jacobian(model, d, in.q, in.frame, in.rf, out.Jf2);
      out.pj2 = talus::point_jacobian(model, d, in.q, in.body, in.p, in.rf, out.Jp2);
      out.fk = talus::forward_kinematics(model, d, in.q, in.v);
      out.ps = position_scale(d);
      out.fv = talus::frame_velocity(model, d, in.frame, in.rf, out.vf);
      out.fv2 = talus::frame_velocity(model, d, in.frame, rf2, out.vf2);
      out.pv = talus::point_velocity(model, d, in.body, in.p, in.rf, out.pv_o);
    });
    const bool bad_frame = in.frame < 0 || in.frame >= nf, bad_body = in.body < -1 || in.body >= nb,
               bad_rf = !valid_rf(in.rf);
    expect_fail_on(bad_frame || bad_rf, "frame_jacobian(data)", o->fj1, "frame id or ReferenceFrame out of range");
    expect_fail_on(bad_body || bad_rf, "point_jacobian(data)", o->pj1, "body id or ReferenceFrame out of range");
    check_output("frame_jacobian(data)", o->fj1, o->Jf1);
    check_output("frame_jacobian(q)", o->fj2, o->Jf2);
    check_output("point_jacobian(data)", o->pj1, o->Jp1);
    check_output("point_jacobian(q)", o->pj2, o->Jp2);
    check_output("frame_linear_jacobian", o->flj, o->Jl);
    check_output("frame_velocity", o->fv, o->vf);
    check_output("point_velocity", o->pv, o->pv_o);
    expect_fail_on(bad_frame || bad_rf, "frame_jacobian(q)", o->fj2, "frame id or ReferenceFrame out of range");
    expect_fail_on(bad_frame || bad_rf, "frame_linear_jacobian", o->flj, "frame id or ReferenceFrame out of range");
    expect_fail_on(bad_body || bad_rf, "point_jacobian(q)", o->pj2, "body id or ReferenceFrame out of range");
    if (o->cjj == Status::ok && o->fj1 == Status::ok && o->fj2 == Status::ok &&
        std::memcmp(&o->Jf1, &o->Jf2, sizeof(J6)) != 0)
      finding("frame_jacobian", Status::ok, "the data and q overloads differ at the same q");
    if (o->fk != Status::ok) return;
    const double ps2 = o->ps * o->ps;  // world-frame columns carry p × ω: cancellation ∝ |p|
    auto jv = [&](const char* fn, const auto& J, const auto& vel) {
      const auto JV = (J * in.v).eval();
      const double scale = 1 + (J.cwiseAbs() * in.v.cwiseAbs()).maxCoeff() + max_abs(vel);
      check_residual(fn, "J v - frame velocity", (JV - vel).eval(), 1e-10 * ps2, scale);
    };
    if (o->fj2 == Status::ok && o->fv == Status::ok) jv("frame_jacobian", o->Jf2, o->vf);
    if (o->pj2 == Status::ok && o->pv == Status::ok) jv("point_jacobian", o->Jp2, o->pv_o);
    if (o->cjj == Status::ok && o->flj == Status::ok && o->fv2 == Status::ok)
      jv("frame_linear_jacobian", o->Jl, talus::Vector3<double>(o->vf2.template tail<3>()));
  }

  // ---- group 2: RNEA, ABA, CRBA and their equations ----------------------------------------
  void run_dynamics(const M& model) {
    struct In {
      Q q;
      V v, a, tau;
      Fext f;
      bool with_f;
    } in{config(), vec(), vec(), vec(), fext(), r.bit()};
    struct Out {
      Status rnea, nle, grav, crba, aba, rnea2, bias;
      V tau_o, C, g, ddq, tau2, Cf;
      H Hm;
      double ps;
    };
    auto o = std::make_unique<Out>();
    twice("dynamics", *o, [&](D& d, Out& out) {
      const V zero = V::Zero();
      out.rnea = in.with_f ? talus::rnea(model, d, in.q, in.v, in.a, in.f, out.tau_o)
                           : talus::rnea(model, d, in.q, in.v, in.a, out.tau_o);
      out.nle = talus::nonlinear_effects(model, d, in.q, in.v, out.C);
      out.grav = talus::generalized_gravity(model, d, in.q, out.g);
      out.aba = in.with_f ? talus::aba(model, d, in.q, in.v, in.tau, in.f, out.ddq)
                          : talus::aba(model, d, in.q, in.v, in.tau, out.ddq);
      out.crba = talus::crba(model, d, in.q);
      out.Hm = d.H;
      out.ps = position_scale(d);
      out.rnea2 = in.with_f ? talus::rnea(model, d, in.q, in.v, out.ddq, in.f, out.tau2)
                            : talus::rnea(model, d, in.q, in.v, out.ddq, out.tau2);
      out.bias = in.with_f ? talus::rnea(model, d, in.q, in.v, zero, in.f, out.Cf)
                           : talus::rnea(model, d, in.q, in.v, zero, out.Cf);
    });
    check_output("rnea", o->rnea, o->tau_o);
    check_output("nonlinear_effects", o->nle, o->C);
    check_output("generalized_gravity", o->grav, o->g);
    check_output("aba", o->aba, o->ddq);
    check_output("crba", o->crba, o->Hm);
    check_output("rnea(q, v, aba)", o->rnea2, o->tau2);
    check_output("rnea(q, v, 0)", o->bias, o->Cf);
    if (o->crba != Status::ok) return;
    const double ps2 = o->ps * o->ps;  // CRBA sums inertias about the world origin
    const double hmax = max_abs(o->Hm);
    check_residual("crba", "H - H^T", (o->Hm - o->Hm.transpose()).eval(), 1e-12 * ps2, 1 + hmax);
    if (o->bias != Status::ok) return;
    auto eom = [&](const char* fn, const V& acc, const V& tau) {
      const double scale = 1 + max_abs(tau) + max_abs(o->Cf) + (o->Hm.cwiseAbs() * acc.cwiseAbs()).maxCoeff();
      check_residual(fn, "H qdd + C - tau", (o->Hm * acc + o->Cf - tau).eval(), 1e-8 * ps2, scale);
    };
    if (o->aba == Status::ok) eom("aba", o->ddq, in.tau);
    if (o->rnea == Status::ok) eom("rnea", in.a, o->tau_o);
    if (o->aba == Status::ok && o->rnea2 == Status::ok) {
      const double scale = 1 + max_abs(in.tau) + max_abs(o->Cf) + (o->Hm.cwiseAbs() * o->ddq.cwiseAbs()).maxCoeff();
      check_residual("aba", "rnea(q, v, aba(q, v, tau)) - tau", (o->tau2 - in.tau).eval(), 1e-8 * ps2, scale);
    }
  }

  // ---- group 3: sparse LtL factorisation and solves ------------------------------------------
  void run_ltl(const M& model) {
    struct In {
      Q q;
      V x;
      H Hf;
      int mode;
    } in{config(), vec(), H::Zero(), r.byte() % 4};
    if (in.mode == 2) {
      r.fill(in.Hf);
      in.Hf = ((in.Hf + in.Hf.transpose()) * 0.5).eval();
    }
    using Dyn = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, nv + 2, 1>;
    const int wrong_rows = static_cast<int>(r.byte() % (nv + 3));
    struct Out {
      Status crba, fac, ltl, lt, l, mul, mul2, wrong;
      bool wrong_zero;
      V y, y2, z, w;
      H L, Hm;
    };
    auto o = std::make_unique<Out>();
    twice("ltl", *o, [&](D& d, Out& out) {
      out.crba = out.fac = Status::ok;
      if (in.mode == 0 || in.mode == 3) {
        out.crba = talus::crba(model, d, in.q);
        out.fac = talus::factorize_ltl(model, d);
      }
      if (in.mode == 3) {  // a failed factorisation after a good one
        d.H.diagonal().setConstant(-1.0);
        out.fac = talus::factorize_ltl(model, d);
      }
      if (in.mode == 2) {
        d.H = in.Hf;
        out.fac = talus::factorize_ltl(model, d);
      }
      out.Hm = d.H;
      out.L = d.L;
      out.y = in.x;
      out.ltl = talus::solve_ltl(model, d, out.y);
      out.y2 = in.x;
      out.lt = talus::solve_lt(model, d, out.y2);
      out.l = talus::solve_l(model, d, out.y2);
      out.z = out.y;
      out.mul = talus::multiply_ltl(model, d, out.z);
      out.w = in.x;
      out.mul2 = talus::multiply_ltl(model, d, out.w);
      Dyn wx = Dyn::Constant(wrong_rows, 1.0);  // fixed capacity: no heap
      out.wrong = talus::solve_ltl(model, d, wx);
      out.wrong_zero = all_zero(wx);
    });
    if (in.mode != 1) check_output("factorize_ltl", o->fac, o->L);
    if (o->wrong != Status::ok && !o->wrong_zero)
      finding("solve_ltl", o->wrong, "not ok but x (wrong size) is not zero");
    check_output("solve_ltl", o->ltl, o->y);
    check_output("multiply_ltl", o->mul, o->w);
    if (in.mode == 1 && o->ltl == Status::ok) finding("solve_ltl", o->ltl, "ok without a factorisation");
    if (in.mode == 3 && o->ltl == Status::ok) finding("solve_ltl", o->ltl, "ok after a failed factorisation");
    if (wrong_rows != nv && o->wrong == Status::ok)
      finding("solve_ltl", o->wrong, "ok on a vector with the wrong number of rows");
    if (o->fac == Status::ok && in.mode != 1) {
      // backward error of a Cholesky factor and solve: ≤ c·n·eps·|Lᵀ||L|, whatever cond(H)
      const H LtL = o->L.transpose() * o->L;
      const H absLtL = o->L.cwiseAbs().transpose() * o->L.cwiseAbs();
      const H lower_err = (o->Hm - LtL).template triangularView<Eigen::Lower>();
      check_residual("factorize_ltl", "H - LtL (lower)", lower_err, 1e-12, 1 + max_abs(absLtL));
      if (o->ltl == Status::ok && o->mul == Status::ok)
        check_residual("solve_ltl", "multiply_ltl(solve_ltl(x)) - x", (o->z - in.x).eval(), 1e-11,
                       1 + max_abs(in.x) + (absLtL * o->y.cwiseAbs()).maxCoeff());
      if (o->ltl == Status::ok && o->lt == Status::ok && o->l == Status::ok)
        check_residual("solve_ltl", "solve_ltl(x) - solve_l(solve_lt(x))", (o->y - o->y2).eval(), 1e-14,
                       1 + max_abs(o->y));
    }
  }

  // ---- group 4: centre of mass and centroidal momentum ---------------------------------------
  void run_centroidal(const M& model) {
    struct In {
      Q q;
      V v;
    } in{config(), vec()};
    struct Out {
      Status com1, com2, jc, ag, hg;
      V3 c1, c2, vc;
      double m;
      J3 Jc;
      J6 Ag;
      talus::Force<double> h;
      double ps;
    };
    auto o = std::make_unique<Out>();
    twice("centroidal", *o, [&](D& d, Out& out) {
      out.com1 = talus::center_of_mass(model, d, in.q);
      out.c1 = d.com;
      out.com2 = talus::center_of_mass(model, d, in.q, in.v);
      out.c2 = d.com;
      out.vc = d.vcom;
      out.m = d.mass;
      out.ps = position_scale(d);
      out.jc = talus::com_jacobian(model, d, in.q, out.Jc);
      out.ag = talus::centroidal_momentum_matrix(model, d, in.q, out.Ag);
      out.hg = talus::centroidal_momentum(model, d, in.q, in.v, out.h);
    });
    if (o->com1 == Status::ok && !finite(o->c1)) finding("center_of_mass(q)", o->com1, "ok but com not finite");
    if (o->com2 == Status::ok && !(finite(o->c2) && finite(o->vc) && std::isfinite(o->m)))
      finding("center_of_mass(q, v)", o->com2, "ok but com/vcom/mass not finite");
    check_output("com_jacobian", o->jc, o->Jc);
    check_output("centroidal_momentum_matrix", o->ag, o->Ag);
    check_output("centroidal_momentum", o->hg, o->h);
    const double ps2 = o->ps * o->ps;
    if (o->com2 == Status::ok && o->jc == Status::ok)
      check_residual("com_jacobian", "Jc v - vcom", (o->Jc * in.v - o->vc).eval(), 1e-10 * ps2,
                     1 + (o->Jc.cwiseAbs() * in.v.cwiseAbs()).maxCoeff() + max_abs(o->vc));
    if (o->ag == Status::ok && o->hg == Status::ok)
      check_residual("centroidal_momentum_matrix", "Ag v - hg", (o->Ag * in.v - o->h).eval(), 1e-10 * ps2,
                     1 + (o->Ag.cwiseAbs() * in.v.cwiseAbs()).maxCoeff() + max_abs(o->h));
  }

  // ---- group 5: integrate, difference, normalize ---------------------------------------------
  void run_configuration(const M& model) {
    struct In {
      Q q0, q1;
      V v;
    } in{config(), config(), vec()};
    struct Out {
      Status integ, diff, norm, cfg_int, cfg_norm, back, diff2;
      Q qi, qn, qb;
      V dq, dq2;
    };
    auto o = std::make_unique<Out>();
    twice("configuration", *o, [&](D&, Out& out) {
      out.integ = talus::integrate(model, in.q0, in.v, out.qi);
      out.cfg_int = talus::check_configuration(model, out.qi);
      out.diff = talus::difference(model, in.q0, in.q1, out.dq);
      out.back = talus::integrate(model, in.q0, out.dq, out.qb);
      out.diff2 = talus::difference(model, in.q1, out.qb, out.dq2);
      out.qn = in.q0;
      out.norm = talus::normalize(model, out.qn);
      out.cfg_norm = talus::check_configuration(model, out.qn);
    });
    check_output("integrate", o->integ, o->qi);
    check_output("difference", o->diff, o->dq);
    if (o->integ == Status::ok && o->cfg_int != Status::ok)
      finding("integrate", o->integ, "ok but the result is not a valid configuration");
    if (o->norm == Status::ok && o->cfg_norm != Status::ok)
      finding("normalize", o->norm, "ok but the result is not a valid configuration");
    if (o->norm != Status::ok && std::memcmp(&o->qn, &in.q0, sizeof(Q)) != 0 && !all_zero(o->qn))
      finding("normalize", o->norm, "not ok but q changed (documented: unchanged)");
    if (o->diff == Status::ok && o->back == Status::ok && o->diff2 == Status::ok)
      check_residual("difference", "difference(q1, integrate(q0, difference(q0, q1)))", o->dq2, 1e-9,
                     1 + max_abs(in.q0) + max_abs(in.q1));
  }

  // ---- group 6: sincos --------------------------------------------------------------------------
  void run_sincos() {
    const std::uint8_t mode = r.byte();  // raw bits, or a nice value times 10^k (k = 0..15)
    const double x = (mode & 1) ? r.raw_double() : r.nice_double() * std::pow(10.0, (mode >> 1) % 16);
    struct Out {
      double s, c;
    };
    Out o1, o2;
    (void)no_heap("sincos", [&] {
      talus::sincos(x, o1.s, o1.c);
      return Status::ok;
    });
    talus::sincos(x, o2.s, o2.c);
    if (std::memcmp(&o1, &o2, sizeof o1) != 0) finding("sincos", Status::ok, "same input, different output bits");
    if (!std::isfinite(x)) return;
    const double es = std::fabs(o1.s - std::sin(x)), ec = std::fabs(o1.c - std::cos(x));
    const bool accurate = es <= 1e-15 && ec <= 1e-15;
    const bool nan = std::isnan(o1.s) && std::isnan(o1.c);
    char buf[128];
    std::snprintf(buf, sizeof buf, "x = %.17g: |ds| %.3g |dc| %.3g", x, es, ec);
    if (std::fabs(x) <= 1e5 && !accurate) finding("sincos", Status::ok, "inaccurate for |x| <= 1e5", buf);
    if (!accurate && !nan) finding("sincos", Status::ok, "neither accurate nor NaN", buf);
  }

  // ---- group 7: stale Data must not change results ------------------------------------------
  void run_stale(const M& model) {
    struct In {
      Q q1;
      V v1, a1;
      Q q2;
      V v2, t2;
      Q q3;
      V v3, t3;
      int frame;
      talus::ReferenceFrame rf;
    } in{config(), vec(), vec(), config(), vec(), vec(), config(), vec(), vec(), r.index(nf), r.reference_frame()};
    struct Res {
      Status s[5];
      H Hm;
      V ddq, tau;
      J6 J;
      J3 Jc;
    };
    struct Out {
      Res stale, fresh;
    };
    auto third = [&](D& d, Res& res, D* fresh) {
      auto reset = [&] {
        if (fresh) *fresh = D{};
      };
      D& a = fresh ? *fresh : d;
      res.s[0] = talus::crba(model, a, in.q3);
      res.Hm = a.H;
      reset();
      res.s[1] = talus::aba(model, a, in.q3, in.v3, in.t3, res.ddq);
      reset();
      res.s[2] = talus::rnea(model, a, in.q3, in.v3, in.t3, res.tau);
      reset();
      res.s[3] = talus::frame_jacobian(model, a, in.q3, in.frame, in.rf, res.J);
      reset();
      res.s[4] = talus::com_jacobian(model, a, in.q3, res.Jc);
    };
    auto o = std::make_unique<Out>();
    twice("stale data", *o, [&](D& d, Out& out) {
      V tmp;
      V3 c;
      (void)talus::rnea(model, d, in.q1, in.v1, in.a1, tmp);
      (void)talus::aba(model, d, in.q2, in.v2, in.t2, tmp);
      (void)talus::crba(model, d, in.q2);
      (void)talus::factorize_ltl(model, d);
      (void)talus::center_of_mass(model, d, in.q1, in.v1);
      (void)talus::point_position(model, d, 0, c, c);
      third(d, out.stale, nullptr);
      D fresh;
      third(d, out.fresh, &fresh);
    });
    if (std::memcmp(&o->stale, &o->fresh, sizeof(Res)) != 0) {
      const char* which = "com_jacobian";
      if (std::memcmp(&o->stale.s, &o->fresh.s, sizeof o->stale.s) != 0) which = "a status";
      else if (o->stale.Hm != o->fresh.Hm) which = "crba";
      else if (std::memcmp(&o->stale.ddq, &o->fresh.ddq, sizeof(V)) != 0) which = "aba";
      else if (std::memcmp(&o->stale.tau, &o->fresh.tau, sizeof(V)) != 0) which = "rnea";
      else if (std::memcmp(&o->stale.J, &o->fresh.J, sizeof(J6)) != 0) which = "frame_jacobian(q)";
      finding(which, Status::ok, "result after other calls on the same Data differs from a fresh Data");
    }
  }

  // ---- group 8: perturbed model parameters -------------------------------------------------------
  void run_perturbed(const M& base) {
    auto m = std::make_unique<M>(base);
    const int n = 1 + r.byte() % 6;
    bool nan = false, neg_mass = false, non_pd = false, non_rot = false;
    for (int k = 0; k < n; ++k) {
      const int b = r.byte() % nb;
      const int kind = r.byte() % 8;
      const int i = r.byte() % 3, j = r.byte() % 3;
      const std::uint8_t how = r.byte();
      const double x = r.scalar();
      auto set = [&](double& target) {
        target = (how & 1) ? x : target * std::exp2(std::fmin(std::fmax(x, -60), 60) * ((how >> 1) & 1 ? 8 : 1));
      };
      auto& I = m->inertia[b];
      switch (kind) {
        case 0: set(I.mass); break;
        case 1: set(I.com[i]); break;
        case 2:
          set(I.I_c(i, j));
          I.I_c(j, i) = I.I_c(i, j);
          break;
        case 3: set(m->joint_placement[b].R(i, j)); break;
        case 4: set(m->joint_placement[b].p[i]); break;
        case 5: set(m->axis[b][i]); break;
        case 6:
          if (nf > 0) set(m->frames[static_cast<std::size_t>(b % (nf > 0 ? nf : 1))].placement.R(i, j));
          break;
        case 7:
          if (nf > 0) set(m->frames[static_cast<std::size_t>(b % (nf > 0 ? nf : 1))].placement.p[i]);
          break;
      }
    }
    // What check_model must refuse, judged here independently (clear-cut cases only).
    for (int b = 0; b < nb; ++b) {
      const auto& I = m->inertia[b];
      nan = nan || !std::isfinite(I.mass) || !finite(I.com) || !finite(I.I_c) || !finite(m->joint_placement[b]) ||
            !finite(m->axis[b]);
      neg_mass = neg_mass || I.mass < 0;
      if (finite(I.I_c)) {
        Eigen::SelfAdjointEigenSolver<talus::Matrix3<double>> es(I.I_c, Eigen::EigenvaluesOnly);
        non_pd = non_pd || es.eigenvalues()(0) < -1e-6 * (1 + max_abs(I.I_c));
      }
      if (finite(m->joint_placement[b].R)) {
        const auto& R = m->joint_placement[b].R;
        non_rot = non_rot || max_abs((R.transpose() * R - talus::Matrix3<double>::Identity()).eval()) > 1e-6 ||
                  R.determinant() < 0;
      }
    }
    for (int f = 0; f < nf; ++f) {
      const auto& F = m->frames[static_cast<std::size_t>(f)].placement;
      nan = nan || !finite(F);
      if (finite(F.R))
        non_rot = non_rot || max_abs((F.R.transpose() * F.R - talus::Matrix3<double>::Identity()).eval()) > 1e-6 ||
                  F.R.determinant() < 0;
    }
    const Status s = no_heap("check_model", [&] { return talus::check_model(*m); });
    if (s == Status::ok && nan) finding("check_model", s, "accepted a NaN/Inf parameter");
    if (s == Status::ok && neg_mass) finding("check_model", s, "accepted a negative mass");
    if (s == Status::ok && non_pd)
      finding("check_model", s, "accepted a rotational inertia with a negative eigenvalue");
    if (s == Status::ok && non_rot) finding("check_model", s, "accepted a placement rotation that is not a rotation");
    if (s != Status::ok) return;
    run_group(*m, static_cast<Group>(r.byte() % perturbed));
  }

  void run_group(const M& model, Group g) {
    switch (g) {
      case kinematics: run_kinematics(model); break;
      case jacobians: run_jacobians(model); break;
      case dynamics: run_dynamics(model); break;
      case ltl: run_ltl(model); break;
      case centroidal: run_centroidal(model); break;
      case configuration: run_configuration(model); break;
      case sincos: run_sincos(); break;
      case stale: run_stale(model); break;
      case perturbed: run_perturbed(model); break;
      default: break;
    }
  }
};

/// Entry for one model: the model is built and checked once.
template <class M>
void run_dynamics_input(const M& model, std::uint8_t group, Reader& r) {
  Dynamics<M> dyn(r);
  dyn.run_group(model, static_cast<typename Dynamics<M>::Group>(group % Dynamics<M>::groups));
}

}  // namespace talus_fuzz
