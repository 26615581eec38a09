#pragma once
/// \file lcp_lemke.hpp
/// Lemke's complementary pivoting algorithm for the linear complementarity problem, with a
/// lexicographic ratio test (it cannot cycle), fixed-capacity storage and a checked answer.
///
/// **Problem.** LCP(M, q), M n × n, q n, n ≤ MaxN: find z with
///
///     z ≥ 0,   w = M z + q ≥ 0,   zᵀ w = 0   (componentwise: zᵢ = 0 or wᵢ = 0).
///
/// **Algorithm** (Lemke 1965; Cottle, Pang and Stone, *The Linear Complementarity Problem*,
/// 1992, ch. 4; Murty, *Linear Complementarity, Linear and Nonlinear Programming*, 1988, ch. 2).
/// If q ≥ 0, z = 0 is the answer (no pivot). Otherwise an artificial variable z₀ and a
/// covering vector d ≥ 0 with dᵢ > 0 wherever qᵢ < 0 (default all ones) augment the system to
///
///     I w − M z − d z₀ = q,
///
/// whose basis starts as B = I (w basic, w = q). The first pivot brings z₀ in at the value
/// that makes every w ≥ 0 (the row of the most negative qᵢ/dᵢ over dᵢ > 0 leaves; a row
/// with dᵢ = 0 has qᵢ ≥ 0 and stays feasible whatever z₀). From then on the
/// entering variable is always the complement of the one that just left (wᵢ ↔ zᵢ), and the
/// leaving one is chosen by the minimum-ratio test that keeps every basic variable ≥ 0. The
/// basis stays almost complementary (at most one pair zᵢ, wᵢ both non-basic); when z₀ leaves,
/// the basis is complementary and z₀ = 0: a solution. If the entering column has no positive
/// entry the path ends in a *secondary ray*: no solution was found.
///
/// The solver keeps B⁻¹ (n × n) and the basic values x = B⁻¹ q, updated by one Gauss–Jordan
/// step per pivot. The entering column is B⁻¹ A_e (A_e = eᵢ for wᵢ, −M·eᵢ for zᵢ, −d for
/// z₀). Cost per pivot: one column (n² multiply-adds), its row-wise error bound and the basic
/// values' bound |B⁻¹| |q| (2n²), in one column-major pass over B⁻¹, and the rank-1 update of
/// B⁻¹ and x (n² + n): about 4n² flops, in loops over contiguous columns that compilers
/// vectorize (bench/RESULTS.md has the measurement against the row-by-row loops they replaced).
/// At the end two steps of iterative
/// refinement (x += B⁻¹ (q − B x), 2n² each) polish x before the check.
///
/// **Lexicographic ratio test.** A degenerate problem (a basic variable at zero, e.g. equal
/// qᵢ) makes the plain minimum ratio xᵢ/aᵢ tie. Breaking ties by the first index, as Drake's
/// MobyLCPSolver does, can revisit a basis and cycle for ever (Kostreva's 1979 example,
/// M = [1 2 0; 0 1 2; 2 0 1], q = −(1, 1, 1): tests/lcp_test.cpp shows a first-index variant
/// cycling on it). Here the leaving row is the lexicographic minimum of the rows
/// (xᵢ, B⁻¹ᵢ,:)/aᵢ over aᵢ > 0: the ratio first, then row i of B⁻¹ column by column. This is
/// the ratio test of the perturbed problem q + (ε, ε², …, εⁿ) for an infinitesimal ε > 0,
/// which is non-degenerate: rows of B⁻¹ are linearly independent, so the minimum is unique,
/// every basis is visited at most once and the algorithm terminates (Cottle–Pang–Stone
/// ch. 4; Eaves 1971). When z₀'s row ties for the minimum ratio it leaves at once (the
/// solution is reached one pivot earlier; no cycling is possible on a final pivot).
///
/// **Guarantees** (exact arithmetic). Lemke's algorithm terminates in a finite number of
/// pivots. It ends with a solution when M is a P-matrix (every principal minor > 0: SPD and
/// positive definite non-symmetric matrices, strictly diagonally dominant matrices with a
/// positive diagonal; the solution is then unique), and when M is copositive-plus (e.g. PSD)
/// and the LCP is feasible; for copositive-plus M a secondary ray proves that the LCP has no
/// solution. For other matrices a ray says only that this path found none. The worst case
/// is exponential (Murty 1978 gives P-matrix problems needing exponentially many pivots),
/// so a hard cap (LcpOptions::max_pivots) bounds the loop. The default 10 n + 50 is about
/// ten times what the random SPD and P-matrix problems of tests/lcp_test.cpp take (at most
/// n + 1 pivots, n ≤ 12) and bounds one attempt by about 5 n² (10 n + 50) flops (a pivot's
/// lexicographic comparisons add at most n² to its 4 n²).
///
/// **Tolerances** (ε = machine epsilon of S, n the problem size, τ_p = pivot_tolerance,
/// τ_c = check_tolerance):
/// - a column entry aᵢ is a pivot candidate only if aᵢ > n τ_p max(Σⱼ |B⁻¹ᵢⱼ| |A_e,j|, maxₖ |aₖ|)
///   (its own rounding-error bound, and the column's scale: the row bound does not see the
///   error B⁻¹ has accumulated, and on a rank-deficient M an entry that is 0 in exact
///   arithmetic otherwise passes as a 1e-15 pivot whose ratio ties with every row); a basic value xᵢ ≤ n τ_p Σⱼ |B⁻¹ᵢⱼ| |qⱼ| counts as
///   zero in the ratio, and two ratios within the sum of those bounds divided by aᵢ tie
///   (the lexicographic comparison then decides). Default τ_p = 1e3 ε (2.2e-13 double,
///   1.2e-4 float).
/// - the answer (after refinement) is clamped to z ≥ 0 and w = M z + q is evaluated at the
///   clamped z against the original M and q; it is accepted if, with s_z = max |zⱼ| (of the
///   clamped z) and each row's own scale s_wᵢ = |qᵢ| + n maxⱼ |Mᵢⱼ| s_z (the size of the terms
///   of wᵢ: rows may have different units, e.g. accelerations and friction forces),
///   wᵢ ≥ −tᵢ and |zᵢ wᵢ| ≤ s_z tᵢ for every i, tᵢ = τ_c s_wᵢ + n ε s_w with s_w the largest
///   scale max|qᵢ| + n max|Mᵢⱼ| s_z (a floor for rows whose entries are all rounding residue)
///   (a backward error: the returned z solves an LCP whose qᵢ differs by at most tᵢ). When z₀ ties with the minimum ratio
///   (within τ of the ratios themselves) it leaves at once. Default τ_c = 1e4 ε (2.2e-12 double, 1.2e-3 float).
///   Checking the unclamped zᵢ ≥ −τ_c s_z as well would ask for forward accuracy, which an
///   ill-conditioned basis (e.g. softened redundant contacts: cond ~ 1/γ) cannot give.
///   LcpReport::residual is the largest violation divided by its bound's scale (≤ τ_c when ok).
///
/// **Regularization** (LcpOptions::regularize, after Drake's SolveLcpLemkeRegularized). For
/// a PSD or nearly singular M whose plain solve fails numerically, the solver retries with
/// M + ρ I for ρ = ρ_k · n ε max(1, max |Mᵢⱼ|), ρ_k ∈ {1e2, 1e4, 1e6} (in this order). Every
/// regularized answer is re-checked against the ORIGINAL M and q with the rule above, and
/// also must satisfy ρ s_z ≤ τ_c max |qᵢ|: it solves (M, q − ρ z) exactly, so this bounds the
/// change of q it stands for (without it, an infeasible PSD problem such as
/// M = [1 −1; −1 1], q = −e would be "solved" by z ≈ e/ρ, whose residual hides in n max|M| s_z).
/// Only an answer that passes is ok.
///
/// **Other covering vectors** (LcpOptions::retry_covering, on by default). Any d > 0 defines
/// a valid Lemke path, and different d give different paths. On a degenerate problem whose
/// ties are decided by rounding (redundant contacts: talos's 8 sole corners have a Delassus
/// operator of rank 12 of 24, and its q = J v⁻ is consistent only to rounding) one path can
/// end in a false secondary ray where another reaches a solution. So a failed plain attempt
/// is followed by one with dᵢ (1 + i/n) and, if that fails too, one with dᵢ (2 − i/n) (before
/// any regularized one). On random impacts of 8 corners on 2 rigid bodies (48 unknowns) the
/// first retry took the failures from 11 to 0 of 300, and the second from 4 to 0 of 2000.
///
/// **Covering vectors with zeros** (LcpOptions::covering with zero entries, or
/// covering_negative_q: Drake's MobyLCP rule dᵢ = 1 where qᵢ < 0, else 0). The path, and so
/// whether it ends on a ray, depends on d, and no positive d is best for every problem: the
/// 2 × 2 LCP M = [−3 1; −1 0], q = (−1, 1) (tests/lcp_test.cpp, derived by hand there)
/// ray-terminates for every d > 0 with d₂/d₁ > 1/3 — all ones, both retries (d₂/d₁ = 1.5,
/// 0.75), d = (5, 16) — and is solved in 3 pivots by d = (1, 0): z = (1, 4) (the phenomenon
/// of Murty's Example 2.11, solved with d = (1, 0) and ray-terminating with d = (5, 16)). The retries do not replace the option: a
/// caller who knows a better d (or Drake's rule) gives it; the other attempts keep its
/// zeros. With zero entries the termination guarantees below that assume d > 0 (a ray
/// proving infeasibility for copositive-plus M) no longer hold: a ray says only that this
/// path found no solution.
///
/// Attempts, in order: plain; the two other coverings (retry_covering); ρ₁, ρ₂, ρ₃ (regularize
/// on_failure; `always` runs only these). At most 6 attempts, so at most 6 max_pivots pivots
/// in all; the report counts attempts and the pivots of all of them.
///
/// **A caller's guess** (check_lcp_guess). A candidate z found by other means (a contact
/// solver's guess of the active set, the last cycle's answer) is returned when it passes the
/// check above against the original M, q (no pivot, about 2 n² flops), so a guess can never
/// return what Lemke would have refused.
///
/// **Status** (z and w zero unless ok; nothing allocates, nothing throws):
/// - ok: z, w satisfy the check above; LcpReport::exit says trivial (q ≥ 0) or solved.
/// - invalid_input: M not n × n with n = q.size(), n > MaxN (n = 0 is ok, empty z and w), NaN/Inf or |entry| > input_limits::magnitude in M, q or the covering
///   vector, a covering entry < 0, or 0 where qᵢ < 0, or a covering vector of the wrong size, a tolerance outside
///   [0, 1] (or NaN), max_pivots < 0, a regularize value outside the enumerators.
///   n > MaxN gives invalid_input (not capacity_exceeded), and z, w then have zero rows.
/// - singular: the path ended without a solution. Either a secondary ray (LcpExit::ray: the
///   LCP may have no solution, and has none if M is copositive-plus) or an answer that
///   failed the check (LcpExit::check_failed: a numerically singular basis). Status has no
///   `no_solution` enumerator yet; `singular` stands for it.
/// - not_converged: the pivot cap was reached (LcpExit::pivot_cap).
/// - overflow: inputs were valid but a value became non-finite (LcpExit::non_finite).
/// When every attempt fails, the status and exit are those of the first attempt (the plain
/// one, or the smallest ρ if regularize is `always`).
#include <algorithm>
#include <cstddef>
#include <limits>

#include <Eigen/Core>

#include <talus/linalg/finite.hpp>
#include <talus/linalg/sizes.hpp>
#include <talus/status.hpp>

namespace talus {

/// When the solver retries with M + ρ I (see the file comment).
enum class LcpRegularization : unsigned char {
  none,        ///< plain Lemke only (default)
  on_failure,  ///< plain Lemke, then M + ρ I for each ρ in turn while the answer is not ok
  always,      ///< only the regularized attempts (each re-checked against the original M)
};

/// How a solve ended (LcpReport::exit).
enum class LcpExit : unsigned char {
  none,           ///< not run
  trivial,        ///< q ≥ 0: z = 0, no pivot
  solved,         ///< z₀ left the basis and the answer passed the check
  ray,            ///< secondary ray: no positive entry in the entering column (Status::singular)
  pivot_cap,      ///< max_pivots reached (Status::not_converged)
  check_failed,   ///< the answer failed the complementarity check (Status::singular)
  invalid_input,  ///< Status::invalid_input
  non_finite,     ///< a value became Inf/NaN (Status::overflow)
  guess,          ///< check_lcp_guess: the caller's candidate passed the check (no pivot)
};

constexpr const char* to_string(LcpExit e) {
  switch (e) {
    case LcpExit::none: return "none";
    case LcpExit::trivial: return "trivial";
    case LcpExit::solved: return "solved";
    case LcpExit::ray: return "ray";
    case LcpExit::pivot_cap: return "pivot_cap";
    case LcpExit::check_failed: return "check_failed";
    case LcpExit::invalid_input: return "invalid_input";
    case LcpExit::non_finite: return "non_finite";
    case LcpExit::guess: return "guess";
  }
  return "unknown";
}

/// Options of solve_lcp_lemke (defaults in the file comment).
template <class S, int MaxN>
struct LcpOptions {
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MaxN, 1>;
  /// Relative pivot / zero tolerance τ_p (≥ 0); the tests scale it by n and by each row's
  /// rounding-error bound.
  S pivot_tolerance = S(1e3) * Eigen::NumTraits<S>::epsilon();
  /// Relative tolerance τ_c (≥ 0) of the final complementarity check.
  S check_tolerance = S(1e4) * Eigen::NumTraits<S>::epsilon();
  /// Hard cap on pivots per attempt (≥ 0); 0 selects the default 10 n + 50.
  int max_pivots = 0;
  /// When the first plain attempt fails, try again with the covering vectors dᵢ (1 + i/n),
  /// then dᵢ (2 − i/n) (see the file comment, "Other covering vectors").
  bool retry_covering = true;
  /// Covering vector d: empty for all ones (or Drake's rule below), else n entries ≥ 0 with
  /// dᵢ > 0 wherever qᵢ < 0 (zeros: file comment, "Covering vectors with zeros").
  Vector covering;
  /// With an empty `covering`: dᵢ = 1 where qᵢ < 0, else 0 (Drake's MobyLCPSolver), instead of all ones.
  bool covering_negative_q = false;
  LcpRegularization regularize = LcpRegularization::none;
};

/// What a solve did.
template <class S>
struct LcpReport {
  int pivots = 0;           ///< pivots of all attempts together (the initial z₀ pivot counts)
  int attempts = 0;         ///< Lemke runs (1 plain + regularized ones)
  S residual = S(0);        ///< relative violation of the accepted (or last checked) answer
  S tolerance = S(0);       ///< what residual was held to: LcpOptions::check_tolerance τ_c (0 for
                            ///< invalid input); ok ⇒ residual ≤ tolerance
  S regularization = S(0);  ///< ρ of the accepted answer (0: the original M)
  LcpExit exit = LcpExit::none;
};

/// Fixed-capacity storage of the solver (about (MaxN² + 10 MaxN) scalars); reusable, never
/// allocates. One per thread of solves.
template <class S, int MaxN>
struct LcpWorkspace {
  static_assert(MaxN >= 1, "talus: LcpWorkspace needs MaxN >= 1");
  using Scalar = S;
  static constexpr int max_size = MaxN;
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MaxN, 1>;
  using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, MaxN, MaxN>;
  Matrix Binv;           ///< inverse of the current basis
  Vector x;              ///< basic values
  Vector col;            ///< entering column B⁻¹ A_e
  Vector col_err;        ///< its row-wise rounding bound Σⱼ |B⁻¹ᵢⱼ| |A_e,j|
  Vector x_err;          ///< Σⱼ |B⁻¹ᵢⱼ| |qⱼ|
  Vector d;              ///< covering vector in use
  Vector r;              ///< refinement residual; the check's row maxima
  Vector z;              ///< candidate answer
  Vector ae;             ///< entering column A_e of [I, −(M + ρI), −d]
  Vector ae_abs;         ///< |A_e|
  Vector q_abs;          ///< |q|
  Vector c;              ///< the pivot column with its pivot row zeroed (the rank-1 update)
  int basis[MaxN] = {};  ///< variable of each row: i < n wᵢ, n ≤ v < 2n z_{v−n}, 2n z₀
};

namespace detail {

/// True if row i's ratio vector (xᵢ, B⁻¹ᵢ,:)/aᵢ is lexicographically smaller than row k's,
/// with ties within the rows' rounding bounds.
template <class S, int MaxN>
bool lcp_lex_less(const LcpWorkspace<S, MaxN>& ws, int n, int i, int k, S tau) {
  using std::abs;
  const S ai = ws.col.coeff(i), ak = ws.col.coeff(k);
  const S xi = ws.x.coeff(i) > tau * ws.x_err.coeff(i) ? ws.x.coeff(i) : S(0);
  const S xk = ws.x.coeff(k) > tau * ws.x_err.coeff(k) ? ws.x.coeff(k) : S(0);
  const S ti = xi / ai, tk = xk / ak;
  const S tie = tau * (ws.x_err.coeff(i) / ai + ws.x_err.coeff(k) / ak);
  if (ti < tk - tie) return true;
  if (ti > tk + tie) return false;
  S ni = S(0), nk = S(0);
  for (int j = 0; j < n; ++j) {
    ni = std::max(ni, abs(ws.Binv.coeff(i, j)));
    nk = std::max(nk, abs(ws.Binv.coeff(k, j)));
  }
  const S btie = tau * (ni / ai + nk / ak);
  for (int j = 0; j < n; ++j) {
    const S u = ws.Binv.coeff(i, j) / ai, v = ws.Binv.coeff(k, j) / ak;
    if (u < v - btie) return true;
    if (u > v + btie) return false;
  }
  return false;  // equal to within rounding: keep the earlier row
}

/// Gauss–Jordan step: variable v enters in row r (column ws.col). Row r is divided by the
/// pivot, then every other row i loses colᵢ times it: B⁻¹ −= c (row r), with c = col and
/// c_r = 0, done column by column (B⁻¹ is column-major: contiguous, vectorizable).
template <class S, int MaxN>
void lcp_pivot(LcpWorkspace<S, MaxN>& ws, int n, int r, int v) {
  const S inv = S(1) / ws.col.coeff(r);
  ws.x.coeffRef(r) *= inv;
  ws.c.resize(n);
  for (int i = 0; i < n; ++i) ws.c.coeffRef(i) = i == r ? S(0) : ws.col.coeff(i);
  const S xr = ws.x.coeff(r);
  for (int i = 0; i < n; ++i) ws.x.coeffRef(i) -= ws.c.coeff(i) * xr;
  S* const B = ws.Binv.data();
  const S* const c = ws.c.data();
  const Eigen::Index ld = ws.Binv.rows();
  for (int j = 0; j < n; ++j) {
    S* const Bj = B + j * ld;
    const S brj = Bj[r] * inv;
    Bj[r] = brj;
    if (brj == S(0)) continue;
    for (int i = 0; i < n; ++i) Bj[i] -= c[i] * brj;
  }
  ws.basis[r] = v;
}

/// The entering column of variable v: ws.col = B⁻¹ A_e, ws.col_err = |B⁻¹| |A_e| (its
/// row-wise rounding bound) and ws.x_err = |B⁻¹| |q|, in one pass over the columns of B⁻¹.
template <class S, int MaxN, class DM>
void lcp_entering_column(const Eigen::MatrixBase<DM>& M, S rho, int n, int v, LcpWorkspace<S, MaxN>& ws) {
  using std::abs;
  ws.ae.resize(n);
  ws.ae_abs.resize(n);
  if (v < n) {
    ws.ae.setZero();
    ws.ae.coeffRef(v) = S(1);
  } else if (v < 2 * n) {
    const int c = v - n;
    for (int j = 0; j < n; ++j) ws.ae.coeffRef(j) = -static_cast<S>(M.coeff(j, c));
    ws.ae.coeffRef(c) -= rho;
  } else {
    for (int j = 0; j < n; ++j) ws.ae.coeffRef(j) = -ws.d.coeff(j);
  }
  for (int j = 0; j < n; ++j) ws.ae_abs.coeffRef(j) = abs(ws.ae.coeff(j));
  ws.col.setZero(n);
  ws.col_err.setZero(n);
  ws.x_err.setZero(n);
  S* const col = ws.col.data();
  S* const err = ws.col_err.data();
  S* const xerr = ws.x_err.data();
  const S* const B = ws.Binv.data();
  const Eigen::Index ld = ws.Binv.rows();
  for (int j = 0; j < n; ++j) {
    const S* const Bj = B + j * ld;
    const S a = ws.ae.coeff(j), aa = ws.ae_abs.coeff(j), qa = ws.q_abs.coeff(j);
    if (a == S(0)) {
      if (qa != S(0))
        for (int i = 0; i < n; ++i) xerr[i] += abs(Bj[i]) * qa;
      continue;
    }
    for (int i = 0; i < n; ++i) {
      const S b = Bj[i], bb = abs(b);
      col[i] += b * a;
      err[i] += bb * aa;
      xerr[i] += bb * qa;
    }
  }
}

/// One Lemke run on M + ρ I; on LcpExit::solved, ws.z holds the (unchecked) answer.
template <class S, int MaxN, class DM, class DQ>
LcpExit lemke_run(const Eigen::MatrixBase<DM>& M, const Eigen::MatrixBase<DQ>& q, S rho, int n, int cap, S tau_p,
                  LcpWorkspace<S, MaxN>& ws, int& pivots) {
  using std::abs;
  const S tau = tau_p * S(n);
  ws.Binv.setIdentity(n, n);
  ws.x.resize(n);
  for (int i = 0; i < n; ++i) {
    ws.x.coeffRef(i) = static_cast<S>(q.coeff(i));
    ws.basis[i] = i;
  }
  ws.col.resize(n);
  ws.col_err.resize(n);
  ws.x_err.resize(n);
  ws.q_abs.resize(n);
  for (int i = 0; i < n; ++i) ws.q_abs.coeffRef(i) = abs(static_cast<S>(q.coeff(i)));
  ws.z.setZero(n);
  // First pivot: z₀ enters; the row of the smallest qᵢ/dᵢ over dᵢ > 0 leaves (exact ties: the
  // last row, which is the lexicographic rule for B = I and aᵢ = −dᵢ). A row with dᵢ = 0 has
  // qᵢ ≥ 0 (checked): z₀ does not move it.
  int r = -1;
  S best = S(0);
  for (int i = 0; i < n; ++i) {
    if (!(ws.d.coeff(i) > S(0))) continue;
    const S t = ws.x.coeff(i) / ws.d.coeff(i);
    if (r < 0 || t <= best) {
      best = t;
      r = i;
    }
  }
  if (r < 0) return LcpExit::ray;  // unreachable: some qᵢ < 0 has dᵢ > 0
  for (int i = 0; i < n; ++i) ws.col.coeffRef(i) = -ws.d.coeff(i);
  const int z0 = 2 * n;
  int leaving = ws.basis[r];
  lcp_pivot(ws, n, r, z0);
  pivots += 1;
  for (int it = 1; it < cap; ++it) {
    const int entering = leaving < n ? leaving + n : leaving - n;
    // entering column and its rounding bound; basic values' bound
    lcp_entering_column(M, rho, n, entering, ws);
    int z0_row = -1;
    for (int i = 0; i < n; ++i)
      if (ws.basis[i] == z0) z0_row = i;
    if (!(all_finite(ws.col) && all_finite(ws.x))) return LcpExit::non_finite;
    // an entry is a pivot candidate above its own rounding bound AND above the column's
    // scale: the row bound misses the error B⁻¹ carries from earlier updates, so an entry
    // that is zero in exact arithmetic can come out as 1e-15 against a bound of 1e-15
    // (seen on talos's 8 redundant sole corners), tie with every ratio and pick a wrong row
    S col_max = S(0);
    for (int i = 0; i < n; ++i) col_max = std::max(col_max, abs(ws.col.coeff(i)));
    r = -1;
    for (int i = 0; i < n; ++i) {
      const S a = ws.col.coeff(i);
      if (!(a > S(0) && a > tau * std::max(ws.col_err.coeff(i), col_max))) continue;
      if (r < 0 || lcp_lex_less(ws, n, i, r, tau)) r = i;
    }
    if (r < 0) return LcpExit::ray;
    if (z0_row >= 0 && z0_row != r) {
      const S a0 = ws.col.coeff(z0_row);
      if (a0 > S(0) && a0 > tau * ws.col_err.coeff(z0_row)) {
        // z₀ leaves now if its ratio ties with the minimum, judged relative to the two ratios
        // (not by the rows' rounding bounds τ x_err/a: x_err = Σ|B⁻¹||q| can be 100 |x|, and
        // in float that window let z₀ win at a ratio of 2.68 against a minimum of 1.47)
        const S t0 = std::max(ws.x.coeff(z0_row), S(0)) / a0;
        const S tr = std::max(ws.x.coeff(r), S(0)) / ws.col.coeff(r);
        if (t0 <= tr + tau * std::max(t0, tr)) r = z0_row;
      }
    }
    leaving = ws.basis[r];
    lcp_pivot(ws, n, r, entering);
    pivots += 1;
    if (leaving == z0) {
      // two steps of iterative refinement on the final basis: x += B⁻¹ (q − B x)
      for (int pass = 0; pass < 2; ++pass) {
        ws.r.resize(n);
        for (int j = 0; j < n; ++j) ws.r.coeffRef(j) = static_cast<S>(q.coeff(j));
        for (int i = 0; i < n; ++i) {  // r −= x_i A_{basis i}
          const S xi = ws.x.coeff(i);
          const int b = ws.basis[i];
          if (xi == S(0)) continue;
          if (b < n) {
            ws.r.coeffRef(b) -= xi;
          } else if (b < 2 * n) {
            const int c = b - n;
            for (int j = 0; j < n; ++j) ws.r.coeffRef(j) += static_cast<S>(M.coeff(j, c)) * xi;
            ws.r.coeffRef(c) += rho * xi;
          } else {
            for (int j = 0; j < n; ++j) ws.r.coeffRef(j) += ws.d.coeff(j) * xi;
          }
        }
        const S* const B = ws.Binv.data();
        const Eigen::Index ld = ws.Binv.rows();
        for (int j = 0; j < n; ++j) {  // x += B⁻¹ r, column by column
          const S rj = ws.r.coeff(j);
          if (rj == S(0)) continue;
          const S* const Bj = B + j * ld;
          for (int i = 0; i < n; ++i) ws.x.coeffRef(i) += Bj[i] * rj;
        }
      }
      for (int i = 0; i < n; ++i)
        if (ws.basis[i] >= n && ws.basis[i] < 2 * n) ws.z.coeffRef(ws.basis[i] - n) = ws.x.coeff(i);
      return all_finite(ws.z) ? LcpExit::solved : LcpExit::non_finite;
    }
  }
  return LcpExit::pivot_cap;
}

/// The check of the file comment on ws.z against the original (M, q); on success writes
/// z (clamped) and w = M z + q. Returns the relative violation through `residual`.
template <class S, int MaxN, class DM, class DQ, class Z, class W>
bool lcp_check(const Eigen::MatrixBase<DM>& M, const Eigen::MatrixBase<DQ>& q, int n, S tau_c, S rho,
               LcpWorkspace<S, MaxN>& ws, Z& z, W& w, S& residual) {
  using std::abs;
  z.resize(n);
  w.resize(n);
  for (int i = 0; i < n; ++i) z.coeffRef(i) = ws.z.coeff(i) > S(0) ? ws.z.coeff(i) : S(0);
  // scales of the RETURNED (clamped) z: a large negative entry of the raw answer must not
  // inflate s_z and with it the tolerances (fuzz_lcp found w = −3.9 accepted that way)
  S sz = S(0), sq = S(0);
  for (int i = 0; i < n; ++i) {
    sz = std::max(sz, abs(z.coeff(i)));
    sq = std::max(sq, abs(static_cast<S>(q.coeff(i))));
  }
  // each row against its own terms: s_wᵢ = |qᵢ| + n maxⱼ|Mᵢⱼ| s_z. One scale for all rows let
  // a row of small entries (a friction row μ f_n − Σβ, newtons) be judged against the largest
  // row (accelerations): float solo12 returned w = −13.5 N as ok against a bound of 16 N.
  // Plus a floor of n ε s_w (s_w = max|qᵢ| + n max|Mᵢⱼ| s_z, the whole problem's scale): a row
  // whose entries are all rounding residue (a unilateral row the bilateral rows eliminate) is
  // noise at that level, not at its own.
  // one pass over M, column by column (contiguous for a column-major M): w = q + M z (each
  // row summed in the order j = 0, 1, ...) and each row's largest |Mᵢⱼ| (in ws.r)
  auto& row_max = ws.r;
  row_max.setZero(n);
  for (int i = 0; i < n; ++i) w.coeffRef(i) = static_cast<S>(q.coeff(i));
  for (int j = 0; j < n; ++j) {
    const S zj = z.coeff(j);
    for (int i = 0; i < n; ++i) {
      const S m = static_cast<S>(M.coeff(i, j));
      w.coeffRef(i) += m * zj;
      row_max.coeffRef(i) = std::max(row_max.coeff(i), abs(m));
    }
  }
  S sm = S(0);
  for (int i = 0; i < n; ++i) sm = std::max(sm, row_max.coeff(i));
  const S floor = S(n) * Eigen::NumTraits<S>::epsilon() * (sq + S(n) * sm * sz);
  S vw = S(0), vc = S(0);
  bool within = true;
  for (int i = 0; i < n; ++i) {
    const S s = w.coeff(i), mi = row_max.coeff(i);
    const S swi = abs(static_cast<S>(q.coeff(i))) + S(n) * mi * sz;
    const S tol = tau_c * swi + floor;  // allowed violation of wᵢ ≥ 0 and of wᵢ = 0 where zᵢ > 0
    // zᵢ wᵢ ≤ s_z tol as (zᵢ / s_z) |wᵢ| ≤ tol: the product of two small numbers underflows
    // (float: 1e-28 · 1e-28 → 0, a violated row passing), the ratio zᵢ / s_z ≤ 1 cannot
    const S neg = s < S(0) ? -s : S(0), comp = (sz > S(0) ? abs(z.coeff(i)) / sz : S(0)) * abs(s);
    within = within && neg <= tol && comp <= tol;
    // relative violations (0/0 → 0): each divided by its row's scale
    if (neg > S(0)) vw = std::max(vw, neg / (swi + floor / tau_c));
    if (comp > S(0)) vc = std::max(vc, comp / (swi + floor / tau_c));
  }
  // z itself is not checked: it is clamped, and w is evaluated at the clamped z, so a slightly
  // negative zᵢ (an ill-conditioned basis: its forward error) costs only what it changes in w.
  // A regularized answer solves (M, q − ρ z) exactly: that shift must be within τ_c max|q|.
  const S shift = rho * sz;
  const S vr = shift > S(0) ? shift / sq : S(0);
  residual = std::max(vr, std::max(vw, vc));
  if (!(all_finite(z) && all_finite(w) && vw == vw && vc == vc && vr == vr))
    residual = std::numeric_limits<S>::quiet_NaN();
  const bool pass = residual == residual && within && shift <= tau_c * sq;
  // each ratio is ≤ τ_c exactly when its row passes, up to the rounding of the division
  if (pass && residual > tau_c) residual = tau_c;
  return pass;
}

template <class V>
void lcp_zero(V& v, int n, int max) {
  v.setZero(n >= 0 && n <= max ? n : 0);
}

/// The input rules of the file comment ("invalid_input"), sizes aside.
template <class S, int MaxN, class DM, class DQ>
bool lcp_inputs_valid(const Eigen::MatrixBase<DM>& M, const Eigen::MatrixBase<DQ>& q,
                      const LcpOptions<S, MaxN>& options) {
  const auto reg = static_cast<unsigned>(options.regularize);
  if (!(options.pivot_tolerance >= S(0) && options.pivot_tolerance <= S(1)) ||
      !(options.check_tolerance >= S(0) && options.check_tolerance <= S(1)) || options.max_pivots < 0 || reg > 2 ||
      !(options.covering.size() == 0 || options.covering.size() == q.rows()))
    return false;
  if (!all_within(M.derived(), input_limits::magnitude) || !all_within(q.derived(), input_limits::magnitude))
    return false;
  if (!all_within(options.covering, input_limits::magnitude)) return false;
  for (Eigen::Index i = 0; i < options.covering.size(); ++i)  // ≥ 0, and > 0 where the start is infeasible
    if (!(options.covering.coeff(i) >= S(0)) ||
        (options.covering.coeff(i) == S(0) && static_cast<S>(q.coeff(i)) < S(0)))
      return false;
  return true;
}

}  // namespace detail

/// Solves LCP(M, q) by Lemke's method (see the file comment for the algorithm, tolerances
/// and Status). `z` and `w` are resizable vectors holding up to MaxN entries (e.g.
/// `LcpWorkspace<S, MaxN>::Vector`); they get n = q.size() entries (zero unless ok).
/// M and q may be of any Eigen expression type with a scalar convertible to S.
template <class S, int MaxN, class DM, class DQ, class Z, class W>
Status solve_lcp_lemke(const Eigen::MatrixBase<DM>& M, const Eigen::MatrixBase<DQ>& q, Z& z, W& w,
                       LcpWorkspace<S, MaxN>& ws, const LcpOptions<S, MaxN>& options, LcpReport<S>& report) {
  static_assert(detail::holds_rows_up_to<Z, MaxN>(),
                "talus: z must be a resizable column vector of up to MaxN entries (LcpWorkspace::Vector)");
  static_assert(detail::holds_rows_up_to<W, MaxN>(),
                "talus: w must be a resizable column vector of up to MaxN entries (LcpWorkspace::Vector)");
  using std::abs;
  report = LcpReport<S>{};
  const Eigen::Index nq = q.rows();
  const bool q_ok = q.cols() == 1 && nq <= MaxN;
  const bool n_ok = q_ok && M.rows() == nq && M.cols() == nq;
  const int n = q_ok ? static_cast<int>(nq) : -1;  // z, w get n rows, or none when q is too long
  auto fail = [&](Status s, LcpExit e) {
    detail::lcp_zero(z, n, MaxN);
    detail::lcp_zero(w, n, MaxN);
    report.exit = e;
    return s;
  };
  const S eps = Eigen::NumTraits<S>::epsilon();
  if (!n_ok || !detail::lcp_inputs_valid(M, q, options)) return fail(Status::invalid_input, LcpExit::invalid_input);
  report.tolerance = options.check_tolerance;
  if (n == 0) {
    z.resize(0);
    w.resize(0);
    report.exit = LcpExit::trivial;
    return Status::ok;
  }
  // trivial answer z = 0 when q ≥ 0
  bool q_nonneg = true;
  for (int i = 0; i < n; ++i) q_nonneg = q_nonneg && static_cast<S>(q.coeff(i)) >= S(0);
  if (q_nonneg) {
    z.setZero(n);
    w.resize(n);
    for (int i = 0; i < n; ++i) w.coeffRef(i) = static_cast<S>(q.coeff(i));
    report.exit = LcpExit::trivial;
    return Status::ok;
  }
  const int cap = options.max_pivots > 0 ? options.max_pivots : 10 * n + 50;
  S m_max = S(0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m_max = std::max(m_max, abs(static_cast<S>(M.coeff(i, j))));
  const S rho_unit = S(n) * eps * std::max(S(1), m_max);
  const S rho_factors[3] = {S(1e2), S(1e4), S(1e6)};

  // the attempts, in order: plain; plain with the two other covering vectors; M + ρ_k I
  struct Attempt {
    S rho;
    int covering;  // 0: d; 1: dᵢ (1 + i/n); 2: dᵢ (2 − i/n)
  };
  Attempt plan[6];
  int attempts = 0;
  if (options.regularize != LcpRegularization::always) {
    plan[attempts++] = {S(0), 0};
    if (options.retry_covering) {
      plan[attempts++] = {S(0), 1};
      plan[attempts++] = {S(0), 2};
    }
  }
  if (options.regularize != LcpRegularization::none)
    for (const S f : rho_factors) plan[attempts++] = {f * rho_unit, 0};

  LcpExit first_exit = LcpExit::none;
  S first_residual = S(0);
  for (int k = 0; k < attempts; ++k) {
    const S rho = plan[k].rho;
    if (options.covering.size() != 0) ws.d = options.covering;
    else if (!options.covering_negative_q) ws.d.setOnes(n);
    else {
      ws.d.resize(n);
      for (int i = 0; i < n; ++i) ws.d.coeffRef(i) = static_cast<S>(q.coeff(i)) < S(0) ? S(1) : S(0);
    }
    if (plan[k].covering != 0)
      for (int i = 0; i < n; ++i) ws.d.coeffRef(i) *= plan[k].covering == 1 ? S(1) + S(i) / S(n) : S(2) - S(i) / S(n);
    report.attempts += 1;
    LcpExit e = detail::lemke_run(M, q, rho, n, cap, options.pivot_tolerance, ws, report.pivots);
    S residual = S(0);
    if (e == LcpExit::solved) {
      if (detail::lcp_check(M, q, n, options.check_tolerance, rho, ws, z, w, residual)) {
        if (all_finite(z) && all_finite(w)) {
          report.exit = LcpExit::solved;
          report.residual = residual;
          report.regularization = rho;
          return Status::ok;
        }
        e = LcpExit::non_finite;
      } else {
        e = residual == residual ? LcpExit::check_failed : LcpExit::non_finite;
      }
    }
    if (k == 0) {
      first_exit = e;
      first_residual = residual;
    }
  }
  report.residual = first_residual;
  switch (first_exit) {
    case LcpExit::pivot_cap: return fail(Status::not_converged, first_exit);
    case LcpExit::non_finite: return fail(Status::overflow, first_exit);
    default: return fail(Status::singular, first_exit);
  }
}

/// Accepts a candidate answer of LCP(M, q) found by other means (a guess of the active set,
/// the last cycle's answer) when it passes the same check as solve_lcp_lemke's answers (file
/// comment, "Tolerances": z clamped ≥ 0, w = M z + q at the clamped z, each row against its
/// own terms, options.check_tolerance). No pivot: about 2 n² flops. Then z (clamped), w,
/// Status::ok and LcpReport::exit = guess (pivots and attempts 0, residual the check's).
/// Otherwise z and w zero and Status::singular with exit check_failed (a non-finite
/// candidate: exit non_finite); invalid_input (exit invalid_input) as solve_lcp_lemke, and
/// also for a candidate of the wrong size or with NaN/Inf or |entry| > input_limits::magnitude.
/// A caller whose guess fails goes on with solve_lcp_lemke (contact_dynamics.hpp does).
template <class S, int MaxN, class DM, class DQ, class G, class Z, class W>
Status check_lcp_guess(const Eigen::MatrixBase<DM>& M, const Eigen::MatrixBase<DQ>& q,
                       const Eigen::MatrixBase<G>& guess, Z& z, W& w, LcpWorkspace<S, MaxN>& ws,
                       const LcpOptions<S, MaxN>& options, LcpReport<S>& report) {
  static_assert(detail::holds_rows_up_to<Z, MaxN>(),
                "talus: z must be a resizable column vector of up to MaxN entries (LcpWorkspace::Vector)");
  static_assert(detail::holds_rows_up_to<W, MaxN>(),
                "talus: w must be a resizable column vector of up to MaxN entries (LcpWorkspace::Vector)");
  report = LcpReport<S>{};
  const Eigen::Index nq = q.rows();
  const bool q_ok = q.cols() == 1 && nq <= MaxN;
  const int n = q_ok ? static_cast<int>(nq) : -1;
  auto fail = [&](Status s, LcpExit e) {
    detail::lcp_zero(z, n, MaxN);
    detail::lcp_zero(w, n, MaxN);
    report.exit = e;
    return s;
  };
  if (!(q_ok && M.rows() == nq && M.cols() == nq && guess.rows() == nq && guess.cols() == 1) ||
      !detail::lcp_inputs_valid(M, q, options) || !all_within(guess.derived(), input_limits::magnitude))
    return fail(Status::invalid_input, LcpExit::invalid_input);
  report.tolerance = options.check_tolerance;
  ws.z.resize(n);
  for (int i = 0; i < n; ++i) ws.z.coeffRef(i) = static_cast<S>(guess.coeff(i));
  S residual = S(0);
  const bool pass = detail::lcp_check(M, q, n, options.check_tolerance, S(0), ws, z, w, residual);
  report.residual = residual;
  if (pass && all_finite(z) && all_finite(w)) {
    report.exit = LcpExit::guess;
    return Status::ok;
  }
  return fail(residual == residual ? Status::singular : Status::overflow,
              residual == residual ? LcpExit::check_failed : LcpExit::non_finite);
}

/// solve_lcp_lemke with default options; the report is discarded.
template <class S, int MaxN, class DM, class DQ, class Z, class W>
Status solve_lcp_lemke(const Eigen::MatrixBase<DM>& M, const Eigen::MatrixBase<DQ>& q, Z& z, W& w,
                       LcpWorkspace<S, MaxN>& ws) {
  LcpReport<S> report;
  return solve_lcp_lemke(M, q, z, w, ws, LcpOptions<S, MaxN>{}, report);
}

}  // namespace talus
