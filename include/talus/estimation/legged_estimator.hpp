#pragma once
/// \file legged_estimator.hpp
/// The base state of a legged robot from what its firmware measures, once per control period:
/// joint encoders, joint rates, an IMU and which feet touch the ground, in; the floating
/// base's q and v for a controller (balance_controller.hpp), out. It is an invariant EKF fed
/// by the feet's kinematics and odometry (leg_kinematics.hpp), with the start-up and the
/// bookkeeping a firmware would otherwise write itself. Two filters, chosen by the template
/// argument Filter:
///   - InvariantEkf (the default): Hartley et al.'s contact-aided filter with the feet in the
///     state (covariance 15 + 3·NumFeet), corrected by the feet's positions;
///   - LegOdometryEkf: the same base filter without foot states (covariance 15), corrected by
///     each stance foot's velocity (leg odometry) and its height on flat ground; about a third
///     of the work, but it assumes flat ground for the height.
/// docs/estimation.md compares them on the same runs.
///
/// **Frames and units.** The IMU frame is the root body's frame B (a rotated IMU: rotate its
/// samples into B first; a lever arm is not modelled). The estimate's world frame W is fixed
/// at the first update: z up with the ground at z = 0, origin below the base, yaw zero. Roll
/// and pitch come from the accelerometer, the height from the feet (each foot frame at
/// Settings::foot_height above the ground). Yaw and the horizontal position are not observable
/// and drift (invariant_ekf.hpp); velocity, tilt and the height above the stance feet are.
///
/// **One update** (update(), dt = the time since the previous sample, s):
///   1. check: every input finite, the encoders inside the model's joint range (widened by
///      1e-3 rad), dt in (0, 0.1] after the first update;
///   2. the feet's positions and velocities in B and their covariances, leg_odometry (one
///      kinematic sweep);
///   3. the first update starts the filter at rest (R from the accelerometer, v = 0, the height
///      from the feet that touch; with no foot touching, it refuses); later ones propagate the
///      IMU sample over dt;
///   4. contacts: the feet whose bit is set in `touching` (switches, or the caller's own
///      detection) correct the estimate (InvariantEkf adds a foot's state when it lands and
///      removes it when it lifts; LegOdometryEkf with Settings::feet_per_update = k: only k of
///      them, in turn);
///   5. the estimate in talus's conventions: q = [p̂; quaternion of R̂; encoders], v = [ω̃ − b̂_g;
///      R̂ᵀ v̂; joint rates] (the base's ω and v in B, as joints.hpp's free flyer).
/// A refused update's time is not lost: the next accepted sample propagates over it as well,
/// and the filter's velocity and position grow less certain by what an unseen acceleration of
/// Settings::unseen_acceleration_std could have done in it. A gap between accepted samples
/// longer than Settings::max_gap (a link that was away) restarts the filter as at the first
/// update (restarts() counts them): a rest start is the best a firmware knows after such a
/// gap, and integrating the IMU over it would not be.
///
/// **Bad input.** Status invalid_input for a NaN or saturated IMU sample, an encoder or joint
/// rate NaN or out of range, dt out of range, or no foot touching at the start: the filter is
/// kept bit for bit (filter().failure() names an IMU refusal). A correction the filter refuses
/// after the IMU step (singular, overflow, a foot measurement beyond 10 m) keeps the propagated
/// estimate without the feet's correction. On any refusal q() and v() are zero until the next
/// ok update. Nothing allocates; every update does the same work (the EKF's covariance has its
/// full size whatever the contacts).
#include <array>
#include <cmath>
#include <cstdint>

#include <Eigen/Geometry>

#include <talus/estimation/invariant_ekf.hpp>
#include <talus/estimation/leg_kinematics.hpp>
#include <talus/estimation/leg_odometry_ekf.hpp>
#include <talus/math/quaternion.hpp>

namespace talus {

/// How the feet are measured and what the filter assumes (defaults: ImuNoise's BMI088).
template <class S>
struct LeggedEstimatorSettings {
  S encoder_std = S(2e-4);         ///< σ_q (rad): the encoders' quantisation step/√12 plus the drive's noise
  S model_std = S(2e-3);           ///< σ_m (m): the kinematic model's error at a foot (a round foot rolls)
  S rate_std = S(0.02);            ///< σ_q̇ (rad/s): the joint rates' noise (LegOdometryEkf's velocities)
  S model_velocity_std = S(0.01);  ///< σ_mv (m/s): a stance foot's slip (LegOdometryEkf)
  S odometry_scale_std = S(0);     ///< κ: the odometry's error per m/s of a foot's speed (LegOdometryEkf)
  S ground_std = S(5e-3);          ///< σ_ground (m): the ground's unevenness (LegOdometryEkf's height)
  S foot_height = S(0);            ///< m: a touching foot frame's height above the ground (a foot sphere's radius)
  S max_gap = S(0.1);              ///< s: a longer gap between samples restarts the filter
  /// m/s²: the base's acceleration assumed (1σ per axis) over the time of updates that were
  /// refused; the next accepted sample propagates over that time too, and the filter's velocity
  /// and position grow less certain by σ τ and σ τ²/2 for the τ it did not see.
  S unseen_acceleration_std = S(10);
  /// LegOdometryEkf only: at most this many stance feet correct the estimate per update, taken
  /// in turn (0: every stance foot, every update). It bounds the correction's work (about a
  /// quarter of a 4-foot update per foot) for a processor that cannot afford every foot every
  /// period; each foot then corrects at 1/k of the rate. InvariantEkf refuses it (its feet are
  /// state and each correction holds them all).
  int feet_per_update = 0;
  ImuNoise<S> noise{};
  ImuRange<S> range{};
  InitialUncertainty<S> initial{};
};

namespace detail {
template <class T, int N>  // N in a non-deduced context: deduced from the filter's type
using Array = std::array<T, static_cast<std::size_t>(N)>;

/// The feet's correction of each filter from the same leg odometry.
template <class S, int N>
Status correct_with_feet(InvariantEkf<S, N>& filter, const Array<bool, N>& contact,
                         const Array<FootOdometry<S>, N>& odometry) {
  Array<FootMeasurement<S>, N> feet;
  for (int k = 0; k < N; ++k) feet[k] = FootMeasurement<S>{odometry[k].position, odometry[k].position_covariance};
  if (Status s = filter.set_contacts(contact, feet); s != Status::ok) return s;
  return filter.correct(feet);
}
template <class S, int N>
Status correct_with_feet(LegOdometryEkf<S, N>& filter, const Array<bool, N>& contact,
                         const Array<FootOdometry<S>, N>& odometry) {
  return filter.correct(contact, odometry);
}
template <class S, int N>
constexpr bool takes_feet_in_turn(const InvariantEkf<S, N>*) {
  return false;
}
template <class S, int N>
constexpr bool takes_feet_in_turn(const LegOdometryEkf<S, N>*) {
  return true;
}
template <class S, int N>
void configure_ground(InvariantEkf<S, N>&, const LeggedEstimatorSettings<S>&) {}
template <class S, int N>
void configure_ground(LegOdometryEkf<S, N>& filter, const LeggedEstimatorSettings<S>& settings) {
  filter.foot_height = settings.foot_height;
  filter.ground_std = settings.ground_std;
  filter.odometry_scale_std = settings.odometry_scale_std;
}
}  // namespace detail

/// Estimator of the floating base for ModelT (root joint a free flyer) with NumFeet feet,
/// with the filter FilterT<S, NumFeet> (InvariantEkf or LegOdometryEkf: file comment).
template <class ModelT, int NumFeet, template <class, int> class FilterT = InvariantEkf>
class LeggedEstimator {
 public:
  using S = typename ModelT::Scalar;
  static constexpr int nq = ModelT::nq, nv = ModelT::nv, nj = ModelT::nv - 6;
  static_assert(nq == nv + 1, "talus::LeggedEstimator: every joint but the base has as many q as v entries");
  using Config = Eigen::Matrix<S, nq, 1>;
  using Tangent = Eigen::Matrix<S, nv, 1>;
  using Joints = Eigen::Matrix<S, nj, 1>;
  using Filter = FilterT<S, NumFeet>;
  using Feet = std::array<FootOdometry<S>, NumFeet>;

  /// Binds the model and the foot frames (foot k: contact bit k). invalid_input for an
  /// unknown foot frame, a setting out of its domain or a second init().
  Status init(const ModelT& model, const std::array<int, NumFeet>& foot_frames,
              const LeggedEstimatorSettings<S>& settings) {
    if (model_ != nullptr || !settings_valid(settings)) return Status::invalid_input;
    for (int f : foot_frames)
      if (f < 0 || f >= ModelT::nframes || model.frames[f].body < 0) return Status::invalid_input;
    model_ = &model;
    frames_ = foot_frames;
    settings_ = settings;
    filter_.noise = settings.noise;
    filter_.range = settings.range;
    filter_.gravity = model.gravity.template cast<S>();
    detail::configure_ground(filter_, settings);
    return Status::ok;
  }

  /// One period's measurements (file comment): IMU samples in B (rad/s, m/s² specific force),
  /// encoders (rad) and joint rates (rad/s) in the model's joint order, touching bit k for
  /// foot k, dt (s) since the previous call, refused or not (ignored by the first).
  Status update(const Vector3<S>& gyro, const Vector3<S>& accel, const Joints& encoders, const Joints& joint_rates,
                unsigned touching, S dt) {
    q_.setZero();
    v_.setZero();
    if (model_ == nullptr) return Status::invalid_input;
    if (!inputs_valid(encoders, joint_rates)) return Status::invalid_input;
    if (filter_.initialized() && !(dt > S(0) && std::isfinite(dt))) return Status::invalid_input;
    // the time since the last accepted IMU step: this dt and every refused update's before it
    const S span = filter_.initialized() ? unseen_ + dt : S(0);
    unseen_ = span;  // kept if this update is refused too
    const bool start = !filter_.initialized() || span > settings_.max_gap;
    if (Status s = leg_odometry(*model_, data_, encoders, joint_rates, frames_, settings_.encoder_std,
                                settings_.model_std, settings_.rate_std, settings_.model_velocity_std, feet_);
        s != Status::ok)
      return s;
    std::array<bool, NumFeet> contact;
    for (int k = 0; k < NumFeet; ++k) contact[k] = ((touching >> k) & 1u) != 0;
    if (Status s = start ? start_filter(gyro, accel, contact, feet_) : propagate_over(gyro, accel, span, dt);
        s != Status::ok)
      return s;
    unseen_ = S(0);
    gyro_ = gyro;
    if (Status s = detail::correct_with_feet(filter_, feet_this_update(contact), feet_); s != Status::ok) return s;
    write_estimate(gyro, encoders, joint_rates);
    return Status::ok;
  }

  const Config& q() const { return q_; }   ///< [p̂ (m, W); quaternion (w, x, y, z) of R̂; encoders]
  const Tangent& v() const { return v_; }  ///< [ω̂, v̂ of the base in B; joint rates]
  const Filter& filter() const { return filter_; }

  /// Each foot's height above the ground plane z = 0 (m: its foot frame's height less
  /// Settings::foot_height) and its velocity in W (m/s, v̂ + R̂ (ω̂ × s + ṡ)), from the last
  /// update's legs and the filter's state; zero before the first update. For a robot without
  /// foot switches (contact_detection.hpp).
  std::array<S, NumFeet> foot_heights() const {
    std::array<S, NumFeet> h{};
    if (!filter_.initialized()) return h;
    for (int k = 0; k < NumFeet; ++k)
      h[k] = (filter_.position() + filter_.rotation() * feet_[k].position).z() - settings_.foot_height;
    return h;
  }
  std::array<Vector3<S>, NumFeet> foot_velocities() const {
    std::array<Vector3<S>, NumFeet> v;
    for (auto& x : v) x.setZero();
    if (!filter_.initialized()) return v;
    const Vector3<S> w = gyro_ - filter_.gyro_bias();
    for (int k = 0; k < NumFeet; ++k)
      v[k] = filter_.velocity() + filter_.rotation() * (w.cross(feet_[k].position) + feet_[k].velocity);
    return v;
  }
  std::uint32_t restarts() const { return restarts_; }  ///< starts after a gap (the first start not counted)

 private:
  static bool settings_valid(const LeggedEstimatorSettings<S>& s) {
    const bool turns_valid = s.feet_per_update == 0 ||
                             (detail::takes_feet_in_turn(static_cast<const Filter*>(nullptr)) &&
                              s.feet_per_update > 0 && s.feet_per_update <= NumFeet);
    return turns_valid && s.encoder_std >= S(0) && s.encoder_std < S(1) && s.model_std >= S(0) && s.model_std < S(1) &&
           s.rate_std >= S(0) && s.rate_std < S(10) && s.model_velocity_std >= S(0) && s.model_velocity_std < S(10) &&
           s.odometry_scale_std >= S(0) && s.odometry_scale_std < S(10) && s.ground_std > S(0) && s.ground_std < S(1) &&
           s.foot_height >= S(0) && s.foot_height < S(1) && s.max_gap > S(0) && s.max_gap <= S(0.1) &&
           s.unseen_acceleration_std >= S(0) && s.unseen_acceleration_std < S(1e3);
  }

  bool inputs_valid(const Joints& encoders, const Joints& joint_rates) const {
    if (!all_finite(encoders) || !all_finite(joint_rates)) return false;
    for (int i = 0; i < nj; ++i) {
      const S lo = S(model_->lower_position_limit[7 + i]) - S(1e-3);
      const S hi = S(model_->upper_position_limit[7 + i]) + S(1e-3);
      if (!(encoders[i] >= lo && encoders[i] <= hi)) return false;
    }
    return true;
  }

  /// The stance feet that correct this update: all of them, or (settings.feet_per_update = k)
  /// the next k in turn after the last foot that corrected.
  std::array<bool, NumFeet> feet_this_update(const std::array<bool, NumFeet>& contact) {
    if (settings_.feet_per_update == 0) return contact;
    std::array<bool, NumFeet> chosen{};
    int taken = 0;
    for (int i = 0; i < NumFeet && taken < settings_.feet_per_update; ++i) {
      const int k = (next_foot_ + i) % NumFeet;
      if (!contact[k]) continue;
      chosen[k] = true;
      ++taken;
      if (taken == settings_.feet_per_update) next_foot_ = (k + 1) % NumFeet;
    }
    return chosen;
  }

  /// The IMU step over span (s), of which the sample covers dt: the time of refused updates
  /// before it is propagated with this sample and its unseen motion added to P.
  Status propagate_over(const Vector3<S>& gyro, const Vector3<S>& accel, S span, S dt) {
    if (Status s = filter_.propagate(gyro, accel, span); s != Status::ok) return s;
    const S tau = span - dt, a = settings_.unseen_acceleration_std;
    return tau > S(0) ? filter_.add_unseen_motion(a * tau, S(0.5) * a * tau * tau) : Status::ok;
  }

  /// At rest: tilt from the accelerometer, yaw 0, v = 0, the base above the touching feet.
  Status start_filter(const Vector3<S>& gyro, const Vector3<S>& accel, const std::array<bool, NumFeet>& contact,
                      const Feet& feet) {
    if (!all_finite(gyro) || !all_finite(accel) || !(accel.norm() > S(1))) return Status::invalid_input;
    const Matrix3<S> R = tilt_from_accelerometer<S>(accel);
    S below = S(0);
    int n = 0;
    for (int k = 0; k < NumFeet; ++k)
      if (contact[k]) {
        below += (R * feet[k].position).z();
        ++n;
      }
    if (n == 0) return Status::invalid_input;
    const Vector3<S> p(S(0), S(0), settings_.foot_height - below / S(n));
    const bool restart = filter_.initialized();
    if (Status s = filter_.init(R, Vector3<S>::Zero(), p, settings_.initial); s != Status::ok) return s;
    if (restart) ++restarts_;
    return Status::ok;
  }

  void write_estimate(const Vector3<S>& gyro, const Joints& encoders, const Joints& joint_rates) {
    const Eigen::Quaternion<S> quat(filter_.rotation());
    q_.template head<3>() = filter_.position();
    q_.template segment<4>(3) = quaternion_from_eigen(quat.normalized());
    q_.template tail<nj>() = encoders;
    v_.template head<3>() = gyro - filter_.gyro_bias();
    v_.template segment<3>(3) = filter_.body_velocity();
    v_.template tail<nj>() = joint_rates;
  }

  const ModelT* model_ = nullptr;
  Data<ModelT> data_;
  std::array<int, NumFeet> frames_{};
  LeggedEstimatorSettings<S> settings_{};
  Filter filter_;
  Config q_ = Config::Zero();
  Tangent v_ = Tangent::Zero();
  std::uint32_t restarts_ = 0;
  S unseen_ = S(0);                       ///< s: the time of the updates refused since the last accepted IMU step
  int next_foot_ = 0;                     ///< feet_per_update: the first foot the next update considers
  Feet feet_{};                           ///< the last update's legs (foot_heights, foot_velocities)
  Vector3<S> gyro_ = Vector3<S>::Zero();  ///< the last update's gyroscope sample
};

}  // namespace talus
