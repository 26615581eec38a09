// The contact-aided invariant EKF (talus/estimation): against analytic motions (exact
// propagation of a constant rate and a constant acceleration; a robot at rest; a synthesised
// base trajectory over fixed feet with seeded IMU and encoder noise), consistency (NEES over
// Monte Carlo runs within its χ² bounds), a foot lifting and landing, bad input keeping the
// estimate bit for bit, float, and no heap. leg_kinematics against solo12's own kinematics at
// a moved base and its covariance against finite differences.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <type_traits>

#include <talus/estimation.hpp>
#include <talus/math/quaternion.hpp>
#include <talus/models/solo12.hpp>

#include "support/alloc_trap.hpp"

namespace talus_test {
namespace {

using talus::Status;
using V3 = Eigen::Vector3d;
using M3 = Eigen::Matrix3d;
using Ekf = talus::InvariantEkf<double, 4>;
using Feet = std::array<talus::FootMeasurement<double>, 4>;
constexpr double kDt = 1e-3;
const V3 kG(0, 0, -9.81);

// IMU samples both filters refuse (their shared check, ImuFilter::check_imu), each with its
// reason: NaN or saturated gyro and accelerometer, a dt that is zero, too long or NaN.
template <class Filter, class Same>
void expect_bad_imu_refused(Filter& ekf, Same same) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    V3 gyro, acc;
    double dt;
    talus::EstimatorFailureReason why;
  };
  const Case cases[] = {
      {V3(nan, 0, 0), -kG, kDt, talus::EstimatorFailureReason::gyro_invalid},
      {V3(40, 0, 0), -kG, kDt, talus::EstimatorFailureReason::gyro_saturated},
      {V3::Zero(), V3(0, 0, nan), kDt, talus::EstimatorFailureReason::accel_invalid},
      {V3::Zero(), V3(0, 0, 235.0), kDt, talus::EstimatorFailureReason::accel_saturated},
      {V3::Zero(), -kG, 0.0, talus::EstimatorFailureReason::dt_invalid},
      {V3::Zero(), -kG, 0.2, talus::EstimatorFailureReason::dt_invalid},
      {V3::Zero(), -kG, nan, talus::EstimatorFailureReason::dt_invalid},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ekf.propagate(c.gyro, c.acc, c.dt), Status::invalid_input);
    EXPECT_EQ(ekf.failure().reason, c.why);
    EXPECT_TRUE(same(ekf)) << talus::to_string(c.why);
  }
}

/// The true motion: base rotating about a fixed axis and moving on a smooth path over four
/// feet fixed in the world; IMU and foot measurements synthesised from it.
struct Truth {
  V3 axis = V3(1.0, 0.5, 0.3).normalized();
  double amp_rot = 0.15, amp_x = 0.03, amp_z = 0.02, w = 2 * M_PI * 0.7;
  std::array<V3, 4> d{V3(0.2, 0.15, 0), V3(0.2, -0.15, 0), V3(-0.2, 0.15, 0), V3(-0.2, -0.15, 0)};
  double h = 0.25;
  double theta(double t) const { return amp_rot * std::sin(w * t); }
  M3 R(double t) const { return talus::rotation_exp<double>(axis * theta(t)); }
  V3 omega(double t) const { return axis * amp_rot * w * std::cos(w * t); }  // world = body (fixed axis)
  V3 p(double t) const { return V3(amp_x * std::sin(w * t), 0.01 * t, h + amp_z * std::sin(2 * w * t)); }
  V3 v(double t) const { return V3(amp_x * w * std::cos(w * t), 0.01, 2 * w * amp_z * std::cos(2 * w * t)); }
  V3 a(double t) const { return V3(-amp_x * w * w * std::sin(w * t), 0, -4 * w * w * amp_z * std::sin(2 * w * t)); }
  V3 specific_force(double t) const { return R(t).transpose() * (a(t) - kG); }
  V3 foot_in_base(int j, double t) const { return R(t).transpose() * (d[j] - p(t)); }
};

struct Noise {
  double gyro = 2.44e-4, accel = 1.72e-3, foot = 1e-3;  // densities (per √Hz) and foot σ (m)
  V3 bias_g = V3::Zero(), bias_a = V3::Zero();
};

Feet measure_feet(const Truth& T, double t, double sigma, std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Feet f;
  for (int j = 0; j < 4; ++j) {
    f[j].position = T.foot_in_base(j, t) + sigma * V3(n(rng), n(rng), n(rng));
    f[j].covariance = M3::Identity() * sigma * sigma;
  }
  return f;
}

double tilt_error_deg(const M3& R, const M3& R_hat) {
  // angle between the estimated and the true world z seen in the base
  const V3 z = R.transpose().col(2), z_hat = R_hat.transpose().col(2);
  return std::atan2(z.cross(z_hat).norm(), z.dot(z_hat)) * 180 / M_PI;
}

struct RunResult {
  double v_rms = 0, tilt_max = 0, height_max = 0, nees_mean = 0;
  int steps = 0;
};

/// Runs the filter over T seconds of the true motion; NEES over (ξ_R, ξ_v, ξ_p) each step.
RunResult run(const Truth& T, const Noise& N, double seconds, unsigned seed, bool lift_foot = false) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  Ekf ekf;
  ekf.noise.gyro = N.gyro;
  ekf.noise.accel = N.accel;
  talus::InitialUncertainty<double> u;
  // start from an estimate drawn from the initial covariance, as the filter assumes
  const V3 dphi(u.tilt * n(rng), u.tilt * n(rng), u.yaw * n(rng));
  const M3 R0 = talus::rotation_exp<double>(dphi) * T.R(0);
  const V3 v0 = T.v(0) + u.velocity * V3(n(rng), n(rng), n(rng));
  const V3 p0 = T.p(0) + u.position * V3(n(rng), n(rng), n(rng));
  EXPECT_EQ(ekf.init(R0, v0, p0, u), Status::ok);
  std::array<bool, 4> contact{true, true, true, true};
  EXPECT_EQ(ekf.set_contacts(contact, measure_feet(T, 0, N.foot, rng)), Status::ok);
  RunResult r;
  double v_sq = 0, nees = 0;
  const int steps = static_cast<int>(seconds / kDt);
  const double sg = N.gyro / std::sqrt(kDt), sa = N.accel / std::sqrt(kDt);
  for (int k = 0; k < steps; ++k) {
    const double t = k * kDt;
    const V3 gyro = T.omega(t) + N.bias_g + sg * V3(n(rng), n(rng), n(rng));
    const V3 acc = T.specific_force(t) + N.bias_a + sa * V3(n(rng), n(rng), n(rng));
    EXPECT_EQ(ekf.propagate(gyro, acc, kDt), Status::ok);
    const double t1 = t + kDt;
    if (lift_foot) {  // foot 0 in the air for 0.3 s from 0.5 s (the truth keeps it where it was)
      contact[0] = !(t1 >= 0.5 && t1 < 0.8);
      EXPECT_EQ(ekf.set_contacts(contact, measure_feet(T, t1, N.foot, rng)), Status::ok);
    }
    EXPECT_EQ(ekf.correct(measure_feet(T, t1, N.foot, rng)), Status::ok) << talus::to_string(ekf.failure().reason);
    // right-invariant error: η = X X̂⁻¹, ξ_R = log(R R̂ᵀ), ξ_v = v − ΔR v̂, ξ_p = p − ΔR p̂
    const M3 dR = T.R(t1) * ekf.rotation().transpose();
    const Eigen::AngleAxisd aa(dR);
    Eigen::Matrix<double, 9, 1> xi;
    xi << aa.angle() * aa.axis(), T.v(t1) - dR * ekf.velocity(), T.p(t1) - dR * ekf.position();
    Eigen::Matrix<double, 9, 9> P = ekf.covariance().topLeftCorner<9, 9>();
    nees += xi.dot(P.ldlt().solve(xi));
    v_sq += (T.v(t1) - ekf.velocity()).squaredNorm();
    if (t1 > 0.5) r.tilt_max = std::max(r.tilt_max, tilt_error_deg(T.R(t1), ekf.rotation()));  // after the start
    // height of the base above the stance feet (mean foot height): relative, observable
    double foot_z = 0;
    int stance = 0;
    for (int j = 0; j < 4; ++j)
      if (ekf.in_contact(j)) {
        foot_z += ekf.foot_position(j).z();
        ++stance;
      }
    const double h_hat = ekf.position().z() - foot_z / stance;  // the true feet are at z = 0
    if (t1 > 0.2) r.height_max = std::max(r.height_max, std::abs(h_hat - T.p(t1).z()));
  }
  r.steps = steps;
  r.v_rms = std::sqrt(v_sq / steps);
  r.nees_mean = nees / steps;
  return r;
}

TEST(ConsistencyEstimation, ConstantRateAndAccelerationPropagateExactly) {
  // no contact, no noise: R = R0 exp(ω t), v = v0 + a t, p = p0 + v0 t + ½ a t² (analytic)
  Ekf ekf;
  const M3 R0 = talus::rotation_exp<double>(V3(0.1, -0.2, 0.3));
  ASSERT_EQ(ekf.init(R0, V3(0.1, 0, 0), V3(0, 0, 1)), Status::ok);
  const V3 w(0.3, -0.2, 0.5), a_world(0.2, 0.1, -0.3);
  for (int k = 0; k < 1000; ++k) {
    const V3 acc = ekf.rotation().transpose() * (a_world - kG);  // the specific force at the estimate
    ASSERT_EQ(ekf.propagate(w, acc, kDt), Status::ok);
  }
  const double t = 1.0;
  EXPECT_LT((ekf.rotation() - R0 * talus::rotation_exp<double>(w * t)).norm(), 1e-12);
  EXPECT_LT((ekf.velocity() - (V3(0.1, 0, 0) + a_world * t)).norm(), 1e-12);
  EXPECT_LT((ekf.position() - (V3(0, 0, 1) + V3(0.1, 0, 0) * t + 0.5 * a_world * t * t)).norm(), 1e-12);
  // without contacts the covariance of v and p only grows
  EXPECT_GT(ekf.covariance()(3, 3), 0.05 * 0.05);
}

TEST(ConsistencyEstimation, RestTiltFromAccelerometerAndZeroVelocity) {
  // A robot at rest, tilted 10° about x; the filter starts level with a 0.2 m/s velocity error.
  Truth T;
  T.amp_rot = T.amp_x = T.amp_z = 0;
  const M3 R_true = talus::rotation_exp<double>(V3(10 * M_PI / 180, 0, 0));
  const V3 acc = R_true.transpose() * (-kG);
  const M3 R_acc = Ekf::tilt_from_accelerometer(acc);
  EXPECT_LT(tilt_error_deg(R_true, R_acc), 1e-10);
  Ekf ekf;
  talus::InitialUncertainty<double> u;
  u.tilt = 0.3;
  u.velocity = 0.3;
  ASSERT_EQ(ekf.init(M3::Identity(), V3(0.2, 0, 0), V3(0, 0, 0.25), u), Status::ok);
  Feet f;
  for (int j = 0; j < 4; ++j) {
    f[j].position = R_true.transpose() * (T.d[j] - V3(0, 0, 0.25));
    f[j].covariance = M3::Identity() * 1e-6;
  }
  ASSERT_EQ(ekf.set_contacts({true, true, true, true}, f), Status::ok);
  for (int k = 0; k < 2000; ++k) {
    ASSERT_EQ(ekf.propagate(V3::Zero(), acc, kDt), Status::ok);
    ASSERT_EQ(ekf.correct(f), Status::ok);
  }
  EXPECT_LT(ekf.velocity().norm(), 1e-3);
  EXPECT_LT(tilt_error_deg(R_true, ekf.rotation()), 0.05);
  EXPECT_LT(ekf.report().max_nis, 1.0);  // noise-free data: innovations far inside χ²(3)
}

TEST(ConsistencyEstimation, SynthesisedTrajectoryWithDatasheetNoise) {
  // Issue goals on a synthesised walk-like motion: v RMS ≤ 0.03 m/s, tilt ≤ 0.5°, height ≤ 5 mm.
  Truth T;
  Noise N;
  N.bias_g = V3(0.002, -0.001, 0.003);
  N.bias_a = V3(0.02, -0.03, 0.01);
  const RunResult r = run(T, N, 3.0, 7);
  std::printf("synthesised run, 3 s: v RMS %.4f m/s, tilt max %.3f deg (after 0.5 s), height max %.2f mm\n", r.v_rms,
              r.tilt_max, 1e3 * r.height_max);
  EXPECT_LT(r.v_rms, 0.03);
  EXPECT_LT(r.tilt_max, 0.5);
  EXPECT_LT(r.height_max, 0.005);
}

TEST(ConsistencyEstimation, NeesWithinChiSquareBounds) {
  // 20 Monte Carlo runs, 1 s each, no bias (the filter's model): the time-averaged NEES of
  // (ξ_R, ξ_v, ξ_p) averaged over runs; for 9 dof and 20 runs its 99 % bounds on the mean of
  // independent samples are about [7.1, 11.1]; consecutive steps are correlated, so the
  // averaged mean is checked against a wider [5, 14].
  Truth T;
  Noise N;
  double mean = 0;
  const int runs = 20;
  for (int i = 0; i < runs; ++i) mean += run(T, N, 1.0, 100 + i).nees_mean / runs;
  std::printf("NEES of (xi_R, xi_v, xi_p), 9 dof, mean over %d runs: %.2f\n", runs, mean);
  EXPECT_GT(mean, 5.0);
  EXPECT_LT(mean, 14.0);
}

TEST(ConsistencyEstimation, FootLiftsAndLands) {
  Truth T;
  Noise N;
  const RunResult r = run(T, N, 1.5, 11, true);
  EXPECT_LT(r.v_rms, 0.03);
  EXPECT_LT(r.tilt_max, 0.5);
}

TEST(ConsistencyEstimation, CovarianceStaysSymmetricPositiveDefinite) {
  Truth T;
  Noise N;
  Ekf ekf;
  std::mt19937_64 rng(3);
  ASSERT_EQ(ekf.init(T.R(0), T.v(0), T.p(0)), Status::ok);
  ASSERT_EQ(ekf.set_contacts({true, true, false, true}, measure_feet(T, 0, N.foot, rng)), Status::ok);
  for (int k = 0; k < 500; ++k) {
    ASSERT_EQ(ekf.propagate(T.omega(k * kDt), T.specific_force(k * kDt), kDt), Status::ok);
    ASSERT_EQ(ekf.correct(measure_feet(T, (k + 1) * kDt, N.foot, rng)), Status::ok);
  }
  const Ekf::Covariance& P = ekf.covariance();
  EXPECT_EQ((P - P.transpose()).cwiseAbs().maxCoeff(), 0.0);
  Eigen::SelfAdjointEigenSolver<Ekf::Covariance> es(P);
  EXPECT_GT(es.eigenvalues().minCoeff(), 0.0);
  // yaw and horizontal position are unobservable: their variance only grows from init
  EXPECT_GT(P(2, 2), 0.02 * 0.02 * 0.99);
}

// The covariance step against the dense formula: P⁺ = Φ P Φᵀ with Φ = I + A dt built entry by
// entry from Hartley et al. 2020 (§V-C), on a covariance with every coupling filled in by
// corrections (the filter's own noise made negligible so that only Φ acts), and the Joseph
// correction against the textbook P − K S Kᵀ it equals for the optimal gain.
TEST(ConsistencyEstimation, CovarianceStepsMatchTheDenseFormulas) {
  Truth T;
  Noise N;
  Ekf ekf;
  std::mt19937_64 rng(11);
  ASSERT_EQ(ekf.init(T.R(0), T.v(0), T.p(0)), Status::ok);
  ASSERT_EQ(ekf.set_contacts({true, false, true, true}, measure_feet(T, 0, N.foot, rng)), Status::ok);
  for (int k = 0; k < 50; ++k) {
    ASSERT_EQ(ekf.propagate(T.omega(k * kDt), T.specific_force(k * kDt), kDt), Status::ok);
    ASSERT_EQ(ekf.correct(measure_feet(T, (k + 1) * kDt, N.foot, rng)), Status::ok);
  }
  ekf.noise.gyro = ekf.noise.accel = ekf.noise.gyro_bias_walk = ekf.noise.accel_bias_walk = 1e-12;
  ekf.noise.foot_velocity = 1e-12;
  const Ekf::Covariance P0 = ekf.covariance();
  const auto s = ekf.state();
  const double dt = 2e-3;
  const V3 gyro(0.3, -0.2, 0.1), accel(0.5, 0.2, 9.7);
  const Ekf noisy = ekf;  // the same step again below, with the process noise on
  ASSERT_EQ(ekf.propagate(gyro, accel, dt), Status::ok);
  Ekf::Covariance Phi = Ekf::Covariance::Identity();
  const M3 Rdt = s.R * dt;
  Phi.block<3, 3>(Ekf::iR, Ekf::ibg) = -Rdt;
  Phi.block<3, 3>(Ekf::iv, Ekf::iR) = talus::skew<double>(kG) * dt;
  Phi.block<3, 3>(Ekf::iv, Ekf::ibg) = -talus::skew<double>(s.v) * Rdt;
  Phi.block<3, 3>(Ekf::iv, Ekf::iba) = -Rdt;
  Phi.block<3, 3>(Ekf::ip, Ekf::iv) = M3::Identity() * dt;
  Phi.block<3, 3>(Ekf::ip, Ekf::ibg) = -talus::skew<double>(s.p) * Rdt;
  for (int j = 0; j < 4; ++j)
    if (s.contact[j]) Phi.block<3, 3>(Ekf::id + 3 * j, Ekf::ibg) = -talus::skew<double>(s.feet[j]) * Rdt;
  const Ekf::Covariance expected = Phi * P0 * Phi.transpose();
  EXPECT_LT((ekf.covariance() - expected).cwiseAbs().maxCoeff(), 1e-12 * expected.cwiseAbs().maxCoeff());

  // The process noise, dense (Hartley 2020 §V-C, first order in dt): Φ P Φᵀ + Ad Q Adᵀ dt with
  // the gyroscope's density through W = [I; v^; p^; d^ of the feet in contact] (world axes).
  Ekf with_noise = noisy;
  with_noise.noise = talus::ImuNoise<double>{};
  with_noise.noise.gyro = 0.3;  // large enough that W Wᵀ dominates the test's tolerance
  ASSERT_EQ(with_noise.propagate(gyro, accel, dt), Status::ok);
  const talus::ImuNoise<double>& q = with_noise.noise;
  Eigen::Matrix<double, Ekf::dim, 3> W = Eigen::Matrix<double, Ekf::dim, 3>::Zero();
  W.block<3, 3>(Ekf::iR, 0).setIdentity();
  W.block<3, 3>(Ekf::iv, 0) = talus::skew<double>(s.v);
  W.block<3, 3>(Ekf::ip, 0) = talus::skew<double>(s.p);
  for (int j = 0; j < 4; ++j)
    if (s.contact[j]) W.block<3, 3>(Ekf::id + 3 * j, 0) = talus::skew<double>(s.feet[j]);
  Ekf::Covariance Q = q.gyro * q.gyro * dt * W * W.transpose();
  Q.block<3, 3>(Ekf::iv, Ekf::iv).diagonal().array() += q.accel * q.accel * dt;
  for (int j = 0; j < 4; ++j)
    if (s.contact[j])
      Q.block<3, 3>(Ekf::id + 3 * j, Ekf::id + 3 * j).diagonal().array() += q.foot_velocity * q.foot_velocity * dt;
  Q.block<3, 3>(Ekf::ibg, Ekf::ibg).diagonal().array() += q.gyro_bias_walk * q.gyro_bias_walk * dt;
  Q.block<3, 3>(Ekf::iba, Ekf::iba).diagonal().array() += q.accel_bias_walk * q.accel_bias_walk * dt;
  const Ekf::Covariance expected_noisy = Phi * P0 * Phi.transpose() + Q;
  EXPECT_LT((with_noise.covariance() - expected_noisy).cwiseAbs().maxCoeff(),
            1e-12 * expected_noisy.cwiseAbs().maxCoeff());
  EXPECT_GT((Q - Q.diagonal().asDiagonal().toDenseMatrix()).cwiseAbs().maxCoeff(),
            1e-9 * expected_noisy.cwiseAbs().maxCoeff());  // the off-diagonal blocks are tested

  // One foot's correction: Joseph's result equals P − K S Kᵀ (the optimal gain).
  Ekf one;
  ASSERT_EQ(one.init(T.R(0), T.v(0), T.p(0)), Status::ok);
  Feet f = measure_feet(T, 0, N.foot, rng);
  ASSERT_EQ(one.set_contacts({true, false, false, false}, f), Status::ok);
  ASSERT_EQ(one.propagate(T.omega(0), T.specific_force(0), kDt), Status::ok);
  const Ekf::Covariance P1 = one.covariance();
  const M3 R1 = one.rotation();
  Eigen::Matrix<double, 3, Ekf::dim> H = Eigen::Matrix<double, 3, Ekf::dim>::Zero();
  H.block<3, 3>(0, Ekf::ip) = -M3::Identity();
  H.block<3, 3>(0, Ekf::id) = M3::Identity();
  const M3 Nw = R1 * f[0].covariance * R1.transpose();
  const M3 Sm = H * P1 * H.transpose() + Nw;
  const Eigen::Matrix<double, Ekf::dim, 3> K = P1 * H.transpose() * Sm.inverse();
  const Ekf::Covariance textbook = P1 - K * Sm * K.transpose();
  f = measure_feet(T, kDt, N.foot, rng);
  ASSERT_EQ(one.correct(f), Status::ok);
  EXPECT_LT((one.covariance() - textbook).cwiseAbs().maxCoeff(), 1e-10 * textbook.cwiseAbs().maxCoeff());
}

TEST(ReliabilityEstimation, BadInputKeepsTheEstimate) {
  Truth T;
  Ekf ekf;
  ASSERT_EQ(ekf.propagate(V3::Zero(), -kG, kDt), Status::invalid_input);
  EXPECT_EQ(ekf.failure().reason, talus::EstimatorFailureReason::not_initialized);
  ASSERT_EQ(ekf.init(T.R(0), T.v(0), T.p(0)), Status::ok);
  std::mt19937_64 rng(5);
  ASSERT_EQ(ekf.set_contacts({true, true, true, true}, measure_feet(T, 0, 1e-3, rng)), Status::ok);
  ASSERT_EQ(ekf.propagate(T.omega(0), T.specific_force(0), kDt), Status::ok);
  const Ekf before = ekf;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_bad_imu_refused(ekf, [&](const Ekf& a) {
    return a.rotation() == before.rotation() && a.velocity() == before.velocity() &&
           a.position() == before.position() && a.gyro_bias() == before.gyro_bias() &&
           a.covariance() == before.covariance();
  });
  Feet bad = measure_feet(T, kDt, 1e-3, rng);
  bad[2].position.x() = nan;
  EXPECT_EQ(ekf.correct(bad), Status::invalid_input);
  EXPECT_EQ(ekf.failure().reason, talus::EstimatorFailureReason::foot_invalid);
  EXPECT_EQ(ekf.failure().foot, 2);
  bad = measure_feet(T, kDt, 1e-3, rng);
  bad[1].covariance(0, 0) = -1;
  EXPECT_EQ(ekf.correct(bad), Status::invalid_input);
  EXPECT_EQ(ekf.failure().foot, 1);
  EXPECT_TRUE(ekf.position() == before.position() && ekf.covariance() == before.covariance());
  EXPECT_EQ(ekf.init(M3::Identity() * 2, V3::Zero(), V3::Zero()), Status::invalid_input);
  EXPECT_EQ(ekf.failure().reason, talus::EstimatorFailureReason::initial_invalid);
  ekf.noise.gyro = -1;
  EXPECT_EQ(ekf.propagate(V3::Zero(), -kG, kDt), Status::invalid_input);
  EXPECT_EQ(ekf.failure().reason, talus::EstimatorFailureReason::noise_invalid);
}

TEST(ConsistencyEstimation, FloatMatchesDouble) {
  // the same rest case in float: tilt and velocity within float's accuracy of the double run
  talus::InvariantEkf<float, 4> ekf;
  const Eigen::Matrix3f R_true = talus::rotation_exp<float>(Eigen::Vector3f(0.1f, -0.05f, 0));
  const Eigen::Vector3f acc = R_true.transpose() * Eigen::Vector3f(0, 0, 9.81f);
  talus::InitialUncertainty<float> u;
  u.tilt = 0.3f;
  u.velocity = 0.3f;
  ASSERT_EQ(ekf.init(Eigen::Matrix3f::Identity(), Eigen::Vector3f(0.1f, 0, 0), Eigen::Vector3f(0, 0, 0.25f), u),
            Status::ok);
  std::array<talus::FootMeasurement<float>, 4> f;
  const float dx[4] = {0.2f, 0.2f, -0.2f, -0.2f}, dy[4] = {0.15f, -0.15f, 0.15f, -0.15f};
  for (int j = 0; j < 4; ++j) {
    f[j].position = R_true.transpose() * Eigen::Vector3f(dx[j], dy[j], -0.25f);
    f[j].covariance = Eigen::Matrix3f::Identity() * 1e-6f;
  }
  ASSERT_EQ(ekf.set_contacts({true, true, true, true}, f), Status::ok);
  for (int k = 0; k < 2000; ++k) {
    ASSERT_EQ(ekf.propagate(Eigen::Vector3f::Zero(), acc, 1e-3f), Status::ok);
    ASSERT_EQ(ekf.correct(f), Status::ok);
  }
  EXPECT_LT(ekf.velocity().norm(), 2e-3f);
  EXPECT_LT(tilt_error_deg(R_true.cast<double>(), ekf.rotation().cast<double>()), 0.1);
}

namespace solo = talus::models::solo12;

TEST(ConsistencyEstimation, LegKinematicsMatchesSolo12AtAMovedBase) {
  const auto model = solo::make_model<double>();
  talus::Data<solo::Model<double>> data;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  talus::JointPositions<solo::Model<double>> qj;
  for (int i = 0; i < qj.size(); ++i) qj[i] = u(rng);
  const std::array<int, 4> frames{solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                                  solo::frame_id("HR_FOOT")};
  Feet feet;
  ASSERT_EQ(talus::leg_kinematics(model, data, qj, frames, 1e-3, 0.0, feet), Status::ok);
  // the same feet with the base somewhere else: R_bᵀ (p_foot − p_b)
  solo::Model<double>::ConfigVector q;
  const Eigen::Vector4d quat = talus::quaternion_exp<double>(V3(0.3, -0.2, 1.1));
  q << 0.4, -0.3, 0.5, quat, qj;
  ASSERT_EQ(talus::forward_kinematics(model, data, q), Status::ok);
  const talus::Transform<double> base = data.oMi[0];  // body 0: the free flyer's
  for (int j = 0; j < 4; ++j) {
    talus::Transform<double> oMf;
    ASSERT_EQ(talus::frame_placement(model, data, frames[j], oMf), Status::ok);
    EXPECT_LT((base.R.transpose() * (oMf.p - base.p) - feet[j].position).norm(), 1e-12);
  }
  // covariance σ² J Jᵀ against finite differences of s_j
  for (int j = 0; j < 4; ++j) {
    Eigen::Matrix<double, 3, 12> Jfd;
    for (int i = 0; i < 12; ++i) {
      auto qp = qj, qm = qj;
      qp[i] += 1e-6;
      qm[i] -= 1e-6;
      Feet fp, fm;
      ASSERT_EQ(talus::leg_kinematics(model, data, qp, frames, 0.0, 0.0, fp), Status::ok);
      ASSERT_EQ(talus::leg_kinematics(model, data, qm, frames, 0.0, 0.0, fm), Status::ok);
      Jfd.col(i) = (fp[j].position - fm[j].position) / 2e-6;
    }
    EXPECT_LT((feet[j].covariance - 1e-6 * Jfd * Jfd.transpose()).cwiseAbs().maxCoeff(), 1e-12);
  }
  std::array<int, 4> bad = frames;
  bad[3] = -1;
  EXPECT_EQ(talus::leg_kinematics(model, data, qj, bad, 1e-3, 0.0, feet), Status::invalid_input);
  EXPECT_EQ(feet[0].position, V3::Zero());
}

TEST(AllocEstimation, NoHeapInAStep) {
  const auto model = solo::make_model<double>();
  talus::Data<solo::Model<double>> data;
  talus::JointPositions<solo::Model<double>> qj;
  qj << 0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6;
  const std::array<int, 4> frames{solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                                  solo::frame_id("HR_FOOT")};
  auto ekf = std::make_unique<Ekf>();
  ASSERT_EQ(ekf->init(M3::Identity(), V3::Zero(), V3(0, 0, 0.25)), Status::ok);
  Feet feet;
  Status s1 = Status::ok, s2 = Status::ok, s3 = Status::ok, s4 = Status::ok;
  const std::size_t calls = heap_calls([&] {
    s1 = talus::leg_kinematics(model, data, qj, frames, 1e-3, 1e-3, feet);
    s2 = ekf->set_contacts({true, true, true, true}, feet);
    s3 = ekf->propagate(V3(0.01, 0, 0), V3(0, 0, 9.81), kDt);
    s4 = ekf->correct(feet);
  });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(s1, Status::ok);
  EXPECT_EQ(s2, Status::ok);
  EXPECT_EQ(s3, Status::ok);
  EXPECT_EQ(s4, Status::ok);
}

// ---- LeggedEstimator: the firmware's whole update (legged_estimator.hpp) -------------------

template <class S, template <class, int> class Filter = talus::InvariantEkf>
struct StandingSolo12 {
  using Model = solo::Model<S>;
  using Est = talus::LeggedEstimator<Model, 4, Filter>;
  Model model = solo::make_model<S>();
  std::array<int, 4> frames{solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                            solo::frame_id("HR_FOOT")};
  typename Est::Joints joints;
  // Tilted and yawed. LegOdometryEkf's height measurement holds every stance foot on flat
  // ground, which a tilted base over the symmetric standing posture would contradict (its
  // feet are not level then): for it the base is yawed only, so the four feet are level.
  static constexpr bool flat_ground = std::is_same<Filter<S, 4>, talus::LegOdometryEkf<S, 4>>::value;
  M3 R0 = talus::rotation_exp<double>(flat_ground ? V3(0, 0, 0.2) : V3(0.04, -0.03, 0.2));
  double height = 0;  // base above the ground (m)
  static constexpr double foot_height = 0.01;
  StandingSolo12() {
    joints << S(0.1), S(0.8), S(-1.6), S(-0.1), S(0.8), S(-1.6), S(0.1), S(-0.8), S(1.6), S(-0.1), S(-0.8), S(1.6);
    // The truth through forward_kinematics with the base at R0: its height puts the feet's
    // mean at foot_height above the ground.
    const auto model_d = solo::make_model<double>();
    talus::Data<solo::Model<double>> data;
    solo::Model<double>::ConfigVector q;
    q << 0, 0, 0, talus::quaternion_from_eigen(Eigen::Quaterniond(R0)), joints.template cast<double>();
    EXPECT_EQ(talus::forward_kinematics(model_d, data, q), Status::ok);
    double mean_z = 0;
    for (int f : frames) {
      talus::Transform<double> oMf;
      EXPECT_EQ(talus::frame_placement(model_d, data, f, oMf), Status::ok);
      mean_z += oMf.p.z() / 4;
    }
    height = foot_height - mean_z;
  }
  talus::LeggedEstimatorSettings<S> settings() const {
    talus::LeggedEstimatorSettings<S> s;
    s.foot_height = S(foot_height);
    return s;
  }
  talus::Vector3<S> still_accel() const { return (R0.transpose() * V3(0, 0, 9.81)).cast<S>(); }
};

template <template <class, int> class Filter>
void legged_estimator_at_rest() {
  using Robot = StandingSolo12<double, Filter>;
  Robot r;
  auto est = std::make_unique<typename Robot::Est>();
  ASSERT_EQ(est->init(r.model, r.frames, r.settings()), Status::ok);
  const typename Robot::Est::Joints rates = Robot::Est::Joints::Zero();
  ASSERT_EQ(est->update(V3::Zero(), r.still_accel(), r.joints, rates, 0xF, kDt), Status::ok);
  const Eigen::Vector4d first = est->q().template segment<4>(3);
  for (int k = 1; k < 500; ++k)
    ASSERT_EQ(est->update(V3::Zero(), r.still_accel(), r.joints, rates, 0xF, kDt), Status::ok) << k;
  const auto& q = est->q();
  const auto& v = est->v();
  // height above the ground and tilt: the truth's; the heading (unobservable, the estimate's
  // own) where the first update put it
  EXPECT_NEAR(q[2], r.height, 1e-9);
  EXPECT_NEAR(q[0], 0, 1e-9);
  EXPECT_NEAR(q[1], 0, 1e-9);
  const M3 R = talus::quaternion_to_rotation<double>(q[3], q[4], q[5], q[6]);
  EXPECT_LT((R.row(2) - r.R0.row(2)).norm(), 1e-9);
  EXPECT_LT((q.template segment<4>(3) - first).norm(), 1e-9);
  EXPECT_LT(v.norm(), 1e-9);
  EXPECT_EQ(q.template tail<12>(), r.joints);
  EXPECT_EQ(est->restarts(), 0u);
  EXPECT_EQ(est->filter().report().feet_in_contact, 4);
  // the feet where the truth has them: their mean on the ground (each, for the level stance of
  // LegOdometryEkf's case), not moving
  double mean = 0;
  for (int k = 0; k < 4; ++k) {
    mean += est->foot_heights()[k] / 4;
    if (Robot::flat_ground) {
      EXPECT_NEAR(est->foot_heights()[k], 0, 1e-9) << k;
    }
    EXPECT_LT(est->foot_velocities()[k].norm(), 1e-9) << k;
  }
  EXPECT_NEAR(mean, 0, 1e-9);
}

TEST(ConsistencyEstimation, LeggedEstimatorAtRestGivesTheStandingState) {
  legged_estimator_at_rest<talus::InvariantEkf>();
  legged_estimator_at_rest<talus::LegOdometryEkf>();
}

template <template <class, int> class Filter>
void foot_heights_and_velocities_match_forward_kinematics() {
  // One foot lifted (its knee bent further, its contact bit clear) and the legs moving: each
  // foot's height and velocity from the estimator against forward kinematics and the frame
  // Jacobian at the estimator's own q and v (another path through talus to the same feet).
  using Robot = StandingSolo12<double, Filter>;
  Robot r;
  auto est = std::make_unique<typename Robot::Est>();
  ASSERT_EQ(est->init(r.model, r.frames, r.settings()), Status::ok);
  typename Robot::Est::Joints joints = r.joints, rates;
  joints[2] -= 0.4;  // FL's knee: that foot off the ground
  rates << 0.3, -0.2, 0.5, 0.1, 0.4, -0.3, -0.2, 0.1, 0.2, 0.3, -0.1, -0.4;
  ASSERT_EQ(est->update(V3::Zero(), r.still_accel(), joints, Robot::Est::Joints::Zero(), 0xEu, kDt), Status::ok);
  ASSERT_EQ(est->update(V3(0.05, -0.02, 0.1), r.still_accel(), joints, rates, 0xEu, kDt), Status::ok);
  auto data = std::make_unique<talus::Data<typename Robot::Model>>();
  ASSERT_EQ(talus::compute_joint_jacobians(r.model, *data, est->q()), Status::ok);
  for (int k = 0; k < 4; ++k) {
    talus::Transform<double> oMf;
    ASSERT_EQ(talus::frame_placement(r.model, *data, r.frames[k], oMf), Status::ok);
    typename Robot::Model::Jacobian6 J;
    ASSERT_EQ(talus::frame_jacobian(r.model, *data, r.frames[k], talus::ReferenceFrame::local_world_aligned, J),
              Status::ok);
    const V3 foot_v = (J * est->v()).template tail<3>();
    EXPECT_NEAR(est->foot_heights()[k], oMf.p.z() - r.foot_height, 1e-12) << k;
    EXPECT_LT((est->foot_velocities()[k] - foot_v).norm(), 1e-12) << k;
  }
  EXPECT_GT(est->foot_heights()[0], 0.02);            // the lifted foot, well above the ground
  EXPECT_GT(est->foot_velocities()[0].norm(), 0.05);  // and moving
}

TEST(ConsistencyEstimation, LeggedEstimatorFootHeightsAndVelocitiesMatchForwardKinematics) {
  foot_heights_and_velocities_match_forward_kinematics<talus::InvariantEkf>();
  foot_heights_and_velocities_match_forward_kinematics<talus::LegOdometryEkf>();
}

TEST(ConsistencyEstimation, LeggedEstimatorInFloatMatchesDouble) {
  StandingSolo12<float> rf;
  StandingSolo12<double> rd;
  auto ef = std::make_unique<StandingSolo12<float>::Est>();
  auto ed = std::make_unique<StandingSolo12<double>::Est>();
  ASSERT_EQ(ef->init(rf.model, rf.frames, rf.settings()), Status::ok);
  ASSERT_EQ(ed->init(rd.model, rd.frames, rd.settings()), Status::ok);
  for (int k = 0; k < 200; ++k) {
    const V3 gyro(0.01 * std::sin(0.01 * k), 0, 0);  // a small rocking rate
    ASSERT_EQ(ef->update(gyro.cast<float>(), rf.still_accel(), rf.joints, StandingSolo12<float>::Est::Joints::Zero(),
                         0xF, 1e-3f),
              Status::ok);
    ASSERT_EQ(ed->update(gyro, rd.still_accel(), rd.joints, StandingSolo12<double>::Est::Joints::Zero(), 0xF, kDt),
              Status::ok);
  }
  EXPECT_LT((ef->q().cast<double>() - ed->q()).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_LT((ef->v().cast<double>() - ed->v()).cwiseAbs().maxCoeff(), 1e-3);
}

template <template <class, int> class Filter>
void legged_estimator_refusals() {
  StandingSolo12<double, Filter> r;
  using Est = typename StandingSolo12<double, Filter>::Est;
  auto est = std::make_unique<Est>();
  const typename Est::Joints rates = Est::Joints::Zero();
  const V3 acc = r.still_accel();
  EXPECT_EQ(est->update(V3::Zero(), acc, r.joints, rates, 0xF, kDt), Status::invalid_input);  // before init
  auto bad_settings = r.settings();
  bad_settings.max_gap = 0.5;
  EXPECT_EQ(est->init(r.model, r.frames, bad_settings), Status::invalid_input);
  std::array<int, 4> bad_frames = r.frames;
  bad_frames[2] = 9999;
  EXPECT_EQ(est->init(r.model, bad_frames, r.settings()), Status::invalid_input);
  ASSERT_EQ(est->init(r.model, r.frames, r.settings()), Status::ok);
  EXPECT_EQ(est->init(r.model, r.frames, r.settings()), Status::invalid_input);               // once
  EXPECT_EQ(est->update(V3::Zero(), acc, r.joints, rates, 0x0, kDt), Status::invalid_input);  // no foot at the start
  ASSERT_EQ(est->update(V3::Zero(), acc, r.joints, rates, 0xF, kDt), Status::ok);
  const auto kept = est->filter().state();
  const auto P = est->filter().covariance();
  auto expect_refused = [&](Status want, const V3& g, const V3& a, const typename Est::Joints& enc,
                            const typename Est::Joints& w, double dt, const char* what) {
    EXPECT_EQ(est->update(g, a, enc, w, 0xF, dt), want) << what;
    EXPECT_EQ(est->q(), Est::Config::Zero()) << what;
    EXPECT_EQ(est->v(), Est::Tangent::Zero()) << what;
    const auto now = est->filter().state();
    EXPECT_TRUE(now.R == kept.R && now.v == kept.v && now.p == kept.p && now.gyro_bias == kept.gyro_bias) << what;
    EXPECT_EQ(est->filter().covariance(), P) << what;
  };
  const double nan = std::nan("");
  expect_refused(Status::invalid_input, V3(nan, 0, 0), acc, r.joints, rates, kDt, "NaN gyro");
  expect_refused(Status::invalid_input, V3::Zero(), V3(0, 0, 300), r.joints, rates, kDt, "saturated accelerometer");
  typename Est::Joints enc = r.joints;
  enc[4] = nan;
  expect_refused(Status::invalid_input, V3::Zero(), acc, enc, rates, kDt, "NaN encoder");
  enc = r.joints;
  enc[4] = 1e3;
  expect_refused(Status::invalid_input, V3::Zero(), acc, enc, rates, kDt, "encoder out of range");
  typename Est::Joints w = rates;
  w[0] = std::numeric_limits<double>::infinity();
  expect_refused(Status::invalid_input, V3::Zero(), acc, r.joints, w, kDt, "infinite joint rate");
  expect_refused(Status::invalid_input, V3::Zero(), acc, r.joints, rates, 0.0, "dt zero");
  expect_refused(Status::invalid_input, V3::Zero(), acc, r.joints, rates, nan, "dt NaN");
  expect_refused(Status::invalid_input, V3::Zero(), acc, r.joints, rates, -kDt, "dt negative");
  // a gap longer than max_gap restarts the filter at rest: counted, ok
  EXPECT_EQ(est->update(V3::Zero(), acc, r.joints, rates, 0xF, 0.25), Status::ok);
  EXPECT_EQ(est->restarts(), 1u);
  EXPECT_NEAR(est->q()[2], r.height, 1e-9);
}

TEST(ReliabilityEstimation, LeggedEstimatorRefusesBadInputAndKeepsTheEstimate) {
  legged_estimator_refusals<talus::InvariantEkf>();
  legged_estimator_refusals<talus::LegOdometryEkf>();
}

template <template <class, int> class Filter>
void legged_estimator_no_heap() {
  StandingSolo12<double, Filter> r;
  using Est = typename StandingSolo12<double, Filter>::Est;
  auto est = std::make_unique<Est>();
  ASSERT_EQ(est->init(r.model, r.frames, r.settings()), Status::ok);
  Status s1 = Status::ok, s2 = Status::ok;
  const std::size_t calls = heap_calls([&] {
    s1 = est->update(V3::Zero(), r.still_accel(), r.joints, Est::Joints::Zero(), 0xF, kDt);
    s2 = est->update(V3(0.01, 0, 0), r.still_accel(), r.joints, Est::Joints::Zero(), 0x7, kDt);
  });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(s1, Status::ok);
  EXPECT_EQ(s2, Status::ok);
}

TEST(AllocEstimation, NoHeapInALeggedEstimatorUpdate) {
  legged_estimator_no_heap<talus::InvariantEkf>();
  legged_estimator_no_heap<talus::LegOdometryEkf>();
}

// ---- LegOdometryEkf: the filter without the feet in the state (leg_odometry_ekf.hpp) --------

using Odo = talus::LegOdometryEkf<double, 4>;
using OdoFeet = std::array<talus::FootOdometry<double>, 4>;

/// The true ṡ_j = d/dt Rᵀ(d_j − p): central difference of Truth::foot_in_base (independent of
/// the filter's −ω × s − Rᵀ v).
V3 foot_velocity_in_base(const Truth& T, int j, double t) {
  const double h = 1e-5;
  return (T.foot_in_base(j, t + h) - T.foot_in_base(j, t - h)) / (2 * h);
}

OdoFeet measure_odometry(const Truth& T, double t, double sigma_p, double sigma_v, std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  OdoFeet f;
  for (int j = 0; j < 4; ++j) {
    f[j].position = T.foot_in_base(j, t) + sigma_p * V3(n(rng), n(rng), n(rng));
    f[j].velocity = foot_velocity_in_base(T, j, t) + sigma_v * V3(n(rng), n(rng), n(rng));
    f[j].position_covariance = M3::Identity() * sigma_p * sigma_p;
    f[j].velocity_covariance = M3::Identity() * sigma_v * sigma_v;
  }
  return f;
}

constexpr double kFootVelocitySigma = 0.01;  // m/s: joint rates' noise through the leg

/// run() for LegOdometryEkf: the same motion, IMU noise, initial error draws and metrics; the
/// height is the base's above the ground plane z = 0 (where the true feet are).
RunResult run_odometry(const Truth& T, const Noise& N, double seconds, unsigned seed, double ground_std = 5e-3,
                       double sigma_v = kFootVelocitySigma) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  Odo ekf;
  ekf.noise.gyro = N.gyro;
  ekf.noise.accel = N.accel;
  ekf.ground_std = ground_std;
  talus::InitialUncertainty<double> u;
  const V3 dphi(u.tilt * n(rng), u.tilt * n(rng), u.yaw * n(rng));
  const M3 R0 = talus::rotation_exp<double>(dphi) * T.R(0);
  const V3 v0 = T.v(0) + u.velocity * V3(n(rng), n(rng), n(rng));
  const V3 p0 = T.p(0) + u.position * V3(n(rng), n(rng), n(rng));
  EXPECT_EQ(ekf.init(R0, v0, p0, u), Status::ok);
  const std::array<bool, 4> contact{true, true, true, true};
  RunResult r;
  double v_sq = 0, nees = 0;
  const int steps = static_cast<int>(seconds / kDt);
  const double sg = N.gyro / std::sqrt(kDt), sa = N.accel / std::sqrt(kDt);
  for (int k = 0; k < steps; ++k) {
    const double t = k * kDt;
    const V3 gyro = T.omega(t) + N.bias_g + sg * V3(n(rng), n(rng), n(rng));
    const V3 acc = T.specific_force(t) + N.bias_a + sa * V3(n(rng), n(rng), n(rng));
    EXPECT_EQ(ekf.propagate(gyro, acc, kDt), Status::ok);
    const double t1 = t + kDt;
    EXPECT_EQ(ekf.correct(contact, measure_odometry(T, t1, N.foot, sigma_v, rng)), Status::ok)
        << talus::to_string(ekf.failure().reason);
    const M3 dR = T.R(t1) * ekf.rotation().transpose();
    const Eigen::AngleAxisd aa(dR);
    Eigen::Matrix<double, 9, 1> xi;
    xi << aa.angle() * aa.axis(), T.v(t1) - dR * ekf.velocity(), T.p(t1) - dR * ekf.position();
    Eigen::Matrix<double, 9, 9> P = ekf.covariance().topLeftCorner<9, 9>();
    nees += xi.dot(P.ldlt().solve(xi));
    v_sq += (T.v(t1) - ekf.velocity()).squaredNorm();
    if (t1 > 0.5) r.tilt_max = std::max(r.tilt_max, tilt_error_deg(T.R(t1), ekf.rotation()));
    if (t1 > 0.2) r.height_max = std::max(r.height_max, std::abs(ekf.position().z() - T.p(t1).z()));
  }
  const Odo::Covariance& P = ekf.covariance();
  EXPECT_EQ((P - P.transpose()).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Odo::Covariance>(P).eigenvalues().minCoeff(), 0.0);
  r.steps = steps;
  r.v_rms = std::sqrt(v_sq / steps);
  r.nees_mean = nees / steps;
  return r;
}

TEST(ConsistencyEstimation, LegOdometryAtRestGivesZeroVelocityTiltAndHeight) {
  // At rest, tilted 10° about x and 5° about y, the base 0.25 m above the feet on the ground;
  // the filter starts level, 5 cm low, with a 0.2 m/s velocity error; noise-free data.
  Truth T;
  const M3 R_true = talus::rotation_exp<double>(V3(10 * M_PI / 180, 5 * M_PI / 180, 0));
  const V3 p_true(0, 0, 0.25);
  const V3 acc = R_true.transpose() * (-kG);
  EXPECT_LT(tilt_error_deg(R_true, Odo::tilt_from_accelerometer(acc)), 1e-10);
  auto ekf = std::make_unique<Odo>();
  talus::InitialUncertainty<double> u;
  u.tilt = 0.3;
  u.velocity = 0.3;
  u.position = 0.1;
  ASSERT_EQ(ekf->init(M3::Identity(), V3(0.2, 0, 0), V3(0, 0, 0.2), u), Status::ok);
  OdoFeet f;
  for (int j = 0; j < 4; ++j) {
    f[j].position = R_true.transpose() * (T.d[j] - p_true);
    f[j].velocity.setZero();
    f[j].position_covariance = M3::Identity() * 1e-6;
    f[j].velocity_covariance = M3::Identity() * 1e-4;
  }
  for (int k = 0; k < 2000; ++k) {
    ASSERT_EQ(ekf->propagate(V3::Zero(), acc, kDt), Status::ok);
    ASSERT_EQ(ekf->correct({true, true, true, true}, f), Status::ok);
  }
  EXPECT_LT(ekf->velocity().norm(), 1e-3);
  EXPECT_LT(tilt_error_deg(R_true, ekf->rotation()), 0.05);
  EXPECT_NEAR(ekf->position().z(), 0.25, 1e-3);
  EXPECT_EQ(ekf->report().feet_in_contact, 4);
  EXPECT_LT(ekf->report().max_nis, 1.0);
}

TEST(ConsistencyEstimation, LegOdometryOnTheSynthesisedTrajectoryBesideInvariantEkf) {
  // The accuracy goals (v RMS ≤ 0.03 m/s, tilt ≤ 0.5°, height ≤ 5 mm) for both
  // filters on the same motion, noise levels and seeds; printed side by side.
  Truth T;
  Noise N;
  N.bias_g = V3(0.002, -0.001, 0.003);
  N.bias_a = V3(0.02, -0.03, 0.01);
  // The feet's velocities with white noise of 0.01 m/s (joint rates filtered) and 0.05 m/s
  // (about a raw differentiated encoder's on solo12: √2 · 2e-4 rad / 1 ms through a 0.2 m leg).
  for (unsigned seed : {7u, 8u, 9u}) {
    const RunResult ri = run(T, N, 3.0, seed);
    const RunResult ro = run_odometry(T, N, 3.0, seed);
    const RunResult rn = run_odometry(T, N, 3.0, seed, 5e-3, 0.05);
    std::printf(
        "seed %u, 3 s: InvariantEkf                   v RMS %.4f m/s, tilt max %.3f deg, height max %.2f mm\n"
        "              LegOdometryEkf (sigma_v 0.01) v RMS %.4f m/s, tilt max %.3f deg, height max %.2f mm\n"
        "              LegOdometryEkf (sigma_v 0.05) v RMS %.4f m/s, tilt max %.3f deg, height max %.2f mm\n",
        seed, ri.v_rms, ri.tilt_max, 1e3 * ri.height_max, ro.v_rms, ro.tilt_max, 1e3 * ro.height_max, rn.v_rms,
        rn.tilt_max, 1e3 * rn.height_max);
    for (const RunResult& r : {ro, rn}) {
      EXPECT_LT(r.v_rms, 0.03);
      EXPECT_LT(r.tilt_max, 0.5);
      EXPECT_LT(r.height_max, 0.005);
      // comparable with the full filter: within 3× its error (plus a floor for tiny errors)
      EXPECT_LT(r.v_rms, 3 * ri.v_rms + 0.002);
      EXPECT_LT(r.tilt_max, 3 * ri.tilt_max + 0.05);
      EXPECT_LT(r.height_max, 3 * ri.height_max + 0.0005);
    }
  }
}

TEST(ConsistencyEstimation, LegOdometryNeesWithinChiSquareBounds) {
  // As NeesWithinChiSquareBounds (20 runs of 1 s, no bias, the same [5, 14] bounds on the
  // 9-dof NEES), with the filter's ground noise matched to the simulation's exactly flat
  // ground (the foot positions' own noise is still in the height measurement).
  Truth T;
  Noise N;
  double mean_odo = 0, mean_iekf = 0;
  const int runs = 20;
  for (int i = 0; i < runs; ++i) {
    mean_odo += run_odometry(T, N, 1.0, 100 + i, 1e-4).nees_mean / runs;
    mean_iekf += run(T, N, 1.0, 100 + i).nees_mean / runs;
  }
  std::printf("NEES of (xi_R, xi_v, xi_p), 9 dof, mean over %d runs: LegOdometryEkf %.2f, InvariantEkf %.2f\n", runs,
              mean_odo, mean_iekf);
  EXPECT_GT(mean_odo, 5.0);
  EXPECT_LT(mean_odo, 14.0);
}

/// The filter's estimate as a group element, for the finite differences below.
struct OdoPoint {
  M3 R;
  V3 v, p, bg;
};
/// exp(e) X, b + ζ_g (e over [ξ_R ξ_v ξ_p ζ_g ζ_a]; ζ_a does not enter either measurement).
OdoPoint perturbed(const OdoPoint& X, const Eigen::Matrix<double, 15, 1>& e) {
  const V3 phi = e.segment<3>(0);
  const M3 dR = talus::rotation_exp<double>(phi), J = talus::rotation_left_jacobian<double>(phi);
  return OdoPoint{dR * X.R, dR * X.v + J * e.segment<3>(3), dR * X.p + J * e.segment<3>(6), X.bg + e.segment<3>(9)};
}
/// The two innovations written from the measurement's definition (leg_odometry_ekf.hpp).
/// The foot a sphere of radius r rolling on the ground: its contact point s − r u (u the world's
/// up in B) does not move.
V3 velocity_innovation(const OdoPoint& X, const V3& gyro, double r, const talus::FootOdometry<double>& f) {
  const V3 ru = r * X.R.transpose() * V3::UnitZ();
  const V3 w = gyro - X.bg;
  const V3 contact_velocity = w.cross(f.position - ru) + f.velocity - f.angular_velocity.cross(ru);  // B axes
  return X.R * -contact_velocity - X.v;
}
double height_innovation(const OdoPoint& X, double foot_height, const talus::FootOdometry<double>& f) {
  return foot_height - (X.p + X.R * f.position).z();
}

TEST(ConsistencyEstimation, LegOdometryJacobiansAndCovarianceStepMatchFiniteDifferences) {
  // A generic estimate (50 steps of the synthesised motion) and a foot measurement consistent
  // with it (both innovations zero). The truth X is exp(e) X̂: an estimate X̂ = exp(−e) X has
  // the innovation z ≈ H e, so H's columns are central differences of z(exp(−h eᵢ) X).
  Truth T;
  Noise N;
  Odo ekf;
  std::mt19937_64 rng(21);
  ASSERT_EQ(ekf.init(T.R(0), T.v(0), T.p(0)), Status::ok);
  for (int k = 0; k < 50; ++k) {
    ASSERT_EQ(ekf.propagate(T.omega(k * kDt), T.specific_force(k * kDt), kDt), Status::ok);
    ASSERT_EQ(ekf.correct({true, true, true, true}, measure_odometry(T, (k + 1) * kDt, N.foot, 0.01, rng)), Status::ok);
  }
  const V3 gyro(0.3, -0.4, 0.2);
  ASSERT_EQ(ekf.propagate(gyro, V3(0.3, -0.2, 9.9), 2e-3), Status::ok);
  const OdoPoint X{ekf.rotation(), ekf.velocity(), ekf.position(), ekf.gyro_bias()};
  ASSERT_GT(X.bg.norm(), 0.0);
  talus::FootOdometry<double> f;
  f.position = V3(0.21, -0.13, -0.24);
  f.angular_velocity = V3(0.5, -0.3, 0.8);
  ekf.foot_height = (X.p + X.R * f.position).z();
  ekf.odometry_scale_std = 0.2;
  const double r = ekf.foot_height;
  const V3 ru = r * X.R.transpose() * V3::UnitZ(), s_c = f.position - ru, w = gyro - X.bg;
  f.velocity = -w.cross(s_c) + f.angular_velocity.cross(ru) - X.R.transpose() * X.v;  // consistent: z = 0
  f.position_covariance << 2e-6, 3e-7, -1e-7, 3e-7, 1.5e-6, 2e-7, -1e-7, 2e-7, 1e-6;
  f.velocity_covariance << 4e-4, 1e-5, 0, 1e-5, 3e-4, -2e-5, 0, -2e-5, 2e-4;
  const Odo::Linearization lin = ekf.linearize(f);
  EXPECT_LT(lin.z_velocity.norm(), 1e-14);
  EXPECT_LT(std::abs(lin.z_height), 1e-14);
  Eigen::Matrix<double, 3, 15> Hv;
  Eigen::Matrix<double, 1, 15> Hh;
  const double h = 1e-6;
  for (int i = 0; i < 15; ++i) {
    Eigen::Matrix<double, 15, 1> e = Eigen::Matrix<double, 15, 1>::Zero();
    e[i] = h;
    const OdoPoint lo = perturbed(X, -e), hi = perturbed(X, e);  // X̂ = exp(−(±h eᵢ)) X
    Hv.col(i) = (velocity_innovation(lo, gyro, r, f) - velocity_innovation(hi, gyro, r, f)) / (2 * h);
    Hh(0, i) = (height_innovation(lo, ekf.foot_height, f) - height_innovation(hi, ekf.foot_height, f)) / (2 * h);
  }
  // H leaves out the rolling term's dependence on the attitude (leg_odometry_ekf.hpp): the
  // ξ_R columns differ by at most r |ω + ω_j|, every other column is exact.
  EXPECT_LT((lin.H_velocity.rightCols<12>() - Hv.rightCols<12>()).cwiseAbs().maxCoeff(), 1e-7)
      << "\n"
      << lin.H_velocity << "\n\n"
      << Hv;
  const double rolling = r * (w + f.angular_velocity).norm();
  EXPECT_GT((lin.H_velocity.leftCols<3>() - Hv.leftCols<3>()).cwiseAbs().maxCoeff(), 1e-3 * rolling);
  EXPECT_LT((lin.H_velocity.leftCols<3>() - Hv.leftCols<3>()).cwiseAbs().maxCoeff(), rolling);
  Hv.leftCols<3>() = lin.H_velocity.leftCols<3>();  // the filter's model, for the update below
  EXPECT_LT((lin.H_height - Hh).cwiseAbs().maxCoeff(), 1e-7) << "\n" << lin.H_height << "\n\n" << Hh;
  // the noises from their definitions
  const M3 sx = talus::skew<double>(s_c);
  const M3 Nv = X.R *
                (f.velocity_covariance + 0.04 * f.velocity.squaredNorm() * M3::Identity() +
                 sx * (ekf.noise.gyro * ekf.noise.gyro / 2e-3) * sx.transpose()) *
                X.R.transpose();
  const double Nh = (X.R * f.position_covariance * X.R.transpose())(2, 2) + ekf.ground_std * ekf.ground_std;
  EXPECT_LT((lin.N_velocity - Nv).cwiseAbs().maxCoeff(), 1e-18);
  EXPECT_NEAR(lin.N_height, Nh, 1e-18);

  // One foot's correction against the textbook sequential update with the finite-difference
  // H: P₁ = P − K₁ S₁ K₁ᵀ (velocity), P₂ = P₁ − K₂ S₂ K₂ᵀ (height); the estimate does not move
  // (z = 0).
  const Odo::Covariance P0 = ekf.covariance();
  const M3 S1 = Hv * P0 * Hv.transpose() + Nv;
  const Eigen::Matrix<double, 15, 3> K1 = P0 * Hv.transpose() * S1.inverse();
  const Odo::Covariance P1 = P0 - K1 * S1 * K1.transpose();
  const double S2 = (Hh * P1 * Hh.transpose())(0, 0) + Nh;
  const Eigen::Matrix<double, 15, 1> K2 = P1 * Hh.transpose() / S2;
  const Odo::Covariance P2 = P1 - K2 * S2 * K2.transpose();
  OdoFeet feet;
  feet[2] = f;
  ASSERT_EQ(ekf.correct({false, false, true, false}, feet), Status::ok);
  EXPECT_LT((ekf.covariance() - P2).cwiseAbs().maxCoeff(), 1e-10 * P2.cwiseAbs().maxCoeff());
  EXPECT_LT((ekf.velocity() - X.v).norm(), 1e-12);
  EXPECT_LT((ekf.position() - X.p).norm(), 1e-12);
  EXPECT_EQ(ekf.report().feet_in_contact, 1);
  EXPECT_LT(ekf.report().nis[2], 1e-20);
  EXPECT_EQ(ekf.report().nis[0], 0.0);
}

TEST(ReliabilityEstimation, LegOdometryBadInputKeepsTheEstimate) {
  Truth T;
  Odo ekf;
  EXPECT_EQ(ekf.propagate(V3::Zero(), -kG, kDt), Status::invalid_input);
  EXPECT_EQ(ekf.failure().reason, talus::EstimatorFailureReason::not_initialized);
  std::mt19937_64 rng(5);
  EXPECT_EQ(ekf.correct({true, true, true, true}, measure_odometry(T, 0, 1e-3, 0.01, rng)), Status::invalid_input);
  ASSERT_EQ(ekf.init(T.R(0), T.v(0), T.p(0)), Status::ok);
  ASSERT_EQ(ekf.propagate(T.omega(0), T.specific_force(0), kDt), Status::ok);
  ASSERT_EQ(ekf.correct({true, true, true, true}, measure_odometry(T, kDt, 1e-3, 0.01, rng)), Status::ok);
  const Odo before = ekf;
  auto same = [&](const Odo& a) {
    return a.rotation() == before.rotation() && a.velocity() == before.velocity() &&
           a.position() == before.position() && a.gyro_bias() == before.gyro_bias() &&
           a.accel_bias() == before.accel_bias() && a.covariance() == before.covariance() &&
           a.report().nis == before.report().nis;
  };
  expect_bad_imu_refused(ekf, same);
  struct FootCase {
    int foot;
    void (*spoil)(talus::FootOdometry<double>&);
  };
  const FootCase foot_cases[] = {
      {2, [](talus::FootOdometry<double>& f) { f.position.x() = std::numeric_limits<double>::quiet_NaN(); }},
      {0, [](talus::FootOdometry<double>& f) { f.position.z() = -11; }},
      {1, [](talus::FootOdometry<double>& f) { f.velocity.y() = std::numeric_limits<double>::infinity(); }},
      {3, [](talus::FootOdometry<double>& f) { f.velocity.y() = 12; }},
      {1, [](talus::FootOdometry<double>& f) { f.position_covariance(0, 0) = -1; }},
      {2, [](talus::FootOdometry<double>& f) { f.velocity_covariance(0, 1) = 1; }},                     // not symmetric
      {3, [](talus::FootOdometry<double>& f) { f.velocity_covariance << 1, 2, 0, 2, 1, 0, 0, 0, 1; }},  // not PSD
  };
  for (const FootCase& c : foot_cases) {
    OdoFeet bad = measure_odometry(T, kDt, 1e-3, 0.01, rng);
    c.spoil(bad[c.foot]);
    EXPECT_EQ(ekf.correct({true, true, true, true}, bad), Status::invalid_input) << c.foot;
    EXPECT_EQ(ekf.failure().reason, talus::EstimatorFailureReason::foot_invalid);
    EXPECT_EQ(ekf.failure().foot, c.foot);
    EXPECT_TRUE(same(ekf)) << c.foot;
    // the same foot out of contact is not read
    std::array<bool, 4> contact{true, true, true, true};
    contact[c.foot] = false;
    Odo copy = ekf;
    EXPECT_EQ(copy.correct(contact, bad), Status::ok);
  }
  ekf.ground_std = 0;
  EXPECT_EQ(ekf.correct({true, true, true, true}, measure_odometry(T, kDt, 1e-3, 0.01, rng)), Status::invalid_input);
  EXPECT_EQ(ekf.failure().reason, talus::EstimatorFailureReason::noise_invalid);
  EXPECT_TRUE(same(ekf));
  ekf.ground_std = 5e-3;
  ekf.noise.gyro = -1;
  EXPECT_EQ(ekf.propagate(V3::Zero(), -kG, kDt), Status::invalid_input);
  EXPECT_EQ(ekf.failure().reason, talus::EstimatorFailureReason::noise_invalid);
  EXPECT_TRUE(same(ekf));
  ekf.noise.gyro = before.noise.gyro;
  EXPECT_EQ(ekf.init(M3::Identity() * 2, V3::Zero(), V3::Zero()), Status::invalid_input);
  EXPECT_EQ(ekf.failure().reason, talus::EstimatorFailureReason::initial_invalid);
  EXPECT_TRUE(same(ekf));

  // a base 1e300 m away: the process noise through p^ overflows (propagate: overflow), and
  // the height measurement's H (ĉ_y, −ĉ_x) overflows its innovation variance (correct:
  // singular on the foot it reached first); P and the estimate kept each time
  Odo far;
  ASSERT_EQ(far.init(T.R(0), T.v(0), V3(1e300, -1e300, 0.25)), Status::ok);
  const Odo far_before = far;
  auto far_kept = [&] {
    return far.position() == far_before.position() && far.velocity() == far_before.velocity() &&
           far.rotation() == far_before.rotation() && far.gyro_bias() == far_before.gyro_bias() &&
           far.covariance() == far_before.covariance();
  };
  EXPECT_EQ(far.propagate(T.omega(0), T.specific_force(0), kDt), Status::overflow);
  EXPECT_EQ(far.failure().reason, talus::EstimatorFailureReason::overflow);
  EXPECT_TRUE(far_kept());
  EXPECT_EQ(far.correct({false, true, true, true}, measure_odometry(T, kDt, 1e-3, 0.01, rng)), Status::singular);
  EXPECT_EQ(far.failure().reason, talus::EstimatorFailureReason::singular);
  EXPECT_EQ(far.failure().foot, 1);
  EXPECT_TRUE(far_kept());
  EXPECT_TRUE(talus::all_finite(far.covariance()));
}

TEST(ConsistencyEstimation, LegOdometryFloatMatchesDouble) {
  // the rest case of LegOdometryAtRest... in float and double: the same estimate loosely
  const M3 R_true = talus::rotation_exp<double>(V3(0.1, -0.05, 0));
  const V3 acc = R_true.transpose() * (-kG);
  talus::LegOdometryEkf<float, 4> ef;
  Odo ed;
  talus::InitialUncertainty<double> u;
  u.tilt = 0.3;
  u.velocity = 0.3;
  talus::InitialUncertainty<float> uf;
  uf.tilt = 0.3f;
  uf.velocity = 0.3f;
  ASSERT_EQ(ed.init(M3::Identity(), V3(0.1, 0, 0), V3(0, 0, 0.24), u), Status::ok);
  ASSERT_EQ(ef.init(Eigen::Matrix3f::Identity(), Eigen::Vector3f(0.1f, 0, 0), Eigen::Vector3f(0, 0, 0.24f), uf),
            Status::ok);
  Truth T;
  OdoFeet fd;
  std::array<talus::FootOdometry<float>, 4> ff;
  for (int j = 0; j < 4; ++j) {
    fd[j].position = R_true.transpose() * (T.d[j] - V3(0, 0, 0.25));
    fd[j].velocity = V3(0.001, -0.002, 0.0005) * (j + 1);  // a small disagreement between the feet
    fd[j].position_covariance = M3::Identity() * 1e-6;
    fd[j].velocity_covariance = M3::Identity() * 1e-4;
    ff[j].position = fd[j].position.cast<float>();
    ff[j].velocity = fd[j].velocity.cast<float>();
    ff[j].position_covariance = fd[j].position_covariance.cast<float>();
    ff[j].velocity_covariance = fd[j].velocity_covariance.cast<float>();
  }
  for (int k = 0; k < 2000; ++k) {
    const V3 gyro(0.01 * std::sin(0.01 * k), 0, 0);
    ASSERT_EQ(ed.propagate(gyro, acc, kDt), Status::ok);
    ASSERT_EQ(ef.propagate(gyro.cast<float>(), acc.cast<float>(), 1e-3f), Status::ok);
    ASSERT_EQ(ed.correct({true, true, true, true}, fd), Status::ok);
    ASSERT_EQ(ef.correct({true, true, true, true}, ff), Status::ok);
  }
  EXPECT_LT((ef.velocity().cast<double>() - ed.velocity()).norm(), 1e-3);
  EXPECT_LT(tilt_error_deg(ed.rotation(), ef.rotation().cast<double>()), 0.02);
  EXPECT_NEAR(ef.position().z(), ed.position().z(), 1e-4);
  EXPECT_NEAR(ed.position().z(), 0.25, 2e-3);
}

TEST(ConsistencyEstimation, LegOdometryVelocitiesMatchFiniteDifferencesOnSolo12) {
  const auto model = solo::make_model<double>();
  talus::Data<solo::Model<double>> data;
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  talus::JointPositions<solo::Model<double>> qj;
  talus::JointVelocities<solo::Model<double>> qd;
  for (int i = 0; i < qj.size(); ++i) {
    qj[i] = u(rng);
    qd[i] = 3 * u(rng);
  }
  const std::array<int, 4> frames{solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                                  solo::frame_id("HR_FOOT")};
  const double sq = 2e-4, sm = 1e-3, sqd = 0.05, smv = 0.01;
  std::array<talus::FootOdometry<double>, 4> odo;
  ASSERT_EQ(talus::leg_odometry(model, data, qj, qd, frames, sq, sm, sqd, smv, odo), Status::ok);
  Feet kin;
  ASSERT_EQ(talus::leg_kinematics(model, data, qj, frames, sq, sm, kin), Status::ok);
  const double h = 1e-6;
  Feet fp, fm;
  ASSERT_EQ(talus::leg_kinematics(model, data, (qj + h * qd).eval(), frames, 0.0, 0.0, fp), Status::ok);
  ASSERT_EQ(talus::leg_kinematics(model, data, (qj - h * qd).eval(), frames, 0.0, 0.0, fm), Status::ok);
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(odo[j].position, kin[j].position);
    EXPECT_LT((odo[j].position_covariance - kin[j].covariance).cwiseAbs().maxCoeff(), 1e-18);
    const V3 v_fd = (fp[j].position - fm[j].position) / (2 * h);
    EXPECT_GT(v_fd.norm(), 0.1);  // the feet do move relative to the base
    EXPECT_LT((odo[j].velocity - v_fd).norm(), 1e-8) << j;
    // Σv = σ_q̇² J Jᵀ + σ_mv² I with J by finite differences
    Eigen::Matrix<double, 3, 12> Jfd;
    for (int i = 0; i < 12; ++i) {
      auto qp = qj, qm = qj;
      qp[i] += 1e-6;
      qm[i] -= 1e-6;
      Feet a, b;
      ASSERT_EQ(talus::leg_kinematics(model, data, qp, frames, 0.0, 0.0, a), Status::ok);
      ASSERT_EQ(talus::leg_kinematics(model, data, qm, frames, 0.0, 0.0, b), Status::ok);
      Jfd.col(i) = (a[j].position - b[j].position) / 2e-6;
    }
    const M3 expected = sqd * sqd * Jfd * Jfd.transpose() + smv * smv * M3::Identity();
    EXPECT_LT((odo[j].velocity_covariance - expected).cwiseAbs().maxCoeff(), 1e-10);
  }
  auto bad = qd;
  bad[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(talus::leg_odometry(model, data, qj, bad, frames, sq, sm, sqd, smv, odo), Status::invalid_input);
  EXPECT_EQ(odo[0].velocity, V3::Zero());
  EXPECT_EQ(odo[0].position, V3::Zero());
  EXPECT_EQ(talus::leg_odometry(model, data, qj, qd, frames, sq, sm, -1.0, smv, odo), Status::invalid_input);
}

TEST(AllocEstimation, NoHeapInALegOdometryStep) {
  const auto model = solo::make_model<double>();
  talus::Data<solo::Model<double>> data;
  talus::JointPositions<solo::Model<double>> qj;
  qj << 0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6;
  const talus::JointVelocities<solo::Model<double>> qd = talus::JointVelocities<solo::Model<double>>::Constant(0.1);
  const std::array<int, 4> frames{solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                                  solo::frame_id("HR_FOOT")};
  auto ekf = std::make_unique<Odo>();
  auto ekf_f = std::make_unique<talus::LegOdometryEkf<float, 4>>();
  ASSERT_EQ(ekf->init(M3::Identity(), V3::Zero(), V3(0, 0, 0.25)), Status::ok);
  ASSERT_EQ(ekf_f->init(Eigen::Matrix3f::Identity(), Eigen::Vector3f::Zero(), Eigen::Vector3f(0, 0, 0.25f)),
            Status::ok);
  OdoFeet feet;
  std::array<talus::FootOdometry<float>, 4> feet_f;
  Status s1 = Status::ok, s2 = Status::ok, s3 = Status::ok, s4 = Status::ok, s5 = Status::ok;
  const std::size_t calls = heap_calls([&] {
    s1 = talus::leg_odometry(model, data, qj, qd, frames, 2e-4, 1e-3, 0.05, 0.01, feet);
    s2 = ekf->propagate(V3(0.01, 0, 0), V3(0, 0, 9.81), kDt);
    s3 = ekf->correct({true, true, false, true}, feet);
    for (int j = 0; j < 4; ++j) {
      feet_f[j].position = feet[j].position.cast<float>();
      feet_f[j].velocity = feet[j].velocity.cast<float>();
      feet_f[j].position_covariance = feet[j].position_covariance.cast<float>();
      feet_f[j].velocity_covariance = feet[j].velocity_covariance.cast<float>();
    }
    s4 = ekf_f->propagate(Eigen::Vector3f(0.01f, 0, 0), Eigen::Vector3f(0, 0, 9.81f), 1e-3f);
    s5 = ekf_f->correct({true, true, true, true}, feet_f);
  });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(s1, Status::ok);
  EXPECT_EQ(s2, Status::ok);
  EXPECT_EQ(s3, Status::ok);
  EXPECT_EQ(s4, Status::ok);
  EXPECT_EQ(s5, Status::ok);
}

// Settings::feet_per_update = 1: each update corrects with the next stance foot in turn. The
// reference is the filter itself, copied after the first update and driven by hand with
// leg_odometry's feet and that one foot's contact bit. Noisy IMU and joint rates, so that which
// foot corrects changes the estimate.
TEST(ConsistencyEstimation, LeggedEstimatorPropagatesOverTheTimeOfRefusedUpdates) {
  // A refused IMU sample's period is not lost: the next accepted update propagates over both
  // periods with its sample and adds the unseen motion, σ τ and σ τ²/2 (τ = the refused time),
  // to P's velocity and position. Reference: the filter driven by hand over 2 dt (no foot
  // corrects: the contact bits are clear, so the IMU step alone shows).
  using Robot = StandingSolo12<double, talus::LegOdometryEkf>;
  Robot r;
  auto est = std::make_unique<Robot::Est>();
  ASSERT_EQ(est->init(r.model, r.frames, r.settings()), Status::ok);
  const Robot::Est::Joints rates = Robot::Est::Joints::Zero();
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(est->update(V3::Zero(), r.still_accel(), r.joints, rates, 0xFu, kDt), Status::ok);
  auto seen = std::make_unique<Odo>(est->filter());
  const V3 nan_gyro(std::numeric_limits<double>::quiet_NaN(), 0, 0);
  EXPECT_EQ(est->update(nan_gyro, r.still_accel(), r.joints, rates, 0u, kDt), Status::invalid_input);
  const V3 gyro(0.02, -0.01, 0.03), accel = r.still_accel() + V3(0.4, -0.2, 0.1);
  ASSERT_EQ(est->update(gyro, accel, r.joints, rates, 0u, kDt), Status::ok);
  ASSERT_EQ(seen->propagate(gyro, accel, 2 * kDt), Status::ok);
  auto unseen = std::make_unique<Odo>(*seen);
  const double sigma = r.settings().unseen_acceleration_std;
  ASSERT_GT(sigma, 0.0);
  ASSERT_EQ(unseen->add_unseen_motion(sigma * kDt, 0.5 * sigma * kDt * kDt), Status::ok);
  EXPECT_EQ(est->filter().rotation(), seen->rotation());
  EXPECT_EQ(est->filter().velocity(), seen->velocity());
  EXPECT_EQ(est->filter().position(), seen->position());
  EXPECT_EQ(est->filter().covariance(), unseen->covariance());
  const Odo::Covariance grown = unseen->covariance() - seen->covariance();
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(grown(3 + k, 3 + k), sigma * sigma * kDt * kDt, 1e-15);
    EXPECT_NEAR(grown(6 + k, 6 + k), 0.25 * sigma * sigma * kDt * kDt * kDt * kDt, 1e-18);
  }
  EXPECT_NEAR(grown.norm(), std::sqrt(3.0) * sigma * sigma * kDt * kDt, 1e-12);
  EXPECT_EQ(unseen->add_unseen_motion(-1.0, 0.0), Status::invalid_input);
}

TEST(ConsistencyEstimation, LeggedEstimatorFeetInTurnEqualTheFilterOnThoseFeet) {
  using Robot = StandingSolo12<double, talus::LegOdometryEkf>;
  Robot r;
  auto turns = std::make_unique<Robot::Est>();
  auto all = std::make_unique<Robot::Est>();
  talus::LeggedEstimatorSettings<double> one = r.settings();
  one.feet_per_update = 1;
  ASSERT_EQ(turns->init(r.model, r.frames, one), Status::ok);
  ASSERT_EQ(all->init(r.model, r.frames, r.settings()), Status::ok);
  // feet 0..3 in turn while all four touch, then foot 2 lifts: 0, 1, 3 in turn
  const int expected[] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 3, 0, 1, 3, 0, 1};
  auto ref = std::make_unique<Odo>();
  auto data = std::make_unique<talus::Data<Robot::Model>>();
  std::mt19937_64 rng(7);
  std::normal_distribution<double> n(0.0, 1.0);
  for (int i = 0; i < 16; ++i) {
    const unsigned touching = i < 8 ? 0xFu : 0xBu;
    const V3 gyro = 0.01 * V3(n(rng), n(rng), n(rng));
    const V3 accel = r.still_accel() + 0.05 * V3(n(rng), n(rng), n(rng));
    Robot::Est::Joints rates;
    for (int j = 0; j < 12; ++j) rates[j] = 0.02 * n(rng);
    ASSERT_EQ(turns->update(gyro, accel, r.joints, rates, touching, kDt), Status::ok) << i;
    ASSERT_EQ(all->update(gyro, accel, r.joints, rates, touching, kDt), Status::ok) << i;
    EXPECT_EQ(turns->filter().report().feet_in_contact, 1) << i;
    if (i == 0) {
      *ref = turns->filter();
      continue;
    }
    OdoFeet feet;
    ASSERT_EQ(talus::leg_odometry(r.model, *data, r.joints, rates, r.frames, one.encoder_std, one.model_std,
                                  one.rate_std, one.model_velocity_std, feet),
              Status::ok);
    std::array<bool, 4> contact{};
    contact[expected[i]] = true;
    ASSERT_EQ(ref->propagate(gyro, accel, kDt), Status::ok) << i;
    ASSERT_EQ(ref->correct(contact, feet), Status::ok) << i;
    const Odo& f = turns->filter();
    EXPECT_EQ(f.rotation(), ref->rotation()) << i;
    EXPECT_EQ(f.velocity(), ref->velocity()) << i;
    EXPECT_EQ(f.position(), ref->position()) << i;
    EXPECT_EQ(f.gyro_bias(), ref->gyro_bias()) << i;
    EXPECT_EQ(f.accel_bias(), ref->accel_bias()) << i;
    EXPECT_EQ(f.covariance(), ref->covariance()) << i;
  }
  // and the turns matter: every foot every update gives another estimate
  EXPECT_GT((turns->v() - all->v()).cwiseAbs().maxCoeff(), 1e-6);
  // out of its domain, or with InvariantEkf (whose feet are state): refused at init
  for (int k : {-1, 5}) {
    talus::LeggedEstimatorSettings<double> bad = r.settings();
    bad.feet_per_update = k;
    auto e = std::make_unique<Robot::Est>();
    EXPECT_EQ(e->init(r.model, r.frames, bad), Status::invalid_input) << k;
  }
  StandingSolo12<double> ri;
  auto inv = std::make_unique<StandingSolo12<double>::Est>();
  EXPECT_EQ(inv->init(ri.model, ri.frames, one), Status::invalid_input);
}

// ContactDetector (contact_detection.hpp) on hand-made heights and speeds: the rule's cases.
TEST(ConsistencyEstimation, ContactDetectorLandsALiftedFootOnceItIsDownAndStill) {
  talus::ContactDetector<double, 4> d;
  ASSERT_EQ(d.init(talus::TouchdownSettings<double>{}), Status::ok);  // 15 mm, 5 mm, 0.05 m/s, 3 periods
  std::array<double, 4> h{0, 0, 0, 0};
  std::array<V3, 4> v;
  for (auto& x : v) x.setZero();
  EXPECT_EQ(d.update(0xF, h, v), 0xFu);  // the stance touches
  // foot 0 lifted: still on the ground and still, but it has not left it yet
  for (int i = 0; i < 5; ++i) EXPECT_EQ(d.update(0xE, h, v), 0xEu) << i;
  h[0] = 0.02;  // above the clearance: in the air
  EXPECT_EQ(d.update(0xE, h, v), 0xEu);
  h[0] = 0.003;
  v[0] = V3(0, 0, -0.2);  // low but still coming down: not landed
  for (int i = 0; i < 5; ++i) EXPECT_EQ(d.update(0xE, h, v), 0xEu) << i;
  v[0] = V3(0.01, 0, -0.01);  // down and still: lands on the third period in a row
  EXPECT_EQ(d.update(0xE, h, v), 0xEu);
  EXPECT_EQ(d.update(0xE, h, v), 0xEu);
  EXPECT_EQ(d.update(0xE, h, v), 0xFu);
  v[0] = V3(0, 0.3, 0);  // landed: stays touching while it slides on the ground
  EXPECT_EQ(d.update(0xE, h, v), 0xFu);
  h[0] = 0.02;  // lifted again without the controller: in the air
  EXPECT_EQ(d.update(0xE, h, v), 0xEu);
  h[0] = 0.001;
  v[0].setZero();
  EXPECT_EQ(d.update(0xE, h, v), 0xEu);
  EXPECT_EQ(d.update(0xE, h, v), 0xEu);
  v[0][2] = std::numeric_limits<double>::quiet_NaN();  // a NaN breaks the run of still periods
  EXPECT_EQ(d.update(0xE, h, v), 0xEu);
  v[0].setZero();
  EXPECT_EQ(d.update(0xE, h, v), 0xEu);
  EXPECT_EQ(d.update(0xE, h, v), 0xEu);
  EXPECT_EQ(d.update(0xE, h, v), 0xFu);
  EXPECT_EQ(d.update(0xF, h, v), 0xFu);  // back in the stance
  // thresholds out of their domain
  auto refused = [](talus::TouchdownSettings<double> s) { return talus::ContactDetector<double, 4>().init(s); };
  talus::TouchdownSettings<double> s;
  s.height = 0.02;  // not below the clearance
  EXPECT_EQ(refused(s), Status::invalid_input);
  s = {};
  s.speed = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(refused(s), Status::invalid_input);
  s = {};
  s.periods = 0;
  EXPECT_EQ(refused(s), Status::invalid_input);
  s = {};
  s.clearance = -1;
  EXPECT_EQ(refused(s), Status::invalid_input);
}

}  // namespace
}  // namespace talus_test
