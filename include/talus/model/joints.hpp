#pragma once
/// \file joints.hpp
/// Joint types. A joint connects a parent body λ(i) to body i:
///   λ(i)Mi = joint_placement[i] * joint_transform(q_i)
/// where joint_placement (X_T) is the joint frame in the parent body frame and the joint
/// transform X_J(q) is body i's frame in the joint frame. Velocities are in body i's frame.
///
/// | type                      | nq | nv | q                                   | v (q̇ side)                  |
/// |---------------------------|----|----|-------------------------------------|-----------------------------|
/// | JointRevoluteX/Y/Z        | 1  | 1  | angle (rad) about +x/+y/+z          | rad/s                       |
/// | JointRevolute (axis)      | 1  | 1  | angle (rad) about a unit axis       | rad/s                       |
/// | JointPrismaticX/Y/Z       | 1  | 1  | displacement (m) along +x/+y/+z     | m/s                         |
/// | JointPrismatic (axis)     | 1  | 1  | displacement (m) along a unit axis  | m/s                         |
/// | JointSpherical            | 4  | 3  | quaternion (w, x, y, z)             | ω in body frame (rad/s)     |
/// | JointFreeFlyer            | 7  | 6  | position (m, parent frame), quaternion (w, x, y, z) | [ω; v] in body frame |
///
/// Free-flyer velocity: ω is the body's angular velocity and v the velocity of the body
/// origin, both expressed in the body frame (Featherstone/Pinocchio body velocity, in
/// talus's [angular; linear] order). The parent-frame velocity of the origin is R v.
/// Generic-axis joints read their unit axis (joint frame) from Model::axis.
///
/// Integration on the configuration manifold (q ⊕ v): vector joints add; quaternion
/// joints right-multiply by exp(ω); the free flyer moves its position by R·v (R the
/// orientation before the step, the "decoupled" R³ × SO(3) map). difference() is its exact inverse.
///
/// Structure: each joint type states the pattern of X_J(q) (transform_R, transform_p:
/// math/placement.hpp), and placement<S, Pat>() forms X_T X_J(q) for an X_T of pattern Pat
/// without the products by X_T's structural zeros and ones (the same bits as the general
/// product). λ(i)Mi then has the pattern LinkPattern<Joint, Pat>.
#include <cmath>
#include <type_traits>

#include <talus/math/placement.hpp>
#include <talus/math/quaternion.hpp>
#include <talus/math/sincos.hpp>

namespace talus {

/// Revolute (Revolute = true) or prismatic joint along axis Axis: 0, 1, 2 for x, y, z;
/// -1 for a unit axis given at run time.
template <bool IsRevolute, int Axis>
struct JointAxis {
  static constexpr int nq = 1;
  static constexpr int nv = 1;
  static constexpr bool revolute = IsRevolute;
  static constexpr int axis_index = Axis;
  static constexpr bool has_quaternion = false;
  /// Pattern of X_J(q): a rotation about the axis (revolute), a translation along it (prismatic).
  static constexpr pattern::Rotation transform_R =
      IsRevolute ? (Axis < 0 ? pattern::all_values() : pattern::about_axis(Axis)) : pattern::identity();
  static constexpr pattern::Translation transform_p = {
      !IsRevolute && (Axis < 0 || Axis == 0) ? pattern::value : pattern::zero,
      !IsRevolute && (Axis < 0 || Axis == 1) ? pattern::value : pattern::zero,
      !IsRevolute && (Axis < 0 || Axis == 2) ? pattern::value : pattern::zero};

  template <class S>
  static Vector3<S> unit_axis(const Vector3<S>& runtime_axis) {
    if constexpr (Axis < 0) return runtime_axis;
    else return Vector3<S>::Unit(Axis);
  }

  /// X_J(q): body frame in joint frame.
  template <class S, class Q>
  static Transform<S> transform(const Vector3<S>& axis, const Q& q) {
    using std::cos;
    using std::sin;
    Transform<S> M;
    const S qi = q[0];
    if constexpr (IsRevolute) {
      if constexpr (Axis < 0) {
        M.R = axis_angle_rotation<S>(axis, qi);
      } else {
        S s, c;
        sincos(qi, s, c);
        constexpr int a = (Axis + 1) % 3, b = (Axis + 2) % 3;
        M.R(a, a) = c;
        M.R(a, b) = -s;
        M.R(b, a) = s;
        M.R(b, b) = c;
      }
    } else {
      M.p = unit_axis<S>(axis) * qi;
    }
    return M;
  }

  /// X_T X_J(q): body frame in the parent body frame, given the joint placement X_T of pattern
  /// Pat. Axis-aligned joints touch two columns of R (revolute) or p only (prismatic).
  template <class S, class Pat = GeneralPattern, class Q>
  TALUS_INLINE static Transform<S> placement(const Transform<S>& XT, const Vector3<S>& axis, const Q& q) {
    if constexpr (Axis < 0) {
      return compose_left<Pat>(XT, transform<S>(axis, q));
    } else if constexpr (IsRevolute) {
      S s, c;
      sincos(S(q[0]), s, c);
      Transform<S> M;
      revolute_row<Pat, 0>(XT, c, s, M);
      revolute_row<Pat, 1>(XT, c, s, M);
      revolute_row<Pat, 2>(XT, c, s, M);
      M.p = XT.p;
      return M;
    } else {
      const S d = q[0];
      return Transform<S>(XT.R, Vector3<S>(sparse::plus<Pat::p[0], Pat::R[Axis]>(XT.p[0], XT.R(0, Axis), d),
                                           sparse::plus<Pat::p[1], Pat::R[3 + Axis]>(XT.p[1], XT.R(1, Axis), d),
                                           sparse::plus<Pat::p[2], Pat::R[6 + Axis]>(XT.p[2], XT.R(2, Axis), d)));
    }
  }
  /// Row I of X_T X_J(q) for an axis-aligned revolute joint: column Axis is X_T's, columns a, b
  /// are c X_T e_a + s X_T e_b and c X_T e_b − s X_T e_a.
  template <class Pat, int I, class S>
  TALUS_INLINE static void revolute_row(const Transform<S>& XT, S c, S s, Transform<S>& M) {
    constexpr int a = (Axis + 1) % 3, b = (Axis + 2) % 3;
    constexpr pattern::Entry Ea = Pat::R[3 * I + a], Eb = Pat::R[3 * I + b];
    M.R(I, Axis) = XT.R(I, Axis);
    M.R(I, a) = sparse::dot2<Ea, Eb>(XT.R(I, a), c, XT.R(I, b), s);
    M.R(I, b) = sparse::diff2<Eb, Ea>(XT.R(I, b), c, XT.R(I, a), s);
  }

  /// S expressed in frame a, given aMbody (one Jacobian column).
  template <class S>
  TALUS_INLINE static Eigen::Matrix<S, 6, 1> motion_subspace_in(const Transform<S>& aM, const Vector3<S>& axis) {
    Eigen::Matrix<S, 6, 1> m;
    Vector3<S> u;
    if constexpr (Axis >= 0) u = aM.R.col(Axis);
    else u = mul<S>(aM.R, axis);
    if constexpr (IsRevolute) {
      m.template head<3>() = u;
      m.template tail<3>() = cross<S>(aM.p, u);
    } else {
      m.template head<3>().setZero();
      m.template tail<3>() = u;
    }
    return m;
  }

  /// Motion subspace S (6 x 1) in the body frame.
  template <class S>
  static Eigen::Matrix<S, 6, 1> motion_subspace(const Vector3<S>& axis) {
    Eigen::Matrix<S, 6, 1> m = Eigen::Matrix<S, 6, 1>::Zero();
    m.template segment<3>(IsRevolute ? 0 : 3) = unit_axis<S>(axis);
    return m;
  }

  /// S q̇
  template <class S, class V>
  TALUS_INLINE static Motion<S> motion(const Vector3<S>& axis, const V& v) {
    Motion<S> m = Motion<S>::Zero();
    if constexpr (Axis >= 0) m[(IsRevolute ? 0 : 3) + Axis] = v[0];
    else m.template segment<3>(IsRevolute ? 0 : 3) = axis * v[0];
    return m;
  }

  /// m += S q̇. Axis-aligned joints add to the one entry S q̇ has (the other entries of
  /// m + S q̇ are m's own: x + 0 = x).
  template <class S, class V>
  TALUS_INLINE static void add_motion(Motion<S>& m, const Vector3<S>& axis, const V& v) {
    if constexpr (Axis >= 0) m[(IsRevolute ? 0 : 3) + Axis] += v[0];
    else m += motion<S>(axis, v);
  }

  /// a += m × (S q̇) (Featherstone's crm(m) S q̇, the velocity-product acceleration). An
  /// axis-aligned S q̇ = q̇ e_k has one non-zero entry: the cross products reduce to the four
  /// (revolute) or two (prismatic) products with q̇ that cross_motion forms, the same values
  /// (its other terms are products with zero).
  template <class S, class V>
  TALUS_INLINE static void add_cross_motion(Motion<S>& a, const Motion<S>& m, const Vector3<S>& axis, const V& v) {
    if constexpr (Axis >= 0) {
      constexpr int k = Axis, i = (Axis + 1) % 3, j = (Axis + 2) % 3;
      const S qd = v[0];
      // (x × q̇ e_k)_i = x_j q̇,  (x × q̇ e_k)_j = −x_i q̇,  (x × q̇ e_k)_k = 0
      if constexpr (IsRevolute) {  // [ω × e_k q̇; v × e_k q̇]
        a[i] += m[j] * qd;
        a[j] -= m[i] * qd;
        a[3 + i] += m[3 + j] * qd;
        a[3 + j] -= m[3 + i] * qd;
      } else {  // [0; ω × e_k q̇]
        a[3 + i] += m[j] * qd;
        a[3 + j] -= m[i] * qd;
      }
      (void)k;
    } else {
      a += cross_motion<S>(m, motion<S>(axis, v));
    }
  }

  /// Sᵀ F for a 6xN block F (rows of the result: nv = 1).
  template <class S, class F>
  TALUS_INLINE static Eigen::Matrix<S, 1, F::ColsAtCompileTime> project(const Vector3<S>& axis, const F& f) {
    constexpr int off = IsRevolute ? 0 : 3;
    if constexpr (Axis >= 0) return f.template middleRows<1>(off + Axis);
    else return axis.transpose() * f.template middleRows<3>(off);
  }

  /// M S for a 6x6 matrix M (6 x nv).
  template <class S>
  static Eigen::Matrix<S, 6, 1> mul_subspace(const Vector3<S>& axis, const Matrix6<S>& M) {
    constexpr int off = IsRevolute ? 0 : 3;
    if constexpr (Axis >= 0) return M.col(off + Axis);
    else return M.template middleCols<3>(off) * axis;
  }

  template <class S, class Q>
  static void neutral(Q&& q) {
    q[0] = S(0);
  }
  template <class S, class Q, class V, class Out>
  static void integrate(const Q& q, const V& v, Out&& out) {
    out[0] = q[0] + v[0];
  }
  template <class S, class Q0, class Q1, class Out>
  static void difference(const Q0& q0, const Q1& q1, Out&& out) {
    out[0] = q1[0] - q0[0];
  }
  template <class S, class Q>
  static bool normalize(Q&&) {
    return true;
  }
  template <class S, class Q>
  static bool valid(const Q&) {
    return true;
  }
};

using JointRevoluteX = JointAxis<true, 0>;
using JointRevoluteY = JointAxis<true, 1>;
using JointRevoluteZ = JointAxis<true, 2>;
using JointRevolute = JointAxis<true, -1>;
using JointPrismaticX = JointAxis<false, 0>;
using JointPrismaticY = JointAxis<false, 1>;
using JointPrismaticZ = JointAxis<false, 2>;
using JointPrismatic = JointAxis<false, -1>;

namespace detail {
template <class S, class Q>
Eigen::Matrix<S, 4, 1> read_quaternion(const Q& q) {
  return Eigen::Matrix<S, 4, 1>(q[0], q[1], q[2], q[3]);
}
template <class S, class Q>
bool quaternion_valid(const Q& q) {
  using std::abs;
  using std::sqrt;
  const S n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  return abs(sqrt(n2) - S(1)) <= quaternion_norm_tolerance<S>();  // false for NaN too
}
/// Normalises q in place; false (q unchanged) for a zero quaternion. Scaled by the largest
/// magnitude first so that the squared norm neither overflows nor underflows.
template <class S, class Q>
bool quaternion_normalize(Q&& q) {
  using std::abs;
  using std::sqrt;
  S scale = S(0);
  for (int k = 0; k < 4; ++k) scale = abs(q[k]) > scale ? abs(q[k]) : scale;
  if (!(scale > S(0))) return false;
  S a[4];
  for (int k = 0; k < 4; ++k) a[k] = q[k] / scale;
  const S n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
  for (int k = 0; k < 4; ++k) q[k] = a[k] / n;
  return true;
}
}  // namespace detail

namespace detail {
/// The products a multi-dof joint forms from its own transform(), motion_subspace() and
/// motion() (CRTP: Joint derives from MultiDofJoint<Joint>). A one-dof joint along a
/// coordinate axis has cheaper forms of its own (JointAxis).
template <class Joint>
struct MultiDofJoint {
  /// X_T X_J(q): body frame in the parent body frame, given the joint placement X_T of pattern Pat.
  template <class S, class Pat = GeneralPattern, class Q>
  TALUS_INLINE static Transform<S> placement(const Transform<S>& XT, const Vector3<S>& axis, const Q& q) {
    return compose_left<Pat>(XT, Joint::template transform<S>(axis, q));
  }
  /// S expressed in frame a, given aM (body frame in frame a).
  template <class S>
  static auto motion_subspace_in(const Transform<S>& aM, const Vector3<S>& axis) {
    return aM.act_motion_cols(Joint::template motion_subspace<S>(axis));
  }
  /// m += S q̇
  template <class S, class V>
  TALUS_INLINE static void add_motion(Motion<S>& m, const Vector3<S>& axis, const V& v) {
    m += Joint::template motion<S>(axis, v);
  }
  /// a += m × (S q̇)
  template <class S, class V>
  TALUS_INLINE static void add_cross_motion(Motion<S>& a, const Motion<S>& m, const Vector3<S>& axis, const V& v) {
    a += cross_motion<S>(m, Joint::template motion<S>(axis, v));
  }
};
}  // namespace detail

/// Ball joint: q = quaternion (w, x, y, z) of the body in the joint frame; v = ω (body frame).
struct JointSpherical : detail::MultiDofJoint<JointSpherical> {
  static constexpr int nq = 4;
  static constexpr int nv = 3;
  static constexpr bool has_quaternion = true;
  static constexpr pattern::Rotation transform_R = pattern::all_values();  ///< pattern of X_J(q)
  static constexpr pattern::Translation transform_p = {pattern::zero, pattern::zero, pattern::zero};

  template <class S, class Q>
  static Transform<S> transform(const Vector3<S>&, const Q& q) {
    Transform<S> M;
    M.R = quaternion_to_rotation<S>(q[0], q[1], q[2], q[3]);
    return M;
  }
  template <class S>
  static Eigen::Matrix<S, 6, 3> motion_subspace(const Vector3<S>&) {
    Eigen::Matrix<S, 6, 3> m = Eigen::Matrix<S, 6, 3>::Zero();
    m.template topRows<3>().setIdentity();
    return m;
  }
  template <class S, class V>
  TALUS_INLINE static Motion<S> motion(const Vector3<S>&, const V& v) {
    Motion<S> m;
    m << v[0], v[1], v[2], S(0), S(0), S(0);
    return m;
  }
  template <class S, class F>
  static Eigen::Matrix<S, 3, F::ColsAtCompileTime> project(const Vector3<S>&, const F& f) {
    return f.template topRows<3>();
  }
  template <class S>
  static Eigen::Matrix<S, 6, 3> mul_subspace(const Vector3<S>&, const Matrix6<S>& M) {
    return M.template leftCols<3>();
  }
  template <class S, class Q>
  static void neutral(Q&& q) {
    q[0] = S(1);
    q[1] = q[2] = q[3] = S(0);
  }
  template <class S, class Q, class V, class Out>
  static void integrate(const Q& q, const V& v, Out&& out) {
    const Eigen::Matrix<S, 4, 1> r =
        quaternion_multiply<S>(detail::read_quaternion<S>(q), quaternion_exp<S>(Vector3<S>(v[0], v[1], v[2])));
    for (int k = 0; k < 4; ++k) out[k] = r[k];
  }
  template <class S, class Q0, class Q1, class Out>
  static void difference(const Q0& q0, const Q1& q1, Out&& out) {
    Eigen::Matrix<S, 4, 1> c = detail::read_quaternion<S>(q0);
    c.template tail<3>() = -c.template tail<3>();  // conjugate = inverse for unit quaternions
    const Vector3<S> w = quaternion_log<S>(quaternion_multiply<S>(c, detail::read_quaternion<S>(q1)));
    for (int k = 0; k < 3; ++k) out[k] = w[k];
  }
  template <class S, class Q>
  static bool normalize(Q&& q) {
    return detail::quaternion_normalize<S>(q);
  }
  template <class S, class Q>
  static bool valid(const Q& q) {
    return detail::quaternion_valid<S>(q);
  }
};

/// Six-dof joint of a floating base: q = [p (3); quaternion (w, x, y, z)], v = [ω; v] body frame.
struct JointFreeFlyer : detail::MultiDofJoint<JointFreeFlyer> {
  static constexpr int nq = 7;
  static constexpr int nv = 6;
  static constexpr bool has_quaternion = true;
  static constexpr pattern::Rotation transform_R = pattern::all_values();  ///< pattern of X_J(q)
  static constexpr pattern::Translation transform_p = {pattern::value, pattern::value, pattern::value};

  template <class S, class Q>
  static Transform<S> transform(const Vector3<S>&, const Q& q) {
    return Transform<S>(quaternion_to_rotation<S>(q[3], q[4], q[5], q[6]), Vector3<S>(q[0], q[1], q[2]));
  }
  template <class S>
  static Eigen::Matrix<S, 6, 6> motion_subspace(const Vector3<S>&) {
    return Matrix6<S>::Identity();
  }
  template <class S, class V>
  TALUS_INLINE static Motion<S> motion(const Vector3<S>&, const V& v) {
    Motion<S> m;
    for (int k = 0; k < 6; ++k) m[k] = v[k];
    return m;
  }
  template <class S, class F>
  static Eigen::Matrix<S, 6, F::ColsAtCompileTime> project(const Vector3<S>&, const F& f) {
    return f;
  }
  template <class S>
  static Matrix6<S> mul_subspace(const Vector3<S>&, const Matrix6<S>& M) {
    return M;
  }

  template <class S, class Q>
  static void neutral(Q&& q) {
    q[0] = q[1] = q[2] = S(0);
    q[3] = S(1);
    q[4] = q[5] = q[6] = S(0);
  }
  template <class S, class Q, class V, class Out>
  static void integrate(const Q& q, const V& v, Out&& out) {
    const Matrix3<S> R = quaternion_to_rotation<S>(q[3], q[4], q[5], q[6]);
    const Vector3<S> dp = R * Vector3<S>(v[3], v[4], v[5]);
    const Eigen::Matrix<S, 4, 1> r = quaternion_multiply<S>(Eigen::Matrix<S, 4, 1>(q[3], q[4], q[5], q[6]),
                                                            quaternion_exp<S>(Vector3<S>(v[0], v[1], v[2])));
    for (int k = 0; k < 3; ++k) out[k] = q[k] + dp[k];
    for (int k = 0; k < 4; ++k) out[3 + k] = r[k];
  }
  template <class S, class Q0, class Q1, class Out>
  static void difference(const Q0& q0, const Q1& q1, Out&& out) {
    const Matrix3<S> R = quaternion_to_rotation<S>(q0[3], q0[4], q0[5], q0[6]);
    const Vector3<S> dp = R.transpose() * Vector3<S>(q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2]);
    const Eigen::Matrix<S, 4, 1> c(q0[3], -q0[4], -q0[5], -q0[6]);
    const Vector3<S> w =
        quaternion_log<S>(quaternion_multiply<S>(c, Eigen::Matrix<S, 4, 1>(q1[3], q1[4], q1[5], q1[6])));
    for (int k = 0; k < 3; ++k) out[k] = w[k];
    for (int k = 0; k < 3; ++k) out[3 + k] = dp[k];
  }
  template <class S, class Q>
  static bool normalize(Q&& q) {
    auto quat = q.template segment<4>(3);
    return detail::quaternion_normalize<S>(quat);
  }
  template <class S, class Q>
  static bool valid(const Q& q) {
    return detail::quaternion_valid<S>(q.template segment<4>(3));
  }
};

/// The pattern of λ(i)Mi = X_T X_J(q) for a joint J whose placement X_T has pattern Pat (the
/// products placement() forms: zero where every term has a structural zero factor, ±1 where
/// one term is a product of ±1s). A joint type without a stated X_J pattern: general.
template <class J, class Pat, class = void>
struct LinkPattern : GeneralPattern {};
template <class J, class Pat>
struct LinkPattern<J, Pat, std::void_t<decltype(J::transform_R), decltype(J::transform_p)>> {
  static constexpr pattern::Rotation R = pattern::product(Pat::R, J::transform_R);
  static constexpr pattern::Translation p = pattern::affine(Pat::R, J::transform_p, Pat::p);
};

}  // namespace talus
