#pragma once
/// \file sparse_factorization.hpp
/// Sparse LᵀL factorization of the joint-space inertia matrix along the tree
/// (Featherstone, Rigid Body Dynamics Algorithms, §6.5):
///
///   H = Lᵀ L,  L lower triangular with L_ij ≠ 0 only if j = i or j is an ancestor dof of i
///   (the sparsity of H itself: no fill-in).
///
/// λ(k) is Tree::dof_parent. Factorization cost is O(Σ depth²) instead of O(n³); solves are
/// O(Σ depth). Reads data.H (from crba), writes data.L. The loops follow λ chains: bounded
/// by nv, and with a fixed trip count for a given model (no dependence on the numbers).
///
/// Every function returns a Status and leaves x zero when it is not ok:
///   singular       data.L is not a valid factor (factorize_ltl failed or never ran: a
///                  diagonal entry of L is not positive and finite) — checked before any
///                  division, so a solve after a failed factorization never divides by zero;
///   invalid_input  x holds NaN/Inf, or x does not have nv rows (a compile error when its
///                  type knows its size);
///   overflow       the result is not finite (an ill-conditioned H and a large x).
#include <cmath>

#include <talus/model/check.hpp>

namespace talus {

namespace detail {
/// True if L's diagonal is positive and finite: data.L holds a factor from factorize_ltl.
template <class ModelT>
bool ltl_factor_valid(const Data<ModelT>& data) {
  using S = typename ModelT::Scalar;
  const auto d = data.L.diagonal();
  return (d.array() > S(0)).all() && all_finite(d);
}

/// The checks every solve shares; x is zeroed when they fail.
template <class ModelT, class X>
Status check_ltl_solve(const Data<ModelT>& data, Eigen::MatrixBase<X>& x) {
  static_assert(X::RowsAtCompileTime == Eigen::Dynamic || X::RowsAtCompileTime == ModelT::nv,
                "talus: x must have nv rows (the model's velocity size)");
  Status s = Status::ok;
  if (x.rows() != ModelT::nv) {
    x.derived().setZero();  // wrong size: keep its shape, zero what is there
    return Status::invalid_input;
  }
  if (!ltl_factor_valid(data)) s = Status::singular;
  else if (!all_finite(x)) s = Status::invalid_input;
  if (s != Status::ok) x.setZero();
  return s;
}

/// ok if x is finite after a solve; otherwise x ← 0 and overflow.
template <class X>
Status finish_ltl_solve(Eigen::MatrixBase<X>& x) {
  if (all_finite(x)) return Status::ok;
  x.setZero();
  return Status::overflow;
}

template <class ModelT, class X>
void solve_lt_unchecked(const Data<ModelT>& data, X& x) {  // x ← L⁻ᵀ x
  using Tree = typename ModelT::Tree;
  const auto& L = data.L;
  for (int i = ModelT::nv - 1; i >= 0; --i) {
    x.row(i) /= L(i, i);
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) x.row(j) -= L(i, j) * x.row(i);
  }
}

template <class ModelT, class X>
void solve_l_unchecked(const Data<ModelT>& data, X& x) {  // x ← L⁻¹ x
  using Tree = typename ModelT::Tree;
  const auto& L = data.L;
  for (int i = 0; i < ModelT::nv; ++i) {
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) x.row(i) -= L(i, j) * x.row(j);
    x.row(i) /= L(i, i);
  }
}

/// Tree-sparse vectors: a row of a point or joint constraint on a body (its Jacobian row, nv
/// entries) is nonzero only on the dofs that move the body, the λ chain from the body's
/// deepest dof to the root. L⁻ᵀ keeps that sparsity (each step of the substitution writes
/// only ancestors), so W = G L⁻¹ has G's, and (W Wᵀ)ᵢⱼ sums over the chain two rows share
/// (for two feet of a legged robot: the base dofs only).

/// The deepest dof moving body b: its joint's last, else that of its nearest ancestor with
/// dofs; −1 when nothing moves it (b = −1, or fixed to the world).
template <class ModelT>
int deepest_dof(int body) {
  using Tree = typename ModelT::Tree;
  while (body >= 0 && Tree::joint_nv[body] == 0) body = Tree::parent[body];
  return body < 0 ? -1 : Tree::idx_v[body] + Tree::joint_nv[body] - 1;
}

/// The deepest dof on both chains, from dofs i and j (−1: none shared).
template <class ModelT>
int common_dof(int i, int j) {
  using Tree = typename ModelT::Tree;
  while (i != j) {  // λ(k) < k: step the deeper one up
    if (i > j) i = Tree::dof_parent[i];
    else j = Tree::dof_parent[j];
  }
  return i;
}

/// y ← L⁻ᵀ y for a y (nv entries) that is nonzero only on the chain from dof k: the steps of
/// solve_lt_unchecked that touch it, in its order, so the same values.
template <class ModelT, class Y>
void solve_lt_chain_unchecked(const Data<ModelT>& data, int k, Y&& y) {
  using Tree = typename ModelT::Tree;
  const auto& L = data.L;
  for (int i = k; i >= 0; i = Tree::dof_parent[i]) {
    y.coeffRef(i) /= L(i, i);
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) y.coeffRef(j) -= L(i, j) * y.coeff(i);
  }
}

/// Σ a_k b_k over the chain from dof k (a or b zero off it).
template <class ModelT, class A, class B>
typename ModelT::Scalar chain_dot(int k, const A& a, const B& b) {
  using Tree = typename ModelT::Tree;
  typename ModelT::Scalar s(0);
  for (int i = k; i >= 0; i = Tree::dof_parent[i]) s += a.coeff(i) * b.coeff(i);
  return s;
}

/// W ← W L⁻¹ in place, for W with nv columns (W = G L⁻¹ for a constraint Jacobian G: then
/// W Wᵀ = G H⁻¹ Gᵀ and Wᵀ = L⁻ᵀ Gᵀ). By columns, last to first, along the λ chains: each
/// column of a column-major W is contiguous, so the tree-sparse substitution runs on whole
/// columns. data.L must hold a valid factor (ltl_factor_valid).
template <class ModelT, class WMatrix>
void solve_right_l_unchecked(const Data<ModelT>& data, WMatrix& W) {
  using Tree = typename ModelT::Tree;
  for (int i = ModelT::nv - 1; i >= 0; --i) {
    W.col(i) /= data.L(i, i);
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) W.col(j) -= data.L(i, j) * W.col(i);
  }
}
}  // namespace detail

/// data.L ← sparse Lᵀ L factor of data.H. Returns singular if H is not positive definite
/// (or holds NaN), overflow if the factor is not finite; L is then zero.
template <class ModelT>
Status factorize_ltl(const ModelT&, Data<ModelT>& data) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  constexpr int n = ModelT::nv;
  auto& L = data.L;
  L.template triangularView<Eigen::Lower>() = data.H.template triangularView<Eigen::Lower>();
  bool pd = true;
  for (int k = n - 1; k >= 0; --k) {
    pd = pd && L(k, k) > S(0);
    using std::sqrt;
    L(k, k) = sqrt(L(k, k) > S(0) ? L(k, k) : S(1));  // no sqrt of a negative or NaN; flagged above
    for (int i = Tree::dof_parent[k]; i >= 0; i = Tree::dof_parent[i]) L(k, i) /= L(k, k);
    for (int i = Tree::dof_parent[k]; i >= 0; i = Tree::dof_parent[i])
      for (int j = i; j >= 0; j = Tree::dof_parent[j]) L(i, j) -= L(k, i) * L(k, j);
  }
  Status s = Status::ok;
  if (!pd) s = Status::singular;
  else if (!all_finite(L)) s = Status::overflow;
  if (s != Status::ok) L.setZero();
  return s;
}

/// x ← L⁻ᵀ x  (solve Lᵀ y = x in place). x has nv rows and any number of columns.
template <class ModelT, class X>
Status solve_lt(const ModelT&, const Data<ModelT>& data, Eigen::MatrixBase<X>& x) {
  if (Status s = detail::check_ltl_solve(data, x); s != Status::ok) return s;
  detail::solve_lt_unchecked(data, x);
  return detail::finish_ltl_solve(x);
}

/// x ← L⁻¹ x  (solve L y = x in place).
template <class ModelT, class X>
Status solve_l(const ModelT&, const Data<ModelT>& data, Eigen::MatrixBase<X>& x) {
  if (Status s = detail::check_ltl_solve(data, x); s != Status::ok) return s;
  detail::solve_l_unchecked(data, x);
  return detail::finish_ltl_solve(x);
}

/// x ← H⁻¹ x = L⁻¹ L⁻ᵀ x, using the factor from factorize_ltl.
template <class ModelT, class X>
Status solve_ltl(const ModelT&, const Data<ModelT>& data, Eigen::MatrixBase<X>& x) {
  if (Status s = detail::check_ltl_solve(data, x); s != Status::ok) return s;
  detail::solve_lt_unchecked(data, x);
  detail::solve_l_unchecked(data, x);
  return detail::finish_ltl_solve(x);
}

/// x ← H x using the factor (x ← Lᵀ (L x)); for checks and for the null-space method.
template <class ModelT, class X>
Status multiply_ltl(const ModelT&, const Data<ModelT>& data, Eigen::MatrixBase<X>& x) {
  using Tree = typename ModelT::Tree;
  if (Status s = detail::check_ltl_solve(data, x); s != Status::ok) return s;
  const auto& L = data.L;
  for (int i = ModelT::nv - 1; i >= 0; --i) {  // y = L x (row i uses x_j, j ancestor of i: j < i)
    x.row(i) *= L(i, i);
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) x.row(i) += L(i, j) * x.row(j);
  }
  for (int i = 0; i < ModelT::nv; ++i) {  // z = Lᵀ y (entry j collects L_ij y_i for descendants i)
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) x.row(j) += L(i, j) * x.row(i);
    x.row(i) *= L(i, i);  // after: x_i still held y_i above; descendants add to it later
  }
  return detail::finish_ltl_solve(x);
}

}  // namespace talus
