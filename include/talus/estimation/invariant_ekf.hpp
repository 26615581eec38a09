#pragma once
/// \file invariant_ekf.hpp
/// Contact-aided invariant EKF (Hartley, Ghaffari, Eustice, Grizzle, IJRR 2020, the
/// right-invariant filter with IMU biases): the floating-base state of a legged robot from an
/// IMU and the forward kinematics of the feet that touch the ground.
///
/// **Frames and units.** World W: z up, gravity g = (0, 0, −9.81) m/s² by default (`gravity`).
/// Base B: the IMU frame (the gyroscope and accelerometer axes; a mounting rotation of the IMU
/// on the base is applied by the caller, a lever arm is not modelled). State:
///
///   R    orientation of B in W (x_W = R x_B)            v  velocity of B's origin, W axes (m/s)
///   p    position of B's origin in W (m)                d_j position of foot j in W (m), while in contact
///   b_g  gyroscope bias (rad/s)                          b_a accelerometer bias (m/s²)
///
/// The group part X = (R, v, p, d_1..d_K) is an element of SE_{2+K}(3); its error is
/// right-invariant, X = exp(ξ) X̂, ξ = (ξ_R, ξ_v, ξ_p, ξ_d1..ξ_dK) (world frame), and the bias
/// error is additive. Covariance P is over [ξ_R ξ_v ξ_p ξ_d1 … ξ_dK ζ_g ζ_a], dimension
/// 15 + 3K, K = MaxFeet, always the full size: a foot not in contact keeps its rows and columns
/// zero with 1 on the diagonal (a placeholder that couples to nothing), so every step does the
/// same work whatever the contacts.
///
/// **Propagation** (propagate: gyroscope ω̃ in rad/s, accelerometer ã in m/s² (specific force,
/// B axes, +9.81 up at rest), step dt in s), ω = ω̃ − b_g, a = ã − b_a:
///
///   R⁺ = R exp(ω dt),   v⁺ = v + (R a + g) dt,   p⁺ = p + v dt + ½ (R a + g) dt²,   d⁺ = d
///   P⁺ = Φ P Φᵀ + Φ Ad Q Adᵀ Φᵀ dt,   Φ = I + A dt   (A, Ad: Hartley 2020 §V-C; first order in dt)
///
/// with continuous noise densities Q = diag(σ_g², σ_a², 0, σ_f² per foot, σ_bg², σ_ba²) (ImuNoise).
/// **Correction** (correct): for each foot j in contact, the measured foot position in B,
/// s_j (m) with covariance Σ_j (m², B axes; the encoders' noise through the leg Jacobian plus
/// the kinematic model's error: leg_kinematics.hpp computes both), a right-invariant
/// observation Y = X⁻¹ b:
///
///   z = R̂ s_j − (d̂_j − p̂),   H = [0 0 −I … I(d_j) … 0 0],   N = R̂ Σ_j R̂ᵀ
///   S = H P Hᵀ + N,   K = P Hᵀ S⁻¹,   δ = K z,   X⁺ = exp(δ_ξ) X̂,   b⁺ = b + δ_b
///   P⁺ = (I − K H) P (I − K H)ᵀ + K N Kᵀ     (Joseph form: symmetric positive definite for any K)
///
/// one foot after the other (the feet's noises are independent, so this equals the stacked
/// update to first order, with 3×3 inverses only). **Contacts** (set_contacts): a foot that
/// lands is added as d_j = p̂ + R̂ s_j with ξ_dj = ξ_p + R̂ ε_s (Hartley's augmentation);
/// a foot that lifts is removed.
///
/// **What is observable.** With feet on the ground and gravity, the IMU and the kinematics
/// determine the velocity, the tilt (roll, pitch), the base height above the stance feet and
/// the biases (the accelerometer bias along gravity only through the tilt); yaw and the
/// horizontal position are not observable: their estimates drift (a random walk whose
/// covariance grows without bound, which is the honest answer). A controller built on this
/// estimate must use the velocity, the tilt and the position relative to the feet, never the
/// absolute yaw or horizontal position.
///
/// **Bad input** (Status, the estimate kept exactly as it was, failure() says which input):
/// a gyroscope or accelerometer sample NaN/Inf or at or beyond its range (saturated, ImuRange),
/// dt not in (0, 0.1] s, a foot index outside 0..MaxFeet−1, a foot position or covariance
/// NaN/Inf, beyond 10 m or not symmetric positive semidefinite, an innovation covariance that
/// is not positive definite (singular), or a result that is not finite (overflow). NaN never
/// enters the state. Nothing allocates; every call does a fixed amount of work.
#include <array>

#include <Eigen/Core>

#include <talus/estimation/imu_filter.hpp>
#include <talus/linalg/cholesky.hpp>
#include <talus/linalg/finite.hpp>
#include <talus/math/rotation.hpp>
#include <talus/status.hpp>

namespace talus {

/// One foot's kinematic measurement: position in the base (IMU) frame and its covariance.
template <class S>
struct FootMeasurement {
  Vector3<S> position = Vector3<S>::Zero();                  ///< s_j, B axes (m)
  Matrix3<S> covariance = Matrix3<S>::Identity() * S(1e-6);  ///< Σ_j, B axes (m²)
};

/// What the last correct() did, for a firmware's log.
template <class S, int MaxFeet>
struct EstimatorReport {
  int feet_in_contact = 0;
  /// Normalized innovation squared zᵀS⁻¹z of each foot corrected (χ²(3): mean 3, 95 % below
  /// 7.81 when the filter is consistent); 0 for a foot not corrected.
  std::array<S, MaxFeet> nis{};
  S max_nis = S(0);
};

template <class S, int MaxFeet>
class InvariantEkf : public detail::ImuFilter<S, 15 + 3 * MaxFeet, true> {
  static_assert(MaxFeet >= 1, "talus::InvariantEkf needs MaxFeet >= 1");
  using Base = detail::ImuFilter<S, 15 + 3 * MaxFeet, true>;
  using Base::ba_, Base::bg_, Base::failure_, Base::initialized_, Base::P_, Base::p_, Base::R_, Base::v_;
  using Base::check_imu, Base::fail, Base::sq, Base::succeed;

 public:
  static constexpr int max_feet = MaxFeet;
  using Base::dim, Base::iR, Base::iv, Base::ip, Base::ibg, Base::iba;
  static constexpr int id = 9;  ///< the first foot's block: foot j at id + 3 j
  using typename Base::Covariance;
  using Gain = Eigen::Matrix<S, dim, 3>;
  using Strip = Eigen::Matrix<S, 3, dim>;
  using Base::gravity, Base::noise, Base::range;

  /// Starts the estimate at (R, v, p) with zero biases and no foot in contact; P from sigma.
  Status init(const Matrix3<S>& R, const Vector3<S>& v, const Vector3<S>& p, const InitialUncertainty<S>& sigma = {}) {
    if (Status s = this->start(R, v, p, sigma); s != Status::ok) return s;
    for (int j = 0; j < MaxFeet; ++j) {
      d_[j].setZero();
      contact_[j] = false;
    }
    report_ = EstimatorReport<S, MaxFeet>{};
    return succeed();
  }

  /// One IMU step: ω̃ (rad/s) and ã (m/s², specific force), both B axes, over dt (s).
  Status propagate(const Vector3<S>& gyro, const Vector3<S>& accel, S dt) {
    if (Status s = check_imu(gyro, accel, dt); s != Status::ok) return s;
    const typename Base::Mean next = this->propagate_mean(gyro, accel, dt);
    // covariance with the state before the step (Hartley 2020, eq. 45); T keeps P for a refusal
    T_ = P_;
    apply_phi(P_, dt);  // P ← Φ P Φᵀ, in place
    add_process_noise(P_, dt);
    if (!all_finite(P_) || !next.finite()) {
      P_ = T_;
      return fail(Status::overflow, EstimatorFailureReason::overflow, -1);
    }
    mirror_upper(P_);
    this->take_mean(next);
    return succeed();
  }

  /// Which feet touch the ground now. A foot that lands is added at p̂ + R̂ s_j from its
  /// measurement; a foot that lifts is removed. feet[j] is read only for a landing foot.
  Status set_contacts(const std::array<bool, MaxFeet>& contact, const std::array<FootMeasurement<S>, MaxFeet>& feet) {
    if (!initialized_) return fail(Status::invalid_input, EstimatorFailureReason::not_initialized, -1);
    for (int j = 0; j < MaxFeet; ++j)
      if (contact[j] && !contact_[j] && !foot_valid(feet[j]))
        return fail(Status::invalid_input, EstimatorFailureReason::foot_invalid, j);
    for (int j = 0; j < MaxFeet; ++j) {
      if (contact[j] && !contact_[j]) add_foot(j, feet[j]);
      if (!contact[j] && contact_[j]) remove_foot(j);
    }
    return succeed();
  }

  /// Corrects with the kinematics of every foot in contact (feet[j] for those j).
  Status correct(const std::array<FootMeasurement<S>, MaxFeet>& feet) {
    if (!initialized_) return fail(Status::invalid_input, EstimatorFailureReason::not_initialized, -1);
    for (int j = 0; j < MaxFeet; ++j)
      if (contact_[j] && !foot_valid(feet[j]))
        return fail(Status::invalid_input, EstimatorFailureReason::foot_invalid, j);
    // work on a copy: a failure part-way keeps the estimate as it was
    State saved = state();
    saved_P_ = P_;
    EstimatorReport<S, MaxFeet> rep;
    for (int j = 0; j < MaxFeet; ++j) {
      if (!contact_[j]) continue;
      ++rep.feet_in_contact;
      const Status s = correct_foot(j, feet[j], rep.nis[j]);
      if (s != Status::ok) {
        restore(saved);
        P_ = saved_P_;
        return s;
      }
      if (rep.nis[j] > rep.max_nis) rep.max_nis = rep.nis[j];
    }
    report_ = rep;
    return succeed();
  }

  // ---- reading ------------------------------------------------------------------------
  struct State {
    Matrix3<S> R;
    Vector3<S> v, p, gyro_bias, accel_bias;
    std::array<Vector3<S>, MaxFeet> feet;
    std::array<bool, MaxFeet> contact;
  };
  State state() const { return State{R_, v_, p_, bg_, ba_, d_, contact_}; }
  const Vector3<S>& foot_position(int j) const { return d_[j >= 0 && j < MaxFeet ? j : 0]; }
  bool in_contact(int j) const { return j >= 0 && j < MaxFeet && contact_[j]; }
  const EstimatorReport<S, MaxFeet>& report() const { return report_; }

 private:
  static bool foot_valid(const FootMeasurement<S>& f) {
    return all_finite(f.position) && f.position.cwiseAbs().maxCoeff() <= S(10) &&
           detail::covariance3_valid(f.covariance);
  }

  // Every product of a covariance block is a lazyProduct (coefficient by coefficient): Eigen's
  // general matrix product, which it would pick for these sizes, references malloc for its
  // blocking buffers even when it does not call it, and firmware images must not link malloc.

  /// T ← Φ T Φᵀ in place for Φ = I + A dt (A of the right-invariant error with biases, the
  /// state before the step): Φ changes only the blocks of R, v, p and the feet in contact, each
  /// by a few 3 × 3 blocks times the blocks of R, v and the biases. Rows first (Φ T), then the
  /// same on the columns ((Φ T) Φᵀ); within each pass the blocks that others read change last
  /// (p reads v, v reads R, nothing reads p or the feet, the biases do not change).
  void apply_phi(Covariance& T, S dt) const {
    const typename Base::Phi f = this->phi(dt);
    Matrix3<S> D[MaxFeet];  // A(d_j, bg) = −d_j^ R
    for (int j = 0; j < MaxFeet; ++j) D[j] = skew<S>(d_[j]) * f.R_dt;
    this->phi_rows(T, f);
    for (int j = 0; j < MaxFeet; ++j)
      if (contact_[j])
        T.template middleRows<3>(id + 3 * j).noalias() -= D[j].lazyProduct(T.template middleRows<3>(ibg));
    this->phi_cols(T, f);
    for (int j = 0; j < MaxFeet; ++j)
      if (contact_[j])
        T.template middleCols<3>(id + 3 * j).noalias() -= T.template middleCols<3>(ibg).lazyProduct(D[j].transpose());
  }

  /// P += Φ Ad Q Adᵀ Φᵀ dt to first order in dt: Ad Q Adᵀ dt. With isotropic densities the
  /// rotations cancel (R σ² I Rᵀ = σ² I): the gyroscope's noise enters every group block
  /// through W = [I; v^; p^; d^] (a 3-column block), the others on their own diagonal. The
  /// blocks of W Wᵀ are closed forms: I x^ᵀ = −x^, x^ y^ᵀ = (x·y) I − y xᵀ. Only the blocks
  /// on and above the diagonal are added: propagate mirrors the upper triangle afterwards.
  void add_process_noise(Covariance& P, S dt) const {
    const S q = sq(noise.gyro) * dt;
    // the group blocks W touches (R, v, p, the feet in contact) and their vectors
    int at[3 + MaxFeet] = {iR, iv, ip};
    Vector3<S> x[3 + MaxFeet] = {Vector3<S>::Zero(), v_, p_};
    int n = 3;
    for (int j = 0; j < MaxFeet; ++j)
      if (contact_[j]) {
        at[n] = id + 3 * j;
        x[n] = d_[j];
        ++n;
      }
    P.template block<3, 3>(iR, iR).diagonal().array() += q;
    for (int b = 1; b < n; ++b) {
      P.template block<3, 3>(iR, at[b]) -= q * skew<S>(x[b]);
      for (int a = 1; a <= b; ++a) {
        Matrix3<S> B = -q * x[b] * x[a].transpose();
        B.diagonal().array() += q * x[a].dot(x[b]);
        P.template block<3, 3>(at[a], at[b]) += B;
      }
    }
    P.template block<3, 3>(iv, iv).diagonal().array() += sq(noise.accel) * dt;
    for (int j = 0; j < MaxFeet; ++j)
      if (contact_[j])
        P.template block<3, 3>(id + 3 * j, id + 3 * j).diagonal().array() += sq(noise.foot_velocity) * dt;
    P.template block<3, 3>(ibg, ibg).diagonal().array() += sq(noise.gyro_bias_walk) * dt;
    P.template block<3, 3>(iba, iba).diagonal().array() += sq(noise.accel_bias_walk) * dt;
  }

  void add_foot(int j, const FootMeasurement<S>& f) {
    const int k = id + 3 * j;
    d_[j] = p_ + R_ * f.position;
    // ξ_d = ξ_p + R ε_s: the new rows and columns copy p's, plus the measurement's noise
    P_.template middleRows<3>(k) = P_.template middleRows<3>(ip);
    P_.template middleCols<3>(k) = P_.template middleCols<3>(ip);
    const Matrix3<S> N = R_ * f.covariance * R_.transpose();
    P_.template block<3, 3>(k, k) = P_.template block<3, 3>(ip, ip) + S(0.5) * (N + N.transpose());
    contact_[j] = true;
  }
  void remove_foot(int j) {
    const int k = id + 3 * j;
    P_.template middleRows<3>(k).setZero();
    P_.template middleCols<3>(k).setZero();
    P_.template block<3, 3>(k, k).setIdentity();
    d_[j].setZero();
    contact_[j] = false;
  }

  Status correct_foot(int j, const FootMeasurement<S>& f, S& nis) {
    const int k = id + 3 * j;
    const Vector3<S> z = R_ * f.position - (d_[j] - p_);
    const Matrix3<S> N = R_ * f.covariance * R_.transpose();
    // P Hᵀ = P(:, d_j) − P(:, p);  H P Hᵀ from its rows
    // Cᵀ = (P Hᵀ)ᵀ = P(d_j, :) − P(p, :) (P symmetric), stored 3 × dim so that each state's
    // three entries are contiguous
    const Strip Ct = P_.template middleRows<3>(k) - P_.template middleRows<3>(ip);
    const Matrix3<S> HPHt = Ct.template middleCols<3>(k) - Ct.template middleCols<3>(ip);
    Matrix3<S> Sm = HPHt + N;
    Sm = S(0.5) * (Sm + Sm.transpose());
    Matrix3<S> L = Sm;  // S = L Lᵀ
    if (cholesky_factor(L, 3) != Status::ok) return fail(Status::singular, EstimatorFailureReason::singular, j);
    Strip Kt = Ct;
    detail::cholesky_solve_unchecked(L, 3, Kt);  // Kᵀ = S⁻¹ Cᵀ: K = P Hᵀ S⁻¹ (S symmetric)
    Vector3<S> Sinv_z = z;
    detail::cholesky_solve_unchecked(L, 3, Sinv_z);
    nis = z.dot(Sinv_z);
    const Eigen::Matrix<S, dim, 1> delta = Kt.transpose().lazyProduct(z);
    if (!joseph_update(Kt, Ct, Sm) || !all_finite(delta))
      return fail(Status::overflow, EstimatorFailureReason::overflow, j);
    apply_correction(delta);
    return Status::ok;
  }

  /// P ← (I − K H) P (I − K H)ᵀ + K N Kᵀ, the Joseph form. With C = P Hᵀ and S = H P Hᵀ + N
  /// it expands to P − K Cᵀ − C Kᵀ + K S Kᵀ = P − K Cᵀ + E Kᵀ, E = K S − C (the gain's
  /// residual, zero for the exact optimal K): valid for any K, as the product form, and 6
  /// multiply-adds per entry. The upper triangle is computed and mirrored, so P stays exactly
  /// symmetric. False if an entry is not finite (P is then part-way: the caller restores it).
  bool joseph_update(const Strip& Kt, const Strip& Ct, const Matrix3<S>& Sm) {
    const Strip Et = Sm.lazyProduct(Kt) - Ct;  // Eᵀ = S Kᵀ − Cᵀ (S symmetric)
    const S* k = Kt.data();                    // column c of a 3 × dim strip: entries 3c, 3c+1, 3c+2
    const S* cm = Ct.data();
    const S* e = Et.data();
    S finite = S(0);  // Σ (x − x): 0 when every x is finite, NaN otherwise
    for (int c = 0; c < dim; ++c) {
      const S kc0 = k[3 * c], kc1 = k[3 * c + 1], kc2 = k[3 * c + 2];
      const S cc0 = cm[3 * c], cc1 = cm[3 * c + 1], cc2 = cm[3 * c + 2];
      for (int r = 0; r <= c; ++r) {
        const S* kr = k + 3 * r;
        const S* er = e + 3 * r;
        const S x = P_(r, c) - (kr[0] * cc0 + kr[1] * cc1 + kr[2] * cc2) + (er[0] * kc0 + er[1] * kc1 + er[2] * kc2);
        P_(r, c) = x;
        P_(c, r) = x;
        finite += x - x;
      }
    }
    return finite == S(0);
  }

  /// The lower triangle from the upper one (the covariance steps compute both, in different
  /// orders; this keeps P exactly symmetric).
  static void mirror_upper(Covariance& P) {
    for (int c = 0; c < dim; ++c)
      for (int r = 0; r < c; ++r) P(c, r) = P(r, c);
  }

  /// X ← exp(δ_ξ) X, b ← b + δ_b.
  void apply_correction(const Eigen::Matrix<S, dim, 1>& delta) {
    const Vector3<S> phi = delta.template segment<3>(iR);
    const Matrix3<S> dR = rotation_exp<S>(phi), J = rotation_left_jacobian<S>(phi);
    R_ = rotation_renormalize<S>(dR * R_);
    v_ = dR * v_ + J * delta.template segment<3>(iv);
    p_ = dR * p_ + J * delta.template segment<3>(ip);
    for (int j = 0; j < MaxFeet; ++j)
      if (contact_[j]) d_[j] = dR * d_[j] + J * delta.template segment<3>(id + 3 * j);
    bg_ += delta.template segment<3>(ibg);
    ba_ += delta.template segment<3>(iba);
  }

  void restore(const State& s) {
    R_ = s.R;
    v_ = s.v;
    p_ = s.p;
    bg_ = s.gyro_bias;
    ba_ = s.accel_bias;
    d_ = s.feet;
    contact_ = s.contact;
  }

  std::array<Vector3<S>, MaxFeet> d_{};
  std::array<bool, MaxFeet> contact_{};
  Covariance T_ = Covariance::Zero(), saved_P_ = Covariance::Zero();
  EstimatorReport<S, MaxFeet> report_{};
};

}  // namespace talus
