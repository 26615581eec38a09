#pragma once
/// \file leg_odometry_ekf.hpp
/// Leg-odometry invariant EKF: the right-invariant EKF of invariant_ekf.hpp (Hartley et al.,
/// IJRR 2020, with IMU biases) WITHOUT the feet in the state. The feet correct the base through
/// two measurements per stance foot: the base velocity the leg's kinematics implies (a foot in
/// contact does not move) and the foot's height on flat ground. Covariance 15 × 15 whatever the
/// number of feet (InvariantEkf: 15 + 3K), so an update costs a fraction of InvariantEkf's.
///
/// **Frames and units.** As invariant_ekf.hpp: world W z up, gravity g (`gravity`, m/s²); base
/// B the IMU frame. State X = (R, v, p) ∈ SE_2(3) (R: B in W; v, p: W axes, m/s and m) and the
/// biases b_g (rad/s), b_a (m/s²). Right-invariant error X = exp(ξ) X̂, b = b̂ + ζ; covariance
/// P over [ξ_R ξ_v ξ_p ζ_g ζ_a] (indices iR = 0, iv = 3, ip = 6, ibg = 9, iba = 12).
///
/// **Propagation** (propagate: ω̃ rad/s, ã m/s² specific force, both B axes, dt s), ω = ω̃ − b̂_g,
/// a = ã − b̂_a, exactly InvariantEkf's restricted to these blocks:
///
///   R⁺ = R exp(ω dt),   v⁺ = v + (R a + g) dt,   p⁺ = p + v dt + ½ (R a + g) dt²
///   P⁺ = Φ P Φᵀ + Ad Q Adᵀ dt,   Φ = I + A dt,   Q = diag(σ_g², σ_a², 0, σ_bg², σ_ba²)
///
/// with A's nonzero blocks A(R,bg) = −R, A(v,R) = g^, A(v,bg) = −v^ R, A(v,ba) = −R, A(p,v) = I,
/// A(p,bg) = −p^ R (Hartley 2020 §V-C). The last gyroscope sample ω̃ and dt are kept for the
/// velocity measurement.
///
/// **Correction** (correct(contact, feet)), for each foot j in contact with FootOdometry
/// s_j (position in B, m), ṡ_j (velocity relative to B in B, m/s: J_j q̇), ω_j (the foot's
/// angular velocity relative to B in B, rad/s: J_ω,j q̇), Σs_j, Σv_j:
///
/// 1. Leg-odometry velocity (3 rows). A stance foot rolls without slipping: the foot is a
///    sphere of radius r = `foot_height` centred on the foot frame, and its contact point
///    s_c = s_j − r u (u = R̂ᵀ e_z, the world's up in B) does not move:
///    0 = v + R(ω × s_c + ṡ_c) with ṡ_c = ṡ_j − ω_j × r u (r = 0: a point foot, s_c = s_j). So
///    the base's velocity in B is y_j = −(ω̃ − b̂_g) × s_c − ṡ_j + ω_j × r u, and with the true
///    bias y_true = y_j + ζ_g × s_c. Right-invariant innovation and its linearisation:
///
///      z = R̂ y_j − v̂ ≈ ξ_v + R̂ [s_c]^ ζ_g,     H = [0  I  0  R̂[s_c]^  0]
///      N = R̂ (Σv_j + κ² |ṡ_j|² I + [s_c]^ (σ_g²/dt) [s_c]^ᵀ) R̂ᵀ
///
///    N: the joint rates' noise through the leg (Σv_j), the odometry's error in proportion to
///    the leg's speed (κ = `odometry_scale_std`), and the gyroscope's discrete noise σ_g²/dt
///    through the lever arm s_c (dt of the last propagate; the same sample also drove the
///    propagation, a correlation the filter ignores). Before the first propagate after
///    init the base is taken as not rotating (ω̃ = b̂_g) and the gyroscope term is left out.
///    Left out of H and N, both of order r: u's dependence on the attitude (r |ω + ω_j| per
///    radian of tilt error) and the joint rates' noise through ω_j. Without the rolling term a
///    stance foot's frame moves at |ω + ω_j| r, and the filter took that for the base's motion
///    (docs/estimation.md).
///
/// 2. Flat-ground height (1 row). The foot frame is at height `foot_height` above the ground
///    plane z = 0 of W (LeggedEstimator's world frame): 0 = e_zᵀ(p + R s_j) − foot_height. With
///    p + R s ≈ ĉ + ξ_R × ĉ + ξ_p, ĉ = p̂ + R̂ s_j:
///
///      z = foot_height − e_zᵀ ĉ,     H = [−e_zᵀ[ĉ]^  0  e_zᵀ  0  0] = [(ĉ_y, −ĉ_x, 0)  0  e_zᵀ  0  0]
///      N = (R̂ Σs_j R̂ᵀ)_zz + σ_ground²
///
///    σ_ground (`ground_std`, default 5 mm) is the ground's unevenness and the foot's rolling
///    contact point. It is modelled as white although a real ground's error persists while the
///    foot stays: on ground that is not flat the height estimate is biased by the error, and
///    the filter is overconfident about it; raise ground_std (or leave the robot's height to
///    the controller's own feet) there.
///
///    Each update: S = H P Hᵀ + N, K = P Hᵀ S⁻¹, and the covariance in **Joseph form**
///    P⁺ = (I − K H) P (I − K H)ᵀ + K N Kᵀ, evaluated as P − K Uᵀ + (K S − U) Kᵀ with U = P Hᵀ
///    (the same expansion as InvariantEkf's; exact for any K), in place on the upper triangle
///    and mirrored (P exactly symmetric). U = P Hᵀ from H's sparsity: P(:,v) + P(:,bg)(R̂[s]^)ᵀ for the velocity, ĉ_y P(:,R_x) − ĉ_x P(:,R_y)
///    + P(:,p_z) for the height. The feet are taken one after the other (velocity, then height);
///    every measurement is linearised at the estimate before the correction and the corrections
///    accumulate, z' = z − H δ, δ ← δ + K z' (the sequential form of the stacked update), and
///    X⁺ = exp(δ_ξ) X̂, b⁺ = b̂ + δ_b once at the end.
///
/// **What is observable.** The velocity (from the feet and the gyroscope), the tilt (roll,
/// pitch: through gravity in the velocity, and through the feet's heights), the height (only
/// through the flat-ground measurement: it assumes flat ground at z = 0) and the biases as in
/// InvariantEkf. Yaw and the horizontal position are not observable: their estimates drift and
/// their variances grow without bound. Without the feet in the state this filter has no memory
/// of where a foot was: the horizontal position is integrated velocity, and a slipping foot
/// corrupts the velocity (and through it the position) only while it slips.
///
/// **Bad input** (Status, the estimate and P kept bit for bit, failure() says which input): as
/// InvariantEkf: a gyroscope or accelerometer sample NaN/Inf or at or beyond its range, dt not in
/// (0, 0.1] s, a noise setting ≤ 0 or NaN (also ground_std, and foot_height not finite or beyond
/// 10 m), a foot in contact with a position NaN/Inf or beyond 10 m, a velocity NaN/Inf or beyond
/// 10 m/s, a covariance not finite or not symmetric positive semidefinite, an innovation
/// covariance not positive definite (singular), or a result not finite (overflow). NaN never
/// enters the state. Nothing allocates (every covariance product is lazyProduct or a loop,
/// since Eigen's general product references malloc); the work per correct() is fixed per foot
/// in contact.
#include <array>
#include <cmath>
#include <limits>

#include <Eigen/Core>

#include <talus/estimation/imu_filter.hpp>
#include <talus/linalg/cholesky.hpp>
#include <talus/linalg/finite.hpp>
#include <talus/math/rotation.hpp>
#include <talus/status.hpp>

namespace talus {

/// One foot's leg-odometry measurement (leg_kinematics.hpp's leg_odometry computes it).
template <class S>
struct FootOdometry {
  Vector3<S> position = Vector3<S>::Zero();          ///< s_j, B axes (m)
  Vector3<S> velocity = Vector3<S>::Zero();          ///< ṡ_j = J_j q̇, B axes (m/s)
  Vector3<S> angular_velocity = Vector3<S>::Zero();  ///< ω_j = J_ω,j q̇: the foot relative to B, B axes (rad/s)
  Matrix3<S> position_covariance = Matrix3<S>::Identity() * S(1e-6);  ///< Σs_j, B axes (m²)
  Matrix3<S> velocity_covariance = Matrix3<S>::Identity() * S(1e-4);  ///< Σv_j, B axes (m²/s²)
};

/// What the last correct() of a LegOdometryEkf did, for a firmware's log.
template <class S, int MaxFeet>
struct LegOdometryReport {
  int feet_in_contact = 0;
  /// Normalised innovation squared of each foot's velocity measurement (χ²(3): mean 3, 95 %
  /// below 7.81 when consistent, as InvariantEkf's); 0 for a foot not corrected.
  std::array<S, MaxFeet> nis{};
  /// The same of each foot's height measurement (χ²(1): mean 1, 95 % below 3.84).
  std::array<S, MaxFeet> nis_height{};
  S max_nis = S(0);  ///< largest of nis
};

template <class S, int MaxFeet>
class LegOdometryEkf : public detail::ImuFilter<S, 15, false> {
  static_assert(MaxFeet >= 1, "talus::LegOdometryEkf needs MaxFeet >= 1");
  using Base = detail::ImuFilter<S, 15, false>;
  using Base::ba_, Base::bg_, Base::failure_, Base::initialized_, Base::P_, Base::p_, Base::R_, Base::v_;
  using Base::check_imu, Base::fail, Base::noise_valid, Base::sq, Base::succeed;

 public:
  static constexpr int max_feet = MaxFeet;
  using Base::dim, Base::iR, Base::iv, Base::ip, Base::ibg, Base::iba;  // dim 15, whatever MaxFeet
  using typename Base::Covariance;
  using Delta = Eigen::Matrix<S, dim, 1>;
  using Feet = std::array<FootOdometry<S>, MaxFeet>;
  using Contacts = std::array<bool, MaxFeet>;

  using Base::gravity, Base::noise, Base::range;  // noise.foot_velocity is not used (no foot in the state)
  S foot_height = S(0);    ///< m: a touching foot frame's height above the ground plane z = 0; the
                           ///< foot is a sphere of this radius centred on the frame (it rolls)
  S ground_std = S(5e-3);  ///< σ_ground (m): the ground's unevenness, the foot's rolling contact
  /// κ (dimensionless): the leg odometry's error per m/s of the foot's speed relative to the
  /// base, N += κ² |ṡ_j|² I (file comment, 1.): soft contact, the legs' compliance and the
  /// kinematic model's error show in proportion to how fast the legs move.
  S odometry_scale_std = S(0);

  /// Starts the estimate at (R, v, p) with zero biases; P from sigma (as InvariantEkf::init).
  Status init(const Matrix3<S>& R, const Vector3<S>& v, const Vector3<S>& p, const InitialUncertainty<S>& sigma = {}) {
    if (Status s = this->start(R, v, p, sigma); s != Status::ok) return s;
    gyro_.setZero();
    dt_ = S(0);
    report_ = LegOdometryReport<S, MaxFeet>{};
    return succeed();
  }

  /// One IMU step: ω̃ (rad/s) and ã (m/s², specific force), both B axes, over dt (s).
  Status propagate(const Vector3<S>& gyro, const Vector3<S>& accel, S dt) {
    if (Status s = check_imu(gyro, accel, dt); s != Status::ok) return s;
    const typename Base::Mean next = this->propagate_mean(gyro, accel, dt);
    saved_P_ = P_;      // the one copy: an overflow restores it
    apply_phi(P_, dt);  // Φ P Φᵀ in place, with the state before the step
    add_process_noise(P_, dt);
    symmetrize(P_);
    if (!all_finite(P_) || !next.finite()) {
      P_ = saved_P_;
      return fail(Status::overflow, EstimatorFailureReason::overflow, -1);
    }
    this->take_mean(next);
    gyro_ = gyro;
    dt_ = dt;
    return succeed();
  }

  /// Corrects with every foot j whose contact[j] is set, from feet[j] (others not read).
  Status correct(const Contacts& contact, const Feet& feet) {
    if (!initialized_) return fail(Status::invalid_input, EstimatorFailureReason::not_initialized, -1);
    if (!settings_valid()) return fail(Status::invalid_input, EstimatorFailureReason::noise_invalid, -1);
    for (int j = 0; j < MaxFeet; ++j)
      if (contact[j] && !foot_valid(feet[j]))
        return fail(Status::invalid_input, EstimatorFailureReason::foot_invalid, j);
    LegOdometryReport<S, MaxFeet> rep;
    for (int j = 0; j < MaxFeet; ++j) rep.feet_in_contact += contact[j] ? 1 : 0;
    if (rep.feet_in_contact == 0) {
      report_ = rep;
      return succeed();
    }
    saved_P_ = P_;  // the one copy: a failure part-way restores it (the state changes at the end)
    Delta delta = Delta::Zero();
    for (int j = 0; j < MaxFeet; ++j) {
      if (!contact[j]) continue;
      Status s = correct_velocity(j, feet[j], delta, rep.nis[j]);
      if (s == Status::ok) s = correct_height(j, feet[j], delta, rep.nis_height[j]);
      if (s != Status::ok) {
        P_ = saved_P_;
        return s;
      }
      if (rep.nis[j] > rep.max_nis) rep.max_nis = rep.nis[j];
    }
    // X⁺ = exp(δ_ξ) X̂, b⁺ = b̂ + δ_b
    const Vector3<S> phi = delta.template segment<3>(iR);
    const Matrix3<S> dR = rotation_exp<S>(phi), J = rotation_left_jacobian<S>(phi);
    const Matrix3<S> R_next = rotation_renormalize<S>(dR * R_);
    const Vector3<S> v_next = dR * v_ + J * delta.template segment<3>(iv);
    const Vector3<S> p_next = dR * p_ + J * delta.template segment<3>(ip);
    const Vector3<S> bg_next = bg_ + delta.template segment<3>(ibg);
    const Vector3<S> ba_next = ba_ + delta.template segment<3>(iba);
    if (!all_finite(P_) || !all_finite(R_next) || !all_finite(v_next) || !all_finite(p_next) || !all_finite(bg_next) ||
        !all_finite(ba_next)) {
      P_ = saved_P_;
      return fail(Status::overflow, EstimatorFailureReason::overflow, -1);
    }
    R_ = R_next;
    v_ = v_next;
    p_ = p_next;
    bg_ = bg_next;
    ba_ = ba_next;
    report_ = rep;
    return succeed();
  }

  // ---- the measurements' linearisation (dense, for tests and logs; correct() uses the
  // ---- same blocks sparsely) ---------------------------------------------------------------
  struct Linearization {
    Vector3<S> z_velocity;                ///< R̂ y − v̂
    Eigen::Matrix<S, 3, dim> H_velocity;  ///< [0 I 0 R̂[s_c]^ 0]
    Matrix3<S> N_velocity;                ///< R̂ (Σv + κ²|ṡ|² I + [s_c]^ σ_g²/dt [s_c]^ᵀ) R̂ᵀ
    S z_height;                           ///< foot_height − e_zᵀ(p̂ + R̂ s)
    Eigen::Matrix<S, 1, dim> H_height;    ///< [(ĉ_y, −ĉ_x, 0) 0 e_zᵀ 0 0]
    S N_height;                           ///< (R̂ Σs R̂ᵀ)_zz + σ_ground²
  };
  /// Both measurements of one foot at the current estimate (no check of f).
  Linearization linearize(const FootOdometry<S>& f) const {
    Linearization l;
    const VelocityModel m = velocity_model(f);
    l.z_velocity = m.z;
    l.H_velocity.setZero();
    l.H_velocity.template block<3, 3>(0, iv).setIdentity();
    l.H_velocity.template block<3, 3>(0, ibg) = m.B;
    l.N_velocity = m.N;
    const HeightModel h = height_model(f);
    l.z_height = h.z;
    l.H_height.setZero();
    l.H_height(0, iR) = h.c.y();
    l.H_height(0, iR + 1) = -h.c.x();
    l.H_height(0, ip + 2) = S(1);
    l.N_height = h.n;
    return l;
  }

  // ---- reading ------------------------------------------------------------------------
  struct State {
    Matrix3<S> R;
    Vector3<S> v, p, gyro_bias, accel_bias;
  };
  State state() const { return State{R_, v_, p_, bg_, ba_}; }
  const LegOdometryReport<S, MaxFeet>& report() const { return report_; }

 private:
  bool settings_valid() const {
    using std::abs;
    return noise_valid() && ground_std > S(0) && ground_std < S(1e3) && abs(foot_height) <= S(10) &&
           odometry_scale_std >= S(0) && odometry_scale_std < S(10);
  }
  static bool foot_valid(const FootOdometry<S>& f) {
    return all_finite(f.position) && f.position.cwiseAbs().maxCoeff() <= S(10) && all_finite(f.velocity) &&
           f.velocity.cwiseAbs().maxCoeff() <= S(10) && all_finite(f.angular_velocity) &&
           f.angular_velocity.cwiseAbs().maxCoeff() <= S(100) && detail::covariance3_valid(f.position_covariance) &&
           detail::covariance3_valid(f.velocity_covariance);
  }

  static void symmetrize(Covariance& P) {
    for (int c = 0; c < dim; ++c)
      for (int r = c + 1; r < dim; ++r) P(r, c) = P(c, r) = S(0.5) * (P(r, c) + P(c, r));
  }

  /// P ← (I − K H) P (I − K H)ᵀ + K N Kᵀ for a rank-Rows update, expanded with U = P Hᵀ and
  /// S = H P Hᵀ + N into P − K Uᵀ + E Kᵀ, E = K S − U (the gain's residual; as InvariantEkf's
  /// joseph_update): valid for any K. Kᵀ, Uᵀ, Eᵀ are Rows × 15 strips (each state's entries
  /// contiguous); the upper triangle is computed and mirrored, so P stays exactly symmetric.
  template <int Rows>
  void joseph_update(const Eigen::Matrix<S, Rows, dim>& Kt, const Eigen::Matrix<S, Rows, dim>& Ut,
                     const Eigen::Matrix<S, Rows, dim>& Et) {
    for (int c = 0; c < dim; ++c)
      for (int r = 0; r <= c; ++r) {
        S x = P_(r, c);
        for (int i = 0; i < Rows; ++i) x += Et(i, r) * Kt(i, c) - Kt(i, r) * Ut(i, c);
        P_(r, c) = x;
        P_(c, r) = x;
      }
  }

  /// P ← Φ P Φᵀ in place: detail::ImuFilter's rows and columns pass (this filter has no other
  /// group blocks).
  void apply_phi(Covariance& T, S dt) const {
    const typename Base::Phi f = this->phi(dt);
    this->phi_rows(T, f);
    this->phi_cols(T, f);
  }

  /// P += Ad Q Adᵀ dt: the gyroscope's noise through W = [I; v^; p^] on the 9 × 9 block of
  /// (R, v, p), the others on their own diagonals (isotropic densities: the rotations cancel).
  void add_process_noise(Covariance& P, S dt) const {
    Eigen::Matrix<S, 9, 3> W;
    W.template middleRows<3>(0).setIdentity();
    W.template middleRows<3>(3) = skew<S>(v_);
    W.template middleRows<3>(6) = skew<S>(p_);
    P.template topLeftCorner<9, 9>().noalias() += ((sq(noise.gyro) * dt) * W).lazyProduct(W.transpose());
    P.template block<3, 3>(iv, iv).diagonal().array() += sq(noise.accel) * dt;
    P.template block<3, 3>(ibg, ibg).diagonal().array() += sq(noise.gyro_bias_walk) * dt;
    P.template block<3, 3>(iba, iba).diagonal().array() += sq(noise.accel_bias_walk) * dt;
  }

  struct VelocityModel {
    Vector3<S> z;  ///< R̂ y − v̂
    Matrix3<S> B;  ///< R̂ [s_c]^: H's ζ_g block
    Matrix3<S> N;
  };
  VelocityModel velocity_model(const FootOdometry<S>& f) const {
    VelocityModel m;
    const Vector3<S> w = gyro_ - bg_;
    // the rolling sphere's contact point (file comment, 1.): s_c = s − r u, ṡ_c = ṡ − ω_j × r u
    const Vector3<S> ru = foot_height * R_.row(2).transpose();
    const Vector3<S> s_c = f.position - ru;
    const Vector3<S> y = -w.cross(s_c) - f.velocity + f.angular_velocity.cross(ru);
    m.z = R_ * y - v_;
    const Matrix3<S> sx = skew<S>(s_c);
    m.B = R_ * sx;
    Matrix3<S> Nb = f.velocity_covariance;
    Nb.diagonal().array() += sq(odometry_scale_std) * f.velocity.squaredNorm();
    if (dt_ > S(0)) Nb.noalias() += (sq(noise.gyro) / dt_) * (sx * sx.transpose());
    m.N = R_ * Nb * R_.transpose();
    return m;
  }
  struct HeightModel {
    S z;           ///< foot_height − e_zᵀ ĉ
    Vector3<S> c;  ///< ĉ = p̂ + R̂ s
    S n;
  };
  HeightModel height_model(const FootOdometry<S>& f) const {
    HeightModel h;
    h.c = p_ + R_ * f.position;
    h.z = foot_height - h.c.z();
    const Vector3<S> r3 = R_.row(2).transpose();  // (R̂ Σ R̂ᵀ)_zz = r3ᵀ Σ r3
    h.n = r3.dot(f.position_covariance * r3) + sq(ground_std);
    return h;
  }

  /// The 3-row velocity update (file comment, 1.), Joseph form in place on P_.
  Status correct_velocity(int j, const FootOdometry<S>& f, Delta& delta, S& nis) {
    const VelocityModel m = velocity_model(f);
    const Matrix3<S> Bt = m.B.transpose();
    // U = P Hᵀ = P(:, v) + P(:, bg) Bᵀ;  H U = U(v, :) + B U(bg, :)
    Eigen::Matrix<S, dim, 3> U = P_.template middleCols<3>(iv);
    U.noalias() += P_.template middleCols<3>(ibg).lazyProduct(Bt);
    Matrix3<S> Sm = U.template middleRows<3>(iv);
    Sm.noalias() += m.B.lazyProduct(U.template middleRows<3>(ibg));
    Sm += m.N;
    Sm = S(0.5) * (Sm + Sm.transpose());
    Matrix3<S> L = Sm;
    if (cholesky_factor(L, 3) != Status::ok) return fail(Status::singular, EstimatorFailureReason::singular, j);
    // S⁻¹ = L⁻ᵀ L⁻¹ from the factor's 3 × 3 inverse (cheaper than 15 triangular solves)
    Matrix3<S> Li = Matrix3<S>::Zero();
    Li(0, 0) = S(1) / L(0, 0);
    Li(1, 1) = S(1) / L(1, 1);
    Li(2, 2) = S(1) / L(2, 2);
    Li(1, 0) = -L(1, 0) * Li(0, 0) * Li(1, 1);
    Li(2, 1) = -L(2, 1) * Li(1, 1) * Li(2, 2);
    Li(2, 0) = -(L(2, 0) * Li(0, 0) + L(2, 1) * Li(1, 0)) * Li(2, 2);
    const Matrix3<S> Sinv = Li.transpose().lazyProduct(Li);
    const Eigen::Matrix<S, dim, 3> K = U.lazyProduct(Sinv);  // K = P Hᵀ S⁻¹
    // sequential innovation: z' = z − H δ
    Vector3<S> zs = m.z - delta.template segment<3>(iv);
    zs.noalias() -= m.B.lazyProduct(delta.template segment<3>(ibg));
    nis = zs.dot(Sinv.lazyProduct(zs));
    delta.noalias() += K.lazyProduct(zs);
    // Joseph (joseph_update): E = K S − U
    const Eigen::Matrix<S, 3, dim> Kt = K.transpose(), Ut = U.transpose();
    Eigen::Matrix<S, 3, dim> Et = Sm.lazyProduct(Kt);  // (K S)ᵀ, S symmetric
    Et -= Ut;
    joseph_update<3>(Kt, Ut, Et);
    if (!all_finite(delta) || !all_finite(K)) return fail(Status::overflow, EstimatorFailureReason::overflow, j);
    return Status::ok;
  }

  /// The 1-row height update (file comment, 2.), Joseph form in place on P_.
  Status correct_height(int j, const FootOdometry<S>& f, Delta& delta, S& nis) {
    const HeightModel h = height_model(f);
    const S cx = h.c.x(), cy = h.c.y();
    // u = P hᵀ = ĉ_y P(:, R_x) − ĉ_x P(:, R_y) + P(:, p_z)
    Delta u;
    for (int r = 0; r < dim; ++r) u[r] = cy * P_(r, iR) - cx * P_(r, iR + 1) + P_(r, ip + 2);
    const S s = cy * u[iR] - cx * u[iR + 1] + u[ip + 2] + h.n;
    if (!(s > S(0)) || !(s < std::numeric_limits<S>::max()))
      return fail(Status::singular, EstimatorFailureReason::singular, j);
    const Delta k = u / s;
    const S zs = h.z - (cy * delta[iR] - cx * delta[iR + 1] + delta[ip + 2]);
    nis = zs * zs / s;
    delta += k * zs;
    // Joseph (joseph_update): e = k s − u
    const Eigen::Matrix<S, 1, dim> kt = k.transpose(), ut = u.transpose();
    const Eigen::Matrix<S, 1, dim> et = s * kt - ut;
    joseph_update<1>(kt, ut, et);
    if (!all_finite(delta)) return fail(Status::overflow, EstimatorFailureReason::overflow, j);
    return Status::ok;
  }

  Vector3<S> gyro_ = Vector3<S>::Zero();  ///< ω̃ of the last propagate
  S dt_ = S(0);                           ///< dt of the last propagate (0: none since init)
  Covariance saved_P_ = Covariance::Zero();
  LegOdometryReport<S, MaxFeet> report_{};
};

}  // namespace talus
