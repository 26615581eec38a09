// label: consistency — inputs from real sensors (issue 11): a float IMU quaternion in a
// double q, the (x, y, z, w) order of URDF/ROS/Eigen, and the loop runner's quantiles.
// References are independent of the code under test: long double normalisation, analytic
// rotation matrices, quantiles from the sorted samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <talus/models/solo12.hpp>
#include <talus/rt/log.hpp>
#include <talus/rt/loop.hpp>
#include <talus/talus.hpp>

#include "support/hand_models.hpp"
#include "support/random_state.hpp"

namespace {

namespace solo = talus::models::solo12;
using Solo = solo::Model<double>;
using Vec4 = Eigen::Matrix<double, 4, 1>;

bool bit_identical(const Solo::ConfigVector& a, const Solo::ConfigVector& b) {
  return std::memcmp(a.data(), b.data(), sizeof(double) * Solo::nq) == 0;
}

/// What an IMU sends: the quaternion computed and normalised in float, then widened.
Vec4 float_normalised(const Vec4& exact) {
  float f[4];
  for (int k = 0; k < 4; ++k) f[k] = static_cast<float>(exact[k]);
  const float n = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2] + f[3] * f[3]);
  Vec4 r;
  for (int k = 0; k < 4; ++k) r[k] = static_cast<double>(f[k] / n);
  return r;
}

/// Reference normalisation in long double (independent of talus's).
Vec4 normalised_long_double(const Vec4& x) {
  long double n2 = 0;
  for (int k = 0; k < 4; ++k) n2 += static_cast<long double>(x[k]) * x[k];
  const long double n = std::sqrt(n2);
  Vec4 r;
  for (int k = 0; k < 4; ++k) r[k] = static_cast<double>(x[k] / n);
  return r;
}

double norm_deviation(const Vec4& x) {
  long double n2 = 0;
  for (int k = 0; k < 4; ++k) n2 += static_cast<long double>(x[k]) * x[k];
  return static_cast<double>(std::fabs(std::sqrt(n2) - 1.0L));
}

Eigen::Matrix3d rot_z(double a) {
  Eigen::Matrix3d R;
  R << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
  return R;
}

// --- 1. quaternion tolerance and the sensor-boundary helpers --------------------------------

TEST(ConsistencySensorInputs, ToleranceValuesPerScalar) {
  EXPECT_NEAR(talus::quaternion_norm_tolerance<double>(), 2.22e-13, 0.01e-13);
  EXPECT_NEAR(talus::quaternion_norm_tolerance<float>(), 1.19e-4f, 0.01e-4f);
  EXPECT_EQ(talus::sensor_quaternion_tolerance<double>(), 1e-5);
  EXPECT_EQ(talus::sensor_quaternion_tolerance<float>(), talus::quaternion_norm_tolerance<float>());
}

TEST(ConsistencySensorInputs, FloatImuQuaternionInDoubleQ) {
  const Solo model = solo::make_model<double>();
  talus::Data<Solo> data;
  talus::Random rng(11);
  int tried = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const auto s = talus_test::random_state(model, rng);
    Solo::ConfigVector q = s.q;
    const Vec4 imu = float_normalised(q.segment<4>(3));
    if (!(norm_deviation(imu) > 1e-12)) continue;  // the float rounding happened to cancel
    ++tried;
    EXPECT_LT(norm_deviation(imu), 1e-6);  // what float normalisation leaves
    q.segment<4>(3) = imu;

    // Algorithms reject it (strict default).
    Solo::TangentVector ddq = Solo::TangentVector::Constant(7);
    EXPECT_EQ(talus::check_configuration(model, q), talus::Status::invalid_input);
    EXPECT_EQ(talus::aba(model, data, q, s.v, s.tau, ddq), talus::Status::invalid_input);
    EXPECT_TRUE(ddq.isZero(0));

    // The sensor boundary renormalises it and says so.
    Solo::ConfigVector qr = q;
    int changed = -1;
    ASSERT_EQ(talus::renormalize_quaternions(model, qr, 1e-5, &changed), talus::Status::ok);
    EXPECT_EQ(changed, 1);
    EXPECT_EQ(talus::check_configuration(model, qr), talus::Status::ok);
    EXPECT_TRUE(qr.head<3>() == q.head<3>() && qr.tail<12>() == q.tail<12>());  // only the quaternion moves
    const Vec4 exact = normalised_long_double(imu);
    EXPECT_LE((qr.segment<4>(3) - exact).cwiseAbs().maxCoeff(), 4e-16);

    // aba on it equals aba on the exactly normalised quaternion.
    Solo::ConfigVector qe = q;
    qe.segment<4>(3) = exact;
    Solo::TangentVector ddq_r, ddq_e;
    ASSERT_EQ(talus::aba(model, data, qr, s.v, s.tau, ddq_r), talus::Status::ok);
    ASSERT_EQ(talus::aba(model, data, qe, s.v, s.tau, ddq_e), talus::Status::ok);
    EXPECT_LE(talus_test::rel_err(ddq_r, ddq_e), 1e-12);

    // Called again, nothing to do: ok, 0 changed, bit for bit unchanged.
    Solo::ConfigVector again = qr;
    ASSERT_EQ(talus::renormalize_quaternions(model, again, 1e-5, &changed), talus::Status::ok);
    EXPECT_EQ(changed, 0);
    EXPECT_TRUE(bit_identical(again, qr));
  }
  EXPECT_GE(tried, 15);
}

TEST(ConsistencySensorInputs, BeyondTheBoundIsRefusedAndQUnchanged) {
  const Solo model = solo::make_model<double>();
  talus::Random rng(12);
  const auto s = talus_test::random_state(model, rng);
  Solo::ConfigVector q = s.q;
  q.segment<4>(3) *= 1.0 + 1e-4;  // a filter that stopped normalising
  const Solo::ConfigVector before = q;
  int changed = -1;
  EXPECT_EQ(talus::renormalize_quaternions(model, q, 1e-5, &changed), talus::Status::invalid_input);
  EXPECT_EQ(changed, 0);
  EXPECT_TRUE(bit_identical(q, before));
  // default bound is 1e-5 too
  EXPECT_EQ(talus::renormalize_quaternions(model, q), talus::Status::invalid_input);
  EXPECT_TRUE(bit_identical(q, before));
  // a wider stated bound accepts it
  ASSERT_EQ(talus::renormalize_quaternions(model, q, 1e-3, &changed), talus::Status::ok);
  EXPECT_EQ(changed, 1);
  EXPECT_LE(norm_deviation(q.segment<4>(3)), 1e-15);

  // zero quaternion, NaN, out-of-range entry, invalid bound: refused, q unchanged
  const auto refused = [&](Solo::ConfigVector bad, double bound) {
    const Solo::ConfigVector b = bad;
    int n = -1;
    const talus::Status st = talus::renormalize_quaternions(model, bad, bound, &n);
    return st == talus::Status::invalid_input && n == 0 && bit_identical(bad, b);
  };
  Solo::ConfigVector bad = s.q;
  bad.segment<4>(3).setZero();
  EXPECT_TRUE(refused(bad, 0.999));
  bad = s.q;
  bad[3] = std::nan("");
  EXPECT_TRUE(refused(bad, 1e-5));
  bad = s.q;
  bad[10] = 2e6;  // a joint angle beyond input_limits::position
  EXPECT_TRUE(refused(bad, 1e-5));
  bad = s.q;
  bad.segment<4>(3) *= 1.0 + 1e-7;
  EXPECT_TRUE(refused(bad, -1.0));
  EXPECT_TRUE(refused(bad, 1.0));
  EXPECT_TRUE(refused(bad, std::nan("")));
}

TEST(ConsistencySensorInputs, EveryQuaternionOrNone) {
  // chain: a free flyer (quaternion at q[3..6]) and a spherical joint (q[7..10])
  using Chain = talus_test::chain::Model<double>;
  const Chain model = talus_test::chain::make_model<double>();
  talus::Random rng(13);
  Chain::ConfigVector q;
  talus::random_configuration(model, rng, q);
  q.segment<4>(3) *= 1.0 + 3e-7;
  q.segment<4>(7) *= 1.0 - 2e-6;
  ASSERT_EQ(talus::check_configuration(model, q), talus::Status::invalid_input);
  Chain::ConfigVector both = q;
  int changed = -1;
  ASSERT_EQ(talus::renormalize_quaternions(model, both, 1e-5, &changed), talus::Status::ok);
  EXPECT_EQ(changed, 2);
  EXPECT_EQ(talus::check_configuration(model, both), talus::Status::ok);
  EXPECT_LE(norm_deviation(both.segment<4>(3)), 1e-15);
  EXPECT_LE(norm_deviation(both.segment<4>(7)), 1e-15);
  // the second one beyond the bound: the first one is not touched either
  Chain::ConfigVector one_bad = q;
  one_bad.segment<4>(7) *= 1.0 + 1e-3;
  const Chain::ConfigVector before = one_bad;
  EXPECT_EQ(talus::renormalize_quaternions(model, one_bad, 1e-5, &changed), talus::Status::invalid_input);
  EXPECT_EQ(changed, 0);
  EXPECT_EQ(std::memcmp(one_bad.data(), before.data(), sizeof(double) * Chain::nq), 0);
}

TEST(ConsistencySensorInputs, SingleImuQuaternion) {
  // A 16-bit fixed-point IMU quaternion (2^-14 per unit): off by more than 1e-5.
  const Vec4 exact = normalised_long_double(Vec4(0.3, -0.5, 0.7, 0.2));
  Vec4 fixed;
  for (int k = 0; k < 4; ++k) fixed[k] = std::round(exact[k] * 16384.0) / 16384.0;
  const double dev = norm_deviation(fixed);
  ASSERT_GT(dev, 1e-5);
  ASSERT_LT(dev, 1.2e-4);
  Vec4 r = fixed;
  bool changed = true;
  EXPECT_EQ(talus::renormalize_quaternion(r, 1e-5, &changed), talus::Status::invalid_input);
  EXPECT_FALSE(changed);
  EXPECT_TRUE(r == fixed);
  ASSERT_EQ(talus::renormalize_quaternion(r, 1.2e-4, &changed), talus::Status::ok);
  EXPECT_TRUE(changed);
  EXPECT_LE((r - normalised_long_double(fixed)).cwiseAbs().maxCoeff(), 4e-16);
  // a segment of q works the same
  Eigen::Matrix<double, 7, 1> pose;
  pose << 1, 2, 3, fixed;
  auto seg = pose.segment<4>(3);
  ASSERT_EQ(talus::renormalize_quaternion(seg, 1.2e-4), talus::Status::ok);
  EXPECT_TRUE(pose.segment<4>(3) == r);
  // In float, the strict tolerance (1.2e-4) already accepts a float-normalised quaternion:
  // nothing to do, left as it is.
  Eigen::Vector4f f = exact.cast<float>();
  const Eigen::Vector4f f0 = f;
  ASSERT_EQ(talus::renormalize_quaternion(f, talus::sensor_quaternion_tolerance<float>(), &changed), talus::Status::ok);
  EXPECT_FALSE(changed);
  EXPECT_TRUE(f == f0);
}

// --- 2. (x, y, z, w) order ---------------------------------------------------------------------

TEST(ConsistencySensorInputs, XyzwRoundTrips) {
  talus::Random rng(14);
  for (int i = 0; i < 100; ++i) {
    const Vec4 wxyz =
        normalised_long_double(Vec4(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)));
    const Vec4 xyzw = talus::quaternion_to_xyzw(wxyz);
    EXPECT_TRUE(xyzw == Vec4(wxyz[1], wxyz[2], wxyz[3], wxyz[0]));
    EXPECT_TRUE(talus::quaternion_from_xyzw(xyzw) == wxyz);
    EXPECT_TRUE(talus::quaternion_from_xyzw(xyzw[0], xyzw[1], xyzw[2], xyzw[3]) == wxyz);
    const Eigen::Quaterniond e = talus::quaternion_to_eigen(wxyz);
    EXPECT_TRUE(Vec4(e.coeffs()) == xyzw);  // Eigen stores (x, y, z, w)
    EXPECT_TRUE(talus::quaternion_from_eigen(e) == wxyz);
    EXPECT_LE((e.toRotationMatrix() - talus::quaternion_to_rotation(wxyz[0], wxyz[1], wxyz[2], wxyz[3]))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-15);
  }
}

TEST(ConsistencySensorInputs, RosYaw90) {
  // geometry_msgs/Quaternion of a 90° yaw: x = 0, y = 0, z = sin 45°, w = cos 45°.
  const double h = std::sqrt(0.5);
  const Vec4 wxyz = talus::quaternion_from_xyzw(0.0, 0.0, h, h);
  const Eigen::Matrix3d R = talus::quaternion_to_rotation(wxyz[0], wxyz[1], wxyz[2], wxyz[3]);
  EXPECT_LE((R - rot_z(M_PI / 2)).cwiseAbs().maxCoeff(), 1e-15);
  // Copied by hand as (w, x, y, z): a 180° turn about (0, 1, 1)/√2, R = 2 a aᵀ − 1.
  const Eigen::Matrix3d wrong = talus::quaternion_to_rotation(0.0, 0.0, h, h);
  const Eigen::Vector3d a(0, h, h);
  EXPECT_LE((wrong - (2 * a * a.transpose() - Eigen::Matrix3d::Identity())).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_GT((wrong - R).cwiseAbs().maxCoeff(), 0.5);
  // From Eigen's own angle-axis
  const Eigen::Quaterniond e(Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitZ()));
  EXPECT_LE((talus::quaternion_from_eigen(e) - wxyz).cwiseAbs().maxCoeff(), 2.3e-16);  // 2 ulp
  // End to end: the base of solo12 yawed by 90°.
  const Solo model = solo::make_model<double>();
  talus::Data<Solo> data;
  Solo::ConfigVector q;
  talus::neutral(model, q);
  q.segment<4>(3) = wxyz;
  ASSERT_EQ(talus::forward_kinematics(model, data, q), talus::Status::ok);
  EXPECT_LE((data.oMi[0].R - rot_z(M_PI / 2)).cwiseAbs().maxCoeff(), 1e-15);
}

// --- 3. loop runner quantiles ------------------------------------------------------------------

/// Quantile of rank ⌈n · per_mille / 1000⌉ (≥ 1) of the sorted samples.
std::uint64_t true_quantile(std::vector<std::uint64_t> xs, unsigned per_mille) {
  std::sort(xs.begin(), xs.end());
  std::uint64_t rank = (xs.size() * per_mille + 999) / 1000;
  if (rank == 0) rank = 1;
  return xs[rank - 1];
}

template <int Bins>
void check_quantiles(const talus::rt::TimeStats<Bins>& st, const std::vector<std::uint64_t>& xs, int& flagged,
                     int& exact) {
  const std::uint64_t edge = std::uint64_t(Bins - 1) * st.bin_ns;
  for (unsigned pm = 0; pm <= 1000; ++pm) {
    const std::uint64_t truth = true_quantile(xs, pm);
    const std::uint64_t rank = std::max<std::uint64_t>(1, (xs.size() * pm + 999) / 1000);
    const talus::rt::Quantile q = st.quantile(pm);
    if (truth >= edge && rank < xs.size()) {  // in the overflow bin, and not the largest sample
      EXPECT_TRUE(q.lower_bound) << pm;
      EXPECT_LE(q.ns, truth) << pm;
      EXPECT_GE(q.ns, edge) << pm;
      EXPECT_STREQ(q.prefix(), ">= ");
      ++flagged;
    } else {
      EXPECT_FALSE(q.lower_bound) << pm;
      EXPECT_LE(q.ns > truth ? q.ns - truth : truth - q.ns, st.bin_ns / 2) << pm << " truth " << truth;
      EXPECT_STREQ(q.prefix(), "");
      ++exact;
    }
  }
}

TEST(ConsistencySensorInputs, QuantilesFlagTheOverflowBin) {
  // 8 bins of 1 µs: regular bins cover [0, 7 µs).
  talus::rt::TimeStats<8> st;
  st.reset(1000);
  std::vector<std::uint64_t> xs;
  for (int i = 0; i < 50; ++i) xs.push_back(1200 + 37 * i % 700);  // 1.2–1.9 µs
  for (int i = 0; i < 30; ++i) xs.push_back(3100 + 53 * i % 800);  // 3.1–3.9 µs
  for (int i = 0; i < 20; ++i) xs.push_back(9000 + 997 * i);       // 9–28 µs: overflow
  for (std::uint64_t x : xs) st.add(x);
  EXPECT_EQ(st.overflow_count(), 20u);
  // median in a regular bin, p90 and p99 in the overflow bin, p100 = max
  EXPECT_FALSE(st.median().lower_bound);
  EXPECT_TRUE(st.quantile(900).lower_bound);
  EXPECT_TRUE(st.p99().lower_bound);
  EXPECT_EQ(st.p99().ns, 7000u);  // the overflow bin's lower edge, not the max
  EXPECT_NE(st.p99().ns, st.max_ns);
  EXPECT_EQ(st.quantile(1000).ns, st.max_ns);
  EXPECT_FALSE(st.quantile(1000).lower_bound);
  int flagged = 0, exact = 0;
  check_quantiles(st, xs, flagged, exact);
  EXPECT_GT(flagged, 100);
  EXPECT_GT(exact, 500);
}

TEST(ConsistencySensorInputs, QuantilesRandomDurations) {
  talus::Random rng(15);
  for (int trial = 0; trial < 20; ++trial) {
    talus::rt::TimeStats<16> st;
    st.reset(static_cast<std::uint64_t>(rng.uniform(100, 5000)));
    std::vector<std::uint64_t> xs;
    const int n = 1 + static_cast<int>(rng.uniform(0, 400));
    for (int i = 0; i < n; ++i) {
      const double u = rng.uniform();
      xs.push_back(static_cast<std::uint64_t>(u * u * 40.0 * static_cast<double>(st.bin_ns)));  // some overflow
    }
    for (std::uint64_t x : xs) st.add(x);
    int flagged = 0, exact = 0;
    check_quantiles(st, xs, flagged, exact);
  }
}

TEST(ConsistencySensorInputs, LinuxLikeLatenciesAreNotReportedAsTheMaximum) {
  // The old defaults: 64 bins of 1 µs, latencies of 60–300 µs (a stock Linux kernel).
  talus::rt::TimeStats<64> st;
  st.reset(1000);
  for (int i = 0; i < 1000; ++i) st.add(60000 + static_cast<std::uint64_t>(i) * 240);
  EXPECT_TRUE(st.median().lower_bound);
  EXPECT_EQ(st.median().ns, 63000u);
  EXPECT_LT(st.median().ns, st.max_ns);
}

// rt/log.hpp: numbers printed without printf (newlib-nano has no %f and no %llu), the same
// text on every target; checked here against what they must print.
TEST(ConsistencySensorInputs, LogLinePrintsNumbersWithoutPrintf) {
  const auto text = [](auto v) {
    talus::rt::LogLine<64> line;
    line << v;
    return std::string(line.c_str());
  };
  using talus::rt::fixed;
  using talus::rt::sci;
  EXPECT_EQ(text(-42), "-42");
  EXPECT_EQ(text(12345678901ull), "12345678901");  // %llu on newlib-nano: "lu"
  EXPECT_EQ(text(std::numeric_limits<long long>::min()), "-9223372036854775808");
  EXPECT_EQ(text(std::numeric_limits<std::uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(text(3.25), "3.250000");  // as %f
  EXPECT_EQ(text(fixed(9.9996, 3)), "10.000");
  EXPECT_EQ(text(fixed(-0.0004, 3)), "0.000");
  EXPECT_EQ(text(fixed(-0.0006, 3)), "-0.001");
  EXPECT_EQ(text(fixed(0.5, 0)), "1");
  EXPECT_EQ(text(fixed(1e300, 2)), "1.00000000e+300");  // beyond 1.8e19 after scaling
  EXPECT_EQ(text(sci(1.234e-7)), "1.23e-07");
  EXPECT_EQ(text(sci(-9.996e5)), "-1.00e+06");
  EXPECT_EQ(text(sci(0.0)), "0.00e+00");
  EXPECT_EQ(text(sci(5e-324, 2)), "4.9e-324");
  EXPECT_EQ(text(fixed(std::numeric_limits<double>::quiet_NaN())), "nan");
  EXPECT_EQ(text(sci(-std::numeric_limits<double>::infinity())), "-inf");
  EXPECT_EQ(text(talus::rt::Quantile{63000, true}), ">= 63000");
  EXPECT_EQ(text(talus::rt::Quantile{800, false}), "800");
  for (int d = 0; d <= 6; ++d)  // away from rounding ties, fixed agrees with printf's %.*f
    for (double x : {0.0, 1.0, -1.25, 123.456789, -98765.4321, 3.14159265358979}) {
      char want[64];
      std::snprintf(want, sizeof want, "%.*f", d, x + (x < 0 ? -1e-9 : 1e-9));
      EXPECT_EQ(text(fixed(x + (x < 0 ? -1e-9 : 1e-9), d)), want) << x << " " << d;
    }
  talus::rt::LogLine<8> line;
  line << "123456789";
  EXPECT_TRUE(line.truncated());
  EXPECT_STREQ(line.c_str(), "1234567");
}

TEST(ConsistencySensorInputs, DefaultBinWidthsCoverThePeriod) {
  talus::rt::LoopConfig c;
  c.period_ns = 1000000;
  talus::rt::Loop<64> loop(c);
  const std::uint64_t w = loop.stats().exec.bin_ns;
  EXPECT_GE(63 * w, c.period_ns);        // an execution within the period is never in the overflow bin
  EXPECT_LT(63 * (w - 1), c.period_ns);  // and the bins are no wider than needed
#if defined(__linux__)
  EXPECT_EQ(loop.stats().latency.bin_ns, w);
#else
  EXPECT_EQ(loop.stats().latency.bin_ns, 1000u);
#endif
  c.exec_bin_ns = 250;
  c.latency_bin_ns = 500;
  talus::rt::Loop<64> given(c);
  EXPECT_EQ(given.stats().exec.bin_ns, 250u);
  EXPECT_EQ(given.stats().latency.bin_ns, 500u);
  // one period's worth of execution time lands in a regular bin
  talus::rt::TimeStats<64> st = loop.stats().exec;
  st.add(c.period_ns - 1);
  st.add(c.period_ns);
  EXPECT_EQ(st.overflow_count(), 0u);
}

}  // namespace
