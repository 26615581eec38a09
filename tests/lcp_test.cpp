// Lemke's LCP solver (talus/contact/lcp_lemke.hpp). Suites: ReferenceLcp (literature problems
// with known answers, Kostreva's cycling example, no-solution rays), ConsistencyLcp (random
// P-matrix and SPD problems against a brute-force enumeration of the complementary bases,
// float, regularization, bad inputs), AllocLcp (no heap inside a solve).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/SVD>
#include <Eigen/LU>
#include <gtest/gtest.h>

#include <talus/contact/lcp_lemke.hpp>

#include "support/alloc_trap.hpp"
#include "support/lcp_reference.hpp"

namespace {

using talus::LcpExit;
using talus::LcpOptions;
using talus::LcpRegularization;
using talus::LcpReport;
using talus::LcpWorkspace;
using talus::Status;

constexpr int N = 12;
using WS = LcpWorkspace<double, N>;
using Vec = WS::Vector;
using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, N, N>;
using MatX = Eigen::MatrixXd;
using VecX = Eigen::VectorXd;

struct Result {
  Status s;
  Vec z, w;
  LcpReport<double> report;
};

Result solve(const MatX& M, const VecX& q, const LcpOptions<double, N>& o = {}) {
  static WS ws;
  Result r;
  r.s = talus::solve_lcp_lemke(M, q, r.z, r.w, ws, o, r.report);
  return r;
}

// The LCP conditions, independently of the solver's own check.
void expect_lcp_solution(const MatX& M, const VecX& q, const VecX& z, double tol) {
  const VecX w = M * z + q;
  const double s = 1 + q.cwiseAbs().maxCoeff() + M.cwiseAbs().maxCoeff() * z.cwiseAbs().maxCoeff() * double(q.size());
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    EXPECT_GE(z(i), 0.0) << "i " << i;
    EXPECT_GE(w(i), -tol * s) << "i " << i;
    EXPECT_LE(std::abs(z(i) * w(i)), tol * s * (1 + z.cwiseAbs().maxCoeff())) << "i " << i;
  }
}

// Brute force: every complementary basis α (z_α basic, w the rest), M_αα z_α = −q_α by
// Eigen's full-pivoting LU; the first feasible one (unique for a P-matrix).
bool brute_force(const MatX& M, const VecX& q, VecX& z) {
  const int n = static_cast<int>(q.size());
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<int> a;
    for (int i = 0; i < n; ++i)
      if (mask & (1u << i)) a.push_back(i);
    const int k = static_cast<int>(a.size());
    z.setZero(n);
    if (k > 0) {
      MatX Ma(k, k);
      VecX qa(k);
      for (int i = 0; i < k; ++i) {
        qa(i) = -q(a[i]);
        for (int j = 0; j < k; ++j) Ma(i, j) = M(a[i], a[j]);
      }
      Eigen::FullPivLU<MatX> lu(Ma);
      if (!lu.isInvertible()) continue;
      const VecX za = lu.solve(qa);
      for (int i = 0; i < k; ++i) z(a[i]) = za(i);
    }
    const VecX w = M * z + q;
    const double tol = 1e-10 * (1 + q.cwiseAbs().maxCoeff());
    if (z.minCoeff() >= -tol && w.minCoeff() >= -tol) return true;
  }
  return false;
}

// Lemke with the tie broken by the FIRST row of the minimum ratio (Drake's MobyLCPSolver
// rule), dense tableau [I −M −d | q]. Returns the pivots until z0 left, or -1 if a basis
// repeated (a cycle), -2 on a ray, -3 at the cap.
int first_index_lemke(const MatX& M, const VecX& q, int cap, std::vector<std::vector<int>>* trace = nullptr) {
  const int n = static_cast<int>(q.size());
  MatX T = MatX::Zero(n, 2 * n + 2);
  T.leftCols(n).setIdentity();
  T.middleCols(n, n) = -M;
  T.col(2 * n).setConstant(-1.0);
  T.col(2 * n + 1) = q;
  std::vector<int> basis(n);
  for (int i = 0; i < n; ++i) basis[i] = i;
  auto pivot = [&](int r, int c) {
    T.row(r) /= T(r, c);
    for (int i = 0; i < n; ++i)
      if (i != r) T.row(i) -= T(i, c) * T.row(r);
    const int leaving = basis[r];
    basis[r] = c;
    return leaving;
  };
  int r = 0;
  for (int i = 1; i < n; ++i)
    if (q(i) < q(r)) r = i;  // first index among ties
  int leaving = pivot(r, 2 * n);
  std::set<std::vector<int>> seen;
  for (int p = 1; p < cap; ++p) {
    std::vector<int> key = basis;
    std::sort(key.begin(), key.end());
    if (trace) trace->push_back(basis);
    if (!seen.insert(key).second) return -1;
    const int c = leaving < n ? leaving + n : leaving - n;
    r = -1;
    double best = 0;
    for (int i = 0; i < n; ++i) {
      if (T(i, c) <= 1e-12) continue;
      const double t = T(i, 2 * n + 1) / T(i, c);
      if (r < 0 || t < best - 1e-12) {
        r = i;
        best = t;
      }  // strict: the first row keeps a tie
    }
    if (r < 0) return -2;
    leaving = pivot(r, c);
    if (leaving == 2 * n) return p + 1;
  }
  return -3;
}

MatX mat(int n, std::initializer_list<double> v) {
  MatX M(n, n);
  auto it = v.begin();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) M(i, j) = *it++;
  return M;
}

// ---------------------------------------------------------------------------------------------
// Reference problems

// Kostreva (1979), the cycling example (also Drake's lcp_test CyclingExample): a first-index
// tie rule cycles, the lexicographic rule reaches the unique solution z = (1/3, 1/3, 1/3), w = 0.
TEST(ReferenceLcp, KostrevaCyclingExample) {
  const MatX M = mat(3, {1, 2, 0, 0, 1, 2, 2, 0, 1});
  const VecX q = -VecX::Ones(3);
  std::vector<std::vector<int>> trace;
  const int first_index = first_index_lemke(M, q, 100, &trace);
  std::printf("first-index rule on Kostreva's example: %s after %zu bases\n",
              first_index == -1 ? "CYCLES (a basis repeats)" : "terminates", trace.size());
  EXPECT_EQ(first_index, -1) << "the first-index tie rule should cycle on Kostreva's example";
  const Result r = solve(M, q);
  ASSERT_EQ(r.s, Status::ok) << talus::to_string(r.report.exit);
  std::printf("lexicographic rule: %d pivots, residual %.3g\n", r.report.pivots, r.report.residual);
  EXPECT_LE(r.report.pivots, 10);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(r.z(i), 1.0 / 3.0, 1e-14);
    EXPECT_NEAR(r.w(i), 0.0, 1e-14);
  }
  EXPECT_EQ(r.report.exit, LcpExit::solved);
}

// Every permutation of Kostreva's problem (the rule must not depend on row order to terminate).
TEST(ReferenceLcp, KostrevaPermuted) {
  const MatX M0 = mat(3, {1, 2, 0, 0, 1, 2, 2, 0, 1});
  int p[3] = {0, 1, 2};
  do {
    Eigen::PermutationMatrix<3> P;
    P.indices() << p[0], p[1], p[2];
    const MatX M = P * M0 * P.transpose();
    const Result r = solve(M, -VecX::Ones(3));
    ASSERT_EQ(r.s, Status::ok);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.z(i), 1.0 / 3.0, 1e-14);
  } while (std::next_permutation(p, p + 3));
}

// 2 × 2 SPD, worked by hand: M = [2 1; 1 2], q = (−5, −6): both z basic, z = (4/3, 7/3), w = 0.
TEST(ReferenceLcp, TwoByTwoSpd) {
  const Result r = solve(mat(2, {2, 1, 1, 2}), VecX::Map(std::vector<double>{-5, -6}.data(), 2));
  ASSERT_EQ(r.s, Status::ok);
  EXPECT_NEAR(r.z(0), 4.0 / 3.0, 1e-14);
  EXPECT_NEAR(r.z(1), 7.0 / 3.0, 1e-14);
  EXPECT_NEAR(r.w.cwiseAbs().maxCoeff(), 0.0, 1e-14);
  std::printf("[2 1; 1 2], q (-5, -6): %d pivots\n", r.report.pivots);
}

// The upper-triangular P-matrix of Murty's (1978) complexity examples (1 on the diagonal, 2
// above), here with q = −e: unique solution z = eₙ (w = (1, …, 1, 0)); the lexicographic first
// pivot picks row n, so 2 pivots (printed). Not Murty's exponential right-hand side.
TEST(ReferenceLcp, MurtyTriangular) {
  for (int n = 1; n <= N; ++n) {
    MatX M = MatX::Zero(n, n);
    for (int i = 0; i < n; ++i) {
      M(i, i) = 1;
      for (int j = i + 1; j < n; ++j) M(i, j) = 2;
    }
    const Result r = solve(M, -VecX::Ones(n));
    ASSERT_EQ(r.s, Status::ok) << "n " << n;
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(r.z(i), i == n - 1 ? 1.0 : 0.0, 1e-13);
      EXPECT_NEAR(r.w(i), i == n - 1 ? 0.0 : 1.0, 1e-13);
    }
    std::printf("Murty n=%d: %d pivots\n", n, r.report.pivots);
  }
}

// check_lcp_guess on the 2 × 2 SPD problem above (solution z = (4/3, 7/3), w = 0): the exact
// answer is accepted with exit guess and no pivot; a guess off by 1e-3 in one entry, a guess
// with the wrong active set (z₂ = 0: w₂ = −6 + 4/3... < 0), a negative guess and a non-finite
// one are refused (outputs zero); a guess of the wrong size is invalid_input; no heap.
TEST(ReferenceLcp, GuessAcceptedOnlyWhenItSolves) {
  static WS ws;
  const Mat M = mat(2, {2, 1, 1, 2});
  Vec q(2);
  q << -5, -6;
  const LcpOptions<double, N> o;
  auto run = [&](const Vec& g, Vec& z, Vec& w, LcpReport<double>& rep) {
    z.setConstant(2, 7.0);
    w.setConstant(2, 7.0);
    Status s = Status::ok;
    const std::size_t calls = talus_test::heap_calls([&] { s = talus::check_lcp_guess(M, q, g, z, w, ws, o, rep); });
    EXPECT_EQ(calls, 0u);
    return s;
  };
  Vec z, w, g(2);
  LcpReport<double> rep;
  g << 4.0 / 3.0, 7.0 / 3.0;
  ASSERT_EQ(run(g, z, w, rep), Status::ok);
  EXPECT_EQ(rep.exit, LcpExit::guess);
  EXPECT_EQ(rep.pivots, 0);
  EXPECT_NEAR(z(0), 4.0 / 3.0, 1e-15);
  EXPECT_NEAR(w.cwiseAbs().maxCoeff(), 0.0, 1e-14);
  const double bad[4][2] = {{4.0 / 3.0 + 1e-3, 7.0 / 3.0}, {2.5, 0.0}, {-1.0, 3.5}, {std::nan(""), 1.0}};
  for (int k = 0; k < 4; ++k) {
    g << bad[k][0], bad[k][1];
    const Status s = run(g, z, w, rep);
    EXPECT_NE(s, Status::ok) << k;
    EXPECT_EQ(z, Vec::Zero(2)) << k;
    EXPECT_EQ(w, Vec::Zero(2)) << k;
    EXPECT_EQ(rep.pivots, 0) << k;
  }
  Vec g3 = Vec::Ones(3);
  EXPECT_EQ(run(g3, z, w, rep), Status::invalid_input);
  EXPECT_EQ(rep.exit, LcpExit::invalid_input);
  EXPECT_EQ(z, Vec::Zero(2));
}

// Trivial: q ≥ 0 → z = 0, w = q, no pivot.
// The covering vector decides whether Lemke's path ends on a ray (the phenomenon of Murty's
// Example 2.11, solved with d = (1, 0) and ray-terminating with d = (5, 16); the LCP below is
// derived here, not Murty's). M = [−3 1; −1 0], q = (−1, 1), i.e. w − M z − d z₀ = q:
//   row 1: w₁ + 3 z₁ − z₂ − d₁ z₀ = −1,   row 2: w₂ + z₁ − d₂ z₀ = 1.
// z₀ enters, w₁ leaves (the only qᵢ < 0): z₀ = (1 + 3 z₁ − z₂)/d₁. z₁ enters (w₁'s
// complement): w₂ = 1 + d₂/d₁ + (3 d₂/d₁ − 1) z₁. If d₂/d₁ > 1/3 nothing blocks z₁: a ray
// (all ones, talus's retries d₂/d₁ = 1.5 and 0.75, and d = (5, 16)). With d = (1, 0) (Drake's
// rule: 1 where qᵢ < 0) w₂ = 1 − z₁ blocks at z₁ = 1; z₂ enters, z₀ = 4 − z₂ leaves at z₂ = 4:
// z = (1, 4), w = (−3 + 4 − 1, −1 + 1) = 0, in 3 pivots (z₀'s entry counted).
TEST(ReferenceLcp, CoveringVectorWithZerosSolvesWhereEveryPositiveOneRays) {
  const MatX M = mat(2, {-3, 1, -1, 0});
  const VecX q = VecX::Map(std::vector<double>{-1, 1}.data(), 2);
  const Result plain = solve(M, q);  // ones, then both retries, all rays
  EXPECT_EQ(plain.s, Status::singular);
  EXPECT_EQ(plain.report.exit, LcpExit::ray);
  EXPECT_EQ(plain.report.attempts, 3);
  EXPECT_TRUE(plain.z.isZero(0.0) && plain.w.isZero(0.0));
  LcpOptions<double, N> o;
  o.retry_covering = false;
  o.covering = Vec::Zero(2);
  o.covering << 5, 16;
  const Result murty = solve(M, q, o);
  EXPECT_EQ(murty.s, Status::singular);
  EXPECT_EQ(murty.report.exit, LcpExit::ray);
  o.covering << 1, 0;
  for (int rule = 0; rule < 2; ++rule) {  // the vector (1, 0), then covering_negative_q
    if (rule == 1) {
      o.covering.resize(0);
      o.covering_negative_q = true;
    }
    const Result r = solve(M, q, o);
    ASSERT_EQ(r.s, Status::ok) << rule;
    EXPECT_EQ(r.report.exit, LcpExit::solved);
    EXPECT_EQ(r.report.pivots, 3);
    EXPECT_NEAR(r.z(0), 1.0, 1e-15);
    EXPECT_NEAR(r.z(1), 4.0, 1e-15);
    EXPECT_NEAR(r.w.cwiseAbs().maxCoeff(), 0.0, 1e-15);
    expect_lcp_solution(M, q, r.z, 1e-14);
  }
  // Drake's rule on a P-matrix problem with some qᵢ ≥ 0: the unique solution, as with ones
  const MatX P = mat(3, {4, 1, 0, 1, 3, 1, 0, 1, 2});
  const VecX qp = VecX::Map(std::vector<double>{-1, 2, -3}.data(), 3);
  LcpOptions<double, N> od;
  od.covering_negative_q = true;
  const Result a = solve(P, qp), b = solve(P, qp, od);
  ASSERT_EQ(a.s, Status::ok);
  ASSERT_EQ(b.s, Status::ok);
  EXPECT_LE((a.z - b.z).cwiseAbs().maxCoeff(), 1e-14);
  expect_lcp_solution(P, qp, b.z, 1e-14);
}

TEST(ReferenceLcp, Trivial) {
  const VecX q = VecX::Map(std::vector<double>{1, 0, 2}.data(), 3);
  const Result r = solve(-MatX::Identity(3, 3), q);
  ASSERT_EQ(r.s, Status::ok);
  EXPECT_EQ(r.report.exit, LcpExit::trivial);
  EXPECT_EQ(r.report.pivots, 0);
  EXPECT_EQ(r.z, Vec::Zero(3));
  EXPECT_EQ(VecX(r.w), q);
}

// No solution: the LCP is infeasible, Lemke ends on a secondary ray → singular, zero outputs.
// (1) M = −I, q = −e: w = −z − e < 0 for every z ≥ 0. (2) M = [1 −1; −1 1] (PSD, so a ray
// proves infeasibility), q = −e: w₁ + w₂ = −2 < 0. (3) M = 0, q = (−1, 1).
TEST(ReferenceLcp, NoSolutionRay) {
  const MatX Ms[3] = {-MatX::Identity(2, 2), mat(2, {1, -1, -1, 1}), MatX::Zero(2, 2)};
  const VecX qs[3] = {-VecX::Ones(2), -VecX::Ones(2), VecX::Map(std::vector<double>{-1, 1}.data(), 2)};
  for (int k = 0; k < 3; ++k) {
    for (auto reg : {LcpRegularization::none, LcpRegularization::on_failure, LcpRegularization::always}) {
      LcpOptions<double, N> o;
      o.regularize = reg;
      const Result r = solve(Ms[k], qs[k], o);
      EXPECT_EQ(r.s, Status::singular) << "problem " << k;
      if (reg == LcpRegularization::none) {
        EXPECT_EQ(r.report.exit, LcpExit::ray) << "problem " << k;
      }
      EXPECT_EQ(r.z.size(), 2);
      EXPECT_EQ(r.w.size(), 2);
      EXPECT_TRUE(r.z.isZero(0.0) && r.w.isZero(0.0));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Consistency: random problems against the brute force

enum Kind { spd, pd_nonsymmetric, diag_dominant, degenerate_integer };

MatX random_matrix(Kind kind, int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  MatX A(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) A(i, j) = u(rng);
  switch (kind) {
    case spd: return A * A.transpose() + 0.1 * MatX::Identity(n, n);
    case pd_nonsymmetric: {
      MatX B(n, n);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) B(i, j) = u(rng);
      return A * A.transpose() + 0.1 * MatX::Identity(n, n) + (B - B.transpose());
    }
    case diag_dominant: {
      for (int i = 0; i < n; ++i) A(i, i) = A.row(i).cwiseAbs().sum() - std::abs(A(i, i)) + 0.1 + 0.5 * (u(rng) + 1);
      return A;
    }
    case degenerate_integer: {  // small integers, diagonally dominant: a P-matrix with ties
      std::uniform_int_distribution<int> k(-2, 2);
      MatX M(n, n);
      for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j)
          if (j != i) s += std::abs(M(i, j) = k(rng));
        M(i, i) = s + 1;
      }
      return M;
    }
  }
  return A;
}

VecX random_q(Kind kind, int n, std::mt19937& rng) {
  VecX q(n);
  if (kind == degenerate_integer) {
    std::uniform_int_distribution<int> k(-1, 1);
    for (int i = 0; i < n; ++i) q(i) = k(rng);
  } else {
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < n; ++i) q(i) = u(rng);
  }
  return q;
}

TEST(ConsistencyLcp, RandomPMatricesAgainstBruteForce) {
  std::mt19937 rng(20261124);
  int max_pivots_seen = 0, worst_n = 0;
  for (Kind kind : {spd, pd_nonsymmetric, diag_dominant, degenerate_integer}) {
    for (int n = 1; n <= N; ++n) {
      for (int trial = 0; trial < 20; ++trial) {
        const MatX M = random_matrix(kind, n, rng);
        const VecX q = random_q(kind, n, rng);
        const Result r = solve(M, q);
        ASSERT_EQ(r.s, Status::ok) << "kind " << kind << " n " << n << " trial " << trial << " exit "
                                   << talus::to_string(r.report.exit);
        EXPECT_LE(r.report.residual, 1e4 * 2.2e-16);
        expect_lcp_solution(M, q, r.z, 1e-12);
        EXPECT_LE((VecX(r.w) - (M * VecX(r.z) + q)).cwiseAbs().maxCoeff(),
                  1e-13 * (1 + r.z.cwiseAbs().maxCoeff()));  // w = M z + q
        if (r.report.pivots > max_pivots_seen) max_pivots_seen = r.report.pivots, worst_n = n;
        if (n <= 10) {
          VecX zb;
          ASSERT_TRUE(brute_force(M, q, zb));
          const double scale = 1 + zb.cwiseAbs().maxCoeff();
          EXPECT_LE((VecX(r.z) - zb).cwiseAbs().maxCoeff(), 1e-9 * scale)
              << "kind " << kind << " n " << n << " trial " << trial;
        }
      }
    }
  }
  std::printf("most pivots: %d (n = %d)\n", max_pivots_seen, worst_n);
}

TEST(ConsistencyLcp, FloatAgainstDoubleBruteForce) {
  std::mt19937 rng(7);
  using WSf = LcpWorkspace<float, N>;
  static WSf ws;
  for (Kind kind : {spd, diag_dominant, degenerate_integer}) {
    for (int n = 1; n <= 10; ++n) {
      for (int trial = 0; trial < 10; ++trial) {
        const MatX M = random_matrix(kind, n, rng);
        const VecX q = random_q(kind, n, rng);
        const Eigen::MatrixXf Mf = M.cast<float>();
        const Eigen::VectorXf qf = q.cast<float>();
        WSf::Vector z, w;
        LcpReport<float> rep;
        const Status s = talus::solve_lcp_lemke(Mf, qf, z, w, ws, LcpOptions<float, N>{}, rep);
        if (kind == spd) {
          // float SPD (A Aᵀ + 0.1 I) can be too ill-conditioned for the float check: then
          // the answer must be refused, never wrong
          if (s != Status::ok) {
            EXPECT_EQ(s, Status::singular);
            EXPECT_TRUE(z.isZero(0.0f) && w.isZero(0.0f));
            continue;
          }
        } else {
          ASSERT_EQ(s, Status::ok) << "kind " << kind << " n " << n;
        }
        VecX zb;
        ASSERT_TRUE(brute_force(M, q, zb));
        const double cond = M.jacobiSvd().singularValues()(0) / M.jacobiSvd().singularValues()(n - 1);
        EXPECT_LE((z.cast<double>() - zb).cwiseAbs().maxCoeff(), 1e-5 * cond * (1 + zb.cwiseAbs().maxCoeff()))
            << "kind " << kind << " n " << n << " cond " << cond;
        EXPECT_GE(z.minCoeff(), 0.0f);
      }
    }
  }
}

// Regularized path on PSD singular matrices with solutions: M = [1 1; 1 1], q = −e (the
// solutions are z₁ + z₂ = 1, z ≥ 0), and M = A Aᵀ (rank n/2) with q = w* − M z* built from a
// complementary pair. Every regularized answer is re-checked against the original M.
TEST(ConsistencyLcp, RegularizedPsdSingular) {
  {
    LcpOptions<double, N> o;
    o.regularize = LcpRegularization::always;
    const MatX M = mat(2, {1, 1, 1, 1});
    const VecX q = -VecX::Ones(2);
    const Result r = solve(M, q, o);
    ASSERT_EQ(r.s, Status::ok) << talus::to_string(r.report.exit);
    EXPECT_GT(r.report.regularization, 0.0);
    EXPECT_NEAR(r.z.sum(), 1.0, 1e-10);
    expect_lcp_solution(M, q, r.z, 1e-11);
    const Result plain = solve(M, q);
    std::printf("[1 1; 1 1]: plain %s (%s), regularized rho %.3g, %d pivots\n", talus::to_string(plain.s),
                talus::to_string(plain.report.exit), r.report.regularization, r.report.pivots);
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n = 2; n <= N; ++n) {
    for (auto reg : {LcpRegularization::on_failure, LcpRegularization::always}) {
      MatX A(n, n / 2);
      for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = u(rng);
      const MatX M = A * A.transpose();
      VecX zs = VecX::Zero(n), ws = VecX::Zero(n);
      for (int i = 0; i < n; ++i) (u(rng) > 0 ? zs(i) : ws(i)) = u(rng) + 1;
      const VecX q = ws - M * zs;
      LcpOptions<double, N> o;
      o.regularize = reg;
      const Result r = solve(M, q, o);
      ASSERT_EQ(r.s, Status::ok) << "n " << n << " " << talus::to_string(r.report.exit);
      expect_lcp_solution(M, q, r.z, 1e-11);
      if (reg == LcpRegularization::always && r.report.exit != LcpExit::trivial) {
        EXPECT_GT(r.report.regularization, 0.0);
      }
    }
  }
}

TEST(ConsistencyLcp, PivotCapAndCovering) {
  std::mt19937 rng(11);
  const MatX M = random_matrix(spd, 8, rng);
  const VecX q = -VecX::Ones(8);
  const Result full = solve(M, q);
  ASSERT_EQ(full.s, Status::ok);
  ASSERT_GT(full.report.pivots, 2);
  LcpOptions<double, N> o;
  o.max_pivots = 2;
  o.retry_covering = false;
  const Result capped = solve(M, q, o);
  EXPECT_EQ(capped.s, Status::not_converged);
  EXPECT_EQ(capped.report.exit, LcpExit::pivot_cap);
  EXPECT_EQ(capped.report.pivots, 2);
  EXPECT_EQ(capped.report.attempts, 1);
  EXPECT_TRUE(capped.z.isZero(0.0) && capped.w.isZero(0.0));
  // with the other covering vectors (default): three capped attempts, the first one's exit
  o.retry_covering = true;
  const Result capped2 = solve(M, q, o);
  EXPECT_EQ(capped2.s, Status::not_converged);
  EXPECT_EQ(capped2.report.exit, LcpExit::pivot_cap);
  EXPECT_EQ(capped2.report.attempts, 3);
  EXPECT_EQ(capped2.report.pivots, 6);
  // another covering vector: same unique solution
  LcpOptions<double, N> oc;
  oc.covering.resize(8);
  for (int i = 0; i < 8; ++i) oc.covering(i) = 0.5 + i;
  const Result c = solve(M, q, oc);
  ASSERT_EQ(c.s, Status::ok);
  EXPECT_LE((c.z - full.z).cwiseAbs().maxCoeff(), 1e-12);
}

// Impacts of redundant contacts: 8 corners of two rigid soles (4 each) on a plane, 4-edge
// friction polygons, the velocity-level LCP of contact_dynamics.hpp (Anitescu–Potra) with 48
// unknowns (f_n, β, Λ per corner). The Delassus operator W = J H⁻¹ Jᵀ has rank 12 of 24
// (each sole's 4 corners move with one 6D twist), the problem is massively degenerate (equal
// normal velocities, zero tangential ones), and q = J v⁻ is consistent only to rounding. The
// LCP has a solution (copositive M, q ∈ SOL(0, M)*: Cottle–Pang–Stone thm 4.4.12), so a
// failure is the solver's. Before the column-scale pivot threshold and the second covering
// vectors (lcp_lemke.hpp) 173 of 300 such problems (noise 0) failed: a 1e-15 column entry, zero
// in exact arithmetic, was taken as a pivot candidate, tied with every ratio and picked a
// row whose variable then went negative (check_failed), or the path ended in a false ray.
// Checked here independently: the LCP conditions, the friction polygons (Σβ ≤ μ f_n) and the
// post-impact normal velocities (≥ 0).
TEST(ConsistencyLcp, RedundantContactImpacts) {
  constexpr int nc = 8, ne = 4, n = nc * (2 + ne), nv = 20;
  using WS48 = LcpWorkspace<double, n>;
  static WS48 ws;
  const double mu = 0.7;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  int solved = 0, total = 0, retried = 0, max_pivots = 0;
  for (const double noise : {0.0, 1e-8, 1e-2}) {
    for (int c = 0; c < 100; ++c, ++total) {
      const MatX A = MatX::NullaryExpr(nv, nv, [&] { return u(rng); });
      const MatX H = A * A.transpose() + nv * MatX::Identity(nv, nv);    // a generalized inertia
      const MatX T = MatX::NullaryExpr(12, nv, [&] { return u(rng); });  // the two soles' twists [ω; v]
      MatX J(3 * nc, nv);                                                // rows n = z, t₁ = x, t₂ = y per corner
      for (int k = 0; k < nc; ++k) {
        const Eigen::Vector3d p(k % 2 ? 0.1 : -0.1, (k / 2) % 2 ? 0.065 : -0.065, 0.0);
        Eigen::Matrix3d px;  // p×
        px << 0, -p.z(), p.y(), p.z(), 0, -p.x(), -p.y(), p.x(), 0;
        Eigen::Matrix<double, 3, 6> P;  // v_p = v + ω × p = [−p×, I] [ω; v]
        P << -px, Eigen::Matrix3d::Identity();
        const Eigen::Matrix<double, 3, 6> Pzxy =
            (Eigen::Matrix<double, 3, 6>() << P.row(2), P.row(0), P.row(1)).finished();
        J.middleRows(3 * k, 3) = Pzxy * T.middleRows(6 * (k / 4), 6);
      }
      const MatX W = J * H.ldlt().solve(J.transpose());
      VecX twist = VecX::Zero(12);  // both soles down at 0.3 m/s, plus noise
      twist(5) = twist(11) = -0.3;
      for (int i = 0; i < 12; ++i) twist(i) += noise * u(rng);
      const VecX vminus = T.transpose() * (T * T.transpose()).ldlt().solve(twist);
      const VecX Jv = J * vminus;
      // unknown a: its direction in (n, t₁, t₂) of its corner
      auto dir = [&](int a, Eigen::Vector3d& d) {
        if (a < nc) {
          d << 1, 0, 0;
          return a;
        }
        const double th = 6.283185307179586 * ((a - nc) % ne) / ne;
        d << 0, std::cos(th), std::sin(th);
        return (a - nc) / ne;
      };
      MatX M = MatX::Zero(n, n);
      VecX q = VecX::Zero(n);
      for (int a = 0; a < nc * (1 + ne); ++a) {
        Eigen::Vector3d da, db;
        const int ka = dir(a, da);
        for (int b = 0; b < nc * (1 + ne); ++b) {
          const int kb = dir(b, db);
          M(a, b) = da.dot(W.block<3, 3>(3 * ka, 3 * kb) * db);
        }
        q(a) = da.dot(Jv.segment<3>(3 * ka));
        if (a >= nc) M(a, nc * (1 + ne) + ka) = 1;  // β row: D v⁺ + Λ ≥ 0
      }
      for (int k = 0; k < nc; ++k) {  // Λ row: μ f_n − Σβ ≥ 0
        M(nc * (1 + ne) + k, k) = mu;
        for (int j = 0; j < ne; ++j) M(nc * (1 + ne) + k, nc + ne * k + j) = -1;
      }
      WS48::Vector z, w;
      LcpReport<double> rep;
      const Status s = talus::solve_lcp_lemke(M, q, z, w, ws, LcpOptions<double, n>{}, rep);
      max_pivots = std::max(max_pivots, rep.pivots);
      retried += rep.attempts > 1;
      if (s != Status::ok) {
        ADD_FAILURE() << "noise " << noise << " case " << c << ": " << talus::to_string(s) << ", "
                      << talus::to_string(rep.exit) << ", " << rep.pivots << " pivots";
        continue;
      }
      ++solved;
      const VecX zz = z;
      expect_lcp_solution(M, q, zz, 1e-11);
      for (int k = 0; k < nc; ++k)
        EXPECT_LE(zz.segment(nc + ne * k, ne).sum(), mu * zz(k) * (1 + 1e-12) + 1e-14) << "corner " << k;
      // post-impact velocity v⁺ = v⁻ + H⁻¹ Jᵀ f, f the corners' (n, t₁, t₂) impulses
      VecX f = VecX::Zero(3 * nc);
      for (int a = 0; a < nc * (1 + ne); ++a) {
        Eigen::Vector3d d;
        const int k = dir(a, d);
        f.segment<3>(3 * k) += d * zz(a);
      }
      const VecX vplus = vminus + H.ldlt().solve(J.transpose() * f);
      for (int k = 0; k < nc; ++k) EXPECT_GE((J * vplus)(3 * k), -1e-12) << "corner " << k;
    }
  }
  std::printf("redundant contact impacts: %d of %d solved, %d needed a second attempt, at most %d pivots\n", solved,
              total, retried, max_pivots);
}

TEST(ConsistencyLcp, BadInput) {
  const MatX M = mat(2, {2, 1, 1, 2});
  const VecX q = VecX::Map(std::vector<double>{-1, -1}.data(), 2);
  auto expect_invalid = [](const Result& r, Eigen::Index size) {
    EXPECT_EQ(r.s, Status::invalid_input);
    EXPECT_EQ(r.report.exit, LcpExit::invalid_input);
    EXPECT_EQ(r.z.size(), size);
    EXPECT_EQ(r.w.size(), size);
    EXPECT_TRUE(r.z.isZero(0.0) && r.w.isZero(0.0));
  };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf, 2e9}) {
    MatX Mb = M;
    Mb(1, 0) = bad;
    expect_invalid(solve(Mb, q), 2);
    VecX qb = q;
    qb(0) = bad;
    expect_invalid(solve(M, qb), 2);
  }
  expect_invalid(solve(MatX::Identity(N + 1, N + 1), -VecX::Ones(N + 1)), 0);  // n > MaxN
  expect_invalid(solve(MatX::Identity(3, 2), -VecX::Ones(3)), 3);              // M not n × n
  LcpOptions<double, N> o;
  o.pivot_tolerance = -1e-12;
  expect_invalid(solve(M, q, o), 2);
  o = {};
  o.check_tolerance = -0.1;
  expect_invalid(solve(M, q, o), 2);
  o = {};
  o.check_tolerance = nan;
  expect_invalid(solve(M, q, o), 2);
  o = {};
  o.max_pivots = -1;
  expect_invalid(solve(M, q, o), 2);
  o = {};
  o.covering = Vec::Ones(3);
  expect_invalid(solve(M, q, o), 2);
  o.covering = Vec::Zero(2);  // zeros where qᵢ < 0
  expect_invalid(solve(M, q, o), 2);
  o.covering << 1, 0;
  expect_invalid(solve(M, q, o), 2);
  o.covering << 1, -1;
  expect_invalid(solve(M, q, o), 2);
  o = {};
  o.regularize = static_cast<LcpRegularization>(7);
  expect_invalid(solve(M, q, o), 2);
  // n = 0: ok, empty
  const Result e = solve(MatX(0, 0), VecX(0));
  EXPECT_EQ(e.s, Status::ok);
  EXPECT_EQ(e.z.size(), 0);
}

// ---------------------------------------------------------------------------------------------
// Alloc: no heap inside a solve (fixed-capacity M, q, z, w; every exit).

TEST(AllocLcp, NoHeapInSolve) {
  static WS ws;
  Mat M = mat(3, {1, 2, 0, 0, 1, 2, 2, 0, 1});
  Vec q = -Vec::Ones(3);
  Vec z, w;
  LcpReport<double> rep;
  LcpOptions<double, N> o;
  o.regularize = LcpRegularization::on_failure;
  Status s = Status::invalid_input;
  std::size_t calls = talus_test::heap_calls([&] { s = talus::solve_lcp_lemke(M, q, z, w, ws, o, rep); });
  EXPECT_EQ(s, Status::ok);
  EXPECT_EQ(calls, 0u);
  // ray with the regularized retries
  Mat R = -Mat::Identity(3, 3);
  calls = talus_test::heap_calls([&] { s = talus::solve_lcp_lemke(R, q, z, w, ws, o, rep); });
  EXPECT_EQ(s, Status::singular);
  EXPECT_EQ(calls, 0u);
  // default-options overload, 12 × 12
  std::mt19937 rng(5);
  const MatX Mx = random_matrix(spd, N, rng);
  const VecX qx = random_q(spd, N, rng);
  Mat M12 = Mx;
  Vec q12 = qx;
  calls = talus_test::heap_calls([&] { s = talus::solve_lcp_lemke(M12, q12, z, w, ws); });
  EXPECT_EQ(s, Status::ok);
  EXPECT_EQ(calls, 0u);
}

// LcpReport's evidence (status.hpp, issue 26 item 4): on ok, residual ≤ tolerance =
// check_tolerance > 0, and residual equals the check's relative violation recomputed here
// from z (w = M z + q by Eigen's sums; lcp_lemke.hpp "Tolerances": each row's violation over
// its scale s_wᵢ + floor/τ_c) to the rounding of those sums (4 n ε). Then a candidate whose
// violation is above the tolerance is refused (check_lcp_guess), its residual above it.
TEST(ConsistencyLcp, EveryOkStatesItsResidualAndTolerance) {
  std::mt19937 rng(20261127);
  const double eps = std::numeric_limits<double>::epsilon();
  const LcpOptions<double, N> o;
  double worst = 0;
  int solved = 0;
  for (Kind kind : {spd, pd_nonsymmetric, diag_dominant, degenerate_integer}) {
    for (int n = 1; n <= N; ++n) {
      for (int trial = 0; trial < 5; ++trial) {
        const MatX M = random_matrix(kind, n, rng);
        const VecX q = random_q(kind, n, rng);
        const Result r = solve(M, q, o);
        ASSERT_EQ(r.s, Status::ok);
        EXPECT_EQ(r.report.tolerance, o.check_tolerance);
        EXPECT_GT(r.report.tolerance, 0.0);
        EXPECT_GE(r.report.residual, 0.0);
        EXPECT_LE(r.report.residual, r.report.tolerance);
        EXPECT_NEAR(r.report.residual, talus_test::lcp_relative_violation(M, q, VecX(r.z), o.check_tolerance),
                    4 * n * eps)
            << "kind " << kind << " n " << n << " trial " << trial;
        worst = std::max(worst, r.report.residual / r.report.tolerance);
        ++solved;
      }
    }
  }
  std::printf("%d solves: largest residual / tolerance %.3g\n", solved, worst);
  // above the tolerance: refused, the residual reported above the tolerance
  static WS ws;
  const Mat M = mat(2, {2, 1, 1, 2});
  Vec q(2), g(2), z, w;
  q << -5, -6;
  g << 4.0 / 3.0 + 1e-6, 7.0 / 3.0;
  LcpReport<double> rep;
  EXPECT_EQ(talus::check_lcp_guess(M, q, g, z, w, ws, o, rep), Status::singular);
  EXPECT_EQ(rep.tolerance, o.check_tolerance);
  EXPECT_GT(rep.residual, rep.tolerance);
  EXPECT_NEAR(rep.residual, talus_test::lcp_relative_violation(MatX(M), VecX(q), VecX(g), o.check_tolerance), 1e-12);
}

}  // namespace
