#pragma once
/// \file bilateral_elimination.hpp
/// A ConstraintSet's rows eliminated from a larger solve (the contact solves of
/// contact/contact_dynamics.hpp): with H = Lᵀ L factored in data.L and the set's rows G, γ
/// computed at the same state,
///
///   Z = H⁻¹ Gᵀ,   Y = G Z = G H⁻¹ Gᵀ (rank-revealing QR: redundant rows tolerated),
///   target:   x_b = x₀ + Z Y⁺ (g − G x₀)  (the free motion meeting the rows' target g)
///   project:  t ← t − Z Y⁺ G t          (with H⁻¹ first: P = H⁻¹ − H⁻¹Gᵀ Y⁺ G H⁻¹, the inverse
///                                        inertia the unilateral rows see beside the set)
///   multipliers: λ = Y⁺ (g − G t)       (t = H⁻¹ (b + Aᵀφ)), or the minimum-norm λ by proximal
///                                        steps (ContactOptions::bilateral_minimum_norm).
///
/// The set's workspace holds Z, Y and the factors: a solve that eliminates the rows asks
/// these functions, never the workspace. Internal (namespace detail). Units as the rows': m/s²
/// or rad/s² (acceleration), m/s or rad/s (impact, step).
#include <algorithm>
#include <cmath>

#include <talus/algorithms/sparse_factorization.hpp>
#include <talus/constraints/constraint_set.hpp>
#include <talus/linalg/finite.hpp>

namespace talus {
namespace detail {

/// Z = H⁻¹Gᵀ, Y = G Z and Y's rank-revealing factor (threshold: the set's pivot tolerance,
/// at least 16 ε). Returns Y's numerical rank (0 when Y is zero).
template <class ModelT, int MR, int MC>
int factor_bilateral(const Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs) {
  using S = typename ModelT::Scalar;
  auto& w = cs.ws;
  w.Z = cs.G.transpose();
  solve_lt_unchecked(data, w.Z);
  solve_l_unchecked(data, w.Z);
  w.Y.noalias() = cs.G.lazyProduct(w.Z);
  w.Y_qr.setThreshold(std::max(w.pivot_tolerance, S(16) * Eigen::NumTraits<S>::epsilon()));
  w.Y_qr.compute(w.Y);
  return w.Y_qr.max_pivot == S(0) ? 0 : static_cast<int>(w.Y_qr.rank());
}

/// r ← Y⁺ r (the basic solution over Y's rank; factor_bilateral first).
template <class ModelT, int MR, int MC, class R>
void solve_bilateral(const ConstraintSet<ModelT, MR, MC>& cs, R& r) {
  cs.ws.Y_qr.solve_in_place(r);
}

/// xb = x0 + Z Y⁺ (g − G x0): the free motion x0 corrected so that the set's rows meet their
/// target g (factor_bilateral first).
template <class ModelT, int MR, int MC, class X0, class G, class XB>
void meet_bilateral_target(ConstraintSet<ModelT, MR, MC>& cs, const X0& x0, const G& g, XB& xb) {
  auto& w = cs.ws;
  w.r = g - cs.G * x0;
  w.Y_qr.solve_in_place(w.r);
  xb = x0 + w.Z * w.r;
}

/// t ← t − Z Y⁺ G t: t with the part the set's rows take out (factor_bilateral first). With
/// t = H⁻¹ u this is P u.
template <class ModelT, int MR, int MC, class T>
void project_bilateral(ConstraintSet<ModelT, MR, MC>& cs, T&& t) {
  auto& w = cs.ws;
  w.r = cs.G * t;
  w.Y_qr.solve_in_place(w.r);
  t -= w.Z * w.r;
}

/// Whether G x meets the target g to within √ε of its terms (a redundant but inconsistent set
/// cannot).
template <class ModelT, int MR, int MC, class X, class G>
bool bilateral_consistent(const ConstraintSet<ModelT, MR, MC>& cs, const X& x, const G& g) {
  using S = typename ModelT::Scalar;
  using std::sqrt;
  const S res = (cs.G * x - g).cwiseAbs().maxCoeff();
  const S scale = S(1) + g.cwiseAbs().maxCoeff() + cs.G.cwiseAbs().maxCoeff() * x.cwiseAbs().maxCoeff();
  return res <= sqrt(Eigen::NumTraits<S>::epsilon()) * scale;
}

/// ContactOptions::bilateral_minimum_norm: on entry cs.lambda = r = g − G t (t = H⁻¹(b + Aᵀφ)),
/// Y from factor_bilateral; on exit cs.lambda = the minimum-norm λ with Y λ = r, by proximal
/// steps λ ← λ + (Y + μI)⁻¹ (r − Y λ) (Y is left as Y + μI). The residual ‖r − Y λ‖∞ is held
/// to absolute + relative · (‖g‖∞ + ‖ |G| |t| ‖∞); the set's consistency was checked before.
/// Settings and Report: the proximal solver's settings and report types, a layer above in
/// solvers/, taken as template types so that constraints/ includes nothing from there.
template <class ModelT, int MR, int MC, class Gv, class T, class Settings, class Report>
Status bilateral_minimum_norm(ConstraintSet<ModelT, MR, MC>& cs, const Gv& g, const T& t, const Settings& settings,
                              Report& report) {
  using S = typename ModelT::Scalar;
  using std::abs;
  auto& bw = cs.ws;
  const int mb = static_cast<int>(cs.lambda.size());
  S scale = S(0);
  for (int i = 0; i < mb; ++i) {
    S row = S(0);
    for (int j = 0; j < cs.G.cols(); ++j) row += abs(cs.G.coeff(i, j)) * abs(t.coeff(j));
    scale = std::max(scale, row);
  }
  report.tolerance = settings.absolute_accuracy + settings.relative_accuracy * (g.cwiseAbs().maxCoeff() + scale);
  bw.r = cs.lambda;  // r
  bw.Y.diagonal().array() += settings.mu;
  bw.Y_llt.compute(bw.Y);
  if (bw.Y_llt.info() != Eigen::Success || !all_finite(bw.Y_llt.matrixLLT().diagonal())) return Status::singular;
  cs.lambda.setZero(mb);
  bw.qy = bw.r;  // the residual r − Y λ at λ = 0
  for (int k = 1; k <= settings.max_iterations; ++k) {
    bw.Y_llt.solveInPlace(bw.qy);  // Δλ = (Y + μI)⁻¹ (r − Y λ)
    cs.lambda += bw.qy;
    report.iterations = k;
    report.lambda_step = bw.qy.cwiseAbs().maxCoeff();
    S res = S(0);
    for (int i = 0; i < mb; ++i) {  // r − Y λ = r − (Y + μI) λ + μ λ (loops: no temporary)
      S x = bw.r.coeff(i) + settings.mu * cs.lambda.coeff(i);
      for (int j = 0; j < mb; ++j) x -= bw.Y.coeff(i, j) * cs.lambda.coeff(j);
      bw.qy.coeffRef(i) = x;
      res = std::max(res, abs(x));
    }
    report.residual = res;
    if (!(res - res == S(0)) || !all_finite(cs.lambda)) return Status::overflow;
    if (res <= report.tolerance) return Status::ok;
  }
  return Status::not_converged;
}

}  // namespace detail
}  // namespace talus
