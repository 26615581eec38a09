#pragma once
/// \file aba.hpp
/// Articulated-body algorithm: forward dynamics q̈ = H⁻¹ (τ − C + Σ J_iᵀ f_ext,i) in O(n).
///
/// Pass 1 (out):  v_i = ⁱX_λ v_λ + S_i q̇_i,  c_i = v_i × S_i q̇_i,
///                I^A_i = I_i,  p^A_i = v_i ×* I_i v_i − f_ext,i
/// Pass 2 (in):   U_i = I^A_i S_i,  D_i = S_iᵀ U_i,  u_i = τ_i − S_iᵀ p^A_i
///                I^a = I^A_i − U_i D_i⁻¹ U_iᵀ,   p^a = p^A_i + I^a c_i + U_i D_i⁻¹ u_i
///                I^A_λ += λX_i* I^a ⁱX_λ,        p^A_λ += λX_i* p^a
/// Pass 3 (out):  a' = ⁱX_λ a_λ + c_i  (a_world = [0; −g]),
///                q̈_i = D_i⁻¹ (u_i − U_iᵀ a'),   a_i = a' + S_i q̈_i
/// f_ext as in rnea.hpp (body frame). Returns singular if some D_i is not positive definite
/// (a massless subtree on a joint); q̈ is then zero.
#include <talus/algorithms/rnea.hpp>

namespace talus {

namespace detail {

/// Inverse of a small symmetric positive definite N x N matrix by Cholesky, plain loops
/// (fixed trip counts, unrolled for N = 3 and 6; Eigen's LLT would dispatch to blocked kernels).
/// Returns false if A is not positive definite (Ainv is then garbage-free but meaningless).
template <class S, int N>
bool spd_inverse(const Eigen::Matrix<S, N, N>& A, Eigen::Matrix<S, N, N>& Ainv) {
  using std::sqrt;
  Eigen::Matrix<S, N, N> L = Eigen::Matrix<S, N, N>::Zero();
  bool ok = true;
  for (int j = 0; j < N; ++j) {
    S d = A(j, j);
    for (int k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
    ok = ok && d > S(0);
    const S ljj = sqrt(d > S(0) ? d : S(1));
    L(j, j) = ljj;
    for (int i = j + 1; i < N; ++i) {
      S v = A(i, j);
      for (int k = 0; k < j; ++k) v -= L(i, k) * L(j, k);
      L(i, j) = v / ljj;
    }
  }
  // Ainv = L⁻ᵀ L⁻¹: invert L (lower), then multiply.
  Eigen::Matrix<S, N, N> Li = Eigen::Matrix<S, N, N>::Zero();
  for (int j = 0; j < N; ++j) {
    Li(j, j) = S(1) / L(j, j);
    for (int i = j + 1; i < N; ++i) {
      S v = S(0);
      for (int k = j; k < i; ++k) v -= L(i, k) * Li(k, j);
      Li(i, j) = v / L(i, i);
    }
  }
  for (int i = 0; i < N; ++i)
    for (int j = 0; j <= i; ++j) {
      S v = S(0);
      for (int k = i; k < N; ++k) v += Li(k, i) * Li(k, j);
      Ainv(i, j) = v;
      Ainv(j, i) = v;
    }
  return ok;
}

/// ABA's first pass for body I: placement (World: also oMi), v_i, c_i, I^A_i = I_i,
/// p^A_i = v_i ×* I_i v_i − f_ext,i. Shared with the articulated constrained solver.
template <int I, bool World, bool WithFext, class ModelT, class Q, class V>
TALUS_INLINE void aba_forward_body(const ModelT& model, Data<ModelT>& data, const Q& q, const V& v,
                                   const ExternalForces<ModelT>* fext) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  constexpr int P = Tree::parent[I];
  using J = typename Tree::template Joint<I>;
  const Vector3<S>& axis = model.axis[I];
  detail::update_placement<I, World>(model, data, q);
  const Motion<S> vJ = J::template motion<S>(axis, v.template segment<J::nv>(Tree::idx_v[I]));
  if constexpr (P < 0) {
    data.v[I] = vJ;
    data.c[I].setZero();
  } else {
    data.v[I] = detail::parent_link<I>(data).inverse_act_motion(data.v[P]) + vJ;
    data.c[I] = cross_motion<S>(data.v[I], vJ);
  }
  data.IA[I] = model.inertia[I].matrix();
  data.pA[I] = cross_force<S>(data.v[I], model.inertia[I] * data.v[I]);
  if constexpr (WithFext) data.pA[I] -= (*fext)[I];
}

/// ABA's second pass (leaves to root): U, D⁻¹ and the articulated inertias; with Bias also
/// u = τ − Sᵀ p^A and the bias forces (without: the inertias only, which is all H⁻¹ needs).
/// Returns false if some D_i is not positive definite.
template <bool Bias, class ModelT, class T>
bool aba_backward(const ModelT& model, Data<ModelT>& data, const T& tau) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  bool pd = true;
  static_for_reverse<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    constexpr int nvi = J::nv;
    constexpr int iv = Tree::idx_v[I];
    const Vector3<S>& axis = model.axis[I];
    const Eigen::Matrix<S, 6, nvi> U = J::template mul_subspace<S>(axis, data.IA[I]);
    data.U.template middleCols<nvi>(iv) = U;
    const Eigen::Matrix<S, nvi, nvi> D = J::template project<S>(axis, U);
    Eigen::Matrix<S, nvi, nvi> Dinv;
    if constexpr (nvi == 1) {
      pd = pd && D(0, 0) > S(0);
      Dinv(0, 0) = S(1) / D(0, 0);
    } else {
      pd = pd && detail::spd_inverse<S, nvi>(D, Dinv);
    }
    data.Dinv[I].template topLeftCorner<nvi, nvi>() = Dinv;
    if constexpr (Bias)
      data.u.template segment<nvi>(iv) = tau.template segment<nvi>(iv) - J::template project<S>(axis, data.pA[I]);
    if constexpr (P >= 0) {
      const Eigen::Matrix<S, 6, nvi> UDinv = U * Dinv;
      const Matrix6<S> Ia = data.IA[I] - UDinv * U.transpose();
      data.IA[P] += transform_inertia_matrix(parent_link<I>(data), Ia);
      if constexpr (Bias) {
        const Force<S> pa = data.pA[I] + Ia * data.c[I] + UDinv * data.u.template segment<nvi>(iv);
        data.pA[P] += detail::parent_link<I>(data).act_force(pa);
      }
    }
  });
  return pd;
}

/// ABA's third pass (root to leaves) for the generalised forces u already reduced by the
/// second pass: q̈_i = D_i⁻¹ (u_i − U_iᵀ a'), a' = ⁱX_λ a_λ (+ c_i with Bias), a_root' from
/// a_world. Writes data.ddq and data.a_gf. Without Bias and with a_world = 0 this is the
/// response H⁻¹ τ to generalised forces τ whose reduced form is u.
template <bool Bias, class ModelT, class U>
void aba_accelerations(const ModelT& model, Data<ModelT>& data, const U& u,
                       const Motion<typename ModelT::Scalar>& a_world) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    constexpr int nvi = J::nv;
    constexpr int iv = Tree::idx_v[I];
    Motion<S> ap = detail::parent_link<I>(data).inverse_act_motion(P < 0 ? a_world : data.a_gf[P]);
    if constexpr (Bias) ap += data.c[I];
    const Eigen::Matrix<S, nvi, 1> qdd =
        data.Dinv[I].template topLeftCorner<nvi, nvi>() *
        (u.template segment<nvi>(iv) - data.U.template middleCols<nvi>(iv).transpose() * ap);
    data.ddq.template segment<nvi>(iv) = qdd;
    data.a_gf[I] = ap + J::template motion<S>(model.axis[I], qdd);
  });
}

template <bool WithFext, class ModelT, class Q, class V, class T>
Status aba_pass(const ModelT& model, Data<ModelT>& data, const Q& q, const V& v, const T& tau,
                const ExternalForces<ModelT>* fext) {
  static_for<ModelT::nb>([&](auto i) {
    aba_forward_body<decltype(i)::value, false, WithFext>(model, data, q, v, fext);
  });
  if (!aba_backward<true>(model, data, tau)) {
    data.ddq.setZero();
    return Status::singular;
  }
  aba_accelerations<true>(model, data, data.u, gravity_acceleration(model));
  return Status::ok;
}

}  // namespace detail

/// Forward dynamics. Output ddq (nv). Also fills data.liMi, v, c, IA, pA, U, Dinv, u, a_gf, ddq.
template <class ModelT, class Q, class V, class T, class Out>
Status aba(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
           const Eigen::MatrixBase<T>& tau, Out& ddq) {
  TALUS_CHECK_ENTRY_SIZES(aba, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    Status s = check_inputs(model, q, v, tau);
    if (s == Status::ok) s = detail::aba_pass<false>(model, data, q, v, tau, nullptr);
    return output_or_zero(s, data.ddq, ddq);
  }
}

/// Forward dynamics with external forces (body frame, see rnea.hpp).
template <class ModelT, class Q, class V, class T, class Out>
Status aba(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
           const Eigen::MatrixBase<T>& tau, const ExternalForces<ModelT>& fext, Out& ddq) {
  TALUS_CHECK_ENTRY_SIZES(aba, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    Status s = check_inputs(model, q, v, tau, fext);
    if (s == Status::ok) s = detail::aba_pass<true>(model, data, q, v, tau, &fext);
    return output_or_zero(s, data.ddq, ddq);
  }
}

}  // namespace talus
