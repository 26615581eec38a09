#pragma once
/// \file configuration.hpp
/// Configuration helpers on the manifold of q (quaternions in q, see joints.hpp):
///   neutral(q)                 zero angles/displacements, identity quaternions
///   integrate(q, v, out)       out = q ⊕ v   (v is a displacement: pass v·dt for a velocity)
///   difference(q0, q1, out)    out = q1 ⊖ q0, so that integrate(q0, out) = q1
///   normalize(q)               renormalize the quaternions in q
///   renormalize_quaternions(q) sensor boundary: renormalise quaternions off by at most a
///                              stated bound (float IMU), refuse the rest (see below)
///   random_configuration       uniform within the position limits; uniform rotations
/// `Random` is a tiny deterministic generator (SplitMix64) so random states are the same on
/// every target, with no heap and no `<random>`.
#include <cstdint>

#include <talus/model/check.hpp>

namespace talus {

struct Random {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  explicit Random(std::uint64_t seed = 1) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// uniform in [0, 1)
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
};

template <class ModelT, class Q>
void neutral(const ModelT&, Eigen::MatrixBase<Q>& q) {
  static_assert(detail::holds_size<Q, ModelT::nq>(), "talus::neutral: q must have nq rows (Model::ConfigVector)");
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using J = typename Tree::template Joint<I>;
    J::template neutral<S>(q.template segment<J::nq>(Tree::idx_q[I]));
  });
}

/// out = q ⊕ v. invalid_input (out zero) for an invalid q or v (check.hpp); overflow (out
/// zero) when the result leaves the valid configurations (an entry beyond
/// input_limits::position): ok means out is a configuration every algorithm accepts. out may
/// be q itself.
template <class ModelT, class Q, class V, class Out>
Status integrate(const ModelT& model, const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                 Eigen::MatrixBase<Out>& out) {
  static_assert(detail::holds_size<Out, ModelT::nq>(), "talus::integrate: out must have nq rows (Model::ConfigVector)");
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  Status s = check_inputs(model, q, v);
  typename ModelT::ConfigVector r = ModelT::ConfigVector::Zero();
  if (s == Status::ok) {
    static_for<ModelT::nb>([&](auto i) {
      constexpr int I = decltype(i)::value;
      using J = typename Tree::template Joint<I>;
      J::template integrate<S>(q.template segment<J::nq>(Tree::idx_q[I]), v.template segment<J::nv>(Tree::idx_v[I]),
                               r.template segment<J::nq>(Tree::idx_q[I]));
    });
    if (check_configuration(model, r) != Status::ok) s = Status::overflow;
  }
  return output_or_zero(s, r, out);
}

/// out = q1 ⊖ q0 (nv). invalid_input (out zero) for an invalid q0 or q1.
template <class ModelT, class Q0, class Q1, class Out>
Status difference(const ModelT& model, const Eigen::MatrixBase<Q0>& q0, const Eigen::MatrixBase<Q1>& q1,
                  Eigen::MatrixBase<Out>& out) {
  static_assert(detail::holds_size<Out, ModelT::nv>(),
                "talus::difference: out must have nv rows (Model::TangentVector)");
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  Status s = check_configuration(model, q0);
  if (s == Status::ok) s = check_configuration(model, q1);
  typename ModelT::TangentVector r = ModelT::TangentVector::Zero();
  if (s == Status::ok) {
    static_for<ModelT::nb>([&](auto i) {
      constexpr int I = decltype(i)::value;
      using J = typename Tree::template Joint<I>;
      J::template difference<S>(q0.template segment<J::nq>(Tree::idx_q[I]), q1.template segment<J::nq>(Tree::idx_q[I]),
                                r.template segment<J::nv>(Tree::idx_v[I]));
    });
  }
  return output_or_zero(s, r, out);
}

/// Renormalize every quaternion of q in place (scaled first, so no squared norm overflows
/// or underflows: (3e200, 1e200, 0, 0) and (1e-170, 0, 0, 0) both normalise correctly).
/// Returns invalid_input, with q zeroed, if q holds NaN/Inf, an entry beyond
/// input_limits::position, or a quaternion that is exactly zero (it has no direction).
template <class ModelT, class Q>
Status normalize(const ModelT&, Eigen::MatrixBase<Q>& q) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_assert(Q::RowsAtCompileTime == Eigen::Dynamic || Q::RowsAtCompileTime == ModelT::nq,
                "talus: q must have nq rows (the model's configuration size)");
  bool ok = q.rows() == ModelT::nq && q.cols() == 1 && all_finite(q);
  if (ok) {
    static_for<ModelT::nb>([&](auto i) {
      constexpr int I = decltype(i)::value;
      using J = typename Tree::template Joint<I>;
      ok = ok && J::template normalize<S>(q.template segment<J::nq>(Tree::idx_q[I]));
    });
  }
  ok = ok && all_within(q, input_limits::position);
  if (!ok) {
    q.setZero();
    return Status::invalid_input;
  }
  return Status::ok;
}

/// Sensor boundary: make a measured q (e.g. a base orientation from a float IMU copied into
/// a double q) acceptable to the algorithms when, and only when, its quaternions are off by
/// no more than max_deviation. Algorithms keep rejecting any quaternion off by more than
/// quaternion_norm_tolerance<S>() (2.2e-13 in double, 1.2e-4 in float): an orientation off
/// by more than rounding is a bug or a sensor fault upstream, and renormalising it inside
/// the dynamics would hide it. Call this where the reading enters the controller instead.
///   - Every quaternion of q already within quaternion_norm_tolerance<S>() is left bit for
///     bit as it is; every other one within max_deviation (default
///     sensor_quaternion_tolerance<S>(): 1e-5 in double, 1.2e-4 in float; see
///     quaternion.hpp) is divided by its norm. *renormalised (may be null) = how many were.
///   - ok means q now passes check_configuration (every algorithm accepts it).
///   - invalid_input, q unchanged and *renormalised = 0, if any quaternion is off by more
///     than max_deviation, is zero, or any entry of q is NaN/Inf or beyond
///     input_limits::position, or max_deviation is not in [0, 1). Unlike normalize(), q is
///     not zeroed: it is the caller's measurement, kept for the log; algorithms reject it
///     as it is.
/// normalize() is the unconditional version (any nonzero quaternion), for a q the program
/// computed itself, e.g. after many integrate() steps.
template <class ModelT, class Q>
Status renormalize_quaternions(const ModelT& model, Eigen::MatrixBase<Q>& q,
                               typename ModelT::Scalar max_deviation =
                                   sensor_quaternion_tolerance<typename ModelT::Scalar>(),
                               int* renormalised = nullptr) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_assert(Q::RowsAtCompileTime == Eigen::Dynamic || Q::RowsAtCompileTime == ModelT::nq,
                "talus: q must have nq rows (the model's configuration size)");
  static_assert(std::is_same<typename Q::Scalar, S>::value, "talus: q must have the model's scalar type");
  if (renormalised) *renormalised = 0;
  if (q.rows() != ModelT::nq || q.cols() != 1 || !all_within(q, input_limits::position)) return Status::invalid_input;
  if (!(max_deviation >= S(0) && max_deviation < S(1))) return Status::invalid_input;
  // Pass 1 on copies: decide for every quaternion before touching q.
  bool ok = true;
  int changed = 0;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using J = typename Tree::template Joint<I>;
    if constexpr (J::has_quaternion) {
      Eigen::Matrix<S, 4, 1> quat = q.template segment<4>(Tree::idx_q[I] + J::nq - 4);
      bool r = false;
      ok = ok && renormalize_quaternion(quat, max_deviation, &r) == Status::ok;
      changed += r ? 1 : 0;
    }
  });
  if (!ok) return Status::invalid_input;
  if (changed > 0) {
    static_for<ModelT::nb>([&](auto i) {
      constexpr int I = decltype(i)::value;
      using J = typename Tree::template Joint<I>;
      if constexpr (J::has_quaternion) {
        auto quat = q.template segment<4>(Tree::idx_q[I] + J::nq - 4);
        (void)renormalize_quaternion(quat, max_deviation);
      }
    });
  }
  if (renormalised) *renormalised = changed;
  // q is now a valid configuration: its other entries were checked above, and a renormalised
  // quaternion is unit to rounding (debug builds check it).
  eigen_assert(check_configuration(model, q) == Status::ok);
  (void)model;
  return Status::ok;
}

/// Uniform within [lower, upper] position limits for vector joints (ranges wider than 2π
/// — including unset limits — are drawn from [−π, π]); uniform random rotation for quaternions.
template <class ModelT, class Q>
void random_configuration(const ModelT& model, Random& rng, Eigen::MatrixBase<Q>& q) {
  static_assert(detail::holds_size<Q, ModelT::nq>(),
                "talus::random_configuration: q must have nq rows (Model::ConfigVector)");
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  const double pi = 3.14159265358979323846;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using J = typename Tree::template Joint<I>;
    constexpr int iq = Tree::idx_q[I];
    constexpr int nlin = J::has_quaternion ? J::nq - 4 : J::nq;  // leading vector entries
    for (int k = 0; k < nlin; ++k) {
      double lo = static_cast<double>(model.lower_position_limit[iq + k]);
      double hi = static_cast<double>(model.upper_position_limit[iq + k]);
      if (!(hi - lo <= 2 * pi) || !(hi >= lo)) {
        lo = -pi;
        hi = pi;
      }
      q[iq + k] = S(rng.uniform(lo, hi));
    }
    if constexpr (J::has_quaternion) {
      // Shoemake's uniform random unit quaternion, stored (w, x, y, z).
      using std::cos;
      using std::sin;
      using std::sqrt;
      const double u1 = rng.uniform(), u2 = rng.uniform(), u3 = rng.uniform();
      const double a = sqrt(1 - u1), b = sqrt(u1);
      q[iq + nlin + 0] = S(b * cos(2 * pi * u3));
      q[iq + nlin + 1] = S(a * sin(2 * pi * u2));
      q[iq + nlin + 2] = S(a * cos(2 * pi * u2));
      q[iq + nlin + 3] = S(b * sin(2 * pi * u3));
    }
  });
}

}  // namespace talus
