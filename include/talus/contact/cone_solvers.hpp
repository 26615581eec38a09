#pragma once
/// \file cone_solvers.hpp
/// Frictional contact with the exact (circular) Coulomb cone: projected Gauss–Seidel
/// (solve_cone_pgs) and ADMM (solve_cone_admm), after Pinocchio 3's PGSContactSolver and
/// ADMMContactSolver (Carpentier et al., "Proximal and sparse resolution of constrained
/// dynamic equations", RSS 2021; Le Lidec et al., "Contact models in robotics", 2024), with
/// fixed-capacity storage and a checked answer.
///
/// **Problem.** nc point contacts. Contact i has a force fᵢ = (f_n, f_t1, f_t2) in its contact
/// frame (N; normal FIRST, f_n ≥ 0 pushes the robot away from the ground; Pinocchio puts the
/// normal last) and a friction coefficient μᵢ ≥ 0. The Delassus matrix W = J P Jᵀ (3nc × 3nc,
/// symmetric PSD; J stacks each contact's rows n, t1, t2; P = M⁻¹ for accelerations, or
/// M⁻¹ dt for velocities) and the free term b (3nc: the contact velocity, m/s, or
/// acceleration, m/s², without contact forces; b_n < 0 is approaching) give
///
///     σ = W f + b,     σᵢ = (σ_n, σ_t) the contact velocity (acceleration) of contact i.
///
/// Find f with, for every contact, fᵢ ∈ Kᵢ = {‖f_t‖ ≤ μᵢ f_n} and one of (Coulomb's law):
///     separating  fᵢ = 0,   σ_n ≥ 0;
///     sticking    σᵢ = 0,   fᵢ ∈ Kᵢ;
///     sliding     ‖f_t‖ = μᵢ f_n > 0,  σ_n = 0,  f_t = −μᵢ f_n σ_t/‖σ_t‖ (maximum dissipation).
/// With the De Saxcé correction σ̃ᵢ = σᵢ + (μᵢ‖σ_t‖, 0, 0) these three cases are exactly the
/// cone complementarity conditions (De Saxcé and Feng 1998; Acary and Brogliato 2008)
///
///     Kᵢ ∋ fᵢ ⊥ σ̃ᵢ ∈ Kᵢ* = {μᵢ‖σ̃_t‖ ≤ σ̃_n},                                    (NCP)
///
/// a nonlinear (non-monotone) complementarity problem: a solution exists for W PSD with the
/// usual feasibility (W positive definite suffices), but it need not be unique, and neither
/// method below is proven to converge on it when friction is active. For μ = 0 it is the LCP
/// (W_nn, b_n) (f_t = 0), and when the solution sticks it is the linear system W f = −b.
///
/// **PGS** (as Pinocchio's PGSContactSolver). A sweep visits the contacts in order; contact i
/// first updates its normal force with the others fixed, f_n ← max(0, f_n − ω σ_n / W_nn),
/// then its tangential force: the exact minimiser of the contact's own energy
/// ½ f_tᵀ W_tt f_t + f_tᵀ(σ_t − W_tt f_t) over the disk ‖f_t‖ ≤ μ f_n (a 2-D trust-region
/// problem, solved by Moré–Sorensen Newton steps on the multiplier, at most 32), relaxed by ω
/// and put back in the disk. Pinocchio takes one projected-gradient step of size
/// 1/min(W_t1t1, W_t2t2) here instead, which is the same step for an isotropic tangent block
/// but overshoots (step > 2/λmax) for an anisotropic one. σ is updated column-wise after each
/// contact, so a sweep costs (3nc)² multiply-adds, and the check 2 (3nc)² more. A fixed point
/// satisfies every case of Coulomb's law above, i.e. (NCP). For μ = 0 this is projected SOR
/// on the SPD LCP (W_nn, b_n), convergent for 0 < ω < 2 (Cryer 1971); with friction there is
/// no convergence proof (nor in Pinocchio). Needs W_nn > 0 for every contact and W_tt
/// positive definite for every contact with μ > 0 (else Status::singular).
///
/// **ADMM** (as Pinocchio's ADMMContactSolver). For a fixed shift s (sᵢ = (μᵢ‖σ_t‖, 0, 0)),
/// (NCP) is the optimality condition of the convex cone QP min ½ fᵀW f + (b + s)ᵀ f over
/// f ∈ K. ADMM splits it as x = y, y ∈ K, with multiplier z (a velocity: z → σ̃):
///
///     s ← (μᵢ‖z_t,i‖, 0, 0)ᵢ                  (De Saxcé shift, a fixed-point update)
///     x ← (W + ρ I)⁻¹ (ρ y + z − b − s)        (Cholesky of W + ρI, refactored when ρ changes)
///     y ← proj_K(x − z/ρ)                      (per contact, closed form)
///     z ← z − ρ (x − y)
///
/// A fixed point has x = y, z = W y + b + s = σ̃ and K ∋ y ⊥ z ∈ K*: (NCP) at f = y. Started
/// at y = proj_K(f₀), z = proj_K*(σ̃(y)). ρ (units of W) adapts: with the relative residuals
/// r_p = ‖x − y‖∞/s_f and r_d = ρ‖y − y_prev‖∞/s_σ (scales below), ρ is multiplied by
/// rho_update_factor when r_p > rho_update_ratio · r_d and divided by it when
/// r_d > rho_update_ratio · r_p. Pinocchio differs in details: it compares the raw residuals
/// (in different units), its factor is (λmax(W)/10⁻⁶)^0.05, it uses the penalty τρ with
/// τ = 0.5 and a proximal term 10⁻⁶ (x − x_prev) (not needed here: ρ > 0 makes W + ρI
/// positive definite). ρ stays in [√ε, 1/√ε]·max W_kk (else Status::singular: W is not PSD).
/// Cost per iteration 3 (3nc)² multiply-adds (solve and check), plus (3nc)³/6 per
/// refactorization. For μ = 0 the shift is zero and this is ADMM on a convex QP, convergent
/// for a fixed ρ (rho_update_factor = 1); the shift update has no convergence proof (nor in
/// Pinocchio). Both solvers converged on every frictional problem of tests/cone_solvers_test.cpp.
///
/// **The check** (both solvers, on the start point and after every iteration, or every
/// check_interval-th and the last; τ_a = absolute_tolerance in each residual's units,
/// τ_r = relative_tolerance). With σ = W f + b
/// recomputed at the candidate, s_f = max |f_k| and s_σ = max_k (|b_k| + Σ_j |W_kj| |f_j|) (the
/// size of the terms of σ, which bounds its rounding error):
///     primal_residual = maxᵢ dist(fᵢ, Kᵢ)          ≤ τ_a + τ_r s_f
///     dual_residual   = maxᵢ dist(σ̃ᵢ, Kᵢ*)         ≤ τ_a + τ_r s_σ
///     complementarity = maxᵢ |fᵢ · σ̃ᵢ|             ≤ τ_a + τ_r s_f s_σ.
/// The dual residual and the complementarity each include the rounding bound of the De Saxcé
/// term, 2 n ε μᵢ s_σ (times s_f for the complementarity), n = 3nc: σ_t is known to n ε s_σ
/// and σ̃_n = σ_n + μ‖σ_t‖ multiplies that by μ. So a residual is an upper bound on the exact
/// one, and where the bound alone exceeds the tolerance (float with μ n ε ≳ τ_r, e.g. μ ≳ 300
/// for 4 contacts at the default τ_r) no answer passes: not_converged, never a false ok.
/// The answer f is accepted only when all three hold (ConeSolverReport then holds them).
/// Defaults τ_a = 0, τ_r = √ε (1.5e-8 double, 3.5e-4 float). The iteration count is the
/// number of sweeps (PGS) or ADMM steps done; 0 when the start point (f = 0, or the warm
/// start) already passes.
///
/// **Status** (f zero unless ok, with 3nc entries, none when nc > MaxContacts; nothing
/// allocates, nothing throws; max_iterations bounds the outer loop, 32 the Newton steps):
/// - ok: f passes the check.
/// - invalid_input: W not 3nc × 3nc or b not 3nc (nc = μ.size()), NaN/Inf or |x| >
///   input_limits::magnitude in W, b, μ (or in f when warm_start), μᵢ < 0, W not symmetric
///   (|W_ij − W_ji| > √ε max |W|), a bad option (tolerance negative/NaN, τ_r > 1,
///   max_iterations < 1, check_interval < 1, over_relaxation outside (0, 2), rho < 0, rho_update_ratio < 1,
///   rho_update_factor < 1, a value above input_limits::magnitude), or warm_start with an f
///   that does not have 3nc entries.
/// - capacity_exceeded: nc > MaxContacts.
/// - singular: PGS: a diagonal block is not invertible (W_nn or λmin(W_tt) ≤ 3nc ε max W_kk);
///   ADMM: W + ρI is not positive definite (W is not PSD).
/// - not_converged: max_iterations reached; the report keeps the last iterate's residuals.
/// - overflow: inputs valid but a value became non-finite.
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Core>

#include <talus/linalg/cholesky.hpp>
#include <talus/linalg/finite.hpp>
#include <talus/linalg/sizes.hpp>
#include <talus/status.hpp>

namespace talus {

/// How a solve ended (ConeSolverReport::exit).
enum class ConeSolverExit : unsigned char {
  none,           ///< not run
  solved,         ///< the answer passed the check
  iteration_cap,  ///< max_iterations reached (Status::not_converged)
  singular,       ///< see Status::singular in the file comment
  invalid_input,  ///< Status::invalid_input
  capacity,       ///< nc > MaxContacts (Status::capacity_exceeded)
  non_finite,     ///< a value became Inf/NaN (Status::overflow)
};

constexpr const char* to_string(ConeSolverExit e) {
  switch (e) {
    case ConeSolverExit::none: return "none";
    case ConeSolverExit::solved: return "solved";
    case ConeSolverExit::iteration_cap: return "iteration_cap";
    case ConeSolverExit::singular: return "singular";
    case ConeSolverExit::invalid_input: return "invalid_input";
    case ConeSolverExit::capacity: return "capacity";
    case ConeSolverExit::non_finite: return "non_finite";
  }
  return "unknown";
}

/// Options of solve_cone_pgs and solve_cone_admm (see the file comment).
template <class S>
struct ConeSolverOptions {
  /// Hard cap on sweeps (PGS) or steps (ADMM), ≥ 1. 100 as in Pinocchio; at the default
  /// tolerance random 8-contact frictional problems took up to ~70 (PGS) and ~180 (ADMM).
  int max_iterations = 100;
  S absolute_tolerance = S(0);                                       ///< τ_a, in each residual's units, ≥ 0
  S relative_tolerance = std::sqrt(Eigen::NumTraits<S>::epsilon());  ///< τ_r in [0, 1]
  S over_relaxation = S(1);                                          ///< PGS ω in (0, 2)
  S rho = S(0);                ///< ADMM initial ρ ≥ 0; 0: automatic, 0.1 · trace(W)/(3nc)
  S rho_update_ratio = S(10);  ///< ADMM: adapt ρ when one residual exceeds this × the other (≥ 1)
  S rho_update_factor = S(2);  ///< ADMM: ρ is multiplied or divided by it (≥ 1; 1: fixed ρ)
  bool warm_start = false;     ///< start from f's incoming value (else from f = 0)
  /// The check (file comment) runs after every check_interval-th sweep or step and after the
  /// last one allowed (≥ 1). Above 1 a solve may do up to check_interval − 1 more iterations
  /// than it needed, each without the check's cost (about as much as the iteration's own): for
  /// a caller with a small cap that mostly uses the last iterate (a control loop continuing
  /// the solve over its steps, warm-started). ADMM adapts ρ only after a checked iteration (on
  /// the check's scales), so at most once per check_interval iterations (one refactorization).
  int check_interval = 1;
};

/// What a solve did; the residuals are those of the accepted (or last) iterate.
template <class S>
struct ConeSolverReport {
  int iterations = 0;
  S primal_residual = S(0);  ///< maxᵢ dist(fᵢ, Kᵢ), N
  S dual_residual = S(0);    ///< maxᵢ dist(σ̃ᵢ, Kᵢ*) + its rounding bound (file comment), m/s (or m/s²)
  S complementarity = S(0);  ///< maxᵢ |fᵢ · σ̃ᵢ| + its rounding bound
  /// What each residual was held to at the last check (file comment): ta + tr s_f, ta + tr s_σ,
  /// ta + tr s_f s_σ; ok ⇒ each residual ≤ its tolerance.
  S primal_tolerance = S(0);
  S dual_tolerance = S(0);
  S complementarity_tolerance = S(0);
  S rho = S(0);              ///< ADMM: final ρ (0 for PGS)
  int refactorizations = 0;  ///< ADMM: Cholesky factorizations of W + ρI
  ConeSolverExit exit = ConeSolverExit::none;
  /// The three residuals as one pair (status.hpp): value = the largest residualᵢ /
  /// toleranceᵢ (0/0 → 0, r/0 → ∞), tolerance 1, so ok ⇒ value ≤ 1; {0, 0} when no iterate
  /// was checked (exit none, invalid_input, capacity).
  Residual<S> evidence() const {
    if (exit == ConeSolverExit::none || exit == ConeSolverExit::invalid_input || exit == ConeSolverExit::capacity)
      return {};
    const auto ratio = [](S r, S t) {
      if (!(r > S(0))) return r == r ? S(0) : r;  // NaN stays NaN
      return t > S(0) ? r / t : std::numeric_limits<S>::infinity();
    };
    const S a = ratio(primal_residual, primal_tolerance), b = ratio(dual_residual, dual_tolerance),
            c = ratio(complementarity, complementarity_tolerance);
    if (!(a == a && b == b && c == c)) return {std::numeric_limits<S>::quiet_NaN(), S(1)};
    return {std::max(a, std::max(b, c)), S(1)};
  }
};

/// Fixed-capacity storage (about 9 MaxContacts² + 18 MaxContacts scalars); reusable, never
/// allocates. One per thread of solves.
template <class S, int MaxContacts>
struct ConeSolverWorkspace {
  static_assert(MaxContacts >= 1, "talus: ConeSolverWorkspace needs MaxContacts >= 1");
  using Scalar = S;
  static constexpr int max_contacts = MaxContacts;
  static constexpr int max_rows = 3 * MaxContacts;
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, 3 * MaxContacts, 1>;
  using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, 3 * MaxContacts, 3 * MaxContacts>;
  Matrix L;        ///< ADMM: Cholesky factor of W + ρI (lower triangle)
  Vector sigma;    ///< σ = W f + b at the last checked iterate (kept current within a PGS sweep)
  Vector x, y, z;  ///< PGS iterate in x; ADMM variables
  Vector rhs;      ///< scratch for a caller's right-hand side (contact_dynamics.hpp's step)
};

namespace detail {

/// √(a² + b²) without losing a tiny or a huge pair to the squares: the plain sum when it is
/// in the range where an underflowed square is below rounding (≥ min/ε) and nothing
/// overflowed, else std::hypot. Without it a tangential force or velocity below ~1e-19
/// (float; 1e-154 double) read as 0, and the check passed a force outside the cone.
template <class S>
S norm2(S a, S b) {
  using std::sqrt;
  const S s = a * a + b * b;
  if (s >= std::numeric_limits<S>::min() / Eigen::NumTraits<S>::epsilon() && s <= std::numeric_limits<S>::max())
    return sqrt(s);
  if (a == S(0) && b == S(0)) return S(0);  // a contact strictly inside its cone (z = 0): often, and hypot is dear
  return std::hypot(a, b);                  // NaN when a or b is NaN (and not ±∞), as the sum
}

/// Projection of v (3 entries from index k, normal first) onto K_μ, in place.
template <class S, class V>
void cone_project(S mu, V& v, int k) {
  const S n = v.coeff(k), t = norm2<S>(v.coeff(k + 1), v.coeff(k + 2));
  if (t <= mu * n && n >= S(0)) return;  // inside (n ≥ 0 tested too: for μ = 0, t = 0 and −0 ≤ 0·n)
  if (mu * t <= -n) {                    // in the polar cone −K*: projects to the apex
    v.coeffRef(k) = v.coeffRef(k + 1) = v.coeffRef(k + 2) = S(0);
    return;
  }
  // onto the boundary ray (1, μ u)/√(1 + μ²), u = v_t/t (t > 0 here)
  const S a = (n + mu * t) / (S(1) + mu * mu);
  v.coeffRef(k) = a;
  v.coeffRef(k + 1) *= mu * a / t;
  v.coeffRef(k + 2) *= mu * a / t;
}

/// dist(v, K) = ‖v − proj_K(v)‖ for the 3-vector v = (n, t1, t2).
template <class S>
S cone_distance(S mu, S n, S t1, S t2) {
  Eigen::Matrix<S, 3, 1> p(n, t1, t2);
  cone_project(mu, p, 0);
  return norm2(n - p(0), norm2(t1 - p(1), t2 - p(2)));
}

/// dist(v, K*) = ‖proj_K(−v)‖ (Moreau: v = proj_K*(v) − proj_K(−v), the two orthogonal).
template <class S>
S dual_cone_distance(S mu, S n, S t1, S t2) {
  Eigen::Matrix<S, 3, 1> p(-n, -t1, -t2);
  cone_project(mu, p, 0);
  return norm2(p(0), norm2(p(1), p(2)));
}

/// The check of the file comment at f (entries of v): computes ws.sigma = W f + b, the
/// report's residuals and the scales s_f, s_σ; true when f passes.
template <class S, int MaxC, class DW, class DB, class DMu, class V>
bool cone_check(const Eigen::MatrixBase<DW>& W, const Eigen::MatrixBase<DB>& b, const Eigen::MatrixBase<DMu>& mu,
                const V& f, int nc, const ConeSolverOptions<S>& o, ConeSolverWorkspace<S, MaxC>& ws,
                ConeSolverReport<S>& report, S& sf, S& ss) {
  using std::abs;
  using std::sqrt;
  const int n = 3 * nc;
  sf = S(0);
  ss = S(0);
  ws.sigma.resize(n);
  S f_abs[3 * MaxC];
  for (int j = 0; j < n; ++j) {
    f_abs[j] = abs(f.coeff(j));
    sf = std::max(sf, f_abs[j]);
  }
  for (int k = 0; k < n; ++k) {
    S s = static_cast<S>(b.coeff(k)), a = abs(s);
    for (int j = 0; j < n; ++j) {
      const S w = static_cast<S>(W.coeff(k, j));
      s += w * f.coeff(j);
      a += abs(w) * f_abs[j];
    }
    ws.sigma.coeffRef(k) = s;
    ss = std::max(ss, a);
  }
  S p = S(0), d = S(0), c = S(0);
  const S rounding = S(2) * S(n) * Eigen::NumTraits<S>::epsilon() * ss;  // of σ_t, before μ (file comment)
  for (int i = 0; i < nc; ++i) {
    const int k = 3 * i;
    const S m = static_cast<S>(mu.coeff(i));
    const S st1 = ws.sigma.coeff(k + 1), st2 = ws.sigma.coeff(k + 2);
    const S sn = ws.sigma.coeff(k) + m * norm2(st1, st2);  // De Saxcé: σ̃_n
    p = std::max(p, cone_distance(m, f.coeff(k), f.coeff(k + 1), f.coeff(k + 2)));
    d = std::max(d, dual_cone_distance(m, sn, st1, st2) + m * rounding);
    c = std::max(c, abs(f.coeff(k) * sn + f.coeff(k + 1) * st1 + f.coeff(k + 2) * st2) + m * rounding * sf);
  }
  report.primal_residual = p;
  report.dual_residual = d;
  report.complementarity = c;
  const S ta = o.absolute_tolerance, tr = o.relative_tolerance;
  report.primal_tolerance = ta + tr * sf;
  report.dual_tolerance = ta + tr * ss;
  report.complementarity_tolerance = ta + tr * sf * ss;
  // NaN fails every comparison: a non-finite iterate never passes
  return p <= report.primal_tolerance && d <= report.dual_tolerance && c <= report.complementarity_tolerance &&
         all_finite(f) && all_finite(ws.sigma);
}

/// Whether iteration `it` (1-based) ends with the check: every check_interval-th, and the last.
template <class S>
bool check_due(int it, const ConeSolverOptions<S>& o) {
  return it % o.check_interval == 0 || it == o.max_iterations;
}

/// Input checks shared by both solvers (file comment, Status). nc = μ.size().
template <class S, int MaxC, class DW, class DB, class DMu, class F>
ConeSolverExit cone_validate(const Eigen::MatrixBase<DW>& W, const Eigen::MatrixBase<DB>& b,
                             const Eigen::MatrixBase<DMu>& mu, const F& f, const ConeSolverOptions<S>& o) {
  using std::abs;
  const Eigen::Index nc = mu.size(), n = 3 * nc;
  if (mu.cols() != 1 || b.cols() != 1 || W.rows() != n || W.cols() != n || b.rows() != n)
    return ConeSolverExit::invalid_input;
  if (nc > MaxC) return ConeSolverExit::capacity;
  const S mag = S(input_limits::magnitude);
  if (!(o.max_iterations >= 1 && o.check_interval >= 1 && o.absolute_tolerance >= S(0) && o.absolute_tolerance <= mag &&
        o.relative_tolerance >= S(0) && o.relative_tolerance <= S(1) && o.over_relaxation > S(0) &&
        o.over_relaxation < S(2) && o.rho >= S(0) && o.rho <= mag && o.rho_update_ratio >= S(1) &&
        o.rho_update_ratio <= mag && o.rho_update_factor >= S(1) && o.rho_update_factor <= mag))
    return ConeSolverExit::invalid_input;
  if (!all_within(b.derived(), input_limits::magnitude) || !all_within(mu.derived(), input_limits::magnitude))
    return ConeSolverExit::invalid_input;
  for (Eigen::Index i = 0; i < nc; ++i)
    if (!(static_cast<S>(mu.coeff(i)) >= S(0))) return ConeSolverExit::invalid_input;
  // W: every entry within the magnitude limit (NaN fails it) and symmetric, in one pass over
  // the pairs (i, j ≤ i)
  S wmax = S(0), asym = S(0);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j <= i; ++j) {
      const S wij = static_cast<S>(W.coeff(i, j)), wji = static_cast<S>(W.coeff(j, i));
      if (!(abs(wij) <= mag && abs(wji) <= mag)) return ConeSolverExit::invalid_input;  // NaN fails too
      wmax = std::max(wmax, std::max(abs(wij), abs(wji)));
      asym = std::max(asym, abs(wij - wji));
    }
  if (asym > std::sqrt(Eigen::NumTraits<S>::epsilon()) * wmax) return ConeSolverExit::invalid_input;
  if (o.warm_start && (f.size() != n || !all_within(f, input_limits::magnitude))) return ConeSolverExit::invalid_input;
  return ConeSolverExit::none;
}

/// Ends a solve: on failure f ← 0 (3nc entries, none when nc exceeds the capacity).
template <class S, class F>
Status cone_finish(ConeSolverExit e, F& f, Eigen::Index nc, int max_contacts, ConeSolverReport<S>& report) {
  report.exit = e;
  Status s = Status::ok;
  switch (e) {
    case ConeSolverExit::solved: return Status::ok;
    case ConeSolverExit::iteration_cap: s = Status::not_converged; break;
    case ConeSolverExit::singular: s = Status::singular; break;
    case ConeSolverExit::capacity: s = Status::capacity_exceeded; break;
    case ConeSolverExit::non_finite: s = Status::overflow; break;
    default: s = Status::invalid_input; break;
  }
  f.setZero(nc >= 0 && nc <= max_contacts ? 3 * nc : 0);
  return s;
}

/// argmin ½ xᵀA x + gᵀx over ‖x‖ ≤ r, A = [a c; c d] positive definite (2-D trust region).
/// Interior: x = −A⁻¹g. Else (A + λI) x = −g with ‖x‖ = r, λ > 0 by Newton on
/// 1/r − 1/‖x(λ)‖ (Moré and Sorensen 1983: concave, so the iterates from λ = 0 increase
/// monotonically to the root), at most 32 steps, then x is put exactly on the circle.
template <class S>
void disk_qp(S a, S c, S d, S g0, S g1, S r, S& x0, S& x1) {
  using std::sqrt;
  x0 = x1 = S(0);
  if (!(r > S(0))) return;
  const S eps = Eigen::NumTraits<S>::epsilon();
  S lam = S(0), nx = S(0);
  for (int k = 0; k < 32; ++k) {
    const S p = a + lam, q = d + lam, det = p * q - c * c;
    x0 = -(q * g0 - c * g1) / det;
    x1 = -(p * g1 - c * g0) / det;
    nx = sqrt(x0 * x0 + x1 * x1);
    if (k == 0 && nx <= r) return;
    if (!(nx > r * (S(1) + S(4) * eps))) break;  // on the circle (or NaN: the caller's check fails)
    const S w0 = (q * x0 - c * x1) / det, w1 = (p * x1 - c * x0) / det;  // (A + λI)⁻¹ x
    lam += (nx - r) / r * nx * nx / (x0 * w0 + x1 * w1);
  }
  if (nx > S(0)) {
    x0 *= r / nx;
    x1 *= r / nx;
  }
}

}  // namespace detail

/// Projected Gauss–Seidel on (NCP) (file comment). W (3nc × 3nc), b (3nc), mu (nc) of any
/// Eigen type with a scalar convertible to S; f a resizable vector of up to 3 MaxContacts
/// entries (ConeSolverWorkspace::Vector), the start when options.warm_start.
template <class S, int MaxC, class DW, class DB, class DMu, class F>
Status solve_cone_pgs(const Eigen::MatrixBase<DW>& W, const Eigen::MatrixBase<DB>& b, const Eigen::MatrixBase<DMu>& mu,
                      F& f, ConeSolverWorkspace<S, MaxC>& ws, const ConeSolverOptions<S>& options,
                      ConeSolverReport<S>& report) {
  static_assert(
      detail::holds_rows_up_to<F, 3 * MaxC>(),
      "talus: f must be a resizable column vector of up to 3 MaxContacts entries (ConeSolverWorkspace::Vector)");
  using std::abs;
  using std::sqrt;
  report = ConeSolverReport<S>{};
  const Eigen::Index ncx = mu.size();
  ConeSolverExit e = detail::cone_validate<S, MaxC>(W, b, mu, f, options);
  if (e != ConeSolverExit::none) return detail::cone_finish(e, f, ncx, MaxC, report);
  const int nc = static_cast<int>(ncx), n = 3 * nc;
  // Diagonal blocks: W_nn > 0, W_tt positive definite when μ > 0, above the rounding level.
  S dmax = S(0);
  for (int k = 0; k < n; ++k) dmax = std::max(dmax, abs(static_cast<S>(W.coeff(k, k))));
  const S tiny = S(n) * Eigen::NumTraits<S>::epsilon() * dmax;
  for (int i = 0; i < nc; ++i) {
    const int k = 3 * i;
    const S a = static_cast<S>(W.coeff(k + 1, k + 1)), d = static_cast<S>(W.coeff(k + 2, k + 2));
    const S c = static_cast<S>(W.coeff(k + 1, k + 2));
    const S lmin = (a + d) / S(2) - sqrt((a - d) * (a - d) / S(4) + c * c);
    if (!(static_cast<S>(W.coeff(k, k)) > tiny) || (static_cast<S>(mu.coeff(i)) > S(0) && !(lmin > tiny)))
      return detail::cone_finish(ConeSolverExit::singular, f, ncx, MaxC, report);
  }
  if (options.warm_start) ws.x = f;
  else ws.x.setZero(n);
  S sf = S(0), ss = S(0);                                                     // the check's scales s_f, s_σ
  if (detail::cone_check(W, b, mu, ws.x, nc, options, ws, report, sf, ss)) {  // the start already solves it
    f = ws.x;
    return detail::cone_finish(ConeSolverExit::solved, f, ncx, MaxC, report);
  }
  const S w = options.over_relaxation;
  for (int it = 1; it <= options.max_iterations; ++it) {
    report.iterations = it;
    for (int i = 0; i < nc; ++i) {
      const int k = 3 * i;
      const S mui = static_cast<S>(mu.coeff(i));
      const S Wnn = static_cast<S>(W.coeff(k, k));
      const S a = static_cast<S>(W.coeff(k + 1, k + 1)), c = static_cast<S>(W.coeff(k + 1, k + 2));
      const S d = static_cast<S>(W.coeff(k + 2, k + 2));
      const S fn0 = ws.x.coeff(k), ft1 = ws.x.coeff(k + 1), ft2 = ws.x.coeff(k + 2);
      const S fn = std::max(S(0), fn0 - w * ws.sigma.coeff(k) / Wnn);
      // tangential velocity after the normal update, then its constant part g = σ_t − W_tt f_t
      const S st1 = ws.sigma.coeff(k + 1) + static_cast<S>(W.coeff(k + 1, k)) * (fn - fn0);
      const S st2 = ws.sigma.coeff(k + 2) + static_cast<S>(W.coeff(k + 2, k)) * (fn - fn0);
      S x1 = S(0), x2 = S(0);
      const S r = mui * fn;
      if (r > S(0)) {
        detail::disk_qp(a, c, d, st1 - a * ft1 - c * ft2, st2 - c * ft1 - d * ft2, r, x1, x2);
        x1 = ft1 + w * (x1 - ft1);  // relaxation, then back into the disk (ω > 1 can leave it)
        x2 = ft2 + w * (x2 - ft2);
        const S nx = sqrt(x1 * x1 + x2 * x2);
        if (nx > r) {
          x1 *= r / nx;
          x2 *= r / nx;
        }
      }
      const S dn = fn - fn0, d1 = x1 - ft1, d2 = x2 - ft2;
      ws.x.coeffRef(k) = fn;
      ws.x.coeffRef(k + 1) = x1;
      ws.x.coeffRef(k + 2) = x2;
      for (int j = 0; j < n; ++j)  // σ += W(:, block i) Δfᵢ
        ws.sigma.coeffRef(j) += static_cast<S>(W.coeff(j, k)) * dn + static_cast<S>(W.coeff(j, k + 1)) * d1 +
                                static_cast<S>(W.coeff(j, k + 2)) * d2;
    }
    // the check recomputes σ = W f + b from scratch: no drift from the column updates
    if (detail::check_due(it, options) && detail::cone_check(W, b, mu, ws.x, nc, options, ws, report, sf, ss)) {
      f = ws.x;
      return detail::cone_finish(ConeSolverExit::solved, f, ncx, MaxC, report);
    }
    if (!(all_finite(ws.x) && all_finite(ws.sigma)))
      return detail::cone_finish(ConeSolverExit::non_finite, f, ncx, MaxC, report);
  }
  return detail::cone_finish(ConeSolverExit::iteration_cap, f, ncx, MaxC, report);
}

namespace detail {

/// ws.L ← Cholesky factor of W + ρI (lower triangle, cholesky_factor); false if a pivot is
/// not > 0.
template <class S, int MaxC, class DW>
bool cone_cholesky(const Eigen::MatrixBase<DW>& W, S rho, int n, ConeSolverWorkspace<S, MaxC>& ws) {
  ws.L.resize(n, n);
  for (int j = 0; j < n; ++j) {
    ws.L.coeffRef(j, j) = static_cast<S>(W.coeff(j, j)) + rho;
    for (int i = j + 1; i < n; ++i) ws.L.coeffRef(i, j) = static_cast<S>(W.coeff(i, j));
  }
  return cholesky_factor(ws.L, n) == Status::ok;
}

/// v ← (L Lᵀ)⁻¹ v, in place, with the factor of cone_cholesky.
template <class S, int MaxC>
void cone_chol_solve(ConeSolverWorkspace<S, MaxC>& ws, int n, typename ConeSolverWorkspace<S, MaxC>::Vector& v) {
  cholesky_solve_unchecked(ws.L, n, v);
}

}  // namespace detail

/// ADMM on (NCP) with the De Saxcé shift (file comment). Same arguments as solve_cone_pgs;
/// report.rho is the final penalty.
template <class S, int MaxC, class DW, class DB, class DMu, class F>
Status solve_cone_admm(const Eigen::MatrixBase<DW>& W, const Eigen::MatrixBase<DB>& b, const Eigen::MatrixBase<DMu>& mu,
                       F& f, ConeSolverWorkspace<S, MaxC>& ws, const ConeSolverOptions<S>& options,
                       ConeSolverReport<S>& report) {
  static_assert(
      detail::holds_rows_up_to<F, 3 * MaxC>(),
      "talus: f must be a resizable column vector of up to 3 MaxContacts entries (ConeSolverWorkspace::Vector)");
  using std::abs;
  using std::sqrt;
  report = ConeSolverReport<S>{};
  const Eigen::Index ncx = mu.size();
  ConeSolverExit e = detail::cone_validate<S, MaxC>(W, b, mu, f, options);
  if (e != ConeSolverExit::none) return detail::cone_finish(e, f, ncx, MaxC, report);
  const int nc = static_cast<int>(ncx), n = 3 * nc;
  // start: y = proj_K(f₀), x = y, z = proj_K*(σ̃(y))
  if (options.warm_start) ws.y = f;
  else ws.y.setZero(n);
  for (int i = 0; i < nc; ++i) detail::cone_project(static_cast<S>(mu.coeff(i)), ws.y, 3 * i);
  ws.x = ws.y;
  S sf = S(0), ss = S(0);  // the check's scales s_f, s_σ
  if (detail::cone_check(W, b, mu, ws.y, nc, options, ws, report, sf, ss)) {
    f = ws.y;
    return detail::cone_finish(ConeSolverExit::solved, f, ncx, MaxC, report);
  }
  ws.z.resize(n);
  for (int i = 0; i < nc; ++i) {
    const int k = 3 * i;
    const S m = static_cast<S>(mu.coeff(i));
    const S t1 = ws.sigma.coeff(k + 1), t2 = ws.sigma.coeff(k + 2);
    // proj_K*(v) = v + proj_K(−v) (Moreau), v = σ̃
    Eigen::Matrix<S, 3, 1> v(ws.sigma.coeff(k) + m * detail::norm2(t1, t2), t1, t2), p = -v;
    detail::cone_project(m, p, 0);
    for (int r = 0; r < 3; ++r) ws.z.coeffRef(k + r) = v.coeff(r) + p.coeff(r);
  }
  S trace = S(0), dmax = S(0);
  for (int k = 0; k < n; ++k) {
    trace += static_cast<S>(W.coeff(k, k));
    dmax = std::max(dmax, abs(static_cast<S>(W.coeff(k, k))));
  }
  const S scale = dmax > S(0) ? dmax : S(1);  // W = 0: ρ in units of 1
  const S root_eps = sqrt(Eigen::NumTraits<S>::epsilon());
  const S rho_min = root_eps * scale, rho_max = scale / root_eps;
  S rho = options.rho > S(0) ? options.rho : S(0.1) * trace / S(n);
  rho = std::min(std::max(rho, rho_min), rho_max);
  bool factor = true;
  for (int it = 1; it <= options.max_iterations; ++it) {
    report.iterations = it;
    if (factor) {
      report.refactorizations += 1;
      if (!detail::cone_cholesky(W, rho, n, ws)) {
        report.rho = rho;
        return detail::cone_finish(ConeSolverExit::singular, f, ncx, MaxC, report);
      }
      factor = false;
    }
    // x ← (W + ρI)⁻¹ (ρ y + z − b − s), s the De Saxcé shift of z (solved in place in x)
    ws.x.resize(n);
    for (int k = 0; k < n; ++k) ws.x.coeffRef(k) = rho * ws.y.coeff(k) + ws.z.coeff(k) - static_cast<S>(b.coeff(k));
    for (int i = 0; i < nc; ++i) {
      const int k = 3 * i;
      const S t1 = ws.z.coeff(k + 1), t2 = ws.z.coeff(k + 2);
      ws.x.coeffRef(k) -= static_cast<S>(mu.coeff(i)) * detail::norm2(t1, t2);
    }
    detail::cone_chol_solve(ws, n, ws.x);
    // y ← proj_K(x − z/ρ) cone by cone (its previous value kept for the change dy);
    // z ← z − ρ (x − y)
    S rp = S(0), dy = S(0);
    for (int i = 0; i < nc; ++i) {
      const int k0 = 3 * i;
      const S before[3] = {ws.y.coeff(k0), ws.y.coeff(k0 + 1), ws.y.coeff(k0 + 2)};
      for (int r = 0; r < 3; ++r) ws.y.coeffRef(k0 + r) = ws.x.coeff(k0 + r) - ws.z.coeff(k0 + r) / rho;
      detail::cone_project(static_cast<S>(mu.coeff(i)), ws.y, k0);
      for (int r = 0; r < 3; ++r) {
        const int k = k0 + r;
        ws.z.coeffRef(k) -= rho * (ws.x.coeff(k) - ws.y.coeff(k));
        rp = std::max(rp, abs(ws.x.coeff(k) - ws.y.coeff(k)));
        dy = std::max(dy, abs(ws.y.coeff(k) - before[r]));
      }
    }
    report.rho = rho;
    const bool checked = detail::check_due(it, options);
    if (checked && detail::cone_check(W, b, mu, ws.y, nc, options, ws, report, sf, ss)) {
      f = ws.y;
      return detail::cone_finish(ConeSolverExit::solved, f, ncx, MaxC, report);
    }
    if (!(all_finite(ws.x) && all_finite(ws.z) && all_finite(ws.sigma)))
      return detail::cone_finish(ConeSolverExit::non_finite, f, ncx, MaxC, report);
    // adapt ρ on the relative residuals (dimensionless: scaled by the check's s_f and s_σ), after
    // a checked iteration only: on fresh scales, and at most one refactorization per check
    if (!checked) continue;
    const S floor = std::numeric_limits<S>::min();
    const S rel_p = rp / std::max(sf, floor), rel_d = rho * dy / std::max(ss, floor);
    const S k = options.rho_update_factor, ratio = options.rho_update_ratio;
    S next = rho;
    if (rel_p > ratio * rel_d) next = std::min(rho * k, rho_max);
    else if (rel_d > ratio * rel_p) next = std::max(rho / k, rho_min);
    if (next != rho) {
      rho = next;
      factor = true;
    }
  }
  return detail::cone_finish(ConeSolverExit::iteration_cap, f, ncx, MaxC, report);
}

}  // namespace talus
