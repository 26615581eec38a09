// talus_target_contact_reference: host tool (runs on the build machine, at build time) that
// writes the reference of the on-target contact check (targets/contact_check.cpp): solo12
// standing on its four feet as UNILATERAL contacts (FL, FR, HL, HR; ground normal +z, μ = 0.7,
// 4-edge friction polygons or exact cones), forward_dynamics_contact at the acceleration level
// at the same states as talus_target_reference (same seed, same draws: the target checks at
// compile time that the inputs are identical), in three variants:
//
//   rest     q̇ = 0 (every foot at rest, so sticking friction: the polygon's complementarity),
//            ContactSolver::lemke: LCP of 24 unknowns (f_n, 4 β, Λ per foot).
//   moving   q̇ of the state (every foot moving, |v_t| ≫ sliding_speed: kinetic friction against
//            v_t, Drake's N − μQ), ContactSolver::lemke: LCP of 4 unknowns (f_n per foot).
//   pgs      q̇ = 0, exact Coulomb cones, ContactSolver::pgs (default options: 100 sweeps, √ε).
//
// Written per variant and state: Status, pivots (Lemke) or sweeps (PGS), q̈ and the four feet's
// forces (contact frame, f_n, f_t1, f_t2), every number a hex-float literal. For the Lemke
// variants also the active set's margin from degeneracy and the condition numbers κ_q̈, κ_f
// of the solution with that active set (classify() and active_set_conds() below), which the
// float tolerances use; for PGS the Delassus matrix W and free acceleration b in double, for
// the float backward-error check. It also runs everything in float and prints (and writes in
// a comment of the header) what it saw, as evidence for the float tolerances. Built with the
// reproducible profile like talus_target_reference.
//
//   talus_target_contact_reference --out <header> [--states N] [--seed S] [--verbose]
//
// A separate program (not part of reference.cpp) so that the two compile side by side: this
// one instantiates the contact solves in double and float and takes about a minute on one core.
// GCC 12 reports a false -Wmaybe-uninitialized in Eigen's dynamic-size symv/trmv kernels
// (SelfadjointMatrixVector.h, TriangularMatrixVector.h), instantiated by the eigensolver and
// LU below; the host tool is built with -Werror.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <talus/contact.hpp>
#include <talus/models/solo12.hpp>
#include <talus/talus.hpp>

#include <Eigen/LU>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "write_if_changed.hpp"

namespace {

namespace solo = talus::models::solo12;
constexpr const char* kFeet[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
constexpr double kMu = 0.7;
constexpr int kEdges = 4;
constexpr int kVariants = 3;
const char* const kVariantName[kVariants] = {"rest", "moving", "pgs"};
enum Variant { rest = 0, moving = 1, pgs = 2 };

template <class S>
struct Solver {
  using M = solo::Model<S>;
  using Problem = talus::ContactProblem<M, 4, kEdges>;
  using Options = talus::ContactOptions<S, Problem::max_lcp>;
  M model = solo::make_model<S>();
  std::unique_ptr<talus::Data<M>> data = std::make_unique<talus::Data<M>>();
  std::unique_ptr<Problem> cp = std::make_unique<Problem>();
  talus::ContactReport<S> report;
  typename M::TangentVector ddq;
  talus::Status status = talus::Status::ok;
  bool recovery = true;  // ContactOptions::active_set_recovery (off: Lemke's answer as it is)

  bool setup() {
    for (const char* foot : kFeet)
      if (cp->add_contact(model, solo::frame_id(foot), talus::Vector3<S>::UnitZ(), S(kMu), kEdges) != talus::Status::ok)
        return false;
    return true;
  }
  void solve(Variant var, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
    const talus::ConeModel cone = var == pgs ? talus::ConeModel::exact : talus::ConeModel::polygon;
    for (int i = 0; i < 4; ++i) (void)cp->set_cone(i, cone);
    Options o;
    if (var == pgs) o.solver = talus::ContactSolver::pgs;
    o.active_set_recovery = recovery;
    const typename M::ConfigVector qs = q.cast<S>();
    const typename M::TangentVector vs = var == moving ? typename M::TangentVector(v.cast<S>())
                                                       : M::TangentVector::Zero();
    const typename M::TangentVector ts = tau.cast<S>();
    status = talus::forward_dynamics_contact(model, *data, *cp, qs, vs, ts, ddq, o, report);
  }
  int count(Variant var) const { return var == pgs ? report.cone.iterations : report.lcp.pivots; }
  std::vector<double> forces() const {
    std::vector<double> f;
    for (int i = 0; i < 4; ++i) {
      typename Problem::ContactForce c;
      (void)cp->force(i, c);
      for (int j = 0; j < 3; ++j) f.push_back(static_cast<double>(c[j]));
    }
    return f;
  }
  std::vector<double> accel() const {
    std::vector<double> a;
    for (int k = 0; k < M::nv; ++k) a.push_back(static_cast<double>(ddq[k]));
    return a;
  }
};

// Errors as target_test.cpp and contact_check.cpp measure them: max-norm relative, forces
// relative to max(max |f_ref|, 1 mN) (forces that are 0 up to rounding are compared absolutely).
constexpr double kForceFloor = 1e-3;
double rel_err(const std::vector<double>& x, const std::vector<double>& r, double floor = 0) {
  double d = 0, s = floor;
  for (std::size_t k = 0; k < r.size(); ++k) {
    d = std::max(d, std::fabs(x[k] - r[k]));
    s = std::max(s, std::fabs(r[k]));
  }
  return s > 0 ? d / s : d;
}

// ‖A‖₂ = √λmax of the smaller Gram matrix (a condition number needs no more accuracy)
double norm2(const Eigen::MatrixXd& A) {
  if (A.size() == 0) return 0;
  const Eigen::MatrixXd G = A.rows() < A.cols() ? Eigen::MatrixXd(A * A.transpose())
                                                : Eigen::MatrixXd(A.transpose() * A);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(G, Eigen::EigenvaluesOnly);
  return std::sqrt(std::max(0.0, es.eigenvalues().maxCoeff()));
}

// --- the active set of a Lemke answer (double) ---------------------------------------------
//
// Each foot's state in the answer, and the linear system the answer solves once the state of
// every foot is fixed: rows J (combinations of the foot's rows n, t₁, t₂ whose acceleration is
// zero) and force columns F (the foot's force is Σ x_k F_k, in the rows' coefficients):
//   lifted        f = 0, a_n > 0                         J, F: none
//   sticking      f_n > 0, f_t inside the polygon, a = 0  J = F = {n, t₁, t₂}
//   vertex slip   friction at polygon vertex d_j (μ f_n d_j), a_n = 0, a_t against d_j:
//                 J = {n}, F = {n + μ d_j}      (rest variant; the polygon's sliding)
//   facet slip    friction on the facet between d_j and d_k, a_t ⟂ d_j − d_k:
//                 J = {n, d_j − d_k}, F = {n + μ d_k, d_j − d_k}
//   kinetic       moving variant, pushing: J = {n}, F = {n − μ v̂_t} (the sliding column)
// The margin is how far the answer is from a change of that state, relative to the scales of
// forces (s_f = max(max f_n, 1 mN)) and of the rows' accelerations (s_a = max |free acceleration|):
//   lifted: a_n/s_a; pushing: f_n/s_f and, sticking, (μ f_n − |f_t1| − |f_t2|)/s_f (the polygon's
//   slack), vertex slip Λ/s_a (the slip rate) and the other edges' w/s_a, facet slip Λ/s_a and
//   min(β_j, β_k)/s_f. A lifted foot's Λ and a sticking foot's β are not unique (the LCP is
//   degenerate there by construction) and not part of the margin: they are not compared either.
// Then, with K = [H  −F_qᵀ; J_q  0] (F_q = F A, J_q = J A), r = [τ − C; −J·bias], z = [q̈; x],
// f = T x (T = Fᵀ): to first order, relative 2-norm perturbations ≤ ε of H, C, τ, A, bias (and
// of the friction directions in F) change q̈ and f by at most ε·κ, with K⁻¹ = [P R₁₂; R₂₁ Y]:
//   κ_q̈ = [‖P‖ (‖τ‖ + ‖C‖ + ‖H‖‖q̈‖ + ‖F_q‖‖x‖) + ‖R₁₂‖ (‖γ‖ + ‖J_q‖‖q̈‖)] / ‖q̈‖
//   κ_f  = [‖T R₂₁‖ (‖τ‖ + ‖C‖ + ‖H‖‖q̈‖ + ‖F_q‖‖x‖) + ‖T Y‖ (‖γ‖ + ‖J_q‖‖q̈‖)] / ‖f‖
// (the formula of reference.cpp's constrained_conds for a non-symmetric K). The q̈ of this
// system must equal the LCP's: checked (a wrong classification would not).

// 2-norm condition number of Lemke's final basis B (its columns: wᵢ → eᵢ, zᵢ → −M's column i)
template <class Sol>
double basis_cond(Sol& sol) {
  auto& ws = sol.cp->ws;
  const int n = static_cast<int>(ws.q.size());
  Eigen::MatrixXd B(n, n);
  const Eigen::MatrixXd Md = ws.M.topLeftCorner(n, n).template cast<double>();
  for (int i = 0; i < n; ++i) {
    const int b = ws.lcp.basis[i];
    if (b < n) B.col(i) = Eigen::VectorXd::Unit(n, b);
    else if (b < 2 * n) B.col(i) = -Md.col(b - n);
    else B.col(i).setConstant(-1.0);
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(B);
  const auto sv = svd.singularValues();
  return sv(0) / sv(n - 1);
}

struct ActiveSet {
  double margin = 0, cond_ddq = 0, cond_f = 0, check = 0;  // check: |q̈_K − q̈_LCP| relative
  int pushing = 0, sticking = 0, slipping = 0;             // feet (slipping: vertex, facet or kinetic)
  std::string text;                                        // per foot, for --verbose
};

template <class Sol>
ActiveSet active_set(Sol& sol, Variant var, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                     const Eigen::VectorXd& tau) {
  using M = typename Sol::M;
  auto& ws = sol.cp->ws;
  ActiveSet out;
  const int m = ws.rows;  // 12: every foot is active
  const Eigen::VectorXd phi = ws.phi.head(m);
  const Eigen::MatrixXd A = ws.A.topRows(m), D = ws.D.topLeftCorner(m, m);
  const Eigen::VectorXd free = ws.free.head(m), bias = ws.bias.head(m);
  const Eigen::VectorXd acc = D * phi + free;  // the rows' accelerations in the answer
  double s_f = kForceFloor, s_a = free.cwiseAbs().maxCoeff();
  for (int i = 0; i < 4; ++i) s_f = std::max(s_f, phi(3 * i));
  const double tf = 1e-9 * s_f, ta = 1e-9 * s_a;
  std::vector<Eigen::VectorXd> J, F;  // row coefficient vectors (m entries)
  auto unit = [&](int r) { return Eigen::VectorXd(Eigen::VectorXd::Unit(m, r)); };
  const double pi = 3.14159265358979323846;
  Eigen::Vector2d d[kEdges];
  for (int j = 0; j < kEdges; ++j) d[j] = Eigen::Vector2d(std::cos(2 * pi * j / kEdges), std::sin(2 * pi * j / kEdges));
  double margin = 1e300;
  char buf[256];
  for (int i = 0; i < 4; ++i) {
    const int r = 3 * i;
    const double fn = phi(r);
    const Eigen::Vector2d ft(phi(r + 1), phi(r + 2)), at(acc(r + 1), acc(r + 2));
    if (fn <= tf) {
      margin = std::min(margin, acc(r) / s_a);
      std::snprintf(buf, sizeof buf, " %d:lifted(a_n %.3g)", i, acc(r));
      out.text += buf;
      continue;
    }
    ++out.pushing;
    margin = std::min(margin, fn / s_f);
    if (var == moving) {  // the kinetic column: f = f_n (1, −μ v̂)
      ++out.slipping;
      J.push_back(unit(r));
      F.push_back(unit(r) + (phi(r + 1) / fn) * unit(r + 1) + (phi(r + 2) / fn) * unit(r + 2));
      std::snprintf(buf, sizeof buf, " %d:kinetic(f_n %.3g)", i, fn);
      out.text += buf;
      continue;
    }
    // rest variant: the LCP's unknowns of foot i are f_n, β_0..β_3 at 5i.., Λ at 20 + i
    const double lam = ws.z(5 * 4 + i);
    double beta[kEdges], wb[kEdges];
    for (int j = 0; j < kEdges; ++j) {
      beta[j] = ws.z(5 * i + 1 + j);
      wb[j] = ws.w(5 * i + 1 + j);
    }
    if (lam <= ta) {  // sticking: a = 0, friction strictly inside the polygon (slack > 0)
      ++out.sticking;
      const double slack = kMu * fn - std::fabs(ft(0)) - std::fabs(ft(1));
      margin = std::min(margin, slack / s_f);
      for (int k = 0; k < 3; ++k) {
        J.push_back(unit(r + k));
        F.push_back(unit(r + k));
      }
      std::snprintf(buf, sizeof buf, " %d:stick(f_n %.3g slack %.3g)", i, fn, slack);
      out.text += buf;
      continue;
    }
    ++out.slipping;
    margin = std::min(margin, lam / s_a);
    int on[2] = {-1, -1}, non = 0;
    for (int j = 0; j < kEdges; ++j)
      if (beta[j] > tf) {
        if (non < 2) on[non] = j;
        ++non;
      }
    auto tangent = [&](const Eigen::Vector2d& c) { return Eigen::VectorXd(c(0) * unit(r + 1) + c(1) * unit(r + 2)); };
    if (non == 1) {  // vertex: the other edges' w > 0
      const int j = on[0];
      for (int k = 0; k < kEdges; ++k)
        if (k != j) margin = std::min(margin, wb[k] / s_a);
      J.push_back(unit(r));
      F.push_back(unit(r) + kMu * tangent(d[j]));
      std::snprintf(buf, sizeof buf, " %d:vertex%d(f_n %.3g Λ %.3g)", i, j, fn, lam);
    } else if (non == 2) {
      const int j = on[0], k = on[1];
      margin = std::min(margin, std::min(beta[j], beta[k]) / s_f);
      for (int e = 0; e < kEdges; ++e)
        if (e != j && e != k) margin = std::min(margin, wb[e] / s_a);
      J.push_back(unit(r));
      J.push_back(tangent(d[j] - d[k]));
      F.push_back(unit(r) + kMu * tangent(d[k]));
      F.push_back(tangent(d[j] - d[k]));
      std::snprintf(buf, sizeof buf, " %d:facet%d%d(f_n %.3g Λ %.3g)", i, j, k, fn, lam);
    } else {
      margin = -1;  // not a state this classification knows: reported as a failure
      std::snprintf(buf, sizeof buf, " %d:unknown(%d edges)", i, non);
    }
    out.text += buf;
  }
  out.margin = margin;

  // H, C at the state (v of the variant), and the active-set system
  const int nv = M::nv, p = static_cast<int>(J.size());
  typename M::ConfigVector qs = q;
  typename M::TangentVector vs = var == moving ? typename M::TangentVector(v) : M::TangentVector::Zero(),
                            zero = M::TangentVector::Zero(), C;
  talus::Data<M>& data = *sol.data;
  if (talus::crba(sol.model, data, qs) != talus::Status::ok ||
      talus::rnea(sol.model, data, qs, vs, zero, C) != talus::Status::ok) {
    out.margin = -1;
    return out;
  }
  const Eigen::MatrixXd H = data.H;
  Eigen::MatrixXd Jc(p, m), Fc(p, m);
  for (int k = 0; k < p; ++k) {
    Jc.row(k) = J[static_cast<std::size_t>(k)].transpose();
    Fc.row(k) = F[static_cast<std::size_t>(k)].transpose();
  }
  const Eigen::MatrixXd Jq = Jc * A, Fq = Fc * A;
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nv + p, nv + p);
  K.topLeftCorner(nv, nv) = H;
  K.topRightCorner(nv, p) = -Fq.transpose();
  K.bottomLeftCorner(p, nv) = Jq;
  const Eigen::VectorXd Cd = C, taud = tau, gamma = -Jc * bias;
  Eigen::VectorXd rhs(nv + p);
  rhs << taud - Cd, gamma;
  const Eigen::MatrixXd Ki = K.fullPivLu().inverse();
  const Eigen::VectorXd z = Ki * rhs;
  const Eigen::VectorXd x_ddq = z.head(nv), x = z.tail(p);
  const Eigen::VectorXd ddq = sol.ddq;
  out.check = (x_ddq - ddq).cwiseAbs().maxCoeff() / ddq.cwiseAbs().maxCoeff();
  const Eigen::MatrixXd T = Fc.transpose();  // f = T x
  const double top = taud.norm() + Cd.norm() + norm2(H) * x_ddq.norm() + norm2(Fq) * x.norm();
  const double bottom = gamma.norm() + norm2(Jq) * x_ddq.norm();
  out.cond_ddq = (norm2(Ki.topLeftCorner(nv, nv)) * top + norm2(Ki.topRightCorner(nv, p)) * bottom) / x_ddq.norm();
  if (p > 0) {
    const Eigen::VectorXd f = T * x;
    out.cond_f =
        (norm2(T * Ki.bottomLeftCorner(p, nv)) * top + norm2(T * Ki.bottomRightCorner(p, p)) * bottom) / f.norm();
  }
  return out;
}

// PGS's answer checked against a problem (W, b): the residuals of cone_solvers.hpp's check
// (primal, dual with the De Saxcé correction, complementarity), each divided by its scale
// (s_f, s_σ, s_f s_σ), the largest of the three. contact_check.cpp evaluates the same on the
// target (float answer against this double W, b).
double cone_backward_error(const Eigen::MatrixXd& W, const Eigen::VectorXd& b, const std::vector<double>& f) {
  const int n = static_cast<int>(b.size());
  Eigen::VectorXd fv(n), sigma(n);
  for (int k = 0; k < n; ++k) fv(k) = f[static_cast<std::size_t>(k)];
  double sf = 0, ss = 0;
  for (int k = 0; k < n; ++k) {
    sigma(k) = b(k) + W.row(k).dot(fv);
    ss = std::max(ss, std::fabs(b(k)) + W.row(k).cwiseAbs().dot(fv.cwiseAbs()));
    sf = std::max(sf, std::fabs(fv(k)));
  }
  double p = 0, dd = 0, c = 0;
  for (int i = 0; i < n / 3; ++i) {
    const int k = 3 * i;
    const double sn = sigma(k) + kMu * std::hypot(sigma(k + 1), sigma(k + 2));
    p = std::max(p, std::max(0.0, std::hypot(fv(k + 1), fv(k + 2)) - kMu * fv(k)) / std::sqrt(1 + kMu * kMu));
    // dist(σ̃, K*) = ‖proj_K(−σ̃)‖: K* = {μ‖t‖ ≤ n} for the dual of {‖t‖ ≤ μ n}
    Eigen::Vector3d mv(-sn, -sigma(k + 1), -sigma(k + 2));
    const double t = std::hypot(mv(1), mv(2));
    if (!(t <= kMu * mv(0) && mv(0) >= 0)) {
      if (kMu * t <= -mv(0)) mv.setZero();
      else {
        const double a = (mv(0) + kMu * t) / (1 + kMu * kMu);
        mv << a, mv(1) * kMu * a / t, mv(2) * kMu * a / t;
      }
    }
    dd = std::max(dd, mv.norm());
    c = std::max(c, std::fabs(fv(k) * sn + fv(k + 1) * sigma(k + 1) + fv(k + 2) * sigma(k + 2)));
  }
  const double vp = sf > 0 ? p / sf : p, vd = ss > 0 ? dd / ss : dd, vc = sf * ss > 0 ? c / (sf * ss) : c;
  return std::max(vp, std::max(vd, vc));
}

using talus_target_ref_io::Writer;

}  // namespace

int main(int argc, char** argv) {
  talus_target_ref_io::Arguments args;
  if (!talus_target_ref_io::parse_arguments(argc, argv, true, args)) return 2;
  using MD = solo::Model<double>;
  constexpr int nq = MD::nq, nv = MD::nv;
  auto sd = std::make_unique<Solver<double>>();
  auto sf = std::make_unique<Solver<float>>();
  if (!sd->setup() || !sf->setup()) {
    std::fprintf(stderr, "talus_target_contact_reference: cannot add the feet\n");
    return 1;
  }

  // The states: exactly talus_target_reference's draws for solo12 (reference.cpp, write_model):
  // per state random_configuration, then v, a, τ interleaved per dof.
  talus::Random rng(args.seed);
  std::vector<std::vector<double>> Q, V, T;
  for (int s = 0; s < args.states; ++s) {
    MD::ConfigVector q;
    MD::TangentVector v, a, tau;
    talus::random_configuration(sd->model, rng, q);
    for (int k = 0; k < nv; ++k) {
      v[k] = rng.uniform(-1, 1);
      a[k] = rng.uniform(-1, 1);
      tau[k] = rng.uniform(-1, 1);
    }
    Q.emplace_back(q.data(), q.data() + nq);
    V.emplace_back(v.data(), v.data() + nv);
    T.emplace_back(tau.data(), tau.data() + nv);
  }

  struct PerVariant {
    std::vector<int> status, count, fstatus, fcount;
    std::vector<std::vector<double>> ddq, f, W, b;
    std::vector<double> margin, cond_ddq, cond_f;
    double worst_ddq = 0, worst_f = 0, worst_ddq_k = 0, worst_f_k = 0, worst_check = 0, min_margin = 1e300,
           worst_be = 0, worst_in = 0;
    double plain_ddq_k = 0, plain_f_k = 0;  // float without the active-set recovery, worst err/(eps_f·κ)
    int same_count = 0, float_ok = 0, recovered = 0;
    std::string beyond, plain_beyond;  // float states beyond 32·eps_f·κ (with, without the recovery)
  } pv[kVariants];
  bool ok = true;
  const double eps_f = 0x1p-23;
  std::string notes;
  char line[512];
  for (int s = 0; s < args.states; ++s) {
    const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(Q[s].data(), nq);
    const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(V[s].data(), nv);
    const Eigen::VectorXd tau = Eigen::Map<const Eigen::VectorXd>(T[s].data(), nv);
    for (int vi = 0; vi < kVariants; ++vi) {
      const Variant var = static_cast<Variant>(vi);
      PerVariant& P = pv[vi];
      sd->solve(var, q, v, tau);
      P.status.push_back(static_cast<int>(sd->status));
      P.count.push_back(sd->count(var));
      P.ddq.push_back(sd->accel());
      P.f.push_back(sd->forces());
      ActiveSet as;
      if (var != pgs && sd->status == talus::Status::ok) {
        as = active_set(*sd, var, q, v, tau);
        if (!(as.margin > 0) || !(as.check < 1e-9)) {
          std::fprintf(
              stderr,
              "talus_target_contact_reference: state %d %s: active set not recognised (margin %g, check %g):%s\n", s,
              kVariantName[vi], as.margin, as.check, as.text.c_str());
          ok = false;
        }
        P.min_margin = std::min(P.min_margin, as.margin);
        P.worst_check = std::max(P.worst_check, as.check);
      } else if (var != pgs) {
        std::fprintf(stderr, "talus_target_contact_reference: state %d %s: Lemke returned %s\n", s, kVariantName[vi],
                     talus::to_string(sd->status));
        ok = false;
      }
      P.margin.push_back(as.margin);
      P.cond_ddq.push_back(as.cond_ddq);
      P.cond_f.push_back(as.cond_f);
      Eigen::MatrixXd W;
      Eigen::VectorXd b;
      if (var == pgs) {
        // W = D and b = free for four contacts and no limits (contact_dynamics.hpp, cone_forces)
        W = sd->cp->ws.D.topLeftCorner(12, 12);
        b = sd->cp->ws.free.head(12);
        std::vector<double> wv(W.data(), W.data() + 144), bv(b.data(), b.data() + 12);  // column-major
        P.W.push_back(wv);
        P.b.push_back(bv);
      }
      // the same in float (inputs rounded to float, as on the M4F)
      sf->solve(var, q, v, tau);
      P.fstatus.push_back(static_cast<int>(sf->status));
      P.fcount.push_back(sf->count(var));
      P.same_count += sf->count(var) == sd->count(var);
      P.float_ok += sf->status == talus::Status::ok;
      P.recovered += var != pgs && sf->report.recovery.applied;
      double e_ddq = 0, e_f = 0, be = 0;
      if (sf->status == talus::Status::ok && sd->status == talus::Status::ok) {
        e_ddq = rel_err(sf->accel(), sd->accel());
        e_f = rel_err(sf->forces(), sd->forces(), kForceFloor);
        if (var != pgs) {
          // within contact_check.cpp's float tolerance 32·eps_f·κ? (else listed apart: "beyond")
          const double kx = e_ddq / as.cond_ddq, kf = e_f / std::max(as.cond_f, 1.0);
          if (kx <= 32 * eps_f && kf <= 32 * eps_f) {
            P.worst_ddq = std::max(P.worst_ddq, e_ddq);
            P.worst_f = std::max(P.worst_f, e_f);
            P.worst_ddq_k = std::max(P.worst_ddq_k, kx);
            P.worst_f_k = std::max(P.worst_f_k, kf);
          } else {
            std::snprintf(line, sizeof line, " %d (q̈ %.2g = %.2g·tol, f %.2g = %.2g·tol)", s, e_ddq, kx / (32 * eps_f),
                          e_f, kf / (32 * eps_f));
            P.beyond += line;
          }
          // the same float solve without the active-set recovery (Lemke's answer as it is)
          const std::vector<double> fx = sf->accel(), ff = sf->forces();
          sf->recovery = false;
          sf->solve(var, q, v, tau);
          sf->recovery = true;
          const bool plain_ok = sf->status == talus::Status::ok;
          double px = 1e300, pf = 1e300;  // a failed plain run counts as beyond
          if (plain_ok) {
            px = rel_err(sf->accel(), sd->accel()) / as.cond_ddq;
            pf = rel_err(sf->forces(), sd->forces(), kForceFloor) / std::max(as.cond_f, 1.0);
          }
          sf->solve(var, q, v, tau);  // back to the answer with the recovery (printed below)
          P.plain_ddq_k = std::max(P.plain_ddq_k, px);
          P.plain_f_k = std::max(P.plain_f_k, pf);
          if (!(px <= 32 * eps_f && pf <= 32 * eps_f)) {
            std::snprintf(line, sizeof line, " %d (q̈ %.2g = %.2g·tol, f %.2g = %.2g·tol)", s, px * as.cond_ddq,
                          px / (32 * eps_f), pf * std::max(as.cond_f, 1.0), pf / (32 * eps_f));
            P.plain_beyond += line;
          }
          if (args.verbose)
            std::printf(
                "   float without the active-set recovery: q̈ %.2g f %.2g; with it %.2g %.2g (recovery %s, %d unknowns, "
                "physical residual %.2g -> %.2g)\n",
                px * as.cond_ddq, pf * std::max(as.cond_f, 1.0), rel_err(fx, sd->accel()),
                rel_err(ff, sd->forces(), kForceFloor), sf->report.recovery.applied ? "applied" : "not applied",
                sf->report.recovery.active, static_cast<double>(sf->report.recovery.residual_lcp),
                static_cast<double>(sf->report.recovery.residual));
        } else {
          P.worst_ddq = std::max(P.worst_ddq, e_ddq);
          P.worst_f = std::max(P.worst_f, e_f);
          be = cone_backward_error(W, b, sf->forces());
          P.worst_be = std::max(P.worst_be, be);
          // the float problem's own error: W_f − W, b_f − b relative to max |W|, max |b|
          const Eigen::MatrixXd Wf = sf->cp->ws.D.topLeftCorner(12, 12).template cast<double>();
          const Eigen::VectorXd bf = sf->cp->ws.free.head(12).template cast<double>();
          const double eW = (Wf - W).cwiseAbs().maxCoeff() / W.cwiseAbs().maxCoeff(),
                       eb = (bf - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
          P.worst_in = std::max(P.worst_in, std::max(eW, eb));
          if (args.verbose)
            std::printf("   pgs float inputs: W %.3g b %.3g (eps_f units %.1f %.1f)\n", eW, eb, eW / eps_f, eb / eps_f);
        }
      }
      if (args.verbose) {
        std::printf(
            "state %2d %-6s %s %2d (float %s %2d)  margin %.3g  κ_q̈ %.3g κ_f %.3g  float err q̈ %.2g f %.2g%s%s\n", s,
            kVariantName[vi], talus::to_string(sd->status), sd->count(var), talus::to_string(sf->status),
            sf->count(var), as.margin, as.cond_ddq, as.cond_f, e_ddq, e_f,
            var == pgs ? (std::string("  backward err ") + std::to_string(be)).c_str() : "", as.text.c_str());
        if (var != pgs) {
          // Lemke's own accuracy: κ of the final basis, and float Lemke run on the double
          // LCP rounded to float (so the data's rounding is not counted): z's error (max norm,
          // relative; β of a sticking foot and Λ of a lifted one are not unique, so a different
          // path may differ there without being wrong)
          const int n = static_cast<int>(sd->cp->ws.q.size());
          const Eigen::MatrixXd Md = sd->cp->ws.M.topLeftCorner(n, n);
          const Eigen::VectorXd qd = sd->cp->ws.q, zd = sd->cp->ws.z;
          talus::LcpWorkspace<float, 24> wsf;
          talus::LcpReport<float> rf;
          talus::LcpWorkspace<float, 24>::Vector zf, wf;
          const Eigen::MatrixXf Mf = Md.cast<float>();
          const Eigen::VectorXf qf = qd.cast<float>();
          const talus::Status st = talus::solve_lcp_lemke(Mf, qf, zf, wf, wsf, talus::LcpOptions<float, 24>{}, rf);
          std::printf("   κ(basis) %.3g; float Lemke on the double LCP: %s, %d pivots, z err %.2g\n", basis_cond(*sd),
                      talus::to_string(st), rf.pivots,
                      (zf.cast<double>() - zd).cwiseAbs().maxCoeff() / zd.cwiseAbs().maxCoeff());
        }
      }
    }
  }
  if (!ok) return 1;

  // evidence for the float tolerances (contact_check.cpp), also written into the header
  for (int vi = 0; vi < kVariants; ++vi) {
    const PerVariant& P = pv[vi];
    if (vi != pgs) {
      std::snprintf(
          line, sizeof line,
          "//   %-6s Lemke: margin from degeneracy min %.3g; κ_q̈ max %.3g, κ_f max %.3g; active-set q̈ vs LCP %.2g\n",
          kVariantName[vi], P.min_margin, *std::max_element(P.cond_ddq.begin(), P.cond_ddq.end()),
          *std::max_element(P.cond_f.begin(), P.cond_f.end()), P.worst_check);
      notes += line;
      std::snprintf(
          line, sizeof line,
          "//   %-6s float: %d of %d ok, %d same pivots; within tolerance, worst rel err q̈ %.3g (%.3g eps_f·κ_q̈), f %.3g (%.3g eps_f·κ_f)\n",
          kVariantName[vi], P.float_ok, args.states, P.same_count, P.worst_ddq, P.worst_ddq_k / eps_f, P.worst_f,
          P.worst_f_k / eps_f);
      notes += line;
      std::snprintf(line, sizeof line, "//   %-6s float beyond 32·eps_f·κ (a wrong answer returned ok) at:%s\n",
                    kVariantName[vi], P.beyond.empty() ? " none" : P.beyond.c_str());
      notes += line;
      std::snprintf(
          line, sizeof line,
          "//   %-6s float active-set recovery applied at %d of %d states; without it: worst %.3g eps_f·κ_q̈, %.3g "
          "eps_f·κ_f, beyond 32·eps_f·κ at:%s\n",
          kVariantName[vi], P.recovered, args.states, P.plain_ddq_k / eps_f, P.plain_f_k / eps_f,
          P.plain_beyond.empty() ? " none" : P.plain_beyond.c_str());
    } else {
      std::snprintf(
          line, sizeof line,
          "//   %-6s PGS: float %d of %d ok, %d same sweeps; worst rel err q̈ %.3g, f %.3g; float f against the double "
          "(W, b): backward error %.3g = %.3g √eps_f\n",
          kVariantName[vi], P.float_ok, args.states, P.same_count, P.worst_ddq, P.worst_f, P.worst_be,
          P.worst_be / std::sqrt(eps_f));
    }
    notes += line;
    std::string st = "//   " + std::string(kVariantName[vi]) + " per state (double status count / float status count):";
    for (int s = 0; s < args.states; ++s) {
      std::snprintf(line, sizeof line, " %d:%s%d/%s%d", s,
                    P.status[s] ? talus::to_string(static_cast<talus::Status>(P.status[s])) : "", P.count[s],
                    P.fstatus[s] ? talus::to_string(static_cast<talus::Status>(P.fstatus[s])) : "", P.fcount[s]);
      st += line;
    }
    notes += st + "\n";
  }

  Writer w;
  // clang-format off
  w.raw("#pragma once\n// Generated at build time by talus_target_contact_reference (targets/host/contact_reference.cpp)\n"
        "// on the build machine, in double; do not edit. Seed " + std::to_string(args.seed) + ".\n\n"
        "namespace talus_target_contact_ref {\n\n");
  // clang-format on
#if defined(TALUS_REPRODUCIBLE) && !defined(EIGEN_VECTORIZE)
  w.raw("inline constexpr bool reproducible = true;\n\n");
#else
  w.raw("inline constexpr bool reproducible = false;\n\n");
#endif
  w.raw("// solo12, feet FL, FR, HL, HR as unilateral contacts (ground normal +z), forward_dynamics_contact\n");
  w.raw("struct solo12 {\n");
  w.raw("  static constexpr int nstates = " + std::to_string(args.states) + ", nq = " + std::to_string(nq) +
        ", nv = " + std::to_string(nv) + ", feet = 4, edges = " + std::to_string(kEdges) + ";\n");
  w.raw("  static constexpr double mu = ");
  w.number(kMu);
  w.raw(";\n  // inputs (must equal talus_target_ref::solo12's: contact_check.cpp checks it at compile time)\n");
  w.array2("q", Q);
  w.array2("v", V);
  w.array2("tau", T);
  const char* what[kVariants] = {"rest: v = 0, 4-edge polygons, ContactSolver::lemke",
                                 "moving: v of the state (every foot sliding), 4-edge polygons, ContactSolver::lemke",
                                 "pgs: v = 0, exact cones, ContactSolver::pgs (default options)"};
  for (int vi = 0; vi < kVariants; ++vi) {
    const PerVariant& P = pv[vi];
    const std::string n = kVariantName[vi];
    w.raw(std::string("  // ") + what[vi] + ": Status (talus::Status as int), " + (vi == pgs ? "sweeps" : "pivots") +
          ", q̈, forces (per foot f_n, f_t1, f_t2)\n");
    w.array1i(n + "_status", P.status);
    w.array1i(n + "_count", P.count);
    w.raw("  // the host's float run of the same (inputs rounded to float): Status, count\n");
    w.array1i(n + "_float_status", P.fstatus);
    w.array1i(n + "_float_count", P.fcount);
    w.array2(n + "_ddq", P.ddq);
    w.array2(n + "_f", P.f);
    if (vi != pgs) {
      w.raw("  // margin of the active set from degeneracy; κ_q̈, κ_f of the solution with that active set\n");
      w.array1(n + "_margin", P.margin);
      w.array1(n + "_cond_ddq", P.cond_ddq);
      w.array1(n + "_cond_f", P.cond_f);
    } else {
      w.raw("  // the exact-cone problem in double: W (12 x 12, column-major), b (12)\n");
      w.array2(n + "_W", P.W);
      w.array2(n + "_b", P.b);
    }
  }
  w.raw(
      "};\n\n}  // namespace talus_target_contact_ref\n\n// Host float run (inputs rounded to float), for the float tolerances:\n" +
      notes);
  std::fputs(notes.c_str(), stdout);

  return talus_target_ref_io::write_if_changed(args.out, w.text, "talus_target_contact_reference") ? 0 : 1;
}
