#pragma once
// fuzz_constraints, one model: the body shared by fuzz_constraints_<model>.cpp. An input
// decodes to a list of constraints (contacts, 6D contacts, loops, custom constraints),
// activation toggles, anchors and 6D reference placements, a pivot tolerance, a state, and one solver group. The set is built and the solvers
// run twice (fresh Data and ConstraintSet, heap hook armed) and compared bit for bit; then
// the promises are checked on the first run.
#include <array>
#include <memory>

#include <Eigen/SVD>
#include <talus/constraints.hpp>
#include <talus/solvers/forward_dynamics_constrained_aba.hpp>

#include "fuzz_support.hpp"

namespace talus_fuzz {

/// A custom constraint whose every answer comes from the fuzz input.
template <class M>
class FuzzCustom final : public talus::CustomConstraint<M> {
 public:
  using Base = talus::CustomConstraint<M>;
  int n_rows = 1;
  typename Base::Rows G = Base::Rows::Zero();
  typename Base::RowValues gam = Base::RowValues::Zero(), err = Base::RowValues::Zero();
  int wrench_count = 0;
  int bodies[2] = {-1, -1};
  talus::Force<double> forces[2] = {talus::Force<double>::Zero(), talus::Force<double>::Zero()};

  int rows() const override { return n_rows; }
  void jacobian(const M&, const talus::Data<M>&, const typename Base::ConfigVector&,
                typename Base::Rows& out) const override {
    out = G;
  }
  void gamma(const M&, const talus::Data<M>&, const typename Base::ConfigVector&, const typename Base::TangentVector&,
             typename Base::RowValues& out) const override {
    out = gam;
  }
  void position_errors(const M&, const talus::Data<M>&, const typename Base::ConfigVector&,
                       typename Base::RowValues& out) const override {
    out = err;
  }
  int wrenches(const M&, const talus::Data<M>&, const typename Base::RowValues&, int body[2],
               talus::Force<double> world_force[2]) const override {
    for (int k = 0; k < 2; ++k) body[k] = bodies[k], world_force[k] = forces[k];
    return wrench_count;  // may be 3 or −1: talus must not trust it
  }
};

template <class M, int MR = 24, int MC = 8>
struct Constraints {
  using D = talus::Data<M>;
  using CS = talus::ConstraintSet<M, MR, MC>;
  using Q = typename M::ConfigVector;
  using V = typename M::TangentVector;
  using Rv = typename CS::RowVector;
  using V3 = talus::Vector3<double>;
  using Tf = talus::Transform<double>;
  using Fext = talus::ExternalForces<M>;
  static constexpr int nb = M::nb, nv = M::nv;
  enum Group { forward, impulses, assembly, quantities, groups };

  // ---- decoded input ----------------------------------------------------------------------------
  struct Item {
    int kind, body[2], count;  // count: normals / axes (may be 0 or too many)
    V3 point;
    std::array<V3, 4> normals;
    Tf frame[2];
    std::array<talus::LoopAxis<double>, 7> axes;
    talus::Baumgarte<double> baum;
    talus::ContactFrame6D rows6d;
  };
  Reader& r;
  bool normalize_q = false;
  int n = 0;
  std::array<Item, MC + 1> items{};
  std::array<FuzzCustom<M>, MC + 1> customs{};
  std::array<std::pair<int, bool>, 4> toggles{};
  int ntoggles = 0;
  std::array<std::pair<int, V3>, 3> anchors{};
  int nanchors = 0;
  bool set_tol = false;
  double tol = 0;

  explicit Constraints(Reader& reader) : r(reader) {
    const std::uint8_t flags = r.byte();
    r.set_raw(flags & 1);
    normalize_q = (flags & 2) != 0;
    decode_set();
  }

  V3 unit_or_raw() {
    V3 x;
    r.fill(x);
    if (r.bit()) {
      const double nx = x.norm();
      if (std::isfinite(nx) && nx > 1e-100) x /= nx;
      else x = V3::UnitZ();
    }
    return x;
  }
  Tf frame() {
    Tf T;
    if (r.bit()) {  // a valid rotation from an axis-angle
      V3 axis;
      r.fill(axis);
      const double a = r.scalar(), na = axis.norm();
      axis = std::isfinite(na) && na > 1e-100 ? V3(axis / na) : V3::UnitX();
      T.R = talus::axis_angle_rotation<double>(axis, std::isfinite(a) ? std::fmod(a, 7.0) : 0.0);
    } else if (r.bit()) {
      r.fill(T.R);  // raw matrix
    }
    r.fill(T.p);
    return T;
  }

  void decode_set() {
    n = r.byte() % (MC + 2);  // up to one more than the capacity
    for (int i = 0; i < n; ++i) {
      Item& it = items[static_cast<std::size_t>(i)];
      const std::uint8_t kind = r.byte();
      it.kind = kind >= 248 ? 3 : kind % 3;  // 3: 6D contact (rare bytes: older corpus inputs decode as before)
      if (it.kind == 3) {
        it.body[0] = r.index(nb);
        it.frame[0] = frame();
        it.frame[1] = frame();
        const std::uint8_t b = r.byte();
        it.rows6d = (b & 4)   ? talus::ContactFrame6D::local
                    : (b & 8) ? talus::ContactFrame6D::local_world_aligned
                              : static_cast<talus::ContactFrame6D>(b);
        it.baum.enabled = b & 1;
        if (b & 2) it.baum.time_constant = r.scalar();
      } else if (it.kind == 0) {
        it.body[0] = r.index(nb);
        r.fill(it.point);
        const std::uint8_t c = r.byte();
        it.count = c < 240 ? 1 + c % 3 : (c & 1 ? 0 : 4);
        for (auto& nk : it.normals) nk = unit_or_raw();
      } else if (it.kind == 1) {
        it.body[0] = r.index(nb);
        it.body[1] = r.index(nb);
        it.frame[0] = frame();
        it.frame[1] = frame();
        const std::uint8_t c = r.byte();
        it.count = c < 240 ? 1 + c % 6 : (c & 1 ? 0 : 7);
        for (int k = 0; k < std::min(it.count, 7); ++k) {
          auto& a = it.axes[static_cast<std::size_t>(k)];
          const std::uint8_t how = r.byte();
          if (how < 160) a.axis = talus::Motion<double>::Unit(how % 6);
          else r.fill(a.axis);
          a.position_level = (how & 0x40) == 0 || (how & 0x20) != 0;
          a.velocity_level = (how & 0x40) == 0 || (how & 0x20) == 0;
        }
        const std::uint8_t b = r.byte();
        it.baum.enabled = b & 1;
        if (b & 2) it.baum.time_constant = r.scalar();
      } else {
        FuzzCustom<M>& c = customs[static_cast<std::size_t>(i)];
        const std::uint8_t rows = r.byte();
        c.n_rows = rows < 240 ? 1 + rows % 6 : (rows & 1 ? 0 : 7);
        for (int k = 0; k < 6; ++k) {  // each row: two entries (sparse), from the input
          for (int e = 0; e < 2; ++e) c.G(k, r.byte() % nv) = r.scalar();
          c.gam[k] = r.scalar();
          c.err[k] = r.scalar();
        }
        const std::uint8_t w = r.byte();
        static constexpr int counts[8] = {0, 0, 1, 1, 2, 2, 3, -1};
        c.wrench_count = counts[w % 8];
        for (int k = 0; k < 2; ++k) {
          c.bodies[k] = r.index(nb);
          r.fill(c.forces[k]);
        }
        const std::uint8_t b = r.byte();
        it.baum.enabled = b & 1;
        if (b & 2) it.baum.time_constant = r.scalar();
      }
    }
    ntoggles = r.byte() % 5;
    for (int i = 0; i < ntoggles; ++i) toggles[static_cast<std::size_t>(i)] = {r.index(n), r.bit()};
    nanchors = r.byte() % 4;
    for (int i = 0; i < nanchors; ++i) {
      anchors[static_cast<std::size_t>(i)].first = r.index(n);
      r.fill(anchors[static_cast<std::size_t>(i)].second);
    }
    const std::uint8_t t = r.byte();
    set_tol = t >= 232;
    if (set_tol) tol = t & 1 ? r.scalar() : std::pow(10.0, -(t % 20));
  }

  /// Builds the set in cs (a fresh one); returns the status of bind.
  Status build(const M& model, CS& cs) const {
    for (int i = 0; i < n; ++i) {
      const Item& it = items[static_cast<std::size_t>(i)];
      Status s = Status::ok;
      if (it.kind == 0) {
        const auto& N = it.normals;
        switch (it.count) {
          case 0: s = cs.add_contact(it.body[0], it.point, {}); break;
          case 1: s = cs.add_contact(it.body[0], it.point, {N[0]}); break;
          case 2: s = cs.add_contact(it.body[0], it.point, {N[0], N[1]}); break;
          case 3: s = cs.add_contact(it.body[0], it.point, {N[0], N[1], N[2]}); break;
          default: s = cs.add_contact(it.body[0], it.point, {N[0], N[1], N[2], N[3]}); break;
        }
      } else if (it.kind == 1) {
        const auto& A = it.axes;
        const int c = it.count;
        const auto b0 = it.body[0], b1 = it.body[1];
        const auto& F = it.frame;
        switch (c) {
          case 0: s = cs.add_loop(b0, F[0], b1, F[1], {}, it.baum); break;
          case 1: s = cs.add_loop(b0, F[0], b1, F[1], {A[0]}, it.baum); break;
          case 2: s = cs.add_loop(b0, F[0], b1, F[1], {A[0], A[1]}, it.baum); break;
          case 3: s = cs.add_loop(b0, F[0], b1, F[1], {A[0], A[1], A[2]}, it.baum); break;
          case 4: s = cs.add_loop(b0, F[0], b1, F[1], {A[0], A[1], A[2], A[3]}, it.baum); break;
          case 5: s = cs.add_loop(b0, F[0], b1, F[1], {A[0], A[1], A[2], A[3], A[4]}, it.baum); break;
          case 6: s = cs.add_loop(b0, F[0], b1, F[1], {A[0], A[1], A[2], A[3], A[4], A[5]}, it.baum); break;
          default: s = cs.add_loop(b0, F[0], b1, F[1], {A[0], A[1], A[2], A[3], A[4], A[5], A[6]}, it.baum); break;
        }
      } else if (it.kind == 3) {
        s = cs.add_contact_6d(it.body[0], it.frame[0], it.rows6d, it.frame[1], it.baum);
      } else {
        s = cs.add_custom(customs[static_cast<std::size_t>(i)], it.baum);
      }
      (void)s;  // refused constraints are simply not in the set
    }
    const Status bound = cs.bind(model);
    // a constraint added after bind is refused and leaves the set as it was
    if (bound == Status::ok && cs.add_contact(0, V3::Zero(), {V3::UnitZ()}) != Status::invalid_input)
      finding("ConstraintSet::add_contact", Status::ok, "a bound set accepted a new constraint");
    for (int i = 0; i < ntoggles; ++i)
      (void)cs.set_active(toggles[static_cast<std::size_t>(i)].first, toggles[static_cast<std::size_t>(i)].second);
    for (int i = 0; i < nanchors; ++i) {
      const auto& a = anchors[static_cast<std::size_t>(i)];
      if (cs.constraint(a.first).kind == talus::ConstraintKind::contact_6d)
        (void)cs.set_contact_placement(a.first, Tf(items[static_cast<std::size_t>(a.first)].frame[0].R, a.second));
      else (void)cs.set_contact_anchor(a.first, a.second);
    }
    if (set_tol) cs.ws.pivot_tolerance = tol;
    return bound;
  }

  bool has_custom() const {
    for (int i = 0; i < n; ++i)
      if (items[static_cast<std::size_t>(i)].kind == 2) return true;
    return false;
  }

  Q config() { return read_config<M>(r, normalize_q); }
  V vec() { return r.value<V>(); }

  // ---- the run-twice harness -------------------------------------------------------------------
  template <class Out, class F>
  void twice(const char* name, Out& o1, F&& run) {
    auto d1 = std::make_unique<D>(), d2 = std::make_unique<D>();
    auto c1 = std::make_unique<CS>(), c2 = std::make_unique<CS>();
    auto o2 = std::make_unique<Out>();
    poison(o1);
    poison(*o2);
    (void)no_heap(name, [&] {
      call_once_compiled(run, *d1, *c1, o1);
      return Status::ok;
    });
    (void)no_heap(name, [&] {
      call_once_compiled(run, *d2, *c2, *o2);
      return Status::ok;
    });
    if (std::memcmp(&o1, o2.get(), sizeof(Out)) != 0)
      finding(name, Status::ok, "same input, different output bits or status");
  }

  /// One solve's results, copied out of cs and data (fixed capacity: memcmp-able).
  struct Solve {
    Status s;
    int m;
    V x;
    std::array<double, MR> lambda;
    bool lambda_zero, lambda_finite;
    Eigen::Matrix<double, nv, nv> H;
    V C;
    std::array<double, MR * nv> G;  // row-major m × nv
    std::array<double, MR> gamma;
    double ps;
    double res_value, res_tolerance;  // cs.residual: the evidence of the answer
  };
  static void record(Solve& o, Status s, const V& x, const D& d, const CS& cs) {
    o.s = s;
    o.x = x;
    o.m = static_cast<int>(cs.lambda.size());
    o.lambda.fill(0);
    o.lambda_zero = all_zero(cs.lambda);
    o.lambda_finite = finite(cs.lambda);
    for (int i = 0; i < o.m && i < MR; ++i) o.lambda[static_cast<std::size_t>(i)] = cs.lambda[i];
    o.H = d.H;
    o.C = cs.C;
    o.G.fill(0);
    o.gamma.fill(0);
    for (int i = 0; i < cs.G.rows() && i < MR; ++i) {
      for (int j = 0; j < nv; ++j) o.G[static_cast<std::size_t>(i * nv + j)] = cs.G(i, j);
      if (i < cs.gamma.size()) o.gamma[static_cast<std::size_t>(i)] = cs.gamma[i];
    }
    o.ps = position_scale(d);
    o.res_value = cs.residual.value;
    o.res_tolerance = cs.residual.tolerance;
  }
  static Eigen::MatrixXd Gm(const Solve& o) {
    Eigen::MatrixXd G(o.m, nv);
    for (int i = 0; i < o.m; ++i)
      for (int j = 0; j < nv; ++j) G(i, j) = o.G[static_cast<std::size_t>(i * nv + j)];
    return G;
  }
  static Eigen::VectorXd lam(const Solve& o) {
    Eigen::VectorXd l(o.m);
    for (int i = 0; i < o.m; ++i) l[i] = o.lambda[static_cast<std::size_t>(i)];
    return l;
  }
  /// Condition number of [H Gᵀ; G 0] (harness side, SVD): tolerances grow with it.
  static double kkt_condition(const Solve& o) {
    const int m = o.m;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nv + m, nv + m);
    K.topLeftCorner(nv, nv) = o.H;
    const Eigen::MatrixXd G = Gm(o);
    K.topRightCorner(nv, m) = G.transpose();
    K.bottomLeftCorner(m, nv) = G;
    if (!finite(K)) return std::numeric_limits<double>::infinity();
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(K);
    const auto& sv = svd.singularValues();
    return sv.size() ? sv[0] / sv[sv.size() - 1] : 1.0;
  }

  /// Promise 3 for a solve, and promise 2 (finite) when ok.
  static void check_solve_output(const char* fn, const Solve& o) {
    check_output(fn, o.s, o.x);
    if (o.s != Status::ok && !o.lambda_zero) finding(fn, o.s, "not ok but lambda is not zero");
    if (o.s == Status::ok && !o.lambda_finite) finding(fn, o.s, "ok but lambda is not finite");
    if (o.s == Status::ok && !(o.res_value >= 0 && o.res_value <= o.res_tolerance))
      finding(fn, o.s, "ok with cs.residual above its tolerance (or negative, or NaN)");
    // TALUS_FUZZ_MEASURE_RESIDUALS=1: every checked answer's (value, tolerance) on stderr, to
    // measure what the corpus asks of the tolerances (docs/constraints.md)
    static const bool measure = std::getenv("TALUS_FUZZ_MEASURE_RESIDUALS") != nullptr;
    if (measure && o.res_tolerance > 0)
      std::fprintf(stderr, "RESIDUAL %s %s %.3g %.3g\n", fn, talus::to_string(o.s), o.res_value, o.res_tolerance);
  }

  /// Relative tolerance for a solve's equations and for agreement between methods, grown
  /// with the KKT condition number (computed only when the tight tolerance fails). Returns
  /// false when the system is so ill-conditioned that no accuracy can be asked (κ·eps > 1e-4).
  struct Tol {
    const Solve& o;
    double backward = 0;  // the solves' own accepted backward errors, summed (0: not known)
    double kappa = -1;
    double rel(double base) {
      if (kappa < 0) kappa = kkt_condition(o);
      return base + 1e-14 * kappa + kappa * backward;
    }
    bool hopeless() {
      if (kappa < 0) kappa = kkt_condition(o);
      return !(kappa * 2.2e-16 <= 1e-4);
    }
  };
  static void check_scaled(const char* fn, const char* what, double err, double scale, double base, Tol& t) {
    if (err <= base * scale) return;
    if (t.hopeless()) return;
    const double tol = t.rel(base);
    if (!(err <= tol * scale)) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s residual %.3g > %.3g (base %.1g + 1e-14 x kappa %.3g) x scale %.3g", what, err,
                    tol * scale, base, t.kappa, scale);
      finding(fn, Status::ok, "ok but the equations do not hold", buf);
    }
  }

  /// KKT residuals of an ok forward solve: H q̈ + C − τ − Gᵀλ = 0, G q̈ = γ.
  static void check_forward_equations(const char* fn, const Solve& o, const V& tau) {
    if (o.s != Status::ok) return;
    Tol t{o};
    const Eigen::MatrixXd G = Gm(o);
    const Eigen::VectorXd l = lam(o);
    const V Gtl = G.transpose() * l;
    const V r1 = o.H * o.x + o.C - tau - Gtl;
    const double ps2 = o.ps * o.ps;
    const double s1 = 1 + max_abs(tau) + max_abs(o.C) +
                      (G.transpose().cwiseAbs() * l.cwiseAbs()).maxCoeff() * (o.m > 0) +
                      (o.H.cwiseAbs() * o.x.cwiseAbs()).maxCoeff();
    if (o.m == 0) {
      check_scaled(fn, "H qdd + C - tau - G^T lambda", max_abs(r1), s1, 1e-9 * ps2, t);
      return;
    }
    Eigen::VectorXd g(o.m);
    for (int i = 0; i < o.m; ++i) g[i] = o.gamma[static_cast<std::size_t>(i)];
    const Eigen::VectorXd r2 = G * o.x - g;
    // normwise scale for both blocks: a stable KKT solve bounds each block's residual by
    // eps·‖K‖·‖[q̈; λ]‖ (fuzz_kkt's first false alarms came from a per-block scale)
    const double s2 = s1 + 1 + max_abs(g) + (G.cwiseAbs() * o.x.cwiseAbs()).maxCoeff() +
                      (max_abs(o.H) + max_abs(G)) * std::fmax(max_abs(o.x), max_abs(l));
    check_scaled(fn, "H qdd + C - tau - G^T lambda", max_abs(r1), s2, 1e-9 * ps2, t);
    check_scaled(fn, "G qdd - gamma", max_abs(r2), s2, 1e-9 * ps2, t);
  }

  /// Two ok solves of the same system agree (q̈ and λ), relative to their size and κ; two
  /// direct solves (both_direct) also within κ (β_a + β_ref), β the normwise backward error
  /// each accepted (cs.residual, kkt.hpp: up to 64 n ε), the first-order bound on their distance.
  static void check_agree(const char* fn, const Solve& a, const Solve& ref, bool both_direct = false) {
    if (a.s != Status::ok || ref.s != Status::ok) return;
    Tol t{ref};
    if (both_direct) t.backward = a.res_value + ref.res_value;
    const double ps2 = ref.ps * ref.ps;
    check_scaled(fn, "qdd vs the reference method", max_abs((a.x - ref.x).eval()), 1 + max_abs(ref.x), 1e-8 * ps2, t);
    const Eigen::VectorXd la = lam(a), lr = lam(ref);
    // normwise, as the equations above: a backward-stable KKT solve bounds the error of each
    // block by κ β ‖[q̈; λ]‖, not by ‖λ‖ (a large q̈ beside a small λ leaves λ fewer digits)
    if (la.size() == lr.size() && la.size() > 0)
      check_scaled(fn, "lambda vs the reference method", max_abs((la - lr).eval()),
                   1 + std::fmax(max_abs(lr), max_abs(ref.x)), 1e-8 * ps2, t);
  }

  // ---- group 0: constrained forward dynamics, every method -------------------------------------------
  void run_forward(const M& model) {
    struct In {
      Q q;
      V v, tau;
      Fext f;
      bool with_f;
      std::uint8_t bad_method;
      talus::ProximalSettings<double> prox, caba;  // caba: the constrained ABA's (its own μ unless fuzzed)
      bool fuzzed_settings;
    } in{config(), vec(), vec(), {}, false, 0, {}, talus::constrained_aba_settings<double>(), false};
    for (auto& x : in.f) r.fill(x);
    in.with_f = r.bit();
    in.bad_method = static_cast<std::uint8_t>(5 + r.byte() % 251);
    if (r.bit()) {  // fuzzed proximal settings (older corpus inputs end before this: defaults)
      in.prox.mu = r.scalar();
      in.prox.absolute_accuracy = r.scalar();
      in.prox.relative_accuracy = r.scalar();
      in.prox.max_iterations = static_cast<int>(r.byte()) - 8;
      in.caba = in.prox;
      in.fuzzed_settings = true;
    }
    constexpr int methods = 5;
    // the proximal report's fields one by one: a struct copy may carry its padding's bits
    struct Out {
      Status bind, bad, sys;
      Solve direct[methods], range, null, kok, art, prox, caba;
      int rep_iterations, caba_iterations;
      double rep_residual, rep_step, rep_tolerance, caba_residual, caba_tolerance;
    };
    auto o = std::make_unique<Out>();
    twice("forward dynamics", *o, [&](D& d, CS& cs, Out& out) {
      out.bind = build(model, cs);
      const Fext* f = in.with_f ? &in.f : nullptr;
      V x;
      for (int k = 0; k < methods; ++k) {
        const Status s =
            talus::forward_dynamics_direct(model, d, cs, in.q, in.v, in.tau, x, static_cast<talus::KKTMethod>(k), f);
        record(out.direct[k], s, x, d, cs);
      }
      Status s = talus::forward_dynamics_range_space(model, d, cs, in.q, in.v, in.tau, x, f);
      record(out.range, s, x, d, cs);
      s = talus::forward_dynamics_null_space(model, d, cs, in.q, in.v, in.tau, x, f);
      record(out.null, s, x, d, cs);
      s = talus::forward_dynamics_kokkevis(model, d, cs, in.q, in.v, in.tau, x, f);
      record(out.kok, s, x, d, cs);
      // Kokkevis leaves no H: the reference system for its equations comes from range space
      out.kok.H = out.range.H;
      out.kok.C = out.range.C;
      s = talus::forward_dynamics_articulated(model, d, cs, in.q, in.v, in.tau, x, f);
      record(out.art, s, x, d, cs);
      out.art.H = out.range.H;  // no H either
      out.art.C = out.range.C;
      talus::ProximalReport<double> rep;
      s = talus::forward_dynamics_proximal(model, d, cs, in.q, in.v, in.tau, x, in.prox, rep, f);
      record(out.prox, s, x, d, cs);
      out.rep_iterations = rep.iterations;
      out.rep_residual = rep.residual;
      out.rep_step = rep.lambda_step;
      out.rep_tolerance = rep.tolerance;
      s = talus::forward_dynamics_constrained_aba(model, d, cs, in.q, in.v, in.tau, x, in.caba, rep, f);
      record(out.caba, s, x, d, cs);
      out.caba.H = out.range.H;  // no H
      out.caba.C = out.range.C;
      out.caba_iterations = rep.iterations;
      out.caba_residual = rep.residual;
      out.caba_tolerance = rep.tolerance;
      out.bad = talus::forward_dynamics_direct(model, d, cs, in.q, in.v, in.tau, x,
                                               static_cast<talus::KKTMethod>(in.bad_method), f);
    });
    if (o->bad == Status::ok) finding("forward_dynamics_direct", o->bad, "ok with a KKTMethod outside the enumerators");
    const char* names[methods] = {"forward_dynamics_direct(partial_piv_lu)", "forward_dynamics_direct(full_piv_lu)",
                                  "forward_dynamics_direct(col_piv_householder_qr)",
                                  "forward_dynamics_direct(householder_qr)", "forward_dynamics_direct(ldlt)"};
    const Solve* ref = nullptr;
    for (int k = 0; k < methods; ++k) {
      check_solve_output(names[k], o->direct[k]);
      check_forward_equations(names[k], o->direct[k], in.tau);
    }
    check_solve_output("forward_dynamics_range_space", o->range);
    check_forward_equations("forward_dynamics_range_space", o->range, in.tau);
    check_solve_output("forward_dynamics_null_space", o->null);
    check_forward_equations("forward_dynamics_null_space", o->null, in.tau);
    check_solve_output("forward_dynamics_kokkevis", o->kok);
    if (o->range.s == Status::ok) check_forward_equations("forward_dynamics_kokkevis", o->kok, in.tau);
    check_solve_output("forward_dynamics_articulated", o->art);
    if (o->range.s == Status::ok) check_forward_equations("forward_dynamics_articulated", o->art, in.tau);
    check_solve_output("forward_dynamics_proximal", o->prox);
    talus::ProximalReport<double> rep;
    rep.iterations = o->rep_iterations;
    rep.residual = o->rep_residual;
    rep.lambda_step = o->rep_step;
    rep.tolerance = o->rep_tolerance;
    check_proximal(o->prox, rep, in.prox);
    check_solve_output("forward_dynamics_constrained_aba", o->caba);
    check_report("forward_dynamics_constrained_aba", o->caba, o->caba_iterations, o->caba_residual, o->caba_tolerance,
                 in.caba);
    // reference: a rank-revealing direct method
    for (int k : {2, 1, 0})
      if (!ref && o->direct[k].s == Status::ok) ref = &o->direct[k];
    if (!ref) return;
    for (int k = 0; k < methods; ++k) check_agree(names[k], o->direct[k], *ref, true);
    check_agree("forward_dynamics_range_space", o->range, *ref);
    check_agree("forward_dynamics_null_space", o->null, *ref);
    check_agree("forward_dynamics_kokkevis", o->kok, *ref);
    check_agree("forward_dynamics_articulated", o->art, *ref);
    // proximal: q̈ only (λ's error grows as eps·‖D‖/μ, the header's rounding statement), and only at
    // the default settings (a fuzzed tolerance may legitimately stop early)
    if (o->prox.s == Status::ok && in.prox.mu == talus::ProximalSettings<double>{}.mu &&
        in.prox.absolute_accuracy == talus::ProximalSettings<double>{}.absolute_accuracy) {
      Tol t{*ref};
      const double ps2 = ref->ps * ref->ps;
      check_scaled("forward_dynamics_proximal", "qdd vs the reference method", max_abs((o->prox.x - ref->x).eval()),
                   1 + max_abs(ref->x), 1e-8 * ps2, t);
    }
    // constrained ABA: q̈ as the proximal method's (same iterates), at its own settings
    if (o->caba.s == Status::ok && !in.fuzzed_settings) {
      Tol t{*ref};
      check_scaled("forward_dynamics_constrained_aba", "qdd vs the reference method",
                   max_abs((o->caba.x - ref->x).eval()), 1 + max_abs(ref->x), 1e-8 * ref->ps * ref->ps, t);
    }
  }

  /// A proximal-type report agrees with its Status: iterations within the cap, zero unless ok or
  /// not_converged, an ok answer within the tolerance it reports.
  static void check_report(const char* fn, const Solve& o, int iterations, double residual, double tolerance,
                           const talus::ProximalSettings<double>& set) {
    if (iterations < 0 || iterations > std::max(0, set.max_iterations))
      finding(fn, o.s, "report: iterations out of range");
    if (o.s != Status::ok && o.s != Status::not_converged && iterations != 0) finding(fn, o.s, "report not zero");
    if (o.s == Status::ok && !(residual <= tolerance)) finding(fn, o.s, "ok with a residual above its tolerance");
  }

  /// The proximal solve's own promises: its report agrees with its Status, an ok answer meets the
  /// tolerance it reports and the first block of the equations (q̈ = H⁻¹(τ − C + Gᵀλ) by construction).
  static void check_proximal(const Solve& o, const talus::ProximalReport<double>& rep,
                             const talus::ProximalSettings<double>& set) {
    const char* fn = "forward_dynamics_proximal";
    if (rep.iterations < 0 || rep.iterations > std::max(0, set.max_iterations))
      finding(fn, o.s, "report: iterations out of range");
    if (o.s != Status::ok && o.s != Status::not_converged && rep.iterations != 0) finding(fn, o.s, "report not zero");
    if (o.s != Status::ok) return;
    if (!(rep.residual <= rep.tolerance)) finding(fn, o.s, "ok with a residual above its tolerance");
    if (o.m == 0) return;
    const Eigen::MatrixXd G = Gm(o);
    Eigen::VectorXd g(o.m);
    for (int i = 0; i < o.m; ++i) g[i] = o.gamma[static_cast<std::size_t>(i)];
    const double res = max_abs((G * o.x - g).eval());
    // the reported residual is the solver's own; recomputed here it may differ by rounding of G q̈
    const double slack = 1e-12 * (1 + max_abs(g) + (G.cwiseAbs() * o.x.cwiseAbs()).maxCoeff());
    if (!(res <= rep.tolerance + slack)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "|G qdd - gamma| %.3g > tolerance %.3g + %.3g", res, rep.tolerance, slack);
      finding(fn, o.s, "ok but G qdd != gamma", buf);
    }
  }

  // ---- group 1: impulses -----------------------------------------------------------------------------
  void run_impulses(const M& model) {
    struct In {
      Q q;
      V v;
      int target_mode;
      int target_rows;
      std::array<double, MR + 1> t;
      std::uint8_t method;
    } in{config(), vec(), r.byte() % 3, 0, {}, r.byte()};
    in.target_rows = r.byte() % (MR + 1);
    for (auto& x : in.t) x = r.scalar();
    struct Out {
      Status bind;
      int m;
      Solve direct, range, null, art, prox, caba;
      int prox_iterations, caba_iterations;
      double prox_residual, prox_tolerance, caba_residual, caba_tolerance;
    };
    auto o = std::make_unique<Out>();
    twice("impulses", *o, [&](D& d, CS& cs, Out& out) {
      out.bind = build(model, cs);
      out.m = cs.active_rows();
      Rv target;  // mode 0: none; 1: right size; 2: fuzzed size
      const int rows = in.target_mode == 1 ? cs.active_rows() : in.target_rows;
      target.resize(rows);
      for (int i = 0; i < rows; ++i) target[i] = in.t[static_cast<std::size_t>(i)];
      const Rv* tp = in.target_mode == 0 ? nullptr : &target;
      V x;
      Status s =
          talus::compute_impulse_direct(model, d, cs, in.q, in.v, x, static_cast<talus::KKTMethod>(in.method % 6), tp);
      record(out.direct, s, x, d, cs);
      s = talus::compute_impulse_range_space(model, d, cs, in.q, in.v, x, tp);
      record(out.range, s, x, d, cs);
      s = talus::compute_impulse_null_space(model, d, cs, in.q, in.v, x, tp);
      record(out.null, s, x, d, cs);
      s = talus::compute_impulse_articulated(model, d, cs, in.q, in.v, x, tp);
      record(out.art, s, x, d, cs);
      out.art.H = out.range.H;  // no H: the equations are checked with range space's
      talus::ProximalReport<double> rep;
      s = talus::compute_impulse_proximal(model, d, cs, in.q, in.v, x, talus::ProximalSettings<double>{}, rep, tp);
      record(out.prox, s, x, d, cs);
      out.prox_iterations = rep.iterations;
      out.prox_residual = rep.residual;
      out.prox_tolerance = rep.tolerance;
      s = talus::compute_impulse_constrained_aba(model, d, cs, in.q, in.v, x, talus::constrained_aba_settings<double>(),
                                                 rep, tp);
      record(out.caba, s, x, d, cs);
      out.caba.H = out.range.H;  // no H
      out.caba_iterations = rep.iterations;
      out.caba_residual = rep.residual;
      out.caba_tolerance = rep.tolerance;
    });
    const bool wrong_size = in.target_mode == 2 && in.target_rows != o->m;
    // proximal (a redundant set too, where the others say singular): its equations, its report,
    // and v⁺ against the reference (not Λ: its error grows as eps·‖D‖/μ, forward_dynamics_proximal.hpp)
    constexpr int methods = 6;
    const Solve* all[methods] = {&o->direct, &o->range, &o->null, &o->art, &o->prox, &o->caba};
    const char* names[methods] = {"compute_impulse_direct",     "compute_impulse_range_space",
                                  "compute_impulse_null_space", "compute_impulse_articulated",
                                  "compute_impulse_proximal",   "compute_impulse_constrained_aba"};
    check_report(names[5], o->caba, o->caba_iterations, o->caba_residual, o->caba_tolerance,
                 talus::constrained_aba_settings<double>());
    if (o->prox.s == Status::ok && !(o->prox_residual <= o->prox_tolerance))
      finding(names[4], o->prox.s, "ok with a residual above its tolerance");
    if (o->prox.s != Status::ok && o->prox.s != Status::not_converged && o->prox_iterations != 0)
      finding(names[4], o->prox.s, "report not zero");
    if (in.method % 6 == 5 && o->direct.s == Status::ok)
      finding(names[0], o->direct.s, "ok with a KKTMethod outside the enumerators");
    for (int k = 0; k < methods; ++k) {
      const Solve& s = *all[k];
      check_solve_output(names[k], s);
      if ((k == 3 || k == 5) && o->range.s != Status::ok) continue;  // equations checked with range space's H
      if (wrong_size && s.s == Status::ok) finding(names[k], s.s, "ok with a target v+ of the wrong size");
      if (s.s != Status::ok) continue;
      // H (v+ − v−) = Gᵀ Λ and G v+ = target
      Tol t{s};
      const Eigen::MatrixXd G = Gm(s);
      const Eigen::VectorXd l = lam(s);
      const V dv = s.x - in.v;
      const V r1 = s.H * dv - G.transpose() * l;
      const double ps2 = s.ps * s.ps;
      check_scaled(names[k], "H (v+ - v-) - G^T Lambda", max_abs(r1),
                   1 + (s.H.cwiseAbs() * s.x.cwiseAbs()).maxCoeff() + (s.H.cwiseAbs() * in.v.cwiseAbs()).maxCoeff() +
                       (s.m ? (G.transpose().cwiseAbs() * l.cwiseAbs()).maxCoeff() : 0.0),
                   1e-9 * ps2, t);
      if (s.m == 0) continue;
      Eigen::VectorXd g = Eigen::VectorXd::Zero(s.m);
      if (in.target_mode != 0)
        for (int i = 0; i < s.m; ++i) g[i] = in.t[static_cast<std::size_t>(i)];
      // normwise scale (as in check_forward_equations)
      check_scaled(names[k], "G v+ - target", max_abs((G * s.x - g).eval()),
                   1 + max_abs(g) + (G.cwiseAbs() * s.x.cwiseAbs()).maxCoeff() +
                       (max_abs(s.H) + max_abs(G)) * std::fmax(max_abs(s.x), max_abs(l)),
                   1e-9 * ps2, t);
    }
    const Solve* ref = o->direct.s == Status::ok ? &o->direct : nullptr;
    if (ref) {
      check_agree(names[1], o->range, *ref);
      check_agree(names[2], o->null, *ref);
      check_agree(names[3], o->art, *ref);
      if (o->prox.s == Status::ok) {
        Tol t{*ref};
        check_scaled(names[4], "v+ vs the reference method", max_abs((o->prox.x - ref->x).eval()), 1 + max_abs(ref->x),
                     1e-8 * ref->ps * ref->ps, t);
      }
      if (o->caba.s == Status::ok) {
        Tol t{*ref};
        check_scaled(names[5], "v+ vs the reference method", max_abs((o->caba.x - ref->x).eval()), 1 + max_abs(ref->x),
                     1e-8 * ref->ps * ref->ps, t);
      }
    }
  }

  // ---- group 2: assembly -------------------------------------------------------------------------------
  void run_assembly(const M& model) {
    struct In {
      Q q;
      V v, w;
      talus::AssemblyOptions<double> opt;
    } in{config(), vec(), vec(), {}};
    const std::uint8_t wm = r.byte();
    if (wm < 200)
      for (int i = 0; i < nv; ++i) in.w[i] = std::fabs(in.w[i]) + 0.25;  // positive weights
    else if (wm < 210) in.w.setConstant(4.9e-324);
    const std::uint8_t om = r.byte();
    if (om >= 192) in.opt.tolerance = r.scalar();
    in.opt.max_iterations = (om & 1) ? static_cast<int>(r.byte()) - 8 : in.opt.max_iterations;
    // report fields copied one by one: AssemblyReport has padding, which a struct copy may fill
    // with stack bytes (a false "different bits" seen in the first replay)
    struct Out {
      Status bind, aq, aqd, pe;
      Q q;
      V v;
      int rep_iterations;
      double rep_residual;
      bool e_zero;
      double emax;
      int m;
    };
    auto o = std::make_unique<Out>();
    twice("assembly", *o, [&](D& d, CS& cs, Out& out) {
      out.bind = build(model, cs);
      out.m = cs.active_rows();
      talus::AssemblyReport<double> rep;
      out.aq = talus::assemble_q(model, d, cs, in.q, in.w, out.q, in.opt, &rep);
      out.rep_iterations = rep.iterations;
      out.rep_residual = rep.residual;
      out.aqd = talus::assemble_qdot(model, d, cs, in.q, in.v, in.w, out.v);
      // the position errors at the returned q, on a clean Data
      D d2;
      Rv e;
      out.pe = talus::compute_position_errors(model, d2, cs, out.q, e);
      out.e_zero = all_zero(e);
      out.emax = e.size() ? e.cwiseAbs().maxCoeff() : 0.0;
    });
    if (o->aq == Status::not_converged) {
      if (!finite(o->q)) finding("assemble_q", o->aq, "not_converged but the last iterate is not finite");
    } else {
      check_output("assemble_q", o->aq, o->q);
    }
    check_output("assemble_qdot", o->aqd, o->v);
    if (o->aq == Status::ok && o->pe == Status::ok && !(o->emax <= in.opt.tolerance * (1 + 1e-9)))
      finding("assemble_q", o->aq, "ok but the position errors at q exceed the tolerance");
    if (o->aq == Status::ok && o->pe != Status::ok)
      finding("assemble_q", o->aq, "ok but q is not a valid configuration");
  }

  // ---- group 3: quantities, errors, wrenches ----------------------------------------------------------------
  void run_quantities(const M& model) {
    struct In {
      Q q;
      V v, tau;
      talus::ReferenceFrame rf;
    } in{config(), vec(), vec(), r.reference_frame()};
    struct Out {
      Status bind, sys, pe, ve, fd, wr, cjj;
      Solve s;
      Rv pe_o, ve_o;
      bool pe_zero, ve_zero, pe_fin, ve_fin, sys_zero;
      std::array<talus::ConstraintWrench<double>, MC> w;
      Eigen::Matrix<double, 6, nv> J;
      V Gtl, Jtf;
    };
    const bool custom = has_custom();
    auto o = std::make_unique<Out>();
    twice("quantities", *o, [&](D& d, CS& cs, Out& out) {
      out.bind = build(model, cs);
      out.sys = talus::compute_constrained_system(model, d, cs, in.q, in.v);
      out.sys_zero = out.sys == Status::ok || (all_zero(cs.G) && all_zero(cs.gamma) && all_zero(cs.C) && all_zero(d.H));
      record(out.s, out.sys, V::Zero(), d, cs);
      out.pe = talus::compute_position_errors(model, d, cs, in.q, out.pe_o);
      out.pe_zero = all_zero(out.pe_o);
      out.pe_fin = finite(out.pe_o);
      out.ve = talus::compute_velocity_errors(model, d, cs, in.q, in.v, out.ve_o);
      out.ve_zero = all_zero(out.ve_o);
      out.ve_fin = finite(out.ve_o);
      V x;
      out.fd = talus::forward_dynamics_range_space(model, d, cs, in.q, in.v, in.tau, x);
      out.wr = talus::constraint_wrenches(model, d, cs, talus::ReferenceFrame::world, out.w);
      // Σ Jᵀ f over the wrenches (world columns at the world origin) against Gᵀ λ
      out.Gtl.setZero();
      if (cs.lambda.size() == cs.G.rows()) out.Gtl = cs.G.transpose().lazyProduct(cs.lambda);
      out.Jtf.setZero();
      D dj;
      out.cjj = talus::compute_joint_jacobians(model, dj, in.q);
      for (const auto& w : out.w)
        for (int k = 0; k < w.count && k < 2; ++k)
          if (w.body[k] >= 0 && w.body[k] < nb)
            talus::detail::for_each_supporting_dof<M>(w.body[k],
                                                      [&](int c) { out.Jtf[c] += dj.J.col(c).dot(w.force[k]); });
      // and once more in body frames (rf fuzzed): only the promises
      (void)talus::constraint_wrenches(model, d, cs, in.rf, out.w);
    });
    if (!o->sys_zero) finding("compute_constrained_system", o->sys, "not ok but G, gamma, C or H is not zero");
    if (o->sys == Status::ok) {
      if (!finite(o->s.H) || !finite(o->s.C)) finding("compute_constrained_system", o->sys, "ok but H or C not finite");
      for (double g : o->s.G)
        if (!std::isfinite(g)) finding("compute_constrained_system", o->sys, "ok but G not finite");
      for (double g : o->s.gamma)
        if (!std::isfinite(g)) finding("compute_constrained_system", o->sys, "ok but gamma not finite");
    }
    if (o->pe == Status::ok && !o->pe_fin) finding("compute_position_errors", o->pe, "ok but an error is not finite");
    if (o->pe != Status::ok && !o->pe_zero)
      finding("compute_position_errors", o->pe, "not ok but the errors are not zero");
    if (o->ve == Status::ok && !o->ve_fin) finding("compute_velocity_errors", o->ve, "ok but an error is not finite");
    if (o->ve != Status::ok && !o->ve_zero)
      finding("compute_velocity_errors", o->ve, "not ok but the errors are not zero");
    for (const auto& w : o->w) {
      if (w.count < 0 || w.count > 2) finding("constraint_wrenches", o->wr, "a wrench count outside 0..2");
      for (int k = 0; k < std::min(std::max(w.count, 0), 2); ++k) {
        if (w.body[k] < -1 || w.body[k] >= nb) finding("constraint_wrenches", o->wr, "a body id out of range");
        if (o->wr == Status::ok && !finite(w.force[k]))
          finding("constraint_wrenches", o->wr, "ok but a force is not finite");
      }
      if (o->wr != Status::ok && w.count != 0) finding("constraint_wrenches", o->wr, "not ok but a wrench is reported");
    }
    if (o->fd == Status::ok && o->wr == Status::ok && o->cjj == Status::ok && !custom) {
      const double ps2 = o->s.ps * o->s.ps;
      check_residual("constraint_wrenches", "sum J^T f - G^T lambda", (o->Jtf - o->Gtl).eval(), 1e-9 * ps2,
                     1 + max_abs(o->Gtl) + max_abs(o->Jtf));
    }
  }

  void run_group(const M& model, Group g) {
    switch (g) {
      case forward: run_forward(model); break;
      case impulses: run_impulses(model); break;
      case assembly: run_assembly(model); break;
      case quantities: run_quantities(model); break;
      default: break;
    }
  }
};

template <class M>
void run_constraints_input(const M& model, std::uint8_t group, Reader& r) {
  auto c = std::make_unique<Constraints<M>>(r);
  c->run_group(model, static_cast<typename Constraints<M>::Group>(group % Constraints<M>::groups));
}

}  // namespace talus_fuzz
