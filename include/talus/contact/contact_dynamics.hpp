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
/// One solve, in phases a reader can follow top to bottom (detail::contact_solve calls them in
/// turn; each writes its part of cp.ws once; any failure leaves by one exit, refuse_contact):
/// check_contact_inputs → contact_system (the whole system in one sweep over the tree: each
/// body's placement computed once for the rows, H and C) → free_motion → eliminate_bilateral
/// (constraints/bilateral_elimination.hpp) → delassus → solve_lcp_problem (lcp_unknowns,
/// lcp_matrix, the sticking guess, Lemke, the active-set recovery) or solve_cone_problem
/// (sticking_guess, cone_forces) → recover_contact (q̈ or v⁺, λ, the results into the problem).
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
#include <talus/algorithms/system_kinematics.hpp>
#include <talus/constraints/bilateral_elimination.hpp>
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
    const int deepest = deepest_dof<ModelT>(c.body);
    for (int j = 0; j < 3; ++j) ws.row_dof[r + j] = deepest;
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
      ws.row_dof[r] = L.idx_v;
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

/// The exact-cone problem's units (cone_forces): unit a is the contact or limit row
/// ws.unit_row[a]; row[a][i] is the problem row of its component i (0 the normal, 1 and 2 the
/// tangents), or −1 where the component is inert (a limit's or a sliding contact's tangents).
template <class S, int MaxUnits>
struct ConeUnits {
  using Scalar = S;
  int k = 0, slides = 0;
  int row[MaxUnits][3] = {};
  bool slide[MaxUnits] = {};
  S dir[MaxUnits][2] = {};  ///< sliding units: v̂ in (t₁, t₂) coefficients
  S kmu[MaxUnits] = {};     ///< sliding units: μ of the kinetic friction (0 otherwise)
};

/// Phase 1: the units, contacts first, then the limits' active sides; ws.unit_row,
/// ws.unit_limit and ws.mu (μ for a sticking contact's cone, 0 for a normal-only unit).
template <class CP, class Units>
void cone_units(CP& cp, ContactLevel level, Units& u, ContactReport<typename CP::S>& report) {
  using S = typename CP::S;
  auto& ws = cp.ws;
  ws.mu.resize(CP::max_cone_units);
  const auto add = [&](int r, bool limit, bool slides, S mu) {
    const int a = u.k++;
    ws.unit_row[a] = r;
    ws.unit_limit[a] = limit;
    ws.mu(a) = slides || limit ? S(0) : mu;
    u.slide[a] = slides;
    for (int i = 0; i < 3; ++i) u.row[a][i] = limit || slides ? (i == 0 ? r : -1) : r + i;
  };
  for (int i = 0; i < cp.size(); ++i) {
    const int r = ws.contact_row[i];
    if (r < 0) continue;
    const auto& c = cp.contact(i);
    const bool slides = contact_slides(cp, i, level, u.dir[u.k]);
    (void)cp.store_sliding(i, slides);  // i < cp.size(): always ok
    u.slides += slides;
    u.kmu[u.k] = slides ? c.mu : S(0);
    add(r, false, slides, c.mu);
    report.contacts += 1;
  }
  report.sliding = u.slides;
  for (int l = 0; l < cp.limits(); ++l)
    for (int side = 0; side < 2; ++side)
      if (const int r = ws.limit_row[l][side]; r >= 0) {
        add(r, true, false, S(0));
        report.limit_rows += 1;
      }
  ws.mu.conservativeResize(u.k);
  report.unknowns = 3 * u.k;
}

/// The kinetic friction of sliding unit bb seen by unknown ia: −μ v̂ᵀ D(row, t rows of bb); and
/// its split (cone_forces' comment): the part in the solver's W (a positive diagonal) and the
/// part in the load.
template <class WS, class Units>
typename Units::Scalar cone_kinetic(const WS& ws, const Units& u, int ia, int bb) {
  using S = typename Units::Scalar;
  const int ra = u.row[ia / 3][ia % 3], rb = ws.unit_row[bb];
  return ra < 0 ? S(0) : -u.kmu[bb] * (ws.D(ra, rb + 1) * u.dir[bb][0] + ws.D(ra, rb + 2) * u.dir[bb][1]);
}
template <class WS, class Units>
typename Units::Scalar cone_kinetic_in_w(const WS& ws, const Units& u, int ia, int bb) {
  using S = typename Units::Scalar;
  return ia == 3 * bb ? std::max(cone_kinetic(ws, u, ia, bb), S(0)) : S(0);
}
template <class WS, class Units>
typename Units::Scalar cone_kinetic_in_load(const WS& ws, const Units& u, int ia, int bb) {
  return cone_kinetic(ws, u, ia, bb) - cone_kinetic_in_w(ws, u, ia, bb);
}

/// Phase 2: the solver's W and b from the rows (ws.D, ws.free), the level's terms on the
/// normals and a sliding unit's positive kinetic diagonal; an inert component's W = 1, b = 0.
template <class CP, class Units, class Gap>
void assemble_cone_problem(CP& cp, ContactLevel level, typename CP::S h, typename CP::S cfm, typename CP::S erp,
                           const Gap& gap, const ContactOptionsOf<CP>& opt, const Units& u) {
  using S = typename CP::S;
  auto& ws = cp.ws;
  const int n = 3 * u.k;
  ws.W.setZero(n, n);
  ws.b.setZero(n);
  for (int a = 0; a < u.k; ++a)
    for (int i = 0; i < 3; ++i) {
      const int ra = u.row[a][i], ia = 3 * a + i;
      if (ra < 0) {
        ws.W(ia, ia) = S(1);
        continue;
      }
      for (int bb = 0; bb < u.k; ++bb)
        for (int j = 0; j < 3; ++j)
          if (const int rb = u.row[bb][j]; rb >= 0) ws.W(ia, 3 * bb + j) = ws.D(ra, rb);
      ws.b(ia) = ws.free(ra);
      if (u.slide[a]) ws.W(ia, ia) += cone_kinetic_in_w(ws, u, ia, a);
      if (i != 0) continue;
      const RowTerms<S> t = row_terms(level, ws.unit_limit[a], opt, ws.row_velocity(ra), gap(ra), h, cfm, erp);
      ws.b(ia) += t.rhs;
      ws.W(ia, ia) += t.diag;
    }
}

/// Phase 3: the start ws.f: the previous step's forces (options.cone.warm_start; a sliding
/// unit's tangents inert), else the sticking guess in ws.phi when `guessed` and nothing slides
/// (copt then warm-starts from it), else zero.
template <class CP, class Units>
void cone_start(CP& cp, const Units& u, bool guessed, const ContactOptionsOf<CP>& opt,
                ConeSolverOptions<typename CP::S>& copt) {
  auto& ws = cp.ws;
  ws.f.setZero(3 * u.k);
  if (opt.cone.warm_start) {
    for (int a = 0, i = 0; i < cp.size(); ++i)
      if (ws.contact_row[i] >= 0) {
        ws.f.template segment<3>(3 * a) = ws.previous_force[i];
        if (u.slide[a]) ws.f.template segment<2>(3 * a + 1).setZero();  // inert tangents
        ++a;
      }
  } else if (guessed && u.slides == 0) {  // limit units from 0
    for (int a = 0; a < u.k; ++a)
      if (!ws.unit_limit[a]) ws.f.template segment<3>(3 * a) = ws.phi.template segment<3>(ws.unit_row[a]);
    copt.warm_start = true;
  }
}

/// Phase 4: the solver's passes (one when nothing slides): b = b₀ + L(f), solve from f with a
/// quarter of the tolerances (headroom for the load's change), until f passes the check of the
/// true problem (W f + b₀ + L(f) is its σ) at the caller's tolerances; the passes share the cap.
template <class CP, class Units>
Status cone_passes(CP& cp, const Units& u, const ContactOptionsOf<CP>& opt, ConeSolverOptions<typename CP::S> copt,
                   ContactReport<typename CP::S>& report) {
  using S = typename CP::S;
  auto& ws = cp.ws;
  const int n = 3 * u.k;
  typename CP::Workspace::ConeStorage::Vector b0 = ws.b;
  const auto load_b = [&] {
    for (int ia = 0; ia < n; ++ia) {
      S load = S(0);
      for (int bb = 0; bb < u.k; ++bb)
        if (u.slide[bb]) load += cone_kinetic_in_load(ws, u, ia, bb) * ws.f(3 * bb);
      ws.b(ia) = b0(ia) + load;
    }
  };
  // the true (non-symmetric) operator, W plus the load's columns, read entry by entry (never
  // stored): the check of every pass is on it and b₀, so the residuals reported are the true ones
  using ConeMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  const auto true_w = ConeMatrix::NullaryExpr(n, n, [&](Eigen::Index ia, Eigen::Index jb) {
    const int bb = static_cast<int>(jb / 3);
    return jb % 3 == 0 && u.slide[bb] ? ws.W(ia, jb) + cone_kinetic_in_load(ws, u, static_cast<int>(ia), bb)
                                      : ws.W(ia, jb);
  });
  if (u.slides > 0) {
    copt.absolute_tolerance /= S(4);
    copt.relative_tolerance /= S(4);
  }
  int used = 0;
  Status s = Status::ok;
  for (int pass = 0; pass <= opt.cone.max_iterations; ++pass) {
    if (u.slides > 0) {
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
    if (s != Status::ok || u.slides == 0) break;
    load_b();
    S sf = S(0), ss = S(0);
    if (cone_check(true_w, b0, ws.mu, ws.f, u.k, opt.cone, ws.cone, report.cone, sf, ss)) break;
    copt.warm_start = true;  // a pass with 0 iterations passed this check: each further one costs ≥ 1
  }
  report.cone.iterations = used;
  return s;
}

/// Phase 5: the row forces ws.phi from the units' forces; a sliding unit's tangents carry the
/// kinetic friction f_t = −μ f_n v̂ of its normal column.
template <class CP, class Units>
void scatter_cone_forces(CP& cp, const Units& u) {
  auto& ws = cp.ws;
  ws.phi.setZero(ws.rows);
  for (int a = 0; a < u.k; ++a) {
    for (int i = 0; i < 3; ++i)
      if (const int ra = u.row[a][i]; ra >= 0) ws.phi(ra) = ws.f(3 * a + i);
    if (u.slide[a])
      for (int i = 0; i < 2; ++i) ws.phi(ws.unit_row[a] + 1 + i) = -u.kmu[a] * ws.f(3 * a) * u.dir[a][i];
  }
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
/// Fills ws.phi; on failure `why` and `index` say why. Phases: cone_units → assemble_cone_problem
/// → cone_start → cone_passes → scatter_cone_forces.
template <class ModelT, int MC, int ME, int ML, class Gap>
Status cone_forces(ContactProblem<ModelT, MC, ME, ML>& cp, ContactLevel level, typename ModelT::Scalar h,
                   typename ModelT::Scalar cfm, typename ModelT::Scalar erp, const Gap& gap, bool guessed,
                   const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt,
                   ContactReport<typename ModelT::Scalar>& report, ContactFailureReason& why, int& index) {
  using CP = ContactProblem<ModelT, MC, ME, ML>;
  ConeUnits<typename CP::S, CP::max_cone_units> u;
  cone_units(cp, level, u, report);
  assemble_cone_problem(cp, level, h, cfm, erp, gap, opt, u);
  ConeSolverOptions<typename CP::S> copt = opt.cone;
  cone_start(cp, u, guessed, opt, copt);
  const Status s = cone_passes(cp, u, opt, copt, report);
  if (guessed && !opt.cone.warm_start)
    report.guess = s == Status::ok && report.cone.iterations == 0 ? ContactGuess::accepted : ContactGuess::rejected;
  if (s != Status::ok) {
    why = s == Status::not_converged   ? ContactFailureReason::not_converged
          : s == Status::invalid_input ? ContactFailureReason::input_invalid
                                       : ContactFailureReason::cone_solver_failed;
    index = -1;
    return s;
  }
  scatter_cone_forces(cp, u);
  return Status::ok;
}

/// A failed solve leaves nothing behind: no rows (contact_generalized_force gives 0), forces,
/// sliding flags and limit forces zero, the bilateral results zero; the failure recorded.
template <class ModelT, int MC, int ME, int ML, class BS>
Status refuse_contact(ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil, const ContactFailure& why) {
  cp.ws.rows = 0;
  cp.ws.phi.setZero(0);
  cp.clear_results();
  if constexpr (!std::is_same_v<BS, NoBilateral>) zero_constraint_results(*bil);
  else (void)bil;
  return cp.fail(why.status, why.reason, why.index, why.option);
}
template <class ModelT, int MC, int ME, int ML, class BS>
Status refuse_contact(ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil, Status s, ContactFailureReason why, int index,
                      ContactOption option = ContactOption::none) {
  return refuse_contact(cp, bil, ContactFailure{s, why, index, option});
}

/// A contact solve's phases return this: status ok to go on, else the one failure to record.
inline bool going_on(const ContactFailure& f) { return f.status == Status::ok; }

/// The spring–damper of the step level (ContactOptions::stiffness k, damping b) over the step h:
/// cfm = 1 / (h k + b), erp = h k cfm; rigid (k = ∞): cfm = 0, erp = 1.
template <class S>
struct Compliance {
  S cfm = S(0), erp = S(1);
};

/// The bilateral rows' target at this level: γ (acceleration), w (impact: the caller's,
/// checked, else 0), −(erp/h) e (step). The type when there is no set: nothing.
template <class BS>
struct BilateralTargetOf {
  using type = typename BS::RowVector;
};
template <>
struct BilateralTargetOf<NoBilateral> {
  struct type {};
};
template <class BS, class S>
typename BS::RowVector bilateral_target(const BS& bil, ContactLevel level, const Compliance<S>& k, S h, const S* w) {
  typename BS::RowVector g = bil.gamma;
  if (level == ContactLevel::impact)
    for (Eigen::Index i = 0; i < g.size(); ++i) g(i) = w != nullptr ? w[i] : S(0);
  if (level == ContactLevel::step) g = -(k.erp / h) * bil.position_error;
  return g;
}

/// Phase 1, check: the inputs and options, one reason per input (so a caller can tell a bad
/// sensor reading from a bad setting), and the compliance they give.
template <class ModelT, int MC, int ME, int ML, class Q, class V, class T>
ContactFailure check_contact_inputs(const ModelT& model, const ContactProblem<ModelT, MC, ME, ML>& cp, const Q& q,
                                    const V& v, const T& tau, const ExternalForces<ModelT>* fext,
                                    typename ModelT::Scalar h, ContactLevel level,
                                    const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt,
                                    Compliance<typename ModelT::Scalar>& k) {
  using S = typename ModelT::Scalar;
  using R = ContactFailureReason;
  const auto invalid = [](R why, int index = -1, ContactOption option = ContactOption::none) {
    return ContactFailure{Status::invalid_input, why, index, option};
  };
  if (check_configuration(model, q) != Status::ok) return invalid(R::q_invalid);
  if (!tangent_input_valid<ModelT>(v)) return invalid(R::v_invalid);
  if (!tangent_input_valid<ModelT>(tau)) return invalid(R::tau_invalid);
  if (fext != nullptr && !inputs_finite(*fext)) return invalid(R::fext_invalid);
  if (!(h > S(0) && h <= S(10))) return invalid(R::step_invalid);
  ContactOption bad_option = contact_option_invalid(opt);
  if (bad_option == ContactOption::none) bad_option = problem_option_invalid(cp);
  if (bad_option != ContactOption::none) return invalid(R::options_invalid, -1, bad_option);
  const bool lemke = opt.solver == ContactSolver::lemke;
  for (int i = 0; i < cp.size(); ++i)
    if (cp.is_active(i) && (cp.contact(i).cone == ConeModel::polygon) != lemke)
      return invalid(R::cone_not_supported, i);
  const bool rigid = opt.stiffness > S(1e30);
  k.cfm = rigid ? S(0) : S(1) / (h * opt.stiffness + opt.damping);
  k.erp = rigid ? S(1) : h * opt.stiffness * k.cfm;
  if (level == ContactLevel::step && !(k.cfm == k.cfm && k.cfm < S(1e12) && k.erp == k.erp))
    return invalid(R::options_invalid, -1, ContactOption::compliance);
  return ContactFailure{};
}

/// Phase 2, the system in one sweep: the forward pass of the whole system at (q, v)
/// (constrained_system_forward: each placement computed once), then what reads it: the
/// bilateral set's rows (G, γ, errors), the unilateral rows (A, bias, velocity, gaps), H (CRBA's
/// backward pass), C (RNEA's, with f_ext) and H = Lᵀ L.
template <class ModelT, int MC, int ME, int ML, class BS, class Q, class V, class Gap>
ContactFailure contact_system(const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil,
                              const Q& q, const V& v, ContactLevel level, typename ModelT::Scalar margin,
                              const ExternalForces<ModelT>* fext, Gap& gap, typename ModelT::TangentVector& C) {
  constexpr int all_rows = pass_jacobian | pass_gamma | pass_position_error | pass_velocity_error;
  if constexpr (!std::is_same_v<BS, NoBilateral>) {
    if (const Status s = check_constraint_inputs(model, *bil, q, v); s != Status::ok)
      return ContactFailure{s, ContactFailureReason::bilateral_failed};
  }
  if (fext != nullptr) constrained_system_forward<true>(model, data, q, v, fext);
  else constrained_system_forward<false>(model, data, q, v, fext);
  if constexpr (!std::is_same_v<BS, NoBilateral>) {
    if (!constraint_rows(model, data, *bil, q, v, all_rows))
      return ContactFailure{Status::invalid_input, ContactFailureReason::bilateral_failed};
  }
  gap.setZero(ContactProblem<ModelT, MC, ME, ML>::max_rows);
  unilateral_rows(data, cp, q, v, level, margin, gap);
  crba_backward(model, data);
  Status s = all_finite(data.H) ? Status::ok : Status::overflow;
  if (s == Status::ok) {
    rnea_backward(model, data);
    s = output_or_zero(s, data.tau, C);
  }
  if (s == Status::ok) s = factorize_ltl(model, data);
  if (s != Status::ok) return ContactFailure{Status::singular, ContactFailureReason::singular};
  return ContactFailure{};
}

/// Phase 3, the free motion: b = τ − C (acceleration), H v⁻ (impact), H v + h (τ − C) (step);
/// ws.y0 = L⁻ᵀ b and ws.x0 = L⁻¹ y0 = H⁻¹ b. The rows read their free term from x0 (A x0, over
/// each row's chain) and the answer is x = x0 + L⁻¹ Y φ: the free term and x share x0's
/// rounding, so a row's velocity from x matches the solver's w = free + D φ to the rounding of
/// the force term (from L⁻¹(y0 + Y φ), a joint's velocity would round on the scale of all of v).
template <class ModelT, int MC, int ME, int ML, class V, class T>
typename ModelT::TangentVector free_motion(const Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp,
                                           ContactLevel level, const V& v, const T& tau,
                                           const typename ModelT::TangentVector& C, typename ModelT::Scalar h) {
  typename ModelT::TangentVector b = tau - C;
  if (level == ContactLevel::impact) b = data.H * v;
  if (level == ContactLevel::step) b = data.H * v + h * (tau - C);
  cp.ws.y0 = b;
  solve_lt_unchecked(data, cp.ws.y0);
  cp.ws.x0 = cp.ws.y0;
  solve_l_unchecked(data, cp.ws.x0);
  return b;
}

/// The rows through the factor: ws.Y = L⁻ᵀ Aᵀ, column by column along each row's chain (a
/// foot's row: its leg and the base, not the other legs).
template <class ModelT, int MC, int ME, int ML>
void rows_through_factor(const Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp) {
  using Tree = typename ModelT::Tree;
  auto& ws = cp.ws;
  const int m = ws.rows;
  ws.Y.setZero(ModelT::nv, m);
  for (int r = 0; r < m; ++r) {
    auto y = ws.Y.col(r);
    for (int k = ws.row_dof[r]; k >= 0; k = Tree::dof_parent[k]) y.coeffRef(k) = ws.A.coeff(r, k);
    solve_lt_chain_unchecked(data, ws.row_dof[r], y);
  }
}

/// P Aᵀ = L⁻¹ Y and xb = x0 (H⁻¹ Aᵀ and H⁻¹ b; P = H⁻¹ until the
/// bilateral rows are eliminated), once per solve: only the bilateral elimination and Lemke's
/// active-set recovery read them (the contact rows themselves need Y and z only).
template <class ModelT, int MC, int ME, int ML>
void form_projected_rows(const Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp) {
  auto& ws = cp.ws;
  if (ws.projected) return;
  ws.PAt = ws.Y;
  solve_l_unchecked(data, ws.PAt);
  ws.xb = ws.x0;
  ws.projected = true;
}

/// Phase 4, the rows through the factor (ws.Y, rows_through_factor), then, with active
/// bilateral rows, their elimination (bilateral_elimination.hpp): ws.PAt = P Aᵀ and ws.xb = the
/// free motion meeting the set's target g. singular (bilateral_inconsistent) when redundant
/// rows ask for the impossible.
template <class ModelT, int MC, int ME, int ML, class BS, class G>
ContactFailure eliminate_bilateral(const Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil,
                                   const G& g, ContactReport<typename ModelT::Scalar>& report) {
  auto& ws = cp.ws;
  const int m = ws.rows;
  ws.projected = false;
  rows_through_factor(data, cp);
  if constexpr (!std::is_same_v<BS, NoBilateral>) {
    if (bil->active_rows() > 0) {
      form_projected_rows(data, cp);
      report.bilateral_rank = factor_bilateral(data, *bil);
      meet_bilateral_target(*bil, ws.x0, g, ws.xb);
      if (!bilateral_consistent(*bil, ws.xb, g))
        return ContactFailure{Status::singular, ContactFailureReason::bilateral_inconsistent};
      for (int r = 0; r < m; ++r) project_bilateral(*bil, ws.PAt.col(r));  // column by column: no GEMM kernel
    }
  } else {
    (void)bil;
    (void)g;
    (void)report;
    (void)m;
  }
  return ContactFailure{};
}

/// Phase 5, the rows' operator: ws.D = A P Aᵀ (Delassus) and ws.free = each row's free
/// acceleration (or velocity) A x_b + bias (acceleration level) minus its target
/// (ContactProblem::set_target): every solver then reads free + D φ + terms ≥ 0. Without
/// eliminated bilateral rows P = H⁻¹: D = Yᵀ Y, each entry over the chain its two rows share,
/// and A x_b = A x0 over each row's chain; with them, the products with P Aᵀ and x_b.
template <class ModelT, int MC, int ME, int ML>
void delassus(ContactProblem<ModelT, MC, ME, ML>& cp, ContactLevel level) {
  using S = typename ModelT::Scalar;
  auto& ws = cp.ws;
  const int m = ws.rows;
  const auto offset = [&](int r) { return (level == ContactLevel::acceleration ? ws.bias(r) : S(0)) - ws.target(r); };
  ws.free.resize(m);
  if (ws.projected) {
    ws.D.noalias() = ws.A.topRows(m).lazyProduct(ws.PAt);
    for (int r = 0; r < m; ++r) ws.free(r) = ws.A.row(r).dot(ws.xb) + offset(r);
    return;
  }
  ws.D.resize(m, m);
  for (int r = 0; r < m; ++r) {
    for (int c = r; c < m; ++c) {
      const int k = common_dof<ModelT>(ws.row_dof[r], ws.row_dof[c]);
      ws.D(r, c) = ws.D(c, r) = chain_dot<ModelT>(k, ws.Y.col(r), ws.Y.col(c));
    }
    ws.free(r) = chain_dot<ModelT>(ws.row_dof[r], ws.A.row(r), ws.x0) + offset(r);
  }
}

/// Phase 6 with PGS or ADMM: the sticking guess (the start only when inside the cones: an
/// outside one is a worse start than 0; not tried when a contact slides, as for Lemke: it
/// would make the slider stick), then cone_forces. ws.phi holds the row forces.
template <class ModelT, int MC, int ME, int ML, class Gap>
ContactFailure solve_cone_problem(ContactProblem<ModelT, MC, ME, ML>& cp, ContactLevel level,
                                  const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt,
                                  typename ModelT::Scalar h, const Compliance<typename ModelT::Scalar>& k,
                                  const Gap& gap, ContactReport<typename ModelT::Scalar>& report) {
  const GuessResult g = opt.sticking_guess && !opt.cone.warm_start && !any_contact_slides(cp, level)
                            ? sticking_guess(cp, level, opt, h, k.cfm, k.erp, gap)
                            : GuessResult::none;
  if (g == GuessResult::outside) report.guess = ContactGuess::rejected;
  ContactFailure f;
  f.status = cone_forces(cp, level, h, k.cfm, k.erp, gap, g == GuessResult::inside, opt, report, f.reason, f.index);
  report.residual = report.cone.evidence();
  return f;
}

/// The LCP's unknowns (Lemke): f_n and the polygon's β per contact (f_n alone when it slides,
/// its force column carrying the kinetic friction −μ f_n v̂; f_n alone when frictionless),
/// one f per limit row, then one Λ per contact with β.
template <class S, int MaxLcp, int MC>
struct LcpLayout {
  LcpUnknown<S> u[MaxLcp];
  int lambda_of[MC];  ///< LCP index of each contact's Λ, −1 without one
  int n_forces = 0, n = 0;
};

template <class ModelT, int MC, int ME, int ML, class Layout>
void lcp_unknowns(ContactProblem<ModelT, MC, ME, ML>& cp, ContactLevel level, Layout& lay,
                  ContactReport<typename ModelT::Scalar>& report) {
  using S = typename ModelT::Scalar;
  constexpr S two_pi = S(6.283185307179586476925286766559);
  auto& ws = cp.ws;
  for (int& l : lay.lambda_of) l = -1;
  int n = 0;
  for (int i = 0; i < cp.size(); ++i) {
    const int r = ws.contact_row[i];
    if (r < 0) continue;
    const auto& c = cp.contact(i);
    report.contacts += 1;
    S dir[2] = {S(0), S(0)};  // sliding direction in (t₁, t₂) coefficients
    const bool slide = contact_slides(cp, i, level, dir);
    (void)cp.store_sliding(i, slide);  // i < cp.size(): always ok
    report.sliding += slide;
    LcpUnknown<S>& un = lay.u[n++];
    un.row = r;
    un.width = 3;
    un.contact = i;
    un.normal = true;
    un.cJ[0] = S(1);
    un.cF[0] = S(1);
    if (slide) {
      un.cF[1] = -c.mu * dir[0];
      un.cF[2] = -c.mu * dir[1];
      continue;
    }
    if (c.mu == S(0)) continue;  // frictionless: the normal alone
    for (int j = 0; j < c.edges; ++j) {
      using std::cos;
      using std::sin;
      const S th = two_pi * S(j) / S(c.edges);
      LcpUnknown<S>& ub = lay.u[n++];
      ub.row = r;
      ub.width = 3;
      ub.contact = i;
      ub.cJ[1] = ub.cF[1] = cos(th);
      ub.cJ[2] = ub.cF[2] = sin(th);
    }
    lay.lambda_of[i] = 0;  // placed below
  }
  for (int l = 0; l < cp.limits(); ++l)
    for (int side = 0; side < 2; ++side) {
      const int r = ws.limit_row[l][side];
      if (r < 0) continue;
      LcpUnknown<S>& ul = lay.u[n++];
      ul.row = r;
      ul.width = 1;
      ul.cJ[0] = ul.cF[0] = S(1);
      report.limit_rows += 1;
    }
  lay.n_forces = n;
  for (int i = 0; i < cp.size(); ++i)
    if (lay.lambda_of[i] == 0) lay.lambda_of[i] = n++;
  lay.n = n;
  report.unknowns = n;
}

/// The LCP w = M z + q ≥ 0 ⟂ z ≥ 0 on the layout's unknowns: M(a, b) = cJ_aᵀ D cF_b (plus the
/// level's diagonal terms), q_a = cJ_aᵀ free (plus the level's right-hand side terms), and the
/// friction polygon's rows a_edge + Λ ≥ 0, μ f_n − Σβ ≥ 0.
template <class ModelT, int MC, int ME, int ML, class Layout, class Gap>
void lcp_matrix(ContactProblem<ModelT, MC, ME, ML>& cp, ContactLevel level, const Layout& lay,
                const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt, typename ModelT::Scalar h,
                const Compliance<typename ModelT::Scalar>& k, const Gap& gap) {
  using S = typename ModelT::Scalar;
  auto& ws = cp.ws;
  const int m = ws.rows, n = lay.n, n_forces = lay.n_forces;
  ws.M.resize(n, n);  // the force block is written whole below; the Λ rows and columns start at 0
  ws.M.bottomRows(n - n_forces).setZero();
  ws.M.topRightCorner(n_forces, n - n_forces).setZero();
  ws.q.setZero(n);
  // column by column: d = D cF_b (columns of D, contiguous), then each row a takes cJ_aᵀ of
  // its rows of d
  typename ContactProblem<ModelT, MC, ME, ML>::Workspace::RowsVector d;
  d.resize(m);
  for (int bb = 0; bb < n_forces; ++bb) {
    const LcpUnknown<S>& ub = lay.u[bb];
    d.setZero();
    for (int j = 0; j < ub.width; ++j)
      if (ub.cF[j] != S(0)) d.noalias() += ub.cF[j] * ws.D.col(ub.row + j).head(m);
    for (int a = 0; a < n_forces; ++a) {
      const LcpUnknown<S>& ua = lay.u[a];
      const S* const da = d.data() + ua.row;
      S sum = ua.cJ[0] * da[0];
      if (ua.width == 3) sum += ua.cJ[1] * da[1] + ua.cJ[2] * da[2];
      ws.M(a, bb) = sum;
    }
  }
  for (int a = 0; a < n_forces; ++a) {
    const LcpUnknown<S>& ua = lay.u[a];
    S qa = S(0);
    for (int i = 0; i < ua.width; ++i) qa += ua.cJ[i] * ws.free(ua.row + i);
    if (ua.normal || ua.contact < 0) {  // impact: restitution, softening; step: the gap, cfm/h
      const RowTerms<S> t =
          row_terms(level, ua.contact < 0, opt, ws.row_velocity(ua.row), gap(ua.row), h, k.cfm, k.erp);
      qa += t.rhs;
      ws.M(a, a) += t.diag;
    }
    ws.q(a) = qa;
    if (ua.contact >= 0 && !ua.normal) ws.M(a, lay.lambda_of[ua.contact]) = S(1);  // a_edge + Λ ≥ 0
  }
  for (int a = 0; a < n_forces; ++a) {  // μ f_n − Σβ ≥ 0
    const LcpUnknown<S>& ua = lay.u[a];
    if (ua.contact < 0 || lay.lambda_of[ua.contact] < 0) continue;
    ws.M(lay.lambda_of[ua.contact], a) = ua.normal ? cp.contact(ua.contact).mu : S(-1);
  }
}

/// The sticking guess in the LCP's unknowns (f_n; f_t split on the two polygon edges around it,
/// the least Σβ; Λ = 0; limit rows 0), accepted only by Lemke's own check (check_lcp_guess).
/// True when accepted: ws.z holds it.
template <class ModelT, int MC, int ME, int ML, class Layout, class Gap>
bool lcp_sticking_guess(ContactProblem<ModelT, MC, ME, ML>& cp, ContactLevel level, const Layout& lay,
                        const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt, typename ModelT::Scalar h,
                        const Compliance<typename ModelT::Scalar>& k, const Gap& gap,
                        ContactReport<typename ModelT::Scalar>& report) {
  auto& ws = cp.ws;
  const GuessResult g = opt.sticking_guess && report.sliding == 0 ? sticking_guess(cp, level, opt, h, k.cfm, k.erp, gap)
                                                                  : GuessResult::none;
  if (g == GuessResult::outside) report.guess = ContactGuess::rejected;
  if (g != GuessResult::inside) return false;
  auto& zg = ws.w;  // scratch: check_lcp_guess reads it whole before it writes w
  zg.setZero(lay.n);
  for (int a = 0; a < lay.n_forces; ++a) {
    const auto& ua = lay.u[a];
    if (!ua.normal) continue;
    zg(a) = ws.phi(ua.row);
    if (lay.lambda_of[ua.contact] >= 0)
      polygon_split(ws.phi(ua.row + 1), ws.phi(ua.row + 2), lay.u + a + 1, cp.contact(ua.contact).edges, zg, a + 1);
  }
  const bool accepted = check_lcp_guess(ws.M, ws.q, zg, ws.z, ws.w, ws.lcp, opt.lcp, report.lcp) == Status::ok;
  report.guess = accepted ? ContactGuess::accepted : ContactGuess::rejected;
  return accepted;
}

/// Phase 6 with Lemke: the unknowns, the LCP, the sticking guess or Lemke's method, the
/// active-set recovery (ContactOptions::active_set_recovery: q̈ in x and z from the physical
/// active-set system, or unchanged), then ws.phi = the row forces of z.
template <class ModelT, int MC, int ME, int ML, class BS, class Gap>
ContactFailure solve_lcp_problem(const Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil,
                                 ContactLevel level, const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt,
                                 typename ModelT::Scalar h, const Compliance<typename ModelT::Scalar>& k,
                                 const Gap& gap, const typename ModelT::TangentVector& b,
                                 ContactReport<typename ModelT::Scalar>& report, typename ModelT::TangentVector& x) {
  using S = typename ModelT::Scalar;
  using CP = ContactProblem<ModelT, MC, ME, ML>;
  auto& ws = cp.ws;
  LcpLayout<S, CP::max_lcp, MC> lay;
  lcp_unknowns(cp, level, lay, report);
  lcp_matrix(cp, level, lay, opt, h, k, gap);
  Status s = Status::ok;
  if (!lcp_sticking_guess(cp, level, lay, opt, h, k, gap, report))
    s = solve_lcp_lemke(ws.M, ws.q, ws.z, ws.w, ws.lcp, opt.lcp, report.lcp);
  report.residual = {report.lcp.residual, report.lcp.tolerance};
  if (s != Status::ok)
    return ContactFailure{
        s, s == Status::not_converged ? ContactFailureReason::not_converged : ContactFailureReason::lcp_failed};
  if (opt.active_set_recovery) {
    form_projected_rows(data, cp);
    const auto offset = [&](int r) { return (level == ContactLevel::acceleration ? ws.bias(r) : S(0)) - ws.target(r); };
    const auto terms = [&](const LcpUnknown<S>& ua) {
      return row_terms(level, ua.contact < 0, opt, ws.row_velocity(ua.row), gap(ua.row), h, k.cfm, k.erp);
    };
    const auto apply_P = [&](typename ModelT::TangentVector& t) {  // t ← P t, as P Aᵀ was built
      solve_lt_unchecked(data, t);
      solve_l_unchecked(data, t);
      if constexpr (!std::is_same_v<BS, NoBilateral>) {
        if (bil->active_rows() > 0) project_bilateral(*bil, t);
      } else {
        (void)bil;
      }
    };
    recover_active_set(cp, lay.u, lay.n_forces, lay.n, lay.lambda_of, offset, terms, data.H, b, apply_P, opt.lcp, x,
                       report.recovery);
    if (report.recovery.applied) report.residual = report.recovery.evidence();
  }
  ws.phi.setZero(ws.rows);
  for (int a = 0; a < lay.n_forces; ++a)
    for (int i = 0; i < lay.u[a].width; ++i) ws.phi(lay.u[a].row + i) += lay.u[a].cF[i] * ws.z(a);
  return ContactFailure{};
}

/// Phase 7, recover: x = x_b + P Aᵀ φ (unless the active-set recovery wrote it), the
/// bilateral multipliers λ = Y⁺ (g − G H⁻¹(b + Aᵀφ)) (or their minimum norm), the results into
/// the problem; overflow when one is not finite.
template <class ModelT, int MC, int ME, int ML, class BS, class G>
ContactFailure recover_contact(const Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil,
                               const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt,
                               const typename ModelT::TangentVector& b, const G& g,
                               ContactReport<typename ModelT::Scalar>& report, typename ModelT::TangentVector& x) {
  auto& ws = cp.ws;
  const int m = ws.rows;
  if (!report.recovery.applied && ws.projected) {
    x = ws.xb;
    for (int r = 0; r < m; ++r) x += ws.PAt.col(r) * ws.phi(r);
  } else if (!report.recovery.applied) {  // x = x0 + L⁻¹ Y φ, Y's columns along their chains
    using Tree = typename ModelT::Tree;
    x.setZero();
    for (int r = 0; r < m; ++r)
      for (int k = ws.row_dof[r]; k >= 0; k = Tree::dof_parent[k]) x.coeffRef(k) += ws.Y.coeff(k, r) * ws.phi(r);
    solve_l_unchecked(data, x);
    x += ws.x0;
  }
  bool finite = true;
  if constexpr (!std::is_same_v<BS, NoBilateral>) {
    if (bil->active_rows() > 0) {
      ws.t = b;
      for (int r = 0; r < m; ++r) ws.t += ws.A.row(r).transpose() * ws.phi(r);
      solve_lt_unchecked(data, ws.t);
      solve_l_unchecked(data, ws.t);
      bil->lambda = g - bil->G * ws.t;
      if (!opt.bilateral_minimum_norm) {
        solve_bilateral(*bil, bil->lambda);
      } else if (const Status sp = bilateral_minimum_norm(*bil, g, ws.t, opt.proximal, report.bilateral);
                 sp != Status::ok) {
        return ContactFailure{
            sp, sp == Status::singular ? ContactFailureReason::singular : ContactFailureReason::not_converged};
      }
    } else {
      bil->lambda.setZero(0);
    }
    finite = all_finite(bil->lambda);
  } else {
    (void)data;
    (void)bil;
    (void)opt;
    (void)b;
    (void)g;
  }
  if (!(finite && all_finite(x) && all_finite(ws.phi)))
    return ContactFailure{Status::overflow, ContactFailureReason::overflow};
  for (int i = 0; i < cp.size(); ++i)  // indices in range: always ok
    if (ws.contact_row[i] >= 0) (void)cp.store_force(i, ws.phi.template segment<3>(ws.contact_row[i]));
  for (int l = 0; l < cp.limits(); ++l)
    for (int side = 0; side < 2; ++side)
      if (ws.limit_row[l][side] >= 0) (void)cp.store_limit_force(l, side, ws.phi(ws.limit_row[l][side]));
  return ContactFailure{};
}

/// The whole solve for one level, phase by phase (check → system in one sweep → eliminate the
/// bilateral rows → the rows' operator → the LCP or the cone problem → recover), with one exit
/// for every failure. b, the free motion's right-hand side: τ − C (acceleration), H v⁻
/// (impact), H v + h (τ − C) (step); the bilateral target g: γ, w (bilateral_velocity: mb
/// entries checked by the caller, or 0 when null), −(erp/h) e. Result x: q̈ or v⁺.
template <class ModelT, int MC, int ME, int ML, class BS, class Q, class V, class T>
Status contact_solve(const ModelT& model, Data<ModelT>& data, ContactProblem<ModelT, MC, ME, ML>& cp, BS* bil,
                     const Q& q, const V& v, const T& tau, typename ModelT::Scalar h, ContactLevel level,
                     const ContactOptionsOf<ContactProblem<ModelT, MC, ME, ML>>& opt,
                     ContactReport<typename ModelT::Scalar>& report, const ExternalForces<ModelT>* fext,
                     typename ModelT::TangentVector& x, const typename ModelT::Scalar* bilateral_velocity = nullptr) {
  using S = typename ModelT::Scalar;
  report = ContactReport<S>{};
  x.setZero();
  cp.ws.rows = 0;
  cp.ws.phi.setZero(0);
  cp.begin_results();
  Compliance<S> k;
  typename ContactProblem<ModelT, MC, ME, ML>::Workspace::RowsVector gap;
  typename ModelT::TangentVector C = ModelT::TangentVector::Zero(), b = ModelT::TangentVector::Zero();
  typename BilateralTargetOf<BS>::type g{};
  ContactFailure f = check_contact_inputs(model, cp, q, v, tau, fext, h, level, opt, k);
  if (going_on(f)) f = contact_system(model, data, cp, bil, q, v, level, opt.margin, fext, gap, C);
  if (going_on(f)) {
    b = free_motion(data, cp, level, v, tau, C, h);
    if constexpr (!std::is_same_v<BS, NoBilateral>) g = bilateral_target(*bil, level, k, h, bilateral_velocity);
    f = eliminate_bilateral(data, cp, bil, g, report);
  }
  if (going_on(f)) {
    delassus(cp, level);
    f = opt.solver == ContactSolver::lemke ? solve_lcp_problem(data, cp, bil, level, opt, h, k, gap, b, report, x)
                                           : solve_cone_problem(cp, level, opt, h, k, gap, report);
  }
  if (going_on(f)) f = recover_contact(data, cp, bil, opt, b, g, report, x);
  if (!going_on(f)) {
    x.setZero();
    return refuse_contact(cp, bil, f);
  }
  if constexpr (!std::is_same_v<BS, NoBilateral>) (void)bil->succeed();
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

/// The problem type carries the model and the capacities (ContactProblem<Model, MaxContacts,
/// MaxEdges, MaxLimits>); the entries below take it, and a ConstraintSet<Model, …> of the same
/// model for the bilateral rows, as types of their own.
template <class T>
struct is_contact_problem : std::false_type {};
template <class ModelT, int MC, int ME, int ML>
struct is_contact_problem<ContactProblem<ModelT, MC, ME, ML>> : std::true_type {};
template <class T>
struct is_constraint_set : std::false_type {};
template <class ModelT, int MR, int MC>
struct is_constraint_set<ConstraintSet<ModelT, MR, MC>> : std::true_type {};

/// A contact problem's model, options and report types.
template <class Problem>
using ModelOf = typename Problem::Model;
template <class Problem>
using ContactOptionsFor = ContactOptions<typename Problem::S, Problem::max_lcp>;
template <class Problem>
using ContactReportFor = ContactReport<typename Problem::S>;

#define TALUS_CHECK_CONTACT_TYPES(Problem, Set)                                                   \
  static_assert(is_contact_problem<Problem>::value, "talus: cp must be a talus::ContactProblem"); \
  static_assert(is_constraint_set<Set>::value, "talus: cs must be a talus::ConstraintSet");       \
  static_assert(std::is_same_v<typename Set::Model, typename Problem::Model>,                     \
                "talus: the ConstraintSet and the ContactProblem must be of the same model type")

/// Acceleration level with the bilateral constraints of `cs` (λ to cs.lambda): q̈ and the
/// contact forces (cp.force / world_force, N), the limit forces (cp.limit_force).
template <class Problem, class Set, class Q, class V, class T, class Out>
Status forward_dynamics_contact(const ModelOf<Problem>& model, Data<ModelOf<Problem>>& data, Problem& cp, Set& cs,
                                const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                const Eigen::MatrixBase<T>& tau, Out& ddq, const ContactOptionsFor<Problem>& options,
                                ContactReportFor<Problem>& report,
                                const ExternalForces<ModelOf<Problem>>* fext = nullptr) {
  using ModelT = ModelOf<Problem>;
  TALUS_CHECK_CONTACT_TYPES(Problem, Set);
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
template <class Problem, class Q, class V, class T, class Out>
Status forward_dynamics_contact(const ModelOf<Problem>& model, Data<ModelOf<Problem>>& data, Problem& cp,
                                const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                const Eigen::MatrixBase<T>& tau, Out& ddq, const ContactOptionsFor<Problem>& options,
                                ContactReportFor<Problem>& report,
                                const ExternalForces<ModelOf<Problem>>* fext = nullptr) {
  using ModelT = ModelOf<Problem>;
  static_assert(is_contact_problem<Problem>::value, "talus: cp must be a talus::ContactProblem");
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
template <class Problem, class Set, class Q, class V, class Out>
Status impulses_contact(const ModelOf<Problem>& model, Data<ModelOf<Problem>>& data, Problem& cp, Set& cs,
                        const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
                        const ContactOptionsFor<Problem>& options, ContactReportFor<Problem>& report) {
  using ModelT = ModelOf<Problem>;
  TALUS_CHECK_CONTACT_TYPES(Problem, Set);
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
template <class Problem, class Set, class Q, class V, class W, class Out>
Status impulses_contact(const ModelOf<Problem>& model, Data<ModelOf<Problem>>& data, Problem& cp, Set& cs,
                        const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus,
                        const Eigen::MatrixBase<W>& bilateral_velocity, Out& v_plus,
                        const ContactOptionsFor<Problem>& options, ContactReportFor<Problem>& report) {
  using ModelT = ModelOf<Problem>;
  TALUS_CHECK_CONTACT_TYPES(Problem, Set);
  TALUS_CHECK_ENTRY_SIZES_QV(impulses_contact, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    using S = typename ModelT::Scalar;
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    typename Set::RowVector w;
    const int mb = cs.active_rows();
    Status s = Status::invalid_input;
    if (bilateral_velocity.cols() == 1 && bilateral_velocity.rows() == mb && mb <= Set::max_rows &&
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
template <class Problem, class Q, class V, class Out>
Status impulses_contact(const ModelOf<Problem>& model, Data<ModelOf<Problem>>& data, Problem& cp,
                        const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
                        const ContactOptionsFor<Problem>& options, ContactReportFor<Problem>& report) {
  using ModelT = ModelOf<Problem>;
  static_assert(is_contact_problem<Problem>::value, "talus: cp must be a talus::ContactProblem");
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
template <class Problem, class Set, class Q, class V, class T, class QOut, class VOut>
Status time_step_contact(const ModelOf<Problem>& model, Data<ModelOf<Problem>>& data, Problem& cp, Set& cs,
                         const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v, const Eigen::MatrixBase<T>& tau,
                         typename Problem::S h, QOut& q_next, VOut& v_next, const ContactOptionsFor<Problem>& options,
                         ContactReportFor<Problem>& report, const ExternalForces<ModelOf<Problem>>* fext = nullptr) {
  using ModelT = ModelOf<Problem>;
  TALUS_CHECK_CONTACT_TYPES(Problem, Set);
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
template <class Problem, class Q, class V, class T, class QOut, class VOut>
Status time_step_contact(const ModelOf<Problem>& model, Data<ModelOf<Problem>>& data, Problem& cp,
                         const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v, const Eigen::MatrixBase<T>& tau,
                         typename Problem::S h, QOut& q_next, VOut& v_next, const ContactOptionsFor<Problem>& options,
                         ContactReportFor<Problem>& report, const ExternalForces<ModelOf<Problem>>* fext = nullptr) {
  using ModelT = ModelOf<Problem>;
  static_assert(is_contact_problem<Problem>::value, "talus: cp must be a talus::ContactProblem");
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
