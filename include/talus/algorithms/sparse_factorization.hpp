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
#include <cmath>

#include <talus/model/data.hpp>

namespace talus {

/// data.L ← sparse Lᵀ L factor of data.H. Returns singular if H is not positive definite
/// (L is then zero).
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
    L(k, k) = sqrt(L(k, k));
    for (int i = Tree::dof_parent[k]; i >= 0; i = Tree::dof_parent[i]) L(k, i) /= L(k, k);
    for (int i = Tree::dof_parent[k]; i >= 0; i = Tree::dof_parent[i])
      for (int j = i; j >= 0; j = Tree::dof_parent[j]) L(i, j) -= L(k, i) * L(k, j);
  }
  if (!pd) {
    L.setZero();
    return Status::singular;
  }
  return Status::ok;
}

/// x ← L⁻ᵀ x  (solve Lᵀ y = x in place). x has nv rows and any number of columns.
template <class ModelT, class X>
void solve_lt(const ModelT&, const Data<ModelT>& data, Eigen::MatrixBase<X>& x) {
  using Tree = typename ModelT::Tree;
  const auto& L = data.L;
  for (int i = ModelT::nv - 1; i >= 0; --i) {
    x.row(i) /= L(i, i);
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) x.row(j) -= L(i, j) * x.row(i);
  }
}

/// x ← L⁻¹ x  (solve L y = x in place).
template <class ModelT, class X>
void solve_l(const ModelT&, const Data<ModelT>& data, Eigen::MatrixBase<X>& x) {
  using Tree = typename ModelT::Tree;
  const auto& L = data.L;
  for (int i = 0; i < ModelT::nv; ++i) {
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) x.row(i) -= L(i, j) * x.row(j);
    x.row(i) /= L(i, i);
  }
}

/// x ← H⁻¹ x = L⁻¹ L⁻ᵀ x, using the factor from factorize_ltl.
template <class ModelT, class X>
void solve_ltl(const ModelT& model, const Data<ModelT>& data, Eigen::MatrixBase<X>& x) {
  solve_lt(model, data, x);
  solve_l(model, data, x);
}

/// x ← H x using the factor (x ← Lᵀ (L x)); for checks and for the null-space method.
template <class ModelT, class X>
void multiply_ltl(const ModelT&, const Data<ModelT>& data, Eigen::MatrixBase<X>& x) {
  using Tree = typename ModelT::Tree;
  const auto& L = data.L;
  for (int i = ModelT::nv - 1; i >= 0; --i) {  // y = L x (row i uses x_j, j ancestor of i: j < i)
    x.row(i) *= L(i, i);
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) x.row(i) += L(i, j) * x.row(j);
  }
  for (int i = 0; i < ModelT::nv; ++i) {  // z = Lᵀ y (entry j collects L_ij y_i for descendants i)
    for (int j = Tree::dof_parent[i]; j >= 0; j = Tree::dof_parent[j]) x.row(j) += L(i, j) * x.row(i);
    x.row(i) *= L(i, i);  // after: x_i still held y_i above; descendants add to it later
  }
}

}  // namespace talus
