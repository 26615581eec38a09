// Exact-cone contact solvers (talus/contact/cone_solvers.hpp): PGS and ADMM. Suites:
// ReferenceCone (a point mass on a plane, analytic stick/slide/separate answers),
// ConsistencyCone (frictionless problems against Lemke on (W_nn, b_n), sticking problems
// against the linear solve W f = −b, random frictional problems against an independent
// check of Coulomb's law, warm start, iteration cap, float, bad inputs), AllocCone (no heap
// inside a solve). Every numerical answer is checked against something the solvers do not
// compute themselves.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include <Eigen/Cholesky>
#include <Eigen/SVD>
#include <gtest/gtest.h>

#include <talus/contact/cone_solvers.hpp>
#include <talus/contact/lcp_lemke.hpp>

#include "support/alloc_trap.hpp"

namespace {

using talus::ConeSolverExit;
using talus::ConeSolverOptions;
using talus::ConeSolverReport;
using talus::ConeSolverWorkspace;
using talus::Status;

constexpr int MaxC = 8;
using WS = ConeSolverWorkspace<double, MaxC>;
using Vec = WS::Vector;
using Mat = WS::Matrix;
using MuVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, MaxC, 1>;
using MatX = Eigen::MatrixXd;
using VecX = Eigen::VectorXd;

enum Method { pgs, admm };
const char* name(Method m) { return m == pgs ? "PGS" : "ADMM"; }

template <class S>
struct Result {
  Status s = Status::invalid_input;
  typename ConeSolverWorkspace<S, MaxC>::Vector f;
  ConeSolverReport<S> report;
};

template <class S, class DW, class DB, class DM>
Result<S> solve(Method m, const Eigen::MatrixBase<DW>& W, const Eigen::MatrixBase<DB>& b,
                const Eigen::MatrixBase<DM>& mu, const ConeSolverOptions<S>& o = {},
                const typename ConeSolverWorkspace<S, MaxC>::Vector* start = nullptr) {
  static ConeSolverWorkspace<S, MaxC> ws;
  Result<S> r;
  if (start) r.f = *start;
  r.s = m == pgs ? talus::solve_cone_pgs(W, b, mu, r.f, ws, o, r.report)
                 : talus::solve_cone_admm(W, b, mu, r.f, ws, o, r.report);
  return r;
}

// Coulomb's law contact by contact, directly (not through the De Saxcé form the solvers
// check): f in the cone; then separating (f = 0, σ_n ≥ 0), sticking (σ = 0) or sliding
// (σ_n = 0, ‖f_t‖ = μ f_n, f_t = −μ f_n σ_t/‖σ_t‖). Returns the counts of each case.
struct Cases {
  int separating = 0, sticking = 0, sliding = 0;
};
Cases expect_coulomb(const MatX& W, const VecX& b, const VecX& mu, const VecX& f, double tol) {
  Cases cases;
  const VecX sigma = W * f + b;
  const double sf = 1 + f.cwiseAbs().maxCoeff();
  const double ss = 1 + b.cwiseAbs().maxCoeff() + (W.cwiseAbs() * f.cwiseAbs()).maxCoeff();
  for (int i = 0; i < mu.size(); ++i) {
    const double fn = f(3 * i), sn = sigma(3 * i);
    const Eigen::Vector2d ft = f.segment<2>(3 * i + 1), st = sigma.segment<2>(3 * i + 1);
    EXPECT_GE(fn, -tol * sf) << "contact " << i;
    EXPECT_LE(ft.norm(), mu(i) * fn + tol * sf) << "contact " << i;
    if (f.segment<3>(3 * i).norm() <= tol * sf) {
      EXPECT_GE(sn, -tol * ss) << "separating contact " << i;
      ++cases.separating;
      continue;
    }
    EXPECT_NEAR(sn, 0.0, tol * ss) << "contact " << i << " pushes, so σ_n = 0";
    if (st.norm() <= std::sqrt(tol) * ss) {  // sticking (σ_t ≈ 0)
      EXPECT_LE(st.norm(), tol * ss * 1e3) << "contact " << i;
      ++cases.sticking;
    } else {  // sliding: on the boundary, opposite to the slip
      EXPECT_NEAR(ft.norm(), mu(i) * fn, tol * sf) << "sliding contact " << i;
      EXPECT_LE((ft + mu(i) * fn * st / st.norm()).norm(), tol * sf * ss / st.norm()) << "sliding contact " << i;
      ++cases.sliding;
    }
  }
  return cases;
}

// W = J P Jᵀ, J random 3nc × nv, P = A Aᵀ/nv + 0.1 I SPD (an inverse mass matrix), nv = 3nc + 6:
// W is SPD. Symmetrised exactly.
MatX random_delassus(int nc, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  const int nv = 3 * nc + 6;
  MatX J(3 * nc, nv), A(nv, nv);
  for (Eigen::Index k = 0; k < J.size(); ++k) J.data()[k] = u(rng);
  for (Eigen::Index k = 0; k < A.size(); ++k) A.data()[k] = u(rng);
  const MatX P = A * A.transpose() / nv + 0.1 * MatX::Identity(nv, nv);
  const MatX W = J * P * J.transpose();
  return (W + W.transpose()) / 2;
}

double cond(const MatX& W) {
  const VecX s = W.jacobiSvd().singularValues();
  return s(0) / s(s.size() - 1);
}

// ---------------------------------------------------------------------------------------------
// Reference: a point mass m on a horizontal plane, pushed tangentially.
//
// One contact, W = I/m, b = (−g, F cos θ / m, F sin θ / m) (free acceleration: gravity into the
// plane, the push F along (cos θ, sin θ)), σ = f/m + b the contact acceleration. The normal
// row must stop the fall: f_n = m g, σ_n = 0. Sticking needs σ_t = 0, f_t = −F (cos θ, sin θ),
// inside the cone iff F ≤ μ m g. Otherwise the mass slides: ‖f_t‖ = μ m g opposite to the
// push, f_t = −μ m g (cos θ, sin θ), and σ_t = (F − μ m g)/m (cos θ, sin θ) points along the
// push (friction opposes the motion). A pull away from the plane (b_n = +g) separates: f = 0.

template <class S>
void point_mass_case(Method method, double F, double theta, double bn_sign, double tol) {
  const double m = 2.0, g = 9.81, mu = 0.5;
  Eigen::Matrix<S, 3, 3> W = Eigen::Matrix<S, 3, 3>::Identity() * S(1 / m);
  Eigen::Matrix<S, 3, 1> b(S(bn_sign * g), S(F * std::cos(theta) / m), S(F * std::sin(theta) / m));
  Eigen::Matrix<S, 1, 1> muv;
  muv(0) = S(mu);
  const Result<S> r = solve<S>(method, W, b, muv);
  ASSERT_EQ(r.s, Status::ok) << name(method) << " F " << F << " " << talus::to_string(r.report.exit);
  double fn = 0, ft = 0;
  if (bn_sign > 0) {
    fn = 0, ft = 0;  // separating
  } else {
    fn = m * g;
    ft = F <= mu * m * g ? F : mu * m * g;  // stick: the push; slide: the cone's edge
  }
  EXPECT_NEAR(double(r.f(0)), fn, tol * m * g);
  EXPECT_NEAR(double(r.f(1)), bn_sign > 0 ? 0.0 : -ft * std::cos(theta), tol * m * g);
  EXPECT_NEAR(double(r.f(2)), bn_sign > 0 ? 0.0 : -ft * std::sin(theta), tol * m * g);
  std::printf("point mass %s %-5s F/(mu m g) %.2f b_n %+.0f g: %d iterations, residuals %.2g %.2g %.2g\n",
              sizeof(S) == 4 ? "float " : "double", name(method), F / (mu * m * g), bn_sign, r.report.iterations,
              double(r.report.primal_residual), double(r.report.dual_residual), double(r.report.complementarity));
}

TEST(ReferenceCone, PointMassStickSlideSeparate) {
  for (Method method : {pgs, admm}) {
    for (double ratio : {0.0, 0.3, 0.99, 1.01, 2.0, 10.0}) {
      const double F = ratio * 0.5 * 2.0 * 9.81;
      point_mass_case<double>(method, F, 0.7, -1, 1e-7);
      point_mass_case<float>(method, F, 0.7, -1, 2e-3);
    }
    point_mass_case<double>(method, 5.0, 0.3, +1, 1e-12);
  }
}

// ---------------------------------------------------------------------------------------------
// Consistency

// (a) μ = 0: the cone is the ray f_t = 0, f_n ≥ 0, so (NCP) is LCP(W_nn, b_n). W_nn is a
// principal submatrix of SPD W, so the LCP has a unique solution: Lemke's must match.
TEST(ConsistencyCone, FrictionlessAgainstLemke) {
  std::mt19937 rng(20250101);
  std::uniform_real_distribution<double> u(-1, 1);
  int max_it[2] = {0, 0};
  for (int nc = 1; nc <= MaxC; ++nc) {
    for (int trial = 0; trial < 10; ++trial) {
      const MatX W = random_delassus(nc, rng);
      VecX b(3 * nc);
      for (int k = 0; k < 3 * nc; ++k) b(k) = u(rng);
      const VecX mu = VecX::Zero(nc);
      MatX Wnn(nc, nc);
      VecX bn(nc);
      for (int i = 0; i < nc; ++i) {
        bn(i) = b(3 * i);
        for (int j = 0; j < nc; ++j) Wnn(i, j) = W(3 * i, 3 * j);
      }
      static talus::LcpWorkspace<double, MaxC> lws;
      talus::LcpWorkspace<double, MaxC>::Vector z, w;
      talus::LcpReport<double> lrep;
      ASSERT_EQ(talus::solve_lcp_lemke(Wnn, bn, z, w, lws, talus::LcpOptions<double, MaxC>{}, lrep), Status::ok);
      ConeSolverOptions<double> o;
      o.max_iterations = 2000;
      o.relative_tolerance = 1e-11;
      for (Method method : {pgs, admm}) {
        const Result<double> r = solve<double>(method, W, b, mu, o);
        ASSERT_EQ(r.s, Status::ok) << name(method) << " nc " << nc << " trial " << trial;
        max_it[method] = std::max(max_it[method], r.report.iterations);
        const double tol = 1e-9 * cond(Wnn) * (1 + z.cwiseAbs().maxCoeff());
        for (int i = 0; i < nc; ++i) {
          EXPECT_NEAR(r.f(3 * i), z(i), tol) << name(method) << " nc " << nc << " contact " << i;
          EXPECT_EQ(r.f(3 * i + 1), 0.0);
          EXPECT_EQ(r.f(3 * i + 2), 0.0);
        }
        expect_coulomb(W, b, mu, r.f, 1e-9);
      }
    }
  }
  std::printf("frictionless, nc 1..%d: most iterations PGS %d, ADMM %d (relative tolerance 1e-11)\n", MaxC, max_it[pgs],
              max_it[admm]);
}

// (c) Sticking: f* strictly inside the cones (μ ∈ [1, 2], ‖f*_t‖ ≤ 0.5 μ f*_n), b = −W f*, so
// σ = 0 at f*: the solution is the linear solve W f = −b (Eigen's LDLT here). PGS and ADMM
// must both find it, and agree with each other.
TEST(ConsistencyCone, StickingAgainstLinearSolve) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  int max_it[2] = {0, 0};
  double worst_cond = 0;
  for (int nc = 1; nc <= MaxC; ++nc) {
    for (int trial = 0; trial < 10; ++trial) {
      const MatX W = random_delassus(nc, rng);
      VecX mu(nc), fs(3 * nc);
      for (int i = 0; i < nc; ++i) {
        mu(i) = 1 + u(rng);
        fs(3 * i) = 1 + u(rng);
        const double r = 0.5 * mu(i) * fs(3 * i) * u(rng), a = 6.283 * u(rng);
        fs(3 * i + 1) = r * std::cos(a);
        fs(3 * i + 2) = r * std::sin(a);
      }
      const VecX b = -W * fs;
      const VecX lin = W.ldlt().solve(-b);
      const double c = cond(W);
      worst_cond = std::max(worst_cond, c);
      ConeSolverOptions<double> o;
      o.max_iterations = 20000;
      o.relative_tolerance = 1e-12;
      Vec f[2];
      for (Method method : {pgs, admm}) {
        const Result<double> r = solve<double>(method, W, b, mu, o);
        ASSERT_EQ(r.s, Status::ok) << name(method) << " nc " << nc << " trial " << trial << " cond " << c;
        max_it[method] = std::max(max_it[method], r.report.iterations);
        EXPECT_LE((VecX(r.f) - lin).cwiseAbs().maxCoeff(), 1e-10 * c * (1 + lin.cwiseAbs().maxCoeff()))
            << name(method) << " nc " << nc;
        const Cases cases = expect_coulomb(W, b, mu, r.f, 1e-9);
        EXPECT_EQ(cases.sticking, nc);
        f[method] = r.f;
      }
      EXPECT_LE((f[pgs] - f[admm]).cwiseAbs().maxCoeff(), 2e-10 * c * (1 + lin.cwiseAbs().maxCoeff()));
    }
  }
  std::printf("sticking, nc 1..%d (cond(W) up to %.3g): most iterations PGS %d, ADMM %d (rel. tol. 1e-12)\n", MaxC,
              worst_cond, max_it[pgs], max_it[admm]);
}

// A random frictional problem of nc contacts: W = random_delassus, b uniform in [-1, 1]
// (separating, sticking and sliding contacts mixed), μᵢ = 0.55 + 0.45 u, u uniform in [-1, 1].
struct FrictionalProblem {
  MatX W;
  VecX b, mu;
};
FrictionalProblem random_frictional(int nc, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  FrictionalProblem p{random_delassus(nc, rng), VecX(3 * nc), VecX(nc)};
  for (int k = 0; k < 3 * nc; ++k) p.b(k) = u(rng);
  for (int i = 0; i < nc; ++i) p.mu(i) = 0.55 + 0.45 * u(rng);
  return p;
}

// Random frictional problems (μ ∈ [0.1, 1], b random: separating, sticking and sliding
// contacts mixed): every ok answer satisfies Coulomb's law (checked directly); both methods
// converge on these, and agree when the solution is unique enough to compare.
TEST(ConsistencyCone, RandomFrictionalCoulombLaw) {
  std::mt19937 rng(7);
  Cases total;
  int ok[2] = {0, 0}, trials = 0, max_it[2] = {0, 0};
  double max_diff = 0;
  for (int nc = 1; nc <= MaxC; ++nc) {
    for (int trial = 0; trial < 20; ++trial) {
      ++trials;
      const auto [W, b, mu] = random_frictional(nc, rng);
      ConeSolverOptions<double> o;
      o.max_iterations = 5000;
      o.relative_tolerance = 1e-10;
      Vec f[2];
      for (Method method : {pgs, admm}) {
        const Result<double> r = solve<double>(method, W, b, mu, o);
        if (r.s != Status::ok) {
          EXPECT_EQ(r.s, Status::not_converged);
          EXPECT_TRUE(r.f.isZero(0.0));
          continue;
        }
        ++ok[method];
        max_it[method] = std::max(max_it[method], r.report.iterations);
        const Cases cases = expect_coulomb(W, b, mu, r.f, 1e-7);
        if (method == pgs) {
          total.separating += cases.separating;
          total.sticking += cases.sticking;
          total.sliding += cases.sliding;
        }
        f[method] = r.f;
      }
      if (f[pgs].size() && f[admm].size())
        max_diff = std::max(max_diff, (f[pgs] - f[admm]).cwiseAbs().maxCoeff() / (1 + f[pgs].cwiseAbs().maxCoeff()));
    }
  }
  std::printf(
      "random frictional: %d problems, ok PGS %d ADMM %d, most iterations PGS %d ADMM %d; contacts "
      "separating %d sticking %d sliding %d; largest PGS/ADMM difference %.2g\n",
      trials, ok[pgs], ok[admm], max_it[pgs], max_it[admm], total.separating, total.sticking, total.sliding, max_diff);
  EXPECT_GE(ok[pgs], trials * 9 / 10);
  EXPECT_GE(ok[admm], trials * 9 / 10);
  EXPECT_GT(total.sliding, 0);
  EXPECT_GT(total.sticking, 0);
  EXPECT_GT(total.separating, 0);
}

// (d) Warm start from the solution: the start already passes the check (0 iterations) or
// converges within 2; from a perturbed solution, fewer iterations than cold.
TEST(ConsistencyCone, WarmStart) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int nc : {1, 4, MaxC}) {
    const MatX W = random_delassus(nc, rng);
    VecX b(3 * nc), mu(nc);
    for (int k = 0; k < 3 * nc; ++k) b(k) = u(rng);
    for (int i = 0; i < nc; ++i) mu(i) = 0.8;
    for (Method method : {pgs, admm}) {
      ConeSolverOptions<double> o;
      o.max_iterations = 5000;
      const Result<double> cold = solve<double>(method, W, b, mu, o);
      ASSERT_EQ(cold.s, Status::ok) << name(method) << " nc " << nc;
      o.warm_start = true;
      const Result<double> warm = solve<double>(method, W, b, mu, o, &cold.f);
      ASSERT_EQ(warm.s, Status::ok);
      EXPECT_LE(warm.report.iterations, 2);
      EXPECT_LE((warm.f - cold.f).cwiseAbs().maxCoeff(), 1e-6 * (1 + cold.f.cwiseAbs().maxCoeff()));
      Vec near = cold.f;
      for (int k = 0; k < 3 * nc; ++k) near(k) += 1e-4 * u(rng);
      const Result<double> perturbed = solve<double>(method, W, b, mu, o, &near);
      ASSERT_EQ(perturbed.s, Status::ok);
      EXPECT_LE(perturbed.report.iterations, cold.report.iterations);
      std::printf("warm start %-4s nc %d: cold %d iterations, from the solution %d, from it + 1e-4 noise %d\n",
                  name(method), nc, cold.report.iterations, warm.report.iterations, perturbed.report.iterations);
    }
  }
}

// A frictional problem with 6 contacts that both solvers take more than a few iterations on
// (the iteration cap and the check interval are tested on it).
struct Problem {
  MatX W;
  VecX b, mu;
};
Problem slow_frictional_problem() {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  const int nc = 6;
  Problem p{random_delassus(nc, rng), VecX(3 * nc), VecX::Constant(nc, 0.6)};
  for (int k = 0; k < 3 * nc; ++k) p.b(k) = u(rng) - 0.5;
  return p;
}

// (e) Iteration cap: not_converged, iterations == cap, f zero, residuals of the last iterate.
TEST(ConsistencyCone, IterationCap) {
  const Problem p = slow_frictional_problem();
  const MatX& W = p.W;
  const VecX &b = p.b, &mu = p.mu;
  const int nc = static_cast<int>(mu.size());
  for (Method method : {pgs, admm}) {
    ConeSolverOptions<double> o;
    o.max_iterations = 5000;
    const Result<double> full = solve<double>(method, W, b, mu, o);
    ASSERT_EQ(full.s, Status::ok);
    ASSERT_GT(full.report.iterations, 3);
    for (int cap : {1, 3}) {
      o.max_iterations = cap;
      const Result<double> r = solve<double>(method, W, b, mu, o);
      EXPECT_EQ(r.s, Status::not_converged) << name(method);
      EXPECT_EQ(r.report.exit, ConeSolverExit::iteration_cap);
      EXPECT_EQ(r.report.iterations, cap);
      EXPECT_EQ(r.f.size(), 3 * nc);
      EXPECT_TRUE(r.f.isZero(0.0));
      EXPECT_GT(std::max({r.report.primal_residual, r.report.dual_residual, r.report.complementarity}), 0.0);
    }
  }
}

// (e') check_interval k: the same problem solves with the check after every k-th iteration
// and the last only: ok at an iteration count that is a multiple of k (or the cap), with an
// answer that passes the check and agrees with the every-iteration answer; with a cap that
// is not a multiple of k the last iteration is still checked (the report holds its residuals).
TEST(ConsistencyCone, CheckInterval) {
  const Problem p = slow_frictional_problem();
  const MatX& W = p.W;
  const VecX &b = p.b, &mu = p.mu;
  for (Method method : {pgs, admm}) {
    ConeSolverOptions<double> o;
    o.max_iterations = 5000;
    const Result<double> every = solve<double>(method, W, b, mu, o);
    ASSERT_EQ(every.s, Status::ok);
    ASSERT_NE(every.report.iterations % 4, 0);  // else a solver ignoring the interval would pass
    o.check_interval = 4;
    const Result<double> sparse = solve<double>(method, W, b, mu, o);
    ASSERT_EQ(sparse.s, Status::ok) << name(method);
    EXPECT_EQ(sparse.report.iterations % 4, 0) << name(method);
    EXPECT_LE(sparse.report.evidence().value, 1.0);
    (void)expect_coulomb(W, b, mu, sparse.f, 1e-7);
    EXPECT_LE((sparse.f - every.f).cwiseAbs().maxCoeff(), 1e-5 * (1 + every.f.cwiseAbs().maxCoeff())) << name(method);
    o.max_iterations = 3;  // not a multiple of 4: checked at the cap
    const Result<double> capped = solve<double>(method, W, b, mu, o);
    EXPECT_EQ(capped.s, Status::not_converged);
    EXPECT_EQ(capped.report.iterations, 3);
    EXPECT_GT(capped.report.evidence().value, 1.0);
    if (method == admm) {  // ρ adapts only after a checked iteration: one factorization per check at most
      EXPECT_LE(sparse.report.refactorizations, 1 + sparse.report.iterations / 4);
      EXPECT_EQ(capped.report.refactorizations, 1);
      std::printf("ADMM refactorizations: every iteration checked %d, every 4th %d, capped at 3 %d\n",
                  every.report.refactorizations, sparse.report.refactorizations, capped.report.refactorizations);
    }
    std::printf("check_interval %-4s: every iteration %d iterations, every 4th %d\n", name(method),
                every.report.iterations, sparse.report.iterations);
  }
}

// (g) float: the sticking and frictionless problems in float, against the double answers.
// ConeSolverReport's evidence (status.hpp, issue 26 item 4): each residual against its own
// tolerance, recomputed here from f (σ = W f + b by Eigen; distances to K_μ and K_μ* in closed
// form; tolerances τ_r s_f, τ_r s_σ, τ_r s_f s_σ): on ok every residual ≤ its tolerance and
// evidence() = (largest ratio ≤ 1, 1); at the iteration cap the evidence is above 1.
// Distance of (n, ‖t‖) to {c_t ‖t‖ ≤ c_n n}: K_μ is (c_n, c_t) = (μ, 1), K_μ* is (1, μ).
double cone_dist(double n, double t, double cn, double ct) {
  if (ct * t <= cn * n) return 0;
  if (cn * t <= -ct * n) return std::hypot(n, t);
  return (ct * t - cn * n) / std::hypot(cn, ct);
}

TEST(ConsistencyCone, EveryOkStatesItsResidualsAndTolerances) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1, 1);
  const double eps = std::numeric_limits<double>::epsilon();
  double worst = 0;
  int solved = 0;
  for (int nc = 1; nc <= MaxC; ++nc) {
    for (int trial = 0; trial < 8; ++trial) {
      const auto [W, b, mu] = random_frictional(nc, rng);
      ConeSolverOptions<double> o;
      o.max_iterations = 5000;
      for (Method method : {pgs, admm}) {
        const Result<double> r = solve<double>(method, W, b, mu, o);
        if (r.s != Status::ok) continue;
        SCOPED_TRACE(testing::Message() << name(method) << " nc " << nc << " trial " << trial);
        const VecX f = r.f, sigma = W * f + b;
        const double sf = f.cwiseAbs().maxCoeff(), ss = (b.cwiseAbs() + W.cwiseAbs() * f.cwiseAbs()).maxCoeff();
        double p = 0, d = 0, c = 0;
        for (int i = 0; i < nc; ++i) {
          const double st = sigma.segment<2>(3 * i + 1).norm(), sn = sigma(3 * i) + mu(i) * st;
          p = std::max(p, cone_dist(f(3 * i), f.segment<2>(3 * i + 1).norm(), mu(i), 1));
          d = std::max(d, cone_dist(sn, st, 1, mu(i)));
          c = std::max(c, std::abs(f(3 * i) * sn + f.segment<2>(3 * i + 1).dot(sigma.segment<2>(3 * i + 1))));
        }
        const auto& rep = r.report;
        const double tr = o.relative_tolerance, n = 3 * nc;
        EXPECT_NEAR(rep.primal_tolerance, tr * sf, 4 * eps * tr * sf);
        EXPECT_NEAR(rep.dual_tolerance, tr * ss, 4 * n * eps * tr * ss);
        EXPECT_NEAR(rep.complementarity_tolerance, tr * sf * ss, 4 * n * eps * tr * sf * ss);
        EXPECT_NEAR(rep.primal_residual, p, 4 * n * eps * (1 + sf));
        EXPECT_NEAR(rep.dual_residual, d, 4 * n * eps * ss);
        EXPECT_NEAR(rep.complementarity, c, 4 * n * eps * sf * ss);
        EXPECT_LE(rep.primal_residual, rep.primal_tolerance);
        EXPECT_LE(rep.dual_residual, rep.dual_tolerance);
        EXPECT_LE(rep.complementarity, rep.complementarity_tolerance);
        const auto e = rep.evidence();
        EXPECT_EQ(e.tolerance, 1.0);
        EXPECT_GE(e.value, 0.0);
        EXPECT_LE(e.value, e.tolerance);
        const auto ratio = [](double r_, double t_) { return r_ > 0 ? r_ / t_ : 0.0; };
        EXPECT_EQ(e.value, std::max({ratio(rep.primal_residual, rep.primal_tolerance),
                                     ratio(rep.dual_residual, rep.dual_tolerance),
                                     ratio(rep.complementarity, rep.complementarity_tolerance)}));
        worst = std::max(worst, e.value);
        ++solved;
      }
    }
  }
  std::printf("%d solves: largest residual / tolerance %.3g\n", solved, worst);
  EXPECT_GT(solved, 50);
  // the iteration cap: refused, the evidence above its tolerance
  const MatX W = random_delassus(6, rng);
  VecX b(18);
  for (int k = 0; k < 18; ++k) b(k) = u(rng) - 0.5;
  const VecX mu = VecX::Constant(6, 0.6);
  for (Method method : {pgs, admm}) {
    ConeSolverOptions<double> o;
    o.max_iterations = 1;
    const Result<double> r = solve<double>(method, W, b, mu, o);
    EXPECT_EQ(r.s, Status::not_converged) << name(method);
    EXPECT_GT(r.report.evidence().value, 1.0) << name(method);
    EXPECT_EQ(r.report.evidence().tolerance, 1.0) << name(method);
  }
}

TEST(ConsistencyCone, Float) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  int max_it[2] = {0, 0};
  for (int nc = 1; nc <= 4; ++nc) {
    for (int trial = 0; trial < 5; ++trial) {
      const MatX W = random_delassus(nc, rng);
      VecX mu(nc), fs(3 * nc);
      for (int i = 0; i < nc; ++i) {
        mu(i) = 1 + u(rng);
        fs(3 * i) = 1 + u(rng);
        fs(3 * i + 1) = 0.3 * mu(i) * fs(3 * i) * u(rng);
        fs(3 * i + 2) = -0.3 * mu(i) * fs(3 * i) * u(rng);
      }
      const VecX b = -W * fs;
      const Eigen::MatrixXf Wf = W.cast<float>();
      const Eigen::VectorXf bf = b.cast<float>(), muf = mu.cast<float>();
      ConeSolverOptions<float> o;
      o.max_iterations = 20000;
      for (Method method : {pgs, admm}) {
        const Result<float> r = solve<float>(method, Wf, bf, muf, o);
        ASSERT_EQ(r.s, Status::ok) << name(method) << " nc " << nc << " " << talus::to_string(r.report.exit);
        max_it[method] = std::max(max_it[method], r.report.iterations);
        EXPECT_LE((r.f.cast<double>() - fs).cwiseAbs().maxCoeff(), 1e-3 * cond(W) * (1 + fs.cwiseAbs().maxCoeff()))
            << name(method) << " nc " << nc;
      }
    }
  }
  std::printf("float sticking, nc 1..4: most iterations PGS %d, ADMM %d (default tolerance)\n", max_it[pgs],
              max_it[admm]);
}

// (f) Bad inputs: the status, the exit, and f zero (3nc entries, none beyond the capacity).
TEST(ConsistencyCone, BadInput) {
  const Mat W = Mat::Identity(6, 6);
  Vec b(6);
  b << -1, 0.5, 0, -1, 0, 0.2;
  MuVec mu(2);
  mu << 0.5, 0.5;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  auto expect = [](const Result<double>& r, Status s, Eigen::Index size, const char* what) {
    EXPECT_EQ(r.s, s) << what;
    EXPECT_EQ(r.f.size(), size) << what;
    EXPECT_TRUE(r.f.isZero(0.0)) << what;
  };
  for (Method m : {pgs, admm}) {
    ASSERT_EQ(solve<double>(m, W, b, mu).s, Status::ok);
    for (double bad : {nan, inf, -inf, 2e9}) {
      Mat Wb = W;
      Wb(1, 0) = Wb(0, 1) = bad;
      expect(solve<double>(m, Wb, b, mu), Status::invalid_input, 6, "W entry");
      Mat Wu = W;
      Wu(0, 2) = bad;  // one entry of a pair, above the diagonal: the check reads both
      expect(solve<double>(m, Wu, b, mu), Status::invalid_input, 6, "W upper entry");
      Vec bb = b;
      bb(2) = bad;
      expect(solve<double>(m, W, bb, mu), Status::invalid_input, 6, "b entry");
      MuVec mb = mu;
      mb(1) = bad;
      expect(solve<double>(m, W, b, mb), Status::invalid_input, 6, "mu entry");
    }
    MuVec mneg = mu;
    mneg(0) = -0.1;
    expect(solve<double>(m, W, b, mneg), Status::invalid_input, 6, "mu < 0");
    Mat Wa = W;
    Wa(0, 1) = 0.5;  // not symmetric
    expect(solve<double>(m, Wa, b, mu), Status::invalid_input, 6, "W not symmetric");
    expect(solve<double>(m, MatX::Identity(6, 5), b, mu), Status::invalid_input, 6, "W not square");
    expect(solve<double>(m, MatX::Identity(9, 9), b, mu), Status::invalid_input, 6, "W not 3nc");
    expect(solve<double>(m, W, VecX::Ones(5), mu), Status::invalid_input, 6, "b size");
    expect(solve<double>(m, W, b, VecX::Ones(3)), Status::invalid_input, 9, "mu size");
    const int big = MaxC + 1;
    expect(solve<double>(m, MatX::Identity(3 * big, 3 * big), -VecX::Ones(3 * big), VecX::Ones(big)),
           Status::capacity_exceeded, 0, "nc > MaxC");
    ConeSolverOptions<double> o;
    o.max_iterations = 0;
    expect(solve<double>(m, W, b, mu, o), Status::invalid_input, 6, "max_iterations 0");
    o = {};
    o.check_interval = 0;
    expect(solve<double>(m, W, b, mu, o), Status::invalid_input, 6, "check_interval 0");
    for (double bad : {-1e-9, nan}) {
      o = {};
      o.absolute_tolerance = bad;
      expect(solve<double>(m, W, b, mu, o), Status::invalid_input, 6, "absolute_tolerance");
      o = {};
      o.relative_tolerance = bad;
      expect(solve<double>(m, W, b, mu, o), Status::invalid_input, 6, "relative_tolerance");
      o = {};
      o.rho = bad;
      expect(solve<double>(m, W, b, mu, o), Status::invalid_input, 6, "rho");
    }
    for (double w : {0.0, 2.0, nan}) {
      o = {};
      o.over_relaxation = w;
      expect(solve<double>(m, W, b, mu, o), Status::invalid_input, 6, "over_relaxation");
    }
    o = {};
    o.rho_update_factor = 0.5;
    expect(solve<double>(m, W, b, mu, o), Status::invalid_input, 6, "rho_update_factor");
    o = {};
    o.rho_update_ratio = 0.5;
    expect(solve<double>(m, W, b, mu, o), Status::invalid_input, 6, "rho_update_ratio");
    o = {};
    o.warm_start = true;
    Vec start = Vec::Ones(5);
    expect(solve<double>(m, W, b, mu, o, &start), Status::invalid_input, 6, "warm start size");
    start = Vec::Ones(6);
    start(3) = nan;
    expect(solve<double>(m, W, b, mu, o, &start), Status::invalid_input, 6, "warm start NaN");
    // nc = 0: ok, empty
    const Result<double> e = solve<double>(m, MatX(0, 0), VecX(0), VecX(0));
    EXPECT_EQ(e.s, Status::ok);
    EXPECT_EQ(e.f.size(), 0);
  }
  // PGS: a zero diagonal block is singular (the rows of a contact whose Jacobian is zero);
  // with μ = 0 only W_nn must be > 0 (frictionless rows with zero tangent rows are fine).
  Mat Ws = W;
  Ws(4, 4) = 0;
  expect(solve<double>(pgs, Ws, b, mu), Status::singular, 6, "PGS zero tangent diagonal");
  MuVec mu0 = mu;
  mu0(1) = 0;
  EXPECT_EQ(solve<double>(pgs, Ws, b, mu0).s, Status::ok);
  Ws(3, 3) = 0;
  expect(solve<double>(pgs, Ws, b, mu0), Status::singular, 6, "PGS zero normal diagonal");
  // ADMM: W not PSD → W + ρI not positive definite
  expect(solve<double>(admm, Mat(-Mat::Identity(6, 6)), b, mu), Status::singular, 6, "ADMM W negative definite");
}

// ---------------------------------------------------------------------------------------------
// (h) Alloc: no heap inside a solve (fixed-capacity W, b, μ, f; cold, warm, capped, bad).

TEST(AllocCone, NoHeapInSolve) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  const Mat W = random_delassus(MaxC, rng);
  Vec b(3 * MaxC);
  for (int k = 0; k < 3 * MaxC; ++k) b(k) = u(rng);
  MuVec mu = MuVec::Constant(MaxC, 0.7);
  static WS ws;
  Vec f;
  ConeSolverReport<double> rep;
  for (Method m : {pgs, admm}) {
    ConeSolverOptions<double> o;
    o.max_iterations = 5000;
    Status s = Status::invalid_input;
    auto run = [&] {
      s = m == pgs ? talus::solve_cone_pgs(W, b, mu, f, ws, o, rep) : talus::solve_cone_admm(W, b, mu, f, ws, o, rep);
    };
    EXPECT_EQ(talus_test::heap_calls(run), 0u) << name(m);
    EXPECT_EQ(s, Status::ok) << name(m);
    o.warm_start = true;
    EXPECT_EQ(talus_test::heap_calls(run), 0u);
    EXPECT_EQ(s, Status::ok);
    o.warm_start = false;
    o.max_iterations = 1;
    EXPECT_EQ(talus_test::heap_calls(run), 0u);
    EXPECT_EQ(s, Status::not_converged);
    mu(0) = -1;
    EXPECT_EQ(talus_test::heap_calls(run), 0u);
    EXPECT_EQ(s, Status::invalid_input);
    mu(0) = 0.7;
  }
}

}  // namespace
