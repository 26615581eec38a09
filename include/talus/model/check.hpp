#pragma once
/// \file check.hpp
/// What talus accepts, and the checks every algorithm runs first (one pass over its inputs,
/// negligible next to the algorithm).
///
/// Valid inputs (anything else returns Status::invalid_input, outputs zero):
///
/// | quantity                                                   | valid range                      |
/// |------------------------------------------------------------|----------------------------------|
/// | q entries (m, rad), body points, contact anchors, frame and joint translations (m) | finite, \|x\| ≤ input_limits::position = 1e6 |
/// | q̇, q̈, τ, external forces, target velocities, everything else | finite, \|x\| ≤ input_limits::magnitude = 1e9 |
/// | quaternions in q                                           | \|‖quat‖ − 1\| ≤ quaternion_norm_tolerance<S>() = 1e3·ε: 2.2e-13 (double), 1.2e-4 (float) (quaternion.hpp) |
///
/// A sensor's quaternion (a float IMU's, off by ~1e-7 in a double q) is renormalised, within
/// a stated bound, at the sensor boundary: renormalize_quaternions (configuration.hpp),
/// renormalize_quaternion (quaternion.hpp). Algorithms never renormalise.
///
/// Why these bounds: 1e6 rad is where talus::sincos stops reducing angles exactly (beyond it
/// it returns NaN rather than a wrong value), and 1e6 m is far beyond any robot; within the
/// bounds, and for a model that passes check_model, every product an algorithm forms stays
/// far from overflow in double. Outputs are checked once more where a division or a
/// product can still overflow (solves; float): such a result returns Status::overflow.
///
/// Models: algorithms assume a model that passes check_model (call it once at start-up;
/// ConstraintSet::bind calls it). They do not re-check the model every call.
#include <cmath>
#include <type_traits>

#include <talus/linalg/finite.hpp>
#include <talus/linalg/sizes.hpp>
#include <talus/model/data.hpp>

namespace talus {

/// ok if q has model.nq entries within input_limits::position and every quaternion in it is
/// unit to within quaternion_norm_tolerance(); invalid_input otherwise.
template <class ModelT, class Q>
inline Status check_configuration(const ModelT&, const Eigen::MatrixBase<Q>& q) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_assert(Q::RowsAtCompileTime == Eigen::Dynamic || Q::RowsAtCompileTime == ModelT::nq,
                "talus: q must have nq rows (the model's configuration size)");
  if (q.rows() != ModelT::nq || q.cols() != 1) return Status::invalid_input;
  if (!all_within(q, input_limits::position)) return Status::invalid_input;
  bool ok = true;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using J = typename Tree::template Joint<I>;
    if constexpr (J::has_quaternion) ok = ok && J::template valid<S>(q.template segment<J::nq>(Tree::idx_q[I]));
  });
  return ok ? Status::ok : Status::invalid_input;
}

/// ok if every entry of x is finite and within input_limits::magnitude, invalid_input otherwise.
template <class Derived>
inline Status check_finite(const Eigen::MatrixBase<Derived>& x) {
  return all_within(x, input_limits::magnitude) ? Status::ok : Status::invalid_input;
}

namespace detail {
/// The guard that goes with a public function's entry static_asserts (TALUS_CHECK_ENTRY_SIZES):
/// true when Q fits nq, Out holds nv rows and every Tangents fits nv. Written
/// `if constexpr (!entry_sizes_ok<...>()) return Status::invalid_input; else { body }`, so on a
/// wrong size the body is not instantiated and the static_assert is the only error (not the
/// first of several from Eigen, instantiations deep).
template <class ModelT, class Q, class Out, class... Tangents>
constexpr bool entry_sizes_ok() {
  return fits<Q, ModelT::nq>() && holds_size<Out, ModelT::nv>() && (fits<Tangents, ModelT::nv>() && ...);
}
template <class Derived>
inline bool inputs_finite(const Eigen::MatrixBase<Derived>& x) {
  return all_within(x, input_limits::magnitude);
}
template <class T, std::size_t N>
inline bool inputs_finite(const std::array<T, N>& xs) {  // e.g. ExternalForces
  bool ok = true;
  for (const auto& x : xs) ok = ok && all_within(x, input_limits::magnitude);
  return ok;
}
/// A tangent-space input (q̇, q̈, τ, weights): nv rows, one column, within the magnitude bound.
template <class ModelT, class Derived>
inline bool tangent_input_valid(const Eigen::MatrixBase<Derived>& x) {
  static_assert(Derived::RowsAtCompileTime == Eigen::Dynamic || Derived::RowsAtCompileTime == ModelT::nv,
                "talus: this argument (q̇, q̈, τ or weights) must have nv rows (the model's velocity size), "
                "not nq");
  static_assert(Derived::ColsAtCompileTime == Eigen::Dynamic || Derived::ColsAtCompileTime == 1,
                "talus: this argument must be a column vector");
  return x.rows() == ModelT::nv && x.cols() == 1 && all_within(x, input_limits::magnitude);
}
template <class ModelT, class T, std::size_t N>
inline bool tangent_input_valid(const std::array<T, N>& xs) {  // ExternalForces: one per body
  static_assert(N == static_cast<std::size_t>(ModelT::nb), "talus: external forces must hold one force per body");
  return inputs_finite(xs);
}
/// A point or translation (m): finite and within input_limits::position.
template <class Derived>
inline bool point_valid(const Eigen::MatrixBase<Derived>& p) {
  return all_within(p, input_limits::position);
}

/// True if R is a rotation: finite, RᵀR = 1 and det R = +1 to within √ε (about 1.5e-8 in
/// double, 3.5e-4 in float: a float cast of an exact rotation passes).
template <class S>
inline bool rotation_valid(const Matrix3<S>& R) {
  using std::sqrt;
  const S tol = sqrt(Eigen::NumTraits<S>::epsilon());
  if (!all_within(R, 1.0 + 1e-3)) return false;
  const Matrix3<S> E = R.transpose() * R - Matrix3<S>::Identity();
  return all_within(E, static_cast<double>(tol)) && R.determinant() > S(0);
}

/// True for joints that read a unit axis from Model::axis (JointRevolute, JointPrismatic).
template <class J, class = void>
struct has_runtime_axis : std::false_type {};
template <class J>
struct has_runtime_axis<J, std::void_t<decltype(J::axis_index)>> : std::bool_constant<(J::axis_index < 0)> {};

template <class S>
inline bool transform_valid(const Transform<S>& M) {
  return point_valid(M.p) && rotation_valid(M.R);
}

/// Mass in [0, input_limits::mass], com within the position bound, I_c symmetric and
/// positive semi-definite (leading minors, to a tolerance relative to its size), entries
/// within input_limits::inertia.
template <class S>
inline bool inertia_valid(const Inertia<S>& Y) {
  using std::abs;
  if (!(Y.mass >= S(0) && Y.mass <= S(input_limits::mass))) return false;
  if (!point_valid(Y.com) || !all_within(Y.I_c, input_limits::inertia)) return false;
  const Matrix3<S>& I = Y.I_c;
  const S scale = I.cwiseAbs().maxCoeff();
  const S tol = S(64) * Eigen::NumTraits<S>::epsilon() * scale;
  if (!((I - I.transpose()).cwiseAbs().maxCoeff() <= tol)) return false;
  const S m2 = I(0, 0) * I(1, 1) - I(0, 1) * I(1, 0);
  return I(0, 0) >= -tol && I(1, 1) >= -tol && I(2, 2) >= -tol && m2 >= -tol * scale &&
         I.determinant() >= -tol * scale * scale;
}
}  // namespace detail

/// Validates a model's numbers: joint placements and frame placements are rigid transforms
/// (finite translations within input_limits::position, rotations with RᵀR = 1, det +1), each
/// joint placement fits the kinds its Body declares (tree.hpp: the entries a kind fixes are
/// exactly 0, +1 or −1; a general value written into a structured placement would make the
/// algorithms, which skip those entries, silently wrong),
/// generic joint axes are unit (|‖a‖ − 1| ≤ √ε), inertias are physical (detail::inertia_valid),
/// frames are attached to a body in range (or to the world, −1), gravity is finite and within
/// input_limits::magnitude. invalid_input otherwise. Run it once at start-up, on a model you
/// built or recalibrated; bind() runs it; the generator's models pass it (tested).
template <class ModelT>
Status check_model(const ModelT& model) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  bool ok = true;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using J = typename Tree::template Joint<I>;
    // every axis finite (axis-aligned joints ignore theirs, but a NaN anywhere in a model is
    // a corrupted model), generic axes also unit
    ok = ok && detail::transform_valid(model.joint_placement[I]) && detail::inertia_valid(model.inertia[I]) &&
         all_finite(model.axis[I]) && fits_pattern<typename Tree::template Placement<I>>(model.joint_placement[I]);
    if constexpr (detail::has_runtime_axis<J>::value) {
      using std::abs;
      const Vector3<S>& a = model.axis[I];
      ok = ok && all_finite(a) && abs(a.norm() - S(1)) <= std::sqrt(Eigen::NumTraits<S>::epsilon());
    }
  });
  for (int f = 0; f < ModelT::nframes; ++f) {
    const Frame<S>& F = model.frames[f];
    ok = ok && F.body >= -1 && F.body < ModelT::nb && detail::transform_valid(F.placement);
  }
  ok = ok && all_within(model.gravity, input_limits::magnitude);
  return ok ? Status::ok : Status::invalid_input;
}

/// One check for an algorithm's inputs: q a valid configuration, every other argument
/// (tangent vectors with nv rows, or external forces: one per body) finite and within
/// input_limits::magnitude. A size the type knows is checked at compile time.
template <class ModelT, class Q, class... Rest>
inline Status check_inputs(const ModelT& model, const Eigen::MatrixBase<Q>& q, const Rest&... rest) {
  if (Status s = check_configuration(model, q); s != Status::ok) return s;
  return (detail::tangent_input_valid<ModelT>(rest) && ...) ? Status::ok : Status::invalid_input;
}

/// out = result if s is ok and result is finite, zero otherwise (outputs stay defined on
/// failure); returns s, or overflow for a non-finite result.
template <class Result, class Out>
inline Status output_or_zero(Status s, const Result& result, Out& out) {
  if (s == Status::ok && !all_finite(result)) s = Status::overflow;
  if (s == Status::ok) out = result;
  else out.setZero();
  return s;
}

}  // namespace talus

/// Entry checks of a public function's sized Eigen arguments, one static_assert per argument
/// whose message names the function and the argument, e.g.
///     talus::forward_dynamics_direct: q must have nq rows (Model::ConfigVector)
/// Inputs may also be of dynamic size (detail::fits: checked at run time), outputs must be
/// able to take the result (detail::holds_size). The argument's type is its decltype: for an
/// input `const Eigen::MatrixBase<Q>& q` that is MatrixBase<Q>, which has Q's sizes.
/// Follow them with the detail::entry_sizes_ok guard so that the assert is the only error.
///
/// Macros, not functions: a static_assert's message must be a string literal, and only the
/// preprocessor can write the function's and the argument's names into it (stringizing); a
/// helper function's static_assert would name the helper, and the error would point there.
#define TALUS_ASSERT_CONFIG(fn, ModelT, arg)                        \
  static_assert(::talus::detail::fits<decltype(arg), ModelT::nq>(), \
                "talus::" #fn ": " #arg " must have nq rows (Model::ConfigVector)")
#define TALUS_ASSERT_TANGENT(fn, ModelT, arg)                       \
  static_assert(::talus::detail::fits<decltype(arg), ModelT::nv>(), \
                "talus::" #fn ": " #arg " must have nv rows (Model::TangentVector)")
#define TALUS_ASSERT_CONFIG_OUT(fn, ModelT, arg)                          \
  static_assert(::talus::detail::holds_size<decltype(arg), ModelT::nq>(), \
                "talus::" #fn ": " #arg " must have nq rows (Model::ConfigVector)")
#define TALUS_ASSERT_TANGENT_OUT(fn, ModelT, arg)                         \
  static_assert(::talus::detail::holds_size<decltype(arg), ModelT::nv>(), \
                "talus::" #fn ": " #arg " must have nv rows (Model::TangentVector)")
/// The common shape: configuration q, tangent inputs v and tau (or q̈), tangent output out.
#define TALUS_CHECK_ENTRY_SIZES(fn, ModelT, q, v, tau, out) \
  TALUS_ASSERT_CONFIG(fn, ModelT, q);                       \
  TALUS_ASSERT_TANGENT(fn, ModelT, v);                      \
  TALUS_ASSERT_TANGENT(fn, ModelT, tau);                    \
  TALUS_ASSERT_TANGENT_OUT(fn, ModelT, out)
/// Configuration q, one tangent input v (q̇⁻ of an impulse), tangent output out.
#define TALUS_CHECK_ENTRY_SIZES_QV(fn, ModelT, q, v, out) \
  TALUS_ASSERT_CONFIG(fn, ModelT, q);                     \
  TALUS_ASSERT_TANGENT(fn, ModelT, v);                    \
  TALUS_ASSERT_TANGENT_OUT(fn, ModelT, out)
