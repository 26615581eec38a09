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
      {V3::Zero(), -kG, nan, talus::EstimatorFailureReason::dt_invalid},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ekf.propagate(c.gyro, c.acc, c.dt), Status::invalid_input);
    EXPECT_EQ(ekf.failure().reason, c.why);
    EXPECT_TRUE(ekf.rotation() == before.rotation() && ekf.velocity() == before.velocity() &&
                ekf.position() == before.position() && ekf.gyro_bias() == before.gyro_bias() &&
                ekf.covariance() == before.covariance())
        << talus::to_string(c.why);
  }
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

template <class S>
struct StandingSolo12 {
  using Model = solo::Model<S>;
  using Est = talus::LeggedEstimator<Model, 4>;
  Model model = solo::make_model<S>();
  std::array<int, 4> frames{solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                            solo::frame_id("HR_FOOT")};
  typename Est::Joints joints;
  M3 R0 = talus::rotation_exp<double>(V3(0.04, -0.03, 0.2));  // tilted, yawed
  double height = 0;                                          // base above the ground (m)
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

TEST(ConsistencyEstimation, LeggedEstimatorAtRestGivesTheStandingState) {
  StandingSolo12<double> r;
  auto est = std::make_unique<StandingSolo12<double>::Est>();
  ASSERT_EQ(est->init(r.model, r.frames, r.settings()), Status::ok);
  const StandingSolo12<double>::Est::Joints rates = StandingSolo12<double>::Est::Joints::Zero();
  ASSERT_EQ(est->update(V3::Zero(), r.still_accel(), r.joints, rates, 0xF, kDt), Status::ok);
  const Eigen::Vector4d first = est->q().segment<4>(3);
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
  EXPECT_LT((q.segment<4>(3) - first).norm(), 1e-9);
  EXPECT_LT(v.norm(), 1e-9);
  EXPECT_EQ(q.tail<12>(), r.joints);
  EXPECT_EQ(est->restarts(), 0u);
  EXPECT_EQ(est->filter().report().feet_in_contact, 4);
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

TEST(ReliabilityEstimation, LeggedEstimatorRefusesBadInputAndKeepsTheEstimate) {
  StandingSolo12<double> r;
  using Est = StandingSolo12<double>::Est;
  auto est = std::make_unique<Est>();
  const Est::Joints rates = Est::Joints::Zero();
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
  auto expect_refused = [&](Status want, const V3& g, const V3& a, const Est::Joints& enc, const Est::Joints& w,
                            double dt, const char* what) {
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
  Est::Joints enc = r.joints;
  enc[4] = nan;
  expect_refused(Status::invalid_input, V3::Zero(), acc, enc, rates, kDt, "NaN encoder");
  enc = r.joints;
  enc[4] = 1e3;
  expect_refused(Status::invalid_input, V3::Zero(), acc, enc, rates, kDt, "encoder out of range");
  Est::Joints w = rates;
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

TEST(AllocEstimation, NoHeapInALeggedEstimatorUpdate) {
  StandingSolo12<double> r;
  using Est = StandingSolo12<double>::Est;
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

}  // namespace
}  // namespace talus_test
