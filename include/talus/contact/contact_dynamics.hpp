#pragma once
/// \file contact_dynamics.hpp
/// Dynamics with unilateral contacts and Coulomb friction (the problem: contact_problem.hpp),
/// optionally beside the bilateral constraints of a ConstraintSet, in three problems
/// (docs/contact.md derives each):
///
///   forward_dynamics_contact   acceleration level (Drake's ConstraintSolver::SolveConstraintProblem):
///       H q̈ + C = τ + Gᵀλ + Aᵀφ,   G q̈ = γ,
///       each contact: a_n ≥ 0 ⟂ f_n ≥ 0 and, sticking, the friction polygon's
///       complementarity (a_t along each edge + Λ ≥ 0 ⟂ β ≥ 0, μ f_n − Σβ ≥ 0 ⟂ Λ ≥ 0);
///       sliding, f_t = −μ f_n v_t/‖v_t‖; each limit row: a ≥ 0 ⟂ f ≥ 0.
///   impulses_contact           velocity level, an impact (Anitescu–Potra; Drake's SolveImpactProblem):
///       H (v⁺ − v⁻) = Gᵀλ + Aᵀφ,   G v⁺ = w (0 unless given),   v_n⁺ + k ≥ 0 ⟂ φ_n ≥ 0 (softened by γ),
///       polygons.
///   time_step_contact          one step h of the discretized problem (semi-implicit Euler):
///       H (v⁺ − v) = h (τ − C) + Gᵀλ + Aᵀφ,   q⁺ = q ⊕ h v⁺, with each contact a spring–damper
///       of stiffness k and damping b made rigid by complementarity (cfm, erp below).
///
/// Every problem eliminates the bilateral rows first, with a rank-revealing factorization
/// (redundant bilateral rows are tolerated when consistent), and builds the LCP on the
/// bilateral-reduced operator P = H⁻¹ − H⁻¹Gᵀ(GH⁻¹Gᵀ)⁺GH⁻¹: the unilateral rows see the robot
/// as the bilateral constraints leave it (with H⁻¹ alone the friction would be wrong whenever a
/// bilateral constraint is present; docs/contact.md, Drake → talus). The LCP is solved by Lemke's method
/// (lcp_lemke.hpp: lexicographic, capped, every answer checked against the unregularized
/// problem). Before Lemke the *sticking guess* is tried (ContactOptions::sticking_guess, on by
/// default): every active contact pushes and sticks, no limit acts, i.e. the bilateral answer
/// of the contact rows, one Cholesky solve of their Delassus block (least-norm for redundant
/// contacts); if it passes Lemke's own check of the LCP (check_lcp_guess) it is the answer, with
/// no pivot (a standing robot: most cycles); else Lemke runs from scratch. PGS and ADMM start
/// from it. ContactReport::guess says which. A = the rows (n, t₁, t₂) of each contact's point Jacobian and the limit rows;
/// φ = the packed row forces (contact frame per contact); λ = the bilateral forces (cs.lambda).
///
/// Targets: each normal and limit row asks for its target (ContactProblem::set_target,
/// set_limit_target: a moving plane, a separation velocity, restitution as a velocity) at every
/// level and with every solver: it is taken out of the row's free motion (ws.free), so a row
/// reads a_n − a_target ≥ 0 (acceleration) or v_n⁺ − v_target + k ≥ 0 (impact, step; k the
/// level's restitution or gap term).
///
/// Status (outputs zero unless ok; the problem's failure() says why, the bilateral set's too
/// when it refused): invalid_input, one reason per input (ContactFailureReason q_invalid,
/// v_invalid, tau_invalid, fext_invalid, step_invalid for h, options_invalid with
/// ContactFailure::option naming the option: a ContactOptions field, cp.sliding_speed,
/// cp.limit_margin, or `compliance` for a stiffness and damping too soft for h),
/// capacity_exceeded never (capacities are compile-time), singular (H not positive definite,
/// inconsistent bilateral rows, or the LCP has no solution the method can find: a secondary
/// ray, e.g. Painlevé's paradox), not_converged (pivot cap), overflow (a non-finite result).
/// Nothing allocates; the work is bounded by the LCP's pivot cap.
#include <limits>

#include <talus/algorithms/crba.hpp>
#include <talus/algorithms/rnea.hpp>
#include <talus/algorithms/sparse_factorization.hpp>
#include <talus/constraints/constraint_quantities.hpp>
#include <talus/contact/active_set_recovery.hpp>
#include <talus/contact/contact_problem.hpp>
#include <talus/model/configuration.hpp>
#include <talus/solvers/forward_dynamics_proximal.hpp>
#include <talus/contact/lcp_lemke.hpp>

namespace talus {

/// Which solver finds the contact forces. Each contact's cone must match (ContactProblem::set_cone).
enum class ContactSolver : unsigned char {
  lemke,  ///< polygonal cones: the LCP by Lemke's method (exact answer, pivot cap)
  pgs,    ///< exact cones: projected Gauss–Seidel (cone_solvers.hpp; iteration cap, residuals)
  admm,   ///< exact cones: ADMM (cone_solvers.hpp; iteration cap, residuals)
};

/// Options of the contact solves.
template <class S, int MaxLcp>
struct ContactOptions {
  ContactSolver solver = ContactSolver::lemke;
  ConeSolverOptions<S> cone;  ///< PGS/ADMM: cap, tolerances, ρ; warm_start starts from the last answer
  LcpOptions<S, MaxLcp> lcp = [] {
    LcpOptions<S, MaxLcp> o;
    o.regularize = LcpRegularization::on_failure;  // each regularized answer re-checked (lcp_lemke.hpp)
    return o;
  }();
  /// Impacts: restitution e ∈ [0, 1]: each normal row asks v_n⁺ ≥ −e v_n⁻ (k = e min(0, v_n⁻)),
  /// added to the contact's target: v_n⁺ ≥ v_target − e min(0, v_n⁻). Outside [0, 1] it is
  /// refused; a rebound beyond it (or against a moving plane: v_p − e (v_n⁻ − v_p)) is written
  /// as the target velocity (ContactProblem::set_target) with e = 0.
  S restitution = S(0);
  /// Impacts: softening γ ≥ 0 added to each normal row's diagonal (s/kg·m⁻¹ scale of the Delassus operator).
  S softening = S(0);
  /// Time stepping: contact stiffness k (N/m) and damping b (N·s/m), k, b ≥ 0, h k + b > 0:
  /// cfm = 1/(h k + b), erp = h k/(h k + b) (the spring–damper f = −k φ − b v_n made
  /// implicit). The default k = ∞ is rigid: cfm = 0, erp = 1 (a penetration is removed in
  /// one step); a finite k, b soften the contact (needed for a redundant set to have a
  /// unique answer, and what MuJoCo's solref models). Rigid (k = ∞, any b ≤ 1e12, which is
  /// then ignored) is exactly cfm = 0, not a small one: a finite k leaves cfm = 1/(h k + b) > 0
  /// and a contact's first force off its rigid value by about m·cfm/h, relative (m the
  /// effective mass; 2e-9 for m = 2 kg, h = 1 ms, b = 1e12, k = 0). Every solver takes
  /// cfm = 0: Lemke solves the rigid LCP (M = D, only semi-definite for redundant contacts:
  /// the degenerate case of lcp_lemke.hpp, with its retries and checked regularization); ADMM
  /// factors W + ρI (ρ > 0); PGS needs each contact's diagonal block of D invertible (a point
  /// contact whose body is not locked by bilateral rows; else `singular`) and, with friction,
  /// has no convergence proof (the cap bounds it). A positive cfm is needed only to make a
  /// redundant set's forces unique, not for a solver to run.
  S stiffness = std::numeric_limits<S>::infinity();
  S damping = S(0);
  /// Time stepping: a contact takes part when its gap φ ≤ margin (m; +∞: always on).
  S margin = S(0.01);
  /// Try the sticking guess first (every active contact pushes and sticks, no limit row acts:
  /// the bilateral answer, one small Cholesky solve). Lemke returns it without a pivot when it
  /// passes Lemke's own check of the LCP (lcp_lemke.hpp, check_lcp_guess), else runs from
  /// scratch; PGS and ADMM start from it (when inside the cones) unless cone.warm_start. Not
  /// tried when a contact slides. A guess with a force clearly outside its cone is dropped
  /// after the solve, before any check (its cost, one small Cholesky solve: bench/RESULTS.md).
  bool sticking_guess = true;
  /// Lemke: once the LCP's answer is known, refine it on the physical system of its active
  /// rows (active_set_recovery.hpp: q̈ from the rows' accelerations, not from the LCP's
  /// cancelling terms; the active set corrected where a row goes negative); kept only when
  /// it stays in the cones, passes Lemke's check and its physical residual is no larger.
  /// ContactReport::recovery says what it did.
  bool active_set_recovery = true;
  /// With a ConstraintSet: recover the bilateral forces λ (cs.lambda) by proximal steps
  /// λ ← λ + (Y + μI)⁻¹ (r − Y λ) from λ = 0, Y = G P₀ Gᵀ (forward_dynamics_proximal.hpp, with
  /// the `proximal` settings: μ, accuracies, cap) instead of the pivoted QR. For a redundant set
  /// (four welded corners) that is the minimum-norm λ — a symmetric load shared evenly — where the
  /// QR gives a basic solution that may load a few rows and pull on another. q̈ (v⁺) and the
  /// unilateral forces are the same either way (they do not depend on which λ). Iterations and
  /// residual in ContactReport::bilateral; not_converged at the cap, singular if Y + μI does not factor.
  bool bilateral_minimum_norm = false;
  ProximalSettings<S> proximal;
};

/// What became of the sticking guess (ContactOptions::sticking_guess).
enum class ContactGuess : unsigned char {
  not_tried,  ///< option off, a contact sliding, no contact active, or K not factorable
  accepted,   ///< it is the answer (Lemke: passed the check; PGS/ADMM: converged with 0 iterations)
  rejected,   ///< a force outside its cone (then Lemke, PGS, ADMM start from scratch), or Lemke's
              ///< check failed, or PGS/ADMM needed iterations from it
};

constexpr const char* to_string(ContactGuess g) {
  switch (g) {
    case ContactGuess::not_tried: return "not_tried";
    case ContactGuess::accepted: return "accepted";
    case ContactGuess::rejected: return "rejected";
  }
  return "unknown";
}

/// What a contact solve did.
template <class S>
struct ContactReport {
  int unknowns = 0;        ///< LCP size
  int contacts = 0;        ///< contacts that took part
  int sliding = 0;         ///< of which sliding (acceleration level)
  int limit_rows = 0;      ///< limit rows that took part
  int bilateral_rank = 0;  ///< rank of the bilateral rows (≤ their count: redundant rows tolerated)
  ContactGuess guess = ContactGuess::not_tried;  ///< the sticking guess's fate
  LcpReport<S> lcp;                              ///< Lemke: pivots, attempts, residual, regularization, exit
  ConeSolverReport<S> cone;                      ///< PGS/ADMM: iterations, residuals, exit
  ActiveSetReport<S> recovery;  ///< Lemke: the active-set recovery (ContactOptions::active_set_recovery)
  ProximalReport<S> bilateral;  ///< λ by proximal steps (ContactOptions::bilateral_minimum_norm)
  /// The evidence of the solve that produced the forces (status.hpp; docs/contact.md): Lemke:
  /// lcp's (residual, tolerance), or recovery's when the active-set recovery replaced the answer;
  /// PGS/ADMM: cone.evidence(), the largest residual/tolerance ratio against 1. {0, 0} when no
  /// solve ran (no contact or limit row took part) or it failed before checking an answer.
  Residual<S> residual{};
};

namespace detail {

struct NoBilateral {};

enum class ContactLevel { acceleration, impact, step };

template <class CP>
using ContactOptionsOf = ContactOptions<typename CP::S, CP::max_lcp>;

/// The first option outside its documented range (none: all valid). The cone solver's
/// options are checked when PGS/ADMM solves, Lemke's when Lemke does, each by the solver's
/// own rule on an empty problem (so the rule is not restated here).
template <class S, int N>
ContactOption contact_option_invalid(const ContactOptions<S, N>& o) {
  if (static_cast<unsigned>(o.solver) > 2u) return ContactOption::solver;
  if (!(o.restitution >= S(0) && o.restitution <= S(1))) return ContactOption::restitution;
  if (!(o.softening >= S(0) && o.softening <= S(1e9))) return ContactOption::softening;
  if (!(o.stiffness >= S(0))) return ContactOption::stiffness;  // +∞ (rigid) allowed
  if (!(o.damping >= S(0) && o.damping <= S(1e12))) return ContactOption::damping;
  if (!(o.margin >= S(0))) return ContactOption::margin;  // +∞ (always on) allowed
  if (o.bilateral_minimum_norm && !proximal_settings_valid(o.proximal)) return ContactOption::proximal;
  if (o.solver == ContactSolver::lemke) {
    const typename LcpOptions<S, N>::Vector empty = LcpOptions<S, N>::Vector::Zero(o.lcp.covering.size());
    if (!lcp_inputs_valid(Eigen::Matrix<S, 0, 0>(), empty, o.lcp)) return ContactOption::lcp;
  } else {
    const Eigen::Matrix<S, 0, 1> none;
    if (cone_validate<S, 1>(Eigen::Matrix<S, 0, 0>(), none, none, none, o.cone) != ConeSolverExit::none)
      return ContactOption::cone;
  }
  return ContactOption::none;
}
/// Options within their documented ranges.
template <class S, int N>
bool contact_options_valid(const ContactOptions<S, N>& o) {
  return contact_option_invalid(o) == ContactOption::none;
}
/// The problem's own options (sliding_speed, limit_margin) within their ranges.
template <class CP>
ContactOption problem_option_invalid(const CP& cp) {
  using S = typename CP::S;
  if (!(cp.sliding_speed >= S(0) && cp.sliding_speed <= S(1e3))) return ContactOption::sliding_speed;
  if (!(cp.limit_margin >= S(0) && cp.limit_margin <= S(1e3))) return ContactOption::limit_margin;
  return ContactOption::none;
}

/// The unilateral rows at the state of data (kinematics with q̈ = 0 and data.J already
/// computed): A, their acceleration at q̈ = 0, their velocity, each row's gap.
template <class ModelT, int MC, int ME, int ML, class Q, class V>
void unilateral_rows(const Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, const Q& q, const V& v,
                     ContactLevel level, typename ModelT::Scalar margin,
                     Eigen::Matrix<typename ModelT::Scalar, Eigen::Dynamic, 1, 0,
                                   ContactProblem<ModelT, MC, ME, ML>::max_rows, 1>& gap) {
  using S = typename ModelT::Scalar;
  auto& ws = cp.ws;
  constexpr int max_rows = ContactProblem<ModelT, MC, ME, ML>::max_rows;
  ws.A.setZero(max_rows, ModelT::nv);
  ws.bias.setZero(max_rows);
  ws.row_velocity.setZero(max_rows);
  ws.target.setZero(max_rows);
  const bool accel = level == ContactLevel::acceleration;
  int r = 0;
  for (int i = 0; i < cp.size(); ++i) {
    const auto& c = cp.contact(i);
    ws.contact_row[i] = -1;
    if (!c.active) continue;
    const FrameMotion<S> fm = frame_motion(data, c.body, Transform<S>(Matrix3<S>::Identity(), c.point), true);
    const S g = c.normal.dot(fm.p - c.anchor);
    if (level == ContactLevel::step && !(g <= margin)) continue;
    ws.contact_row[i] = r;
    const Vector3<S> axes[3] = {c.normal, c.t1, c.t2};
    for_each_supporting_dof<ModelT>(c.body, [&](int k) {
      const Motion<S> col = data.J.col(k);
      const Vector3<S> lin = col.template tail<3>() + col.template head<3>().cross(fm.p);
      for (int j = 0; j < 3; ++j) ws.A(r + j, k) = axes[j].dot(lin);
    });
    for (int j = 0; j < 3; ++j) {
      ws.bias(r + j) = axes[j].dot(fm.ddp);
      ws.row_velocity(r + j) = axes[j].dot(fm.dp);
      gap(r + j) = j == 0 ? g : S(0);
    }
    ws.target(r) = accel ? c.target_acceleration : c.target_velocity;
    r += 3;
  }
  for (int l = 0; l < cp.limits(); ++l) {
    const auto& L = cp.limit(l);
    for (int side = 0; side < 2; ++side) {
      ws.limit_row[l][side] = -1;
      const S g = side == 0 ? S(q[L.idx_q] - L.lower) : S(L.upper - q[L.idx_q]);
      if (!(g <= (level == ContactLevel::step ? std::max(margin, cp.limit_margin) : cp.limit_margin))) continue;
      const S sign = side == 0 ? S(1) : S(-1);
      ws.limit_row[l][side] = r;
      ws.A(r, L.idx_v) = sign;
      ws.bias(r) = S(0);
      ws.row_velocity(r) = sign * v[L.idx_v];
      ws.target(r) = accel ? L.target_acceleration[side] : L.target_velocity[side];
      gap(r) = g;
      ++r;
    }
  }
  ws.rows = r;
}

/// One unknown of the LCP: its velocity/acceleration row is cJᵀ (rows at `row`, `width` of
/// them) and its force column cFᵀ the same rows.
template <class S>
struct LcpUnknown {
  int row = 0, width = 1, contact = -1;
  S cJ[3] = {S(0), S(0), S(0)}, cF[3] = {S(0), S(0), S(0)};
  bool normal = false;
};

/// The friction force (f1, f2) (t₁, t₂ coefficients) as β ≥ 0 on the k polygon edges
/// d_j = e[j].cJ[1..2]: on the two edges around it (the least Σβ, which is its polygon norm),
/// written to z(first + j).
template <class S, class Z>
void polygon_split(S f1, S f2, const LcpUnknown<S>* e, int k, Z& z, int first) {
  if (f1 == S(0) && f2 == S(0)) return;
  int j1 = 0;
  S best = e[0].cJ[1] * f1 + e[0].cJ[2] * f2;
  for (int j = 1; j < k; ++j) {
    const S dot = e[j].cJ[1] * f1 + e[j].cJ[2] * f2;
    if (dot > best) {
      best = dot;
      j1 = j;
    }
  }
  const S a1 = e[j1].cJ[1], a2 = e[j1].cJ[2];
  const int j2 = a1 * f2 - a2 * f1 >= S(0) ? (j1 + 1) % k : (j1 + k - 1) % k;  // the side f lies on
  const S b1 = e[j2].cJ[1], b2 = e[j2].cJ[2];
  const S det = a1 * b2 - a2 * b1;  // ± sin(2π/k)
  // f = β₁ a + β₂ b:  f × b = β₁ (a × b),  a × f = β₂ (a × b)
  const S beta1 = (f1 * b2 - f2 * b1) / det, beta2 = (a1 * f2 - a2 * f1) / det;
  z(first + j1) = beta1 > S(0) ? beta1 : S(0);
  z(first + j2) = beta2 > S(0) ? beta2 : S(0);
}

}  // namespace detail

/// Generalized force of the last contact solve's unilateral forces, Aᵀφ (nv; N or N·m; N·s
/// for impulses): what the contacts and limits add to τ. Zero after a failed solve.
template <class ModelT, int MC, int ME, int ML, class Out>
void contact_generalized_force(const ContactProblem<ModelT, MC, ME, ML>& cp, Out& tau_c) {
  static_assert(detail::holds_size<Out, ModelT::nv>(),
                "talus: the generalized force has nv rows (Model::TangentVector)");
  const int m = cp.ws.rows;
  tau_c.setZero();
  for (int r = 0; r < m; ++r) tau_c += cp.ws.A.row(r).transpose() * cp.ws.phi(r);
}

namespace detail {

/// What a level adds to one unilateral row (the same for Lemke and the cone solvers): to its
/// right-hand side (an impact's restitution on a contact normal; a step's gap term, φ/h apart
/// so the gap closes in one step, erp φ/h penetrating, on normals and limit rows) and to its
/// diagonal (an impact's softening, a step's cfm/h, on contact normals).
template <class S>
struct RowTerms {
  S rhs = S(0), diag = S(0);
};
template <class S, int N>
RowTerms<S> row_terms(ContactLevel level, bool limit, const ContactOptions<S, N>& opt, S vn, S g, S h, S cfm, S erp) {
  RowTerms<S> t;
  if (level == ContactLevel::impact && !limit) {
    t.rhs = opt.restitution * std::min(S(0), vn);
    t.diag = opt.softening;
  }
  if (level == ContactLevel::step) {
    t.rhs = g > S(0) ? g / h : erp * g / h;
    if (!limit) t.diag = cfm / h;
  }
  return t;
}

/// The sticking guess (ContactOptions::sticking_guess): every active contact pushes and
/// sticks, no limit row acts. The contact rows R (each normal, and both tangents where μ > 0)
/// then meet K f_R + free_R + terms = 0, K = D_RR + the level's diagonal terms: the bilateral
/// answer. Solved by proximal steps f ← f + (K + ρI)⁻¹ (r − K f), r = −(free_R + terms),
/// ρ = √ε max diag K, from f = 0, at most 8 (stopping when a step is below n ε ‖f‖∞ or no
/// longer halves the last one): for a
/// K of full rank they converge to K⁻¹ r (the error shrinks by ρ/(λ + ρ) per step), for a
/// singular one (redundant contacts, e.g. 4 corners of a sole) to the least-norm solution,
/// which spreads the load. Writes the packed row forces to ws.phi (0 off R). Uses the cone
/// solvers' storage (ws.W, ws.b, ws.f, ws.cone): call it before cone_forces fills them. Returns
/// none when K cannot be factored or the answer is not finite, outside when a force is
/// clearly outside its circular cone (f_n < −√ε max|f|, or ‖f_t‖ > μ f_n + √ε max|f|: a cheap
/// screen), else inside. Even then only a candidate: the caller checks it.
enum class GuessResult { none, outside, inside };
template <class ModelT, int MC, int ME, int ML, class Gap>
GuessResult sticking_guess(ContactProblem<ModelT, MC, ME, ML>& cp, ContactLevel level,
                           const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt, typename ModelT::Scalar h,
                           typename ModelT::Scalar cfm, typename ModelT::Scalar erp, const Gap& gap) {
  using S = typename ModelT::Scalar;
  using std::abs;
  using std::sqrt;
  auto& ws = cp.ws;
  int R[3 * MC];
  bool normal[3 * MC];
  int nr = 0;
  for (int i = 0; i < cp.size(); ++i) {
    const int r = ws.contact_row[i];
    if (r < 0) continue;
    const int width = cp.contact(i).mu > S(0) ? 3 : 1;
    for (int j = 0; j < width; ++j) {
      R[nr] = r + j;
      normal[nr++] = j == 0;
    }
  }
  if (nr == 0) return GuessResult::none;
  ws.W.resize(nr, nr);
  ws.b.resize(nr);
  S dmax = S(0);
  for (int a = 0; a < nr; ++a) {
    for (int c = 0; c < nr; ++c) ws.W.coeffRef(a, c) = ws.D.coeff(R[a], R[c]);
    ws.b.coeffRef(a) = -ws.free.coeff(R[a]);
    if (normal[a]) {
      const RowTerms<S> t = row_terms(level, false, opt, ws.row_velocity.coeff(R[a]), gap.coeff(R[a]), h, cfm, erp);
      ws.b.coeffRef(a) -= t.rhs;
      ws.W.coeffRef(a, a) += t.diag;
    }
    dmax = std::max(dmax, ws.W.coeff(a, a));
  }
  const S eps = Eigen::NumTraits<S>::epsilon();
  if (!(dmax > S(0) && dmax <= S(1) / eps)) return GuessResult::none;
  if (!cone_cholesky(ws.W, sqrt(eps) * dmax, nr, ws.cone)) return GuessResult::none;
  ws.f.setZero(nr);
  auto& step = ws.cone.rhs;
  step.resize(nr);
  S last = std::numeric_limits<S>::infinity();
  for (int it = 0; it < 8; ++it) {
    for (int a = 0; a < nr; ++a) {  // r − K f (loops: no GEMV temporary)
      S x = ws.b.coeff(a);
      for (int c = 0; c < nr; ++c) x -= ws.W.coeff(a, c) * ws.f.coeff(c);
      step.coeffRef(a) = x;
    }
    cone_chol_solve(ws.cone, nr, step);
    S smax = S(0), fmax = S(0);
    for (int a = 0; a < nr; ++a) {
      ws.f.coeffRef(a) += step.coeff(a);
      smax = std::max(smax, abs(step.coeff(a)));
      fmax = std::max(fmax, abs(ws.f.coeff(a)));
    }
    // converged, or down to rounding noise (a step no longer halves: an ill-conditioned K
    // amplifies the residual's rounding, so the steps stall above n ε ‖f‖)
    if (!(smax > S(nr) * eps * fmax) || !(smax < S(0.5) * last)) break;
    last = smax;
  }
  ws.phi.setZero(ws.rows);
  for (int a = 0; a < nr; ++a) ws.phi.coeffRef(R[a]) = ws.f.coeff(a);
  if (!all_finite(ws.phi)) return GuessResult::none;
  // a cheap screen before the caller's exact check: every force inside its (circular) cone,
  // to within √ε of the largest force (a pulling foot or a slipping one fails here)
  S fmax = S(0);
  for (int a = 0; a < nr; ++a) fmax = std::max(fmax, abs(ws.f.coeff(a)));
  const S slack = sqrt(eps) * fmax;
  for (int i = 0; i < cp.size(); ++i) {
    const int r = ws.contact_row[i];
    if (r < 0) continue;
    const S fn = ws.phi.coeff(r),
            ft = sqrt(ws.phi.coeff(r + 1) * ws.phi.coeff(r + 1) + ws.phi.coeff(r + 2) * ws.phi.coeff(r + 2));
    if (!(fn >= -slack && ft <= cp.contact(i).mu * fn + slack)) return GuessResult::outside;
  }
  return GuessResult::inside;
}

/// Whether active contact i slides at this level: only at acceleration level (at velocity
/// level sliding follows from the solution), ‖v_t‖ > sliding_speed (classify) or > 0 (sliding).
/// v̂ = v_t/‖v_t‖ in (t₁, t₂) coefficients goes to dir.
template <class CP>
bool contact_slides(const CP& cp, int i, ContactLevel level, typename CP::S dir[2]) {
  using S = typename CP::S;
  using std::sqrt;
  const int r = cp.ws.contact_row[i];
  const auto& c = cp.contact(i);
  if (r < 0 || level != ContactLevel::acceleration || c.mode == ContactMode::sticking) return false;
  const S vt1 = cp.ws.row_velocity(r + 1), vt2 = cp.ws.row_velocity(r + 2), speed = sqrt(vt1 * vt1 + vt2 * vt2);
  if (!(c.mode == ContactMode::sliding ? speed > S(0) : speed > cp.sliding_speed)) return false;
  dir[0] = vt1 / speed;
  dir[1] = vt2 / speed;
  return true;
}
template <class CP>
bool any_contact_slides(const CP& cp, ContactLevel level) {
  typename CP::S dir[2];
  for (int i = 0; i < cp.size(); ++i)
    if (contact_slides(cp, i, level, dir)) return true;
  return false;
}

/// The exact-cone solve (PGS or ADMM) of the rows built by contact_solve (ws.A, ws.D, ws.free,
/// the gaps): one 3-row unit per active contact, one per active limit row (whose two tangent
/// rows are inert: W = I, b = 0, μ = 0, so their forces stay 0). The level terms are the
/// LCP's: restitution and softening on impact normals, the gap (erp) and cfm/h at a step.
/// `guessed`: ws.phi holds the sticking guess, the start unless options.cone.warm_start.
///
/// A contact sliding at acceleration level (contact_slides) is a normal-only unit like a limit
/// row (μ = 0 in the solver, tangents inert) whose force column carries the kinetic friction
/// f_t = −μ f_n v̂ (the polygon path's N − μQ): column w_b = D(:, n_b) − μ D(:, t_b) v̂_b, the
/// row a_n ≥ 0 ⟂ f_n ≥ 0. That column makes W non-symmetric, which PGS and ADMM refuse, so it is
/// split: the solver's symmetric W keeps D plus the column's diagonal term c_b = −μ D(n_b, t_b) v̂_b
/// when c_b > 0 (a positive diagonal keeps W positive semi-definite), and the rest (off-diagonal
/// entries, a negative c_b) enters b as a load L(f) = E f_n computed from the current forces.
/// Passes: b = b₀ + L(f), solve warm from f (at a quarter of the tolerances, so that the load's
/// change leaves room), until f passes the solver's check on b₀ + L(f) of that same f at the
/// caller's tolerances (W f + b₀ + L(f) is the true σ: f solves the non-symmetric problem).
/// The passes share the cap options.cone.max_iterations (report.cone.iterations is the sum);
/// report.cone's residuals are those of the non-symmetric problem.
/// Convergence: one contact alone converges iff D_nn + c > 0 (the scalar LCP has a unique
/// answer; else Painlevé's case); several sliding contacts converge when the off-diagonal
/// kinetic terms are small beside the normal block (no guarantee: not_converged at the cap).
/// Fills ws.phi; on failure `why` and `index` say why.
template <class ModelT, int MC, int ME, int ML, class Gap>
Status cone_forces(ContactProblem<ModelT, MC, ME, ML>& cp, ContactLevel level, typename ModelT::Scalar h,
                   typename ModelT::Scalar cfm, typename ModelT::Scalar erp, const Gap& gap, bool guessed,
                   const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt,
                   ContactReport<typename ModelT::Scalar>& report, ContactFailureReason& why, int& index) {
  using S = typename ModelT::Scalar;
  using std::sqrt;
  constexpr int max_units = ContactProblem<ModelT, MC, ME, ML>::max_cone_units;
  auto& ws = cp.ws;
  const int m = ws.rows;
  int k = 0, slides = 0;
  S dir[max_units][2] = {};  // sliding units: v̂ in (t₁, t₂) coefficients
  S kmu[max_units] = {};     // sliding units: μ of the kinetic friction (0 otherwise)
  bool slide[max_units] = {};
  ws.mu.resize(max_units);
  for (int i = 0; i < cp.size(); ++i) {
    const int r = ws.contact_row[i];
    if (r < 0) continue;
    const auto& c = cp.contact(i);
    slide[k] = contact_slides(cp, i, level, dir[k]);
    cp.sliding_[i] = slide[k];
    slides += slide[k];
    kmu[k] = slide[k] ? c.mu : S(0);
    ws.unit_row[k] = r;
    ws.unit_limit[k] = false;
    ws.mu(k) = slide[k] ? S(0) : c.mu;
    ++k;
    report.contacts += 1;
  }
  report.sliding = slides;
  for (int l = 0; l < cp.limits(); ++l)
    for (int side = 0; side < 2; ++side) {
      const int r = ws.limit_row[l][side];
      if (r < 0) continue;
      ws.unit_row[k] = r;
      ws.unit_limit[k] = true;
      slide[k] = false;
      kmu[k] = S(0);
      ws.mu(k) = S(0);
      ++k;
      report.limit_rows += 1;
    }
  ws.mu.conservativeResize(k);
  const int n = 3 * k;
  report.unknowns = n;
  const auto row_of = [&](int a, int i) {
    return ws.unit_limit[a] || slide[a] ? (i == 0 ? ws.unit_row[a] : -1) : ws.unit_row[a] + i;
  };
  // the kinetic friction of sliding unit bb seen by row ia: −μ v̂ᵀ D(row, t rows of bb)
  const auto kinetic = [&](int ia, int bb) {
    const int ra = row_of(ia / 3, ia % 3), rb = ws.unit_row[bb];
    return ra < 0 ? S(0) : -kmu[bb] * (ws.D(ra, rb + 1) * dir[bb][0] + ws.D(ra, rb + 2) * dir[bb][1]);
  };
  // its split: the part in the solver's W (a positive diagonal) and the part in the load
  const auto in_w = [&](int ia, int bb) { return ia == 3 * bb ? std::max(kinetic(ia, bb), S(0)) : S(0); };
  const auto in_load = [&](int ia, int bb) { return kinetic(ia, bb) - in_w(ia, bb); };
  ws.W.setZero(n, n);
  ws.b.setZero(n);
  for (int a = 0; a < k; ++a)
    for (int i = 0; i < 3; ++i) {
      const int ra = row_of(a, i), ia = 3 * a + i;
      if (ra < 0) {
        ws.W(ia, ia) = S(1);
        continue;
      }
      for (int bb = 0; bb < k; ++bb)
        for (int j = 0; j < 3; ++j)
          if (const int rb = row_of(bb, j); rb >= 0) ws.W(ia, 3 * bb + j) = ws.D(ra, rb);
      ws.b(ia) = ws.free(ra);
      if (slide[a]) ws.W(ia, ia) += in_w(ia, a);
      if (i != 0) continue;
      const RowTerms<S> t = row_terms(level, ws.unit_limit[a], opt, ws.row_velocity(ra), gap(ra), h, cfm, erp);
      ws.b(ia) += t.rhs;
      ws.W(ia, ia) += t.diag;
    }
  ws.f.setZero(n);
  ConeSolverOptions<S> copt = opt.cone;
  if (opt.cone.warm_start) {
    for (int a = 0, i = 0; i < cp.size(); ++i)
      if (ws.contact_row[i] >= 0) {
        ws.f.template segment<3>(3 * a) = ws.previous_force[i];
        if (slide[a]) ws.f.template segment<2>(3 * a + 1).setZero();  // inert tangents
        ++a;
      }
  } else if (guessed && slides == 0) {  // start from the sticking guess (ws.phi); limit units from 0
    for (int a = 0; a < k; ++a)
      if (!ws.unit_limit[a]) ws.f.template segment<3>(3 * a) = ws.phi.template segment<3>(ws.unit_row[a]);
    copt.warm_start = true;
  }
  // passes (one without a sliding contact): b = b₀ + L(f), solve from f with a quarter of the
  // tolerances (headroom for the load's change), until f passes the check of the true problem
  // (W f + b₀ + L(f) is its σ) at the caller's tolerances
  typename ContactProblem<ModelT, MC, ME, ML>::Workspace::ConeStorage::Vector b0 = ws.b;
  const auto load_b = [&] {
    for (int ia = 0; ia < n; ++ia) {
      S load = S(0);
      for (int bb = 0; bb < k; ++bb)
        if (slide[bb]) load += in_load(ia, bb) * ws.f(3 * bb);
      ws.b(ia) = b0(ia) + load;
    }
  };
  // the true (non-symmetric) operator, W plus the load's columns, read entry by entry (never
  // stored): the check of every pass is on it and b₀, so the residuals reported are the true ones
  using ConeMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  const auto true_w = ConeMatrix::NullaryExpr(n, n, [&](Eigen::Index ia, Eigen::Index jb) {
    const int bb = static_cast<int>(jb / 3);
    return jb % 3 == 0 && slide[bb] ? ws.W(ia, jb) + in_load(static_cast<int>(ia), bb) : ws.W(ia, jb);
  });
  if (slides > 0) {
    copt.absolute_tolerance /= S(4);
    copt.relative_tolerance /= S(4);
  }
  int used = 0;
  Status s = Status::ok;
  for (int pass = 0; pass <= opt.cone.max_iterations; ++pass) {
    if (slides > 0) {
      if (pass > 0 && used >= opt.cone.max_iterations) {
        s = Status::not_converged;
        report.cone.exit = ConeSolverExit::iteration_cap;
        break;
      }
      copt.max_iterations = opt.cone.max_iterations - used;
      load_b();
    }
    s = opt.solver == ContactSolver::pgs ? solve_cone_pgs(ws.W, ws.b, ws.mu, ws.f, ws.cone, copt, report.cone)
                                         : solve_cone_admm(ws.W, ws.b, ws.mu, ws.f, ws.cone, copt, report.cone);
    used += report.cone.iterations;
    if (s != Status::ok || slides == 0) break;
    load_b();
    S sf = S(0), ss = S(0);
    if (cone_check(true_w, b0, ws.mu, ws.f, k, opt.cone, ws.cone, report.cone, sf, ss)) break;
    copt.warm_start = true;  // a pass with 0 iterations passed this check: each further one costs ≥ 1
  }
  report.cone.iterations = used;
  if (guessed && !opt.cone.warm_start)
    report.guess = s == Status::ok && report.cone.iterations == 0 ? ContactGuess::accepted : ContactGuess::rejected;
  if (s != Status::ok) {
    why = s == Status::not_converged   ? ContactFailureReason::not_converged
          : s == Status::invalid_input ? ContactFailureReason::input_invalid
                                       : ContactFailureReason::cone_solver_failed;
    index = -1;
    return s;
  }
  ws.phi.setZero(m);
  for (int a = 0; a < k; ++a) {
    for (int i = 0; i < 3; ++i)
      if (const int ra = row_of(a, i); ra >= 0) ws.phi(ra) = ws.f(3 * a + i);
    if (slide[a])  // the kinetic friction f_t = −μ f_n v̂ of the normal column
      for (int i = 0; i < 2; ++i) ws.phi(ws.unit_row[a] + 1 + i) = -kmu[a] * ws.f(3 * a) * dir[a][i];
  }
  return Status::ok;
}

/// ContactOptions::bilateral_minimum_norm: on entry bil.lambda = r = g − G t (t = H⁻¹(b + Aᵀφ)),
/// bil.ws.Y = G H⁻¹ Gᵀ; on exit bil.lambda = the minimum-norm λ with Y λ = r, by the proximal
/// steps of forward_dynamics_proximal.hpp (Y is left as Y + μI). The residual ‖r − Y λ‖∞ is held
/// to absolute + relative · (‖g‖∞ + ‖ |G| |t| ‖∞); the set's consistency was checked before.
template <class BS, class Gv, class T>
Status bilateral_minimum_norm(BS& bil, const Gv& g, const T& t, const ProximalSettings<typename BS::S>& settings,
                              ProximalReport<typename BS::S>& report) {
  using S = typename BS::S;
  using std::abs;
  auto& bw = bil.ws;
  const int mb = static_cast<int>(bil.lambda.size());
  S scale = S(0);
  for (int i = 0; i < mb; ++i) {
    S row = S(0);
    for (int j = 0; j < bil.G.cols(); ++j) row += abs(bil.G.coeff(i, j)) * abs(t.coeff(j));
    scale = std::max(scale, row);
  }
  report.tolerance = settings.absolute_accuracy + settings.relative_accuracy * (g.cwiseAbs().maxCoeff() + scale);
  bw.r = bil.lambda;  // r
  bw.Y.diagonal().array() += settings.mu;
  bw.Y_llt.compute(bw.Y);
  if (bw.Y_llt.info() != Eigen::Success || !all_finite(bw.Y_llt.matrixLLT().diagonal())) return Status::singular;
  bil.lambda.setZero(mb);
  bw.qy = bw.r;  // the residual r − Y λ at λ = 0
  for (int k = 1; k <= settings.max_iterations; ++k) {
    bw.Y_llt.solveInPlace(bw.qy);  // Δλ = (Y + μI)⁻¹ (r − Y λ)
    bil.lambda += bw.qy;
    report.iterations = k;
    report.lambda_step = bw.qy.cwiseAbs().maxCoeff();
    S res = S(0);
    for (int i = 0; i < mb; ++i) {  // r − Y λ = r − (Y + μI) λ + μ λ (loops: no temporary)
      S x = bw.r.coeff(i) + settings.mu * bil.lambda.coeff(i);
      for (int j = 0; j < mb; ++j) x -= bw.Y.coeff(i, j) * bil.lambda.coeff(j);
      bw.qy.coeffRef(i) = x;
      res = std::max(res, abs(x));
    }
    report.residual = res;
    if (!(res - res == S(0)) || !all_finite(bil.lambda)) return Status::overflow;
    if (res <= report.tolerance) return Status::ok;
  }
  return Status::not_converged;
}

/// A failed solve leaves nothing behind: no rows (contact_generalized_force gives 0), forces,
/// sliding flags and limit forces zero, the bilateral results zero.
template <class ModelT, int MC, int ME, int ML, class BS>
Status refuse_contact(ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil, Status s, ContactFailureReason why, int index,
                      ContactOption option = ContactOption::none) {
  using S = typename ModelT::Scalar;
  cp.ws.rows = 0;
  cp.ws.phi.setZero(0);
  for (auto& f : cp.force_) f.setZero();
  for (auto& sl : cp.sliding_) sl = false;
  for (auto& l : cp.limit_force_) l = {S(0), S(0)};
  if constexpr (!std::is_same_v<BS, NoBilateral>) zero_constraint_results(*bil);
  else (void)bil;
  return cp.fail(s, why, index, option);
}

/// The whole solve for one level. b is the right-hand side of the free motion: τ − C
/// (acceleration), H v⁻ (impact), H v + h (τ − C) (step); the bilateral target g: γ, w
/// (bilateral_velocity: mb entries checked by the caller, or 0 when null), −(erp/h) e.
/// Result x: q̈ or v⁺.
template <class ModelT, int MC, int ME, int ML, class BS, class Q, class V, class T>
Status contact_solve(const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil,
                     const Q& q, const V& v, const T& tau, typename ModelT::Scalar h, ContactLevel level,
                     const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt,
                     ContactReport<typename ModelT::Scalar>& report, const ExternalForces<ModelT>* fext,
                     typename ModelT::TangentVector& x, const typename ModelT::Scalar* bilateral_velocity = nullptr) {
  using S = typename ModelT::Scalar;
  using CP = ContactProblem<ModelT, MC, ME, ML>;
  constexpr int nv = ModelT::nv;
  constexpr bool has_bilateral = !std::is_same_v<BS, NoBilateral>;
  auto& ws = cp.ws;
  using std::abs;
  using std::sqrt;
  report = ContactReport<S>{};
  x.setZero();
  ws.rows = 0;
  ws.phi.setZero(0);
  for (int i = 0; i < MC; ++i) ws.previous_force[i] = cp.force_[static_cast<std::size_t>(i)];
  for (auto& f : cp.force_) f.setZero();
  for (auto& s : cp.sliding_) s = false;
  for (auto& l : cp.limit_force_) l = {S(0), S(0)};

  // ---- inputs --------------------------------------------------------------------------
  if (check_configuration(model, q) != Status::ok)
    return refuse_contact(cp, bil, Status::invalid_input, ContactFailureReason::q_invalid, -1);
  // one reason per input, so a caller can tell a bad sensor reading from a bad setting
  ContactFailureReason bad = ContactFailureReason::none;
  if (!tangent_input_valid<ModelT>(v)) bad = ContactFailureReason::v_invalid;
  else if (!tangent_input_valid<ModelT>(tau)) bad = ContactFailureReason::tau_invalid;
  else if (fext != nullptr && !inputs_finite(*fext)) bad = ContactFailureReason::fext_invalid;
  else if (!(h > S(0) && h <= S(10))) bad = ContactFailureReason::step_invalid;
  if (bad != ContactFailureReason::none) return refuse_contact(cp, bil, Status::invalid_input, bad, -1);
  ContactOption bad_option = contact_option_invalid(opt);
  if (bad_option == ContactOption::none) bad_option = problem_option_invalid(cp);
  if (bad_option != ContactOption::none)
    return refuse_contact(cp, bil, Status::invalid_input, ContactFailureReason::options_invalid, -1, bad_option);
  const bool lemke = opt.solver == ContactSolver::lemke;
  for (int i = 0; i < cp.size(); ++i)
    if (cp.is_active(i) && (cp.contact(i).cone == ConeModel::polygon) != lemke)
      return refuse_contact(cp, bil, Status::invalid_input, ContactFailureReason::cone_not_supported, i);
  // force-level spring–damper → cfm, erp (k = ∞: rigid, cfm = 0, erp = 1)
  const bool rigid = opt.stiffness > S(1e30);
  const S cfm = rigid ? S(0) : S(1) / (h * opt.stiffness + opt.damping);
  const S erp = rigid ? S(1) : h * opt.stiffness * cfm;
  if (level == ContactLevel::step && !(cfm == cfm && cfm < S(1e12) && erp == erp))
    return refuse_contact(cp, bil, Status::invalid_input, ContactFailureReason::options_invalid, -1,
                          ContactOption::compliance);

  // ---- kinematics, bilateral rows, unilateral rows, H and C ----------------------------
  int mb = 0;
  if constexpr (has_bilateral) {
    Status s = check_constraint_inputs(model, *bil, q, v);
    if (s == Status::ok && !constraint_pass(model, data, *bil, q, v,
                                            pass_jacobian | pass_gamma | pass_position_error | pass_velocity_error))
      s = Status::invalid_input;
    if (s != Status::ok) {
      zero_constraint_results(*bil);
      return refuse_contact(cp, bil, s, ContactFailureReason::bilateral_failed, -1);
    }
    mb = bil->active_rows();
  } else {
    kinematics_with_world_jacobian(model, data, q, v, true);
  }
  typename CP::Workspace::RowsVector gap;
  gap.setZero(CP::max_rows);
  unilateral_rows(data, cp, q, v, level, opt.margin, gap);
  const int m = ws.rows;
  typename ModelT::TangentVector C = ModelT::TangentVector::Zero();
  Status s = crba(model, data, q);
  const typename ModelT::TangentVector zero = ModelT::TangentVector::Zero();
  if (s == Status::ok) s = fext ? rnea(model, data, q, v, zero, *fext, C) : rnea(model, data, q, v, zero, C);
  if (s == Status::ok) s = factorize_ltl(model, data);
  if (s != Status::ok) return refuse_contact(cp, bil, Status::singular, ContactFailureReason::singular, -1);

  // free motion x0 = H⁻¹ b
  typename ModelT::TangentVector b = tau - C;
  if (level == ContactLevel::impact) b = data.H * v;
  if (level == ContactLevel::step) b = data.H * v + h * (tau - C);
  ws.x0 = b;
  solve_lt_unchecked(data, ws.x0);
  solve_l_unchecked(data, ws.x0);
  ws.xb = ws.x0;

  // ---- bilateral elimination (rank-revealing) -----------------------------------------
  ws.PAt.resize(nv, m);
  for (int r = 0; r < m; ++r) ws.PAt.col(r) = ws.A.row(r).transpose();
  solve_lt_unchecked(data, ws.PAt);
  solve_l_unchecked(data, ws.PAt);  // H⁻¹ Aᵀ
  if constexpr (has_bilateral) {
    if (mb > 0) {
      auto& bw = bil->ws;
      bw.Z = bil->G.transpose();
      solve_lt_unchecked(data, bw.Z);
      solve_l_unchecked(data, bw.Z);  // H⁻¹ Gᵀ
      bw.Y.noalias() = bil->G.lazyProduct(bw.Z);
      bw.Y_qr.setThreshold(std::max(bw.pivot_tolerance, S(16) * Eigen::NumTraits<S>::epsilon()));
      bw.Y_qr.compute(bw.Y);
      report.bilateral_rank = static_cast<int>(bw.Y_qr.rank());
      if (bw.Y_qr.max_pivot == S(0)) report.bilateral_rank = 0;
      // target: γ (acceleration), 0 (impact), −(erp/h) e (step)
      typename BS::RowVector g = bil->gamma;
      if (level == ContactLevel::impact)  // G v⁺ = w (the caller's, checked), else 0
        for (int i = 0; i < mb; ++i) g(i) = bilateral_velocity != nullptr ? bilateral_velocity[i] : S(0);
      if (level == ContactLevel::step) g = -(erp / h) * bil->position_error;
      bw.r = g - bil->G * ws.x0;
      bw.Y_qr.solve_in_place(bw.r);
      ws.xb = ws.x0 + bw.Z * bw.r;
      // consistency: G x_b must meet the target (a redundant but inconsistent set cannot)
      const S res = (bil->G * ws.xb - g).cwiseAbs().maxCoeff();
      const S scale = S(1) + g.cwiseAbs().maxCoeff() + bil->G.cwiseAbs().maxCoeff() * ws.xb.cwiseAbs().maxCoeff();
      if (!(res <= sqrt(Eigen::NumTraits<S>::epsilon()) * scale)) {
        zero_constraint_results(*bil);
        return refuse_contact(cp, bil, Status::singular, ContactFailureReason::bilateral_inconsistent, -1);
      }
      // P Aᵀ = H⁻¹Aᵀ − H⁻¹Gᵀ Y⁺ G H⁻¹Aᵀ, column by column (no GEMM kernel)
      for (int r = 0; r < m; ++r) {
        bw.r = bil->G * ws.PAt.col(r);
        bw.Y_qr.solve_in_place(bw.r);
        ws.PAt.col(r) -= bw.Z * bw.r;
      }
    }
  }
  ws.D.noalias() = ws.A.topRows(m).lazyProduct(ws.PAt);
  // rows' free acceleration (or velocity): A x_b + bias (acceleration level only), minus each
  // row's target (ContactProblem::set_target): every solver then reads free + D φ + terms ≥ 0
  ws.free.resize(m);
  for (int r = 0; r < m; ++r)
    ws.free(r) = ws.A.row(r).dot(ws.xb) + (level == ContactLevel::acceleration ? ws.bias(r) : S(0)) - ws.target(r);

  if (!lemke) {
    ContactFailureReason why = ContactFailureReason::none;
    int index = -1;
    // The guess is the start only when inside the cones (an outside one is a worse start than 0),
    // and not tried when a contact slides (as for Lemke: it would make the slider stick).
    const GuessResult g = opt.sticking_guess && !opt.cone.warm_start && !any_contact_slides(cp, level)
                              ? sticking_guess(cp, level, opt, h, cfm, erp, gap)
                              : GuessResult::none;
    if (g == GuessResult::outside) report.guess = ContactGuess::rejected;
    s = cone_forces(cp, level, h, cfm, erp, gap, g == GuessResult::inside, opt, report, why, index);
    report.residual = report.cone.evidence();
    if (s != Status::ok) {
      if constexpr (has_bilateral) zero_constraint_results(*bil);
      ws.rows = 0;
      return refuse_contact(cp, bil, s, why, index);
    }
  } else {
    // ---- unknowns: f_n and β per contact, f per limit row, then Λ per sticking contact ----
    constexpr int max_lcp = CP::max_lcp;
    LcpUnknown<S> u[max_lcp];
    int lambda_of[MC];  // LCP index of each contact's Λ, −1 without one
    for (int& l : lambda_of) l = -1;
    int n = 0;
    for (int i = 0; i < cp.size(); ++i) {
      const int r = ws.contact_row[i];
      if (r < 0) continue;
      const auto& c = cp.contact(i);
      report.contacts += 1;
      bool slide = false;
      Vector3<S> sdir = Vector3<S>::Zero();  // sliding direction in (n, t₁, t₂) coefficients
      if (level == ContactLevel::acceleration && c.mode != ContactMode::sticking) {
        const S vt1 = ws.row_velocity(r + 1), vt2 = ws.row_velocity(r + 2);
        const S speed = sqrt(vt1 * vt1 + vt2 * vt2);
        slide = c.mode == ContactMode::sliding ? speed > S(0) : speed > cp.sliding_speed;
        if (slide) sdir << S(0), vt1 / speed, vt2 / speed;
      }
      cp.sliding_[i] = slide;
      report.sliding += slide;
      LcpUnknown<S>& un = u[n++];
      un.row = r;
      un.width = 3;
      un.contact = i;
      un.normal = true;
      un.cJ[0] = S(1);
      un.cF[0] = S(1);
      if (slide) {
        un.cF[1] = -c.mu * sdir[1];
        un.cF[2] = -c.mu * sdir[2];
        continue;
      }
      if (c.mu == S(0)) continue;  // frictionless: the normal alone
      constexpr S two_pi = S(6.283185307179586476925286766559);
      for (int j = 0; j < c.edges; ++j) {
        using std::cos;
        using std::sin;
        const S th = two_pi * S(j) / S(c.edges);
        LcpUnknown<S>& ub = u[n++];
        ub.row = r;
        ub.width = 3;
        ub.contact = i;
        ub.cJ[1] = ub.cF[1] = cos(th);
        ub.cJ[2] = ub.cF[2] = sin(th);
      }
      lambda_of[i] = 0;  // placed below
    }
    for (int l = 0; l < cp.limits(); ++l)
      for (int side = 0; side < 2; ++side) {
        const int r = ws.limit_row[l][side];
        if (r < 0) continue;
        LcpUnknown<S>& ul = u[n++];
        ul.row = r;
        ul.width = 1;
        ul.cJ[0] = ul.cF[0] = S(1);
        report.limit_rows += 1;
      }
    const int n_forces = n;
    for (int i = 0; i < cp.size(); ++i)
      if (lambda_of[i] == 0) lambda_of[i] = n++;
    report.unknowns = n;

    ws.M.resize(n, n);  // the force block is written whole below; the Λ rows and columns start at 0
    ws.M.bottomRows(n - n_forces).setZero();
    ws.M.topRightCorner(n_forces, n - n_forces).setZero();
    ws.q.setZero(n);
    // M(a, b) = cJ_aᵀ D cF_b, column by column: d = D cF_b (columns of D, contiguous), then
    // each row a takes cJ_aᵀ of its rows of d
    typename CP::Workspace::RowsVector d;
    d.resize(m);
    for (int bb = 0; bb < n_forces; ++bb) {
      const LcpUnknown<S>& ub = u[bb];
      d.setZero();
      for (int j = 0; j < ub.width; ++j)
        if (ub.cF[j] != S(0)) d.noalias() += ub.cF[j] * ws.D.col(ub.row + j).head(m);
      for (int a = 0; a < n_forces; ++a) {
        const LcpUnknown<S>& ua = u[a];
        const S* const da = d.data() + ua.row;
        S sum = ua.cJ[0] * da[0];
        if (ua.width == 3) sum += ua.cJ[1] * da[1] + ua.cJ[2] * da[2];
        ws.M(a, bb) = sum;
      }
    }
    for (int a = 0; a < n_forces; ++a) {
      const LcpUnknown<S>& ua = u[a];
      S qa = S(0);
      for (int i = 0; i < ua.width; ++i) qa += ua.cJ[i] * ws.free(ua.row + i);
      if (ua.normal || ua.contact < 0) {  // impact: restitution, softening; step: the gap, cfm/h
        const RowTerms<S> t = row_terms(level, ua.contact < 0, opt, ws.row_velocity(ua.row), gap(ua.row), h, cfm, erp);
        qa += t.rhs;
        ws.M(a, a) += t.diag;
      }
      ws.q(a) = qa;
      if (ua.contact >= 0 && !ua.normal) ws.M(a, lambda_of[ua.contact]) = S(1);  // a_edge + Λ ≥ 0
    }
    for (int a = 0; a < n_forces; ++a) {  // μ f_n − Σβ ≥ 0
      const LcpUnknown<S>& ua = u[a];
      if (ua.contact < 0 || lambda_of[ua.contact] < 0) continue;
      ws.M(lambda_of[ua.contact], a) = ua.normal ? cp.contact(ua.contact).mu : S(-1);
    }

    // ---- solve and recover ---------------------------------------------------------------
    // first the sticking guess, in the LCP's unknowns: f_n; f_t split on the two polygon
    // edges around it (the least Σβ); Λ = 0; limit rows 0. Accepted only by Lemke's own check.
    bool solved = false;
    const GuessResult g = opt.sticking_guess && report.sliding == 0 ? sticking_guess(cp, level, opt, h, cfm, erp, gap)
                                                                    : GuessResult::none;
    if (g == GuessResult::outside) report.guess = ContactGuess::rejected;
    if (g == GuessResult::inside) {
      auto& zg = ws.w;  // scratch: check_lcp_guess reads it whole before it writes w
      zg.setZero(n);
      for (int a = 0; a < n_forces; ++a) {
        const LcpUnknown<S>& ua = u[a];
        if (!ua.normal) continue;
        zg(a) = ws.phi(ua.row);
        if (lambda_of[ua.contact] >= 0)
          polygon_split(ws.phi(ua.row + 1), ws.phi(ua.row + 2), u + a + 1, cp.contact(ua.contact).edges, zg, a + 1);
      }
      s = check_lcp_guess(ws.M, ws.q, zg, ws.z, ws.w, ws.lcp, opt.lcp, report.lcp);
      solved = s == Status::ok;
      report.guess = solved ? ContactGuess::accepted : ContactGuess::rejected;
    }
    if (!solved) s = solve_lcp_lemke(ws.M, ws.q, ws.z, ws.w, ws.lcp, opt.lcp, report.lcp);
    report.residual = {report.lcp.residual, report.lcp.tolerance};
    if (s != Status::ok) {
      if constexpr (has_bilateral) zero_constraint_results(*bil);
      ws.rows = 0;
      return refuse_contact(cp, bil, s,
                            s == Status::not_converged ? ContactFailureReason::not_converged
                                                       : ContactFailureReason::lcp_failed,
                            -1);
    }
    if (opt.active_set_recovery) {  // q̈ (x) and z from the physical active-set system, or unchanged
      const auto offset = [&](int r) {
        return (level == ContactLevel::acceleration ? ws.bias(r) : S(0)) - ws.target(r);
      };
      const auto terms = [&](const LcpUnknown<S>& ua) {
        return row_terms(level, ua.contact < 0, opt, ws.row_velocity(ua.row), gap(ua.row), h, cfm, erp);
      };
      const auto apply_P = [&](typename ModelT::TangentVector& t) {  // t ← P t, as P Aᵀ was built
        solve_lt_unchecked(data, t);
        solve_l_unchecked(data, t);
        if constexpr (has_bilateral) {
          if (mb > 0) {
            bil->ws.r = bil->G * t;
            bil->ws.Y_qr.solve_in_place(bil->ws.r);
            t -= bil->ws.Z * bil->ws.r;
          }
        }
      };
      recover_active_set(cp, u, n_forces, n, lambda_of, offset, terms, data.H, b, apply_P, opt.lcp, x, report.recovery);
      if (report.recovery.applied) report.residual = report.recovery.evidence();
    }
    ws.phi.setZero(m);
    for (int a = 0; a < n_forces; ++a)
      for (int i = 0; i < u[a].width; ++i) ws.phi(u[a].row + i) += u[a].cF[i] * ws.z(a);
  }
  if (!report.recovery.applied) {  // (else the active-set recovery's q̈ is in x)
    x = ws.xb;
    for (int r = 0; r < m; ++r) x += ws.PAt.col(r) * ws.phi(r);
  }
  if constexpr (has_bilateral) {
    if (mb > 0) {  // λ = Y⁺ (g − G H⁻¹(b + Aᵀφ))
      auto& bw = bil->ws;
      ws.t = b;
      for (int r = 0; r < m; ++r) ws.t += ws.A.row(r).transpose() * ws.phi(r);
      solve_lt_unchecked(data, ws.t);
      solve_l_unchecked(data, ws.t);
      typename BS::RowVector g = bil->gamma;
      if (level == ContactLevel::impact)  // G v⁺ = w (the caller's, checked), else 0
        for (int i = 0; i < mb; ++i) g(i) = bilateral_velocity != nullptr ? bilateral_velocity[i] : S(0);
      if (level == ContactLevel::step) g = -(erp / h) * bil->position_error;
      bil->lambda = g - bil->G * ws.t;
      if (!opt.bilateral_minimum_norm) {
        bw.Y_qr.solve_in_place(bil->lambda);
      } else if (const Status sp = bilateral_minimum_norm(*bil, g, ws.t, opt.proximal, report.bilateral);
                 sp != Status::ok) {
        zero_constraint_results(*bil);
        ws.rows = 0;
        return refuse_contact(cp, bil, sp,
                              sp == Status::singular ? ContactFailureReason::singular
                                                     : ContactFailureReason::not_converged,
                              -1);
      }
    } else {
      bil->lambda.setZero(0);
    }
  }
  for (int i = 0; i < cp.size(); ++i)
    if (ws.contact_row[i] >= 0) cp.force_[i] = ws.phi.template segment<3>(ws.contact_row[i]);
  for (int l = 0; l < cp.limits(); ++l)
    for (int side = 0; side < 2; ++side)
      if (ws.limit_row[l][side] >= 0) cp.limit_force_[l][side] = ws.phi(ws.limit_row[l][side]);
  bool finite = all_finite(x) && all_finite(ws.phi);
  if constexpr (has_bilateral) finite = finite && all_finite(bil->lambda);
  if (!finite) {
    x.setZero();
    ws.rows = 0;
    for (auto& f : cp.force_) f.setZero();
    for (auto& l : cp.limit_force_) l = {S(0), S(0)};
    if constexpr (has_bilateral) zero_constraint_results(*bil);
    return refuse_contact(cp, bil, Status::overflow, ContactFailureReason::overflow, -1);
  }
  if constexpr (has_bilateral) (void)bil->succeed();
  return cp.succeed();
}

template <class ModelT, class Out>
Status contact_output(Status s, const typename ModelT::TangentVector& x, Out& out) {
  static_assert(holds_size<Out, ModelT::nv>(),
                "talus: q̈ and v⁺ of a contact solve have nv rows (Model::TangentVector)");
  if (s == Status::ok) out = x;
  else out.setZero();
  return s;
}

}  // namespace detail

/// Acceleration level with the bilateral constraints of `cs` (λ to cs.lambda): q̈ and the
/// contact forces (cp.force / world_force, N), the limit forces (cp.limit_force).
template <class ModelT, int MC, int ME, int ML, int MR, int MCs, class Q, class V, class T, class Out>
Status forward_dynamics_contact(
    const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, ConstraintSet<ModelT, MR, MCs>& cs,
    const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v, const Eigen::MatrixBase<T>& tau, Out& ddq,
    const ContactOptions<typename ModelT::Scalar, ContactProblem<ModelT, MC, ME, ML>::max_lcp>& options,
    ContactReport<typename ModelT::Scalar>& report, const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(forward_dynamics_contact, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x;
    const Status s = detail::contact_solve(model, data, cp, &cs, q, v, tau, typename ModelT::Scalar(1),
                                           detail::ContactLevel::acceleration, options, report, fext, x);
    return detail::contact_output<ModelT>(s, x, ddq);
  }
}
/// Acceleration level without bilateral constraints.
template <class ModelT, int MC, int ME, int ML, class Q, class V, class T, class Out>
Status forward_dynamics_contact(
    const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, const Eigen::MatrixBase<Q>& q,
    const Eigen::MatrixBase<V>& v, const Eigen::MatrixBase<T>& tau, Out& ddq,
    const ContactOptions<typename ModelT::Scalar, ContactProblem<ModelT, MC, ME, ML>::max_lcp>& options,
    ContactReport<typename ModelT::Scalar>& report, const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(forward_dynamics_contact, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x;
    detail::NoBilateral* none = nullptr;
    const Status s = detail::contact_solve(model, data, cp, none, q, v, tau, typename ModelT::Scalar(1),
                                           detail::ContactLevel::acceleration, options, report, fext, x);
    return detail::contact_output<ModelT>(s, x, ddq);
  }
}

/// Impact at velocity level: v⁺ from v⁻ (impulses: cp.force, N·s; bilateral impulses: cs.lambda).
template <class ModelT, int MC, int ME, int ML, int MR, int MCs, class Q, class V, class Out>
Status impulses_contact(
    const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, ConstraintSet<ModelT, MR, MCs>& cs,
    const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
    const ContactOptions<typename ModelT::Scalar, ContactProblem<ModelT, MC, ME, ML>::max_lcp>& options,
    ContactReport<typename ModelT::Scalar>& report) {
  TALUS_CHECK_ENTRY_SIZES_QV(impulses_contact, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x;
    const typename ModelT::TangentVector zero = ModelT::TangentVector::Zero();
    const Status s = detail::contact_solve(model, data, cp, &cs, q, v_minus, zero, typename ModelT::Scalar(1),
                                           detail::ContactLevel::impact, options, report, nullptr, x);
    return detail::contact_output<ModelT>(s, x, v_plus);
  }
}
/// Impact with a bilateral velocity target (Drake's kG at velocity level): the bilateral rows
/// ask G v⁺ = w instead of 0 (w: cs.active_rows() entries, in the rows' units, m/s or rad/s;
/// e.g. a constrained joint driven to a set speed through the impact). invalid_input
/// (input_invalid) for a w of another size, not finite or beyond input_limits::magnitude.
template <class ModelT, int MC, int ME, int ML, int MR, int MCs, class Q, class V, class W, class Out>
Status impulses_contact(
    const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, ConstraintSet<ModelT, MR, MCs>& cs,
    const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, const Eigen::MatrixBase<W>& bilateral_velocity,
    Out& v_plus, const ContactOptions<typename ModelT::Scalar, ContactProblem<ModelT, MC, ME, ML>::max_lcp>& options,
    ContactReport<typename ModelT::Scalar>& report) {
  TALUS_CHECK_ENTRY_SIZES_QV(impulses_contact, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    using S = typename ModelT::Scalar;
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    typename ConstraintSet<ModelT, MR, MCs>::RowVector w;
    const int mb = cs.active_rows();
    Status s = Status::invalid_input;
    if (bilateral_velocity.cols() == 1 && bilateral_velocity.rows() == mb && mb <= MR &&
        all_within(bilateral_velocity.derived(), input_limits::magnitude)) {
      w.resize(mb);
      for (int i = 0; i < mb; ++i) w(i) = static_cast<S>(bilateral_velocity.coeff(i));
      const typename ModelT::TangentVector zero = ModelT::TangentVector::Zero();
      s = detail::contact_solve(model, data, cp, &cs, q, v_minus, zero, S(1), detail::ContactLevel::impact, options,
                                report, nullptr, x, w.data());
    } else {
      report = ContactReport<S>{};
      s = detail::refuse_contact(cp, &cs, Status::invalid_input, ContactFailureReason::input_invalid, -1);
    }
    return detail::contact_output<ModelT>(s, x, v_plus);
  }
}
template <class ModelT, int MC, int ME, int ML, class Q, class V, class Out>
Status impulses_contact(
    const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, const Eigen::MatrixBase<Q>& q,
    const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
    const ContactOptions<typename ModelT::Scalar, ContactProblem<ModelT, MC, ME, ML>::max_lcp>& options,
    ContactReport<typename ModelT::Scalar>& report) {
  TALUS_CHECK_ENTRY_SIZES_QV(impulses_contact, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x;
    const typename ModelT::TangentVector zero = ModelT::TangentVector::Zero();
    detail::NoBilateral* none = nullptr;
    const Status s = detail::contact_solve(model, data, cp, none, q, v_minus, zero, typename ModelT::Scalar(1),
                                           detail::ContactLevel::impact, options, report, nullptr, x);
    return detail::contact_output<ModelT>(s, x, v_plus);
  }
}

namespace detail {
template <class ModelT, int MC, int ME, int ML, class BS, class Q, class QOut, class VOut>
Status finish_step(Status s, const ModelT& model, ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil, const Q& q,
                   typename ModelT::TangentVector& v_next, typename ModelT::Scalar h, QOut& q_next, VOut& v_out) {
  static_assert(holds_size<QOut, ModelT::nq>(), "talus: q_next has nq rows (Model::ConfigVector)");
  typename ModelT::ConfigVector qn = ModelT::ConfigVector::Zero();
  if (s == Status::ok) {
    // the inputs were valid: a q⁺ that integrate refuses (beyond input_limits) is an overflow
    const typename ModelT::TangentVector dq = h * v_next;
    if (integrate(model, q, dq, qn) != Status::ok)
      s = refuse_contact(cp, bil, Status::overflow, ContactFailureReason::overflow, -1);
  }
  if (s != Status::ok) {
    q_next.setZero();
    v_next.setZero();
  } else {
    q_next = qn;
  }
  return contact_output<ModelT>(s, v_next, v_out);
}
}  // namespace detail

/// One time step h (s) of the discretized problem: (q, v) → (q_next, v_next); impulses over
/// the step in cp.force (N·s; divide by h for the mean force). Semi-implicit Euler:
/// v⁺ from the velocity-level LCP, q⁺ = q ⊕ h v⁺. Contacts whose gap is ≤ options.margin
/// take part (with k = φ/h while apart, so the gap closes in exactly one step; erp φ/h while
/// penetrating); limits within max(margin, limit_margin).
template <class ModelT, int MC, int ME, int ML, int MR, int MCs, class Q, class V, class T, class QOut, class VOut>
Status time_step_contact(
    const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, ConstraintSet<ModelT, MR, MCs>& cs,
    const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v, const Eigen::MatrixBase<T>& tau,
    typename ModelT::Scalar h, QOut& q_next, VOut& v_next,
    const ContactOptions<typename ModelT::Scalar, ContactProblem<ModelT, MC, ME, ML>::max_lcp>& options,
    ContactReport<typename ModelT::Scalar>& report, const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(time_step_contact, ModelT, q, v, tau, v_next);
  TALUS_ASSERT_CONFIG_OUT(time_step_contact, ModelT, q_next);
  if constexpr (!(detail::entry_sizes_ok<ModelT, Q, VOut, V, T>() && detail::holds_size<QOut, ModelT::nq>())) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x;
    Status s =
        detail::contact_solve(model, data, cp, &cs, q, v, tau, h, detail::ContactLevel::step, options, report, fext, x);
    return detail::finish_step(s, model, cp, &cs, q, x, h, q_next, v_next);
  }
}
template <class ModelT, int MC, int ME, int ML, class Q, class V, class T, class QOut, class VOut>
Status time_step_contact(
    const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, const Eigen::MatrixBase<Q>& q,
    const Eigen::MatrixBase<V>& v, const Eigen::MatrixBase<T>& tau, typename ModelT::Scalar h, QOut& q_next,
    VOut& v_next, const ContactOptions<typename ModelT::Scalar, ContactProblem<ModelT, MC, ME, ML>::max_lcp>& options,
    ContactReport<typename ModelT::Scalar>& report, const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(time_step_contact, ModelT, q, v, tau, v_next);
  TALUS_ASSERT_CONFIG_OUT(time_step_contact, ModelT, q_next);
  if constexpr (!(detail::entry_sizes_ok<ModelT, Q, VOut, V, T>() && detail::holds_size<QOut, ModelT::nq>())) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x;
    detail::NoBilateral* none = nullptr;
    Status s = detail::contact_solve(model, data, cp, none, q, v, tau, h, detail::ContactLevel::step, options, report,
                                     fext, x);
    return detail::finish_step(s, model, cp, none, q, x, h, q_next, v_next);
  }
}

}  // namespace talus
