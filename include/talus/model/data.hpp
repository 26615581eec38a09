#pragma once
/// \file data.hpp
/// `Data<Model>`: everything an algorithm writes, sized at compile time, reused every cycle.
/// One Data per thread of use; algorithms never allocate. Fields are documented with the
/// algorithm that fills them; reading a field an algorithm has not filled gives the value
/// of the last call that did (all start zero, transforms identity).
#include <talus/model/model.hpp>
#include <talus/status.hpp>

namespace talus {

template <class ModelT>
struct Data {
  using S = typename ModelT::Scalar;
  static constexpr int nb = ModelT::nb;
  static constexpr int nq = ModelT::nq;
  static constexpr int nv = ModelT::nv;
  using TangentVector = typename ModelT::TangentVector;
  using MatrixNV = typename ModelT::MatrixNV;

  // forward kinematics
  std::array<Transform<S>, nb> liMi{};  ///< body i in its parent body (world for roots)
  std::array<Transform<S>, nb> oMi{};   ///< body i in world
  // Member comments longer than the line: clang-format would break the initializers instead.
  // clang-format off
  std::array<Motion<S>, nb> v = filled<Motion<S>, nb>(Motion<S>::Zero());        ///< spatial velocity of body i, body frame
  std::array<Motion<S>, nb> a = filled<Motion<S>, nb>(Motion<S>::Zero());        ///< spatial acceleration of body i, body frame (no gravity)
  std::array<Motion<S>, nb> a_gf = filled<Motion<S>, nb>(Motion<S>::Zero());     ///< RNEA/ABA: a − ᵢX_world [0; g], gravity as a fictitious base acceleration

  // RNEA / ABA
  std::array<Force<S>, nb> f = filled<Force<S>, nb>(Force<S>::Zero());         ///< RNEA: force transmitted by joint i onto body i, body frame
  TangentVector tau = TangentVector::Zero();   ///< RNEA output (N·m / N)
  TangentVector ddq = TangentVector::Zero();   ///< ABA output
  std::array<Matrix6<S>, nb> IA = filled<Matrix6<S>, nb>(Matrix6<S>::Zero());      ///< ABA: articulated inertia, body frame
  std::array<Force<S>, nb> pA = filled<Force<S>, nb>(Force<S>::Zero());        ///< ABA: bias force, body frame
  std::array<Motion<S>, nb> c = filled<Motion<S>, nb>(Motion<S>::Zero());        ///< ABA: velocity-product acceleration v × S q̇
  Eigen::Matrix<S, 6, nv> U = Eigen::Matrix<S, 6, nv>::Zero();  ///< ABA: IA S, by dof
  std::array<Matrix6<S>, nb> Dinv = filled<Matrix6<S>, nb>(Matrix6<S>::Zero());    ///< ABA: (Sᵀ IA S)⁻¹ (top-left nv_i block)
  TangentVector u = TangentVector::Zero();     ///< ABA: τ − Sᵀ pA
  // clang-format on

  // CRBA
  std::array<InertiaSum<S>, nb> Yc{};  ///< CRBA: composite rigid-body inertia of the subtree, world frame
  MatrixNV H = MatrixNV::Zero();       ///< joint-space inertia matrix (full, symmetric)

  // Sparse factorization H = Lᵀ L (lower triangle of L used)
  MatrixNV L = MatrixNV::Zero();

  // Scratch for Jacobians
  Eigen::Matrix<S, 6, nv> J = Eigen::Matrix<S, 6, nv>::Zero();  ///< world-frame Jacobian columns

  // centroidal
  std::array<Inertia<S>, nb> Ycom{};     ///< subtree inertia in world frame (CoM algorithms)
  Vector3<S> com = Vector3<S>::Zero();   ///< whole-body center of mass, world
  Vector3<S> vcom = Vector3<S>::Zero();  ///< its velocity, world
  S mass = S(0);                         ///< total mass of the moving bodies
};

}  // namespace talus
