#pragma once
/// \file active_set_recovery.hpp
/// Recovery of a contact LCP's answer from the physical active-set system
/// (contact_dynamics.hpp calls it after Lemke's method or an accepted sticking guess;
/// ContactOptions::active_set_recovery, on by default).
///
/// **Why.** Lemke's answer z (forces f_n, friction β on the polygon edges, Λ, limit forces)
/// solves the LCP w = M z + q with M = cJᵀ A P Aᵀ cF (+ the level's terms) and q = cJᵀ(A x_b +
/// bias), and q̈ = x_b + P Aᵀ φ(z) follows. Two things can make that answer wrong while it
/// passes Lemke's check: z is only as accurate as the final basis allows (κ(B) ε), and every
/// error δφ goes into q̈ as P Aᵀ δφ, large beside q̈ where the forces nearly cancel gravity
/// (q̈ ≪ x_b); and the check scales every row by n max|M| max z, so a large Λ (a lifted foot's
/// Λ is not unique and can be large) lets a basis that left out a friction unknown through
/// with rows clearly negative (float Lemke on solo12: targets/README.md). The physical system
/// of the rows the answer makes active (the KKT system [H −F_αᵀ; J_α 0][q̈; z_α] =
/// [τ − C; −bias_α] on the bilateral-reduced operator) has neither problem: its q̈ is fixed
/// by the active rows' accelerations A_α q̈ + bias_α = 0, small numbers computed from q̈
/// itself, and each row's violation is judged against its own terms.
///
/// **What.** With α the unknowns Lemke left positive (a Λ whose contact carries no normal
/// force is held at its value: its row μ f_n − Σβ is then 0 = 0 and would make the system
/// singular), iterative refinement of (q̈, z_α) on the residuals of that KKT system, each
/// evaluated from its own physical terms:
///
///     r   = b + Aᵀφ(z) − H q̈                      (dynamics, nv; b = τ − C, H v⁻, H v + h(τ − C))
///     w_a = Σᵢ cJ_a,i (A q̈ + c)_row(a)+i + rhs_a + diag_a z_a (+ Λ for an edge),  w_Λ = μ f_n − Σβ
///     y = P r,   M_αα δz_α = −(w_α + cJ_αᵀ A y),   δq̈ = y + P Aᵀ φ(δz)      (three passes)
///
/// (c: each row's offset, its bias acceleration minus its target, as in the LCP's q; M_αα
/// factored once, LU with partial pivoting). q̈ is carried as an unknown of its own, not
/// recomputed from z, so its accuracy is that of the KKT system (the residuals' rounding is
/// of the size of H q̈ and A q̈, not of the cancelling x_b and P Aᵀφ); M_αα only has to be a
/// good enough approximate inverse (the error contracts by about κ(M_αα) ε per pass).
/// Bilateral constraints: P annihilates Gᵀλ, and every step y lies in G's null space, so
/// G q̈ = γ is kept from the start. The level's terms (restitution, softening, gap, cfm) come
/// from the caller (`terms`), exactly as it built M and q.
///
/// **The active set.** After the passes, the worst violation (against Lemke's τ_c) of an
/// unknown of α below 0 or of a row outside α below 0 (a row of β or Λ only while its contact
/// pushes) moves that one unknown out of α or into it (leaving, it is set to 0; a normal takes
/// its contact's friction with it), M_αα is factored again and the passes repeat: at most 8
/// changes, else Lemke's answer stays. The Λ of a contact that does not push is set to the
/// least value that keeps its edge rows a_e + Λ ≥ 0 (its own row is then 0 = 0).
///
/// **Never worse.** The refined (q̈, z) replaces Lemke's (z, x_b + P Aᵀφ(z)) only if the
/// active set settled (every z_a ≥ 0: the forces stay in their polygons), z passes Lemke's own check
/// against (M, q) (check_lcp_guess), and its physical residual R (below) is no larger than
/// that of Lemke's answer. R = max(maxₐ vₐ/sₐ, max|P r|/s_x) with vₐ = |wₐ| where zₐ > 0
/// (complementarity) and max(0, −wₐ) elsewhere (feasibility of every row, the inactive ones
/// included), and −zₐ/s_z for a negative unknown; sₐ = |qₐ| + Σⱼ |Mₐⱼ| |zⱼ| at Lemke's z (the
/// size of the row's own terms) plus n ε times the largest, s_z the largest force (an
/// acceleration's scale, max|q|, for Λ), s_x = max|x_b| + max|q̈|. Otherwise z, w and q̈ are
/// left as they were.
///
/// **Cost, storage.** Per active set (at most 9): one LU of k × k (k = |α| ≤ n, k³/3 flops),
/// four evaluations of the residuals (2 nv m + nv² + m n each) and three of P r (two
/// triangular solves, plus the bilateral projection); then Lemke's check (2 n²). A fixed number of passes: no loop depends on the data
/// beyond these sizes. Scratch: the LCP workspace after the solve (B⁻¹'s storage holds the
/// LU, its vectors the candidate), and on the stack φ, the rows' accelerations (m scalars),
/// four nv-vectors and two index arrays of MaxLcp ints. Nothing allocates.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <talus/contact/contact_problem.hpp>
#include <talus/contact/lcp_lemke.hpp>

namespace talus {

/// What the active-set recovery did (ContactReport::recovery).
template <class S>
struct ActiveSetReport {
  bool applied = false;   ///< the refined answer replaced the LCP's
  int active = 0;         ///< k = |α|: unknowns solved for (0: not attempted)
  S residual_lcp = S(0);  ///< physical residual R of the LCP's answer (file comment)
  S residual = S(0);      ///< R of the refined answer (its last evaluation, applied or not)
  S tolerance = S(0);     ///< what residual was held to: residual_lcp (never worse than Lemke's
                          ///< answer); applied ⇒ residual ≤ tolerance
  Residual<S> evidence() const { return {residual, tolerance}; }  ///< the pair (status.hpp)
};

namespace detail {

/// φ(z): the packed row forces of the LCP unknowns z (as the caller recovers them).
template <class U, class Z, class Rows>
void row_forces(const U* u, int n_forces, int m, const Z& z, Rows& phi) {
  phi.setZero(m);
  for (int a = 0; a < n_forces; ++a)
    for (int i = 0; i < u[a].width; ++i) phi.coeffRef(u[a].row + i) += u[a].cF[i] * z.coeff(a);
}

/// The physical residual of (z, q̈) (file comment): w(z, q̈) of every LCP unknown, through the
/// rows' accelerations A q̈ + c (not through M z + q), and the dynamics residual
/// r = b + Aᵀφ(z) − H q̈ (nv; its P-projection is what the active set must cancel). `u`: the
/// LCP's unknowns (row, width, cJ, cF, normal, contact; contact_dynamics.hpp's LcpUnknown),
/// the first n_forces of them force unknowns, then the Λ (lambda_of[contact], −1 without).
template <class CP, class U, class Offset, class Terms, class Z, class W, class Rows, class Tangent, class HM>
void physical_residual(const CP& cp, const U* u, int n_forces, int n, const int* lambda_of, const Offset& offset,
                       const Terms& terms, const HM& H, const Tangent& b, const Z& z, const Tangent& x, W& w, Rows& phi,
                       Rows& acc, Tangent& r) {
  using S = typename CP::S;
  const auto& ws = cp.ws;
  const int m = ws.rows;
  row_forces(u, n_forces, m, z, phi);
  acc.resize(m);
  for (int k = 0; k < m; ++k) acc.coeffRef(k) = ws.A.row(k).dot(x) + offset(k);
  r = b;
  for (int k = 0; k < m; ++k) r += ws.A.row(k).transpose() * phi.coeff(k);
  r.noalias() -= H * x;
  w.setZero(n);
  for (int a = 0; a < n_forces; ++a) {
    const U& ua = u[a];
    S s = S(0);
    for (int i = 0; i < ua.width; ++i) s += ua.cJ[i] * acc.coeff(ua.row + i);
    if (ua.normal || ua.contact < 0) {
      const auto t = terms(ua);
      s += t.rhs + t.diag * z.coeff(a);
    }
    if (ua.contact >= 0 && !ua.normal) s += z.coeff(lambda_of[ua.contact]);
    w.coeffRef(a) = s;
  }
  for (int a = 0; a < n_forces; ++a) {  // μ f_n − Σβ
    const U& ua = u[a];
    if (ua.contact < 0 || lambda_of[ua.contact] < 0) continue;
    w.coeffRef(lambda_of[ua.contact]) += ua.normal ? cp.contact(ua.contact).mu * z.coeff(a) : -z.coeff(a);
  }
}

/// R of the file comment: the rows' violations over their scales, a negative z over its
/// scale (zscale), and the dynamics part max|P r| / s_x.
template <class S, class Z, class W, class V, class Tangent>
S residual_measure(const Z& z, const W& w, const V& scale, const V& zscale, int n, const Tangent& Pr, S sx) {
  using std::abs;
  S r = Pr.cwiseAbs().maxCoeff() / sx;
  for (int a = 0; a < n; ++a) {
    const S wa = w.coeff(a), za = z.coeff(a);
    const S v = za > S(0) ? abs(wa) : (wa < S(0) ? -wa : S(0));
    r = std::max(r, std::max(v / scale.coeff(a), za < S(0) ? -za / zscale.coeff(a) : S(0)));
  }
  return r == r && all_finite(w) && all_finite(z) ? r : std::numeric_limits<S>::quiet_NaN();
}

/// LU with partial pivoting of the k × k matrix in the top-left corner of `LU`, in place;
/// false when a pivot is below k ε max|entry| (a singular active set: nothing is changed).
template <class S, class Mat>
bool active_lu(Mat& LU, int k, int* piv) {
  using std::abs;
  S big = S(0);
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < k; ++i) big = std::max(big, abs(LU.coeff(i, j)));
  const S tiny = S(k) * Eigen::NumTraits<S>::epsilon() * big;
  if (!(big > S(0))) return false;
  for (int j = 0; j < k; ++j) {
    int p = j;
    for (int i = j + 1; i < k; ++i)
      if (abs(LU.coeff(i, j)) > abs(LU.coeff(p, j))) p = i;
    piv[j] = p;
    if (!(abs(LU.coeff(p, j)) > tiny)) return false;  // also NaN
    if (p != j)
      for (int c = 0; c < k; ++c) std::swap(LU.coeffRef(j, c), LU.coeffRef(p, c));
    const S d = LU.coeff(j, j);
    for (int i = j + 1; i < k; ++i) {
      const S l = LU.coeff(i, j) / d;
      LU.coeffRef(i, j) = l;
      for (int c = j + 1; c < k; ++c) LU.coeffRef(i, c) -= l * LU.coeff(j, c);
    }
  }
  return true;
}

/// v ← (P L U)⁻¹ v for the factors of active_lu.
template <class S, class Mat, class V>
void active_lu_solve(const Mat& LU, int k, const int* piv, V& v) {
  for (int j = 0; j < k; ++j)
    if (piv[j] != j) std::swap(v.coeffRef(j), v.coeffRef(piv[j]));
  for (int i = 0; i < k; ++i) {
    S s = v.coeff(i);
    for (int c = 0; c < i; ++c) s -= LU.coeff(i, c) * v.coeff(c);
    v.coeffRef(i) = s;
  }
  for (int i = k - 1; i >= 0; --i) {
    S s = v.coeff(i);
    for (int c = i + 1; c < k; ++c) s -= LU.coeff(i, c) * v.coeff(c);
    v.coeffRef(i) = s / LU.coeff(i, i);
  }
}

/// The recovery of the file comment on cp.ws (M, q, z, w of the LCP just solved, A, x_b,
/// P Aᵀ of the solve). `offset(r)`: what row r's acceleration (velocity) adds to A_r q̈ (its
/// bias at acceleration level, minus its target: as the caller built ws.free = A x_b +
/// offset). `terms(unknown)` returns the level's {rhs, diag} of a normal or limit unknown
/// (contact_dynamics.hpp's row_terms). H, b: the level's H q̈ = b + Aᵀφ (+ Gᵀλ); apply_P(v)
/// replaces v by P v (H⁻¹ v, then the bilateral projection). On success ws.z, ws.w hold the
/// refined answer (w = M z + q, as Lemke returns it), x the refined q̈ (or v⁺), and
/// report.applied is set; otherwise ws.z, ws.w and x are unchanged.
template <class CP, class U, class Offset, class Terms, class HM, class Tangent, class ApplyP>
void recover_active_set(CP& cp, const U* u, int n_forces, int n, const int* lambda_of, const Offset& offset,
                        const Terms& terms, const HM& H, const Tangent& b, const ApplyP& apply_P,
                        const LcpOptions<typename CP::S, CP::max_lcp>& lcp_options, Tangent& x,
                        ActiveSetReport<typename CP::S>& report) {
  using S = typename CP::S;
  using std::abs;
  constexpr int kMaxChanges = 8;  // active-set changes before giving up (Lemke's answer stays)
  auto& ws = cp.ws;
  auto& lw = ws.lcp;  // scratch after the solve
  const int m = ws.rows;
  report = ActiveSetReport<S>{};
  if (n <= 0) return;
  // owner[a]: the LCP index of unknown a's contact normal (a itself for a normal or a limit):
  // friction unknowns (β, Λ) take part only while their contact pushes
  int owner[CP::max_lcp];
  bool in[CP::max_lcp];
  for (int a = 0; a < n; ++a) owner[a] = a;
  for (int a = 0; a < n_forces; ++a) {
    if (!u[a].normal || u[a].contact < 0) continue;
    for (int c = 0; c < n_forces; ++c)
      if (u[c].contact == u[a].contact) owner[c] = a;
    if (lambda_of[u[a].contact] >= 0) owner[lambda_of[u[a].contact]] = a;
  }

  // scales: each row's terms |q_a| + Σ_j |M_aj| |z_j| at Lemke's z; each unknown's: the
  // largest force (f_n, β, limit) or the largest |q| (Λ is an acceleration); plus n ε of each
  auto& scale = lw.q_abs;
  auto& zscale = lw.x_err;
  scale.resize(n);
  zscale.resize(n);
  S sf = S(0), sq = S(0), sw = S(0);
  for (int a = 0; a < n; ++a) {
    if (a < n_forces) sf = std::max(sf, abs(ws.z.coeff(a)));
    sq = std::max(sq, abs(ws.q.coeff(a)));
    S sa = abs(ws.q.coeff(a));
    for (int c = 0; c < n; ++c) sa += abs(ws.M.coeff(a, c)) * abs(ws.z.coeff(c));
    scale.coeffRef(a) = sa;
    sw = std::max(sw, sa);
  }
  const S eps = Eigen::NumTraits<S>::epsilon();
  if (!(sw > S(0))) return;
  for (int a = 0; a < n; ++a) {
    scale.coeffRef(a) += S(n) * eps * sw;
    zscale.coeffRef(a) = (a < n_forces ? sf : sq) + S(n) * eps * (sf + sq);
  }
  const S tol = std::max(lcp_options.check_tolerance, S(n) * eps);

  typename CP::Workspace::RowsVector phi, acc;
  Tangent xn, r, y;
  auto& zn = lw.x;
  auto& wn = lw.col;
  auto& step = lw.ae;
  auto& LU = lw.Binv;  // M_αα's factors (B⁻¹'s storage)
  int idx[CP::max_lcp];
  int piv[CP::max_lcp];

  // Lemke's answer: its q̈ (the caller's order of operations) and residual
  zn = ws.z;
  row_forces(u, n_forces, m, zn, phi);
  xn = ws.xb;
  for (int c = 0; c < m; ++c) xn += ws.PAt.col(c) * phi.coeff(c);
  const S sx = ws.xb.cwiseAbs().maxCoeff() + xn.cwiseAbs().maxCoeff() + eps;
  physical_residual(cp, u, n_forces, n, lambda_of, offset, terms, H, b, zn, xn, wn, phi, acc, r);
  y = r;
  apply_P(y);
  report.residual_lcp = residual_measure<S>(zn, wn, scale, zscale, n, y, sx);
  report.tolerance = report.residual_lcp;

  // the start: Lemke's positive unknowns; friction only where the contact pushes
  for (int a = 0; a < n; ++a) {
    in[a] = zn.coeff(a) > S(0) && (owner[a] == a || zn.coeff(owner[a]) > S(0));
    if (!in[a] && a < n_forces) zn.coeffRef(a) = S(0);  // e.g. a rounding-residue β of a lifted foot
  }
  bool settled = false;
  for (int change = 0; change <= kMaxChanges && !settled; ++change) {
    int k = 0;
    for (int a = 0; a < n; ++a)
      if (in[a]) idx[k++] = a;
    if (k > 0) {
      LU.resize(k, k);
      for (int j = 0; j < k; ++j)
        for (int i = 0; i < k; ++i) LU.coeffRef(i, j) = ws.M.coeff(idx[i], idx[j]);
      if (!active_lu<S>(LU, k, piv)) return;  // a singular active set: keep Lemke's answer
    }
    report.active = k;
    // the KKT passes: δq̈ = P (r + Aᵀ φ(δz)), M_αα δz_α = −(w_α + cJ_αᵀ A P r)
    for (int pass = 0; pass < 3; ++pass) {
      physical_residual(cp, u, n_forces, n, lambda_of, offset, terms, H, b, zn, xn, wn, phi, acc, r);
      y = r;
      apply_P(y);
      step.resize(k);
      for (int i = 0; i < k; ++i) {
        const int a = idx[i];
        S sa = wn.coeff(a);
        if (a < n_forces)
          for (int j = 0; j < u[a].width; ++j) sa += u[a].cJ[j] * ws.A.row(u[a].row + j).dot(y);
        step.coeffRef(i) = -sa;
      }
      if (k > 0) active_lu_solve<S>(LU, k, piv, step);
      xn += y;
      for (int i = 0; i < k; ++i) {
        const int a = idx[i];
        zn.coeffRef(a) += step.coeff(i);
        if (a < n_forces)
          for (int j = 0; j < u[a].width; ++j)
            if (u[a].cF[j] != S(0)) xn += ws.PAt.col(u[a].row + j) * (u[a].cF[j] * step.coeff(i));
      }
    }
    physical_residual(cp, u, n_forces, n, lambda_of, offset, terms, H, b, zn, xn, wn, phi, acc, r);
    // a contact that does not push: its Λ the least that keeps its edge rows a_e + Λ ≥ 0
    for (int a = n_forces; a < n; ++a) {
      if (in[owner[a]]) continue;
      S need = S(0);
      for (int e = 0; e < n_forces; ++e)
        if (owner[e] == owner[a] && e != owner[a]) need = std::max(need, zn.coeff(a) - wn.coeff(e));
      const S d = need - zn.coeff(a);
      zn.coeffRef(a) = need;
      for (int e = 0; e < n_forces; ++e)
        if (owner[e] == owner[a] && e != owner[a]) wn.coeffRef(e) += d;
    }
    // the worst violation: a negative unknown of α, or an eligible row outside α going negative
    int worst = -1;
    S vmax = tol;
    for (int a = 0; a < n; ++a) {
      S v = S(0);
      if (in[a]) v = -zn.coeff(a) / zscale.coeff(a);
      else if (owner[a] == a || in[owner[a]]) v = -wn.coeff(a) / scale.coeff(a);
      if (!(v <= vmax)) {  // also NaN
        if (!(v == v)) return;
        vmax = v;
        worst = a;
      }
    }
    if (worst < 0) {
      settled = true;
      break;
    }
    in[worst] = !in[worst];
    if (!in[worst]) {  // leaves: its value 0 (q̈ follows in the next passes, through r)
      zn.coeffRef(worst) = S(0);
      if (owner[worst] == worst)  // a normal: its contact's friction leaves with it
        for (int a = 0; a < n; ++a)
          if (owner[a] == worst && a != worst) {
            in[a] = false;
            if (a < n_forces) zn.coeffRef(a) = S(0);
          }
    }
  }
  if (!settled) return;
  y = r;
  apply_P(y);
  report.residual = residual_measure<S>(zn, wn, scale, zscale, n, y, sx);
  if (!(report.residual <= report.residual_lcp) || !all_finite(xn)) return;
  // and it must pass Lemke's own check (into scratch: a failed check zeroes its outputs)
  LcpReport<S> check;
  auto& zc = lw.c;
  auto& wc = lw.d;
  if (check_lcp_guess(ws.M, ws.q, zn, zc, wc, lw, lcp_options, check) != Status::ok) return;
  ws.z = zc;
  ws.w = wc;
  x = xn;
  report.applied = true;
}

}  // namespace detail
}  // namespace talus
