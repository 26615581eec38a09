#pragma once
/// \file imu_filter.hpp
/// What the two legged-robot filters (invariant_ekf.hpp, leg_odometry_ekf.hpp) share: the IMU's
/// noise, range and the initial uncertainty, the failure record, the orientation at rest from
/// the accelerometer, and detail::ImuFilter, the part of the filter that does not depend on
/// the feet: the state (R, v, p, b_g, b_a) with the covariance P over its right-invariant error
/// ([ξ_R ξ_v ξ_p … ζ_g ζ_a]: the group's first three blocks first, the biases last, whatever
/// the filter puts between them), the checks of an IMU sample, the start at init and the mean's
/// propagation (Hartley et al., IJRR 2020):
///
///   R⁺ = R exp(ω dt),   v⁺ = v + (R a + g) dt,   p⁺ = p + v dt + ½ (R a + g) dt²
///
/// with ω = ω̃ − b_g, a = ã − b_a (gyroscope ω̃ rad/s and accelerometer ã m/s², specific
/// force, B axes). Frames and units: invariant_ekf.hpp.
#include <Eigen/Core>

#include <talus/linalg/finite.hpp>
#include <talus/math/rotation.hpp>
#include <talus/status.hpp>

namespace talus {

/// Continuous-time noise densities of the filter's process model. Defaults: a Bosch BMI088
/// (datasheet BST-BMI088-DS001: gyroscope 0.014 °/s/√Hz, accelerometer 175 µg/√Hz at ±3 g),
/// bias random walks and the foot's slip typical of such a part and a rubber foot (tuning
/// values, not datasheet figures: docs/estimation.md says how to set them).
template <class S>
struct ImuNoise {
  S gyro = S(2.44e-4);          ///< σ_g, rad/s/√Hz
  S accel = S(1.72e-3);         ///< σ_a, m/s²/√Hz
  S gyro_bias_walk = S(1e-5);   ///< σ_bg, rad/s²/√Hz
  S accel_bias_walk = S(1e-4);  ///< σ_ba, m/s³/√Hz
  S foot_velocity = S(2e-3);    ///< σ_f, m/s/√Hz: how fast a foot in contact may slip
};

/// Measurement ranges: a sample whose magnitude on any axis reaches the range is saturated.
/// Defaults: BMI088 at its widest settings (±2000 °/s, ±24 g).
template <class S>
struct ImuRange {
  S gyro = S(34.9);    ///< rad/s
  S accel = S(235.0);  ///< m/s²
};

/// Standard deviations of the initial estimate (init).
template <class S>
struct InitialUncertainty {
  S tilt = S(0.02);        ///< rad, roll and pitch
  S yaw = S(0.02);         ///< rad
  S velocity = S(0.05);    ///< m/s
  S position = S(0.01);    ///< m
  S gyro_bias = S(0.005);  ///< rad/s
  S accel_bias = S(0.05);  ///< m/s²
};

enum class EstimatorFailureReason : unsigned char {
  none = 0,
  not_initialized,    ///< propagate/correct before init
  gyro_invalid,       ///< NaN/Inf gyroscope sample
  gyro_saturated,     ///< |ω̃ᵢ| ≥ ImuRange::gyro
  accel_invalid,      ///< NaN/Inf accelerometer sample
  accel_saturated,    ///< |ãᵢ| ≥ ImuRange::accel
  dt_invalid,         ///< dt not in (0, 0.1] s
  foot_out_of_range,  ///< foot index not in 0..MaxFeet−1
  foot_invalid,       ///< foot position or covariance NaN/Inf, beyond 10 m, or not PSD
  initial_invalid,    ///< init: R not a rotation, a NaN, or an uncertainty ≤ 0
  noise_invalid,      ///< a noise density or range ≤ 0 or NaN
  singular,           ///< an innovation covariance not positive definite
  overflow,           ///< a result not finite (the estimate was kept)
};

constexpr const char* to_string(EstimatorFailureReason r) {
  switch (r) {
    case EstimatorFailureReason::none: return "none";
    case EstimatorFailureReason::not_initialized: return "not_initialized";
    case EstimatorFailureReason::gyro_invalid: return "gyro_invalid";
    case EstimatorFailureReason::gyro_saturated: return "gyro_saturated";
    case EstimatorFailureReason::accel_invalid: return "accel_invalid";
    case EstimatorFailureReason::accel_saturated: return "accel_saturated";
    case EstimatorFailureReason::dt_invalid: return "dt_invalid";
    case EstimatorFailureReason::foot_out_of_range: return "foot_out_of_range";
    case EstimatorFailureReason::foot_invalid: return "foot_invalid";
    case EstimatorFailureReason::initial_invalid: return "initial_invalid";
    case EstimatorFailureReason::noise_invalid: return "noise_invalid";
    case EstimatorFailureReason::singular: return "singular";
    case EstimatorFailureReason::overflow: return "overflow";
  }
  return "unknown";
}

struct EstimatorFailure {
  Status status = Status::ok;
  EstimatorFailureReason reason = EstimatorFailureReason::none;
  int foot = -1;  ///< the foot concerned, or −1
};

/// Orientation at rest from one accelerometer sample (specific force, B axes): roll and
/// pitch so that R ã points along −gravity, yaw zero. For init at start-up (both filters).
template <class S>
Matrix3<S> tilt_from_accelerometer(const Vector3<S>& accel) {
  const Vector3<S> up_b = accel.normalized();  // world z seen in B
  // the rotation taking up_b to e_z with no yaw: R = rotation about (up_b × e_z)
  const Vector3<S> ez = Vector3<S>::UnitZ();
  const Vector3<S> axis = up_b.cross(ez);
  const S s = axis.norm(), c = up_b.dot(ez);
  if (s < S(1e-12)) return c > S(0) ? Matrix3<S>::Identity() : Matrix3<S>(Vector3<S>(S(1), S(-1), S(-1)).asDiagonal());
  using std::atan2;
  return rotation_exp<S>(axis / s * atan2(s, c));
}

namespace detail {
/// A measurement's 3 × 3 covariance: finite, below 1e6, symmetric and positive semidefinite
/// (to a relative 1e-6). Shared by the estimators' foot checks.
template <class S>
bool covariance3_valid(const Matrix3<S>& C) {
  if (!all_finite(C)) return false;
  const S scale = C.cwiseAbs().maxCoeff();
  if (!(scale < S(1e6)) || (C - C.transpose()).cwiseAbs().maxCoeff() > S(1e-6) * scale) return false;
  // positive semidefinite: the leading principal minors of C + tiny·I are ≥ 0
  return C(0, 0) >= S(0) && C(1, 1) >= S(0) && C(2, 2) >= S(0) &&
         C(0, 0) * C(1, 1) - C(0, 1) * C(1, 0) >= -S(1e-6) * scale * scale &&
         C.determinant() >= -S(1e-6) * scale * scale * scale;
}
}  // namespace detail

namespace detail {
/// The filters' common part (file comment). Dim: P's dimension; FootNoise: whether
/// ImuNoise::foot_velocity is the filter's (it must then be valid too).
template <class S, int Dim, bool FootNoise>
class ImuFilter {
 public:
  static constexpr int dim = Dim;  ///< covariance dimension
  static constexpr int iR = 0, iv = 3, ip = 6, ibg = Dim - 6, iba = Dim - 3;
  using Covariance = Eigen::Matrix<S, Dim, Dim>;

  ImuNoise<S> noise;
  ImuRange<S> range;
  Vector3<S> gravity = Vector3<S>(S(0), S(0), S(-9.81));

  /// Orientation at rest from one accelerometer sample (talus::tilt_from_accelerometer).
  static Matrix3<S> tilt_from_accelerometer(const Vector3<S>& accel) {
    return talus::tilt_from_accelerometer<S>(accel);
  }

  const Matrix3<S>& rotation() const { return R_; }
  const Vector3<S>& velocity() const { return v_; }                 ///< world axes (m/s)
  Vector3<S> body_velocity() const { return R_.transpose() * v_; }  ///< B axes (m/s)
  const Vector3<S>& position() const { return p_; }
  const Vector3<S>& gyro_bias() const { return bg_; }
  const Vector3<S>& accel_bias() const { return ba_; }
  bool initialized() const { return initialized_; }
  const Covariance& covariance() const { return P_; }
  const EstimatorFailure& failure() const { return failure_; }

  /// Motion the filter did not see (IMU samples lost or refused): P's velocity and position
  /// blocks grow by velocity_std² and position_std² per axis (m/s, m; W axes). Nothing else
  /// changes; invalid_input (P kept) for a value not in [0, 1e3) or before init.
  Status add_unseen_motion(S velocity_std, S position_std) {
    if (!initialized_ ||
        !(velocity_std >= S(0) && velocity_std < S(1e3) && position_std >= S(0) && position_std < S(1e3)))
      return Status::invalid_input;
    P_.template block<3, 3>(iv, iv).diagonal().array() += sq(velocity_std);
    P_.template block<3, 3>(ip, ip).diagonal().array() += sq(position_std);
    return Status::ok;
  }

 protected:
  static S sq(S x) { return x * x; }

  /// init's common part: the state at (R, v, p) with zero biases, P diagonal from sigma (tilt
  /// and yaw in world axes: σ² of the world x, y components is the tilt's, z the yaw's), every
  /// other diagonal entry 1 (the filter's own blocks: it sets them).
  Status start(const Matrix3<S>& R, const Vector3<S>& v, const Vector3<S>& p, const InitialUncertainty<S>& sigma) {
    const bool rotation_ok = all_finite(R) &&
                             (R.transpose() * R - Matrix3<S>::Identity()).cwiseAbs().maxCoeff() <= S(1e-4) &&
                             R.determinant() > S(0);
    if (!rotation_ok || !all_finite(v) || !all_finite(p) || !uncertainty_valid(sigma))
      return fail(Status::invalid_input, EstimatorFailureReason::initial_invalid, -1);
    R_ = rotation_renormalize(R);
    v_ = v;
    p_ = p;
    bg_.setZero();
    ba_.setZero();
    P_.setIdentity();
    P_.template block<3, 3>(iR, iR) = Vector3<S>(sq(sigma.tilt), sq(sigma.tilt), sq(sigma.yaw)).asDiagonal();
    P_.template block<3, 3>(iv, iv) = Matrix3<S>::Identity() * sq(sigma.velocity);
    P_.template block<3, 3>(ip, ip) = Matrix3<S>::Identity() * sq(sigma.position);
    P_.template block<3, 3>(ibg, ibg) = Matrix3<S>::Identity() * sq(sigma.gyro_bias);
    P_.template block<3, 3>(iba, iba) = Matrix3<S>::Identity() * sq(sigma.accel_bias);
    initialized_ = true;
    return Status::ok;
  }

  bool noise_valid() const {
    const S xs[] = {noise.gyro,
                    noise.accel,
                    noise.gyro_bias_walk,
                    noise.accel_bias_walk,
                    range.gyro,
                    range.accel,
                    FootNoise ? noise.foot_velocity : S(1)};
    for (S x : xs)
      if (!(x > S(0) && x < S(1e6))) return false;
    return all_finite(gravity) && gravity.norm() < S(1e3);
  }

  /// propagate's checks, in the order failure() reports them.
  Status check_imu(const Vector3<S>& gyro, const Vector3<S>& accel, S dt) {
    if (!initialized_) return fail(Status::invalid_input, EstimatorFailureReason::not_initialized, -1);
    if (!noise_valid()) return fail(Status::invalid_input, EstimatorFailureReason::noise_invalid, -1);
    if (!all_finite(gyro)) return fail(Status::invalid_input, EstimatorFailureReason::gyro_invalid, -1);
    if (!(gyro.cwiseAbs().maxCoeff() < range.gyro))
      return fail(Status::invalid_input, EstimatorFailureReason::gyro_saturated, -1);
    if (!all_finite(accel)) return fail(Status::invalid_input, EstimatorFailureReason::accel_invalid, -1);
    if (!(accel.cwiseAbs().maxCoeff() < range.accel))
      return fail(Status::invalid_input, EstimatorFailureReason::accel_saturated, -1);
    if (!(dt > S(0) && dt <= S(0.1))) return fail(Status::invalid_input, EstimatorFailureReason::dt_invalid, -1);
    return Status::ok;
  }

  /// The mean's step (file comment) from the state before it; taken by take_mean once the
  /// covariance's step is known to be finite.
  struct Mean {
    Matrix3<S> R;
    Vector3<S> v, p;
    bool finite() const { return all_finite(R) && all_finite(v) && all_finite(p); }
  };
  Mean propagate_mean(const Vector3<S>& gyro, const Vector3<S>& accel, S dt) const {
    const Vector3<S> w = gyro - bg_, a = accel - ba_;
    const Vector3<S> world_acc = R_ * a + gravity;
    return Mean{rotation_renormalize<S>(R_ * rotation_exp<S>(w * dt)), v_ + world_acc * dt,
                p_ + v_ * dt + S(0.5) * world_acc * dt * dt};
  }
  void take_mean(const Mean& m) {
    R_ = m.R;
    v_ = m.v;
    p_ = m.p;
  }

  /// Φ = I + A dt's blocks on R, v and p (A of the right-invariant error with the biases,
  /// Hartley 2020 §V-C, at the state before the step): A(R,bg) = −R, A(v,R) = g^,
  /// A(v,bg) = −v^ R, A(v,ba) = −R, A(p,v) = I, A(p,bg) = −p^ R.
  struct Phi {
    S dt;
    Matrix3<S> R_dt, G_dt, V, Pp;  ///< R dt, g^ dt, v^ R dt, p^ R dt
  };
  Phi phi(S dt) const {
    const Matrix3<S> R_dt = R_ * dt;
    return Phi{dt, R_dt, skew<S>(gravity) * dt, skew<S>(v_) * R_dt, skew<S>(p_) * R_dt};
  }
  /// T ← Φ T on the rows of R, v and p, then T ← T Φᵀ on their columns, in place. Within each
  /// pass the blocks that others read change last (p reads v, v reads R; the biases do not
  /// change). A filter with more group blocks (InvariantEkf's feet, which read only the
  /// biases) applies its own rows between the two passes and its own columns after them.
  void phi_rows(Covariance& T, const Phi& f) const {
    T.template middleRows<3>(ip) += f.dt * T.template middleRows<3>(iv);
    T.template middleRows<3>(ip).noalias() -= f.Pp.lazyProduct(T.template middleRows<3>(ibg));
    T.template middleRows<3>(iv).noalias() += f.G_dt.lazyProduct(T.template middleRows<3>(iR));
    T.template middleRows<3>(iv).noalias() -= f.V.lazyProduct(T.template middleRows<3>(ibg));
    T.template middleRows<3>(iv).noalias() -= f.R_dt.lazyProduct(T.template middleRows<3>(iba));
    T.template middleRows<3>(iR).noalias() -= f.R_dt.lazyProduct(T.template middleRows<3>(ibg));
  }
  void phi_cols(Covariance& T, const Phi& f) const {
    T.template middleCols<3>(ip) += f.dt * T.template middleCols<3>(iv);
    T.template middleCols<3>(ip).noalias() -= T.template middleCols<3>(ibg).lazyProduct(f.Pp.transpose());
    T.template middleCols<3>(iv).noalias() += T.template middleCols<3>(iR).lazyProduct(f.G_dt.transpose());
    T.template middleCols<3>(iv).noalias() -= T.template middleCols<3>(ibg).lazyProduct(f.V.transpose());
    T.template middleCols<3>(iv).noalias() -= T.template middleCols<3>(iba).lazyProduct(f.R_dt.transpose());
    T.template middleCols<3>(iR).noalias() -= T.template middleCols<3>(ibg).lazyProduct(f.R_dt.transpose());
  }

  Status fail(Status s, EstimatorFailureReason r, int foot) {
    failure_ = EstimatorFailure{s, r, foot};
    return s;
  }
  Status succeed() {
    failure_ = EstimatorFailure{};
    return Status::ok;
  }

  Matrix3<S> R_ = Matrix3<S>::Identity();
  Vector3<S> v_ = Vector3<S>::Zero(), p_ = Vector3<S>::Zero(), bg_ = Vector3<S>::Zero(), ba_ = Vector3<S>::Zero();
  Covariance P_ = Covariance::Identity();
  EstimatorFailure failure_{};
  bool initialized_ = false;

 private:
  static bool uncertainty_valid(const InitialUncertainty<S>& u) {
    const S xs[] = {u.tilt, u.yaw, u.velocity, u.position, u.gyro_bias, u.accel_bias};
    for (S x : xs)
      if (!(x > S(0) && x < S(1e6))) return false;
    return true;
  }
};
}  // namespace detail

}  // namespace talus
